//! `crit prompt` end to end through the binary, against crit-testkit's fake
//! Anthropic server and fake `claude`: the refined prompt on stdout, the block
//! and diff on stderr, `--json`, `--format markdown`, the kill switch, the audit
//! line (and no prompt text in any file crit wrote), and the CI gate over
//! prompt files with SARIF and rdjson.

use crate::support;

use std::path::Path;

use crit_testkit::prompt_review::{
    GUARDRAIL_CHECK, VAGUE, VAGUE_REFINED, critique, finding, no_contradictions, vague_panel, who,
};
use crit_testkit::{FakeClaude, FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{crit, json_out, write};

fn script(server: &FakeServer) {
    for (label, answer) in vague_panel() {
        server
            .push(Step::when_contains(who(label)).reply(Reply::json(answer).usage(700, 120, 0, 0)));
    }
    // The refined prompt held against Security's guardrail: nothing breaks it.
    server.push(
        Step::when_contains(GUARDRAIL_CHECK)
            .reply(Reply::json(no_contradictions()).usage(100, 10, 0, 0)),
    );
}

/// What goes to stdout: the refined prompt, with a final newline.
fn refined() -> String {
    format!("{VAGUE_REFINED}\n")
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "package.json",
        r#"{"name":"obsidian-claude-daily","devDependencies":{"typescript":"5","vitest":"1"}}"#,
    );
    write(dir.path(), "src/settings.ts", "export const x = 1;\n");
    dir
}

/// `crit` in API mode against `server`.
fn prompt_cmd(dir: &Path, server: &FakeServer) -> assert_cmd::Command {
    let mut c = crit(dir, server, None);
    c.env("PROMPT_REVIEW_MODE", "api")
        .env("COLUMNS", "72")
        .arg("prompt");
    c
}

#[test]
fn yes_puts_the_refined_prompt_on_stdout_and_the_block_on_stderr() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    let out = prompt_cmd(dir.path(), &server)
        .args(["--yes", "optimize", "the", "settings", "page"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), refined());
    for want in [
        "+-- Prompt Review ",
        "| Reviewers:",
        "|   Security    ok",
        "| Cost: $",
        "| -- Changes (4) ---",
        "| + [Security] Added: \"Never commit .env or expose ANTHROPIC_API_KEY ",
        "| ~ [Clarity] Replaced \"optimize the settings\" → \"Reduce settings.ts",
        "| -- Refined Prompt ---",
        "--- original\n+++ refined\n",
        "-optimize the settings page\n",
        "+## Guardrails\n",
    ] {
        assert!(stderr.contains(want), "missing {want:?} in:\n{stderr}");
    }
    // No colour when stderr is not a terminal.
    assert!(!stderr.contains('\x1b'));
    // Every line of the block has the same width.
    let widths: Vec<usize> = stderr
        .lines()
        .take_while(|l| !l.starts_with("---"))
        .map(|l| l.chars().count())
        .collect();
    assert!(widths.iter().all(|w| *w == 72), "{widths:?}\n{stderr}");
}

/// The first run with nothing configured: the "no backend" message has a
/// line per way to fix it, and each stays inside the box.
#[test]
fn the_no_backend_box_keeps_every_line_inside_its_border() {
    let dir = project();
    let home = dir.path().join(".home");
    std::fs::create_dir_all(&home).unwrap();
    let out = assert_cmd::Command::cargo_bin("crit")
        .unwrap()
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", &home)
        .env("XDG_STATE_HOME", dir.path().join(".state"))
        .env("COLUMNS", "72")
        .current_dir(dir.path())
        .args(["prompt", "write a function that logs requests"])
        .output()
        .unwrap();
    assert!(out.status.success(), "prompt review fails open");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "write a function that logs requests\n"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let block: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.starts_with("+-- Prompt Review"))
        .collect();
    let end = block
        .iter()
        .skip(1)
        .position(|l| l.starts_with("+--"))
        .unwrap()
        + 2;
    let block = &block[..end];
    assert!(
        block.iter().any(|l| l.contains("ANTHROPIC_API_KEY")),
        "the message is in the box: {stderr}"
    );
    for line in block {
        assert_eq!(line.chars().count(), 72, "{line:?} in\n{stderr}");
        assert!(
            line.starts_with('|') && line.ends_with('|')
                || line.starts_with('+') && line.ends_with('+'),
            "{line:?} in\n{stderr}"
        );
    }
    // Each way to fix it starts a line of its own.
    assert!(
        block.iter().any(|l| l
            .trim_start_matches("| ")
            .trim_start()
            .starts_with("- set ANTHROPIC_API_KEY")),
        "{stderr}"
    );
}

