//! One project, every door: `crit review code`, Claude Code's Stop gate and
//! a library caller of crit-project see the same effective settings — the
//! model and timeout from mala.yaml, the gate, limits and budgets from a trusted
//! `.crit/config.yaml`, the user's `templates_dir` — and, in CI, the base
//! revision's rules. (The Python package's mala reviewer is held to the same
//! in crates/crit-py/tests/test_settings_everywhere.py.)

use std::collections::BTreeMap;
use std::path::Path;

use crit_llm::Env;
use crit_project::{Explicit, Kind, Project};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};

use crate::support::{crit, git, init_repo, session_dirs, write};

/// The settings every front end must agree on.
const KEYS: [&str; 8] = [
    "model",
    "timeout",
    "fail_on",
    "max_turns",
    "max_budget_usd",
    "max_cost_usd",
    "templates_dir",
    "verify_model",
];

/// A repository whose mala.yaml sets the model and timeout, whose trusted
/// `.crit/config.yaml` sets the gate and the turn limit, and whose user has
/// a templates directory of their own; `src/app.py` changed, uncommitted.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    init_repo(d);
    write(d, ".gitignore", ".home/\n.state/\n");
    write(
        d,
        ".home/.config/crit/config.yaml",
        "templates_dir: ~/tpl\n",
    );
    std::fs::create_dir_all(d.join(".home/tpl")).unwrap();
    write(
        d,
        "mala.yaml",
        "agent_sdk_reviewer_model: haiku\nagent_sdk_review_timeout: 77\n",
    );
    write(
        d,
        ".crit/config.yaml",
        "fail_on: p0\nmax_turns: 9\nmax_budget_usd: 3\nmax_cost_usd: 2\n",
    );
    write(d, "src/app.py", "def main():\n    return 1\n");
    git(d, &["add", "-A"]);
    git(d, &["commit", "-qm", "base"]);
    write(d, "src/app.py", "def main():\n    return eval(input())\n");
    dir
}

fn answer() -> Step {
    Step::reply(Reply::json(
        json!({"verdict": "PASS", "summary": "Fine.", "findings": []}),
    ))
}

/// key → value of the settings rows a review saved in its session.json.
fn saved(d: &Path, before: usize) -> BTreeMap<String, String> {
    let dirs = session_dirs(d);
    assert_eq!(dirs.len(), before + 1, "one new session");
    let newest = dirs
        .iter()
        .max_by_key(|p| {
            std::fs::metadata(p.join("session.json"))
                .unwrap()
                .modified()
                .unwrap()
        })
        .unwrap();
    let meta: Value =
        serde_json::from_slice(&std::fs::read(newest.join("session.json")).unwrap()).unwrap();
    rows(&meta["config"])
}

