//! Seed 003 (agent-sdk-reviewer) R1–R7 in crit's terms: the `CodeReviewer`
//! API on both implementations, against crit-testkit's fake server, real
//! temporary git repositories and scripted external reviewer programs.

use crate::support_code;

use std::time::{Duration, Instant};

use crit_core::{FailOn, Location, Severity, Verdict};
use crit_project::scope::FilterMode;
use crit_review::code::{CodeReviewRequest, CodeReviewer, CommandReviewer, DEFAULT_TIMEOUT};
use crit_testkit::{FakeServer, Reply, pid_alive};
use serde_json::json;
use support_code::{
    Repo, agent, code_template, established_to, numbered, options, script, seed_answer,
};

/// A repo whose `main` is the base and HEAD (branch `work`) changes line 5.
fn changed_repo() -> Repo {
    let repo = Repo::new();
    repo.git(&["checkout", "-q", "-b", "work"]);
    repo.write("src/app.py", &numbered(10, &[(5, "x = eval(input())")]));
    repo.commit("read input");
    repo
}

fn range(r: &str) -> CodeReviewRequest {
    CodeReviewRequest {
        diff_range: Some(r.into()),
        ..Default::default()
    }
}

fn finding(path: &str, line: u32, priority: u8, title: &str) -> serde_json::Value {
    json!({"file_path": path, "line_start": line, "line_end": line, "priority": priority,
        "title": title, "body": "Why it matters."})
}

/// An answer whose verdict follows the contract: FAIL for any P0/P1,
/// NEEDS_WORK for P2/P3 only, PASS for none.
fn answer(findings: Vec<serde_json::Value>) -> Reply {
    let worst = findings.iter().filter_map(|f| f["priority"].as_u64()).min();
    let verdict = match worst {
        Some(0 | 1) => "FAIL",
        Some(_) => "NEEDS_WORK",
        None => "PASS",
    };
    Reply::json(json!({"verdict": verdict, "summary": "s", "findings": findings}))
}

// ---- R1: the protocol, and empty changes short-circuit ----

#[tokio::test]
async fn r1_agent_review_of_a_range_returns_the_full_result() {
    let server = FakeServer::start().await;
    server.push(Reply::json(
        json!({"verdict": "FAIL", "summary": "eval", "findings": [
        finding("src/app.py", 5, 0, "[P0] eval of user input")]}),
    ));
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let ctx = repo.path().join("ctx.md");
    std::fs::write(&ctx, "Reads the input.").unwrap();
    let reviewer = agent(&server, &repo, options(state.path()));
    let req = CodeReviewRequest {
        context_file: Some(ctx),
        timeout: Some(Duration::from_secs(300)),
        ..range("main..HEAD")
    };
    let r = reviewer.review(&req).await;
    assert!(!r.passed);
    assert_eq!(r.verdict, Verdict::Fail);
    assert_eq!(r.parse_error, None);
    assert!(!r.fatal_error);
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].path(), Some("src/app.py"));
    let log = r.session_log_path.expect("a session log");
    assert!(std::path::Path::new(&log).is_dir(), "{log}");
    assert_eq!(server.model_requests().len(), 1);
}

