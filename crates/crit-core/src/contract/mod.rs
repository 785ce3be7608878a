//! Output contracts: what a reviewer must answer, and the parsers that turn its
//! answer into findings.
//!
//! - [`findings_json`]: the JSON contract of mala's reviewer (verdict + P0–P3 findings),
//!   accepting the close cousins models really emit (Codex, Cerberus).
//! - [`markdown`]: the review templates' markdown severity format.
//! - [`status_line`]: Reldo's free text with a `STATUS: PASS|FAIL` line.
//!
//! Both feed [`into_result`], which never loses the raw answer and fails closed.

pub mod extract;
pub mod findings_json;
pub mod markdown;
pub mod status_line;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Finding, ReviewResult, Verdict};

/// Which contract a reviewer answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Contract {
    /// The findings JSON contract (the default).
    #[default]
    FindingsJson,
    /// The review templates' markdown severity format.
    Markdown,
    /// Reldo's free text with a `STATUS: PASS` / `STATUS: FAIL` line.
    StatusLine,
}

/// What a parser understood of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedAnswer {
    pub verdict: Verdict,
    pub summary: String,
    pub findings: Vec<Finding>,
    /// What in the answer was not understood and how it was read anyway.
    pub notes: Vec<String>,
}

/// Why an answer could not be understood. The `Display` strings are mala's
/// `parse_error` values and are part of the contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContractError {
    #[error("missing field: {0}")]
    MissingField(String),
    #[error("invalid verdict: {0}")]
    InvalidVerdict(String),
    #[error("invalid json: {0}")]
    InvalidJson(String),
    #[error("invalid field: {field}: {reason}")]
    InvalidField { field: String, reason: String },
    #[error("no verdict: {0}")]
    NoVerdict(String),
    /// A JSON answer that does not match the caller's output schema.
    #[error("schema mismatch: {0}")]
    SchemaMismatch(String),
}

/// Context a parser needs besides the text.
#[derive(Debug, Clone, Copy)]
pub struct ParseContext<'a> {
    /// Name put on findings that do not name their reviewer.
    pub reviewer: &'a str,
    /// The project root, stripped from absolute paths so findings stay relative.
    pub root: Option<&'a str>,
}

impl<'a> ParseContext<'a> {
    pub fn new(reviewer: &'a str) -> Self {
        ParseContext {
            reviewer,
            root: None,
        }
    }

    /// A path as the project sees it: relative to the root, `/`-separated.
    pub fn relative_path(&self, path: &str) -> String {
        let p = path.trim().replace('\\', "/");
        if let Some(root) = self.root {
            let root = root.trim_end_matches('/');
            if let Some(rest) = p.strip_prefix(root)
                && rest.starts_with('/')
            {
                return rest.trim_start_matches('/').to_string();
            }
        }
        p.trim_start_matches("./").to_string()
    }
}

/// Parse `text` in `contract`. Markdown answers that name no verdict come back
/// as `Ok` with `UNKNOWN`; use [`into_result`] to get a gate-ready result.
pub fn parse(
    contract: Contract,
    text: &str,
    cx: &ParseContext<'_>,
) -> Result<ParsedAnswer, ContractError> {
    match contract {
        Contract::FindingsJson => findings_json::parse(text, cx),
        Contract::Markdown => Ok(markdown::parse(text, cx)),
        Contract::StatusLine => Ok(status_line::parse(text)),
    }
}

/// The `parse_error` of an answer in `contract` that names no verdict.
pub fn no_verdict_error(contract: Contract, text: &str) -> String {
    match contract {
        Contract::StatusLine => status_line::problem(text)
            .unwrap_or(status_line::NO_STATUS)
            .to_string(),
        Contract::FindingsJson | Contract::Markdown => markdown::NO_VERDICT.to_string(),
    }
}

/// Parse `text` in `expected`, or in another well-formed contract: a reviewer
/// asked for the findings JSON that answers in the review templates' markdown
/// format (or the other way round) has still answered; so has an answer with
/// no status line that is plainly one of those two. When no contract
/// understands the answer, the error (or UNKNOWN) is `expected`'s, so its
/// words (`invalid verdict: MAYBE`) stay exact. No answer ever stands in for
/// a status line it contradicts: a status line, when there is one, decides.
pub fn parse_any(
    expected: Contract,
    text: &str,
    cx: &ParseContext<'_>,
) -> Result<ParsedAnswer, ContractError> {
    let first = parse(expected, text, cx);
    if matches!(&first, Ok(p) if p.verdict != Verdict::Unknown) {
        return first;
    }
    if expected == Contract::StatusLine
        && status_line::problem(text) != Some(status_line::NO_STATUS)
    {
        // Both PASS and FAIL: no other reading settles that.
        return first;
    }
    let others: &[Contract] = match expected {
        Contract::FindingsJson => &[Contract::Markdown],
        Contract::Markdown => &[Contract::FindingsJson],
        Contract::StatusLine => &[Contract::FindingsJson, Contract::Markdown],
    };
    others
        .iter()
        .find_map(|other| {
            // Only an answer plainly in the other format counts: prose that
            // happens to hold a `{` is not a JSON answer, nor a stray
            // `Verdict:` line a markdown one.
            let plainly = match other {
                Contract::FindingsJson => extract::candidates(text)
                    .iter()
                    .any(|c| c.contains("\"verdict\"") || c.contains("\"findings\"")),
                _ => markdown::has_summary(text),
            };
            match parse(*other, text, cx) {
                Ok(p) if plainly && p.verdict != Verdict::Unknown => Some(Ok(p)),
                _ => None,
            }
        })
        .or_else(|| {
            // No reading names a verdict, but the answer holds findings in the
            // markdown format: UNKNOWN (never a pass) with those findings
            // kept, rather than an error that loses them.
            match markdown::parse(text, cx) {
                p if !p.findings.is_empty() && first.is_err() => Some(Ok(p)),
                _ => None,
            }
        })
        .unwrap_or(first)
}

/// Parse an answer into a `ReviewResult` for `review`. The raw text is always
/// kept; an answer that cannot be understood gives `UNKNOWN`, `passed=false`,
/// `fatal_error=false` and the contract's `parse_error`.
pub fn into_result(
    review: &str,
    contract: Contract,
    text: &str,
    cx: &ParseContext<'_>,
) -> ReviewResult {
    match parse(contract, text, cx) {
        Ok(parsed) => {
            let mut r = ReviewResult::new(review, parsed.verdict);
            r.summary = parsed.summary;
            r.findings = parsed.findings;
            r.warnings = parsed.notes;
            r.raw_output = text.to_string();
            if parsed.verdict == Verdict::Unknown {
                r.parse_error = Some(no_verdict_error(contract, text));
            }
            r.apply_gate(crate::FailOn::default());
            r
        }
        Err(e) => ReviewResult::parse_failure(review, e.to_string(), text),
    }
}
