//! `crit review NAME` end to end: the binary, a real git repository, and
//! crit-testkit's fake Anthropic server. What crit sends is snapshot-tested;
//! what comes back is parsed in both contracts.

use crate::support;

use std::path::Path;

use assert_cmd::Command;
use crit_testkit::{FakeServer, RecordedRequest, Reply, Step};
use serde_json::{Value, json};
use support::review_repo::{findings_answer, repo};
use support::{json_out, write};

fn crit(dir: &Path, server: &FakeServer) -> Command {
    support::crit(dir, server, None)
}

/// The system prompt and user message of a request, with the temp dir's path
/// replaced so snapshots are stable.
fn sent(req: &RecordedRequest, dir: &Path) -> String {
    let system: Vec<String> = req.body["system"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            let cached = if b.get("cache_control").is_some() {
                " [cached]"
            } else {
                ""
            };
            format!(
                "--- system block{cached} ---\n{}",
                b["text"].as_str().unwrap()
            )
        })
        .collect();
    let user = req.body["messages"][0]["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_else(|| {
            req.body["messages"][0]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        });
    let tools: Vec<&str> = req.body["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    let text = format!(
        "model: {}\ntools: {}\n{}\n--- user ---\n{}",
        req.body["model"],
        tools.join(", "),
        system.join("\n"),
        user
    );
    let canonical = dir.canonicalize().unwrap();
    text.replace(&canonical.display().to_string(), "[ROOT]")
        .replace(&dir.display().to_string(), "[ROOT]")
}

#[test]
fn code_review_of_a_range_sends_the_diff_and_only_the_rules_that_apply() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(
        Reply::json(findings_answer()).usage(3000, 200, 0, 0),
    ));
    let out = crit(d, &server)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD~1..HEAD",
            "--json",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(out.status.code(), Some(0), "no gate asked: exit 0");
    assert_eq!(result["verdict"], "FAIL");
    assert_eq!(result["passed"], false);
    assert_eq!(result["parse_error"], Value::Null);
    assert_eq!(result["fatal_error"], false);
    let f = &result["findings"][0];
    assert_eq!(f["location"]["path"], "src/api/users.rs");
    assert_eq!(f["severity"], "P1");
    assert_eq!(f["in_change"], true);
    assert_eq!(f["reviewer"], "code");

    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 1);
    let text = sent(&reqs[0], d);
    assert!(text.contains("Every handler checks the caller's permission first."));
    assert!(
        !text.contains("sentence case"),
        "the docs rule does not apply to src/api"
    );
    assert!(
        text.contains("+     audit(id);"),
        "the diff is in the user message"
    );
    insta::assert_snapshot!("code_review_request", text);

    // The session: its files, and .crit/.gitignore keeping them out of git.
    let session = result["session_log_path"].as_str().unwrap();
    let session = Path::new(session);
    for f in ["session.json", "result.json", "transcript.jsonl"] {
        assert!(
            session.join(f).is_file(),
            "{f} missing in {}",
            session.display()
        );
    }
    assert!(d.join(".crit/.gitignore").is_file());
    let meta = std::fs::read_to_string(session.join("session.json")).unwrap();
    assert!(
        !meta.contains("sk-ant-review-secret"),
        "no secret in the session"
    );
    let audit = std::fs::read_dir(d.join(".state/crit/audit"))
        .unwrap()
        .count();
    assert_eq!(audit, 1);
}

#[test]
fn an_empty_range_passes_without_a_request() {
    let dir = repo();
    let server = FakeServer::start_blocking();
    let out = crit(dir.path(), &server)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD..HEAD",
            "--json",
            "--exit-code",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(result["verdict"], "PASS");
    assert_eq!(result["passed"], true);
    assert_eq!(result["findings"], json!([]));
    assert!(
        server.requests().is_empty(),
        "no model call for an empty diff"
    );
}