fn rows(rows: &Value) -> BTreeMap<String, String> {
    rows.as_array()
        .unwrap_or_else(|| panic!("not rows: {rows}"))
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                r["value"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn pick(all: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    KEYS.iter()
        .map(|k| (k.to_string(), all.get(*k).cloned().unwrap_or_default()))
        .collect()
}

/// The library caller's view: crit-project opened as a front end opens it,
/// in the environment the binary ran in.
fn library(d: &Path, server: &FakeServer, extra: &[(&str, String)]) -> BTreeMap<String, String> {
    let mut env = Env::from_pairs([
        ("HOME", d.join(".home").display().to_string()),
        ("XDG_STATE_HOME", d.join(".state").display().to_string()),
        (
            "ANTHROPIC_API_KEY",
            "sk-ant-review-secret-0123456789".into(),
        ),
        ("ANTHROPIC_BASE_URL", server.url()),
        ("PATH", std::env::var("PATH").unwrap_or_default()),
    ]);
    for (k, v) in extra {
        env.set(*k, v.clone());
    }
    let project = Project::open(d, Explicit::default(), env).unwrap();
    rows(&serde_json::to_value(project.settings(Kind::Code).unwrap().rows()).unwrap())
}

#[test]
fn the_cli_the_stop_gate_and_the_library_agree() {
    let dir = project();
    let d = dir.path();
    let server = FakeServer::start_blocking();
    assert!(
        crit(d, &server, None)
            .args(["trust", "--yes"])
            .output()
            .unwrap()
            .status
            .success()
    );
    let want: BTreeMap<String, String> = [
        ("model", "haiku → claude-haiku-5-5"),
        ("timeout", "77s"),
        ("fail_on", "p0"),
        ("max_turns", "9"),
        ("max_budget_usd", "3.00"),
        ("max_cost_usd", "2.00"),
        ("templates_dir", &*d.join(".home/tpl").display().to_string()),
        ("verify_model", "haiku"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();

    server.push(answer());
    let out = crit(d, &server, None)
        .args([
            "review",
            "code",
            "--uncommitted",
            "--verify",
            "off",
            "--no-cache",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli = saved(d, 0);
    assert_eq!(pick(&cli), want, "crit review code");
    assert_eq!(server.model_requests()[0].body["model"], "claude-haiku-5-5");

    server.push(answer());
    let event = json!({"hook_event_name": "Stop", "session_id": "s", "stop_hook_active": false});
    let out = crit(d, &server, None)
        .args(["hook", "claude-code", "Stop"])
        .write_stdin(event.to_string())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let gate = saved(d, 1);
    // The gate caps its own deadline below Claude Code's; the settings it
    // was given are the review's.
    assert_eq!(pick(&gate), want, "the Stop gate");
    assert_eq!(server.model_requests()[1].body["model"], "claude-haiku-5-5");

    assert_eq!(pick(&library(d, &server, &[])), want, "the library");

    // Whose rules: the working tree as trusted, for the review and the
    // library; the last commit, as trusted, for the gate (the agent under
    // it writes the working tree).
    assert_eq!(cli["rules"], "working tree");
    assert_eq!(library(d, &server, &[])["rules"], "working tree");
    assert!(gate["rules"].starts_with("HEAD ("), "{}", gate["rules"]);
}

#[test]
fn in_ci_every_door_reads_the_base_revisions_rules() {
    let dir = project();
    let d = dir.path();
    // The pull request relaxes the gate and the limit and switches the model:
    // none of it applies, the base's rules do.
    git(d, &["checkout", "-qb", "feature"]);
    write(
        d,
        ".crit/config.yaml",
        "fail_on: never\nmax_turns: 1\nmodel: opus\n",
    );
    write(d, "mala.yaml", "agent_sdk_reviewer_model: opus\n");
    git(d, &["commit", "-qam", "relax"]);
    let base = {
        let out = std::process::Command::new("git")
            .args(["rev-parse", "main"])
            .current_dir(d)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let event = d.join(".state/event.json");
    write(
        d,
        ".state/event.json",
        &json!({"pull_request": {"base": {"sha": base, "ref": "main"}}}).to_string(),
    );
    let ci = [
        ("CI", "true".to_string()),
        ("GITHUB_ACTIONS", "true".to_string()),
        ("GITHUB_EVENT_PATH", event.display().to_string()),
    ];
    let server = FakeServer::start_blocking();
    server.push(answer());
    let mut c = crit(d, &server, None);
    for (k, v) in &ci {
        c.env(k, v);
    }
    let out = c
        .args(["review", "code", "--verify", "off", "--no-cache", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cli = saved(d, 0);
    let want: BTreeMap<String, String> = [
        ("model", "haiku → claude-haiku-5-5"),
        ("timeout", "77s"),
        ("fail_on", "p0"),
        ("max_turns", "9"),
        ("max_budget_usd", "3.00"),
        ("max_cost_usd", "2.00"),
        ("templates_dir", &*d.join(".home/tpl").display().to_string()),
        ("verify_model", "haiku"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(pick(&cli), want, "crit review code in CI");
    let lib = library(d, &server, &ci);
    assert_eq!(pick(&lib), want, "the library in CI");
    assert_eq!(cli["rules"], lib["rules"]);
    assert!(
        cli["rules"].starts_with(&base[..7]) || cli["rules"].contains("main"),
        "{}",
        cli["rules"]
    );
}
