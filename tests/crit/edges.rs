//! The edges a new user meets first, each tried as they would: a Claude Code
//! CLI that is not logged in, a review outside a git repository, a YAML
//! mistake, a misspelt model, the order findings are read in, a JUnit report
//! of a passing review, `--print-prompt` when the hunk cache answers
//! everything.

use std::process::Output;

use crit_testkit::{FakeClaude, FakeServer, Reply};
use serde_json::Value;

use crate::support::gate::{answer, change_repo, finding, review};
use crate::support::{self, json_out, show, stderr};

fn both(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn small_change() -> tempfile::TempDir {
    change_repo(
        &[("app.py", Some(b"x = 1\n"))],
        &[("app.py", Some(b"x = eval(input())\n"))],
    )
}

/// `claude` on PATH, no API key: chosen only when `claude auth status` says
/// it is logged in; otherwise the message names every other choice and no
/// review starts.
#[test]
fn claude_code_is_chosen_only_when_logged_in() {
    let dir = small_change();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let bin = tempfile::tempdir().unwrap();
    FakeClaude::new()
        .emit_init()
        .emit_result(FakeClaude::structured_result(support::pass()))
        .logged_out()
        .write(bin.path());
    let out = support::crit(d, &server, Some(bin.path()))
        .env_remove("ANTHROPIC_API_KEY")
        .args(["review", "code", "--diff", "main..HEAD", "--no-log"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let text = both(&out);
    assert!(text.contains("is installed but not logged in"), "{text}");
    for choice in [
        "/login",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "--provider replay",
    ] {
        assert!(text.contains(choice), "names {choice}: {text}");
    }
    assert_eq!(
        text.matches("not logged in").count(),
        1,
        "said once: {text}"
    );
    assert!(
        FakeClaude::invocations(bin.path()).is_empty(),
        "no review ran"
    );
    assert_eq!(server.model_requests().len(), 0);

    // Logged in, the same CLI reviews.
    let bin = tempfile::tempdir().unwrap();
    FakeClaude::new()
        .emit_init()
        .emit_result(FakeClaude::structured_result(support::pass()))
        .write(bin.path());
    let out = support::crit(d, &server, Some(bin.path()))
        .env_remove("ANTHROPIC_API_KEY")
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--no-log",
            "--json",
            "--verify",
            "off",
        ])
        .output()
        .unwrap();
    assert_eq!(json_out(&out)["verdict"], "PASS", "{}", show(&out));
    assert_eq!(FakeClaude::invocations(bin.path()).len(), 1);

    // An API key is the next backend: the logged-out CLI is never asked.
    let bin = tempfile::tempdir().unwrap();
    FakeClaude::new().logged_out().write(bin.path());
    server.push(Reply::json(support::pass()));
    let out = support::crit(d, &server, Some(bin.path()))
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--no-log",
            "--json",
            "--verify",
            "off",
            "--no-cache",
        ])
        .output()
        .unwrap();
    assert_eq!(json_out(&out)["verdict"], "PASS", "{}", show(&out));
    assert_eq!(server.model_requests().len(), 1);
}