#[test]
fn the_gate_fails_on_a_blocking_finding_and_on_an_unreadable_answer() {
    let dir = repo();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(findings_answer())));
    crit(dir.path(), &server)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD~1..HEAD",
            "--exit-code",
            "-q",
        ])
        .assert()
        .code(1);
    // Prose twice (the loop nudges once): UNKNOWN, never a pass.
    server.push(Step::reply(Reply::text("Looks fine.")));
    server.push(Step::reply(Reply::text("Still fine.")));
    let out = crit(dir.path(), &server)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD~1..HEAD",
            "--exit-code",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let result = json_out(&out);
    assert_eq!(result["verdict"], "UNKNOWN");
    assert!(result["parse_error"].as_str().is_some());
    assert!(
        result["session_log_path"].is_null(),
        "--no-log writes no session"
    );
}

#[test]
fn arch_review_sends_both_documents_and_the_docs_rule() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(
        json!({"verdict": "NEEDS_WORK", "summary": "One layering issue.", "findings": [{
        "file_path": "docs/slice.md", "line_start": 3, "line_end": 3, "priority": 2,
        "title": "[P2] The handler bypasses the repository layer",
        "body": "docs/hld.md requires storage through the repository layer."}]}),
    )));
    let out = crit(d, &server)
        .args([
            "review",
            "arch",
            "--verify",
            "off",
            "docs/slice.md",
            "--against",
            "docs/hld.md",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "CONCERNS", "{result}");
    assert_eq!(result["inputs"]["input"], "docs/slice.md");
    let text = sent(&server.model_requests()[0], d);
    assert!(text.contains("docs/slice.md") && text.contains("docs/hld.md"));
    assert!(
        text.contains("sentence case"),
        "the docs rule applies to the documents"
    );
    assert!(!text.contains("permission first"), "the api rule does not");
    insta::assert_snapshot!("arch_review_request", text);
}

#[test]
fn a_project_template_overrides_the_built_in_and_a_seed_template_runs_unchanged() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        ".crit/templates/arch.yaml",
        include_str!("../../crates/crit-review/tests/crit-review/fixtures/seed/arch.yaml"),
    );
    let server = FakeServer::start_blocking();
    // It replaces crit's built-in `arch`: the project's to decide, once.
    crit(d, &server).args(["trust", "--yes"]).assert().success();
    server.push(Step::reply(Reply::json(
        json!({"verdict": "PASS", "summary": "Aligned.", "findings": []}),
    )));
    let out = crit(d, &server)
        .args([
            "review",
            "arch",
            "--verify",
            "off",
            "docs/slice.md",
            "--against",
            "docs/hld.md",
            "--json",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "PASS", "{result}");
    let text = sent(&server.model_requests()[0], d);
    assert!(
        text.contains("**Input document:** docs/slice.md"),
        "the seed's {{input}} placeholder was filled: {text}"
    );
    let list = crit(d, &server).args(["review", "list"]).output().unwrap();
    let list = String::from_utf8(list.stdout).unwrap();
    assert!(
        list.lines()
            .any(|l| l.contains("arch") && l.contains("project")),
        "{list}"
    );
}

#[test]
fn a_panel_runs_its_reviewers_concurrently() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        ".crit/templates/duo.yaml",
        r#"name: duo
description: Two reviewers at once
system_prompt: You review code.
allowed_tools: [Read, Grep]
inputs:
  required:
    - name: target
      description: What to review
prompt_template: "Review {{ target }}."
reviewers:
  - name: security
    system_prompt: You look for security problems.
  - name: api
    system_prompt: You look at API design.
    trigger:
      paths: ["src/api/**"]
  - name: docs
    system_prompt: You look at documentation.
    trigger:
      inputs: [style]
  optional_inputs_note: ignored