#[tokio::test]
async fn r1_agent_empty_range_passes_without_a_request() {
    let server = FakeServer::start().await;
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let r = agent(&server, &repo, options(state.path()))
        .review(&range("HEAD..HEAD"))
        .await;
    assert!(r.passed, "{r:#?}");
    assert_eq!(r.verdict, Verdict::Pass);
    assert!(r.findings.is_empty());
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test]
async fn r1_agent_empty_commits_pass_without_a_request() {
    let server = FakeServer::start().await;
    let repo = changed_repo();
    let empty1 = repo.commit("nothing");
    let empty2 = repo.commit("nothing again");
    let state = tempfile::tempdir().unwrap();
    let req = CodeReviewRequest {
        commit_shas: vec![empty1, empty2],
        ..Default::default()
    };
    let r = agent(&server, &repo, options(state.path()))
        .review(&req)
        .await;
    assert!(r.passed, "{r:#?}");
    assert!(r.findings.is_empty());
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test]
async fn r1_command_empty_changes_never_start_the_program() {
    let repo = changed_repo();
    let empty = repo.commit("nothing");
    let bin = tempfile::tempdir().unwrap();
    let marker = bin.path().join("ran");
    let prog = script(
        bin.path(),
        "review-gate",
        &format!(
            "touch '{}'\necho '{{\"verdict\":\"FAIL\",\"findings\":[]}}'",
            marker.display()
        ),
    );
    let reviewer = CommandReviewer::new(vec![prog.display().to_string()], repo.path().into());
    for req in [
        range("HEAD..HEAD"),
        CodeReviewRequest {
            commit_shas: vec![empty],
            ..Default::default()
        },
    ] {
        let r = reviewer.review(&req).await;
        assert!(r.passed, "{r:#?}");
        assert!(r.findings.is_empty());
    }
    assert!(!marker.exists(), "the program ran for an empty change");
}

// ---- R2: what the reviewers say they are ----

#[tokio::test]
async fn r2_the_agent_reviewer_logs_its_kind_and_the_range() {
    let logs = support_code::Logs::default();
    let _guard = tracing::subscriber::set_default(logs.clone());
    let server = FakeServer::start().await;
    server.push(answer(vec![]));
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let r = agent(&server, &repo, options(state.path()))
        .review(&range("main..HEAD"))
        .await;
    assert!(r.passed, "{r:#?}");
    let lines = logs.lines();
    assert!(
        lines.contains(&"INFO Initializing code reviewer: agent-sdk".to_string()),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"INFO Starting review for main..HEAD with agent-sdk".to_string()),
        "{lines:#?}"
    );
}

// ---- R3: prompt and context ----

#[tokio::test]
async fn r3_the_diff_and_context_go_in_the_user_message_under_the_bundled_prompt() {
    let server = FakeServer::start().await;
    server.push(answer(vec![]));
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let ctx = state.path().join("ctx.md");
    std::fs::write(&ctx, "Closes issue 77: read the config from stdin.").unwrap();
    let req = CodeReviewRequest {
        context_file: Some(ctx),
        ..range("main..HEAD")
    };
    let r = agent(&server, &repo, options(state.path()))
        .review(&req)
        .await;
    assert!(r.passed, "{r:#?}");
    let sent = &server.model_requests()[0];
    let user = sent.body["messages"][0]["content"].to_string();
    // Each line with its new-file number; a removed line has none.
    assert!(
        user.contains("    5 + x = eval(input())"),
        "no diff: {user}"
    );
    assert!(user.contains("      - line 5"), "no diff: {user}");
    assert!(
        user.contains("<commits>") && user.contains(" read input"),
        "no commit subjects: {user}"
    );
    assert!(
        user.contains("Closes issue 77: read the config from stdin."),
        "no context: {user}"
    );

    let t = code_template();
    let inputs = t.resolve_inputs(&Default::default()).unwrap();
    let rendered = t
        .render(&t.panel()[0], &inputs, &Default::default())
        .unwrap();
    // crit's preamble (what is data), then the template's prompt and contract.
    assert_eq!(
        sent.body["system"][0]["text"],
        format!(
            "{}\n\n{}",
            crit_review::PREAMBLE.trim_end(),
            rendered.system
        )
    );
    assert!(
        rendered
            .system
            .starts_with("You are a senior engineer reviewing code")
    );
}

// ---- R4: output normalisation ----

#[tokio::test]
async fn r4_the_seed_answer_becomes_one_p1_finding() {
    // The seed's exact JSON has no `summary`, which the StructuredOutput tool's
    // schema requires; given as text (after one nudge to use the tool) it is
    // read with the contract, where `summary` is optional.
    let server = FakeServer::start().await;
    let text = seed_answer().to_string();
    server.push_all([Reply::text(text.clone()), Reply::text(text)]);
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let r = agent(&server, &repo, options(state.path()))
        .review(&range("main..HEAD"))
        .await;
    assert!(!r.passed);
    assert_eq!(r.parse_error, None);
    assert_eq!(r.findings.len(), 1);
    let f = &r.findings[0];
    assert_eq!(
        f.location,
        Some(Location::File {
            path: "src/main.py".into(),
            line_start: Some(42),
            line_end: Some(42)
        })
    );
    assert_eq!(f.severity, Severity::P1);
    assert_eq!(f.title, "[P1] Issue");
    assert_eq!(f.body, "Details");
    assert_eq!(f.reviewer, "code");
}

