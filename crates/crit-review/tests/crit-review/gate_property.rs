//! The gate's invariants as a property: over generated changes (text,
//! binary content, secrets beside code) and generated reviewer and verifier
//! answers (any verdict, findings at any path spelling, with quotes that are
//! there or not, refutations with and without proof), a code review passes
//! its gate only if its coverage is complete, and every finding a reviewer
//! reported is either kept at its severity or listed in `dismissed` with
//! the proof of what removed or lowered it.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use crit_core::{FailOn, ReviewResult, Severity};
use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Backend, RetryPolicy, Secret};
use crit_project::scope::Scope;
use crit_review::review::{ReviewOptions, ReviewRequest, run_template};
use crit_review::template::Registry;
use crit_testkit::{FakeServer, Reply, Step};
use proptest::prelude::*;
use serde_json::{Value, json};

const PATHS: [&str; 3] = ["src/a.rs", "src/b.rs", "lib/c.py"];
const CODE: [&str; 6] = [
    "let total = price * quantity;",
    "if user.is_admin() { grant(all); }",
    "query(&format!(\"SELECT * FROM t WHERE id = {}\", id));",
    "return Ok(());",
    "log::info!(\"done\");",
    "let key = load_key()?;",
];

#[derive(Debug, Clone)]
enum Content {
    Text(Vec<usize>),
    Binary(Vec<u8>),
    /// An AWS key and code on one line, then text.
    SecretBesideCode(Vec<usize>),
}

#[derive(Debug, Clone)]
struct GenFinding {
    file: usize,
    /// 0 plain, 1 `a/`, 2 `b/`, 3 `./`, 4 a file that does not exist.
    spelling: u8,
    line: u32,
    priority: u8,
    /// 0 none, 1 a line of the file, 2 text not in it.
    evidence: u8,
    /// 0 confirmed, 1 refuted without proof, 2 refuted quoting a line of
    /// the file, 3 lowered without proof, 4 lowered quoting a line, 5 an
    /// answer that cannot be read.
    verifier: u8,
}

#[derive(Debug, Clone)]
struct Case {
    files: Vec<Content>,
    verdict: u8,
    findings: Vec<GenFinding>,
    allow_partial: bool,
}

fn content() -> impl Strategy<Value = Content> {
    let lines = proptest::collection::vec(0..CODE.len(), 1..5);
    prop_oneof![
        4 => lines.clone().prop_map(Content::Text),
        1 => proptest::collection::vec(any::<u8>(), 64..160).prop_map(Content::Binary),
        1 => lines.prop_map(Content::SecretBesideCode),
    ]
}

fn finding() -> impl Strategy<Value = GenFinding> {
    (0..3usize, 0..5u8, 1..8u32, 0..4u8, 0..3u8, 0..6u8).prop_map(
        |(file, spelling, line, priority, evidence, verifier)| GenFinding {
            file,
            spelling,
            line,
            priority,
            evidence,
            verifier,
        },
    )
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec(content(), 1..4),
        0..3u8,
        proptest::collection::vec(finding(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(files, verdict, findings, allow_partial)| Case {
            files,
            verdict,
            findings,
            allow_partial,
        })
}

fn bytes_of(c: &Content) -> Vec<u8> {
    let text = |ls: &[usize]| {
        ls.iter()
            .map(|i| format!("{}\n", CODE[*i]))
            .collect::<String>()
    };
    match c {
        Content::Text(ls) => text(ls).into_bytes(),
        Content::Binary(b) => b.clone(),
        Content::SecretBesideCode(ls) => {
            format!("let k = \"AKIAZ7Q3RX5TYWPLM2K4\"; run(k);\n{}", text(ls)).into_bytes()
        }
    }
}

fn git(d: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(d)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", d)
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The base: each path with one line; the change: the generated contents.
fn repo(case: &Case) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    git(d, &["init", "-q", "-b", "main"]);
    git(d, &["config", "user.name", "T"]);
    git(d, &["config", "user.email", "t@example.com"]);
    for p in PATHS {
        std::fs::create_dir_all(d.join(p).parent().unwrap()).unwrap();
        std::fs::write(d.join(p), "// base\n").unwrap();
    }
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    for (i, c) in case.files.iter().enumerate() {
        std::fs::write(d.join(PATHS[i]), bytes_of(c)).unwrap();
    }
    git(d, &["commit", "-q", "-am", "change"]);
    dir
}

fn line_of(case: &Case, f: &GenFinding) -> String {
    match case.files.get(f.file) {
        Some(Content::Text(ls)) | Some(Content::SecretBesideCode(ls)) => CODE[ls[0]].to_string(),
        _ => "// base".to_string(),
    }
}

fn path_of(f: &GenFinding) -> String {
    let p = PATHS[f.file];
    match f.spelling {
        1 => format!("a/{p}"),
        2 => format!("b/{p}"),
        3 => format!("./{p}"),
        4 => "src/missing.rs".to_string(),
        _ => p.to_string(),
    }
}

fn answer(case: &Case) -> Value {
    let findings: Vec<Value> = case
        .findings
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let mut v = json!({"file_path": path_of(f), "line_start": f.line, "line_end": f.line,
                "priority": f.priority, "title": format!("F{i} finding"), "body": "Why."});
            match f.evidence {
                1 => v["evidence"] = json!(line_of(case, f)),
                2 => v["evidence"] = json!("this text is in no file"),
                _ => {}
            }
            v
        })
        .collect();
    let verdict = ["PASS", "FAIL", "NEEDS_WORK"][usize::from(case.verdict)];
    json!({"verdict": verdict, "summary": "As generated.", "findings": findings})
}

