//! expert-review's panel rules and its own examples through `crit plan`:
//! AUTO-SELECT on a physics project (`~/Physics/*`) completed to a physicist
//! and a mathematician, Claude joining a hand-written panel, the document's
//! state.yaml read as untrusted, `--answer anti_pattern_N` taken for the
//! user's own row, a relative plan path without git, and a panel that waits
//! for the checks instead of being said not to run.

use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// `crit ARGS` with HOME = `home`, run from `cwd`, and a model backend when
/// `server` is given.
fn crit(home: &Path, cwd: &Path, server: Option<&FakeServer>, args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_crit"));
    c.args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(cwd)
        .stdin(Stdio::null());
    if let Some(s) = server {
        c.env("ANTHROPIC_API_KEY", "sk-ant-plan-0123456789abcdef")
            .env("ANTHROPIC_BASE_URL", s.url());
    }
    c.output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn pass(summary: &str) -> Reply {
    Reply::json(json!({"verdict": "PASS", "summary": summary, "findings": []}))
}

const CHECKS: &str =
    "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n    reason: \"eval runs arbitrary code\"\n";

#[test]
fn auto_select_on_a_physics_project_adds_the_tables_mathematician() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        "Physics/qft/plan.md",
        "# Plan: one-loop renormalization\n\n1. Regulate the propagator integral.\n2. Fix the counterterms.\n",
    );
    write(h, "Physics/qft/checks.yaml", CHECKS);
    let server = FakeServer::start_blocking();
    // AUTO-SELECT picks one physicist, no mathematician, no Claude.
    server.push(Step::when_contains("Select the review panel").reply(Reply::json(json!({
        "panel": [{"name": "Steven Weinberg", "domain": "quantum field theory", "focus": ["renormalization"]}],
        "reason": "A QFT plan."}))));
    server.push(
        Step::when_contains("You are Steven Weinberg").reply(pass("The regularization is sound.")),
    );
    server.push(
        Step::when_contains("You are Arthur Wightman")
            .reply(pass("The limits are taken with care.")),
    );
    server.push(Step::when_contains("You are Claude").reply(pass("No anti-patterns.")));
    let out = crit(
        h,
        h,
        Some(&server),
        &["plan", "Physics/qft", "--non-interactive"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Reviewer: Steven Weinberg, Arthur Wightman, Claude\n"),
        "{text}"
    );
    assert!(text.contains("completed by the panel rules"), "{text}");
    // Each member's own summary is shown in its voice.
    assert!(
        text.contains("[As Arthur Wightman]: The limits are taken with care."),
        "{text}"
    );
    let context = fs::read_to_string(h.join("Physics/qft/context.yaml")).unwrap();
    assert!(
        context.contains("Arthur Wightman"),
        "the completed panel is written back: {context}"
    );
    assert_eq!(server.model_requests().len(), 4);
}

#[test]
fn claude_joins_a_hand_written_panel_and_a_relative_plan_needs_no_git() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        "work/plan.md",
        "# Plan\n\nAdd a cache in front of the profile store.\n",
    );
    write(h, "work/checks.yaml", CHECKS);
    write(
        h,
        "work/context.yaml",
        "reviewer_personas:\n  - name: \"Barbara Liskov\"\n    domain: \"abstraction\"\n",
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("You are Barbara Liskov").reply(pass("Clean interface.")));
    server.push(Step::when_contains("You are Claude").reply(pass("No anti-patterns.")));
    // `crit plan plan.md` from the plan's directory, no git anywhere.
    let out = crit(
        h,
        &h.join("work"),
        Some(&server),
        &["plan", "plan.md", "--non-interactive"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("project root"), "{text}");
    assert!(
        text.contains("Panel: approved by Barbara Liskov, Claude"),
        "{text}"
    );
    assert!(text.contains("Claude joins the panel"), "{text}");
}

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

