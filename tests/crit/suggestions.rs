//! Suggestions through the binary: a reviewer's answer with `suggestion`
//! accepted on the first request, each suggestion checked against the file
//! before it is offered (a refused one says why), offered ones in SARIF's
//! `fixes` and the markdown, and `--fix` applying them to the working tree
//! through the confined writer: never over the user's uncommitted work, never
//! two overlapping ones, never through a symlink.

use crate::support;

use std::path::Path;
use std::process::Output;

use crit_testkit::{FakeServer, Reply};
use serde_json::{Value, json};
use support::{crit, git, init_repo, json_out, stderr, write};
use tempfile::TempDir;

/// `src/app.py` after the change: lines 2-8 are new.
const APP: &str = "import os


def load(path):
    f = open(path)
    data = f.read()
    return data


def mode():
    return os.environ[\"MODE\"]
";

/// `main` holds the import; the branch `work` adds the rest.
fn repo() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n.cache/\n");
    write(d, "src/app.py", "import os\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "base"]);
    git(d, &["checkout", "-q", "-b", "work"]);
    write(d, "src/app.py", APP);
    git(d, &["commit", "-q", "-am", "load files"]);
    dir
}

fn finding(path: &str, start: u32, end: u32, title: &str, suggestion: &str) -> Value {
    json!({"file_path": path, "line_start": start, "line_end": end, "priority": 2,
        "title": title, "body": "Why it matters.", "suggestion": suggestion})
}

const WITH_OPEN: &str = "    with open(path) as f:\n        data = f.read()\n";
const DEFAULT_MODE: &str = "    return os.environ.get(\"MODE\", \"dev\")\n";

/// The good ones: lines 5-6 and line 11.
fn good() -> Vec<Value> {
    vec![
        finding("src/app.py", 5, 6, "File left open", WITH_OPEN),
        finding("src/app.py", 11, 11, "MODE may be unset", DEFAULT_MODE),
    ]
}

/// The structured answer, through the tool: the schema crit sends offers
/// `suggestion`, so nothing is refused and asked again.
fn answer(findings: Vec<Value>) -> Reply {
    Reply::json(json!({"verdict": "NEEDS_WORK", "summary": "s", "findings": findings}))
}

fn review(d: &Path, server: &FakeServer, extra: &[&str]) -> Output {
    crit(d, server, None)
        .env("XDG_CACHE_HOME", d.join(".cache"))
        .args(["review", "code", "--diff", "main..HEAD", "--no-log"])
        .args(extra)
        .output()
        .unwrap()
}

fn by_title<'a>(r: &'a Value, title: &str) -> &'a Value {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["title"] == title)
        .unwrap_or_else(|| panic!("no finding {title}: {r}"))
}

fn read(d: &Path, rel: &str) -> String {
    std::fs::read_to_string(d.join(rel)).unwrap()
}

fn sarif_schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates/crit-core/tests/schemas/sarif-schema-2.1.0-errata01.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn offered_suggestions_reach_sarif_and_markdown_and_fix_applies_them() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(answer(good()));
    let out = review(d, &server, &["--json", "--fix"]);
    let r = json_out(&out);
    assert_eq!(server.model_requests().len(), 1, "{}", stderr(&out));
    let open = by_title(&r, "File left open");
    assert_eq!(open["suggestion"], WITH_OPEN);
    assert_eq!(
        open["suggestion_replaces"],
        "    f = open(path)\n    data = f.read()"
    );
    assert_eq!(open["suggestion_refused"], Value::Null);
    // --fix changed the file, and said so.
    let fixed = APP
        .replace("    f = open(path)\n    data = f.read()\n", WITH_OPEN)
        .replace("    return os.environ[\"MODE\"]\n", DEFAULT_MODE);
    assert_eq!(read(d, "src/app.py"), fixed);
    let err = stderr(&out);
    assert!(err.contains("changed src/app.py (2 suggestions)"), "{err}");

    let saved = tempfile::tempdir().unwrap();
    let path = saved.path().join("result.json");
    std::fs::write(&path, &out.stdout).unwrap();
    let report = |format: &str| {
        crit(d, &server, None)
            .args(["report", path.to_str().unwrap(), "--format", format])
            .output()
            .unwrap()
    };
    let sarif: Value = serde_json::from_slice(&report("sarif").stdout).unwrap();
    let validator = jsonschema::validator_for(&sarif_schema()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&sarif)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let fix = results
        .iter()
        .find_map(|x| {
            let c = &x["fixes"][0]["artifactChanges"][0];
            (c["replacements"][0]["deletedRegion"]["startLine"] == 5).then_some(c)
        })
        .unwrap_or_else(|| panic!("no fix for lines 5-6: {sarif}"));
    assert_eq!(fix["artifactLocation"]["uri"], "src/app.py");
    assert_eq!(fix["replacements"][0]["deletedRegion"]["endLine"], 6);
    assert_eq!(
        fix["replacements"][0]["insertedContent"]["text"],
        WITH_OPEN.trim_end_matches('\n')
    );
    let md = String::from_utf8(report("markdown").stdout).unwrap();
    assert!(
        md.contains("```diff\n-    f = open(path)\n-    data = f.read()\n+    with open(path) as f:\n+        data = f.read()\n```"),
        "{md}"
    );
}