fn verifier(case: &Case, f: &GenFinding) -> Reply {
    let proof = json!({"file_path": PATHS[f.file], "quote": line_of(case, f)});
    match f.verifier {
        0 => Reply::json(json!({"outcome": "confirmed", "reason": "Real."})),
        1 => Reply::json(json!({"outcome": "refuted", "reason": "Fine."})),
        2 => Reply::json(json!({"outcome": "refuted", "reason": "Fine.", "disproof": proof})),
        3 => Reply::json(json!({"outcome": "downgraded", "priority": 3, "reason": "Minor."})),
        4 => Reply::json(
            json!({"outcome": "downgraded", "priority": 3, "reason": "Minor.", "disproof": proof}),
        ),
        _ => Reply::text("not sure"),
    }
}

fn backend(server: &FakeServer) -> Backend {
    let mut c = AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-ant-test")),
    );
    c.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    Backend {
        model: Arc::new(Anthropic::new(c).unwrap()),
        agent: None,
    }
}

/// The result, and whether a reviewer was asked at all (a change that is
/// only binary content sends nothing, so no finding was reported).
fn review(case: &Case) -> (ReviewResult, bool) {
    let dir = repo(case);
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(answer(case))));
    for _ in 0..3 {
        for (i, f) in case.findings.iter().enumerate() {
            server
                .push(Step::when_contains(format!("title: F{i} finding")).reply(verifier(case, f)));
        }
    }
    let home = d.join(".home");
    let mut opts = ReviewOptions::new("sonnet");
    opts.log = false;
    opts.allow_partial = case.allow_partial;
    opts.fail_on = FailOn::default();
    opts.env = crit_os::Env::new().with("HOME", home.display().to_string());
    let template = Registry::built_in().unwrap().get("code").unwrap().clone();
    let req = ReviewRequest {
        template,
        inputs: Default::default(),
        scope: Some(Scope::Range("HEAD~1..HEAD".into())),
        change: None,
        context_file: None,
        root: d.to_path_buf(),
        cwd: d.to_path_buf(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let r = rt
        .block_on(run_template(&backend(&server), &req, &opts))
        .unwrap();
    let asked = server
        .model_requests()
        .iter()
        .any(|q| !q.body.to_string().contains("The finding to check"));
    (r, asked)
}

fn check(case: &Case, r: &ReviewResult, asked: bool) -> Result<(), TestCaseError> {
    let coverage = r.coverage.as_ref();
    if r.passed && !case.allow_partial {
        let c = coverage.ok_or_else(|| TestCaseError::fail("no coverage"))?;
        prop_assert!(c.complete, "passed with coverage incomplete: {c:?}");
        prop_assert_eq!(c.lines_reviewed + c.lines_cached, c.lines_added);
        prop_assert!(c.left_out.is_empty());
    }
    if r.passed {
        prop_assert!(
            !r.findings.iter().any(|f| f.severity.at_least(Severity::P1)),
            "passed with a blocking finding"
        );
    }
    let sev = |p: u8| Severity::from_priority(u64::from(p)).unwrap();
    if !asked {
        prop_assert!(
            !r.passed || case.allow_partial,
            "passed with no reviewer asked"
        );
        return Ok(());
    }
    for (i, g) in case.findings.iter().enumerate() {
        let title = format!("F{i} finding");
        let reported = sev(g.priority);
        let kept = r.findings.iter().find(|f| f.title.contains(&title));
        let dismissed: Vec<_> = r
            .dismissed
            .iter()
            .filter(|d| d.finding.title.contains(&title))
            .collect();
        match kept {
            Some(f) if f.severity == reported => {}
            Some(f) => {
                // Lowered: listed in `dismissed`, as reported, with its proof.
                prop_assert!(f.severity > reported, "{title} raised?");
                let d = dismissed.iter().find(|d| d.cause == "lowered");
                prop_assert!(
                    d.is_some_and(|d| !d.proof.trim().is_empty() && d.finding.severity == reported),
                    "{title} lowered from {reported:?} to {:?} with no proof in dismissed: {:?}",
                    f.severity,
                    r.dismissed
                );
            }
            None => {
                prop_assert!(
                    dismissed
                        .iter()
                        .any(|d| !d.proof.trim().is_empty() && !d.cause.is_empty()),
                    "{title} removed without proof: {:?}",
                    r.dismissed
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_result_passes_only_with_full_coverage_and_proof_for_every_removal(case in case()) {
        let (r, asked) = review(&case);
        check(&case, &r, asked)?;
    }
}
