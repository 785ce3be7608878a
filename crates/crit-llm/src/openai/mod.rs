//! The OpenAI-compatible chat completions backend: OpenAI, Ollama, vLLM, llama.cpp.
//!
//! Base URLs follow the OpenAI SDK convention: the base *includes* the version
//! segment (`https://api.openai.com/v1`, `http://localhost:11434/v1`) and
//! `/chat/completions` is appended. A bare host (`http://localhost:8080`, no path)
//! gets `/v1/chat/completions`; any other path is used as given.

mod decode;
pub mod wire;

use bytes::Bytes;
use futures_util::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue};
use tokio_util::sync::CancellationToken;

use crate::error::LlmError;
use crate::model::{EventStream, Model};
use crate::protocol::{Capabilities, ModelRequest};
use crate::retry::RetryPolicy;
use crate::secret::Secret;
use crate::transport::{HttpCall, HttpTransport, ResponseLimits, Timeouts};

pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Sent when no key is configured: local servers ignore it, Ollama wants one.
pub const PLACEHOLDER_KEY: &str = "sk-no-key-required";

#[derive(Debug, Clone)]
pub struct OpenAiConfig {
    pub base_url: String,
    /// `None` for local servers: a placeholder is sent.
    pub api_key: Option<Secret>,
    pub retry: RetryPolicy,
    pub timeouts: Timeouts,
    /// Caps on one answer (its size).
    pub limits: ResponseLimits,
}

impl OpenAiConfig {
    pub fn new(base_url: impl Into<String>, api_key: Option<Secret>) -> Self {
        OpenAiConfig {
            base_url: base_url.into(),
            api_key,
            retry: RetryPolicy::default(),
            timeouts: Timeouts::default(),
            limits: ResponseLimits::default(),
        }
    }
}

/// The chat completions URL for a base URL (see the module docs).
pub fn completions_url(base: &str) -> String {
    let base = base.trim_end_matches('/');
    let after_scheme = base.split_once("://").map_or(base, |(_, rest)| rest);
    if after_scheme.contains('/') {
        format!("{base}/chat/completions")
    } else {
        format!("{base}/v1/chat/completions")
    }
}

#[derive(Debug)]
pub struct OpenAi {
    config: OpenAiConfig,
    transport: HttpTransport,
}

impl OpenAi {
    pub fn new(config: OpenAiConfig) -> Result<Self, LlmError> {
        let mut transport = HttpTransport::for_url(
            &config.base_url,
            config.retry.clone(),
            config.timeouts.clone(),
        )?;
        transport.limits = config.limits.clone();
        Ok(OpenAi { config, transport })
    }

    /// The exact JSON body sent for `req`.
    pub fn request_body(&self, req: &ModelRequest) -> serde_json::Value {
        wire::body(req)
    }

    fn key(&self) -> &str {
        self.config
            .api_key
            .as_ref()
            .map(Secret::expose)
            .filter(|k| !k.is_empty())
            .unwrap_or(PLACEHOLDER_KEY)
    }

    fn headers(&self) -> Result<HeaderMap, LlmError> {
        let mut h = HeaderMap::new();
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", self.key())).map_err(|_| {
            LlmError::Config {
                message: "OPENAI_API_KEY holds characters not allowed in a header".into(),
            }
        })?;
        auth.set_sensitive(true);
        h.insert("authorization", auth);
        h.insert("content-type", HeaderValue::from_static("application/json"));
        h.insert("accept", HeaderValue::from_static("text/event-stream"));
        Ok(h)
    }
}

impl Model for OpenAi {
    fn name(&self) -> &str {
        "openai"
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities::HTTP_MODEL
    }

    fn headroom(&self) -> Option<crate::ratelimit::Headroom> {
        Some(self.transport.gauge.headroom())
    }

    fn stream<'a>(
        &'a self,
        req: &'a ModelRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<EventStream, LlmError>> {
        Box::pin(async move {
            let call = HttpCall {
                url: completions_url(&self.config.base_url),
                headers: self.headers()?,
                body: Bytes::from(wire::body(req).to_string()),
                secrets: vec![self.key().to_string()],
            };
            let model = req.model.clone();
            self.transport
                .stream(call, move || decode::Decoder::new(&model), cancel)
                .await
        })
    }
}

/// A decoder for the fuzz target.
pub(crate) fn fuzz_decoder() -> impl crate::transport::WireDecoder {
    decode::Decoder::new("gpt-x")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_joining() {
        assert_eq!(
            completions_url("https://api.openai.com/v1"),
            "https://api.openai.com/v1/chat/completions"
        );
        assert_eq!(
            completions_url("http://localhost:11434/v1/"),
            "http://localhost:11434/v1/chat/completions"
        );
        assert_eq!(
            completions_url("http://localhost:8080"),
            "http://localhost:8080/v1/chat/completions"
        );
        assert_eq!(
            completions_url("https://gw.example/openai/deployments/x"),
            "https://gw.example/openai/deployments/x/chat/completions"
        );
    }
}
