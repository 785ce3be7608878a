//! The plan gate fails closed. Approvals are sealed by `crit plan` and
//! recomputed by `crit plan verify` and the PreToolUse hook: a touched,
//! forged or copied marker, a plan or checks edited after the approval, a
//! state.yaml edited outside crit, and plan paths the agent picks outside the
//! plan directories are all refused. Each variant checks the exit code or the
//! hook's decision, and the files afterwards.

use crate::support;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};
use support::temp_files;

const CHECKS: &str = "checks:\n  - id: no_eval\n    pattern: eval\n    reason: Security risk\n";

struct Home {
    tmp: tempfile::TempDir,
}

impl Home {
    fn new() -> Self {
        let h = Home {
            tmp: tempfile::tempdir().unwrap(),
        };
        fs::create_dir_all(h.plans()).unwrap();
        fs::write(h.plans().join("checks.yaml"), CHECKS).unwrap();
        h
    }
    fn path(&self) -> &Path {
        self.tmp.path()
    }
    fn plans(&self) -> PathBuf {
        self.path().join(".claude/plans")
    }
    fn plan(&self, name: &str, text: &str) -> PathBuf {
        let p = self.plans().join(format!("{name}.md"));
        fs::write(&p, text).unwrap();
        p
    }
    fn crit(&self, args: &[&str]) -> Output {
        self.crit_with(args, None)
    }
    fn crit_with(&self, args: &[&str], state_home: Option<&Path>) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_crit"));
        c.args(args)
            .env_clear()
            .env("HOME", self.path())
            .env("PATH", "/nonexistent")
            .stdin(Stdio::null());
        if let Some(s) = state_home {
            c.env("XDG_STATE_HOME", s);
        }
        c.output().unwrap()
    }
    fn approve(&self, plan: &Path) {
        let o = self.crit(&["plan", plan.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        assert!(marker(plan).exists());
    }
    fn verify(&self, plan: &Path) -> Output {
        self.crit(&["plan", "verify", plan.to_str().unwrap()])
    }
    /// The hook's answer to ExitPlanMode; `None` means allowed.
    fn hook(&self, extra: &[&str], tool_input: Value) -> Option<String> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_crit"))
            .args(["hook", "claude-code", "PreToolUse"])
            .args(extra)
            .env_clear()
            .env("HOME", self.path())
            .env("PATH", "/nonexistent")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let event = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/",
            "tool_name": "ExitPlanMode", "tool_input": tool_input, "tool_use_id": "t"});
        child
            .stdin
            .take()
            .unwrap()
            .write_all(event.to_string().as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        if out.trim().is_empty() {
            return None;
        }
        let d: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(d["hookSpecificOutput"]["permissionDecision"], "deny");
        Some(
            d["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    }
    fn key(&self) -> PathBuf {
        self.path().join(".local/state/crit/plan-seal.key")
    }
}

fn marker(plan: &Path) -> PathBuf {
    plan.with_extension("approved")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `crit plan verify` refuses with `why`, and so does the hook.
fn assert_refused(home: &Home, plan: &Path, why: &str) {
    let o = home.verify(plan);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains(why), "verify: {} lacks {why:?}", text(&o));
    let reason = home
        .hook(&["--plan", plan.to_str().unwrap()], json!({}))
        .expect("the hook must deny");
    assert!(reason.contains(why), "hook: {reason} lacks {why:?}");
    assert_eq!(temp_files(home.path()), Vec::<PathBuf>::new());
}

const NOT_CRITS: &str = "was not written by `crit plan`";

#[test]
fn markers_crit_did_not_write_do_not_pass() {
    type Tamper = fn(&Home, &Path);
    let variants: Vec<(&str, bool, Tamper, &str)> = vec![
        (
            "touched",
            false,
            |_, p| fs::write(marker(p), "").unwrap(),
            NOT_CRITS,
        ),
        (
            "garbage",
            false,
            |_, p| fs::write(marker(p), "approved: true\n").unwrap(),
            NOT_CRITS,
        ),
        (
            "forged with the plan's real SHA-256",
            false,
            |_, p| {
                // The attacker can hash the plan; it cannot seal without the key.
                let sha = sha256_of(&fs::read(p).unwrap());
                fs::write(
                    marker(p),
                    format!("plan_sha256: {sha}\nchecks_sha256: {sha}\nseal: {sha}\n"),
                )
                .unwrap();
            },
            NOT_CRITS,
        ),
        (
            "copied from another approved plan",
            false,
            |h, p| {
                let other = h.plan("other", "# Other plan\n");
                h.approve(&other);
                fs::copy(marker(&other), marker(p)).unwrap();
            },
            NOT_CRITS,
        ),
        (
            "copied from an approved plan with the very same text",
            false,
            |h, p| {
                let twin = h.plan("twin", &fs::read_to_string(p).unwrap());
                h.approve(&twin);
                fs::copy(marker(&twin), marker(p)).unwrap();
            },
            NOT_CRITS,
        ),
        (
            "approved under another user's key",
            false,
            |h, p| {
                let other_state = h.path().join("other-state");
                let o = h.crit_with(&["plan", p.to_str().unwrap()], Some(&other_state));
                assert_eq!(o.status.code(), Some(0), "{}", text(&o));
            },
            NOT_CRITS,
        ),
        (
            "a sealed marker with one field edited",
            true,
            |_, p| {
                let m = fs::read_to_string(marker(p)).unwrap();
                let sha = sha256_of(b"# Another plan\n");
                let edited: String = m
                    .lines()
                    .map(|l| match l.strip_prefix("plan_sha256: ") {
                        Some(_) => format!("plan_sha256: {sha}\n"),
                        None => format!("{l}\n"),
                    })
                    .collect();
                fs::write(marker(p), edited).unwrap();
            },
            NOT_CRITS,
        ),
        (
            "the sealing key deleted",
            true,
            |h, _| fs::remove_file(h.key()).unwrap(),
            NOT_CRITS,
        ),
        (
            "the sealing key replaced",
            true,
            |h, _| fs::write(h.key(), "ab".repeat(32)).unwrap(),
            NOT_CRITS,
        ),
        (
            "the plan edited after approval",
            true,
            |_, p| fs::write(p, "# Plan\n\nWe also use eval now.\n").unwrap(),
            "changed after",
        ),
        (
            "the plan edited, its marker touched newer",
            true,
            |_, p| {
                fs::write(p, "# Plan v2\n").unwrap();
                let later = std::time::SystemTime::now() + std::time::Duration::from_secs(60);
                fs::File::options()
                    .write(true)
                    .open(marker(p))
                    .unwrap()
                    .set_modified(later)
                    .unwrap();
            },
            "changed after",
        ),
        (
            "a check added after approval",
            true,
            |h, _| {
                let more =
                    format!("{CHECKS}  - id: no_todo\n    pattern: TODO\n    reason: Finish it\n");
                fs::write(h.plans().join("checks.yaml"), more).unwrap();
            },
            "the checks (or the approvals in state.yaml) changed",
        ),
        (
            "a check's pattern changed after approval",
            true,
            |h, _| {
                fs::write(
                    h.plans().join("checks.yaml"),
                    CHECKS.replace("eval", "exec"),
                )
                .unwrap();
            },
            "the checks (or the approvals in state.yaml) changed",
        ),
        (
            "an approval added to state.yaml by hand",
            true,
            |h, _| {
                let state = h.plans().join("my-plan.state.yaml");
                let s = fs::read_to_string(&state).unwrap();
                fs::write(&state, s.replace("approved: []", "approved:\n  - no_eval")).unwrap();
            },
            "changed outside `crit plan`",
        ),
        (
            "state.yaml rewritten without its seal",
            true,
            |h, _| {
                let state = h.plans().join("my-plan.state.yaml");
                fs::write(
                    &state,
                    "edits: 0\nretries: {}\nhistory: []\napproved:\n  - no_eval\n",
                )
                .unwrap();
            },
            "changed outside `crit plan`",
        ),
    ];
    for (name, approve_first, tamper, why) in variants {
        let home = Home::new();
        let plan = home.plan("my-plan", "# Plan\n\nParse with JSON.parse.\n");
        if approve_first {
            home.approve(&plan);
            assert_eq!(home.verify(&plan).status.code(), Some(0), "{name}");
            assert_eq!(
                home.hook(
                    &["--plan", plan.to_str().unwrap()],
                    json!({"plan": fs::read_to_string(&plan).unwrap()})
                ),
                None,
                "{name}"
            );
        }
        tamper(&home, &plan);
        eprintln!("variant: {name}");
        assert_refused(&home, &plan, why);
    }
}

#[test]
fn a_state_yaml_edited_outside_crit_is_an_error_not_an_approval() {
    // (A state carrying no seal at all, expert-review's own, is untrusted
    // rather than an error: plan_panel_rules has it.)
    type Tamper = fn(&Home, &Path);
    let variants: Vec<(&str, Tamper)> = vec![
        ("an approval appended to crit's sealed state", |h, p| {
            // A first run writes a sealed state (the plan is rejected-pending).
            let o = h.crit(&["plan", p.to_str().unwrap()]);
            assert_ne!(o.status.code(), Some(0), "{}", text(&o));
            let state = h.plans().join("my-plan.state.yaml");
            let s = fs::read_to_string(&state).unwrap();
            assert!(s.contains("# crit-seal: "), "{s}");
            fs::write(&state, s.replace("approved: []", "approved: [no_eval]")).unwrap();
        }),
        ("a sealed state copied from another session", |h, _| {
            let other = h.path().join(".claude/sessions/other");
            fs::create_dir_all(&other).unwrap();
            fs::write(other.join("plan.md"), "Clean plan.\n").unwrap();
            fs::write(other.join("checks.yaml"), CHECKS).unwrap();
            let o = h.crit(&[
                "plan",
                other.to_str().unwrap(),
                "--answer",
                "no_eval=approve",
            ]);
            assert_eq!(o.status.code(), Some(0), "{}", text(&o));
            // The user approves eval there; that sealed state is copied here.
            fs::write(other.join("plan.md"), "We use eval for parsing.\n").unwrap();
            let o = h.crit(&[
                "plan",
                other.to_str().unwrap(),
                "--answer",
                "no_eval=approve",
            ]);
            assert_eq!(o.status.code(), Some(0), "{}", text(&o));
            let s = fs::read_to_string(other.join("state.yaml")).unwrap();
            assert!(s.contains("approved:\n  - no_eval\n# crit-seal: "), "{s}");
            fs::copy(
                other.join("state.yaml"),
                h.plans().join("my-plan.state.yaml"),
            )
            .unwrap();
        }),
        ("the edit count changed by hand", |h, p| {
            let o = h.crit(&["plan", p.to_str().unwrap()]);
            assert_ne!(o.status.code(), Some(0));
            let state = h.plans().join("my-plan.state.yaml");
            let s = fs::read_to_string(&state).unwrap();
            fs::write(&state, s.replacen("edits: 0", "edits: 3", 1)).unwrap();
        }),
    ];
    for (name, tamper) in variants {
        let home = Home::new();
        // eval has no fix: the check asks, and nobody answers.
        let plan = home.plan("my-plan", "# Plan\n\nWe use eval for parsing.\n");
        tamper(&home, &plan);
        let before_plan = fs::read_to_string(&plan).unwrap();
        let before_state = fs::read_to_string(home.plans().join("my-plan.state.yaml")).unwrap();
        let o = home.crit(&["plan", plan.to_str().unwrap()]);
        let out = text(&o);
        assert!(out.starts_with("ERROR\n"), "{name}: {out}");
        assert!(out.contains("changed outside `crit plan`"), "{name}: {out}");
        assert!(
            out.contains("delete it to start this review over"),
            "{name}: {out}"
        );
        assert_ne!(o.status.code(), Some(0), "{name}");
        assert!(!marker(&plan).exists(), "{name}: no approval");
        assert_eq!(fs::read_to_string(&plan).unwrap(), before_plan, "{name}");
        assert_eq!(
            fs::read_to_string(home.plans().join("my-plan.state.yaml")).unwrap(),
            before_state,
            "{name}: the state is left for the user to look at"
        );
        assert_eq!(temp_files(home.path()), Vec::<PathBuf>::new(), "{name}");
        // Deleting it, as the message says, starts over: the check asks again.
        fs::remove_file(home.plans().join("my-plan.state.yaml")).unwrap();
        let o = home.crit(&["plan", plan.to_str().unwrap()]);
        assert!(text(&o).starts_with("QUESTION\n"), "{name}: {}", text(&o));
    }
}

#[test]
fn the_hook_only_takes_plan_files_inside_its_plan_directories() {
    let home = Home::new();
    let inside = home.plan("my-plan", "# Plan\n");
    home.approve(&inside);
    // An approved plan outside the plan directories, which the agent controls.
    let elsewhere = home.path().join("work");
    fs::create_dir_all(&elsewhere).unwrap();
    fs::write(elsewhere.join("checks.yaml"), CHECKS).unwrap();
    let outside = elsewhere.join("decoy.md");
    fs::write(&outside, "# Harmless decoy\n").unwrap();
    home.approve(&outside);
    let link = home.plans().join("link.md");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    fs::copy(marker(&outside), home.plans().join("link.approved")).unwrap();
    let traversal = format!("{}/../../work/decoy.md", home.plans().display());
    let relative = "work/decoy.md".to_string();
    let session = "session://x".to_string();
    let missing = format!("{}/nope.md", home.plans().display());
    let not_md_dir = home.plans().display().to_string();
    let outside_s = outside.display().to_string();
    let link_s = link.display().to_string();
    for (name, path) in [
        ("an approved plan outside", &outside_s),
        ("`..` out of the plan directory", &traversal),
        ("a symlink in the plan directory to a plan outside", &link_s),
        ("a relative path", &relative),
        ("a session URL", &session),
        ("a plan that does not exist", &missing),
        ("the plan directory itself", &not_md_dir),
    ] {
        let reason = home
            .hook(&[], json!({"plan": "# Plan", "planFilePath": path}))
            .unwrap_or_else(|| panic!("{name}: allowed"));
        assert!(
            reason.contains("is not inside the plan directories this hook checks"),
            "{name}: {reason}"
        );
    }
    // The other key spellings are held to the same rule.
    for key in ["plan_file_path", "planFile", "plan_path"] {
        let reason = home.hook(&[], json!({ key: outside_s })).unwrap();
        assert!(reason.contains("is not inside"), "{key}: {reason}");
    }
    // The approved plan inside is allowed by name, with its text.
    let inside_text = fs::read_to_string(&inside).unwrap();
    assert_eq!(
        home.hook(&[], json!({"planFilePath": inside, "plan": inside_text})),
        None
    );
    fs::remove_file(&link).unwrap();
    fs::remove_file(home.plans().join("link.approved")).unwrap();
    // No plan named: never "the newest approved plan", which the agent
    // could make any plan it likes.
    let reason = home.hook(&[], json!({"plan": inside_text})).unwrap();
    assert!(reason.contains("names no plan file"), "{reason}");
    // --plan-dir replaces the default: then only plans there count.
    let custom = elsewhere.display().to_string();
    assert_eq!(
        home.hook(
            &["--plan-dir", &custom],
            json!({"planFilePath": outside_s, "plan": "# Harmless decoy\n"})
        ),
        None
    );
    let reason = home
        .hook(&["--plan-dir", &custom], json!({"planFilePath": inside}))
        .unwrap();
    assert!(reason.contains("is not inside"), "{reason}");
    assert_eq!(temp_files(home.path()), Vec::<PathBuf>::new());
}

/// The agent leaves plan mode with a plan text: it must be the approved
/// file's. An approved harmless plan cannot carry another plan out, however
/// the text differs; line endings and white space at the end do not count.
#[test]
fn the_plan_text_is_the_approved_plans() {
    let home = Home::new();
    let approved = "# Plan\n\nParse with JSON.parse.\n";
    let plan = home.plan("my-plan", approved);
    home.approve(&plan);
    let path = plan.display().to_string();
    let leave = |text: &str| home.hook(&[], json!({"planFilePath": path, "plan": text}));
    assert_eq!(leave(approved), None);
    assert_eq!(leave(approved.trim_end()), None, "trailing white space");
    assert_eq!(
        leave(&approved.replace('\n', "\r\n")),
        None,
        "CRLF line endings"
    );
    for (name, text) in [
        ("another plan", "# Plan\n\nrm -rf ~ once approved.\n"),
        (
            "the approved plan and more",
            "# Plan\n\nParse with JSON.parse.\n\nAlso eval(input).\n",
        ),
        ("a part of it", "# Plan\n"),
        ("empty", ""),
        (
            "different inner white space",
            "# Plan\n\nParse  with JSON.parse.\n",
        ),
    ] {
        let reason = leave(text).unwrap_or_else(|| panic!("{name}: allowed"));
        assert!(
            reason.contains("is not the text of the approved"),
            "{name}: {reason}"
        );
    }
    // No text at all is no better.
    let reason = home.hook(&[], json!({"planFilePath": path})).unwrap();
    assert!(reason.contains("carries no plan text"), "{reason}");
    // --plan binds the text as much as a named file.
    let reason = home
        .hook(&["--plan", &path], json!({"plan": "# Another plan\n"}))
        .unwrap();
    assert!(
        reason.contains("is not the text of the approved"),
        "{reason}"
    );
}

/// SHA-256 by `sha256sum`, as an attacker would compute it.
fn sha256_of(bytes: &[u8]) -> String {
    let mut child = Command::new("sha256sum")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let o = child.wait_with_output().unwrap();
    String::from_utf8(o.stdout).unwrap()[..64].to_string()
}

/// More ways to leave plan mode with another plan than the approved one:
/// each is denied, with the reason.
#[test]
fn plan_substitution_is_denied() {
    let home = Home::new();
    let approved = "# Plan\n\nParse with JSON.parse.\n";
    let other_approved = "# Other plan\n\nRename the module.\n";
    let plan = home.plan("my-plan", approved);
    let other = home.plan("other-plan", other_approved);
    home.approve(&plan);
    home.approve(&other);
    let unapproved = home.plan("draft", "# Draft\n\nDrop the users table.\n");
    let p = plan.display().to_string();
    let o = other.display().to_string();
    let u = unapproved.display().to_string();
    let rows: Vec<(&str, Value, &str)> = vec![
        (
            "no path, the newest approved plan's text",
            json!({"plan": other_approved}),
            "names no plan file",
        ),
        (
            "no path, an unknown text",
            json!({"plan": "# Evil\n"}),
            "names no plan file",
        ),
        (
            "one approved plan's path, another approved plan's text",
            json!({"planFilePath": p, "plan": other_approved}),
            "is not the text of the approved",
        ),
        (
            "an unapproved plan's path, the approved text",
            json!({"planFilePath": u, "plan": approved}),
            "has not been approved",
        ),
        (
            "a zero-width space in the text",
            json!({"planFilePath": p, "plan": "# Plan\n\nParse with JSON.\u{200b}parse.\n"}),
            "is not the text of the approved",
        ),
        (
            "a right-to-left override in the text",
            json!({"planFilePath": p, "plan": "# Plan\n\nParse with \u{202e}JSON.parse.\n"}),
            "is not the text of the approved",
        ),
        (
            "a homoglyph (Cyrillic a)",
            json!({"planFilePath": p, "plan": "# Plan\n\nP\u{0430}rse with JSON.parse.\n"}),
            "is not the text of the approved",
        ),
        (
            "a BOM before the text and more after",
            json!({"planFilePath": p, "plan": "\u{feff}# Plan\n\nParse with JSON.parse.\nThen eval(x).\n"}),
            "is not the text of the approved",
        ),
        (
            "the text as a number",
            json!({"planFilePath": p, "plan": 7}),
            "carries no plan text",
        ),
        (
            "the text as an object",
            json!({"planFilePath": p, "plan": {"text": approved}}),
            "carries no plan text",
        ),
        (
            "a path outside the plan directories",
            json!({"planFilePath": "/etc/hostname", "plan": approved}),
            "is not inside the plan directories",
        ),
        (
            "a traversal out of the plan directory",
            json!({"planFilePath": format!("{}/../../x.md", home.plans().display()), "plan": approved}),
            "is not inside the plan directories",
        ),
    ];
    assert!(rows.len() >= 10);
    for (name, input, why) in rows {
        let reason = home
            .hook(&[], input)
            .unwrap_or_else(|| panic!("{name}: allowed"));
        assert!(reason.contains(why), "{name}: {reason}");
    }
    // Each approved plan with its own text passes.
    assert_eq!(
        home.hook(&[], json!({"planFilePath": p, "plan": approved})),
        None
    );
    assert_eq!(
        home.hook(&[], json!({"planFilePath": o, "plan": other_approved})),
        None
    );
}