#[tokio::test]
async fn r4_agent_unusable_answers_fail_closed_without_a_fatal_error() {
    // Each answer is rejected by the output schema and the model is asked
    // again (up to 3 retries); after that the review fails, not fatally.
    let cases = [
        (
            json!({"verdict": "FAIL", "findings": [{"file_path": "src/app.py", "line_start": 5,
                "line_end": 5, "priority": 1, "body": "no title"}]}),
            "missing field: title",
        ),
        (json!({"findings": []}), "missing field: verdict"),
        (
            json!({"verdict": "MAYBE", "findings": []}),
            "invalid verdict: MAYBE",
        ),
    ];
    let repo = changed_repo();
    for (answer, expected) in cases {
        let server = FakeServer::start().await;
        server.push_all(std::iter::repeat_n(Reply::json(answer), 4));
        let state = tempfile::tempdir().unwrap();
        let r = agent(&server, &repo, options(state.path()))
            .review(&range("main..HEAD"))
            .await;
        assert!(!r.passed, "{expected}");
        assert!(!r.fatal_error, "{expected}");
        assert!(r.parse_error.is_some(), "{expected}");
        assert_eq!(server.model_requests().len(), 4, "{expected}");
    }
}

#[tokio::test]
async fn r4_agent_malformed_json_fails_closed_without_a_fatal_error() {
    let server = FakeServer::start().await;
    server.push_all([
        Reply::text("{\"verdict\": \"FAIL\", \"findings\": ["),
        Reply::text("{\"verdict\": "),
    ]);
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let r = agent(&server, &repo, options(state.path()))
        .review(&range("main..HEAD"))
        .await;
    assert!(!r.passed);
    assert!(!r.fatal_error);
    assert!(r.parse_error.is_some());
}

/// The command reviewer reads its program's output with the seed's contract,
/// and its errors are worded as the seed words them.
#[tokio::test]
async fn r4_command_output_errors_are_worded_as_the_seed() {
    let cases = [
        (
            json!({"verdict": "FAIL", "findings": [{"file_path": "src/app.py", "line_start": 5,
                "line_end": 5, "priority": 1, "body": "no title"}]})
            .to_string(),
            "missing field: title",
        ),
        (
            json!({"findings": []}).to_string(),
            "missing field: verdict",
        ),
        (
            json!({"verdict": "MAYBE", "findings": []}).to_string(),
            "invalid verdict: MAYBE",
        ),
        (
            "{\"verdict\": \"FAIL\", \"findings\": [".to_string(),
            "invalid json: ",
        ),
    ];
    let repo = changed_repo();
    let bin = tempfile::tempdir().unwrap();
    for (i, (out, expected)) in cases.into_iter().enumerate() {
        let file = bin.path().join(format!("out{i}.json"));
        std::fs::write(&file, out).unwrap();
        let prog = script(
            bin.path(),
            &format!("gate{i}"),
            &format!("cat '{}'", file.display()),
        );
        let r = CommandReviewer::new(vec![prog.display().to_string()], repo.path().into())
            .review(&range("main..HEAD"))
            .await;
        assert!(!r.passed, "{expected}");
        assert!(!r.fatal_error, "{expected}");
        let e = r.parse_error.unwrap_or_default();
        assert!(e.starts_with(expected), "{e:?} is not {expected:?}");
    }
}