#[test]
fn the_documents_state_yaml_is_a_warning_not_an_error() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(h, "s/plan.md", "# Plan\n\nLog progress with console.log.\n");
    write(
        h,
        "s/checks.yaml",
        "checks:\n  - id: console_log_ok\n    pattern: \"console.log\"\n    reason: \"Use proper logging\"\n",
    );
    write(h, "s/context.yaml", "reviewer_persona: Staff engineer\n");
    write(h, "s/state.yaml", DOCUMENT_STATE);
    let out = crit(h, h, None, &["plan", "s", "--non-interactive", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = &r["structured_output"];
    assert_eq!(s["word"], "INCOMPLETE", "{r}");
    assert_eq!(
        s["pending_question"]["check_id"], "console_log_ok",
        "approval ignored: {r}"
    );
    assert_eq!(s["edits"], 2, "counts kept: {r}");
    let warnings = s["warnings"].to_string();
    assert!(
        warnings.contains("its approvals (console_log_ok) are ignored"),
        "{warnings}"
    );
    assert!(warnings.contains("kept as a floor"), "{warnings}");
}

#[test]
fn an_answer_without_the_user_prefix_is_taken_for_the_users_row() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        ".claude/CLAUDE.md",
        "## Anti-Patterns Table\n\n| If you write... | STOP because... |\n|-----------------|-----------------|\n| `eval()` | Security risk — use JSON.parse or safer alternatives |\n| `SELECT *` | Performance issue — specify columns explicitly |\n",
    );
    write(
        h,
        "s/plan.md",
        "# Plan\n\n1. Read rows with SELECT * from users.\n",
    );
    write(h, "s/context.yaml", "reviewer_persona: Staff engineer\n");
    let out = crit(h, h, None, &["plan", "s", "--non-interactive"]);
    assert!(
        stdout(&out).contains("user_anti_pattern_2"),
        "{}",
        stdout(&out)
    );
    let out = crit(
        h,
        h,
        None,
        &[
            "plan",
            "s",
            "--non-interactive",
            "--answer",
            "anti_pattern_2=approve",
        ],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("APPROVED\n"), "{text}");
    assert!(
        text.contains("taken as the answer to user_anti_pattern_2"),
        "{text}"
    );
    assert!(
        !text.contains("no question about this check was asked"),
        "{text}"
    );
}

#[test]
fn a_configured_panel_waits_for_the_checks() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        "s/plan.md",
        "# Plan\n\nParse the config with eval(text).\n",
    );
    write(h, "s/checks.yaml", CHECKS);
    write(h, "s/context.yaml", "reviewer_persona: Staff engineer\n");
    let server = FakeServer::start_blocking();
    let out = crit(h, h, Some(&server), &["plan", "s", "--non-interactive"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(!text.contains("no model backend configured"), "{text}");
    assert!(text.contains("Panel: not asked yet"), "{text}");
    // The panel is not asked; the persona only words the checks' question.
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 1);
    assert!(
        reqs[0]
            .body
            .to_string()
            .contains("explain why this matters"),
        "{:?}",
        reqs[0].body
    );
}

