//! Every way a model call can fail, with what to do about it.

use std::time::Duration;

/// A failed model call. Messages never hold secrets: backends redact keys before
/// building one (see [`redact`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("authentication failed ({status}): {message}")]
    Auth { status: u16, message: String },
    #[error("permission denied (403): {message}")]
    Forbidden { message: String },
    #[error("billing problem (402): {message}")]
    Billing { message: String },
    #[error("rate limited (429): {message}")]
    RateLimited {
        message: String,
        retry_after: Option<Duration>,
    },
    #[error("the model service is overloaded ({status}): {message}")]
    Overloaded { status: u16, message: String },
    #[error("the prompt is too long for the model: {message}")]
    ContextTooLong { message: String },
    #[error("request too large (413): {message}")]
    TooLarge { message: String },
    #[error("bad request ({status}): {message}")]
    BadRequest { status: u16, message: String },
    #[error("not found (404): {message}")]
    NotFound { message: String },
    #[error("server error ({status}): {message}")]
    Server { status: u16, message: String },
    #[error("network error: {message}")]
    Network { message: String },
    #[error("timed out: {message}")]
    Timeout { message: String },
    #[error("the stream stalled: no data for {after:?}")]
    Stalled { after: Duration },
    #[error("cancelled")]
    Cancelled,
    #[error("could not parse the model's answer: {message}")]
    Parse { message: String },
    #[error("the model's answer passed the limit of {limit} bytes; crit stopped reading it")]
    ResponseTooLarge { limit: u64 },
    #[error("the agent failed: {message}")]
    Agent { message: String },
    #[error("replay: {message}")]
    Replay { message: String },
    #[error("configuration error: {message}")]
    Config { message: String },
    #[error(
        "no model backend is configured. Fix it with one of:\n  \
         - set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) for the Anthropic API\n  \
         - set OPENAI_BASE_URL (and OPENAI_API_KEY if the server needs one) for an OpenAI-compatible server, e.g. Ollama at http://localhost:11434/v1\n  \
         - install Claude Code (npm i -g @anthropic-ai/claude-code) and log in with `claude`, or point CRIT_CLAUDE_BIN at it\n  \
         - replay recorded answers with --provider replay --cassettes DIR"
    )]
    NoBackend,
}

impl LlmError {
    /// Whether trying the same request again may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Overloaded { .. }
                | LlmError::Server { .. }
                | LlmError::Network { .. }
                | LlmError::Stalled { .. }
        )
    }

    /// What the user should do about it, in one sentence.
    pub fn hint(&self) -> &'static str {
        match self {
            LlmError::Auth { .. } => {
                "check the API key or token (ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, OPENAI_API_KEY), or log in to Claude Code again"
            }
            LlmError::Forbidden { .. } => {
                "the key lacks access to this model or feature; use another model or key"
            }
            LlmError::Billing { .. } => "add credit or fix the billing settings of the account",
            LlmError::RateLimited { .. } => {
                "wait and retry, lower the number of parallel reviewers, or raise the account's rate limit"
            }
            LlmError::Overloaded { .. } => "the service is busy; retry later or use another model",
            LlmError::ContextTooLong { .. } | LlmError::TooLarge { .. } => {
                "review less at once: a smaller diff, fewer files or less context"
            }
            LlmError::BadRequest { .. } => {
                "the request was rejected; check the model name and options (run with -v for details)"
            }
            LlmError::NotFound { .. } => "check the model name and the base URL",
            LlmError::Server { .. } => "the service failed; retry later",
            LlmError::Network { .. } => {
                "check the network and the base URL (ANTHROPIC_BASE_URL, OPENAI_BASE_URL)"
            }
            LlmError::Timeout { .. } => "raise --timeout or review less at once",
            LlmError::Stalled { .. } => "the connection went quiet; retry, or check a proxy",
            LlmError::Cancelled => "the review was cancelled",
            LlmError::Parse { .. } => {
                "the model's answer was malformed; retry, or try a stronger model"
            }
            LlmError::ResponseTooLarge { .. } => {
                "the server sent far more than any answer needs; check the base URL or the model server"
            }
            LlmError::Agent { .. } => {
                "check that `claude` runs on its own (claude -p hello) and is logged in"
            }
            LlmError::Replay { .. } => {
                "record the cassette again (run once against a real backend with recording on)"
            }
            LlmError::Config { .. } => "fix the backend settings (see `crit config`)",
            LlmError::NoBackend => "configure a backend as listed above, then run `crit doctor`",
        }
    }

    /// Classifies an HTTP error answer. `body` may be Anthropic's, OpenAI's, vLLM's or
    /// llama.cpp's shape; the status decides first.
    pub fn from_http(status: u16, retry_after: Option<Duration>, body: &str) -> LlmError {
        let info = ErrorInfo::parse(body);
        let message = info.message.clone();
        let kind = info.kind.as_deref().unwrap_or("");
        if is_context_error(kind, &info) {
            return LlmError::ContextTooLong { message };
        }
        match status {
            401 => LlmError::Auth { status, message },
            402 => LlmError::Billing { message },
            403 => LlmError::Forbidden { message },
            404 => LlmError::NotFound { message },
            413 => LlmError::TooLarge { message },
            429 if kind == "insufficient_quota" || info.code_is("insufficient_quota") => {
                LlmError::Billing { message }
            }
            429 => LlmError::RateLimited {
                message,
                retry_after,
            },
            529 => LlmError::Overloaded { status, message },
            500..=599 if kind == "overloaded_error" => LlmError::Overloaded { status, message },
            500..=599 => LlmError::Server { status, message },
            408 => LlmError::Timeout { message },
            _ => LlmError::BadRequest { status, message },
        }
    }

    /// Classifies an error object that arrived inside a 200 stream.
    pub fn from_stream_error(value: &serde_json::Value) -> LlmError {
        let info = ErrorInfo::from_value(value);
        let kind = info.kind.as_deref().unwrap_or("");
        let message = info.message.clone();
        if is_context_error(kind, &info) {
            return LlmError::ContextTooLong { message };
        }
        let status = info.int_code.unwrap_or(0);
        match kind {
            "overloaded_error" => LlmError::Overloaded {
                status: 529,
                message,
            },
            "rate_limit_error" | "requests" | "tokens" => LlmError::RateLimited {
                message,
                retry_after: None,
            },
            "authentication_error" => LlmError::Auth {
                status: 401,
                message,
            },
            "invalid_request_error" => LlmError::BadRequest {
                status: if status == 0 { 400 } else { status },
                message,
            },
            _ if status >= 400 => LlmError::from_http(status, None, &value.to_string()),
            _ => LlmError::Server {
                status: 500,
                message,
            },
        }
    }
}