"#,
    );
    // `optional_inputs_note` is not a field: the template is listed as not
    // loading, with its position.
    let server = FakeServer::start_blocking();
    let out = crit(d, &server).args(["review", "list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let listed = String::from_utf8(out.stdout).unwrap();
    assert!(listed.contains("duo.yaml:"), "{listed}");

    let fixed = std::fs::read_to_string(d.join(".crit/templates/duo.yaml"))
        .unwrap()
        .replace("  optional_inputs_note: ignored\n", "")
        .replace(
            "inputs:\n  required:\n    - name: target\n      description: What to review\n",
            "inputs:\n  required:\n    - name: target\n      description: What to review\n  optional:\n    - name: style\n      description: A style guide\n",
        );
    write(d, ".crit/templates/duo.yaml", &fixed);
    for _ in 0..2 {
        server.push(Step::reply(
            Reply::json(json!({"verdict": "PASS", "summary": "ok", "findings": []}))
                .delay(std::time::Duration::from_millis(300)),
        ));
    }
    let out = crit(d, &server)
        .args([
            "review",
            "duo",
            "--verify",
            "off",
            "src/api/users.rs",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "PASS", "{result}");
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 2, "security and api run; docs is skipped");
    // Their shared prefix is under the model's cacheable minimum: nothing
    // to read from the prompt cache, so both start at once.
    assert!(
        reqs[0].overlaps(&reqs[1]),
        "the second reviewer waited for a prefix too short to cache"
    );
    // CRIT_PANEL_START=warm-first: the second member starts once the first
    // one's request has been answered, not after its whole review.
    for _ in 0..2 {
        server.push(Step::reply(
            Reply::json(json!({"verdict": "PASS", "summary": "ok", "findings": []}))
                .delay(std::time::Duration::from_millis(300)),
        ));
    }
    let out = crit(d, &server)
        .env("CRIT_PANEL_START", "warm-first")
        .args([
            "review",
            "duo",
            "--verify",
            "off",
            "src/api/users.rs",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    assert_eq!(json_out(&out)["verdict"], "PASS");
    let reqs = &server.model_requests()[2..];
    assert!(
        reqs[1].received_at >= reqs[0].responded_at,
        "warm-first: the second reviewer did not wait for the first answer"
    );
    let docs = result["reviewers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "docs")
        .unwrap();
    assert_eq!(docs["status"], "skipped");
}

#[test]
fn errors_name_what_to_do() {
    let dir = repo();
    let server = FakeServer::start_blocking();
    let out = crit(dir.path(), &server)
        .args(["review", "archh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("arch") && err.contains("code") && err.contains("tasks"),
        "{err}"
    );

    let out = crit(dir.path(), &server)
        .args(["review", "arch", "--verify", "off", "docs/slice.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("against"), "{err}");
    assert!(
        err.contains("crit review arch INPUT --against AGAINST"),
        "{err}"
    );

    let out = crit(dir.path(), &server)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD~1..HEAD",
            "--uncommitted",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));

    let out = crit(dir.path(), &server)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "no-such-branch",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no-such-branch"), "{err}");
    assert!(server.requests().is_empty());
}

#[test]
fn interactive_mode_answers_follow_up_questions_about_the_review() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(findings_answer())));
    server.push(Step::reply(Reply::text(
        "Return `Option<User>` and map None to 404 in the handler.",
    )));
    let out = crit(d, &server)
        .args([
            "review",
            "code",
            "--verify",
            "off",
            "--no-cache",
            "--diff",
            "HEAD~1..HEAD",
            "--interactive",
            "--no-log",
            "--color",
            "never",
        ])
        .write_stdin("How should I fix the first finding?\n\n")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("unwrap on a database read"),
        "the review first: {stdout}"
    );
    assert!(
        stdout.contains("map None to 404"),
        "then the answer: {stdout}"
    );
    let reqs = server.model_requests();
    assert_eq!(
        reqs.len(),
        2,
        "one review, one question; the empty line ends"
    );
    let follow = reqs[1].body["messages"][0].to_string();
    assert!(follow.contains("<your_review>") && follow.contains("unwrap on a database read"));
    assert!(follow.contains("How should I fix the first finding?"));
    let tools = reqs[1].body["tools"].to_string();
    assert!(!tools.contains("StructuredOutput"), "follow-ups are prose");
}

/// A template's `hooks` (Claude Code's shape) run around the reviewer's tools.
#[test]
fn a_template_hook_can_deny_a_tool_call() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        ".crit/templates/guarded.yaml",
        r#"name: guarded
description: Reads nothing under secrets/
system_prompt: You review code.
allowed_tools: [Read]
inputs:
  required:
    - name: target
      description: What to review
prompt_template: "Review {target}."
hooks:
  PreToolUse:
    - matcher: Read
      hooks:
        - type: command
          command: "grep -q secrets/ && { echo 'secrets/ is off limits' >&2; exit 2; } || exit 0"
"#,
    );
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::tool_use(
        "Read",
        json!({"file_path": "secrets/key.txt"}),
    )));
    server.push(Step::reply(Reply::json(
        json!({"verdict": "PASS", "summary": "ok", "findings": []}),
    )));
    crit(d, &server).args(["trust", "--yes"]).assert().success();
    let out = crit(d, &server)
        .args([
            "review", "guarded", "--verify", "off", "src", "--json", "--no-log",
        ])
        .output()
        .unwrap();
    assert_eq!(json_out(&out)["verdict"], "PASS");
    let second = server.model_requests()[1].body["messages"].to_string();
    assert!(second.contains("secrets/ is off limits"), "{second}");
}

