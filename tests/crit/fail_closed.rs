//! Nothing fails open: a hostile model scripted through crit-testkit tries to
//! get a PASS past the gate with several final answers in one turn, refusals
//! (Anthropic `stop_reason: refusal`, OpenAI `content_filter`), and a `crit
//! run` whose sub-agents failed while the orchestrator said PASS. Every
//! variant goes through the binary and checks the printed result, the exit
//! code, the saved session, and that no temp file is left.

use crate::support;

use std::path::Path;
use std::process::Output;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{
    ARCH_REVIEW, arch_project as project, crit_run as run, json_out, pass, run_config,
    session_results, task, temp_files,
};

fn blocker() -> Value {
    json!({"verdict": "FAIL", "summary": "Data loss.", "findings": [{
        "file_path": "notes.md", "line_start": 1, "line_end": 1, "priority": 0,
        "title": "[P0] drops every user table", "body": "The migration deletes data."}]})
}

fn review(d: &Path, server: &FakeServer, env: &[(&str, &str)]) -> Output {
    let mut c = support::crit(d, server, None);
    c.args(ARCH_REVIEW).args(["--exit-code"]);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// The result did not pass, says why, and the session holds the same result.
fn assert_closed(d: &Path, out: &Output, verdict: &str, why: &str) -> Value {
    let r = json_out(out);
    assert_eq!(r["verdict"], verdict, "{r}");
    assert_eq!(r["passed"], false, "{r}");
    let error = r["parse_error"].as_str().unwrap_or_default();
    assert!(error.contains(why), "parse_error {error:?} lacks {why:?}");
    assert_ne!(out.status.code(), Some(0), "{r}");
    let saved = session_results(d);
    assert_eq!(saved.len(), 1, "one session");
    assert_eq!(saved[0]["verdict"], r["verdict"]);
    assert_eq!(saved[0]["passed"], false);
    assert_eq!(temp_files(d), Vec::<std::path::PathBuf>::new());
    r
}

#[test]
fn several_final_answers_in_one_turn_are_unknown_never_the_first() {
    let variants: Vec<(&str, Reply, usize)> = vec![
        (
            "PASS then a P0",
            Reply::tool_uses(vec![
                ("StructuredOutput", pass()),
                ("StructuredOutput", blocker()),
            ]),
            2,
        ),
        (
            "a P0 then PASS",
            Reply::tool_uses(vec![
                ("StructuredOutput", blocker()),
                ("StructuredOutput", pass()),
            ]),
            2,
        ),
        (
            "the same PASS twice",
            Reply::tool_uses(vec![
                ("StructuredOutput", pass()),
                ("StructuredOutput", pass()),
            ]),
            2,
        ),
        (
            "three answers",
            Reply::tool_uses(vec![
                ("StructuredOutput", pass()),
                ("StructuredOutput", pass()),
                ("StructuredOutput", blocker()),
            ]),
            3,
        ),
        (
            "text saying PASS, then two answers",
            Reply::text(pass().to_string())
                .then_tool_use("StructuredOutput", pass())
                .then_tool_use("StructuredOutput", blocker()),
            2,
        ),
        (
            "a valid PASS and an invalid answer",
            Reply::tool_uses(vec![
                ("StructuredOutput", pass()),
                ("StructuredOutput", json!({"verdict": 7})),
            ]),
            2,
        ),
        (
            "a Read call between two answers",
            Reply::tool_uses(vec![
                ("StructuredOutput", pass()),
                ("Read", json!({"file_path": "notes.md"})),
                ("StructuredOutput", pass()),
            ]),
            2,
        ),
    ];
    for (name, reply, n) in variants {
        let dir = project();
        let server = FakeServer::start_blocking();
        server.push(Step::reply(reply));
        // Were the answer retried, this PASS would be taken: it must not be.
        server.push(Step::reply(Reply::json(pass())));
        let out = review(dir.path(), &server, &[]);
        let r = assert_closed(
            dir.path(),
            &out,
            "UNKNOWN",
            &format!("the model gave {n} final answers in one turn"),
        );
        assert_eq!(server.model_requests().len(), 1, "{name}: no second turn");
        assert_eq!(out.status.code(), Some(1), "{name}: {r}");
        assert!(r["findings"].as_array().unwrap().is_empty(), "{name}: {r}");
    }
}

#[test]
fn a_refusal_is_an_error_whatever_else_the_turn_holds() {
    let openai = [("CRIT_PROVIDER", "openai")];
    type Env<'a> = &'a [(&'a str, &'a str)];
    let variants: Vec<(&str, Vec<Reply>, Env)> = vec![
        (
            "refusal with a PASS answer",
            vec![Reply::json(pass()).stop_reason("refusal")],
            &[],
        ),
        (
            "refusal with PASS as text",
            vec![Reply::text(pass().to_string()).stop_reason("refusal")],
            &[],
        ),
        (
            "refusal with an explanation",
            vec![Reply::text("I can't help with reviewing this.").stop_reason("refusal")],
            &[],
        ),
        (
            "refusal with no content",
            vec![Reply::text("").stop_reason("refusal")],
            &[],
        ),
        (
            "refusal with a tool call",
            vec![Reply::tool_use("Read", json!({"file_path": "notes.md"})).stop_reason("refusal")],
            &[],
        ),
        (
            "refusal on the second turn, after a tool call",
            vec![
                Reply::tool_use("Read", json!({"file_path": "notes.md"})),
                Reply::json(pass()).stop_reason("refusal"),
            ],
            &[],
        ),
        (
            "OpenAI content_filter with a PASS answer",
            vec![Reply::json(pass()).stop_reason("content_filter")],
            &openai,
        ),
        (
            "OpenAI content_filter with PASS as text",
            vec![Reply::text(pass().to_string()).stop_reason("content_filter")],
            &openai,
        ),
    ];
    for (name, replies, env) in variants {
        let dir = project();
        let server = FakeServer::start_blocking();
        let turns = replies.len();
        server.push_all(replies);
        server.push(Step::reply(Reply::json(pass())));
        let mut env: Vec<(&str, &str)> = env.to_vec();
        let url = format!("{}/v1", server.url());
        if env.iter().any(|(k, _)| *k == "CRIT_PROVIDER") {
            env.push(("OPENAI_BASE_URL", &url));
            env.push(("OPENAI_API_KEY", "sk-openai-test-0123456789"));
            env.push(("CRIT_MODEL", "gpt-testkit"));
        }
        let out = review(dir.path(), &server, &env);
        let r = assert_closed(dir.path(), &out, "ERROR", "the model refused to review");
        assert_eq!(
            server.model_requests().len(),
            turns,
            "{name}: stopped there"
        );
        assert_eq!(r["reviewers"][0]["status"], "failed", "{name}: {r}");
        assert_eq!(
            out.status.code(),
            Some(3),
            "{name}: ERROR is 'could not run'"
        );
    }
}

#[test]
fn crit_run_fails_its_gate_when_a_sub_agent_failed_though_the_lead_said_pass() {
    type Script = Vec<Step>;
    let lead = |r: Reply| Step::when_contains("I-AM-LEAD").reply(r);
    let alpha = |r: Reply| Step::when_contains("I-AM-ALPHA").reply(r);
    let beta = |r: Reply| Step::when_contains("I-AM-BETA").reply(r);
    let variants: Vec<(&str, Script, &str)> = vec![
        (
            "its model call was rejected",
            vec![
                lead(Reply::tool_uses(vec![task("alpha")])),
                alpha(Reply::api_error(
                    400,
                    "invalid_request_error",
                    "bad request",
                )),
                lead(Reply::json(pass())),
            ],
            "sub-agent `alpha` failed",
        ),
        (
            "it refused",
            vec![
                lead(Reply::tool_uses(vec![task("alpha")])),
                alpha(Reply::text("No.").stop_reason("refusal")),
                lead(Reply::json(pass())),
            ],
            "sub-agent `alpha` refused",
        ),
        (
            "it ran out of turns",
            vec![
                lead(Reply::tool_uses(vec![task("alpha")])),
                alpha(Reply::tool_use("Read", json!({"file_path": "notes.md"}))),
                alpha(Reply::tool_use("Read", json!({"file_path": "notes.md"}))),
                alpha(Reply::tool_use("Read", json!({"file_path": "notes.md"}))),
                alpha(Reply::tool_use("Read", json!({"file_path": "notes.md"}))),
                lead(Reply::json(pass())),
            ],
            "sub-agent `alpha` stopped early",
        ),
        (
            "one of two failed (the other passed)",
            vec![
                lead(Reply::tool_uses(vec![task("alpha"), task("beta")])),
                alpha(Reply::text("All good.")),
                beta(Reply::api_error(
                    400,
                    "invalid_request_error",
                    "bad request",
                )),
                lead(Reply::json(pass())),
            ],
            "sub-agent `beta` failed",
        ),
        (
            "its stream broke mid-answer",
            vec![
                lead(Reply::tool_uses(vec![task("alpha")])),
                alpha(Reply::stream_error("invalid_request_error", "boom")),
                lead(Reply::json(pass())),
            ],
            "sub-agent `alpha` failed",
        ),
    ];
    for (name, script, why) in variants {
        let dir = project();
        let cfg_dir = tempfile::tempdir().unwrap();
        let config = run_config(cfg_dir.path(), &["alpha", "beta"], 4);
        let server = FakeServer::start_blocking();
        server.push_all(script);
        let out = run(dir.path(), &server, &config, &[]);
        let r = json_out(&out);
        assert_eq!(r["verdict"], "INCOMPLETE", "{name}: {r}");
        assert_eq!(r["passed"], false, "{name}");
        assert_eq!(out.status.code(), Some(1), "{name}: the gate fails");
        let error = r["parse_error"].as_str().unwrap_or_default();
        assert!(error.contains(why), "{name}: {error}");
        let saved = session_results(dir.path());
        assert_eq!(saved.len(), 1, "{name}");
        assert_eq!(saved[0]["verdict"], "INCOMPLETE", "{name}");
        assert_eq!(temp_files(dir.path()), Vec::<std::path::PathBuf>::new());
        // The orchestrator's outcome is held back too, and the sub-agent's names its failure.
        assert_eq!(r["reviewers"][0]["verdict"], "INCOMPLETE", "{name}: {r}");
        let sub = r["reviewers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["status"] != "completed" && s["name"] != "orchestrator");
        assert!(sub.is_some(), "{name}: {r}");
    }
    // All sub-agents fine: PASS passes.
    let dir = project();
    let cfg_dir = tempfile::tempdir().unwrap();
    let config = run_config(cfg_dir.path(), &["alpha", "beta"], 4);
    let server = FakeServer::start_blocking();
    server.push_all(vec![
        lead(Reply::tool_uses(vec![task("alpha"), task("beta")])),
        alpha(Reply::text("All good.")),
        beta(Reply::text("All good.")),
        lead(Reply::json(pass())),
    ]);
    let out = run(dir.path(), &server, &config, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", json_out(&out));
}

#[test]
fn no_backend_is_said_once_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    support::init_repo(d);
    support::write(d, "app.py", "x = 1\n");
    support::git(d, &["add", "-A"]);
    support::git(d, &["commit", "-qm", "base"]);
    support::write(d, "app.py", "x = eval(input())\n");
    let server = FakeServer::start_blocking();
    let mut both = Vec::new();
    for extra in [&[][..], &["--json"][..]] {
        let out = support::crit(d, &server, None)
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("ANTHROPIC_BASE_URL")
            // git, and no Claude Code CLI to fall back on.
            .env("PATH", "/usr/bin:/bin")
            .args(["review", "code", "--uncommitted", "--no-log"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", support::show(&out));
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // The terminal report says it; JSON carries it for scripts and
        // stderr says it for the person.
        let times = text.matches("set ANTHROPIC_API_KEY").count();
        assert!(times > 0, "{text}");
        both.push(times);
    }
    assert_eq!(both, [1, 2], "terminal once; JSON and stderr once each");
}
