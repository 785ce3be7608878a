//! The one HTTP transport: POST a JSON body, read an SSE stream, turn it into
//! [`ModelEvent`]s through a backend's decoder. Owns retries, timeouts, the overall
//! deadline, stall detection and cancellation, so the backends only map formats.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures_util::StreamExt;
use reqwest::header::HeaderMap;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::error::LlmError;
use crate::model::EventStream;
use crate::protocol::ModelEvent;
use crate::retry::{Jitter, RetryPolicy, retry_after};
use crate::sse::{SseDecoder, SseEvent};

/// Time limits of one model call.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeouts {
    pub connect: Duration,
    /// From sending the request to the response headers, per attempt.
    pub request: Duration,
    /// Longest silence allowed while the body streams.
    pub stall: Duration,
    /// The whole call, retries and waits included; wins over the retry policy.
    pub deadline: Option<Duration>,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            request: Duration::from_secs(120),
            stall: Duration::from_secs(90),
            deadline: Some(Duration::from_secs(600)),
        }
    }
}

/// Caps on one model answer, so a server that streams forever (or a proxy
/// gone wrong) is cut off instead of filling memory.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseLimits {
    /// Bytes of one answer's body as received (SSE framing included); error
    /// bodies are held to the same cap.
    pub max_bytes: u64,
}

impl Default for ResponseLimits {
    fn default() -> Self {
        // A 16k-token answer streams as a few MB of SSE; thinking adds some more.
        ResponseLimits {
            max_bytes: 32 * 1024 * 1024,
        }
    }
}

/// Turns one wire format's SSE events into normalized events.
pub(crate) trait WireDecoder: Send + 'static {
    /// One SSE event in; an `Err` is a mid-stream error the server reported.
    fn event(&mut self, ev: SseEvent) -> Result<Vec<ModelEvent>, LlmError>;
    /// The server said the message is complete.
    fn done(&self) -> bool;
    /// Final events (tool calls still open, stop, message end), once done or at EOF.
    fn finish(&mut self) -> Result<Vec<ModelEvent>, LlmError>;
}

/// One HTTP request, ready to send (and resend).
#[derive(Clone)]
pub(crate) struct HttpCall {
    pub url: String,
    pub headers: HeaderMap,
    pub body: Bytes,
    /// Strings that must never appear in an error (the API key).
    pub secrets: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct HttpTransport {
    client: reqwest::Client,
    pub policy: RetryPolicy,
    pub timeouts: Timeouts,
    pub limits: ResponseLimits,
    /// The rate-limit headers of every response this transport received.
    pub gauge: std::sync::Arc<crate::ratelimit::RateGauge>,
}

impl HttpTransport {
    /// The transport for `base_url`: system CA roots only when it is `https`, since
    /// loading them costs ~15 ms and a local `http://` server never needs them.
    pub fn for_url(
        base_url: &str,
        policy: RetryPolicy,
        timeouts: Timeouts,
    ) -> Result<Self, LlmError> {
        let https = base_url
            .trim_start()
            .to_ascii_lowercase()
            .starts_with("https:");
        Self::build(policy, timeouts, https)
    }

    /// Builds the client with rustls on the `ring` provider, handed to this client
    /// only (no process-wide provider), and HTTP/1.1.
    pub fn new(policy: RetryPolicy, timeouts: Timeouts) -> Result<Self, LlmError> {
        Self::build(policy, timeouts, true)
    }

