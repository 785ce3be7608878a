//! `crit bench`, end to end: hand-made corpora of real git repositories,
//! crit-testkit playing both the reviewer (routed by the case's code, or by
//! the configuration's model) and the judge (routed by the pair's text), and
//! the scores, the matching, INCOMPLETE cases, parallel cases, configurations
//! side by side, the import of the public benchmark's files. `bench mine` is in
//! `bench_mine.rs`.

use std::path::{Path, PathBuf};

use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

use crate::support::{self, git, init_repo, json_out, write};

/// `git rev-parse REV` in `dir`.
pub(crate) fn rev(dir: &Path, rev: &str) -> String {
    let out = std::process::Command::new("git")
        .args(["rev-parse", rev])
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A case: a repository whose head commit changes `file` from `base` to
/// `head`, and its golden comments as (comment, severity).
pub(crate) fn case(
    corpus: &Path,
    name: &str,
    file: &str,
    base: &str,
    head: &str,
    golden: &[(&str, &str)],
) {
    let dir = corpus.join("cases").join(name);
    let repo = dir.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    init_repo(&repo);
    write(&repo, file, base);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "base"]);
    write(&repo, file, head);
    git(&repo, &["commit", "-q", "-am", "the change"]);
    let comments: Vec<Value> = golden
        .iter()
        .map(|(c, s)| json!({"comment": c, "severity": s}))
        .collect();
    write(
        &dir,
        "case.json",
        &json!({"base": rev(&repo, "HEAD~1"), "head": rev(&repo, "HEAD"), "language": "python"})
            .to_string(),
    );
    write(
        &dir,
        "golden.json",
        &json!({"pr_title": format!("PR {name}"), "url": format!("https://github.com/o/r/pull/{name}"), "comments": comments}).to_string(),
    );
}

/// A reviewer's answer with P2 findings (titles) in `file`, one line each.
pub(crate) fn findings(file: &str, titles: &[&str]) -> Reply {
    let f: Vec<Value> = titles
        .iter()
        .enumerate()
        .map(|(i, t)| {
            json!({"file_path": file, "line_start": i + 1, "line_end": i + 1, "priority": 2,
                   "title": t, "body": format!("Because {t}.")})
        })
        .collect();
    let verdict = if f.is_empty() { "PASS" } else { "NEEDS_WORK" };
    Reply::json(json!({"verdict": verdict, "summary": "s", "findings": f}))
}

/// The judge's step for one pair, found by the pair's text as the judge's
/// message lays it out.
pub(crate) fn judge(
    server: &FakeServer,
    golden: (&str, &str),
    title: &str,
    matched: bool,
    confidence: f64,
) {
    let needle = format!(
        "{}\n(severity: {})\n</golden_comment>\n\n<tool_comment>\n{title}\n",
        golden.0, golden.1
    );
    server.push(Step::when_contains(needle).reply(Reply::json(json!({
        "reasoning": format!("{title} against {}", golden.0),
        "match": matched,
        "confidence": confidence
    }))));
}

pub(crate) fn bench(dir: &Path, server: &FakeServer, args: &[&str]) -> std::process::Output {
    support::crit(dir, server, None)
        .args(["bench", "corpus"])
        .args(args)
        .output()
        .unwrap()
}

pub(crate) fn judge_requests(server: &FakeServer) -> Vec<crit_testkit::RecordedRequest> {
    server
        .model_requests()
        .into_iter()
        .filter(|r| r.body.to_string().contains("same underlying issue"))
        .collect()
}

