//! Output: expert-review's text blocks (first line the verdict word) and the same
//! result as crit's `ReviewResult` for `--format`.

use std::collections::BTreeMap;
use std::fmt::Write;

use crit_core::scale::plan_verdict;
use crit_core::{
    Finding, Location, ReviewResult, ReviewerOutcome, ReviewerStatus, Severity, Verdict,
};
use serde_json::json;

use crate::machine::{Incomplete, Outcome, Run};
use crate::panel::PanelVote;
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
    fn persona(&self) -> String {
        if let Some(PanelVote::Ran { panel, .. }) = &self.panel {
            return panel
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ");
        }
        let named = self
            .reviewers
            .as_ref()
            .map_or_else(|| "Reviewer".to_string(), |r| r.display());
        format!("{named} (checks only; no model reviewed the plan)")
    }

    fn panel_ran(&self) -> bool {
        matches!(self.panel, Some(PanelVote::Ran { .. }))
    }

    fn voice(&self) -> &str {
        self.reviewers
            .as_ref()
            .map_or("Reviewer", |r| r.check_voice())
    }

    fn plan_display(&self) -> String {
        self.paths
            .as_ref()
            .map_or_else(|| self.target.clone(), |p| p.plan.display().to_string())
    }

    /// Expert-review's output block, then warnings and the panel note.
    pub fn render_text(&self) -> String {
        let mut out = String::new();
        let persona = self.persona();
        match &self.result {
            Err(e) => {
                let _ = writeln!(out, "ERROR\nReason: {e}");
            }
            Ok(run) => match &run.outcome {
                Outcome::Approved if self.panel_error().is_some() => {
                    self.write_panel_error(&mut out);
                }
                Outcome::Approved if self.panel_rejected().is_some() => {
                    self.write_panel_rejection(&mut out, run);
                }
                Outcome::Approved => {
                    let _ = writeln!(
                        out,
                        "APPROVED\nReviewer: {persona}\nChecks: {} passed\nEdits: {}",
                        self.checks_total, run.state.edits
                    );
                    for h in &run.state.history {
                        let _ = writeln!(out, "  - L{}: {} ({})", h.line, h.fix, h.check);
                    }
                    let _ = writeln!(out, "{}", self.approved_summary(run));
                    self.write_panel_approval(&mut out);
                }
                Outcome::Rejected {
                    check,
                    pattern,
                    reason,
                    line,
                } => {
                    let _ = writeln!(
                        out,
                        "REJECTED\nReviewer: {persona}\nCheck: {check}\nReason: Pattern '{pattern}' reappeared after fix (reject_if_persists)\nEdits before rejection: {}",
                        run.state.edits
                    );
                    let why = match reason.trim() {
                        "" => String::new(),
                        r if r.ends_with(['.', '!', '?']) => format!(" {r}"),
                        r => format!(" {r}."),
                    };
                    let _ = writeln!(
                        out,
                        "The fix for '{pattern}' did not hold: it is still on line {line} of the plan.{why} A violation that survives its fix cannot be accepted."
                    );
                }
                Outcome::Incomplete(why) => {
                    let reason = match why {
                        Incomplete::EditLimit => "edits >= 10",
                        Incomplete::UserAborted => "user aborted",
                        Incomplete::AwaitingAnswer(_) => "awaiting answer",
                    };
                    let ids: Vec<&str> =
                        run.unresolved.iter().map(|u| u.check_id.as_str()).collect();
                    let _ = writeln!(
                        out,
                        "INCOMPLETE\nReviewer: {persona}\nReason: {reason}\nEdits: {}\nUnresolved: [{}]",
                        run.state.edits,
                        ids.join(", ")
                    );
                    if let Incomplete::AwaitingAnswer(q) = why {
                        let _ = writeln!(
                            out,
                            "Question ({}, line {}): {}",
                            q.check_id, q.line, q.text
                        );
                        let _ = writeln!(
                            out,
                            "Answer with: crit plan {} --answer {}=approve|abort|TEXT (TEXT replaces line {})",
                            shell_word(&self.target),
                            q.check_id,
                            q.line
                        );
                    }
                }
            },
        }
        for w in &self.warnings {
            let _ = writeln!(out, "Warning: {w}");
        }
        if self.result.is_ok()
            && let Some(why) = &self.panel_not_run
        {
            let _ = writeln!(
                out,
                "Panel: did not run ({why}); the deterministic checks alone decided."
            );
        }
        if self.result.is_ok()
            && let Some(why) = &self.panel_waiting
        {
            let _ = writeln!(out, "Panel: not asked yet ({why}).");
        }
        out
    }

    /// REJECTED by the panel: the checks passed, a member found blocking problems.
    fn write_panel_rejection(&self, out: &mut String, run: &Run) {
        let Some(result) = self.panel_rejected() else {
            return;
        };
        let _ = writeln!(
            out,
            "REJECTED\nReviewer: {}\nChecks: {} passed\nReason: the review panel did not approve\nEdits: {}",
            self.persona(),
            self.checks_total,
            run.state.edits
        );
        for f in result.sorted_findings() {
            let at = f
                .location
                .as_ref()
                .and_then(|l| l.start_line())
                .map_or(String::new(), |l| format!(" (L{l})"));
            let _ = writeln!(out, "  - [{}] {} {}{at}", f.reviewer, f.severity, f.title);
        }
        // A member that could not review is no approval: say which, and why.
        for r in result.reviewers.iter().filter(|r| r.error.is_some()) {
            let _ = writeln!(
                out,
                "  - [{}] did not review: {}",
                r.name,
                r.error.as_deref().unwrap_or_default()
            );
        }
        self.write_panel_notes(out);
    }

    /// ERROR from the panel: the checks passed, the panel could not answer.
    fn write_panel_error(&self, out: &mut String) {
        let Some(result) = self.panel_error() else {
            return;
        };
        let why: Vec<String> = result
            .reviewers
            .iter()
            .filter_map(|r| Some(format!("{} ({})", r.name, r.error.as_deref()?)))
            .collect();
        let why = match why.is_empty() {
            true => result
                .parse_error
                .clone()
                .unwrap_or_else(|| "no verdict".into()),
            false => why.join("; "),
        };
        let _ = writeln!(
            out,
            "ERROR\nReason: the review panel could not answer: {why}"
        );
        self.write_panel_notes(out);
    }

    /// The panel's line under APPROVED, when it ran.
    fn write_panel_approval(&self, out: &mut String) {
        if let Some(PanelVote::Ran { panel, result, .. }) = &self.panel {
            let names: Vec<&str> = panel.iter().map(|p| p.name.as_str()).collect();
            let notes = result.findings.len();
            let _ = writeln!(
                out,
                "Panel: approved by {}{}",
                names.join(", "),
                match notes {
                    0 => String::new(),
                    n => format!(" ({n} non-blocking note(s))"),
                }
            );
            self.write_panel_notes(out);
        }
    }

    fn write_panel_notes(&self, out: &mut String) {
        if let Some(PanelVote::Ran {
            notes, summaries, ..
        }) = &self.panel
        {
            // Each member's own conclusion, in its voice.
            for m in summaries.iter().filter(|m| !m.summary.trim().is_empty()) {
                let _ = writeln!(out, "[As {}]: {}", m.name, m.summary.trim());
            }
            for n in notes {
                let _ = writeln!(out, "Panel: {n}");
            }
        }
    }

    fn approved_summary(&self, run: &Run) -> String {
        let waived = if run.state.approved.is_empty() {
            String::new()
        } else {
            format!(
                " {} approved by the user: {}.",
                run.state.approved.len(),
                run.state.approved.join(", ")
            )
        };
        let verified = format!(
            "Verified the plan against {} checks; none of their patterns remain.{waived}",
            self.checks_total
        );
        // The persona speaks only when a model reviewed as it.
        match self.panel_ran() {
            true => format!("[As {}]: {verified}", self.voice()),
            false => verified,
        }
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
        let (state, unresolved) = match &self.result {
            Ok(run) => (Some(&run.state), run.unresolved.clone()),
            Err(_) => (None, Vec::new()),
        };
        json!({
            "word": self.word(),
            "reviewer": self.reviewers.as_ref().map(|r| r.display()),
            "checks": self.checks_total,
            "edits": state.map_or(0, |s| s.edits),
            "history": state.map(|s| &s.history),
            "approved": state.map(|s| &s.approved),
            "unresolved": unresolved,
            "pending_question": self.pending_question(),
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
