//! What a failed answer means, by each forge's documented rules: a rate
//! limit to wait out (GitHub's secondary limits are 403s), a server error
//! worth another try, or a refusal.

use std::time::{Duration, SystemTime};

use reqwest::StatusCode;
use reqwest::header::HeaderMap;

use crate::error::ForgeKind;

/// How a failed answer is to be taken.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Failure {
    /// Wait (this long, when the forge said) and send it again.
    RateLimited(Option<Duration>),
    /// A server error: worth another try when the request is idempotent.
    Transient,
    /// The token may not, or cannot see.
    Permission,
    Other,
}

/// What a failed answer means, by each forge's documented rules.
pub(crate) fn classify(
    forge: ForgeKind,
    status: StatusCode,
    headers: &HeaderMap,
    body: &str,
    now: SystemTime,
) -> Failure {
    let code = status.as_u16();
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
    };
    let named = crit_llm::retry::retry_after(headers, now);
    let reset = |remaining: &str, reset: &str| {
        (header(remaining) == Some("0"))
            .then(|| header(reset)?.parse::<u64>().ok())
            .flatten()
            .map(|at| {
                let at = SystemTime::UNIX_EPOCH + Duration::from_secs(at);
                // A second more than asked: the reset time is rounded down.
                at.duration_since(now).unwrap_or(Duration::ZERO) + Duration::from_secs(1)
            })
    };
    match (forge, code) {
        (ForgeKind::Github, 403 | 429) => {
            let until_reset = reset("x-ratelimit-remaining", "x-ratelimit-reset");
            if named.is_some() || until_reset.is_some() {
                Failure::RateLimited(named.or(until_reset))
            } else if code == 429 || body.to_ascii_lowercase().contains("rate limit") {
                Failure::RateLimited(None)
            } else {
                Failure::Permission
            }
        }
        (ForgeKind::Gitlab, 429) => {
            Failure::RateLimited(named.or_else(|| reset("ratelimit-remaining", "ratelimit-reset")))
        }
        (_, 401 | 403 | 404) => Failure::Permission,
        (_, 500 | 502 | 503 | 504) => Failure::Transient,
        _ => Failure::Other,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    pub(crate) fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn github_tells_rate_limits_from_refusals() {
        let s403 = StatusCode::FORBIDDEN;
        let now = at(1_000);
        let gh = |h: &HeaderMap, body: &str| classify(ForgeKind::Github, s403, h, body, now);
        assert_eq!(
            gh(&headers(&[("retry-after", "30")]), "{}"),
            Failure::RateLimited(Some(Duration::from_secs(30)))
        );
        assert_eq!(
            gh(
                &headers(&[
                    ("x-ratelimit-remaining", "0"),
                    ("x-ratelimit-reset", "1060")
                ]),
                "{}"
            ),
            Failure::RateLimited(Some(Duration::from_secs(61)))
        );
        assert_eq!(
            gh(
                &HeaderMap::new(),
                r#"{"message":"You have exceeded a secondary rate limit."}"#
            ),
            Failure::RateLimited(None)
        );
        assert_eq!(
            gh(
                &HeaderMap::new(),
                r#"{"message":"Resource not accessible by integration"}"#
            ),
            Failure::Permission
        );
        assert_eq!(
            gh(&headers(&[("x-ratelimit-remaining", "12")]), "{}"),
            Failure::Permission
        );
        let h = HeaderMap::new();
        assert_eq!(
            classify(ForgeKind::Github, StatusCode::NOT_FOUND, &h, "", now),
            Failure::Permission
        );
        assert_eq!(
            classify(ForgeKind::Github, StatusCode::BAD_GATEWAY, &h, "", now),
            Failure::Transient
        );
        assert_eq!(
            classify(
                ForgeKind::Github,
                StatusCode::UNPROCESSABLE_ENTITY,
                &h,
                "",
                now
            ),
            Failure::Other
        );
    }

    #[test]
    fn gitlab_throttles_with_429() {
        let now = at(1_000);
        let s429 = StatusCode::TOO_MANY_REQUESTS;
        assert_eq!(
            classify(
                ForgeKind::Gitlab,
                s429,
                &headers(&[("retry-after", "3")]),
                "Retry later",
                now
            ),
            Failure::RateLimited(Some(Duration::from_secs(3)))
        );
        assert_eq!(
            classify(
                ForgeKind::Gitlab,
                s429,
                &headers(&[("ratelimit-remaining", "0"), ("ratelimit-reset", "1009")]),
                "",
                now
            ),
            Failure::RateLimited(Some(Duration::from_secs(10)))
        );
        assert_eq!(
            classify(
                ForgeKind::Gitlab,
                StatusCode::FORBIDDEN,
                &HeaderMap::new(),
                "rate limit",
                now
            ),
            Failure::Permission
        );
    }
}
