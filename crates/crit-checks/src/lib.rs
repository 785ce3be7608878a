//! crit's deterministic rule engine (expert-review's rules): checks from
//! `checks.yaml` files and anti-pattern tables, matched against a plan in one
//! pass, fixed by replace / remove-sentence / remove-paragraph, driven by the
//! SETUP → CHECKING → FIXING / ASKING → APPROVED / REJECTED / INCOMPLETE / ERROR
//! state machine. No LLM, no network.
//!
//! [`review`] runs a whole session (`plan.md`, `context.yaml`, `state.yaml`)
//! to a [`Report`]; the pieces are usable alone:
//!
//! ```
//! use std::path::PathBuf;
//! use crit_checks::{Check, CheckSet, MatchRule, SourceKind};
//!
//! let check = Check {
//!     id: "no_eval".into(),
//!     pattern: "eval".into(),
//!     match_rule: MatchRule::Prescriptive,
//!     fix: None,
//!     reason: "Security risk".into(),
//!     reject_if_persists: false,
//!     source: SourceKind::SessionChecks,
//!     origin: PathBuf::from("checks.yaml"),
//! };
//! let set = CheckSet::compile(vec![check])?;
//! assert_eq!(set.scan("We use eval for parsing").matches(0), vec![7..11]);
//! assert!(set.scan("We don't use eval").matches(0).is_empty());
//! # Ok::<(), crit_checks::CheckError>(())
//! ```

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

pub mod approval;
pub mod ask;
pub mod change;
pub mod check;
pub mod error;
pub mod findings_view;
pub mod fix;
pub mod machine;
pub mod matcher;
mod origin;
pub mod panel;
pub mod panel_rules;
mod pattern;
pub mod report;
pub mod review;
pub mod session;
pub mod sources;
pub mod state;
pub mod state_file;
pub mod table;
pub mod text;
mod voice;
mod yaml;

pub use approval::Freshness;
pub use ask::{AnswerBook, AnswerSpecError, PromptAsker};
pub use check::{Check, FixAction, MatchRule, SourceKind};
pub use crit_os::seal::SealKey;
pub use error::CheckError;
pub use machine::{Answer, Asker, Limits, Outcome, Question};
pub use matcher::{CheckSet, Scan};
pub use panel::{
    MemberSummary, NoPanel, Panel, PanelRequest, PanelVote, VoiceError, VoiceKind, VoiceRequest,
};
pub use review::{Options, Report, review, review_with_panel, verify};
pub use session::SessionPaths;
pub use state::{Context, HistoryEntry, Persona, Reviewers, State};