#[tokio::test]
async fn r4_command_reads_the_exact_seed_answer() {
    let repo = changed_repo();
    let bin = tempfile::tempdir().unwrap();
    let prog = script(
        bin.path(),
        "review-gate",
        &format!("echo '{}'\nexit 1", seed_answer()),
    );
    let r = CommandReviewer::new(vec![prog.display().to_string()], repo.path().into())
        .review(&range("main..HEAD"))
        .await;
    assert!(!r.passed);
    assert_eq!(r.parse_error, None);
    let f = &r.findings[0];
    assert_eq!(f.path(), Some("src/main.py"));
    assert_eq!(
        f.location,
        Some(Location::File {
            path: "src/main.py".into(),
            line_start: Some(42),
            line_end: Some(42)
        })
    );
    assert_eq!(
        (f.severity, f.title.as_str(), f.body.as_str()),
        (Severity::P1, "[P1] Issue", "Details")
    );
}

#[tokio::test]
async fn r4_command_malformed_json_is_invalid_json() {
    let repo = changed_repo();
    let bin = tempfile::tempdir().unwrap();
    let prog = script(bin.path(), "garbage", "echo 'this is not {json'");
    let r = CommandReviewer::new(vec![prog.display().to_string()], repo.path().into())
        .review(&range("main..HEAD"))
        .await;
    assert!(!r.passed);
    assert!(!r.fatal_error);
    let e = r.parse_error.unwrap();
    assert!(e.starts_with("invalid json: "), "{e}");
}

// ---- R5: timeout ----

#[test]
fn r5_the_default_timeout_is_600_seconds() {
    assert_eq!(
        CodeReviewRequest::default().timeout(),
        Duration::from_secs(600)
    );
    assert_eq!(DEFAULT_TIMEOUT, Duration::from_secs(600));
    let set = CodeReviewRequest {
        timeout: Some(Duration::from_secs(42)),
        ..Default::default()
    };
    assert_eq!(set.timeout(), Duration::from_secs(42));
}

#[tokio::test]
async fn r5_a_stalled_stream_times_out_and_the_connection_is_closed() {
    let server = FakeServer::start().await;
    server.push(
        Reply::text("Reading the diff and thinking about it for a long, long time")
            .stall_after_bytes(200, Duration::from_secs(60)),
    );
    let port = server.addr().port();
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let reviewer = agent(&server, &repo, options(state.path()));
    let req = CodeReviewRequest {
        timeout: Some(Duration::from_secs(3)),
        ..range("main..HEAD")
    };
    let started = Instant::now();
    let review = tokio::spawn(async move { reviewer.review(&req).await });
    // While it stalls, the stream is open (so the check below can see one).
    let mut seen_open = false;
    while !seen_open && started.elapsed() < Duration::from_millis(2500) {
        seen_open = established_to(port) > 0;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(seen_open, "no connection to the fake server was seen");
    let r = review.await.unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the stall was waited out"
    );
    assert!(!r.passed);
    assert_eq!(r.parse_error.as_deref(), Some("timeout"));
    assert!(!r.fatal_error);
    assert_eq!(server.model_requests().len(), 1);
    let deadline = Instant::now() + Duration::from_secs(5);
    while established_to(port) > 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(established_to(port), 0, "a connection is left streaming");
}

#[tokio::test]
async fn r5_the_configured_timeout_applies_when_the_request_names_none() {
    let server = FakeServer::start().await;
    server.push(
        Reply::text("Reading the diff and thinking about it for a long, long time")
            .stall_after_bytes(200, Duration::from_secs(60)),
    );
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let mut opts = options(state.path());
    opts.limits.timeout_secs = Some(1);
    let started = Instant::now();
    let r = agent(&server, &repo, opts)
        .review(&range("main..HEAD"))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "600 s was used"
    );
    assert_eq!(r.parse_error.as_deref(), Some("timeout"));
}

// ---- R7 ----

#[test]
fn r7_neither_reviewer_overrides_the_disabled_setting() {
    let server = FakeServer::start_blocking();
    let repo = Repo::new();
    let state = tempfile::tempdir().unwrap();
    let a = agent(&server, &repo, options(state.path()));
    assert!(!a.overrides_disabled_setting());
    assert_eq!(a.kind(), "agent");
    let c = CommandReviewer::new(vec!["review-gate".into()], repo.path().into());
    assert!(!c.overrides_disabled_setting());
    assert_eq!(c.kind(), "command");
}

