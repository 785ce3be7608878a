//! Time, injected: how long a run may wait for rate limits, and the clock
//! and sleep it waits with, so that tests see every wait as data without
//! sleeping for real.

use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, SystemTime};

use crit_llm::RetryPolicy;

/// A sleep in progress.
pub type Sleep<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// The clock and the sleep a poster waits with.
pub trait Pacer: Send + Sync {
    fn now(&self) -> SystemTime;
    fn sleep(&self, wait: Duration) -> Sleep<'_>;
}

/// The real clock and tokio's sleep.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealTime;

impl Pacer for RealTime {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn sleep(&self, wait: Duration) -> Sleep<'_> {
        Box::pin(tokio::time::sleep(wait))
    }
}

/// How patient one run is with a forge.
#[derive(Debug, Clone, PartialEq)]
pub struct Patience {
    /// All the waiting one run may do for rate limits and retries together;
    /// a forge asking for more is an error, not a longer wait.
    pub max_total_wait: Duration,
    /// Attempts of one request, the first included.
    pub max_attempts: u32,
    /// Backoff between retries of server errors (crit's one retry policy;
    /// its `max_attempts` is not used here).
    pub backoff: RetryPolicy,
    /// The wait after a secondary rate limit that names no time (GitHub
    /// asks for at least a minute), doubled on each repeat.
    pub unnamed_rate_limit_wait: Duration,
    /// The least time between two writes (GitHub asks for a second, to
    /// stay clear of its secondary rate limits).
    pub min_write_interval: Duration,
    /// How long one request may take.
    pub request_timeout: Duration,
}

impl Patience {
    /// GitHub's documented pace.
    pub fn github() -> Self {
        Patience {
            min_write_interval: Duration::from_secs(1),
            ..Self::gitlab()
        }
    }

    pub fn gitlab() -> Self {
        Patience {
            max_total_wait: Duration::from_secs(180),
            max_attempts: 4,
            backoff: RetryPolicy::default(),
            unnamed_rate_limit_wait: Duration::from_secs(60),
            min_write_interval: Duration::ZERO,
            request_timeout: Duration::from_secs(30),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn real_time_sleeps() {
        let before = RealTime.now();
        RealTime.sleep(Duration::from_millis(1)).await;
        assert!(RealTime.now() >= before);
        assert!(Patience::github().min_write_interval > Patience::gitlab().min_write_interval);
    }
}
