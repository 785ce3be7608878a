//! expert-review's own examples and scenarios, run unchanged against
//! `crit plan` (and its PreToolUse gate): the session setup of its "Example
//! Usage" with explicit checks, relying on a CLAUDE.md Anti-Patterns Table,
//! the limits (10 edits across runs, reject_if_persists), a free-text answer
//! replacing the matched line, two plans in one `~/.claude/plans` keeping
//! separate state, user and project CLAUDE.md rows that do not collide, and
//! AUTO-SELECT with no context.yaml (its panel written back), with a panel
//! that cannot answer being ERROR.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

/// A fake home: `~/.claude/…` lives under it.
struct Home {
    tmp: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        Home {
            tmp: tempfile::tempdir().unwrap(),
        }
    }
    fn path(&self) -> &Path {
        self.tmp.path()
    }
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        p
    }
    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path().join(rel)).unwrap()
    }
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_crit"));
        c.args(args)
            .env_clear()
            .env("HOME", self.path())
            .env("PATH", "/usr/bin:/bin")
            .current_dir(self.path())
            .stdin(Stdio::null());
        c
    }
    fn crit(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }
    /// Claude Code's PreToolUse for ExitPlanMode with `plan` named.
    fn hook(&self, plan: &Path) -> Value {
        let mut child = self
            .command(&["hook", "claude-code", "PreToolUse"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let text = std::fs::read_to_string(plan).unwrap_or_default();
        let event = json!({"hook_event_name": "PreToolUse", "tool_name": "ExitPlanMode",
            "tool_input": {"plan": text, "planFilePath": plan.display().to_string()}});
        child
            .stdin
            .take()
            .unwrap()
            .write_all(event.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The "With Explicit Checks" example's checks.yaml, verbatim.
const EXAMPLE_CHECKS: &str = r#"# ~/.claude/sessions/{id}/checks.yaml
checks:
  - id: no_any_type
    pattern: ": any"
    match_rule: regex
    fix:
      action: replace
      with: ": unknown"
    reason: "Use proper TypeScript types instead of any"
    reject_if_persists: false

  - id: no_console_log
    pattern: "console.log"
    match_rule: literal
    fix:
      action: remove_sentence
    reason: "Use proper logging in production code"
"#;

#[test]
fn the_session_setup_example_with_explicit_checks() {
    let h = Home::new();
    let id = "20260101-120000-ab12cd34";
    let dir = format!(".claude/sessions/{id}");
    h.write(
        &format!("{dir}/plan.md"),
        "# Implementation Plan\n\nParse the payload as `data: any`. Call console.log(data) to debug. Then store it.\n",
    );
    h.write(
        &format!("{dir}/context.yaml"),
        "reviewer_persona: \"Senior physicist specializing in Clifford algebras and condensed matter\"\nproject_root: /home/user/physics-project\n",
    );
    h.write(&format!("{dir}/checks.yaml"), EXAMPLE_CHECKS);
    let out = h.crit(&["plan", &format!("session://{id}"), "--non-interactive"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.starts_with("APPROVED\nReviewer: Senior physicist specializing in Clifford algebras and condensed matter (checks only; no model reviewed the plan)\nChecks: 2 passed\nEdits: 2\n"), "{text}");
    assert!(text.contains("(no_any_type)"), "{text}");
    assert!(text.contains("(no_console_log)"), "{text}");
    let plan = h.read(&format!("{dir}/plan.md"));
    assert!(plan.contains("`data: unknown`"), "{plan}");
    assert!(!plan.contains("console.log"), "{plan}");
    let state = h.read(&format!("{dir}/state.yaml"));
    assert!(state.starts_with("edits: 2\n"), "{state}");
    assert!(h.path().join(format!("{dir}/plan.approved")).is_file());
}

/// The "Relying on CLAUDE.md" example's table, verbatim.
const CLAUDE_TABLE: &str = "## Anti-Patterns Table\n\n| If you write... | STOP because... |\n|-----------------|-----------------|\n| `eval()` | Security risk — use JSON.parse or safer alternatives |\n| `SELECT *` | Performance issue — specify columns explicitly |\n";

#[test]
fn relying_on_claude_md_asks_and_free_text_replaces_the_matched_line() {
    let h = Home::new();
    h.write("proj/.git/HEAD", "ref: refs/heads/main\n");
    h.write("proj/CLAUDE.md", CLAUDE_TABLE);
    h.write(
        "proj/session/plan.md",
        "# Plan\n\n1. Read rows with SELECT * from users.\n2. Done.\n",
    );
    h.write(
        "proj/session/context.yaml",
        "reviewer_persona: Staff engineer\nproject_root: ..\n",
    );
    let out = h.crit(&["plan", "proj/session", "--non-interactive"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.starts_with("QUESTION\n"), "{text}");
    assert!(text.contains("anti_pattern_2"), "{text}");
    // "Apply as replacement text to the matched line": the whole line.
    let out = h.crit(&[
        "plan",
        "proj/session",
        "--answer",
        "anti_pattern_2=1. Read the id and name columns from users.",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        h.read("proj/session/plan.md"),
        "# Plan\n\n1. Read the id and name columns from users.\n2. Done.\n"
    );
}

#[test]
fn two_plans_in_one_directory_keep_separate_state() {
    let h = Home::new();
    h.write(".claude/CLAUDE.md", CLAUDE_TABLE);
    let a = h.write(
        ".claude/plans/alpha.md",
        "# Alpha\n\nWe call eval() on the config.\n",
    );
    let b = h.write(
        ".claude/plans/beta.md",
        "# Beta\n\nWe call eval() on user input.\n",
    );
    // Approving the check on alpha approves it there only.
    let out = h.crit(&[
        "plan",
        a.to_str().unwrap(),
        "--answer",
        "anti_pattern_1=approve",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = h.crit(&["plan", b.to_str().unwrap(), "--non-interactive"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.starts_with("QUESTION\n"), "{text}");
    assert!(text.contains("Check: anti_pattern_1"), "{text}");
    assert!(
        h.read(".claude/plans/alpha.state.yaml")
            .contains("anti_pattern_1")
    );
    assert!(
        !h.read(".claude/plans/beta.state.yaml")
            .contains("approved:\n  - ")
    );
    assert!(!h.path().join(".claude/plans/state.yaml").exists());
    // The ExitPlanMode gate lets alpha through and holds beta.
    let allow = h.hook(&a);
    assert_ne!(
        allow["hookSpecificOutput"]["permissionDecision"], "deny",
        "{allow}"
    );
    let deny = h.hook(&b);
    assert_eq!(
        deny["hookSpecificOutput"]["permissionDecision"], "deny",
        "{deny}"
    );
    // One plan's sealed state copied over the other's is refused.
    fs::copy(
        h.path().join(".claude/plans/alpha.state.yaml"),
        h.path().join(".claude/plans/beta.state.yaml"),
    )
    .unwrap();
    let out = h.crit(&["plan", b.to_str().unwrap(), "--non-interactive"]);
    assert!(stdout(&out).starts_with("ERROR\n"), "{}", stdout(&out));
}

#[test]
fn user_and_project_claude_md_rows_do_not_collide() {
    let h = Home::new();
    h.write(
        ".claude/CLAUDE.md",
        "| If you write... | STOP because... |\n|---|---|\n| `TODO later` | Decide now |\n",
    );
    h.write("proj/.git/HEAD", "ref: refs/heads/main\n");
    h.write(
        "proj/CLAUDE.md",
        "| If you write... | STOP because... |\n|---|---|\n| `rm -rf` | Destructive |\n",
    );
    h.write(
        "proj/s/plan.md",
        "# Plan\n\nClean up with rm -rf build and leave a TODO later.\n",
    );
    h.write(
        "proj/s/context.yaml",
        "reviewer_persona: Ops\nproject_root: ..\n",
    );
    let out = h.crit(&["plan", "proj/s", "--non-interactive", "--json"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unresolved: Vec<&str> = r["structured_output"]["unresolved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["check_id"].as_str().unwrap())
        .collect();
    assert_eq!(unresolved, ["anti_pattern_1", "user_anti_pattern_1"], "{r}");
    // An explicit id still overrides a table row by priority.
    h.write(
        "proj/s/checks.yaml",
        "checks:\n  - id: anti_pattern_1\n    pattern: \"nothing-like-this\"\n",
    );
    let out = h.crit(&["plan", "proj/s", "--non-interactive", "--json"]);
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unresolved: Vec<&str> = r["structured_output"]["unresolved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["check_id"].as_str().unwrap())
        .collect();
    assert_eq!(unresolved, ["user_anti_pattern_1"], "{r}");
}

#[test]
fn the_limits_hold_across_runs() {
    let h = Home::new();
    // Eleven fixable hits, one edit each (reject_if_persists off, no retries hit).
    let mut checks = String::from("checks:\n");
    let mut plan = String::from("# Plan\n\n");
    for i in 0..11 {
        checks.push_str(&format!(
            "  - id: c{i:02}\n    pattern: \"bad{i:02}\"\n    fix:\n      action: replace\n      with: \"good{i:02}\"\n"
        ));
        plan.push_str(&format!("Step bad{i:02}.\n"));
    }
    h.write("s/plan.md", &plan);
    h.write("s/checks.yaml", &checks);
    h.write("s/context.yaml", "reviewer_persona: Reviewer\n");
    let out = h.crit(&["plan", "s", "--non-interactive"]);
    let text = stdout(&out);
    assert!(text.starts_with("INCOMPLETE\n"), "{text}");
    assert!(text.contains("Reason: edits >= 10"), "{text}");
    // A second run makes no eleventh edit.
    let before = h.read("s/plan.md");
    let out = h.crit(&["plan", "s", "--non-interactive"]);
    assert!(
        stdout(&out).contains("Reason: edits >= 10"),
        "{}",
        stdout(&out)
    );
    assert_eq!(h.read("s/plan.md"), before);
    assert!(before.contains("bad10"));
}

#[test]
fn reject_if_persists_rejects_on_reappearance() {
    let h = Home::new();
    h.write("s/plan.md", "# Plan\n\nUse eval here.\n");
    h.write(
        "s/checks.yaml",
        "checks:\n  - id: no_eval\n    pattern: eval\n    fix:\n      action: replace\n      with: eval2\n    reject_if_persists: true\n    reason: Security risk\n",
    );
    h.write("s/context.yaml", "reviewer_persona: Security engineer\n");
    let out = h.crit(&["plan", "s", "--non-interactive"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.starts_with("REJECTED\nReviewer: Security engineer (checks only; no model reviewed the plan)\nCheck: no_eval\nReason: Pattern 'eval' reappeared after fix (reject_if_persists)\nEdits before rejection: 1\n"),
        "{text}"
    );
}

fn panel_pass() -> Reply {
    Reply::json(json!({"verdict": "PASS", "summary": "Sound.", "findings": []}))
}

fn with_backend(h: &Home, server: &FakeServer, args: &[&str]) -> Output {
    h.command(args)
        .env("ANTHROPIC_API_KEY", "sk-ant-plan-0123456789abcdef")
        .env("ANTHROPIC_BASE_URL", server.url())
        .output()
        .unwrap()
}

#[test]
fn auto_select_runs_without_context_yaml_and_writes_the_panel_back() {
    let h = Home::new();
    let plan = h.write(
        ".claude/plans/cache.md",
        "# Plan: cache profiles\n\n1. Add a cache.\n",
    );
    h.write(
        ".claude/plans/checks.yaml",
        "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n",
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("Select the review panel").reply(Reply::json(json!({
        "panel": [{"name": "Barbara Liskov", "domain": "software", "focus": ["abstractions"]},
                  {"name": "Claude", "domain": "anti-pattern detection", "focus": ["CLAUDE.md violations"]}],
        "reason": "A software change."}))));
    server.push(Step::when_contains("You are Barbara Liskov").reply(panel_pass()));
    server.push(Step::when_contains("You are Donald Knuth").reply(panel_pass()));
    server.push(Step::when_contains("You are Claude").reply(panel_pass()));
    let out = with_backend(
        &h,
        &server,
        &["plan", plan.to_str().unwrap(), "--non-interactive"],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    // The software table's pair: AUTO-SELECT's one reviewer is completed.
    assert!(
        text.contains("Reviewer: Barbara Liskov, Donald Knuth, Claude\n"),
        "{text}"
    );
    let context = h.read(".claude/plans/cache.context.yaml");
    assert!(context.contains("reviewer_personas:"), "{context}");
    assert!(context.contains("Barbara Liskov"), "{context}");
    // The next run keeps the chosen panel: no second AUTO-SELECT.
    server.push(Step::when_contains("You are Barbara Liskov").reply(panel_pass()));
    server.push(Step::when_contains("You are Donald Knuth").reply(panel_pass()));
    server.push(Step::when_contains("You are Claude").reply(panel_pass()));
    let before = server.model_requests().len();
    let out = with_backend(
        &h,
        &server,
        &["plan", plan.to_str().unwrap(), "--non-interactive"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let after = server.model_requests();
    assert!(
        !after[before..]
            .iter()
            .any(|r| r.body.to_string().contains("Select the review panel"))
    );
}

#[test]
fn a_panel_that_cannot_answer_is_error_not_rejected() {
    let h = Home::new();
    h.write("s/plan.md", "# Plan\n\nAdd a cache.\n");
    h.write(
        "s/checks.yaml",
        "checks:\n  - id: no_eval\n    pattern: \"eval(\"\n",
    );
    h.write(
        "s/context.yaml",
        "reviewer_personas:\n  - name: Ada\n    domain: caching\n  - name: Claude\n    domain: anti-pattern detection\n",
    );
    let server = FakeServer::start_blocking();
    for _ in 0..8 {
        server.push(Step::reply(Reply::api_error(
            500,
            "api_error",
            "Internal error",
        )));
    }
    let out = with_backend(&h, &server, &["plan", "s", "--non-interactive"]);
    let text = stdout(&out);
    assert!(
        text.starts_with("ERROR\nReason: the review panel could not answer"),
        "{text}"
    );
    assert_ne!(out.status.code(), Some(0));
    assert!(!h.path().join("s/plan.approved").exists());
}
