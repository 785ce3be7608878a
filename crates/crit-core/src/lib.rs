//! The domain model every crit review returns, and everything that turns a model's
//! answer into it (output-contract parsers) or turns it into something else
//! (renderers). No async, and no I/O of its own: [`files`] re-exports
//! crit-os's bounded reads and its writer for paths the user typed.

// A library never writes to the terminal: what it has to say goes to its caller.
#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(unreachable_pub)]

pub mod agent;
pub mod contract;
pub mod coverage;
pub mod files;
pub mod finding;
pub mod fingerprint;
pub mod gate;
pub mod merge;
pub mod printable;
pub mod redact;
pub mod render;
pub mod result;
pub mod scale;
pub mod schema;
pub mod screen;
pub mod severity;
pub mod shard;
pub mod sourced;
pub mod suggestion;
pub mod terminal;
pub mod timestamp;
pub mod transcript;
pub mod usage;
pub mod verdict;

pub use coverage::{Coverage, FileCoverage, LeftOut, LeftOutCause};
pub use finding::{Finding, Location, Verification, VerificationOutcome};
pub use gate::FailOn;
pub use printable::{Dest, Printable};
pub use result::{Dismissed, ReviewResult, ReviewerOutcome, ReviewerStatus};
pub use severity::Severity;
pub use sourced::{Source, Sourced};
pub use usage::Usage;
pub use verdict::Verdict;