fn is_context_error(kind: &str, info: &ErrorInfo) -> bool {
    let m = info.message.to_ascii_lowercase();
    kind == "context_length_exceeded"
        || info.code_is("context_length_exceeded")
        || m.contains("prompt is too long")
        || m.contains("context length")
        || m.contains("context window")
}

/// The useful fields of any of the error shapes we know.
#[derive(Debug, Default)]
struct ErrorInfo {
    kind: Option<String>,
    message: String,
    str_code: Option<String>,
    int_code: Option<u16>,
}

impl ErrorInfo {
    fn parse(body: &str) -> ErrorInfo {
        match serde_json::from_str::<serde_json::Value>(body) {
            Ok(v) => ErrorInfo::from_value(&v),
            Err(_) => ErrorInfo {
                message: truncate(body.trim(), 300),
                ..ErrorInfo::default()
            },
        }
    }

    fn from_value(v: &serde_json::Value) -> ErrorInfo {
        // Nested `{"error":{…}}` (Anthropic, OpenAI, llama.cpp) or flat (old vLLM).
        let e = match v.get("error") {
            Some(inner) if inner.is_object() => inner,
            Some(serde_json::Value::String(s)) => {
                return ErrorInfo {
                    message: truncate(s, 300),
                    ..ErrorInfo::default()
                };
            }
            _ => v,
        };
        let s = |k: &str| e.get(k).and_then(|x| x.as_str()).map(str::to_string);
        let code = e.get("code");
        let detail_code = e
            .get("details")
            .and_then(|d| d.get("error_code"))
            .and_then(|x| x.as_str())
            .map(str::to_string);
        ErrorInfo {
            kind: s("type"),
            message: truncate(&s("message").unwrap_or_else(|| v.to_string()), 300),
            str_code: code
                .and_then(|c| c.as_str())
                .map(str::to_string)
                .or(detail_code),
            int_code: code
                .and_then(|c| c.as_u64())
                .and_then(|c| u16::try_from(c).ok()),
        }
    }

    fn code_is(&self, s: &str) -> bool {
        self.str_code.as_deref() == Some(s)
    }
}

fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Replaces every occurrence of each secret in `text` with `***`.
pub fn redact(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_string();
    for s in secrets {
        if s.len() >= 4 {
            out = out.replace(s, "***");
        }
    }
    out
}

