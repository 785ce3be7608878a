//! `crit plan` end to end: a session through FIXING and ASKING, answered with
//! `--answer`, every ERROR, the output formats, verify, and the lock.

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

struct Session {
    tmp: tempfile::TempDir,
}

impl Session {
    fn new(plan: &str, context: Option<&str>, checks: Option<&str>) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("home/.claude/sessions/s1");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("plan.md"), plan).unwrap();
        if let Some(c) = context {
            fs::write(dir.join("context.yaml"), c).unwrap();
        }
        if let Some(c) = checks {
            fs::write(dir.join("checks.yaml"), c).unwrap();
        }
        Session { tmp }
    }
    fn home(&self) -> PathBuf {
        self.tmp.path().join("home")
    }
    fn dir(&self) -> PathBuf {
        self.home().join(".claude/sessions/s1")
    }
    fn read(&self, name: &str) -> String {
        fs::read_to_string(self.dir().join(name)).unwrap()
    }
    fn crit(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_crit"))
            .args(args)
            .env("HOME", self.home())
            .env_remove("XDG_STATE_HOME")
            .env_remove("CRIT_PROVIDER")
            .env_remove("CRIT_MODEL")
            .env_remove("CRIT_PLAN")
            // No backend: these tests are about the deterministic checks.
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("ANTHROPIC_AUTH_TOKEN")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("CRIT_CLAUDE_BIN")
            .env("PATH", "/nonexistent")
            .current_dir(self.tmp.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const PLAN: &str = "# Implementation Plan\n\nWe parse the config with eval() for speed. It is fast.\n\n- Use console.log while debugging\n- Ship behind a flag\n\nThe ambiguous thing stays for now.\n";
const CONTEXT: &str = "reviewer_persona: \"Senior security engineer\"\n";
const CHECKS: &str = "checks:
  - id: no_eval
    pattern: \"eval()\"
    fix:
      action: replace
      with: \"JSON.parse()\"
    reason: \"Security risk\"
  - id: no_console_log
    pattern: \"console.log\"
    fix:
      action: remove_sentence
    reason: \"Use proper logging in production code\"
  - id: judgment
    pattern: \"ambiguous thing\"
    reason: \"Requires human judgment\"
";

#[test]
fn fixing_then_asking_then_answer_approves() {
    let s = Session::new(PLAN, Some(CONTEXT), Some(CHECKS));
    let first = s.crit(&["plan", "session://s1"]);
    assert_eq!(first.status.code(), Some(1), "{}", stdout(&first));
    let out = stdout(&first);
    assert_eq!(
        out,
        "QUESTION
Reviewer: Senior security engineer (checks only; no model reviewed the plan)
Check: judgment (line 7)
Review: [Checks for Senior security engineer]: Pattern 'ambiguous thing' found. Requires human judgment. It appears on line 7: \"The ambiguous thing stays for now.\".
  - Approve this instance: Mark this check as approved for this plan
  - Abort review: Stop review with INCOMPLETE status
  - or any other text: it replaces line 7 of the plan
Edits: 2
  - L3: eval() → JSON.parse() (no_eval)
      was: \"We parse the config with eval() for speed. It is fast.\"
      now: \"We parse the config with JSON.parse() for speed. It is fast.\"
  - L5: removed sentence with 'console.log' (no_console_log)
      was: \"- Use console.log while debugging\"
      now: (nothing)
Ask the user, then run again with the answer: crit plan session://s1 --answer judgment=approve|abort|TEXT
Panel: did not run (no model backend configured); the deterministic checks alone decided.
"
    );
    assert_eq!(
        s.read("plan.md"),
        "# Implementation Plan\n\nWe parse the config with JSON.parse() for speed. It is fast.\n\n- Ship behind a flag\n\nThe ambiguous thing stays for now.\n"
    );
    // The seed's shape, then crit's seal.
    let state = s.read("state.yaml");
    let (body, seal) = state.rsplit_once("# crit-seal: ").unwrap();
    assert_eq!(
        body,
        "edits: 2\nretries:\n  no_console_log: 1\n  no_eval: 1\nhistory:\n  - check: no_eval\n    fix: \"eval() → JSON.parse()\"\n    line: 3\n  - check: no_console_log\n    fix: \"removed sentence with 'console.log'\"\n    line: 5\napproved: []\n"
    );
    assert_eq!(seal.trim().len(), 64, "{state}");
    assert!(!s.dir().join("plan.approved").exists());

    let second = s.crit(&["plan", "session://s1", "--answer", "judgment=approve"]);
    assert_eq!(second.status.code(), Some(0), "{}", stdout(&second));
    assert_eq!(
        stdout(&second),
        "APPROVED
Reviewer: Senior security engineer (checks only; no model reviewed the plan)
Checks: 3 passed
Edits: 2
  - L3: eval() → JSON.parse() (no_eval)
  - L5: removed sentence with 'console.log' (no_console_log)
Verified the plan against 3 checks; none of their patterns remain. 1 approved by the user: judgment.
Panel: did not run (no model backend configured); the deterministic checks alone decided.
"
    );
    assert!(
        s.dir().join("plan.approved").exists(),
        "marker written on APPROVED"
    );
    assert!(
        s.read("state.yaml")
            .contains("approved:\n  - judgment\n# crit-seal: ")
    );
    assert_eq!(
        s.crit(&["plan", "verify", "session://s1"]).status.code(),
        Some(0)
    );
}

#[test]
fn answer_with_replacement_text_and_abort() {
    let s = Session::new(PLAN, Some(CONTEXT), Some(CHECKS));
    let o = s.crit(&[
        "plan",
        s.dir().to_str().unwrap(),
        "--answer",
        "judgment=The clear decision stays for now.",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // The answer replaces the whole matched line.
    assert!(
        s.read("plan.md")
            .ends_with("\n\nThe clear decision stays for now.\n")
    );
    assert!(
        stdout(&o)
            // At its line in the plan as the run found it (an earlier edit removed one).
            .contains("  - L8: The ambiguous thing stays for now. → The clear decision stays for now. (user) (judgment)\n"),
        "{}",
        stdout(&o)
    );

    let s = Session::new(PLAN, Some(CONTEXT), Some(CHECKS));
    let o = s.crit(&[
        "plan",
        "session://s1",
        "--answer",
        "judgment=abort",
        "--answer",
        "other=approve",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.starts_with("INCOMPLETE\nReviewer: Senior security engineer (checks only; no model reviewed the plan)\nReason: user aborted\nEdits: 2\nUnresolved: [judgment]\n"), "{out}");
    assert!(
        out.contains("Warning: the answer for `other`: no question about this check was asked"),
        "{out}"
    );
}

#[test]
fn json_carries_the_pending_question() {
    let s = Session::new(PLAN, Some(CONTEXT), Some(CHECKS));
    let o = s.crit(&["plan", "session://s1", "--json", "--non-interactive"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "INCOMPLETE");
    assert_eq!(v["passed"], false);
    let sx = &v["structured_output"];
    assert_eq!(sx["word"], "INCOMPLETE");
    assert_eq!(sx["pending_question"]["check_id"], "judgment");
    assert_eq!(sx["pending_question"]["line"], 7);
    assert_eq!(
        sx["pending_question"]["options"][0]["label"],
        "Approve this instance"
    );
    assert_eq!(sx["panel"]["ran"], false);
    let f = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule_id"] == "judgment")
        .unwrap();
    assert_eq!(f["severity"], "P1");
    assert_eq!(f["location"]["line_start"], 7);
    let skipped: Vec<&str> = v["reviewers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "skipped")
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, vec!["Senior security engineer"]);
}

#[test]
fn sarif_locates_findings_in_plan_md() {
    let s = Session::new(PLAN, Some(CONTEXT), Some(CHECKS));
    let o = s.crit(&["plan", "session://s1", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let text = v.to_string();
    assert!(text.contains("plan.md"), "{text}");
    assert!(text.contains("\"startLine\":7"), "{text}");
}

#[test]
fn reject_if_persists() {
    let checks = "checks:\n  - id: no_eval\n    pattern: \"eval\"\n    fix: {action: replace, with: \"evaluate\"}\n    reason: \"Dynamic code\"\n    reject_if_persists: true\n";
    let s = Session::new("Use eval.\n", Some(CONTEXT), Some(checks));
    let o = s.crit(&["plan", "session://s1"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stdout(&o),
        "REJECTED\nReviewer: Senior security engineer (checks only; no model reviewed the plan)\nCheck: no_eval\nReason: Pattern 'eval' reappeared after fix (reject_if_persists)\nEdits before rejection: 1\n  - L1: eval → evaluate (no_eval)\n      was: \"Use eval.\"\n      now: \"Use evaluate.\"\nFindings: 1 blocking\n  - [checks] P1 Pattern 'eval' reappeared after fix (no_eval) (L1)\n      Why: Dynamic code\n      Edit: applied at L1: eval → evaluate\nThe fix for 'eval' did not hold: it is still on line 1 of the plan. Dynamic code. A violation that survives its fix cannot be accepted.\nPanel: did not run (no model backend configured); the deterministic checks alone decided.\n"
    );
    assert_eq!(s.read("plan.md"), "Use evaluate.\n");
}

#[test]
fn reject_if_persists_in_json_and_markdown() {
    // The finding, why, and the edit that did not hold, in every format.
    let checks = "checks:\n  - id: no_eval\n    pattern: \"eval\"\n    fix: {action: replace, with: \"evaluate\"}\n    reason: \"Dynamic code\"\n    reject_if_persists: true\n";
    let s = Session::new("Use eval.\n", Some(CONTEXT), Some(checks));
    let o = s.crit(&["plan", "session://s1", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = &v["structured_output"]["findings"][0];
    assert_eq!(f["severity"], "P1");
    assert_eq!(f["title"], "Pattern 'eval' reappeared after fix (no_eval)");
    assert_eq!(f["body"], "Dynamic code");
    assert_eq!(
        f["edits"],
        serde_json::json!([{"applied": true, "line": 1, "fix": "eval → evaluate",
            "before": "Use eval.", "after": "Use evaluate."}])
    );
    let s = Session::new("Use eval.\n", Some(CONTEXT), Some(checks));
    let md = stdout(&s.crit(&["plan", "session://s1", "--format", "markdown"]));
    assert!(md.contains("> Findings: 1 blocking\n"), "{md}");
    assert!(md.contains("Why: Dynamic code\n"), "{md}");
    assert!(
        md.contains("Edit: applied at L1: eval → evaluate\n"),
        "{md}"
    );
    assert!(md.contains("was: \"Use eval.\"\n"), "{md}");
}

#[test]
fn edit_limit_is_incomplete() {
    let mut checks = String::from("checks:\n");
    let mut plan = String::new();
    for i in 0..11 {
        checks.push_str(&format!("  - id: c{i}\n    pattern: \"bad{i}!\"\n    fix: {{action: replace, with: \"ok{i}\"}}\n"));
        plan.push_str(&format!("bad{i}! "));
    }
    let s = Session::new(&plan, Some(CONTEXT), Some(&checks));
    let o = s.crit(&["plan", "session://s1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("INCOMPLETE\nReviewer: Senior security engineer (checks only; no model reviewed the plan)\nReason: edits >= 10\nEdits: 10\nUnresolved: [c10]\n"), "{}", stdout(&o));
}

#[test]
fn errors_in_the_seed_words() {
    // No plan.md
    let s = Session::new("x", Some(CONTEXT), Some(CHECKS));
    fs::remove_file(s.dir().join("plan.md")).unwrap();
    let o = s.crit(&["plan", "session://s1"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        format!(
            "ERROR\nReason: plan.md not found at {}\n",
            s.dir().join("plan.md").display()
        )
    );
    // Empty plan
    let s = Session::new("  \n\n", Some(CONTEXT), Some(CHECKS));
    assert_eq!(
        stdout(&s.crit(&["plan", "session://s1"])),
        "ERROR\nReason: empty plan\n"
    );
    // No checks anywhere
    let s = Session::new("A plan.\n", Some(CONTEXT), None);
    let o = s.crit(&["plan", "session://s1"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stdout(&o),
        "ERROR\nReason: No checks found (no checks.yaml, no CLAUDE.md Anti-Patterns Table, no context.yaml checks)\n"
    );
}

#[test]
fn malformed_files() {
    let s = Session::new(PLAN, Some("reviewer_persona: [unclosed\n"), Some(CHECKS));
    let o = s.crit(&["plan", "session://s1"]);
    assert_eq!(o.status.code(), Some(2));
    let want = format!(
        "ERROR\nReason: {}:1:",
        s.dir().join("context.yaml").display()
    );
    assert!(stdout(&o).starts_with(&want), "{}", stdout(&o));

    let s = Session::new(
        PLAN,
        Some(CONTEXT),
        Some("checks:\n  - id: x\n    pattern: y\n    match_rule: fuzzy\n"),
    );
    let o = s.crit(&["plan", "session://s1", "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["verdict"], "ERROR");
    assert_eq!(v["fatal_error"], true);
    let reason = v["structured_output"]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!("{}:4:", s.dir().join("checks.yaml").display())),
        "{reason}"
    );

    let s = Session::new("Use eval().\n", Some(CONTEXT), Some(CHECKS));
    fs::write(s.dir().join("state.yaml"), "edits: [\n").unwrap();
    let o = s.crit(&["plan", "session://s1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(out.starts_with("APPROVED\n"), "{out}");
    assert!(
        out.contains("Warning: ") && out.contains("state.yaml was reset to the default state"),
        "{out}"
    );
    assert!(s.read("state.yaml").starts_with("edits: 1\n"));
}

#[test]
fn missing_context_is_created_and_the_default_panel_reviews() {
    let s = Session::new("Use eval() here.\n", None, Some(CHECKS));
    let o = s.crit(&["plan", "session://s1"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).starts_with("APPROVED\nReviewer: Senior Technical Reviewer, Claude (checks only; no model reviewed the plan)\n"),
        "{}",
        stdout(&o)
    );
    // No model reviewed: no persona speaks.
    assert!(!stdout(&o).contains("[As "), "{}", stdout(&o));
    // Created naming no one, so AUTO-SELECT may choose once a backend exists.
    assert!(!s.read("context.yaml").contains("reviewer_personas:"));
    assert!(
        s.read("context.yaml")
            .starts_with("# Created by `crit plan`")
    );
    assert!(s.read("state.yaml").starts_with("edits: 1\n"));
}

#[test]
fn both_persona_keys_warn_and_the_panel_wins() {
    let ctx = "reviewer_persona: Solo\nreviewer_personas:\n  - name: Knuth\n    domain: algorithms\n  - name: Claude\n    domain: anti-pattern detection\n";
    let s = Session::new("Clean.\n", Some(ctx), Some(CHECKS));
    let out = stdout(&s.crit(&["plan", "session://s1"]));
    assert!(
        out.starts_with(
            "APPROVED\nReviewer: Knuth, Claude (checks only; no model reviewed the plan)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("Warning: context.yaml has both reviewer_personas and reviewer_persona"),
        "{out}"
    );
}

#[test]
fn plan_file_path_and_its_marker() {
    let s = Session::new("Clean plan.\n", Some(CONTEXT), Some(CHECKS));
    let plans = s.home().join(".claude/plans");
    fs::create_dir_all(&plans).unwrap();
    fs::write(plans.join("my-plan.md"), "Clean.\n").unwrap();
    fs::copy(s.dir().join("checks.yaml"), plans.join("checks.yaml")).unwrap();
    let p = plans.join("my-plan.md");
    assert_eq!(
        s.crit(&["plan", "verify", p.to_str().unwrap()])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        s.crit(&["plan", p.to_str().unwrap()]).status.code(),
        Some(0)
    );
    assert!(plans.join("my-plan.approved").exists());
    assert_eq!(
        s.crit(&["plan", "verify", p.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    // A newer modification time alone changes nothing: the marker holds the
    // plan's hash. An edit of its text makes the approval stale.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(5);
    fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(later)
        .unwrap();
    let o = s.crit(&["plan", "verify", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    fs::write(&p, "Clean, and edited.\n").unwrap();
    let o = s.crit(&["plan", "verify", p.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).starts_with("stale: "), "{}", stdout(&o));
}

#[test]
fn a_second_run_is_locked_out() {
    let s = Session::new(PLAN, Some(CONTEXT), Some(CHECKS));
    let lock = fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(s.dir().join(".crit-plan.lock"))
        .unwrap();
    lock.try_lock().unwrap();
    let o = s.crit(&["plan", "session://s1"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        stdout(&o).starts_with("ERROR\nReason: another `crit plan` run is reviewing"),
        "{}",
        stdout(&o)
    );
    assert_eq!(s.read("plan.md"), PLAN, "nothing was touched");
    drop(lock);
}

#[test]
fn claude_md_table_checks_are_asked_not_fixed() {
    let s = Session::new("We run SELECT * FROM users.\n", Some(CONTEXT), None);
    fs::write(
        s.dir().join("project-claude.md"),
        "## Anti-Patterns Table\n\n| If you write... | STOP because... |\n|-----------------|-----------------|\n| `eval()` | Security risk |\n| `SELECT *` | Performance issue — specify columns explicitly |\n",
    )
    .unwrap();
    let out = stdout(&s.crit(&["plan", "session://s1"]));
    assert!(out.contains("Check: anti_pattern_2 (line 1)\nReview: [Checks for Senior security engineer]: Pattern 'SELECT *' found. Performance issue — specify columns explicitly."), "{out}");
    let o = s.crit(&[
        "plan",
        "session://s1",
        "--answer",
        "anti_pattern_2=We run SELECT id, name FROM users.",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert_eq!(s.read("plan.md"), "We run SELECT id, name FROM users.\n");
}

#[test]
fn usage_errors() {
    let s = Session::new(PLAN, Some(CONTEXT), Some(CHECKS));
    assert_eq!(s.crit(&["plan"]).status.code(), Some(2));
    assert_eq!(
        s.crit(&["plan", "session://s1", "--answer", "noequals"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn a_configured_backend_is_not_claimed_missing() {
    let s = Session::new("Clean.\n", Some(CONTEXT), Some(CHECKS));
    let out = stdout(&s.crit(&["plan", "session://s1", "--provider", "anthropic"]));
    assert!(
        out.contains("Panel: did not run (the backend is misconfigured:")
            && out.ends_with("the deterministic checks alone decided.\n"),
        "{out}"
    );
}