    fn build(
        policy: RetryPolicy,
        timeouts: Timeouts,
        system_roots: bool,
    ) -> Result<Self, LlmError> {
        Ok(HttpTransport {
            client: tls_client(system_roots, timeouts.connect)?,
            policy,
            timeouts,
            limits: ResponseLimits::default(),
            gauge: Default::default(),
        })
    }
    /// Sends `call` (retrying as the policy says) and streams decoded events. An
    /// error before the first event is returned here rather than in the stream.
    pub(crate) async fn stream<D, F>(
        &self,
        call: HttpCall,
        make_decoder: F,
        cancel: CancellationToken,
    ) -> Result<EventStream, LlmError>
    where
        D: WireDecoder,
        F: Fn() -> D + Send + 'static,
    {
        let (tx, mut rx) = mpsc::channel(64);
        let run = Run {
            client: self.client.clone(),
            policy: self.policy.clone(),
            timeouts: self.timeouts.clone(),
            limits: self.limits.clone(),
            deadline: self.timeouts.deadline.map(|d| Instant::now() + d),
            cancel,
            tx,
            gauge: self.gauge.clone(),
        };
        tokio::spawn(run.run(call, make_decoder));
        let first = rx.recv().await;
        let first = match first {
            Some(Err(e)) => return Err(e),
            other => other,
        };
        let rest = futures_util::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|item| (item, rx))
        });
        Ok(Box::pin(futures_util::stream::iter(first).chain(rest)))
    }
}

type Tx = mpsc::Sender<Result<ModelEvent, LlmError>>;

struct Run {
    client: reqwest::Client,
    policy: RetryPolicy,
    timeouts: Timeouts,
    limits: ResponseLimits,
    deadline: Option<Instant>,
    cancel: CancellationToken,
    tx: Tx,
    gauge: std::sync::Arc<crate::ratelimit::RateGauge>,
}

/// How one attempt ended.
enum Attempt {
    /// Every event was delivered, or the consumer went away.
    Finished,
    Failed {
        error: LlmError,
        retryable: bool,
        server_wait: Option<Duration>,
    },
}

impl Attempt {
    fn fatal(error: LlmError) -> Attempt {
        Attempt::Failed {
            error,
            retryable: false,
            server_wait: None,
        }
    }
}