impl LlmError {
    /// The same error with every secret removed from its message.
    pub fn redacted(self, secrets: &[&str]) -> LlmError {
        let r = |m: String| redact(&m, secrets);
        match self {
            LlmError::Auth { status, message } => LlmError::Auth {
                status,
                message: r(message),
            },
            LlmError::Forbidden { message } => LlmError::Forbidden {
                message: r(message),
            },
            LlmError::Billing { message } => LlmError::Billing {
                message: r(message),
            },
            LlmError::RateLimited {
                message,
                retry_after,
            } => LlmError::RateLimited {
                message: r(message),
                retry_after,
            },
            LlmError::Overloaded { status, message } => LlmError::Overloaded {
                status,
                message: r(message),
            },
            LlmError::ContextTooLong { message } => LlmError::ContextTooLong {
                message: r(message),
            },
            LlmError::TooLarge { message } => LlmError::TooLarge {
                message: r(message),
            },
            LlmError::BadRequest { status, message } => LlmError::BadRequest {
                status,
                message: r(message),
            },
            LlmError::NotFound { message } => LlmError::NotFound {
                message: r(message),
            },
            LlmError::Server { status, message } => LlmError::Server {
                status,
                message: r(message),
            },
            LlmError::Network { message } => LlmError::Network {
                message: r(message),
            },
            LlmError::Timeout { message } => LlmError::Timeout {
                message: r(message),
            },
            LlmError::Parse { message } => LlmError::Parse {
                message: r(message),
            },
            LlmError::Agent { message } => LlmError::Agent {
                message: r(message),
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anthropic_shape() {
        let b = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;
        assert!(matches!(
            LlmError::from_http(529, None, b),
            LlmError::Overloaded { status: 529, .. }
        ));
        let b = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}"#;
        assert!(matches!(
            LlmError::from_http(400, None, b),
            LlmError::ContextTooLong { .. }
        ));
    }

    #[test]
    fn openai_vllm_llamacpp_shapes() {
        let nested_str = r#"{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#;
        assert!(matches!(
            LlmError::from_http(401, None, nested_str),
            LlmError::Auth { status: 401, .. }
        ));
        let flat_int = r#"{"object":"error","message":"bad tool choice","type":"BadRequestError","param":null,"code":400}"#;
        match LlmError::from_http(400, None, flat_int) {
            LlmError::BadRequest { status, message } => {
                assert_eq!(status, 400);
                assert_eq!(message, "bad tool choice");
            }
            e => panic!("{e:?}"),
        }
        let llama = r#"{"error":{"code":400,"message":"Either \"json_schema\" or \"grammar\" can be specified, but not both","type":"invalid_request_error"}}"#;
        match LlmError::from_http(400, None, llama) {
            LlmError::BadRequest { message, .. } => assert!(message.starts_with("Either")),
            e => panic!("{e:?}"),
        }
        let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        assert!(matches!(
            LlmError::from_http(429, None, quota),
            LlmError::Billing { .. }
        ));
        let ctx = r#"{"error":{"message":"too many tokens","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        assert!(matches!(
            LlmError::from_http(400, None, ctx),
            LlmError::ContextTooLong { .. }
        ));
        assert!(matches!(
            LlmError::from_http(502, None, "<html>bad gateway</html>"),
            LlmError::Server { status: 502, .. }
        ));
    }

    #[test]
    fn stream_error_shapes() {
        let v: serde_json::Value = serde_json::from_str(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        )
        .unwrap();
        assert!(LlmError::from_stream_error(&v).is_retryable());
        let v: serde_json::Value =
            serde_json::from_str(r#"{"error":{"code":401,"message":"nope"}}"#).unwrap();
        assert!(matches!(
            LlmError::from_stream_error(&v),
            LlmError::Auth { .. }
        ));
    }

    #[test]
    fn retryable_and_hints() {
        assert!(
            !LlmError::Auth {
                status: 401,
                message: String::new()
            }
            .is_retryable()
        );
        assert!(!LlmError::NoBackend.is_retryable());
        assert!(
            LlmError::NoBackend
                .to_string()
                .contains("ANTHROPIC_API_KEY")
        );
        assert!(LlmError::NoBackend.to_string().contains("OPENAI_BASE_URL"));
        assert!(
            LlmError::NoBackend
                .to_string()
                .contains("--provider replay")
        );
        assert!(!LlmError::Cancelled.hint().is_empty());
    }

    #[test]
    fn redaction() {
        let e = LlmError::Auth {
            status: 401,
            message: "key sk-ant-secret123 is invalid".into(),
        }
        .redacted(&["sk-ant-secret123"]);
        assert!(!format!("{e} {e:?}").contains("secret123"));
    }
}
