//! The Anthropic Messages backend (streaming).

mod decode;
pub mod wire;

use bytes::Bytes;
use futures_util::future::BoxFuture;
use reqwest::header::{HeaderMap, HeaderValue};
use tokio_util::sync::CancellationToken;

use crate::error::LlmError;
use crate::model::{EventStream, Model};
use crate::pricing;
use crate::protocol::{Capabilities, ModelRequest};
use crate::retry::RetryPolicy;
use crate::secret::Secret;
use crate::transport::{HttpCall, HttpTransport, ResponseLimits, Timeouts};

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const API_VERSION: &str = "2023-06-01";

/// How to authenticate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnthropicAuth {
    /// `x-api-key` (ANTHROPIC_API_KEY).
    ApiKey(Secret),
    /// `authorization: Bearer` (ANTHROPIC_AUTH_TOKEN).
    Bearer(Secret),
}

impl AnthropicAuth {
    fn secret(&self) -> &Secret {
        match self {
            AnthropicAuth::ApiKey(s) | AnthropicAuth::Bearer(s) => s,
        }
    }
}

#[derive(Debug, Clone)]
pub struct AnthropicConfig {
    /// `https://api.anthropic.com` style root; a trailing `/v1` is accepted too.
    pub base_url: String,
    pub auth: AnthropicAuth,
    pub retry: RetryPolicy,
    pub timeouts: Timeouts,
    /// Caps on one answer (its size).
    pub limits: ResponseLimits,
    /// Overrides the price table's word on `output_config.format` support.
    pub native_structured_output: Option<bool>,
}

impl AnthropicConfig {
    pub fn new(base_url: impl Into<String>, auth: AnthropicAuth) -> Self {
        AnthropicConfig {
            base_url: base_url.into(),
            auth,
            retry: RetryPolicy::default(),
            timeouts: Timeouts::default(),
            limits: ResponseLimits::default(),
            native_structured_output: None,
        }
    }
}

/// `{base}/v1/messages`, without doubling a `/v1` the base already has.
pub fn messages_url(base: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

#[derive(Debug)]
pub struct Anthropic {
    config: AnthropicConfig,
    transport: HttpTransport,
}

impl Anthropic {
    pub fn new(config: AnthropicConfig) -> Result<Self, LlmError> {
        let mut transport = HttpTransport::for_url(
            &config.base_url,
            config.retry.clone(),
            config.timeouts.clone(),
        )?;
        transport.limits = config.limits.clone();
        Ok(Anthropic { config, transport })
    }

    /// Whether `model` gets `output_config.format` (else the forced-tool fallback).
    pub fn native_schema(&self, model: &str) -> bool {
        self.config
            .native_structured_output
            .unwrap_or_else(|| pricing::lookup(model).is_some_and(|m| m.structured_output))
    }

    /// The exact JSON body sent for `req` (for snapshots and `--dry-run`).
    pub fn request_body(&self, req: &ModelRequest) -> serde_json::Value {
        let model = pricing::resolve_alias(&req.model);
        wire::body(req, &model, self.native_schema(&model))
    }

    fn headers(&self) -> Result<HeaderMap, LlmError> {
        let mut h = HeaderMap::new();
        let bad = |_| LlmError::Config {
            message: "the API key or token holds characters not allowed in a header".into(),
        };
        match &self.config.auth {
            AnthropicAuth::ApiKey(k) => {
                let mut v = HeaderValue::from_str(k.expose()).map_err(bad)?;
                v.set_sensitive(true);
                h.insert("x-api-key", v);
            }
            AnthropicAuth::Bearer(t) => {
                let mut v =
                    HeaderValue::from_str(&format!("Bearer {}", t.expose())).map_err(bad)?;
                v.set_sensitive(true);
                h.insert("authorization", v);
            }
        }
        h.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        h.insert("content-type", HeaderValue::from_static("application/json"));
        h.insert("accept", HeaderValue::from_static("text/event-stream"));
        Ok(h)
    }
}

impl Model for Anthropic {
    fn name(&self) -> &str {
        "anthropic"
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
            let model = pricing::resolve_alias(&req.model);
            let native = self.native_schema(&model);
            let body = wire::body(req, &model, native);
            let call = HttpCall {
                url: messages_url(&self.config.base_url),
                headers: self.headers()?,
                body: Bytes::from(body.to_string()),
                secrets: vec![self.config.auth.secret().expose().to_string()],
            };
            let forced = req.output_schema.is_some() && !native;
            self.transport
                .stream(call, move || decode::Decoder::new(&model, forced), cancel)
                .await
        })
    }
}

/// A decoder for the fuzz target.
pub(crate) fn fuzz_decoder() -> impl crate::transport::WireDecoder {
    decode::Decoder::new("claude-opus-5-5", true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert_eq!(
            messages_url("https://api.anthropic.com"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            messages_url("http://127.0.0.1:9/"),
            "http://127.0.0.1:9/v1/messages"
        );
        assert_eq!(
            messages_url("http://proxy/anthropic/v1"),
            "http://proxy/anthropic/v1/messages"
        );
    }

    #[test]
    fn debug_never_shows_the_key() {
        let a = Anthropic::new(AnthropicConfig::new(
            "http://127.0.0.1:1",
            AnthropicAuth::ApiKey(Secret::new("sk-ant-topsecret")),
        ))
        .unwrap();
        let dbg = format!("{a:?}");
        assert!(!dbg.contains("topsecret"), "{dbg}");
    }
}