pub(crate) fn f(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

pub(crate) const G1: (&str, &str) = ("A negative limit slices from the end", "High");
const G2: (&str, &str) = ("The cursor is never validated", "Low");
const G3: (&str, &str) = ("The retry loop never ends", "Medium");

#[test]
fn scores_a_corpus_with_one_to_one_matching_and_empty_sides() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
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
        "beta",
        "retry.py",
        "y = 1\n",
        "# MARK-BETA\nwhile True: pass\n",
        &[G3],
    );
    case(
        &corpus,
        "gamma",
        "noop.py",
        "z = 1\n",
        "# MARK-GAMMA\nz = 2\n",
        &[],
    );
    let server = FakeServer::start_blocking();
    let reviewers = || {
        let alpha = [
            "negative slice of items",
            "unchecked page size",
            "stray comment",
        ];
        server.push(Step::when_contains("MARK-ALPHA").reply(findings("page.py", &alpha)));
        server.push(Step::when_contains("MARK-BETA").reply(findings("retry.py", &[])));
        server
            .push(Step::when_contains("MARK-GAMMA").reply(findings("noop.py", &["magic number"])));
    };
    reviewers();
    // The first finding matches both comments, most confidently the first;
    // the second matches the first only. One-to-one keeps both pairs.
    judge(&server, G1, "negative slice of items", true, 0.9);
    judge(&server, G2, "negative slice of items", true, 0.7);
    judge(&server, G1, "unchecked page size", true, 0.8);
    judge(&server, G2, "unchecked page size", false, 0.9);
    judge(&server, G1, "stray comment", false, 0.95);
    judge(&server, G2, "stray comment", false, 0.95);
    let out = bench(d, &server, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let r = json_out(&out);
    assert_eq!(r["schema_version"], 1);
    assert_eq!(r["cases"], 3);
    // The judge: one request per pair, on the strongest model compared.
    let asked = judge_requests(&server);
    assert_eq!(asked.len(), 6);
    for a in &asked {
        assert_eq!(a.body["model"], "claude-sonnet-5-5");
    }
    assert_eq!(r["judge"]["model"], "claude-sonnet-5-5");
    assert!(r["judge"]["source"].as_str().unwrap().contains("strongest"));
    let c = &r["configurations"][0];
    assert_eq!(c["name"], "default");
    let cases = c["cases"].as_array().unwrap();
    let by_name = |n: &str| cases.iter().find(|x| x["name"] == n).unwrap().clone();
    let alpha = by_name("alpha");
    assert_eq!(alpha["status"], "COMPLETE");
    assert_eq!(
        (
            alpha["score"]["tp"].clone(),
            alpha["score"]["fp"].clone(),
            alpha["score"]["fn"].clone()
        ),
        (json!(2), json!(1), json!(0))
    );
    let pairs: Vec<(u64, f64)> = alpha["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["golden"].as_u64().unwrap(), f(&m["confidence"])))
        .collect();
    assert_eq!(pairs, vec![(0, 0.8), (1, 0.7)]);
    assert_eq!(alpha["judge"]["pairs"], 6);
    // No findings: precision undefined, recall and F1 zero.
    let beta = by_name("beta");
    assert_eq!(beta["findings"], 0);
    assert_eq!(beta["score"]["fn"], 1);
    assert!(beta["score"]["precision"].is_null());
    assert_eq!(
        (f(&beta["score"]["recall"]), f(&beta["score"]["f1"])),
        (0.0, 0.0)
    );
    // No golden comments: recall undefined.
    let gamma = by_name("gamma");
    assert_eq!(gamma["score"]["fp"], 1);
    assert!(gamma["score"]["recall"].is_null());
    assert_eq!(f(&gamma["score"]["precision"]), 0.0);
    // Overall: tp 2, fp 2, fn 1.
    let o = &c["overall"];
    assert_eq!(
        (o["tp"].clone(), o["fp"].clone(), o["fn"].clone()),
        (json!(2), json!(2), json!(1))
    );
    assert!((f(&o["precision"]) - 0.5).abs() < 1e-9);
    assert!((f(&o["recall"]) - 2.0 / 3.0).abs() < 1e-9);
    assert!((f(&o["f1"]) - 4.0 / 7.0).abs() < 1e-9);
    // Per severity: matches at the golden comment's, misses too; a false
    // positive at the finding's (P2 is medium).
    let sev: Vec<(String, u64, u64, u64)> = c["by_severity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["severity"].as_str().unwrap().to_string(),
                s["tp"].as_u64().unwrap(),
                s["fp"].as_u64().unwrap(),
                s["fn"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        sev,
        vec![
            ("high".into(), 1, 0, 0),
            ("medium".into(), 0, 2, 1),
            ("low".into(), 1, 0, 0)
        ]
    );
    assert_eq!(c["cases_complete"], 3);
    assert!(c["review"]["usage"]["input_tokens"].as_u64().unwrap() > 0);
    assert!(c["judge"]["cost_usd"].as_f64().is_some());
    // For people: the same numbers in a table, the judge's answers now cached.
    reviewers();
    let out = bench(d, &server, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(
        judge_requests(&server).len(),
        6,
        "answers come from the cache"
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("configuration  model"), "{text}");
    assert!(
        text.contains("default        claude-sonnet-5-5  0.50       0.67    0.57  2   2   1   3/3"),
        "{text}"
    );
    assert!(
        text.contains("alpha  complete  2       3         0.67"),
        "{text}"
    );
}

#[test]
fn a_judge_failure_makes_its_case_incomplete_never_a_match_or_a_miss() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = d.join("corpus");
    case(
        &corpus,
        "one",
        "a.py",
        "a = 1\n",
        "# MARK-ONE\na = 2\n",
        &[G1],
    );
    case(
        &corpus,
        "two",
        "b.py",
        "b = 1\n",
        "# MARK-TWO\nb = 2\n",
        &[G3],
    );
    let server = FakeServer::start_blocking();
    server.push(Step::when_contains("MARK-ONE").reply(findings("a.py", &["first", "second"])));
    server.push(Step::when_contains("MARK-TWO").reply(findings("b.py", &["endless retry"])));
    judge(&server, G1, "first", true, 0.9);
    // No answer for (G1, "second"): the fake server fails that request.
    judge(&server, G3, "endless retry", true, 0.8);
    let out = bench(d, &server, &["--json"]);
    assert_eq!(out.status.code(), Some(3), "{}", support::stderr(&out));
    let r = json_out(&out);
    let c = &r["configurations"][0];
    let one = &c["cases"][0];
    assert_eq!(one["status"], "INCOMPLETE");
    assert!(one["score"].is_null());
    assert_eq!(one["judge"]["failed"], 1);
    assert!(
        one["reason"]
            .as_str()
            .unwrap()
            .contains("judge could not decide 1 of 2"),
        "{one}"
    );
    assert_eq!(c["cases"][1]["status"], "COMPLETE");
    // Only the complete case is scored.
    assert_eq!(
        (
            c["overall"]["tp"].clone(),
            c["overall"]["fp"].clone(),
            c["overall"]["fn"].clone()
        ),
        (json!(1), json!(0), json!(0))
    );
    assert_eq!(
        (c["cases_complete"].clone(), c["cases_incomplete"].clone()),
        (json!(1), json!(1))
    );
    assert!(
        support::stderr(&out).contains("one: INCOMPLETE"),
        "{}",
        support::stderr(&out)
    );
    // A failed judgement is not cached: a second run asks again.
    let before = judge_requests(&server).len();
    server.push(Step::when_contains("MARK-ONE").reply(findings("a.py", &["first", "second"])));
    server.push(Step::when_contains("MARK-TWO").reply(findings("b.py", &["endless retry"])));
    judge(&server, G1, "second", false, 0.6);
    let out = bench(d, &server, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(judge_requests(&server).len(), before + 1);
    let c = &json_out(&out)["configurations"][0];
    assert_eq!(
        (c["overall"]["tp"].clone(), c["overall"]["fp"].clone()),
        (json!(2), json!(1))
    );
}

#[test]
fn cases_run_in_parallel_within_the_bound() {
    let overlapping = |jobs: &str| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let corpus = d.join("corpus");
        for n in ["p1", "p2", "p3"] {
            let marker = format!("# MARK-{n}\nv = 2\n");
            case(&corpus, n, "v.py", "v = 1\n", &marker, &[]);
        }
        let server = FakeServer::start_blocking();
        for n in ["p1", "p2", "p3"] {
            server.push(
                Step::when_contains(format!("MARK-{n}"))
                    .reply(findings("v.py", &[]).delay(std::time::Duration::from_millis(400))),
            );
        }
        let out = bench(d, &server, &["--json", "--jobs", jobs]);
        assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
        let reqs = server.model_requests();
        assert_eq!(reqs.len(), 3);
        let mut most = 0;
        for a in &reqs {
            most = most.max(reqs.iter().filter(|b| a.overlaps(b)).count());
        }
        most
    };
    // Each request overlaps itself: 3 means all at once, 1 none.
    assert_eq!(overlapping("3"), 3);
    assert_eq!(overlapping("1"), 1);
}

#[test]
fn two_configurations_side_by_side_share_the_judge_and_its_cache() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = d.join("corpus");
    case(
        &corpus,
        "solo",
        "s.py",
        "s = 1\n",
        "# MARK-SOLO\ns = items[-n:]\n",
        &[G1],
    );
    write(d, "fast.yaml", "model: haiku\nverify: off\n");
    write(
        d,
        "careful.yaml",
        "name: careful\nmodel: sonnet\nconsensus: majority\nfilter: nofilter\n",
    );
    let server = FakeServer::start_blocking();
    // The judge's answers first: its requests name a model too.
    judge(&server, G1, "negative slice", true, 0.9);
    judge(&server, G1, "style nit", false, 0.9);
    server
        .push(Step::when_contains("claude-haiku-5-5").reply(findings("s.py", &["negative slice"])));
    server.push(
        Step::when_contains("claude-sonnet-5-5")
            .reply(findings("s.py", &["negative slice", "style nit"])),
    );
    let out = bench(
        d,
        &server,
        &[
            "--json",
            "--config",
            "fast.yaml",
            "--config",
            "careful.yaml",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let r = json_out(&out);
    assert_eq!(
        r["judge"]["model"], "claude-sonnet-5-5",
        "the stronger of the two"
    );
    let (a, b) = (&r["configurations"][0], &r["configurations"][1]);
    assert_eq!(
        (a["name"].clone(), b["name"].clone()),
        (json!("fast"), json!("careful"))
    );
    assert_eq!(a["settings"]["model"], "claude-haiku-5-5");
    assert_eq!(a["settings"]["verify"], "off");
    assert_eq!(b["settings"]["consensus"], "majority");
    assert_eq!(b["settings"]["filter"], "nofilter");
    assert_eq!(
        (a["overall"]["tp"].clone(), a["overall"]["fp"].clone()),
        (json!(1), json!(0))
    );
    assert_eq!(
        (b["overall"]["tp"].clone(), b["overall"]["fp"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(f(&a["overall"]["precision"]), 1.0);
    assert_eq!(f(&b["overall"]["precision"]), 0.5);
    // The pair both share was judged once.
    assert_eq!(judge_requests(&server).len(), 2);
    assert_eq!(b["judge"]["cached"], 1);
    let cache = d.join(".home/.cache/crit/bench-judge");
    let entries: Vec<PathBuf> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 2);
    use std::os::unix::fs::PermissionsExt;
    for e in entries {
        assert_eq!(
            std::fs::metadata(&e).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let bytes = std::fs::read(&e).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("negative"),
            "sealed"
        );
    }
    // A judge named on the command line wins.
    server.push(Step::when_contains("claude-haiku-5-5").reply(findings("s.py", &[])));
    let out = bench(
        d,
        &server,
        &["--json", "--config", "fast.yaml", "--judge-model", "opus"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let r = json_out(&out);
    assert_eq!(r["judge"]["model"], "claude-opus-5-5");
    assert_eq!(r["judge"]["source"], "--judge-model");
}

#[test]
fn a_bad_configuration_or_corpus_is_the_users_to_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let corpus = d.join("corpus");
    case(&corpus, "x", "x.py", "x = 1\n", "x = 2\n", &[]);
    write(d, "bad.yaml", "model: haiku\nverify: sometimes\n");
    let server = FakeServer::start_blocking();
    let out = bench(d, &server, &["--config", "bad.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        support::stderr(&out).contains("bad.yaml:2:"),
        "{}",
        support::stderr(&out)
    );
    write(
        &corpus,
        "cases/y/case.json",
        "{\"base\": \"--upload-pack=x\", \"head\": \"HEAD\"}",
    );
    let out = bench(d, &server, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        support::stderr(&out).contains("must name a commit"),
        "{}",
        support::stderr(&out)
    );
    assert!(server.model_requests().is_empty());
}

#[test]
fn the_judge_model_is_configured_like_every_model() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        ".home/.config/crit/config.yaml",
        "models:\n  judge: opus\n",
    );
    let server = FakeServer::start_blocking();
    let judge_row = |env: Option<&str>| {
        let mut c = support::crit(d, &server, None);
        if let Some(m) = env {
            c.env("CRIT_JUDGE_MODEL", m);
        }
        let v = json_out(&c.args(["config", "--json"]).output().unwrap());
        let kind = v["kinds"]
            .as_array()
            .unwrap()
            .iter()
            .find(|k| k["kind"] == "bench judge")
            .unwrap()
            .clone();
        let row = kind["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["key"] == "model")
            .unwrap()
            .clone();
        (
            row["value"].as_str().unwrap().to_string(),
            row["source"].as_str().unwrap().to_string(),
        )
    };
    let (value, source) = judge_row(None);
    assert_eq!(value, "opus → claude-opus-5-5");
    assert!(source.ends_with("config.yaml:2"), "{source}");
    let (value, source) = judge_row(Some("haiku"));
    assert_eq!(value, "haiku → claude-haiku-5-5");
    assert_eq!(source, "env CRIT_JUDGE_MODEL");
    std::fs::remove_file(d.join(".home/.config/crit/config.yaml")).unwrap();
    assert_eq!(
        judge_row(None).0,
        "(the strongest model the benchmark compares)"
    );
}

/// The pull request's repository as a user clones it: `main`, and the pull
/// request's head fetched as `refs/pull/1/head`.
pub(crate) fn clone_with_pull_request(repos: &Path) -> (String, String) {
    let repo = repos.join("demo-repo");
    std::fs::create_dir_all(&repo).unwrap();
    init_repo(&repo);
    write(
        &repo,
        "audit/page.py",
        "def page(items, limit):\n    return items[:limit]\n",
    );
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "base"]);
    let base = rev(&repo, "HEAD");
    git(&repo, &["checkout", "-q", "-b", "faster"]);
    write(
        &repo,
        "audit/page.py",
        "def page(items, limit):\n    # MARK-IMPORTED\n    return items[-limit:]\n",
    );
    git(&repo, &["commit", "-q", "-am", "faster pages"]);
    let head = rev(&repo, "HEAD");
    git(&repo, &["update-ref", "refs/pull/1/head", &head]);
    // main moves on after the pull request was opened.
    git(&repo, &["checkout", "-q", "main"]);
    write(&repo, "README", "later\n");
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "later"]);
    (base, head)
}

#[test]
fn imports_the_published_golden_comments_and_benchmarks_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/crit/fixtures/bench/martian");
    let (base, head) = clone_with_pull_request(&d.join("repos"));
    let server = FakeServer::start_blocking();
    let out = support::crit(d, &server, None)
        .args(["bench", "import", "martian"])
        .arg(&fixture)
        .args(["--repos", "repos", "--corpus", "corpus", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let done = json_out(&out);
    assert_eq!(done["cases"], json!(["demo-repo-1"]));
    let skipped = done["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert_eq!(
        skipped[0]["url"],
        "https://github.com/ai-code-review-evaluation/other-repo/pull/7"
    );
    assert!(
        skipped[0]["reason"]
            .as_str()
            .unwrap()
            .contains("no clone of ai-code-review-evaluation/other-repo")
    );
    let case_dir = d.join("corpus/cases/demo-repo-1");
    let spec: Value =
        serde_json::from_str(&std::fs::read_to_string(case_dir.join("case.json")).unwrap())
            .unwrap();
    assert_eq!(spec["base"], base.as_str());
    assert_eq!(spec["head"], head.as_str());
    assert_eq!(
        spec["url"],
        "https://github.com/ai-code-review-evaluation/demo-repo/pull/1"
    );
    // golden.json is the published object, as it was.
    let published: Value = serde_json::from_str(
        &std::fs::read_to_string(fixture.join("golden_comments/demo.json")).unwrap(),
    )
    .unwrap();
    let golden: Value =
        serde_json::from_str(&std::fs::read_to_string(case_dir.join("golden.json")).unwrap())
            .unwrap();
    assert_eq!(golden, published[0]);
    // The case's repository stands at the head and has both commits.
    let repo = case_dir.join("repo");
    assert!(
        std::fs::read_to_string(repo.join("audit/page.py"))
            .unwrap()
            .contains("MARK-IMPORTED")
    );
    assert_eq!(rev(&repo, "HEAD"), head);
    assert_eq!(rev(&repo, "refs/heads/bench-base"), base);
    // Importing again leaves it as it is.
    let out = support::crit(d, &server, None)
        .args(["bench", "import", "martian"])
        .arg(fixture.join("golden_comments"))
        .args(["--repos", "repos", "--corpus", "corpus"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "nothing new: {}",
        support::stderr(&out)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("already in the corpus"));
    // And the corpus runs.
    let g = |i: usize| {
        (
            published[0]["comments"][i]["comment"]
                .as_str()
                .unwrap()
                .to_string(),
            published[0]["comments"][i]["severity"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    };
    server.push(Step::when_contains("MARK-IMPORTED").reply(findings(
        "audit/page.py",
        &["negative limit slices from the end"],
    )));
    let (g0, g1) = (g(0), g(1));
    judge(
        &server,
        (&g0.0, &g0.1),
        "negative limit slices from the end",
        true,
        0.95,
    );
    judge(
        &server,
        (&g1.0, &g1.1),
        "negative limit slices from the end",
        false,
        0.9,
    );
    let out = bench(d, &server, &["--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    let c = &json_out(&out)["configurations"][0];
    assert_eq!(
        (c["overall"]["tp"].clone(), c["overall"]["fn"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(
        c["cases"][0]["url"],
        "https://github.com/ai-code-review-evaluation/demo-repo/pull/1"
    );
}
