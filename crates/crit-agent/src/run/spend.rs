//! What a group of runs has spent, shared while they run: a budget holds
//! across a parent and its concurrent sub-agents (and across the reviewers of
//! a panel), counted as each model call ends, not when a sub-agent returns.

use std::sync::atomic::{AtomicU64, Ordering};

use crit_core::Usage;

/// Spend so far. USD is kept in micro-dollars so it fits an atomic.
#[derive(Debug, Default)]
pub struct SpendMeter {
    micro_usd: AtomicU64,
    tokens: AtomicU64,
}

impl SpendMeter {
    /// One model call's usage and cost.
    pub fn add(&self, usage: &Usage, usd: f64) {
        let micro = (usd.max(0.0) * 1e6).round();
        // Saturates for absurd costs rather than wrapping.
        let micro = if micro >= u64::MAX as f64 {
            u64::MAX
        } else {
            micro as u64
        };
        let add = |counter: &AtomicU64, n: u64| {
            let _ = counter.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |v| {
                Some(v.saturating_add(n))
            });
        };
        add(&self.micro_usd, micro);
        add(&self.tokens, usage.total());
    }

    pub fn usd(&self) -> f64 {
        self.micro_usd.load(Ordering::Relaxed) as f64 / 1e6
    }

    /// Tokens of every kind (input, cached, output).
    pub fn tokens(&self) -> u64 {
        self.tokens.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_up_across_threads() {
        let m = std::sync::Arc::new(SpendMeter::default());
        let usage = Usage {
            input_tokens: 10,
            output_tokens: 5,
            ..Usage::default()
        };
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for _ in 0..100 {
                        m.add(&usage, 0.01);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert!((m.usd() - 4.0).abs() < 1e-9, "{}", m.usd());
        assert_eq!(m.tokens(), 6000);
        m.add(&usage, f64::INFINITY);
        m.add(&usage, -3.0);
        assert!(m.usd() > 1e6);
    }
}
