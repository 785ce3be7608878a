//! crit's deterministic rule engine (seed 004, `expert-review`): checks from
//! `checks.yaml` files and anti-pattern tables, matched against a plan in one
//! pass, fixed by replace / remove-sentence / remove-paragraph, driven by the
//! SETUP → CHECKING → FIXING / ASKING → APPROVED / REJECTED / INCOMPLETE / ERROR
//! state machine. No LLM, no network.

pub mod ask;
pub mod check;
pub mod error;
pub mod fix;
pub mod machine;
pub mod matcher;
mod pattern;
pub mod report;
pub mod review;
pub mod session;
pub mod sources;
pub mod state;
pub mod table;
pub mod text;
mod yaml;

pub use ask::{AnswerBook, PromptAsker};
pub use check::{Check, FixAction, MatchRule, SourceKind};
pub use error::CheckError;
pub use machine::{Answer, Asker, Limits, Outcome, Question};
pub use matcher::{CheckSet, Scan};
pub use review::{Options, Report, review};
pub use session::{Freshness, SessionPaths};
pub use state::{Context, HistoryEntry, Persona, Reviewers, State};
