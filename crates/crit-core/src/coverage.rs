//! What a code review looked at, counted in the added lines its reviewers
//! received: which files and hunks they were shown (or took from an earlier
//! review of the same text), by whom, and what was left out and why (binary
//! content, code a redaction hid, parts over a limit, a spent budget, a
//! reviewer that did not finish). A review that saw less than all of its
//! change says so here, and its verdict is at best `INCOMPLETE` unless the
//! user accepted a partial review.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The coverage of one code review.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Coverage {
    /// Every added line of the change reached every reviewer that was to see
    /// it (or came from the cache of an earlier review of the same text).
    pub complete: bool,
    /// The user accepted a partial review (`--allow-partial`): a gap does not
    /// make the verdict `INCOMPLETE`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial_allowed: bool,
    /// Parts the change was split into to fit the model's context (1: whole).
    #[serde(default)]
    pub chunks: u32,
    /// Hunks whose findings came from an earlier review of the same text.
    #[serde(default)]
    pub hunks_cached: u32,
    /// Hunks sent to reviewers in this run.
    #[serde(default)]
    pub hunks_reviewed: u32,
    /// Lines the change adds.
    #[serde(default)]
    pub lines_added: u32,
    /// Added lines reviewers received in this run, whole.
    #[serde(default)]
    pub lines_reviewed: u32,
    /// Added lines whose findings came from an earlier review of the same text.
    #[serde(default)]
    pub lines_cached: u32,
    /// What reviewing the cached hunks cost when they were reviewed (each
    /// hunk's share of its part's cost, with prompt-cache pricing): what
    /// this review did not spend again. `null` when unknown (a model with
    /// no price, or entries an older crit wrote).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_cost_usd: Option<f64>,
    /// Every file of the change, in the change's order.
    #[serde(default)]
    pub files: Vec<FileCoverage>,
    /// What reviewers were not shown, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
}

/// One file of the change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileCoverage {
    /// Root-relative, `/`-separated.
    pub path: String,
    /// Hunks of this file in the change.
    pub hunks: u32,
    /// Hunks sent to reviewers in this run.
    pub hunks_shown: u32,
    /// Hunks taken from the cache of an earlier review.
    #[serde(default)]
    pub hunks_cached: u32,
    /// Lines the change adds to this file.
    #[serde(default)]
    pub lines_added: u32,
    /// Of those, the lines reviewers received (or took from the cache) whole.
    #[serde(default)]
    pub lines_reviewed: u32,
    /// Reviewers that finished every part holding this file.
    #[serde(default)]
    pub reviewers: Vec<String>,
    /// The parts (1-based) that held it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chunks: Vec<u32>,
}

/// Something the reviewers were not shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LeftOut {
    /// Root-relative path of the file.
    pub path: String,
    /// Hunks left out; 0 when the file had none to show (binary, unknown).
    pub hunks: u32,
    /// Added lines that did not reach a reviewer whole.
    #[serde(default)]
    pub lines: u32,
    pub cause: LeftOutCause,
    /// For people: which reviewer, which limit.
    pub reason: String,
}

/// Why something was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LeftOutCause {
    /// The review's USD or token budget was spent before its part ran.
    Budget,
    /// Over `--max-chunks`.
    MaxChunks,
    /// The part was sent, but a reviewer did not finish it.
    ReviewerFailed,
    /// Too large to read (an untracked file over its size limit, git output
    /// over its cap).
    TooLarge,
    /// Binary content added or changed: no reviewer read it.
    Binary,
    /// A redaction hid more than a credential could hold (code around a
    /// secret, a private key without its END line): what it hid was not read.
    Redacted,
    /// Part of the change reached no reviewer for another reason (no text
    /// was sent at all).
    NotSent,
    /// The user's own `ignore` globs (trusted settings or `--ignore`) left
    /// the file out: their explicit decision, listed, and not a gap.
    Ignored,
}

impl LeftOutCause {
    /// Whether this leaves a hole in the review: every cause does, binary
    /// content included (what no reviewer read is never passed in silence),
    /// except a file the user chose to ignore, which is listed instead.
    pub fn is_gap(self) -> bool {
        self != LeftOutCause::Ignored
    }

    pub fn as_str(self) -> &'static str {
        match self {
            LeftOutCause::Budget => "budget",
            LeftOutCause::MaxChunks => "max_chunks",
            LeftOutCause::ReviewerFailed => "reviewer_failed",
            LeftOutCause::TooLarge => "too_large",
            LeftOutCause::Binary => "binary",
            LeftOutCause::Redacted => "redacted",
            LeftOutCause::NotSent => "not_sent",
            LeftOutCause::Ignored => "ignored",
        }
    }
}

