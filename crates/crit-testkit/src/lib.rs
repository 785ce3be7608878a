//! Test support for crit (dev-dependency only).
//!
//! - [`FakeServer`]: a scripted fake LLM server on `127.0.0.1` speaking the
//!   real Anthropic Messages (JSON and SSE), OpenAI chat completions
//!   (JSON and `data:` chunks), OpenAI Responses (JSON and SSE events; Codex
//!   CLI's) and Google Gemini generateContent (JSON and SSE; Gemini CLI's)
//!   wire formats, byte-faithful to
//!   what the services send, with delivery faults (delays, stalls,
//!   split chunks, dropped connections), hostile answers (tool input that is
//!   not JSON: [`Reply::tool_use_raw`]; answers and error bodies that never
//!   end: [`Reply::endless`], [`Reply::endless_error`]) and a record of every
//!   request.
//! - [`FakeClaude`]: a scripted fake `claude` executable (a `sh` script
//!   written at run time) that records how it was called.
//! - [`GithubServer`] and [`GitlabServer`]: stand-ins for the GitHub REST
//!   (and review-thread GraphQL) and GitLab REST APIs around pull and merge
//!   requests, keeping state, recording every request (credential left out,
//!   whether it was the expected one kept) and the raw bytes of every
//!   connection, with scripted faults ([`Fault`]): see [`forge`].
//! - [`prompt_review`]: critiques in the prompt-review plugin's schema.
//! - `crit-fake-server`: the server as a program, scripted with JSON
//!   ([`script`]) over stdin, for test suites in other languages (the
//!   Python package's pytest suite).
//!
//! ```no_run
//! # async fn demo() {
//! use crit_testkit::{FakeServer, Reply, Step};
//! use serde_json::json;
//! let server = FakeServer::start().await;
//! server.push(Step::reply(Reply::text("Hello")));
//! server.push(Step::when_contains("security-reviewer")
//!     .reply(Reply::tool_use("Read", json!({"file_path": "a.rs"}))));
//! // point the client at server.url() + "/v1/messages" or "/v1/chat/completions"
//! let sent = server.requests();
//! # }
//! ```
//!
//! Routing: `POST …/messages` is Anthropic, `POST …/chat/completions` is
//! OpenAI, `POST …/responses` is OpenAI Responses, `POST
//! …/models/MODEL:generateContent` and `…:streamGenerateContent` are Gemini
//! (query strings ignored, so Claude Code's `?beta=true` works),
//! `POST …/messages/count_tokens` answers an estimate without using a step,
//! `HEAD` anything answers 200, anything else 404. Authentication headers
//! (`x-api-key` or `authorization: Bearer`) are recorded, never checked.
//!
//! Script: each model request takes the first unconsumed step that matches
//! it (plain steps match any request; [`Step::when_contains`] steps only a
//! request whose body contains the needle). With no step left the server
//! answers 500 with `x-should-retry: false` and a message saying so.
//!
//! The server runs on its own thread and tokio runtime, so a test may block
//! (e.g. run a CLI with `std::process::Command`) while it serves.

mod anthropic;
mod claude;
mod delivery;
pub mod forge;
mod gemini;
mod listen;
mod openai;
mod prompt_cache;
pub mod prompt_review;
mod render;
mod reply;
mod responses;
pub mod script;
mod server;

pub use claude::{FakeClaude, Invocation, RECORDED_ENV, pid_alive};
pub use forge::github::{GithubConfig, GithubServer, PullSpec};
pub use forge::gitlab::{GitlabConfig, GitlabServer, MergeRequestSpec};
pub use forge::{Access, ChangedFile, Fault, ForgeRequest, TokenSeen};
pub use prompt_cache::{replay as replay_prompt_cache, system_prefix_tokens};
pub use render::WireFormat;
pub use reply::{Reply, Step, StepWhen, Usage, anthropic_tool_id, openai_tool_id};
pub use server::{FakeServer, RecordedRequest};