impl Run {
    async fn run<D: WireDecoder, F: Fn() -> D>(self, call: HttpCall, make_decoder: F) {
        let secrets: Vec<&str> = call.secrets.iter().map(String::as_str).collect();
        let mut jitter = Jitter::from_clock();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            let (error, retryable, server_wait) = match self.attempt(&call, make_decoder()).await {
                Attempt::Finished => return,
                Attempt::Failed {
                    error,
                    retryable,
                    server_wait,
                } => (error.redacted(&secrets), retryable, server_wait),
            };
            if !retryable || attempt >= self.policy.max_attempts {
                let _ = self.tx.send(Err(error)).await;
                return;
            }
            let wait = match server_wait {
                Some(w) if w > self.policy.max_retry_after => {
                    let _ = self.tx.send(Err(error)).await;
                    return;
                }
                Some(w) => w,
                None => self.policy.backoff(attempt - 1, jitter.next01()),
            };
            if let Some(deadline) = self.deadline
                && Instant::now() + wait >= deadline
            {
                let left = deadline.saturating_duration_since(Instant::now());
                let _ = self
                    .tx
                    .send(Err(LlmError::Timeout {
                        message: format!(
                            "the overall deadline leaves {left:.1?}, less than the {wait:.1?} wait before a retry (after: {error})"
                        ),
                    }))
                    .await;
                return;
            }
            tracing::warn!(attempt, wait_ms = wait.as_millis() as u64, error = %error, "retrying model request");
            tokio::select! {
                _ = self.cancel.cancelled() => {
                    let _ = self.tx.send(Err(LlmError::Cancelled)).await;
                    return;
                }
                _ = tokio::time::sleep(wait) => {}
            }
        }
    }

    fn deadline_error(&self) -> LlmError {
        LlmError::Timeout {
            message: format!(
                "the overall deadline of {:?} passed",
                self.timeouts.deadline.unwrap_or_default()
            ),
        }
    }

    /// Sleeps until the deadline, or forever without one.
    async fn until_deadline(&self) {
        match self.deadline {
            Some(d) => tokio::time::sleep_until(d).await,
            None => std::future::pending().await,
        }
    }

    async fn attempt<D: WireDecoder>(&self, call: &HttpCall, mut decoder: D) -> Attempt {
        if self.cancel.is_cancelled() {
            return Attempt::fatal(LlmError::Cancelled);
        }
        let send = self
            .client
            .post(&call.url)
            .headers(call.headers.clone())
            .body(call.body.clone())
            .send();
        let resp = tokio::select! {
            _ = self.cancel.cancelled() => return Attempt::fatal(LlmError::Cancelled),
            _ = self.until_deadline() => return Attempt::fatal(self.deadline_error()),
            r = tokio::time::timeout(self.timeouts.request, send) => r,
        };
        let resp = match resp {
            Err(_) => {
                return Attempt::Failed {
                    error: LlmError::Timeout {
                        message: format!("no response within {:?}", self.timeouts.request),
                    },
                    retryable: true,
                    server_wait: None,
                };
            }
            Ok(Err(e)) => {
                return Attempt::Failed {
                    error: LlmError::Network {
                        message: describe_reqwest(&e),
                    },
                    retryable: true,
                    server_wait: None,
                };
            }
            Ok(Ok(r)) => r,
        };
        let status = resp.status().as_u16();
        self.gauge.observe(status, resp.headers());
        if !resp.status().is_success() {
            return self.failed_status(status, resp).await;
        }
        self.read_body(resp, &mut decoder).await
    }

    async fn failed_status(&self, status: u16, resp: reqwest::Response) -> Attempt {
        let headers = resp.headers().clone();
        let wait = retry_after(&headers, SystemTime::now());
        let body = tokio::select! {
            _ = self.cancel.cancelled() => return Attempt::fatal(LlmError::Cancelled),
            b = tokio::time::timeout(self.timeouts.stall, self.error_body(resp)) => b,
        };
        let body = body.unwrap_or_default();
        Attempt::Failed {
            error: LlmError::from_http(status, wait, &body),
            retryable: RetryPolicy::status_is_retryable(status, &headers),
            server_wait: wait,
        }
    }

    /// An error answer's text, at most the response cap of it (a message is
    /// all that is wanted from it).
    async fn error_body(&self, resp: reqwest::Response) -> String {
        let mut body = resp.bytes_stream();
        let mut kept = Vec::new();
        while let Some(Ok(bytes)) = body.next().await {
            let room = usize::try_from(self.limits.max_bytes)
                .unwrap_or(usize::MAX)
                .saturating_sub(kept.len());
            kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
            if bytes.len() >= room {
                break;
            }
        }
        String::from_utf8_lossy(&kept).into_owned()
    }

    async fn read_body<D: WireDecoder>(&self, resp: reqwest::Response, decoder: &mut D) -> Attempt {
        let mut body = resp.bytes_stream();
        let mut sse = SseDecoder::new();
        let mut sent_content = false;
        let mut received: u64 = 0;
        loop {
            let chunk = tokio::select! {
                _ = self.cancel.cancelled() => return Attempt::fatal(LlmError::Cancelled),
                _ = self.until_deadline() => return Attempt::fatal(self.deadline_error()),
                c = tokio::time::timeout(self.timeouts.stall, body.next()) => c,
            };
            let eof = matches!(chunk, Ok(None));
            let events = match chunk {
                Err(_) => {
                    return Attempt::Failed {
                        error: LlmError::Stalled {
                            after: self.timeouts.stall,
                        },
                        retryable: !sent_content,
                        server_wait: None,
                    };
                }
                Ok(Some(Err(e))) => {
                    return Attempt::Failed {
                        error: LlmError::Network {
                            message: format!("the stream broke: {}", describe_reqwest(&e)),
                        },
                        retryable: !sent_content,
                        server_wait: None,
                    };
                }
                Ok(Some(Ok(bytes))) => {
                    received = received.saturating_add(bytes.len() as u64);
                    if received > self.limits.max_bytes {
                        return Attempt::fatal(LlmError::ResponseTooLarge {
                            limit: self.limits.max_bytes,
                        });
                    }
                    sse.push(&bytes)
                }
                Ok(None) => sse.finish(),
            };
            for ev in events {
                match decoder.event(ev) {
                    Ok(out) => {
                        if !self.forward(out, &mut sent_content).await {
                            return Attempt::Finished;
                        }
                    }
                    Err(error) => {
                        let retryable = error.is_retryable() && !sent_content;
                        return Attempt::Failed {
                            error,
                            retryable,
                            server_wait: None,
                        };
                    }
                }
                if decoder.done() {
                    break;
                }
            }
            if decoder.done() {
                return match decoder.finish() {
                    Ok(out) => {
                        self.forward(out, &mut sent_content).await;
                        Attempt::Finished
                    }
                    Err(e) => Attempt::fatal(e),
                };
            }
            if eof {
                return Attempt::Failed {
                    error: LlmError::Network {
                        message: "the stream ended before the message was complete".into(),
                    },
                    retryable: !sent_content,
                    server_wait: None,
                };
            }
        }
    }

    /// Sends events on; false when the consumer has gone.
    async fn forward(&self, events: Vec<ModelEvent>, sent_content: &mut bool) -> bool {
        for ev in events {
            *sent_content |= ev.is_content();
            if self.tx.send(Ok(ev)).await.is_err() {
                return false;
            }
        }
        true
    }
}