// ---- the command reviewer with scripted programs ----

#[tokio::test]
async fn command_gets_the_change_in_env_and_placeholders_and_passes() {
    let repo = changed_repo();
    let bin = tempfile::tempdir().unwrap();
    let out = bin.path().join("seen");
    let prog = script(
        bin.path(),
        "review-gate",
        &format!(
            "{{ echo \"args=$*\"; echo \"range=$CRIT_DIFF_RANGE\"; echo \"ctx=$CRIT_CONTEXT_FILE\"; \
             echo \"sid=$CRIT_SESSION_ID\"; echo \"root=$CRIT_PROJECT_ROOT\"; }} > '{}'\n\
             echo '{{\"verdict\":\"PASS\",\"findings\":[]}}'",
            out.display()
        ),
    );
    let ctx = bin.path().join("ctx.md");
    std::fs::write(&ctx, "notes").unwrap();
    let argv = [
        prog.display().to_string(),
        "--range".into(),
        "{diff_range}".into(),
        "--ctx={context_file}".into(),
        "{session_id}".into(),
    ];
    let req = CodeReviewRequest {
        context_file: Some(ctx.clone()),
        session_id: Some("sess-9".into()),
        ..range("main..HEAD")
    };
    let r = CommandReviewer::new(argv.to_vec(), repo.path().into())
        .review(&req)
        .await;
    assert!(r.passed, "{r:#?}");
    assert_eq!(r.verdict, Verdict::Pass);
    assert_eq!(r.reviewers[0].name, "review-gate");
    let seen = std::fs::read_to_string(&out).unwrap();
    let ctx = ctx.display();
    assert!(
        seen.contains(&format!("args=--range main..HEAD --ctx={ctx} sess-9\n")),
        "{seen}"
    );
    assert!(seen.contains("range=main..HEAD\n"), "{seen}");
    assert!(seen.contains(&format!("ctx={ctx}\n")), "{seen}");
    assert!(seen.contains("sid=sess-9\n"), "{seen}");
    assert!(
        seen.contains(&format!("root={}\n", repo.path().display())),
        "{seen}"
    );
}

#[tokio::test]
async fn command_exit_1_with_findings_fails_with_them() {
    let repo = changed_repo();
    let bin = tempfile::tempdir().unwrap();
    let prog = script(
        bin.path(),
        "review-gate",
        &format!("echo '{}'\nexit 1", seed_answer()),
    );
    let r = CommandReviewer::new(vec![prog.display().to_string()], repo.path().into())
        .review(&range("main..HEAD"))
        .await;
    assert!(!r.passed);
    assert_eq!(r.verdict, Verdict::Fail);
    assert_eq!(r.parse_error, None);
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].severity, Severity::P1);
    assert_eq!(r.findings[0].reviewer, "review-gate");
}

#[tokio::test]
async fn command_other_exit_is_an_error_naming_status_and_stderr() {
    let repo = changed_repo();
    let bin = tempfile::tempdir().unwrap();
    let prog = script(
        bin.path(),
        "review-gate",
        "echo '{\"verdict\":\"PASS\",\"findings\":[]}'\necho 'starting' >&2\necho 'no API key configured' >&2\nexit 3",
    );
    let r = CommandReviewer::new(vec![prog.display().to_string()], repo.path().into())
        .review(&range("main..HEAD"))
        .await;
    assert!(
        !r.passed,
        "a PASS printed by a failing program does not count"
    );
    assert_eq!(r.verdict, Verdict::Error);
    let e = r.parse_error.unwrap();
    assert!(e.contains("status 3"), "{e}");
    assert!(e.ends_with("no API key configured"), "{e}");
}

#[tokio::test]
async fn command_that_cannot_start_is_fatal() {
    let repo = changed_repo();
    let r = CommandReviewer::new(vec!["/nonexistent/review-gate".into()], repo.path().into())
        .review(&range("main..HEAD"))
        .await;
    assert!(!r.passed);
    assert!(r.fatal_error);
    assert!(r.parse_error.unwrap().contains("/nonexistent/review-gate"));
}

