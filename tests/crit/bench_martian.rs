//! `crit bench` next to the Martian Code Review Bench: its leaderboard
//! arithmetic beside crit's strict scoring, its judge as published, crit's
//! findings exported in its `candidates.json` shape, and cases imported at
//! their recorded base commits.

use std::path::Path;

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

use crate::bench::{G1, bench, case, findings, judge};
use crate::support::{self, json_out};

const G2: (&str, &str) = ("The cursor is never validated", "Low");

/// The corpus both arithmetics are compared on: `alpha`'s first finding is
/// the most confident match of both golden comments, its second matches the
/// first one less confidently; `gamma` has no golden comments.
fn corpus(d: &Path, server: &FakeServer) {
    let corpus = d.join("corpus");
    case(
        &corpus,
        "alpha",
        "page.py",
        "x = 1\n",
        "# MARK-ALPHA\nx = items[-limit:]\n",
        &[G1, G2],
    );
    case(
        &corpus,
        "gamma",
        "n.py",
        "z = 1\n",
        "# MARK-GAMMA\nz = 2\n",
        &[],
    );
    let alpha = ["negative slice of items", "unchecked page size"];
    server.push(Step::when_contains("MARK-ALPHA").reply(findings("page.py", &alpha)));
    server.push(Step::when_contains("MARK-GAMMA").reply(findings("n.py", &["magic", "typo"])));
}

fn counts(s: &Value) -> (u64, u64, u64) {
    let n = |k: &str| s[k].as_u64().unwrap();
    (n("tp"), n("fp"), n("fn"))
}

#[test]
fn martian_scoring_is_reported_beside_the_strict_one_from_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    corpus(d, &server);
    judge(&server, G1, "negative slice of items", true, 0.9);
    judge(&server, G2, "negative slice of items", true, 0.7);
    judge(&server, G1, "unchecked page size", true, 0.8);
    judge(&server, G2, "unchecked page size", false, 0.9);
    let out = bench(d, &server, &["--json", "--scoring", "martian"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let r = json_out(&out);
    let c = &r["configurations"][0];
    let blocks = c["scoring"].as_array().unwrap();
    assert_eq!(blocks.len(), 2);
    assert_eq!(blocks[0]["scoring"], "strict");
    assert_eq!(blocks[1]["scoring"], "martian");
    assert!(blocks[1]["label"].as_str().unwrap().contains("Martian"));
    // Strict: one-to-one keeps both of alpha's pairs; gamma's two findings
    // are false positives.
    assert_eq!(counts(&blocks[0]["overall"]), (2, 2, 0));
    assert_eq!(blocks[0]["overall"], c["overall"]);
    assert_eq!(blocks[0]["cases_scored"], 2);
    // The benchmark's: the first finding is the best match of both golden
    // comments; the second never led, a false positive; gamma is skipped.
    assert_eq!(counts(&blocks[1]["overall"]), (2, 1, 0));
    assert_eq!(blocks[1]["cases_scored"], 1);
    let p = blocks[1]["overall"]["precision"].as_f64().unwrap();
    assert!((p - 2.0 / 3.0).abs() < 1e-12);
    let cases = c["cases"].as_array().unwrap();
    assert_eq!(counts(&cases[0]["martian"]), (2, 1, 0));
    assert!(cases[1]["martian"].is_null());
    // Both in the table, labelled, and explained.
    let server2 = FakeServer::start_blocking();
    corpus(d, &server2);
    let out = bench(d, &server2, &["--scoring", "martian"]);
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        table.contains("strict") && table.contains("martian"),
        "{table}"
    );
    assert!(table.contains("leaderboard's arithmetic"), "{table}");
    // Without the flag: the strict block alone.
    let server3 = FakeServer::start_blocking();
    corpus(d, &server3);
    let r = json_out(&bench(d, &server3, &["--json"]));
    assert_eq!(
        r["configurations"][0]["scoring"].as_array().unwrap().len(),
        1
    );
    assert!(r["configurations"][0]["cases"][0]["martian"].is_null());
}

/// The benchmark judge's answer for the pair whose candidate is `title`'s.
fn martian_judge(server: &FakeServer, golden: &str, title: &str, matched: bool, confidence: f64) {
    let needle = format!("{golden}\n\nCandidate Issue (from the tool's review):\n{title}: ");
    let answer = json!({"reasoning": "r", "match": matched, "confidence": confidence});
    server.push(Step::when_contains(needle).reply(Reply::text(format!("```json\n{answer}\n```"))));
}