/// A reqwest error without its URL (which could carry a key in a query string).
fn describe_reqwest(e: &reqwest::Error) -> String {
    let kind = if e.is_connect() {
        "cannot connect"
    } else if e.is_timeout() {
        "timed out"
    } else if e.is_body() || e.is_decode() {
        "reading the body failed"
    } else {
        "request failed"
    };
    let mut msg = kind.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    msg
}

/// A reqwest client on crit's one TLS stack (rustls on `ring`, the system's
/// CA certificates, HTTP/1.1), for other HTTP clients of crit's (MCP servers).
/// `system_roots: false` is for plain-HTTP endpoints: no certificate store
/// is looked for, and an HTTPS call fails on the certificate.
pub fn tls_client(
    system_roots: bool,
    connect_timeout: Duration,
) -> Result<reqwest::Client, LlmError> {
    let config = |e: String| LlmError::Config {
        message: format!("cannot set up TLS: {e}"),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| config(e.to_string()))?;
    let verifier = if system_roots {
        rustls_platform_verifier::Verifier::new(provider).map_err(|e| e.to_string())
    } else {
        Err("plain HTTP base URL".to_string())
    };
    let tls = match verifier {
        Ok(verifier) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth(),
        // No system CA certificates: plain-HTTP local servers must still work,
        // and an HTTPS call fails on the certificate with a clear error.
        Err(e) => {
            if system_roots {
                tracing::warn!(error = %e, "no system CA certificates; HTTPS will fail");
            }
            builder
                .with_root_certificates(rustls::RootCertStore::empty())
                .with_no_client_auth()
        }
    };
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .connect_timeout(connect_timeout)
        .user_agent(concat!("crit/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| config(e.to_string()))
}

/// Header names and values for an HTTP client, checked.
pub fn header_map(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<
    std::collections::HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>,
    String,
> {
    headers
        .iter()
        .map(|(k, v)| {
            let name = reqwest::header::HeaderName::from_bytes(k.trim().as_bytes())
                .map_err(|_| format!("header `{k}`: not a valid header name"))?;
            let value = reqwest::header::HeaderValue::from_str(v.trim())
                .map_err(|_| format!("header `{k}`: the value is not valid in a header"))?;
            Ok((name, value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_clients_with_and_without_system_roots() {
        let t = HttpTransport::new(RetryPolicy::default(), Timeouts::default());
        assert!(t.is_ok());
        let t = HttpTransport::for_url(
            "http://127.0.0.1:1",
            RetryPolicy::default(),
            Timeouts::default(),
        );
        assert!(t.is_ok());
    }
}
