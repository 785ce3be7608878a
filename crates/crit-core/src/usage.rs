//! Token usage, summed across turns, reviewers and sub-agents.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Tokens used by one or more model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Usage {
    /// Uncached input tokens.
    pub input_tokens: u64,
    /// Output tokens (thinking included).
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_write_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_tokens: u64,
}

impl Usage {
    /// All input tokens, cached or not.
    pub fn total_input(&self) -> u64 {
        self.input_tokens + self.cache_write_tokens + self.cache_read_tokens
    }

    /// Every token, in and out.
    pub fn total(&self) -> u64 {
        self.total_input() + self.output_tokens
    }

    pub fn is_zero(&self) -> bool {
        self.total() == 0
    }
}

/// Two costs together: unknown when either is (`None`: a model with no
/// known price), so a total never looks smaller than what was spent.
pub fn add_cost(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(a? + b?)
}

impl std::ops::Add for Usage {
    type Output = Usage;
    fn add(mut self, rhs: Usage) -> Usage {
        self += rhs;
        self
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, rhs: Usage) {
        self.input_tokens += rhs.input_tokens;
        self.output_tokens += rhs.output_tokens;
        self.cache_write_tokens += rhs.cache_write_tokens;
        self.cache_read_tokens += rhs.cache_read_tokens;
    }
}

impl std::iter::Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Usage {
        iter.fold(Usage::default(), |a, b| a + b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_every_kind_of_token() {
        let a = Usage {
            input_tokens: 10,
            output_tokens: 5,
            cache_write_tokens: 100,
            cache_read_tokens: 0,
        };
        let b = Usage {
            input_tokens: 2,
            output_tokens: 1,
            cache_write_tokens: 0,
            cache_read_tokens: 100,
        };
        let s: Usage = [a, b].into_iter().sum();
        assert_eq!(
            s,
            Usage {
                input_tokens: 12,
                output_tokens: 6,
                cache_write_tokens: 100,
                cache_read_tokens: 100
            }
        );
        assert_eq!(s.total_input(), 212);
        assert_eq!(s.total(), 218);
    }
}
