//! The one way crit-post talks to a forge: JSON over crit's TLS client,
//! the token in one header marked sensitive, rate limits and server errors
//! retried within the run's patience, pagination followed only within the
//! API, answers capped, and everything counted.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crit_llm::Secret;
use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use crate::error::{ForgeKind, PostError, permission_hint, server_words};
use crate::failure::{Failure, classify};
use crate::pace::{Pacer, Patience};

/// Most bytes of one answer crit reads.
const MAX_ANSWER: usize = 16 * 1024 * 1024;
/// Most pages of one list.
const MAX_PAGES: usize = 100;
/// Most retries of one request after rate limits.
const MAX_RATE_LIMIT_RETRIES: u32 = 5;

/// What one run sent and received.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// HTTP requests sent, retries included.
    pub requests: u32,
    /// Request bodies, in bytes.
    pub bytes_sent: u64,
    /// Answer bodies, in bytes.
    pub bytes_received: u64,
    /// Requests sent again after a rate limit or a server error.
    pub retries: u32,
    /// Time spent waiting for rate limits and retries.
    pub waited: Duration,
    /// Every wait, in order (rate limits, backoff and the pace between
    /// writes), so a caller or a test can see them.
    pub waits: Vec<Duration>,
}

/// A client of one forge's API.
pub(crate) struct Api {
    client: reqwest::Client,
    pub forge: ForgeKind,
    base: String,
    token: Secret,
    token_source: String,
    auth: HeaderValue,
    accept: &'static str,
    pacer: Arc<dyn Pacer>,
    patience: Patience,
    last_write: Option<SystemTime>,
    pub stats: Stats,
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api")
            .field("forge", &self.forge)
            .field("base", &self.base)
            .field("token", &self.token)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

impl Api {
    pub(crate) fn new(
        forge: ForgeKind,
        base: &str,
        token: Secret,
        token_source: &str,
        pacer: Arc<dyn Pacer>,
        patience: Option<Patience>,
    ) -> Result<Self, PostError> {
        let patience = patience.unwrap_or_else(|| match forge {
            ForgeKind::Github => Patience::github(),
            ForgeKind::Gitlab => Patience::gitlab(),
        });
        let base = base.trim().trim_end_matches('/').to_string();
        let https = base.to_ascii_lowercase().starts_with("https:");
        let client = crit_llm::transport::tls_client(https, Duration::from_secs(10))
            .map_err(|e| PostError::Setup(e.to_string()))?;
        let mut auth =
            HeaderValue::from_str(&format!("Bearer {}", token.expose())).map_err(|_| {
                PostError::Setup(format!(
                    "the token from {token_source} holds characters a header cannot carry"
                ))
            })?;
        auth.set_sensitive(true);
        Ok(Api {
            client,
            forge,
            base,
            token,
            token_source: token_source.to_string(),
            auth,
            accept: match forge {
                ForgeKind::Github => "application/vnd.github+json",
                ForgeKind::Gitlab => "application/json",
            },
            pacer,
            patience,
            last_write: None,
            stats: Stats::default(),
        })
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub(crate) async fn get(&mut self, path: &str, action: &str) -> Result<Value, PostError> {
        let url = self.url(path);
        Ok(self.request(Method::GET, &url, None, action).await?.0)
    }

    /// Every item of a paginated list, following `Link: rel="next"` only to
    /// URLs under the API base (the token goes with each request).
    pub(crate) async fn get_all(
        &mut self,
        path: &str,
        action: &str,
    ) -> Result<Vec<Value>, PostError> {
        let sep = if path.contains('?') { '&' } else { '?' };
        let mut url = self.url(&format!("{path}{sep}per_page=100"));
        let mut all = Vec::new();
        for _ in 0..MAX_PAGES {
            let (page, headers) = self.request(Method::GET, &url, None, action).await?;
            match page {
                Value::Array(items) => all.extend(items),
                _ => return Err(self.protocol(action, "a list was expected")),
            }
            match next_link(&headers) {
                None => return Ok(all),
                Some(next) if next.starts_with(&format!("{}/", self.base)) => url = next,
                Some(_) => {
                    return Err(self.protocol(
                        action,
                        "a pagination link points outside the API; crit does not send its token there",
                    ));
                }
            }
        }
        Err(self.protocol(action, &format!("more than {MAX_PAGES} pages")))
    }

    pub(crate) async fn write(
        &mut self,
        method: Method,
        path: &str,
        body: &Value,
        action: &str,
    ) -> Result<Value, PostError> {
        let url = self.url(path);
        Ok(self.request(method, &url, Some(body), action).await?.0)
    }

    /// A POST to a full URL (GitHub's GraphQL endpoint).
    pub(crate) async fn post_to(
        &mut self,
        url: &str,
        body: &Value,
        action: &str,
    ) -> Result<Value, PostError> {
        Ok(self.request(Method::POST, url, Some(body), action).await?.0)
    }

    /// Waits the run's backoff before the poster sends a write again itself
    /// (`retry` 0 is the first time again); an error when the run's
    /// patience is spent.
    pub(crate) async fn backoff(&mut self, retry: u32, action: &str) -> Result<(), PostError> {
        let wait = self.patience.backoff.backoff(retry, 0.0);
        self.wait(wait, action).await
    }

    /// Attempts of one write, the first included.
    pub(crate) fn max_attempts(&self) -> u32 {
        self.patience.max_attempts.max(1)
    }

    /// A server's words, fit to keep (see [`server_words`]).
    pub(crate) fn words(&self, text: &str) -> String {
        server_words(text, self.token.expose())
    }

    pub(crate) fn protocol(&self, action: &str, message: &str) -> PostError {
        PostError::Protocol {
            forge: self.forge,
            action: action.to_string(),
            message: message.to_string(),
        }
    }

    async fn request(
        &mut self,
        method: Method,
        url: &str,
        body: Option<&Value>,
        action: &str,
    ) -> Result<(Value, HeaderMap), PostError> {
        let idempotent = method != Method::POST;
        let write = method != Method::GET;
        // The token never leaves in a body, whatever the review's text held.
        let payload = body.map(|b| scrub(&b.to_string(), self.token.expose()));
        let mut attempt = 0u32;
        let mut rate_limited = 0u32;
        loop {
            attempt += 1;
            if write {
                self.pace_write().await;
            }
            self.stats.requests += 1;
            let mut req = self
                .client
                .request(method.clone(), url)
                .header(reqwest::header::AUTHORIZATION, self.auth.clone())
                .header(reqwest::header::ACCEPT, self.accept)
                .timeout(self.patience.request_timeout);
            if self.forge == ForgeKind::Github {
                req = req.header("x-github-api-version", "2022-11-28");
            }
            if let Some(p) = &payload {
                self.stats.bytes_sent += p.len() as u64;
                req = req
                    .header(reqwest::header::CONTENT_TYPE, "application/json")
                    .body(p.clone());
            }
            let (status, headers, text) = match req.send().await {
                Ok(resp) => {
                    let status = resp.status();
                    let headers = resp.headers().clone();
                    let text = self.read(resp).await;
                    (status, headers, text)
                }
                Err(e) => {
                    let message = describe(&e);
                    if idempotent && attempt < self.patience.max_attempts {
                        let wait = self.patience.backoff.backoff(attempt - 1, 0.0);
                        self.wait(wait, action).await?;
                        continue;
                    }
                    return Err(PostError::Network {
                        forge: self.forge,
                        action: action.to_string(),
                        message: server_words(&message, self.token.expose()),
                    });
                }
            };
            let text = match text {
                Ok(t) => t,
                Err(e) => return Err(self.protocol(action, &e.to_string())),
            };
            if status.is_success() {
                let value = if text.trim().is_empty() {
                    Value::Null
                } else {
                    serde_json::from_str(&text)
                        .map_err(|_| self.protocol(action, "the answer is not JSON"))?
                };
                return Ok((value, headers));
            }
            let now = self.pacer.now();
            match classify(self.forge, status, &headers, &text, now) {
                Failure::RateLimited(asked) if rate_limited < MAX_RATE_LIMIT_RETRIES => {
                    let wait = asked.unwrap_or_else(|| {
                        self.patience
                            .unnamed_rate_limit_wait
                            .saturating_mul(2u32.saturating_pow(rate_limited))
                    });
                    rate_limited += 1;
                    self.wait(wait, action).await?;
                }
                Failure::Transient if idempotent && attempt < self.patience.max_attempts => {
                    let wait = self.patience.backoff.backoff(attempt - 1, 0.0);
                    self.wait(wait, action).await?;
                }
                Failure::Permission => {
                    return Err(PostError::Permission {
                        forge: self.forge,
                        status: status.as_u16(),
                        action: action.to_string(),
                        message: self.message_of(&text),
                        hint: permission_hint(self.forge, status.as_u16(), &self.token_source),
                    });
                }
                _ => {
                    return Err(PostError::Rejected {
                        forge: self.forge,
                        status: status.as_u16(),
                        action: action.to_string(),
                        message: self.message_of(&text),
                    });
                }
            }
        }
    }

    /// Waits `wait` if the run's patience has that much left.
    async fn wait(&mut self, wait: Duration, action: &str) -> Result<(), PostError> {
        let limit = self.patience.max_total_wait;
        let left = limit.saturating_sub(self.stats.waited);
        if wait > left {
            return Err(PostError::RateLimited {
                forge: self.forge,
                action: action.to_string(),
                wait,
                left,
                limit,
            });
        }
        tracing::warn!(forge = %self.forge, wait_ms = wait.as_millis() as u64, "waiting before sending again");
        self.stats.retries += 1;
        self.stats.waited += wait;
        self.stats.waits.push(wait);
        self.pacer.sleep(wait).await;
        Ok(())
    }

    /// Keeps writes the configured interval apart.
    async fn pace_write(&mut self) {
        let now = self.pacer.now();
        if let Some(last) = self.last_write {
            let since = now.duration_since(last).unwrap_or(Duration::ZERO);
            let gap = self.patience.min_write_interval.saturating_sub(since);
            if !gap.is_zero() {
                self.stats.waits.push(gap);
                self.pacer.sleep(gap).await;
            }
        }
        self.last_write = Some(self.pacer.now());
    }

    async fn read(&mut self, mut resp: reqwest::Response) -> Result<String, ReadError> {
        let mut kept = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    self.stats.bytes_received += chunk.len() as u64;
                    if kept.len() + chunk.len() > MAX_ANSWER {
                        return Err(ReadError::TooLarge);
                    }
                    kept.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return Err(ReadError::Failed(describe(&e))),
            }
        }
        String::from_utf8(kept).map_err(|_| ReadError::NotUtf8)
    }