#[test]
fn auto_select_runs_for_a_relative_plan_without_git() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        "work/plan.md",
        "# Plan\n\nAdd an index to the users table.\n",
    );
    write(h, "work/checks.yaml", CHECKS);
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("Select the review panel").reply(Reply::json(json!({
        "panel": [{"name": "Edgar Codd", "domain": "databases", "focus": ["data model"]},
                  {"name": "Jim Gray", "domain": "transactions", "focus": ["recovery"]},
                  {"name": "Claude", "domain": "anti-pattern detection", "focus": ["CLAUDE.md violations"]}],
        "reason": "A database change."}))));
    server.push(Step::when_contains("You are Edgar Codd").reply(pass("Normalized.")));
    server.push(Step::when_contains("You are Jim Gray").reply(pass("Recoverable.")));
    server.push(Step::when_contains("You are Claude").reply(pass("No anti-patterns.")));
    let out = crit(
        h,
        &h.join("work"),
        Some(&server),
        &["plan", "plan.md", "--non-interactive"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(!text.contains("AUTO-SELECT failed"), "{text}");
    assert!(
        text.contains("AUTO-SELECT picked the panel: A database change."),
        "{text}"
    );
    assert!(
        text.contains("Reviewer: Edgar Codd, Jim Gray, Claude\n"),
        "{text}"
    );
}

/// AUTO-SELECT is told where the project lives (expert-review's PROJECT
/// PATH), and the prompt it gets is the one in the snapshot.
#[test]
fn auto_select_is_given_the_project_path() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        "Physics/qft/plan.md",
        "# Plan: one-loop renormalization\n\n1. Regulate the propagator integral.\n",
    );
    write(h, "Physics/qft/checks.yaml", CHECKS);
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("Select the review panel").reply(Reply::json(json!({
        "panel": [{"name": "Steven Weinberg", "domain": "physicist: quantum field theory", "focus": ["renormalization"]},
                  {"name": "Arthur Wightman", "domain": "mathematician: axiomatic field theory", "focus": ["rigor"]}],
        "reason": "A QFT plan."}))));
    for _ in 0..3 {
        server.push(Step::when_contains("You are").reply(pass("Sound.")));
    }
    let out = crit(
        h,
        h,
        Some(&server),
        &["plan", "Physics/qft", "--non-interactive"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let reqs = server.model_requests();
    let select = reqs
        .iter()
        .find(|r| r.body.to_string().contains("Select the review panel"))
        .unwrap();
    let user = select.body["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    // No git: the project root is the plan directory's parent.
    let root = h.join("Physics");
    assert!(
        user.contains(&format!("PROJECT PATH: {}\n", root.display())),
        "{user}"
    );
    insta::assert_snapshot!(
        "auto_select_prompt",
        user.replace(&root.display().to_string(), "/HOME/Physics")
    );
}

/// A panel context.yaml names on a physics project meets the panel rules as
/// AUTO-SELECT's does: a physicist alone gets the table's mathematician.
#[test]
fn a_hand_written_physics_panel_gets_a_mathematician() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    write(
        h,
        "Physics/gauge/plan.md",
        "# Plan: lattice gauge fields\n\n1. Put the Yang-Mills connection on the lattice.\n",
    );
    write(h, "Physics/gauge/checks.yaml", CHECKS);
    write(
        h,
        "Physics/gauge/context.yaml",
        "reviewer_personas:\n  - name: \"Chen-Ning Yang\"\n    domain: \"physicist: gauge theory\"\n  - name: \"Claude\"\n    domain: \"anti-pattern detection\"\n",
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("You are Chen-Ning Yang").reply(pass("Gauge invariant.")));
    server.push(Step::when_contains("You are Michael Atiyah").reply(pass("The bundle is right.")));
    server.push(Step::when_contains("You are Claude").reply(pass("No anti-patterns.")));
    let out = crit(
        h,
        h,
        Some(&server),
        &["plan", "Physics/gauge", "--non-interactive"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("Reviewer: Chen-Ning Yang, Michael Atiyah, Claude\n"),
        "{text}"
    );
    assert!(text.contains("completed by the panel rules"), "{text}");
    assert!(text.contains("a mathematician"), "{text}");
    assert!(
        text.contains("[As Michael Atiyah]: The bundle is right."),
        "{text}"
    );
    assert_eq!(
        server.model_requests().len(),
        3,
        "no AUTO-SELECT: the panel was written"
    );
    // The same panel outside a physics project, with no physicist, stands.
    write(h, "work/plan.md", "# Plan\n\nAdd a cache.\n");
    write(h, "work/checks.yaml", CHECKS);
    write(
        h,
        "work/context.yaml",
        "reviewer_personas:\n  - name: \"Barbara Liskov\"\n    domain: \"abstraction\"\n  - name: \"Claude\"\n    domain: \"anti-pattern detection\"\n",
    );
    let server = FakeServer::start_blocking();
    for _ in 0..2 {
        server.push(Step::when_contains("You are").reply(pass("Fine.")));
    }
    let out = crit(h, h, Some(&server), &["plan", "work", "--non-interactive"]);
    let text = stdout(&out);
    assert!(
        text.contains("Reviewer: Barbara Liskov, Claude\n"),
        "{text}"
    );
    assert!(!text.contains("completed by the panel rules"), "{text}");
}
