//! expert-review's own examples against the library: its state.yaml (which
//! crit never sealed) read as untrusted, a panel that can run waiting for the
//! checks instead of being said not to run, and the members' summaries shown
//! in their own voice.

use std::fs;
use std::path::Path;

use crit_checks::{
    AnswerBook, MemberSummary, Options, Panel, PanelRequest, PanelVote, Persona, review_with_panel,
};
use crit_core::{ReviewResult, Verdict};
use tempfile::TempDir;

/// The "State File (state.yaml)" example, verbatim.
const DOCUMENT_STATE: &str = "edits: 2
retries:
  no_eval: 1
  no_any_type: 0
history:
  - check: no_eval
    fix: \"eval → JSON.parse\"
    line: 42
  - check: no_any_type
    fix: \": any → : unknown\"
    line: 58
approved:
  - console_log_ok  # User approved this check.id
";

const PANEL: &str = "reviewer_personas:\n  - name: \"Dr. Emmy Noether\"\n    domain: \"symmetry and invariant theory\"\n    focus: [\"symmetry breaking\", \"Lie groups\", \"conservation laws\"]\n  - name: \"Claude (self-review)\"\n    domain: \"anti-pattern detection\"\n";

fn session(plan: &str, checks: &str) -> (TempDir, Options) {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("s");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("plan.md"), plan).unwrap();
    fs::write(dir.join("checks.yaml"), checks).unwrap();
    fs::write(dir.join("context.yaml"), PANEL).unwrap();
    let options = Options {
        home: Some(tmp.path().join("home")),
        state_dir: Some(tmp.path().join("state")),
        ..Options::default()
    };
    (tmp, options)
}

fn target(tmp: &TempDir) -> String {
    tmp.path().join("s").display().to_string()
}

/// A panel that can run: it approves, each member with a summary.
#[derive(Default)]
struct Approving {
    asked: usize,
}

impl Panel for Approving {
    fn review(&mut self, request: &PanelRequest<'_>) -> PanelVote {
        self.asked += 1;
        let panel: Vec<Persona> = request.reviewers.panel.clone();
        let summaries = panel
            .iter()
            .map(|p| MemberSummary {
                name: p.name.clone(),
                verdict: Verdict::Pass,
                summary: format!("{} found the symmetry argument sound.", p.name),
            })
            .collect();
        PanelVote::Ran {
            panel,
            approved: true,
            result: Box::new(ReviewResult::new("plan", Verdict::Pass)),
            notes: Vec::new(),
            auto_selected: false,
            summaries,
        }
    }
}

#[test]
fn the_documents_state_yaml_is_untrusted_not_an_error() {
    let (tmp, options) = session(
        "# Plan\n\nPrint progress with console.log while the cache warms.\n",
        "checks:\n  - id: console_log_ok\n    pattern: \"console.log\"\n    reason: \"Use proper logging\"\n",
    );
    let state = tmp.path().join("s/state.yaml");
    fs::write(&state, DOCUMENT_STATE).unwrap();
    let mut book = AnswerBook::default();
    let report = review_with_panel(
        &target(&tmp),
        &options,
        &mut book,
        &mut Approving::default(),
    );
    let run = report.result.as_ref().expect("untrusted state is no ERROR");
    // Its approval of console_log_ok is ignored: the check asks again.
    assert_eq!(
        report.pending_question().unwrap().check_id,
        "console_log_ok"
    );
    assert!(run.state.approved.is_empty());
    // Its counts are kept as a floor.
    assert_eq!(run.state.edits, 2);
    assert_eq!(run.state.retries.get("no_eval"), Some(&1));
    assert_eq!(run.state.history.len(), 2);
    let warning = report.warnings.join("\n");
    assert!(warning.contains("not trusted"), "{warning}");
    assert!(
        warning.contains("its approvals (console_log_ok) are ignored"),
        "{warning}"
    );
    assert!(warning.contains("kept as a floor"), "{warning}");
    assert!(
        report.render_text().contains("Warning: "),
        "{}",
        report.render_text()
    );
    // Written again sealed: the next run trusts it and says nothing.
    let mut book = AnswerBook::default();
    let again = review_with_panel(
        &target(&tmp),
        &options,
        &mut book,
        &mut Approving::default(),
    );
    assert!(again.result.is_ok());
    assert!(
        !again.warnings.iter().any(|w| w.contains("not trusted")),
        "{:?}",
        again.warnings
    );
    assert_eq!(again.result.unwrap().state.edits, 2);
}

#[test]
fn a_panel_that_can_run_waits_for_the_checks() {
    let (tmp, options) = session(
        "# Plan\n\nParse the config with eval(text).\n",
        "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n    reason: \"eval runs arbitrary code\"\n",
    );
    let mut panel = Approving::default();
    let mut book = AnswerBook::default();
    let report = review_with_panel(&target(&tmp), &options, &mut book, &mut panel);
    assert_eq!(panel.asked, 0);
    let text = report.render_text();
    assert!(!text.contains("did not run"), "{text}");
    assert!(!text.contains("no model backend"), "{text}");
    assert!(
        text.contains("Panel: not asked yet (the checks have not approved the plan yet"),
        "{text}"
    );
}

#[test]
fn members_speak_in_their_own_words() {
    let (tmp, options) = session(
        "# Plan\n\nUse Noether's theorem for the conserved current.\n",
        "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n",
    );
    let mut panel = Approving::default();
    let mut book = AnswerBook::default();
    let report = review_with_panel(&target(&tmp), &options, &mut book, &mut panel);
    assert_eq!(panel.asked, 1);
    let text = report.render_text();
    assert!(text.starts_with("APPROVED\n"), "{text}");
    assert!(
        text.contains("[As Dr. Emmy Noether]: Dr. Emmy Noether found the symmetry argument sound."),
        "{text}"
    );
    let json = serde_json::to_value(report.to_review_result()).unwrap();
    let members = json.to_string();
    assert!(
        members.contains("found the symmetry argument sound"),
        "{members}"
    );
    assert!(Path::new(&tmp.path().join("s")).is_dir());
}