#[tokio::test]
async fn command_that_hangs_times_out_and_leaves_no_process() {
    let repo = changed_repo();
    let bin = tempfile::tempdir().unwrap();
    let pids = bin.path().join("pids");
    let prog = script(
        bin.path(),
        "review-gate",
        &format!(
            "sleep 60 &\necho $! > '{p}'\necho $$ >> '{p}'\nwait",
            p = pids.display()
        ),
    );
    let req = CodeReviewRequest {
        timeout: Some(Duration::from_secs(1)),
        ..range("main..HEAD")
    };
    let started = Instant::now();
    let r = CommandReviewer::new(vec![prog.display().to_string()], repo.path().into())
        .review(&req)
        .await;
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(!r.passed);
    assert!(!r.fatal_error);
    assert_eq!(r.parse_error.as_deref(), Some("timeout"));
    let pids: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "the script and its child sleep");
    let deadline = Instant::now() + Duration::from_secs(5);
    while pids.iter().any(|p| pid_alive(*p)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for p in pids {
        assert!(!pid_alive(p), "process {p} outlived the timeout");
    }
}

// ---- noise controls ----

/// A finding's id, from a first run, suppressed in `.crit/suppressions.yaml`.
fn suppress(repo: &Repo, fingerprint: &str) {
    repo.write(
        ".crit/suppressions.yaml",
        &format!(
            "suppressions:\n  - fingerprint: {fingerprint}\n    reason: \"eval is on trusted input here\"\n    author: alice\n"
        ),
    );
}

/// Trusts the project's settings as `crit trust` does, in the store under `state`.
fn trust_project(repo: &Repo, state: &std::path::Path) {
    let root = repo.path().canonicalize().unwrap();
    let settings = crit_review::template::trust_survey(&root).settings;
    crit_project::trust::TrustStore::at(state.join("crit/trust.json"))
        .trust(&root, &settings, std::time::SystemTime::now())
        .unwrap();
}

#[tokio::test]
async fn a_suppressed_finding_stays_dismissed_after_its_line_moves() {
    let server = FakeServer::start().await;
    let title = "[P1] eval of user input";
    server.push(answer(vec![finding("src/app.py", 5, 1, title)]));
    server.push(answer(vec![finding("src/app.py", 5, 1, title)]));
    server.push(answer(vec![finding("src/app.py", 8, 1, title)]));
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let reviewer = agent(&server, &repo, options(state.path()));

    let first = reviewer.review(&range("main..HEAD")).await;
    assert!(!first.passed);
    assert_eq!(first.findings.len(), 1);
    assert_eq!(first.findings[0].in_change, Some(true));
    suppress(&repo, &first.findings[0].id);
    // A suppression relaxes the gate: not honoured until the project is trusted.
    let untrusted = reviewer.review(&range("main..HEAD")).await;
    assert!(!untrusted.passed, "{untrusted:#?}");
    assert!(untrusted.dismissed.is_empty());
    trust_project(&repo, state.path());

    // Three lines above it: the finding is now on line 8.
    let mut lines = String::from("import os\nimport sys\n\n");
    lines.push_str(&numbered(10, &[(5, "x = eval(input())")]));
    repo.write("src/app.py", &lines);
    repo.commit("imports");

    let second = reviewer.review(&range("main..HEAD")).await;
    assert!(second.findings.is_empty(), "{:#?}", second.findings);
    assert_eq!(second.dismissed.len(), 1);
    let d = &second.dismissed[0];
    assert_eq!(d.cause, "suppressed");
    assert!(d.reason.contains("alice"), "{}", d.reason);
    assert_eq!(d.finding.id, first.findings[0].id);
    assert_eq!(
        d.finding.location,
        Some(Location::File {
            path: "src/app.py".into(),
            line_start: Some(8),
            line_end: Some(8)
        })
    );
    assert!(second.passed, "{second:#?}");
}