fn user_text(body: &Value) -> String {
    let content = &body["messages"][0]["content"];
    match content.as_str() {
        Some(s) => s.to_string(),
        None => content[0]["text"].as_str().unwrap_or_default().to_string(),
    }
}

#[test]
fn the_benchmarks_judge_sends_its_own_prompt_at_temperature_zero() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    corpus(d, &server);
    martian_judge(&server, G1.0, "negative slice of items", true, 0.9);
    martian_judge(&server, G2.0, "negative slice of items", true, 0.7);
    martian_judge(&server, G1.0, "unchecked page size", true, 0.8);
    martian_judge(&server, G2.0, "unchecked page size", false, 0.9);
    let out = bench(
        d,
        &server,
        &[
            "--json",
            "--judge",
            "martian",
            "--judge-model",
            "claude-opus-4-5-20251101",
            "--scoring",
            "martian",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let asked: Vec<_> = server
        .model_requests()
        .into_iter()
        .filter(|r| {
            r.body
                .to_string()
                .contains("You are evaluating AI code review tools")
        })
        .collect();
    assert_eq!(asked.len(), 4);
    for a in &asked {
        assert_eq!(a.body["temperature"], json!(0.0), "{}", a.body);
        assert_eq!(a.body["model"], "claude-opus-4-5-20251101");
        assert_eq!(
            a.body["system"][0]["text"],
            crit_bench::martian::JUDGE_SYSTEM
        );
        assert!(a.body.get("tools").is_none(), "{}", a.body);
        assert!(a.body.get("output_config").is_none(), "{}", a.body);
    }
    // Only the two texts: the golden comment and the candidate.
    let first = asked
        .iter()
        .find(|a| {
            user_text(&a.body).contains("unchecked page size") && user_text(&a.body).contains(G2.0)
        })
        .unwrap();
    assert_eq!(
        user_text(&first.body),
        crit_bench::martian::judge_user(G2.0, "unchecked page size: Because unchecked page size.")
    );
    assert!(!user_text(&first.body).contains("page.py"));
    // The review requests carry no temperature.
    for r in server.model_requests() {
        if r.body.to_string().contains("MARK-ALPHA") {
            assert!(r.body.get("temperature").is_none());
        }
    }
    let r = json_out(&out);
    assert_eq!(r["judge"]["style"], "martian");
    assert!(
        r["judge"]["prompt_version"]
            .as_str()
            .unwrap()
            .starts_with("martian-")
    );
    assert_eq!(
        counts(&r["configurations"][0]["scoring"][1]["overall"]),
        (2, 1, 0)
    );
}

#[test]
fn export_writes_the_benchmarks_candidates_shape() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    corpus(d, &server);
    judge(&server, G1, "negative slice of items", true, 0.9);
    judge(&server, G2, "negative slice of items", true, 0.7);
    judge(&server, G1, "unchecked page size", true, 0.8);
    judge(&server, G2, "unchecked page size", false, 0.9);
    let out = bench(d, &server, &["--json", "--out", "results.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let export = |extra: &[&str]| {
        support::crit(d, &server, None)
            .args([
                "bench",
                "export",
                "corpus",
                "results.json",
                "--format",
                "martian-candidates",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = export(&[]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let file = json_out(&out);
    assert_shape(&file);
    let alpha = &file["https://github.com/o/r/pull/alpha"]["crit"];
    let texts: Vec<&str> = alpha
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "negative slice of items: Because negative slice of items.",
            "unchecked page size: Because unchecked page size."
        ]
    );
    assert_eq!(alpha[0]["path"], "page.py");
    assert_eq!(alpha[0]["line"], 1);
    assert_eq!(alpha[0]["source"], "finding");
    assert_eq!(
        file["https://github.com/o/r/pull/gamma"]["crit"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Through the benchmark's extraction step: its prompt, temperature 0.
    for n in ["negative slice of items", "magic"] {
        server.push(
            Step::when_contains(format!("Code Review Comment:\n{n}")).reply(Reply::text(
                json!({"issues": [format!("{n}, extracted")]}).to_string(),
            )),
        );
    }
    let out = export(&["--extract", "--model", "claude-opus-4-5-20251101"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let file = json_out(&out);
    assert_shape(&file);
    let alpha = &file["https://github.com/o/r/pull/alpha"]["crit"];
    assert_eq!(
        alpha,
        &json!([{"text": "negative slice of items, extracted", "path": null, "line": null, "source": "extracted"}])
    );
    let asked: Vec<_> = server
        .model_requests()
        .into_iter()
        .filter(|r| r.body.to_string().contains("extract individual issues"))
        .collect();
    assert_eq!(asked.len(), 2);
    let text = user_text(&asked[0].body);
    assert!(
        text.contains("\n\n---\n\n"),
        "all comments on the pull request, joined: {text}"
    );
    assert_eq!(asked[0].body["temperature"], json!(0.0));
    // Not a report: the user is told what to pass.
    support::write(d, "bad.json", "{}");
    let out = support::crit(d, &server, None)
        .args([
            "bench",
            "export",
            "corpus",
            "bad.json",
            "--format",
            "martian-candidates",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", support::stderr(&out));
    assert!(support::stderr(&out).contains("--json"));
}

/// `{PR URL: {TOOL: [{text, path, line, source}]}}`, as the benchmark's
/// judge step reads it (`c["text"] for c in candidates if c.get("text")`).
fn assert_shape(file: &Value) {
    let prs = file.as_object().unwrap();
    assert!(!prs.is_empty());
    for (url, tools) in prs {
        assert!(url.starts_with("https://github.com/"), "{url}");
        for (_, list) in tools.as_object().unwrap() {
            for c in list.as_array().unwrap() {
                let keys: Vec<&str> = c.as_object().unwrap().keys().map(String::as_str).collect();
                assert_eq!(keys, ["line", "path", "source", "text"]);
                assert!(!c["text"].as_str().unwrap().is_empty());
                assert!(c["path"].is_string() || c["path"].is_null());
                assert!(c["line"].is_u64() || c["line"].is_null());
                assert!(c["source"].is_string());
            }
        }
    }
}

#[test]
fn import_takes_the_recorded_base_commit_else_says_which_base_it_used() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (base, head) = crate::bench::clone_with_pull_request(&d.join("repos"));
    let later = crate::bench::rev(&d.join("repos/demo-repo"), "main");
    let server = FakeServer::start_blocking();
    let import = |golden: Value, corpus: &str, json: bool| {
        let bench_dir = d.join(format!("bench-{corpus}/golden_comments"));
        std::fs::create_dir_all(&bench_dir).unwrap();
        support::write(&bench_dir, "demo.json", &golden.to_string());
        let mut c = support::crit(d, &server, None);
        c.args(["bench", "import", "martian"])
            .arg(d.join(format!("bench-{corpus}")))
            .args(["--repos", "repos", "--corpus", corpus]);
        if json {
            c.arg("--json");
        }
        c.output().unwrap()
    };
    let pr = |extra: Value| {
        let mut v = json!({"pr_title": "Faster pages", "url": "https://github.com/acme/demo-repo/pull/1",
                           "comments": [{"comment": "negative slice", "severity": "High"}]});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        json!([v])
    };
    // The benchmark forked each pull request at its recorded base commit.
    let out = import(
        pr(json!({"metadata": {"base_sha": later}})),
        "recorded",
        true,
    );
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let done = json_out(&out);
    assert_eq!(done["bases"][0]["from"], "recorded");
    assert_eq!(done["bases"][0]["base"], later.as_str());
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string(d.join("recorded/cases/demo-repo-1/case.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        (
            spec["base"].as_str().unwrap(),
            spec["head"].as_str().unwrap()
        ),
        (later.as_str(), head.as_str())
    );
    // None recorded: where the head leaves the default branch, and it says so.
    let out = import(pr(json!({})), "merged", false);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains(&format!("demo-repo-1: base {}", &base[..12])),
        "{text}"
    );
    assert!(text.contains("records no base commit"), "{text}");
    // A recorded base the clone lacks: what to fetch.
    let out = import(
        pr(json!({"base_sha": "0123456789abcdef0123456789abcdef01234567"})),
        "missing",
        false,
    );
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("recorded base commit 0123456789abcdef"),
        "{text}"
    );
}