impl Coverage {
    /// Recomputes `complete`: no gap, and every added line received (or
    /// taken from the cache).
    pub fn settle(&mut self) {
        let received = self.lines_reviewed.saturating_add(self.lines_cached);
        self.complete =
            !self.left_out.iter().any(|l| l.cause.is_gap()) && received >= self.lines_added;
    }

    /// Files with a gap, each once, in order.
    pub fn gap_files(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for l in self.left_out.iter().filter(|l| l.cause.is_gap()) {
            if !out.contains(&l.path.as_str()) {
                out.push(&l.path);
            }
        }
        out
    }

    /// One line for people: `12 hunks from cache, 3 reviewed in 2 parts (40
    /// of 41 added lines); 1 file left out (budget)`.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if self.hunks_cached > 0 {
            parts.push(format!(
                "{} from cache, {} reviewed",
                plural(self.hunks_cached, "hunk"),
                self.hunks_reviewed
            ));
        } else {
            parts.push(format!("{} reviewed", plural(self.hunks_reviewed, "hunk")));
        }
        if self.chunks > 1 {
            parts.push(format!("in {} parts", self.chunks));
        }
        let received = self.lines_reviewed.saturating_add(self.lines_cached);
        if received < self.lines_added {
            parts.push(format!("({received} of {} added lines)", self.lines_added));
        }
        let mut line = parts.join(" ");
        let gaps = self.gap_files();
        if !gaps.is_empty() {
            let mut causes: Vec<&str> = Vec::new();
            for l in self.left_out.iter().filter(|l| l.cause.is_gap()) {
                if !causes.contains(&l.cause.as_str()) {
                    causes.push(l.cause.as_str());
                }
            }
            line.push_str(&format!(
                "; {} left out ({})",
                plural(gaps.len() as u32, "file"),
                causes.join(", ")
            ));
            if self.partial_allowed {
                line.push_str(", partial review accepted");
            }
        }
        let ignored = self
            .left_out
            .iter()
            .filter(|l| l.cause == LeftOutCause::Ignored)
            .count();
        if ignored > 0 {
            line.push_str(&format!("; {} ignored", plural(ignored as u32, "file")));
        }
        line
    }
}

fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gap(path: &str, cause: LeftOutCause) -> LeftOut {
        LeftOut {
            path: path.into(),
            hunks: 1,
            lines: 2,
            cause,
            reason: "r".into(),
        }
    }

    #[test]
    fn every_cause_is_a_gap_and_lines_count() {
        let mut c = Coverage {
            hunks_reviewed: 3,
            hunks_cached: 12,
            lines_added: 40,
            lines_reviewed: 10,
            lines_cached: 30,
            ..Coverage::default()
        };
        c.settle();
        assert!(c.complete);
        assert_eq!(c.describe(), "12 hunks from cache, 3 reviewed");
        c.left_out.push(gap("logo.png", LeftOutCause::Binary));
        c.settle();
        assert!(!c.complete, "binary content is a gap");
        c.left_out.clear();
        c.lines_reviewed = 9;
        c.settle();
        assert!(!c.complete, "an added line no reviewer received");
        c.left_out.push(gap("a.rs", LeftOutCause::Budget));
        c.left_out.push(gap("a.rs", LeftOutCause::Redacted));
        c.chunks = 4;
        c.settle();
        assert!(!c.complete);
        assert_eq!(
            c.describe(),
            "12 hunks from cache, 3 reviewed in 4 parts (39 of 40 added lines); 1 file left out (budget, redacted)"
        );
    }

    #[test]
    fn an_ignored_file_is_listed_but_no_gap() {
        let mut c = Coverage {
            hunks_reviewed: 1,
            lines_added: 2,
            lines_reviewed: 2,
            ..Coverage::default()
        };
        c.left_out.push(gap("Cargo.lock", LeftOutCause::Ignored));
        c.settle();
        assert!(c.complete, "the user's own ignore globs leave no gap");
        assert!(c.gap_files().is_empty());
        assert_eq!(c.describe(), "1 hunk reviewed; 1 file ignored");
        c.left_out.push(gap("a.rs", LeftOutCause::Budget));
        c.settle();
        assert!(!c.complete);
    }
}
