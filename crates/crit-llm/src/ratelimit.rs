//! What the provider's rate-limit headers say, for callers that pace their
//! own requests (the parts of a split change). Every response carries them:
//! Anthropic's `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining}`,
//! OpenAI's `x-ratelimit-{limit,remaining}-{requests,tokens}`; a 429 says the
//! limit was hit.

use std::sync::Mutex;

use reqwest::header::HeaderMap;

/// The provider's room for more requests, as its headers said last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Headroom {
    pub requests_limit: Option<u64>,
    pub requests_remaining: Option<u64>,
    /// The tightest of the token limits (all tokens, input, output).
    pub tokens_limit: Option<u64>,
    pub tokens_remaining: Option<u64>,
    /// 429 answers seen so far (a count, so a caller can tell a new one).
    pub rate_limited: u64,
}

impl Headroom {
    /// The share of the tightest limit still free, when a header says.
    pub fn free_share(&self) -> Option<f64> {
        let share = |rem: Option<u64>, lim: Option<u64>| match (rem, lim) {
            (Some(r), Some(l)) if l > 0 => Some(r as f64 / l as f64),
            _ => None,
        };
        match (
            share(self.requests_remaining, self.requests_limit),
            share(self.tokens_remaining, self.tokens_limit),
        ) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The headroom seen on one backend's responses.
#[derive(Debug, Default)]
pub struct RateGauge(Mutex<Headroom>);

impl RateGauge {
    /// What the headers said last, and every 429 so far.
    pub fn headroom(&self) -> Headroom {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes in one response's status and headers.
    pub(crate) fn observe(&self, status: u16, headers: &HeaderMap) {
        let seen = parse(headers);
        let mut h = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if status == 429 {
            h.rate_limited += 1;
        }
        if seen.requests_remaining.is_some() || seen.tokens_remaining.is_some() {
            let limited = h.rate_limited;
            *h = Headroom {
                rate_limited: limited,
                ..seen
            };
        }
    }
}

/// The limits a response's headers state.
pub fn parse(headers: &HeaderMap) -> Headroom {
    let num = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    let first = |names: &[&str]| names.iter().find_map(|n| num(n));
    // The tightest token limit: the one with the smallest share left.
    let tokens = [
        (
            "anthropic-ratelimit-tokens-remaining",
            "anthropic-ratelimit-tokens-limit",
        ),
        (
            "anthropic-ratelimit-input-tokens-remaining",
            "anthropic-ratelimit-input-tokens-limit",
        ),
        (
            "anthropic-ratelimit-output-tokens-remaining",
            "anthropic-ratelimit-output-tokens-limit",
        ),
        ("x-ratelimit-remaining-tokens", "x-ratelimit-limit-tokens"),
    ]
    .iter()
    .filter_map(|(r, l)| Some((num(r)?, num(l))))
    .min_by(|a, b| {
        let share = |(r, l): &(u64, Option<u64>)| match l {
            Some(l) if *l > 0 => *r as f64 / *l as f64,
            _ => 1.0,
        };
        share(a).total_cmp(&share(b))
    });
    Headroom {
        requests_limit: first(&[
            "anthropic-ratelimit-requests-limit",
            "x-ratelimit-limit-requests",
        ]),
        requests_remaining: first(&[
            "anthropic-ratelimit-requests-remaining",
            "x-ratelimit-remaining-requests",
        ]),
        tokens_limit: tokens.and_then(|t| t.1),
        tokens_remaining: tokens.map(|t| t.0),
        rate_limited: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn reads_both_providers_headers_and_keeps_the_tightest_token_limit() {
        let a = parse(&headers(&[
            ("anthropic-ratelimit-requests-limit", "50"),
            ("anthropic-ratelimit-requests-remaining", "40"),
            ("anthropic-ratelimit-input-tokens-limit", "1000"),
            ("anthropic-ratelimit-input-tokens-remaining", "100"),
            ("anthropic-ratelimit-output-tokens-limit", "1000"),
            ("anthropic-ratelimit-output-tokens-remaining", "900"),
        ]));
        assert_eq!(a.requests_remaining, Some(40));
        assert_eq!(
            (a.tokens_remaining, a.tokens_limit),
            (Some(100), Some(1000))
        );
        assert_eq!(a.free_share(), Some(0.1));
        let o = parse(&headers(&[
            ("x-ratelimit-limit-requests", "10"),
            ("x-ratelimit-remaining-requests", "1"),
            ("x-ratelimit-remaining-tokens", "junk"),
        ]));
        assert_eq!(
            (o.requests_remaining, o.requests_limit),
            (Some(1), Some(10))
        );
        assert_eq!(o.tokens_remaining, None);
        assert_eq!(parse(&HeaderMap::new()).free_share(), None);
    }

    #[test]
    fn the_gauge_counts_429s_and_keeps_the_last_headers() {
        let g = RateGauge::default();
        g.observe(200, &headers(&[("x-ratelimit-remaining-requests", "5")]));
        g.observe(429, &HeaderMap::new());
        g.observe(429, &HeaderMap::new());
        let h = g.headroom();
        assert_eq!(h.rate_limited, 2);
        assert_eq!(h.requests_remaining, Some(5));
    }
}