/// Outside a repository there is no change: a review with no scope says to
/// name the files or ask for the whole project, and spends nothing.
#[test]
fn outside_a_repository_a_review_needs_files_or_all() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    support::write(d, "app.py", "x = eval(input())\n");
    let server = FakeServer::start_blocking();
    let out = support::crit(d, &server, None)
        .args(["review", "code", "--no-log", "--verify", "off"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains("not in a git repository")
            && err.contains("--files GLOB")
            && err.contains("--all"),
        "{err}"
    );
    assert!(!err.contains("reviewing the whole project"), "{err}");
    assert_eq!(server.model_requests().len(), 0);

    // `--all` asks for it; `--files` names files.
    for scope in [&["--all"][..], &["--files", "*.py"][..]] {
        server.push(Reply::json(support::pass()));
        let out = support::crit(d, &server, None)
            .args(["review", "code", "--no-log", "--verify", "off", "--json"])
            .args(scope)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{scope:?}: {}", show(&out));
    }
    assert_eq!(server.model_requests().len(), 2);

    // `--all` with a scope is a contradiction, said before anything runs.
    let out = support::crit(d, &server, None)
        .args(["review", "code", "--all", "--files", "*.py"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(stderr(&out).contains("--all"), "{}", show(&out));
}

/// A YAML mistake names the file, line, column and what the key takes.
#[test]
fn a_config_mistake_says_what_the_key_takes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let cases = [
        (
            "fail_on: [p1\n",
            "./.crit/config.yaml:1:",
            "`fail_on` takes one of p0, p1, p2, p3, concerns, never",
        ),
        (
            "model: sonnet\ntimeout: soon\n",
            "./.crit/config.yaml:2:",
            "`timeout` takes a whole number of seconds",
        ),
        (
            "model: haiku\nverify: off\n",
            "./.crit/config.yaml:2:1:",
            "`verify` belongs in a `crit bench --config` file",
        ),
    ];
    for (text, at, says) in cases {
        support::write(d, ".crit/config.yaml", text);
        let out = support::crit(d, &server, None)
            .args(["config"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}: {}", show(&out));
        let err = stderr(&out);
        assert!(err.contains(at) && err.contains(says), "{text}: {err}");
    }
}

/// A misspelt model is refused before anything is sent, naming the nearest
/// known one and listing them; a full id crit does not know goes through.
#[test]
fn an_unknown_model_is_refused_with_the_known_ones() {
    let dir = small_change();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let out = review(d, &server, &["--model", "sonet", "--verify", "off"]);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let text = both(&out);
    assert!(
        text.contains("unknown model `sonet` (did you mean `sonnet`?)")
            && text.contains("opus")
            && text.contains("haiku"),
        "{text}"
    );
    assert!(!text.contains("$0.0000"), "{text}");
    assert_eq!(server.model_requests().len(), 0);
    server.push(Reply::json(support::pass()));
    let out = review(
        d,
        &server,
        &[
            "--model",
            "claude-future-9",
            "--verify",
            "off",
            "--no-cache",
        ],
    );
    let r = json_out(&out);
    assert_eq!(r["verdict"], "PASS", "{}", show(&out));
    assert!(r["cost_usd"].is_null(), "no price, not $0: {r}");
    assert!(!stderr(&out).contains("$0.0000"), "{}", stderr(&out));
}

fn titles_in_order(text: &str, titles: &[&str]) -> bool {
    let at: Vec<usize> = titles
        .iter()
        .map(|t| text.find(t).unwrap_or(usize::MAX))
        .collect();
    at.iter().all(|i| *i != usize::MAX) && at.windows(2).all(|w| w[0] < w[1])
}

/// Findings are read most severe first in every format, whatever order the
/// reviewer gave them in and whichever file comes first by name.
#[test]
fn findings_are_sorted_by_severity_everywhere() {
    let dir = change_repo(
        &[("a.py", Some(b"a = 1\n")), ("b.py", Some(b"b = 1\n"))],
        &[
            ("a.py", Some(b"a = 2\nprint(a)\n")),
            ("b.py", Some(b"b = eval(input())\n")),
        ],
    );
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let reply = || {
        answer(
            "FAIL",
            vec![
                finding("a.py", 2, 3, "Nit in a"),
                finding("a.py", 1, 2, "Minor in a"),
                finding("b.py", 1, 1, "Major in b"),
            ],
        )
    };
    server.push(reply());
    let out = review(d, &server, &["--verify", "off", "--no-cache"]);
    let r = json_out(&out);
    let sev: Vec<&str> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["severity"].as_str().unwrap())
        .collect();
    assert_eq!(sev, ["P1", "P2", "P3"], "{r}");
    let saved = d.join("r.json");
    std::fs::write(&saved, out.stdout).unwrap();
    let order = ["Major in b", "Minor in a", "Nit in a"];
    for format in [
        "terminal",
        "markdown",
        "sarif",
        "rdjson",
        "github",
        "codeclimate",
        "junit",
    ] {
        let out = support::crit(d, &server, None)
            .args(["report", saved.to_str().unwrap(), "--format", format])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(titles_in_order(&text, &order), "{format}:\n{text}");
    }
    // The terminal of the review itself too.
    server.push(reply());
    let out = support::crit(d, &server, None)
        .args([
            "review",
            "code",
            "--diff",
            "main..HEAD",
            "--no-log",
            "--verify",
            "off",
            "--no-cache",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(titles_in_order(&text, &order), "{text}");
}

/// A review that passed its gate fails no JUnit test case: its findings
/// were let through.
#[test]
fn junit_counts_only_what_the_gate_failed_on() {
    let dir = small_change();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    let junit = |reply: Reply| {
        let before = server.model_requests().len();
        server.push(reply);
        let out = review(d, &server, &["--verify", "off", "--no-cache"]);
        assert_eq!(server.model_requests().len(), before + 1, "{}", show(&out));
        let saved = d.join("r.json");
        std::fs::write(&saved, &out.stdout).unwrap();
        let out = support::crit(d, &server, None)
            .args(["report", saved.to_str().unwrap(), "--format", "junit"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let xml = junit(answer("NEEDS_WORK", vec![finding("app.py", 1, 3, "A nit")]));
    assert!(
        xml.contains("<property name=\"passed\" value=\"true\"/>"),
        "{xml}"
    );
    assert!(xml.contains("failures=\"0\""), "{xml}");
    assert!(!xml.contains("<failure"), "{xml}");
    let xml = junit(answer("FAIL", vec![finding("app.py", 1, 1, "A blocker")]));
    // The finding and the review's own case.
    assert!(xml.contains("failures=\"2\""), "{xml}");
}

/// `--print-prompt` when every hunk is answered from the hunk cache says so,
/// instead of printing nothing.
#[test]
fn print_prompt_says_when_the_cache_answers_everything() {
    let dir = small_change();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    server.push(Reply::json(support::pass()));
    let first = review(d, &server, &["--verify", "off"]);
    assert_eq!(json_out(&first)["verdict"], "PASS", "{}", show(&first));
    let out = review(d, &server, &["--verify", "off", "--print-prompt"]);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let err = stderr(&out);
    assert!(
        err.contains("the hunk cache answers all 1 hunks") && err.contains("--no-cache"),
        "{err}"
    );
    assert_eq!(server.model_requests().len(), 1);
    // Without the cache it prints the request.
    let out = review(
        d,
        &server,
        &["--verify", "off", "--print-prompt", "--no-cache"],
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed.as_array().map(Vec::len), Some(1), "{printed}");
    assert!(!stderr(&out).contains("no request to print"));
}

/// The README's configuration examples: each `cat > NAME.yaml <<'YAML'`
/// block (a benchmark configuration) and each fenced YAML block headed
/// `# .crit/config.yaml`.
fn readme_configs() -> (Vec<(String, String)>, Vec<String>) {
    let readme = std::fs::read_to_string(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md"),
    )
    .unwrap();
    let mut bench = Vec::new();
    let mut project = Vec::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        if let Some(rest) = line.trim().strip_prefix("cat > ")
            && let Some((name, _)) = rest.split_once(" <<'YAML'")
        {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "YAML").collect();
            bench.push((name.to_string(), body.join("\n") + "\n"));
        } else if line.trim() == "```yaml" {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            if body.first() == Some(&"# .crit/config.yaml") {
                project.push(body.join("\n") + "\n");
            }
        }
    }
    (bench, project)
}

/// Every key the README shows in a configuration is accepted where it shows
/// it: a benchmark's (`verify`, `filter`, …) by `crit bench --config`, a
/// project's by `crit config`. A misspelt key in the same place is refused,
/// so the test can fail.
#[test]
fn every_config_the_readme_shows_loads_where_it_shows_it() {
    let (bench, project) = readme_configs();
    assert!(bench.len() >= 2, "{bench:?}");
    assert!(!project.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("corpus/cases")).unwrap();
    let server = FakeServer::start_blocking();
    let bench_run = |name: &str, text: &str| {
        support::write(d, name, text);
        support::crit(d, &server, None)
            .args(["bench", "corpus", "--config", name, "--json", "--no-cache"])
            .output()
            .unwrap()
    };
    for (name, text) in &bench {
        let out = bench_run(name, text);
        let err = stderr(&out);
        assert!(
            out.status.code() != Some(2) && !err.contains(&format!("{name}:")),
            "{name}:\n{text}\n{}",
            show(&out)
        );
        let typo = text
            .replacen("verify:", "verfy:", 1)
            .replacen("model:", "modle:", 1);
        let out = bench_run(name, &typo);
        assert_eq!(out.status.code(), Some(2), "{typo}: {}", show(&out));
        assert!(stderr(&out).contains(&format!("{name}:")), "{}", show(&out));
    }
    for text in &project {
        support::write(d, ".crit/config.yaml", text);
        let out = support::crit(d, &server, None)
            .arg("config")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{text}: {}", show(&out));
        support::write(d, ".crit/config.yaml", &text.replacen(": ", "x: ", 1));
        let out = support::crit(d, &server, None)
            .arg("config")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    }
}
