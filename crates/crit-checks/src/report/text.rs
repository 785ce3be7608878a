//! Expert-review's text block: the verdict word on the first line, its
//! `Reviewer:` / `Checks:` / `Edits:` lines, then what crit adds: the findings
//! with why and the edit, the panel's notes, and each member's own words.
//!
//! Everything a model wrote (summaries, titles, bodies, proposals, a name
//! AUTO-SELECT picked) is shown on one line after a prefix crit wrote, escaped
//! for a terminal: it cannot start a line of its own, so it cannot forge a
//! verdict word, a `Reviewer:` line or another member's `[As …]:`.

use std::fmt::Write;

use crit_core::printable::{Dest, Printable};

use super::{Report, shell_word};
use crate::findings_view::{EditView, FindingView, applied_edits};
use crate::machine::{Incomplete, Outcome, Question, Run};
use crate::panel::PanelVote;

/// Text a model, the plan or a config file wrote, on one escaped line.
fn said(s: &str) -> Printable {
    Printable::line(s, Dest::Terminal)
}

impl Report {
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
                    write_history(&mut out, run);
                    let _ = writeln!(out, "{}", self.approved_summary(run));
                    self.write_panel_approval(&mut out, run);
                }
                Outcome::Rejected {
                    pattern,
                    reason,
                    line,
                    check,
                } => {
                    let _ = writeln!(
                        out,
                        "REJECTED\nReviewer: {persona}\nCheck: {check}\nReason: Pattern '{pattern}' reappeared after fix (reject_if_persists)\nEdits before rejection: {}",
                        run.state.edits
                    );
                    write_history(&mut out, run);
                    self.write_findings(&mut out, run);
                    let why = match reason.trim() {
                        "" => String::new(),
                        r if r.ends_with(['.', '!', '?']) => format!(" {r}"),
                        r => format!(" {r}."),
                    };
                    match &self.rejection_words {
                        // The persona's own words, on one escaped line.
                        Some(words) => {
                            let _ = writeln!(
                                out,
                                "[As {}]: {}",
                                said(self.rejection_voice()),
                                said(words)
                            );
                        }
                        // The checks' own words: no model spoke for the persona.
                        None => {
                            let _ = writeln!(
                                out,
                                "{}",
                                said(&format!(
                                    "The fix for '{pattern}' did not hold: it is still on line {line} of the plan.{why} A violation that survives its fix cannot be accepted."
                                ))
                            );
                        }
                    }
                }
                Outcome::Incomplete(why) => self.write_incomplete(&mut out, run, why, &persona),
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

    /// Who the checks speak for (the persona that words a rejection).
    fn rejection_voice(&self) -> &str {
        self.reviewers
            .as_ref()
            .map_or("Reviewer", |r| r.check_voice())
    }

    fn write_incomplete(&self, out: &mut String, run: &Run, why: &Incomplete, persona: &str) {
        let reason = match why {
            Incomplete::EditLimit => "edits >= 10",
            Incomplete::UserAborted => "user aborted",
            Incomplete::AwaitingAnswer(q) => return self.write_question(out, run, q, persona),
        };
        let ids: Vec<&str> = run.unresolved.iter().map(|u| u.check_id.as_str()).collect();
        let _ = writeln!(
            out,
            "INCOMPLETE\nReviewer: {persona}\nReason: {reason}\nEdits: {}\nUnresolved: [{}]",
            run.state.edits,
            ids.join(", ")
        );
    }

    /// ASKING with nobody at a terminal: expert-review's question (its
    /// header, its two options, or text of one's own) for whoever called to
    /// put to the user, as the original agent asks it; not a verdict. The
    /// run resumes from here with the answer.
    fn write_question(&self, out: &mut String, run: &Run, q: &Question, persona: &str) {
        let _ = writeln!(
            out,
            "QUESTION\nReviewer: {persona}\nCheck: {} (line {})\n{}: {}",
            q.check_id,
            q.line,
            q.header,
            said(&q.text)
        );
        for o in &q.options {
            let _ = writeln!(out, "  - {}: {}", o.label, o.description);
        }
        let _ = writeln!(
            out,
            "  - or any other text: it replaces line {} of the plan",
            q.line
        );
        let _ = writeln!(out, "Edits: {}", run.state.edits);
        write_history(out, run);
        let _ = writeln!(
            out,
            "Ask the user, then run again with the answer: crit plan {} --answer {}=approve|abort|TEXT",
            shell_word(&self.target),
            q.check_id,
        );
    }

    /// REJECTED by the panel: the checks passed, a member found blocking problems.
    fn write_panel_rejection(&self, out: &mut String, run: &Run) {
        let Some(result) = self.panel_rejected() else {
            return;
        };
        let rejected_by: Vec<String> = self
            .summaries()
            .iter()
            .filter(|m| m.verdict == crit_core::Verdict::Fail)
            .map(|m| said(&m.name).into_string())
            .collect();
        let by = match rejected_by.is_empty() {
            true => String::new(),
            false => format!(" (rejected by {})", rejected_by.join(", ")),
        };
        let _ = writeln!(
            out,
            "REJECTED\nReviewer: {}\nChecks: {} passed\nReason: the review panel did not approve{by}\nEdits: {}",
            self.persona(),
            self.checks_total,
            run.state.edits
        );
        write_history(out, run);
        self.write_findings(out, run);
        // A member that could not review is no approval: say which, and why.
        for r in result.reviewers.iter().filter(|r| r.error.is_some()) {
            let _ = writeln!(
                out,
                "  - [{}] did not review: {}",
                said(&r.name),
                said(r.error.as_deref().unwrap_or_default())
            );
        }
        self.write_member_words(out);
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
            "ERROR\nReason: the review panel could not answer: {}",
            said(&why)
        );
        self.write_member_words(out);
        self.write_panel_notes(out);
    }

    /// Under APPROVED, when the panel ran: each member's own words, who
    /// approved, and the notes that did not block.
    fn write_panel_approval(&self, out: &mut String, run: &Run) {
        if let Some(PanelVote::Ran { panel, .. }) = &self.panel {
            self.write_member_words(out);
            let names: Vec<String> = panel.iter().map(|p| said(&p.name).into_string()).collect();
            let _ = writeln!(out, "Panel: approved by {}", names.join(", "));
            self.write_findings(out, run);
            self.write_panel_notes(out);
        }
    }

    /// Blocking findings, then non-blocking notes, each with why and its edit.
    fn write_findings(&self, out: &mut String, run: &Run) {
        let views = self.finding_views(run);
        let (blocking, notes): (Vec<&FindingView>, Vec<&FindingView>) =
            views.iter().partition(|v| v.blocking);
        if !blocking.is_empty() {
            let _ = writeln!(out, "Findings: {} blocking", blocking.len());
            blocking.iter().for_each(|v| write_finding(out, v));
        }
        if !notes.is_empty() {
            let _ = writeln!(out, "Notes: {} non-blocking", notes.len());
            notes.iter().for_each(|v| write_finding(out, v));
        }
    }

    /// `[As NAME]: …`: what each member wrote as its summary, verbatim.
    fn write_member_words(&self, out: &mut String) {
        for m in self.summaries() {
            match m.summary.trim() {
                "" => {
                    let _ = writeln!(
                        out,
                        "Panel: {} wrote no summary (verdict {})",
                        said(&m.name),
                        m.verdict
                    );
                }
                s => {
                    let _ = writeln!(out, "[As {}]: {}", said(&m.name), said(s));
                }
            }
        }
    }

    fn write_panel_notes(&self, out: &mut String) {
        if let Some(PanelVote::Ran { notes, .. }) = &self.panel {
            for n in notes {
                let _ = writeln!(out, "Panel: {}", said(n));
            }
        }
    }

    /// The checks' closing line under APPROVED: crit's own statement, in no
    /// persona's voice (a member's words, when a model reviewed, follow it).
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
        format!(
            "Verified the plan against {} checks; none of their patterns remain.{waived}",
            self.checks_total
        )
    }
}

