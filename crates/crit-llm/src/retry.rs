//! When to retry and how long to wait: data, not code paths.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// The one retry policy of crit's HTTP backends.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (1 = never retry).
    pub max_attempts: u32,
    /// Backoff is `base · 2^n`, capped at `max_delay`, minus up to `jitter` of it.
    pub base_delay: Duration,
    pub max_delay: Duration,
    /// Fraction taken off at random (0.25 = up to −25%).
    pub jitter: f64,
    /// A server asking for a longer wait than this is not retried.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            jitter: 0.25,
            max_retry_after: Duration::from_secs(60),
        }
    }
}

/// Statuses never retried, whatever the server says.
const NEVER_RETRY: [u16; 5] = [400, 401, 403, 404, 413];

impl RetryPolicy {
    /// No retries at all (`crit doctor`: fail fast).
    pub fn none() -> Self {
        RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        }
    }

    /// Whether an HTTP error answer may be retried: `x-should-retry` when present,
    /// else 408, 409, 429 and 5xx; never 400/401/403/404/413.
    pub fn status_is_retryable(status: u16, headers: &HeaderMap) -> bool {
        if NEVER_RETRY.contains(&status) {
            return false;
        }
        match headers
            .get("x-should-retry")
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
        {
            Some("true") => return true,
            Some("false") => return false,
            _ => {}
        }
        matches!(status, 408 | 409 | 429) || status >= 500
    }

    /// The backoff before retry number `retry` (0-based), `rand01` in [0, 1).
    pub fn backoff(&self, retry: u32, rand01: f64) -> Duration {
        let exp = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(retry.min(20)));
        let capped = exp.min(self.max_delay);
        capped.mul_f64(1.0 - self.jitter * rand01.clamp(0.0, 1.0))
    }
}

/// The wait a server asked for: `retry-after-ms`, else `retry-after` in seconds or
/// as an HTTP date.
pub fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let get = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    if let Some(ms) = get("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let v = get("retry-after")?;
    if let Ok(secs) = v.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// A cheap xorshift for jitter: seeded from the clock, so no `rand` crate and no
/// shared state.
#[derive(Debug)]
pub(crate) struct Jitter(u64);

impl Jitter {
    pub(crate) fn from_clock() -> Self {
        let nanos = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15);
        Jitter(nanos | 1)
    }

    pub(crate) fn next01(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn statuses() {
        let none = HeaderMap::new();
        for s in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(RetryPolicy::status_is_retryable(s, &none), "{s}");
        }
        for s in [400, 401, 402, 403, 404, 413, 422] {
            assert!(!RetryPolicy::status_is_retryable(s, &none), "{s}");
        }
        let no = headers(&[("x-should-retry", "false")]);
        assert!(!RetryPolicy::status_is_retryable(529, &no));
        let yes = headers(&[("x-should-retry", "true")]);
        assert!(RetryPolicy::status_is_retryable(422, &yes));
        assert!(!RetryPolicy::status_is_retryable(401, &yes));
    }

    #[test]
    fn backoff_doubles_caps_and_jitters_down() {
        let p = RetryPolicy::default();
        assert_eq!(p.backoff(0, 0.0), Duration::from_millis(500));
        assert_eq!(p.backoff(1, 0.0), Duration::from_secs(1));
        assert_eq!(p.backoff(4, 0.0), Duration::from_secs(8));
        assert_eq!(p.backoff(30, 0.0), Duration::from_secs(8));
        assert_eq!(p.backoff(0, 1.0), Duration::from_millis(375));
        let mut j = Jitter(12345);
        for _ in 0..1000 {
            let r = j.next01();
            assert!((0.0..1.0).contains(&r));
            let d = p.backoff(2, r);
            assert!(d <= Duration::from_secs(2) && d >= Duration::from_millis(1500));
        }
    }

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            retry_after(&headers(&[("retry-after-ms", "250")]), now),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(
                &headers(&[("retry-after-ms", "250"), ("retry-after", "9")]),
                now
            ),
            Some(Duration::from_millis(250))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "2")]), now),
            Some(Duration::from_secs(2))
        );
        assert_eq!(
            retry_after(&headers(&[("retry-after", "1.5")]), now),
            Some(Duration::from_millis(1500))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(7));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &date)]), now),
            Some(Duration::from_secs(7))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(7));
        assert_eq!(
            retry_after(&headers(&[("retry-after", &past)]), now),
            Some(Duration::ZERO)
        );
        assert_eq!(retry_after(&headers(&[("retry-after", "soon")]), now), None);
        assert_eq!(retry_after(&HeaderMap::new(), now), None);
    }
}