    /// The forge's own words about a failure: `message` (and GitHub's
    /// `errors`) of a JSON body, else the text.
    fn message_of(&self, text: &str) -> String {
        let words = match serde_json::from_str::<Value>(text) {
            Ok(v) => {
                let mut m = match v.get("message") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => v.get("error").map(Value::to_string).unwrap_or_default(),
                };
                if let Some(errors) = v.get("errors").filter(|e| !e.is_null()) {
                    m.push_str(&format!(" {errors}"));
                }
                m
            }
            Err(_) => text.to_string(),
        };
        server_words(&words, self.token.expose())
    }
}

/// Why an answer's body could not be read.
#[derive(Debug, thiserror::Error)]
enum ReadError {
    #[error("the answer is larger than {MAX_ANSWER} bytes")]
    TooLarge,
    #[error("reading the answer failed: {0}")]
    Failed(String),
    #[error("the answer is not UTF-8")]
    NotUtf8,
}

/// The `rel="next"` URL of a `Link` header.
pub(crate) fn next_link(headers: &HeaderMap) -> Option<String> {
    let link = headers.get("link")?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, params) = part.trim().split_once(';')?;
        let rel_next = params
            .split(';')
            .any(|p| matches!(p.trim(), "rel=\"next\"" | "rel=next"));
        rel_next.then(|| {
            url.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
    })
}

/// `text` with every occurrence of the token replaced (tokens shorter than 8
/// characters are not real ones, and replacing them could break the text).
pub(crate) fn scrub(text: &str, secret: &str) -> String {
    if secret.len() >= 8 && text.contains(secret) {
        text.replace(secret, "[redacted]")
    } else {
        text.to_string()
    }
}

/// A reqwest error without its URL.
fn describe(e: &reqwest::Error) -> String {
    let mut msg = if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_connect() {
        "cannot connect".to_string()
    } else {
        "request failed".to_string()
    };
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        source = s.source();
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::tests::headers;

    #[test]
    fn links_and_scrubbing() {
        let h = headers(&[(
            "link",
            "<https://api.github.com/x?page=2>; rel=\"next\", <https://api.github.com/x?page=5>; rel=\"last\"",
        )]);
        assert_eq!(
            next_link(&h).as_deref(),
            Some("https://api.github.com/x?page=2")
        );
        assert_eq!(next_link(&headers(&[("link", "<a>; rel=\"last\"")])), None);
        assert_eq!(
            scrub("a ghs_secret123 b", "ghs_secret123"),
            "a [redacted] b"
        );
        assert_eq!(scrub("abc", "a"), "abc");
    }
}