/// The edits made, as expert-review lists them: `  - L{line}: {fix} ({check})`;
/// under the ones this run made, the text they changed.
fn write_history(out: &mut String, run: &Run) {
    for (i, edit) in applied_edits(run) {
        let h = &run.state.history[i];
        let _ = writeln!(
            out,
            "  - L{}: {} ({})",
            h.line,
            said(&h.fix),
            said(&h.check)
        );
        write_before_after(out, &edit);
    }
}

/// `was:` / `now:` lines for an edit whose text is known.
fn write_before_after(out: &mut String, e: &EditView) {
    if let (Some(before), Some(after)) = (&e.before, &e.after) {
        let _ = writeln!(out, "      was: {}", quoted(before));
        let _ = writeln!(out, "      now: {}", quoted(after));
    }
}

/// Plan text on one line, quoted; nothing at all is said as much.
fn quoted(s: &str) -> String {
    match s.trim() {
        "" => "(nothing)".into(),
        s => format!("\"{}\"", said(s)),
    }
}

fn write_finding(out: &mut String, v: &FindingView) {
    let at = v
        .location
        .as_ref()
        .map_or(String::new(), |l| format!(" ({})", said(l)));
    let _ = writeln!(
        out,
        "  - [{}] {} {}{at}",
        said(&v.reviewer),
        v.severity,
        said(&v.title)
    );
    if !v.body.trim().is_empty() {
        let _ = writeln!(out, "      Why: {}", said(&v.body));
    }
    match (&v.suggestion_refused, v.edits.is_empty()) {
        (Some(why), true) => {
            let _ = writeln!(
                out,
                "      Edit: none made; the proposed one is not offered: {}",
                said(why)
            );
        }
        (None, true) => {
            let _ = writeln!(out, "      Edit: none made or proposed");
        }
        _ => {}
    }
    for e in &v.edits {
        // An applied edit's text is under `Edits:` already.
        let _ = writeln!(out, "      Edit: {}", edit_text(e));
    }
}

fn edit_text(e: &EditView) -> String {
    let at = e.line.map_or(String::new(), |l| format!(" at L{l}"));
    match (e.applied, &e.fix, &e.before, &e.after) {
        (true, Some(fix), _, _) => format!("applied{at}: {}", said(fix)),
        (_, _, Some(before), Some(after)) => format!(
            "none made; proposed{at}: {} → {}",
            quoted(before),
            quoted(after)
        ),
        (_, _, None, Some(after)) => format!("none made; proposed{at}: {}", quoted(after)),
        _ => "none made or proposed".into(),
    }
}