#[test]
fn suggestions_that_do_not_fit_are_not_offered_and_say_why() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(answer(vec![
        finding("src/app.py", 40, 41, "Past the end", "    x = 1\n"),
        finding("src/app.py", 7, 7, "Same as before", "    return data\n"),
        finding(
            "src/app.py",
            7,
            7,
            "A rewrite",
            "    if data:\n        return data\n    log()\n    return None\n",
        ),
        finding("src/app.py", 6, 6, "Indentation lost", "data = f.read()\n"),
    ]));
    let out = review(d, &server, &["--json", "--fix"]);
    let r = json_out(&out);
    assert_eq!(server.model_requests().len(), 1, "{}", stderr(&out));
    for (title, why) in [
        (
            "Past the end",
            "lines 40-41 are not in the file, which has 11 lines",
        ),
        (
            "Same as before",
            "the suggestion is the same as the lines it would replace",
        ),
        ("A rewrite", "more than 3 times as many"),
        (
            "Indentation lost",
            "indented by nothing, the lines it replaces by 4 spaces",
        ),
    ] {
        let f = by_title(&r, title);
        assert_eq!(f["suggestion"], Value::Null, "{title}: {f}");
        let refused = f["suggestion_refused"].as_str().unwrap_or_default();
        assert!(refused.contains(why), "{title}: {refused}");
    }
    // Nothing offered, nothing written.
    assert_eq!(read(d, "src/app.py"), APP);
    assert!(
        stderr(&out).contains("the review offered no suggestion to apply"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fix_leaves_a_file_with_uncommitted_changes_alone_unless_told() {
    let dir = repo();
    let d = dir.path();
    let mine = APP.replace("import os\n", "import os  # mine\n");
    write(d, "src/app.py", &mine);
    let server = FakeServer::start_blocking();
    server.push(answer(good()));
    let out = review(d, &server, &["--json", "--fix"]);
    assert_eq!(read(d, "src/app.py"), mine);
    let err = stderr(&out);
    assert!(
        err.contains("not changing src/app.py: it has changes not committed"),
        "{err}"
    );
    // An untracked file the reviewer points at is the user's too.
    write(d, "notes.py", "x = 1\n");
    server.push(answer(vec![finding(
        "notes.py", 1, 1, "Name it", "x = 2\n",
    )]));
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--uncommitted",
            "--no-log",
            "--json",
            "--fix",
        ])
        .output()
        .unwrap();
    assert_eq!(read(d, "notes.py"), "x = 1\n", "{}", stderr(&out));
    // --fix-dirty: applied, the user's line kept.
    server.push(answer(good()));
    let out = review(d, &server, &["--json", "--fix", "--fix-dirty"]);
    let now = read(d, "src/app.py");
    assert!(now.starts_with("import os  # mine\n"), "{now}");
    assert!(
        now.contains(WITH_OPEN) && now.contains(DEFAULT_MODE),
        "{}",
        stderr(&out)
    );
}

