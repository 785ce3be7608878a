//! The findings a plan verdict rests on, each with why and the edit made or
//! proposed, in one shape for every output (text, Markdown, JSON): a REJECTED
//! shows what blocked it and a panel's non-blocking notes are read, not only
//! counted.

use std::path::Path;

use crit_core::{FailOn, Finding, Severity};
use serde::Serialize;

use crate::change::Change;
use crate::machine::{Outcome, Run};
use crate::panel::PanelVote;
use crate::state::HistoryEntry;

/// One finding as the outputs show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindingView {
    /// `checks` for the rule engine, else the panel member's name.
    pub reviewer: String,
    pub severity: Severity,
    /// The title without the `[P1]` tag the severity already says.
    pub title: String,
    /// Why it matters, as its author wrote it.
    pub body: String,
    /// Where it points: the path, when not the plan itself, and the line.
    pub location: Option<String>,
    /// It blocks approval (a non-blocking one is a note).
    pub blocking: bool,
    /// The edits behind it: the checks' applied fixes, or the change a
    /// member proposed (never applied: the panel edits nothing).
    pub edits: Vec<EditView>,
    /// A member's proposed edit crit did not offer, and why (its lines are
    /// not in the plan, it changes nothing, it is a rewrite, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion_refused: Option<String>,
}

/// What changed in the plan, or would.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EditView {
    /// Made to plan.md (a check's fix), or only proposed (a member's suggestion).
    pub applied: bool,
    pub line: Option<u32>,
    /// The applied fix as state.yaml records it (`eval → JSON.parse`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// The plan's text the proposal replaces, when it is a span of the plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// The proposed text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl EditView {
    /// A check's fix, with the text it changed when this run made it.
    pub fn applied(h: &HistoryEntry, change: Option<&Change>) -> Self {
        EditView {
            applied: true,
            line: Some(h.line),
            fix: Some(h.fix.clone()),
            before: change.map(|c| c.before.clone()),
            after: change.map(|c| c.after.clone()),
        }
    }
}

/// The edits in `state.history`, each with what it changed when `run` made it.
pub fn applied_edits(run: &Run) -> impl Iterator<Item = (usize, EditView)> + '_ {
    run.state.history.iter().enumerate().map(|(i, h)| {
        let change = run.changes.iter().find(|c| c.history_index == i);
        (i, EditView::applied(h, change))
    })
}

/// The findings of `run` and of the panel's `vote`, blocking ones first, each
/// group in severity order. `plan` names the reviewed file, so a member's
/// proposal for its lines can quote what it replaces.
pub fn views(run: &Run, vote: Option<&PanelVote>, plan: &Path) -> Vec<FindingView> {
    let mut out = Vec::new();
    if let Outcome::Rejected {
        check,
        pattern,
        reason,
        line,
    } = &run.outcome
    {
        out.push(FindingView {
            reviewer: "checks".into(),
            severity: Severity::P1,
            title: format!("Pattern '{pattern}' reappeared after fix ({check})"),
            body: reason.clone(),
            location: Some(format!("L{line}")),
            blocking: true,
            edits: applied_edits(run)
                .filter(|(i, _)| &run.state.history[*i].check == check)
                .map(|(_, e)| e)
                .collect(),
            suggestion_refused: None,
        });
    }
    if let Some(PanelVote::Ran { result, .. }) = vote {
        let plan_name = plan.file_name().map(|n| n.to_string_lossy());
        for f in result.sorted_findings() {
            out.push(member_view(f, &run.plan, plan_name.as_deref()));
        }
    }
    // Stable: severity order kept within each group.
    out.sort_by_key(|v| !v.blocking);
    out
}

fn member_view(f: &Finding, plan: &str, plan_name: Option<&str>) -> FindingView {
    let start = f.location.as_ref().and_then(|l| l.start_line());
    let end = f.location.as_ref().and_then(|l| l.end_line()).or(start);
    // A member may cite another project file: only the plan's own lines are quoted.
    let in_plan = f.path().is_none_or(|p| {
        let name = Path::new(p).file_name().map(|n| n.to_string_lossy());
        p.is_empty() || name.as_deref() == plan_name
    });
    let location = match (in_plan, start, f.path()) {
        (true, Some(l), _) => Some(format!("L{l}")),
        (false, Some(l), Some(p)) => Some(format!("{p}:{l}")),
        (_, None, Some(p)) if !p.is_empty() => Some(p.to_string()),
        _ => None,
    };
    let edits = f
        .suggestion
        .as_ref()
        .map(|after| EditView {
            applied: false,
            line: start,
            fix: None,
            before: match (in_plan, start, end) {
                (true, Some(s), Some(e)) => plan_lines(plan, s, e),
                _ => None,
            },
            after: Some(after.clone()),
        })
        .into_iter()
        .collect();
    FindingView {
        reviewer: f.reviewer.clone(),
        severity: f.severity,
        title: f.display_title().to_string(),
        body: f.body.clone(),
        location,
        blocking: FailOn::default().blocks(f),
        edits,
        suggestion_refused: f.suggestion_refused.clone(),
    }
}

/// Lines `start..=end` (1-based) of `text`, when they exist.
fn plan_lines(text: &str, start: u32, end: u32) -> Option<String> {
    let from = usize::try_from(start).ok()?.checked_sub(1)?;
    let to = usize::try_from(end.max(start)).ok()?;
    let lines: Vec<&str> = text.lines().skip(from).take(to - from).collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_lines_are_one_based_and_bounded() {
        let plan = "a\nb\nc\n";
        assert_eq!(plan_lines(plan, 2, 3).as_deref(), Some("b\nc"));
        assert_eq!(plan_lines(plan, 3, 1).as_deref(), Some("c"));
        assert_eq!(plan_lines(plan, 0, 1), None);
        assert_eq!(plan_lines(plan, 9, 9), None);
    }

    #[test]
    fn a_members_suggestion_quotes_the_plan_lines_it_replaces() {
        let f = Finding::new("[P1] Wrong order", Severity::P1, "Ada")
            .with_body("Step 2 needs step 3.")
            .with_location(crit_core::Location::lines("/abs/dir/plan.md", 2, 2))
            .with_suggestion("2. Do the other thing first.");
        let v = member_view(&f, "one\ntwo\nthree\n", Some("plan.md"));
        assert_eq!(v.title, "Wrong order");
        assert!(v.blocking);
        assert_eq!(v.location.as_deref(), Some("L2"));
        assert_eq!(v.edits[0].before.as_deref(), Some("two"));
        assert_eq!(
            v.edits[0].after.as_deref(),
            Some("2. Do the other thing first.")
        );
        assert!(!v.edits[0].applied);
        // Another file's lines are not the plan's: nothing is quoted from it.
        let f = Finding::new("Note", Severity::P3, "Ada")
            .with_location(crit_core::Location::lines("src/cache.rs", 2, 2))
            .with_suggestion("x");
        let v = member_view(&f, "one\ntwo\n", Some("plan.md"));
        assert!(!v.blocking);
        assert_eq!(v.location.as_deref(), Some("src/cache.rs:2"));
        assert_eq!(v.edits[0].before, None);
    }
}