#[test]
fn tasks_review_end_to_end() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "docs/tasks.md",
        "# Tasks\n\n1. Add the audit table.\n2. Call audit() from the handler.\n",
    );
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(
        json!({"verdict": "FAIL", "summary": "A success criterion has no task.", "findings": [{
        "file_path": "docs/tasks.md", "line_start": 3, "line_end": 4, "priority": 1,
        "title": "[P1] No task covers the repository-layer criterion",
        "body": "docs/slice.md requires storage through the repository layer; no task adds it."}]}),
    )));
    let out = crit(d, &server)
        .args([
            "review",
            "tasks",
            "--verify",
            "off",
            "docs/tasks.md",
            "--against",
            "docs/slice.md",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "FAIL");
    assert_eq!(result["findings"][0]["location"]["line_start"], 3);
    let text = sent(&server.model_requests()[0], d);
    assert!(
        text.contains("sentence case"),
        "the docs rule applies to docs/tasks.md"
    );
    assert!(!text.contains("permission first"));
    insta::assert_snapshot!("tasks_review_request", text);
}

/// The markdown severity contract (seed 000's format) end to end.
#[test]
fn a_markdown_template_is_read_with_the_markdown_contract() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        ".crit/templates/prose.yaml",
        r#"name: prose
description: Reviews a document in the seed's markdown format
system_prompt: You review documents.
allowed_tools: [Read]
output: markdown
inputs:
  required:
    - name: input
      description: The document
prompt_template: "Review {input}."
"#,
    );
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::text(
        "## Summary\nCONCERNS. The slice contradicts the architecture in one place.\n\n## Findings\n\n\
         ### [CONCERN] The handler reads the database directly\n\
         `docs/slice.md:3` bypasses the repository layer that `docs/hld.md` requires.\n\n\
         ### [PASS] Clear scope\nThe slice says what it leaves out.\n",
    )));
    let out = crit(d, &server)
        .args([
            "review",
            "prose",
            "--verify",
            "off",
            "docs/slice.md",
            "--json",
            "--no-log",
        ])
        .output()
        .unwrap();
    let result = json_out(&out);
    assert_eq!(result["verdict"], "CONCERNS", "{result}");
    let sev: Vec<&str> = result["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["severity"].as_str().unwrap())
        .collect();
    assert!(sev.contains(&"info"), "{sev:?}");
    assert!(result["parse_error"].is_null());
    let req = &server.model_requests()[0];
    assert!(!req.body["tools"].to_string().contains("StructuredOutput"));
    assert!(req.body["system"].to_string().contains("## Summary"));
}