#[test]
fn overlapping_suggestions_are_all_left_out() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let mut findings = good();
    findings.push(finding(
        "src/app.py",
        6,
        7,
        "Return directly",
        "    return f.read()\n",
    ));
    server.push(answer(findings));
    let out = review(d, &server, &["--json", "--fix"]);
    let err = stderr(&out);
    let now = read(d, "src/app.py");
    assert!(!now.contains("with open"), "{now}");
    assert!(!now.contains("return f.read()"), "{now}");
    assert!(now.contains(DEFAULT_MODE), "{now}");
    assert!(
        err.contains("the suggestion for src/app.py:5-6 is not applied: its lines overlap"),
        "{err}"
    );
    assert!(err.contains("src/app.py:6-7 is not applied"), "{err}");
    assert!(err.contains("changed src/app.py (1 suggestion)"), "{err}");
}

#[test]
fn a_symlink_leading_outside_is_never_written_through() {
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("victim.py");
    std::fs::write(&target, "secret = 1\n").unwrap();
    let dir = repo();
    let d = dir.path();
    std::os::unix::fs::symlink(&target, d.join("src/link.py")).unwrap();
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "link"]);
    for scope in [&["--diff", "main..HEAD"][..], &["--diff", "main"][..]] {
        let server = FakeServer::start_blocking();
        server.push(answer(vec![finding(
            "src/link.py",
            1,
            1,
            "Hard-coded",
            "secret = 2\n",
        )]));
        let out = crit(d, &server, None)
            .args([
                "review",
                "code",
                "--no-log",
                "--json",
                "--fix",
                "--fix-dirty",
            ])
            .args(scope)
            .output()
            .unwrap();
        let r = json_out(&out);
        let f = by_title(&r, "Hard-coded");
        assert_eq!(f["suggestion"], Value::Null, "{scope:?}: {f}");
        assert!(
            f["suggestion_refused"]
                .as_str()
                .unwrap()
                .contains("could not be read"),
            "{scope:?}: {f}"
        );
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "secret = 1\n");
    }
}

#[test]
fn a_suggestion_with_terminal_escapes_prints_as_text() {
    let dir = repo();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let evil = "    return \"\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{9b}31m\"\n";
    server.push(answer(vec![finding("src/app.py", 11, 11, "Escapes", evil)]));
    let out = review(d, &server, &["--format", "terminal", "--fix"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("suggestion, replacing line 11"), "{text}");
    assert!(
        text.contains("- ") && text.contains("return os.environ"),
        "{text}"
    );
    for shown in [text.as_ref(), stderr(&out).as_str()] {
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}') && !shown.contains('\u{9b}'),
            "{shown:?}"
        );
    }
    // The file holds what the suggestion said: its bytes are the code's.
    assert!(read(d, "src/app.py").contains(evil));
}

/// A model can name any path: `--fix` changes only files of the reviewed
/// change, never anything in `.git` (a `core.fsmonitor` there runs at the next
/// `git status`), whatever `--fix-dirty` says.
#[test]
fn fix_changes_only_files_of_the_change_and_never_git_s_own() {
    let dir = repo();
    let d = dir.path();
    write(d, "src/other.py", "x = 1\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-q", "-m", "other"]);
    git(d, &["checkout", "-q", "main"]);
    git(d, &["merge", "-q", "--ff-only", "work"]);
    git(d, &["checkout", "-q", "-b", "next"]);
    write(d, "src/app.py", &format!("{APP}# more\n"));
    git(d, &["commit", "-q", "-am", "more"]);
    let config = read(d, ".git/config");
    for path in [
        ".git/config",
        "./.git/config",
        ".GIT/config",
        "src/other.py",
    ] {
        let server = FakeServer::start_blocking();
        server.push(answer(vec![finding(
            path,
            1,
            1,
            "Planted",
            "[core]\n\tfsmonitor = touch PWNED\n",
        )]));
        let out = crit(d, &server, None)
            .env("XDG_CACHE_HOME", d.join(".cache"))
            .args(["review", "code", "--diff", "main", "--no-log", "--json"])
            .args(["--fix", "--fix-dirty"])
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(!err.contains("changed"), "{path}: {err}");
        assert_eq!(read(d, ".git/config"), config, "{path}");
        assert_eq!(read(d, "src/other.py"), "x = 1\n", "{path}");
        assert!(!d.join("PWNED").exists());
    }
}
