//! Output: expert-review's text blocks (first line the verdict word) and the same
//! result as crit's `ReviewResult` for `--format`.

mod text;

use std::collections::BTreeMap;

use crit_core::printable::{Dest, Printable};
use crit_core::scale::plan_verdict;
use crit_core::{
    Finding, Location, ReviewResult, ReviewerOutcome, ReviewerStatus, Severity, Verdict,
};
use serde_json::json;

use crate::findings_view::{self, FindingView};
use crate::machine::{Incomplete, Outcome, Run};
use crate::panel::{MemberSummary, PanelVote};
use crate::review::Report;

/// The review kind recorded in `ReviewResult::review`.
pub const REVIEW_KIND: &str = "plan";

impl Report {
    /// `APPROVED`, `REJECTED`, `INCOMPLETE` or `ERROR`.
    pub fn word(&self) -> &'static str {
        match &self.result {
            Err(_) => "ERROR",
            Ok(run) => match run.outcome {
                Outcome::Approved if self.panel_error().is_some() => "ERROR",
                Outcome::Approved if self.panel_rejected().is_some() => "REJECTED",
                Outcome::Approved => "APPROVED",
                Outcome::Rejected { .. } => "REJECTED",
                Outcome::Incomplete(_) => "INCOMPLETE",
            },
        }
    }

    pub fn verdict(&self) -> Verdict {
        plan_verdict(self.word()).unwrap_or(Verdict::Error)
    }

    /// The panel's merged result, when it ran and did not approve.
    pub fn panel_rejected(&self) -> Option<&ReviewResult> {
        match &self.panel {
            Some(PanelVote::Ran {
                approved: false,
                result,
                ..
            }) => Some(result),
            _ => None,
        }
    }

    /// The panel's merged result when it ran and could not answer (a member
    /// failed, timed out or gave no verdict, and none rejected): ERROR, as
    /// expert-review says of a review that could not be done.
    pub fn panel_error(&self) -> Option<&ReviewResult> {
        self.panel_rejected()
            .filter(|r| r.verdict.is_inconclusive() || r.fatal_error)
    }

    /// The question waiting for `--answer`, if the run stopped on one.
    pub fn pending_question(&self) -> Option<&crate::machine::Question> {
        match &self.result {
            Ok(Run {
                outcome: Outcome::Incomplete(Incomplete::AwaitingAnswer(q)),
                ..
            }) => Some(q),
            _ => None,
        }
    }

    /// Who reviewed: the panel that ran (AUTO-SELECT's pick, when it chose),
    /// else context.yaml's reviewers, said to be their checks only: no model
    /// spoke for them.
    /// Names come from context.yaml or a model: one escaped line.
    fn persona(&self) -> String {
        let line = |s: &str| Printable::line(s, Dest::Terminal).into_string();
        if let Some(PanelVote::Ran { panel, .. }) = &self.panel {
            return line(
                &panel
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
        let named = self
            .reviewers
            .as_ref()
            .map_or_else(|| "Reviewer".to_string(), |r| r.display());
        format!("{} (checks only; no model reviewed the plan)", line(&named))
    }

    /// Each member's verdict and words, when the panel ran.
    pub fn summaries(&self) -> &[MemberSummary] {
        match &self.panel {
            Some(PanelVote::Ran { summaries, .. }) => summaries,
            _ => &[],
        }
    }

    /// The findings the verdict rests on, each with why and its edit: a
    /// rejecting check's, and every panel member's, blocking ones first.
    pub fn finding_views(&self, run: &Run) -> Vec<FindingView> {
        let plan = self
            .paths
            .as_ref()
            .map_or_else(|| std::path::PathBuf::from("plan.md"), |p| p.plan.clone());
        findings_view::views(run, self.panel.as_ref(), &plan)
    }

    fn plan_display(&self) -> String {
        self.paths
            .as_ref()
            .map_or_else(|| self.target.clone(), |p| p.plan.display().to_string())
    }

    /// The same outcome as a `ReviewResult`: unresolved checks as P1 findings at
    /// their line in plan.md, edits as `info` findings, the panel as skipped reviewers.
    pub fn to_review_result(&self) -> ReviewResult {
        let plan_path = self.plan_display();
        let mut result = match &self.result {
            Err(e) => ReviewResult::fatal(REVIEW_KIND, e.to_string()),
            Ok(_) => ReviewResult::new(REVIEW_KIND, self.verdict()),
        };
        result.summary = self.render_text();
        result.duration_ms = self.duration_ms;
        result.inputs = BTreeMap::from([("plan".to_string(), plan_path.clone())]);
        if let Ok(run) = &self.result {
            result.findings = findings(run, &plan_path);
            result.reviewers = self.reviewer_outcomes(run);
            if let Some(PanelVote::Ran { result: panel, .. }) = &self.panel {
                result.findings.extend(panel.findings.iter().cloned());
                result.reviewers.extend(panel.reviewers.iter().cloned());
                result.usage += panel.usage;
                result.cost_usd = crit_core::usage::add_cost(result.cost_usd, panel.cost_usd);
                result.warnings.extend(panel.warnings.iter().cloned());
                result.raw_output = panel.raw_output.clone();
            }
            result.apply_gate(crit_core::FailOn::default());
        }
        result.structured_output = Some(self.structured());
        result
    }

    fn reviewer_outcomes(&self, run: &Run) -> Vec<ReviewerOutcome> {
        let problems = match run.outcome {
            Outcome::Approved => 0,
            Outcome::Rejected { .. } => 1,
            Outcome::Incomplete(_) => run.unresolved.len(),
        };
        let mut out = vec![ReviewerOutcome {
            name: "checks".into(),
            status: ReviewerStatus::Completed,
            verdict: self.verdict(),
            model: None,
            findings: problems,
            usage: Default::default(),
            cost_usd: Some(0.0),
            duration_ms: self.duration_ms,
            error: None,
        }];
        if let (Some(reviewers), Some(why)) = (&self.reviewers, &self.panel_not_run) {
            out.extend(reviewers.panel.iter().map(|p| ReviewerOutcome {
                name: p.name.clone(),
                status: ReviewerStatus::Skipped,
                verdict: Verdict::Unknown,
                model: None,
                findings: 0,
                usage: Default::default(),
                cost_usd: Some(0.0),
                duration_ms: 0,
                error: Some(format!("panel did not run: {why}")),
            }));
        }
        out
    }

    /// The plan checker's own fields, for programs (`--json`).
    fn structured(&self) -> serde_json::Value {
        let (state, unresolved, views) = match &self.result {
            Ok(run) => (
                Some(&run.state),
                run.unresolved.clone(),
                self.finding_views(run),
            ),
            Err(_) => (None, Vec::new(), Vec::new()),
        };
        json!({
            "word": self.word(),
            "reviewer": self.reviewers.as_ref().map(|r| r.display()),
            "checks": self.checks_total,
            "edits": state.map_or(0, |s| s.edits),
            "history": state.map(|s| &s.history),
            // The same edits, with the text each changed when this run made it.
            "edits_made": match &self.result {
                Ok(run) => findings_view::applied_edits(run).map(|(_, e)| e).collect(),
                Err(_) => Vec::new(),
            },
            "approved": state.map(|s| &s.approved),
            "unresolved": unresolved,
            // Blocking findings and non-blocking notes, each with why and the
            // edit made (a check's fix) or proposed (a member's suggestion).
            "findings": views,
            "pending_question": self.pending_question(),
            "rejection_words": self.rejection_words,
            "reason": self.reason(),
            "warnings": self.warnings,
            "panel": match (&self.panel_not_run, &self.panel) {
                (Some(why), _) => json!({"ran": false, "reason": why}),
                (None, Some(PanelVote::Ran { panel, approved, notes, summaries, .. })) => json!({"ran": true, "approved": approved, "members": panel.iter().map(|p| &p.name).collect::<Vec<_>>(), "summaries": summaries, "notes": notes}),
                (None, _) => match &self.panel_waiting {
                    Some(why) => json!({"ran": false, "waiting": why}),
                    None => json!({"ran": false}),
                },
            },
            "marker": self.paths.as_ref().map(|p| p.marker.display().to_string()),
        })
    }

    fn reason(&self) -> Option<String> {
        match &self.result {
            Err(e) => Some(e.to_string()),
            Ok(run) => match &run.outcome {
                Outcome::Approved if self.panel_rejected().is_some() => {
                    Some("the review panel did not approve".into())
                }
                Outcome::Approved => None,
                Outcome::Rejected { pattern, .. } => Some(format!(
                    "Pattern '{pattern}' reappeared after fix (reject_if_persists)"
                )),
                Outcome::Incomplete(Incomplete::EditLimit) => Some("edits >= 10".into()),
                Outcome::Incomplete(Incomplete::UserAborted) => Some("user aborted".into()),
                Outcome::Incomplete(Incomplete::AwaitingAnswer(_)) => {
                    Some("awaiting answer".into())
                }
            },
        }
    }
}

fn findings(run: &Run, plan_path: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let at = |line: u32| Location::lines(plan_path, line, line);
    if let Outcome::Rejected {
        check,
        pattern,
        reason,
        line,
    } = &run.outcome
    {
        out.push(
            Finding::new(
                format!("Pattern '{pattern}' reappeared after fix"),
                Severity::P1,
                "checks",
            )
            .with_body(reason.clone())
            .with_location(at(*line))
            .with_rule(check.clone()),
        );
    } else {
        for u in &run.unresolved {
            out.push(
                Finding::new(
                    format!("Pattern '{}' found", u.pattern),
                    Severity::P1,
                    "checks",
                )
                .with_body(u.reason.clone())
                .with_location(at(u.line))
                .with_rule(u.check_id.clone()),
            );
        }
    }
    for h in &run.state.history {
        out.push(
            Finding::new(format!("Fixed: {}", h.fix), Severity::Info, "checks")
                .with_location(at(h.line))
                .with_rule(h.check.clone()),
        );
    }
    out
}

/// Quote a target for a copy-pasteable command line when it needs it.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-:~+@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}