#[tokio::test]
async fn the_command_reviewer_honours_suppressions_too() {
    let repo = changed_repo();
    let bin = tempfile::tempdir().unwrap();
    let prog = script(
        bin.path(),
        "review-gate",
        &format!(
            "echo '{}'\nexit 1",
            json!({"verdict": "FAIL", "findings": [finding("src/app.py", 5, 1, "[P1] eval of user input")]})
        ),
    );
    let reviewer = CommandReviewer::new(vec![prog.display().to_string()], repo.path().into());
    let first = reviewer.review(&range("main..HEAD")).await;
    assert!(!first.passed);
    suppress(&repo, &first.findings[0].id);
    // Left to find the rules itself, the reviewer does not trust the file.
    let untrusted = reviewer.review(&range("main..HEAD")).await;
    assert!(!untrusted.passed, "{untrusted:#?}");
    // A library caller that vouches for the project's files passes them in.
    let rules = crit_project::trust::ProjectRules::trusting(repo.path());
    let allowed = crit_project::suppress::Suppressions::load_with(&rules).unwrap();
    let second = reviewer
        .clone()
        .with_suppressions(allowed)
        .review(&range("main..HEAD"))
        .await;
    assert!(second.findings.is_empty(), "{:#?}", second.findings);
    assert_eq!(second.dismissed[0].cause, "suppressed");
    assert!(second.passed, "{second:#?}");
}

#[tokio::test]
async fn the_added_filter_drops_a_finding_on_an_unchanged_line_after_a_shift() {
    // Run 2 of a shifted file: the finding points at an old line that moved.
    let repo = changed_repo();
    let mut lines = String::from("import os\n");
    lines.push_str(&numbered(10, &[(5, "x = eval(input())")]));
    repo.write("src/app.py", &lines);
    repo.commit("imports");
    let state = tempfile::tempdir().unwrap();
    let unchanged = finding("src/app.py", 10, 1, "[P1] old problem on line 9");
    let changed = finding("src/app.py", 1, 2, "[P2] unused import");
    for (mode, kept) in [(FilterMode::Added, 1), (FilterMode::NoFilter, 2)] {
        let server = FakeServer::start().await;
        server.push(answer(vec![unchanged.clone(), changed.clone()]));
        let mut opts = options(state.path());
        opts.filter = Some(mode);
        let r = agent(&server, &repo, opts)
            .review(&range("HEAD~1..HEAD"))
            .await;
        assert_eq!(r.findings.len(), kept, "{mode}: {:#?}", r.findings);
        if mode == FilterMode::Added {
            assert_eq!(r.findings[0].title, "[P2] unused import");
            assert_eq!(r.dismissed.len(), 1);
            assert_eq!(r.dismissed[0].cause, "outside_change");
            assert_eq!(r.dismissed[0].finding.title, "[P1] old problem on line 9");
            assert!(r.passed, "only the P2 counts: {r:#?}");
        } else {
            assert!(r.dismissed.is_empty());
            assert!(!r.passed);
        }
    }
}

#[tokio::test]
async fn the_cap_keeps_the_most_severe_and_fail_on_p2_blocks_a_p2() {
    let repo = changed_repo();
    let state = tempfile::tempdir().unwrap();
    let findings = vec![
        finding("src/app.py", 5, 3, "[P3] name"),
        finding("src/app.py", 5, 2, "[P2] no test"),
    ];
    let server = FakeServer::start().await;
    server.push(answer(findings.clone()));
    let mut opts = options(state.path());
    opts.max_findings = Some(1);
    let r = agent(&server, &repo, opts)
        .review(&range("main..HEAD"))
        .await;
    assert_eq!(r.findings.len(), 1);
    assert_eq!(r.findings[0].severity, Severity::P2);
    assert_eq!(r.dismissed[0].cause, "over_cap");
    assert!(r.passed, "P2 does not block by default");

    let server = FakeServer::start().await;
    server.push(answer(findings));
    let mut opts = options(state.path());
    opts.fail_on = FailOn::parse("p2").unwrap();
    let r = agent(&server, &repo, opts)
        .review(&range("main..HEAD"))
        .await;
    assert!(!r.passed, "--fail-on p2 blocks a P2");
}