#[test]
fn without_a_terminal_or_yes_the_original_proceeds() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    let out = prompt_cmd(dir.path(), &server)
        .arg("-")
        .write_stdin(VAGUE)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{VAGUE}\n"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not at a terminal"));
}

#[test]
fn json_has_everything() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    let out = prompt_cmd(dir.path(), &server)
        .args(["--json", VAGUE])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_out(&out);
    assert_eq!(v["original"], VAGUE);
    assert_eq!(v["refined"], VAGUE_REFINED);
    assert_eq!(v["status"], "refined");
    assert_eq!(v["outcome"], "reviewed");
    assert!(v["diff"].as_str().unwrap().starts_with("--- original"));
    assert_eq!(v["critiques"].as_array().unwrap().len(), 4);
    assert_eq!(
        v["critiques"][0]["critique"]["findings"][0]["id"],
        "SEC-001"
    );
    assert_eq!(v["changes"].as_array().unwrap().len(), 4);
    assert_eq!(v["changes"][0]["reviewer"], "security");
    assert_eq!(v["changes"][0]["change"]["kind"], "added");
    for key in [
        "deduplicated",
        "dropped",
        "conflicts",
        "disagreements",
        "warnings",
    ] {
        assert!(v[key].is_array(), "{key}");
    }
    let reviewers = v["reviewers"].as_array().unwrap();
    assert_eq!(reviewers.len(), 6);
    assert_eq!(reviewers.iter().filter(|r| r["state"] == "ok").count(), 4);
    let doc = reviewers
        .iter()
        .find(|r| r["name"] == "documentation")
        .unwrap();
    assert_eq!(doc["state"], "not_run");
    // Four reviewers, and the guardrail check.
    assert_eq!(v["usage"]["input_tokens"], 2900);
    assert!(v["cost_usd"].as_f64().unwrap() > 0.0);
    assert!(v["duration_ms"].is_u64());
    assert_eq!(v["mode"], "api");
    assert_eq!(v["project"], "obsidian-claude-daily");
    assert_eq!(v["findings"][0]["severity"], "P1");

    // --yes with --json records the decision.
    script(&server);
    let out = prompt_cmd(dir.path(), &server)
        .args(["--json", "--yes", "--no-cache", VAGUE])
        .output()
        .unwrap();
    let v = json_out(&out);
    assert_eq!(v["outcome"], "approved");
    assert_eq!(v["chosen"], VAGUE_REFINED);
}

#[test]
fn markdown_report() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    let out = prompt_cmd(dir.path(), &server)
        .args(["--format", "markdown", VAGUE])
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.starts_with("## Prompt review\n"), "{md}");
    assert!(md.contains("| Security | ok | 1 |"), "{md}");
    assert!(md.contains("### Changes (4)"), "{md}");
    assert!(md.contains("```diff\n--- original"), "{md}");
    assert!(
        md.contains("### Refined prompt\n\n```text\nReduce settings.ts"),
        "{md}"
    );
}

#[test]
fn the_kill_switch_passes_the_prompt_unreviewed() {
    let server = FakeServer::start_blocking();
    let dir = project();
    let out = prompt_cmd(dir.path(), &server)
        .env("PROMPT_REVIEW_ENABLED", "false")
        .args(["--yes", VAGUE])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{VAGUE}\n"));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("prompt review is off (PROMPT_REVIEW_ENABLED=false)")
    );
    assert!(server.model_requests().is_empty());
    let out = prompt_cmd(dir.path(), &server)
        .env("PROMPT_REVIEW_ENABLED", "maybe")
        .arg(VAGUE)
        .output()
        .unwrap();
    // A bad setting fails open: said, and the prompt proceeds unreviewed.
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("{VAGUE}\n"));
    // The block wraps its lines: read it as one.
    let said = String::from_utf8_lossy(&out.stderr)
        .replace('|', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        said.contains("env PROMPT_REVIEW_ENABLED: `maybe`: expected true or false"),
        "{said}"
    );
}

fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_audit_line_has_the_plugins_fields_and_no_file_holds_the_prompt() {
    let server = FakeServer::start_blocking();
    script(&server);
    let dir = project();
    let before: Vec<_> = files_under(dir.path());
    let marker = "ZQX-MARKER-4d1e";
    let prompt = format!("{VAGUE} {marker}");
    let out = prompt_cmd(dir.path(), &server)
        .env("XDG_CACHE_HOME", dir.path().join(".cache"))
        .args(["--yes", &prompt])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let first = out.stdout.clone();
    assert!(String::from_utf8_lossy(&first).contains(marker));
    let written: Vec<_> = files_under(dir.path())
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    assert!(
        written
            .iter()
            .any(|p| p.starts_with(dir.path().join(".cache"))),
        "nothing cached: {written:?}"
    );
    let audit: Vec<_> = written
        .iter()
        .filter(|p| p.starts_with(dir.path().join(".state")))
        .collect();
    assert_eq!(audit.len(), 1, "{written:?}");
    for p in &written {
        let bytes = std::fs::read(p).unwrap();
        assert!(
            !bytes.windows(marker.len()).any(|w| w == marker.as_bytes()),
            "{} holds the prompt",
            p.display()
        );
        assert!(
            !bytes.windows(8).any(|w| w == b"optimize"),
            "{} holds the prompt",
            p.display()
        );
    }
    let path = audit[0];
    assert!(
        path.to_string_lossy()
            .contains(".state/crit/audit/prompt-review/"),
        "{}",
        path.display()
    );
    let name = path.file_name().unwrap().to_string_lossy();
    assert!(
        name.len() == "2026-02-24.jsonl".len() && name.ends_with(".jsonl"),
        "{name}"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let line: Value = serde_json::from_str(text.trim_end()).unwrap();
    let mut keys: Vec<&str> = line
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    // The plugin's fields, and two of crit's for `crit stats`: findings per
    // severity and the reviewers whose changes were applied.
    assert_eq!(
        keys,
        [
            "conflicts",
            "cost",
            "duration_ms",
            "findings_by_severity",
            "findings_count",
            "mode",
            "original_prompt_hash",
            "outcome",
            "project",
            "reviewers_active",
            "reviewers_applied",
            "severity_max",
            "timestamp",
            "trigger"
        ]
    );
    assert_eq!(line["outcome"], "approved");
    assert_eq!(line["trigger"], "cli");
    assert_eq!(line["mode"], "api");
    assert_eq!(line["project"], "obsidian-claude-daily");
    assert_eq!(line["findings_count"], 4);
    assert_eq!(line["severity_max"], "major");
    assert_eq!(line["conflicts"], 0);
    assert_eq!(
        line["reviewers_active"],
        json!(["security", "testing", "domain_sme", "clarity"])
    );
    assert_eq!(line["original_prompt_hash"].as_str().unwrap().len(), 64);
    assert_eq!(line["cost"]["input_tokens"], 2900);
    let mut cost_keys: Vec<&str> = line["cost"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    cost_keys.sort();
    assert_eq!(cost_keys, ["input_tokens", "output_tokens", "usd"]);

    // The retry is served from the cache: no model call, and still no prompt on disk.
    let out = prompt_cmd(dir.path(), &server)
        .env("XDG_CACHE_HOME", dir.path().join(".cache"))
        .args(["--yes", &prompt])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("Cost: $0.00 (cached review)"));
    assert_eq!(out.stdout, first);
    assert_eq!(
        server.model_requests().len(),
        5,
        "four reviewers and the guardrail check"
    );
    // --no-log writes no audit line.
    let before = files_under(&dir.path().join(".state")).len();
    script(&server);
    prompt_cmd(dir.path(), &server)
        .args(["--no-log", "--no-cache", "--yes", &prompt])
        .assert()
        .success();
    assert_eq!(files_under(&dir.path().join(".state")).len(), before);
    assert_eq!(std::fs::read_to_string(path).unwrap().lines().count(), 2);
}

fn gate_project() -> tempfile::TempDir {
    let dir = project();
    write(
        dir.path(),
        "prompts/fix.md",
        "# Fix\n\nFix the login bug.\nKeep it quick.\n",
    );
    write(
        dir.path(),
        "prompts/deep/deploy.md",
        "Deploy to production.\nUse the admin token from .env.\n",
    );
    write(dir.path(), "notes/skip.md", "not a prompt\n");
    dir
}

fn script_gate(server: &FakeServer) {
    for label in ["Domain SME", "Clarity", "Testing"] {
        let role = if label == "Domain SME" {
            "domain_sme".to_string()
        } else {
            label.to_lowercase()
        };
        for _ in 0..2 {
            server.push(
                Step::when_contains(who(label)).reply(Reply::json(critique(&role, json!([])))),
            );
        }
    }
    server.push(
        Step::when_contains("Use the admin token").reply(Reply::json(critique(
            "security",
            json!([finding(
                "SEC-001",
                "major",
                "Use the admin token from .env.",
                "AddGuardrail",
                "Never print or commit the admin token"
            )]),
        ))),
    );
    server.push(
        Step::when_contains(who("Security")).reply(Reply::json(critique("security", json!([])))),
    );
}

#[test]
fn a_ci_gate_over_prompt_files() {
    let server = FakeServer::start_blocking();
    script_gate(&server);
    let dir = gate_project();
    let out = prompt_cmd(dir.path(), &server)
        .args([
            "--file",
            "prompts/**/*.md",
            "--fail-on",
            "major",
            "--format",
            "sarif",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sarif = json_out(&out);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{sarif:#}");
    let loc = &results[0]["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], "prompts/deep/deploy.md");
    assert_eq!(loc["region"]["startLine"], 2);
    assert_eq!(results[0]["level"], "error");
    assert_eq!(results[0]["ruleId"], "crit/security");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("prompts/deep/deploy.md: 1 finding, worst major"),
        "{stderr}"
    );
    assert!(stderr.contains("prompts/fix.md: 0 findings"), "{stderr}");
    assert_eq!(
        server.model_requests().len(),
        8,
        "notes/skip.md was reviewed"
    );

    // rdjson points at the same place; a blocker threshold lets a major pass.
    script_gate(&server);
    let out = prompt_cmd(dir.path(), &server)
        .args([
            "--file",
            "prompts/**/*.md",
            "--fail-on",
            "blocker",
            "--format",
            "rdjson",
            "--no-cache",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rd = json_out(&out);
    let d = &rd["diagnostics"][0];
    assert_eq!(d["location"]["path"], "prompts/deep/deploy.md");
    assert_eq!(d["location"]["range"]["start"]["line"], 2);
}

#[test]
fn a_gate_that_could_not_run_is_an_error_not_a_pass() {
    let server = FakeServer::start_blocking();
    let dir = gate_project();
    let out = prompt_cmd(dir.path(), &server)
        .args(["--file", "prompts/fix.md", "--fail-on", "major", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_out(&out);
    assert_eq!(v["verdict"], "ERROR");
    assert_eq!(v["passed"], false);
    let out = prompt_cmd(dir.path(), &server)
        .args(["--file", "nothing/**/*.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--file nothing/**/*.md: no file matches")
    );
}

/// A fake `claude` that answers each reviewer by its system prompt.
fn fake_claude(dir: &Path) -> std::path::PathBuf {
    let mut fake =
        FakeClaude::new().emit_result(FakeClaude::success_result("no structured output"));
    for (label, answer) in vague_panel() {
        fake = fake.when_args_contain(
            who(label),
            FakeClaude::new()
                .emit_init()
                .emit_result(FakeClaude::structured_result(answer)),
        );
    }
    fake = fake.when_args_contain(
        GUARDRAIL_CHECK,
        FakeClaude::new()
            .emit_init()
            .emit_result(FakeClaude::structured_result(no_contradictions())),
    );
    fake.write(dir)
}

#[test]
fn subscription_mode_runs_the_reviewers_on_claude_code() {
    let server = FakeServer::start_blocking();
    let dir = project();
    let bin_dir = tempfile::tempdir().unwrap();
    fake_claude(bin_dir.path());
    let out = crit(dir.path(), &server, Some(bin_dir.path()))
        .env_remove("ANTHROPIC_API_KEY")
        .args(["prompt", "--yes", VAGUE])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), refined());
    assert!(stderr.contains("Cost: $0.00 (subscription;"), "{stderr}");
    let calls = FakeClaude::invocations(bin_dir.path());
    assert_eq!(calls.len(), 5, "four reviewers and the guardrail check");
    assert!(
        !stderr.contains("not checked against the security guardrails"),
        "{stderr}"
    );
    let reviewers = calls
        .iter()
        .filter(|c| !c.argv.iter().any(|a| a.contains(GUARDRAIL_CHECK)));
    assert_eq!(reviewers.clone().count(), 4);
    for c in reviewers {
        assert_eq!(c.arg_value("--model"), Some("claude-haiku-4-5"));
        assert_eq!(c.arg_value("--tools"), Some(""));
        let schema: Value = serde_json::from_str(c.arg_value("--json-schema").unwrap()).unwrap();
        assert!(schema.get("$schema").is_none());
        assert!(c.stdin.contains(VAGUE), "the prompt goes on stdin");
        assert!(
            !c.argv.iter().any(|a| a.contains(VAGUE)),
            "the prompt is never on the command line"
        );
        assert_eq!(c.env.get("ANTHROPIC_API_KEY"), None);
    }
    assert!(server.model_requests().is_empty());
}

#[test]
fn api_mode_without_a_key_falls_back_to_subscription() {
    let server = FakeServer::start_blocking();
    let dir = project();
    let bin_dir = tempfile::tempdir().unwrap();
    fake_claude(bin_dir.path());
    let out = crit(dir.path(), &server, Some(bin_dir.path()))
        .env_remove("ANTHROPIC_API_KEY")
        .env("PROMPT_REVIEW_MODE", "api")
        .args(["prompt", "--json", VAGUE])
        .output()
        .unwrap();
    let v = json_out(&out);
    assert_eq!(v["mode"], "subscription");
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("api mode is unavailable"),
        "{v:#}"
    );
    assert_eq!(v["status"], "refined");
}
