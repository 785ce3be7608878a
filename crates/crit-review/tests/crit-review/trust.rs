//! Whose rules judge a change, at the library's level: each loader asks the
//! project's rules about exactly its exec-capable settings; rules read at a
//! commit come from the commit (also for a project in a subdirectory, never
//! through a link); the trust store honours exact values only; CI without a
//! base fails closed.

use crate::scope_support;

use std::path::Path;
use std::time::SystemTime;

use crit_project::config::Config;
use crit_project::config::ReviewerKind;
use crit_project::suppress::Suppressions;
use crit_project::trust::{Gated, ProjectRules, Source, TrustStore};
use crit_review::orchestrate::RunConfig;
use crit_review::template::{Registry, TemplateDirs};
use scope_support::Repo;

fn env(pairs: &[(&str, String)]) -> crit_os::Env {
    crit_os::Env::from_pairs(pairs.iter().map(|(k, v)| (*k, v.clone())))
}

fn keys(rules: &ProjectRules) -> Vec<(String, bool)> {
    rules
        .asked()
        .into_iter()
        .map(|a| (a.setting.key, a.allowed))
        .collect()
}

const EXEC_CONFIG: &str = "model: m\nbase_url: http://127.0.0.1:9\nreviewer: command\ncommand: [gate, --json]\ncassettes: .crit/c\nprovider: replay\nfail_on: never\ntimeout: 5\n";

#[test]
fn config_gates_exactly_the_exec_capable_settings() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".crit")).unwrap();
    std::fs::write(dir.path().join(".crit/config.yaml"), EXEC_CONFIG).unwrap();
    let rules = ProjectRules::untrusted(dir.path(), "test");
    let c = Config::load_project(None, &rules).unwrap();
    assert_eq!(
        keys(&rules),
        [
            ("base_url".into(), false),
            ("provider".into(), false),
            ("reviewer".into(), false),
            ("command".into(), false),
            ("cassettes".into(), false),
            ("timeout".into(), false),
            ("fail_on".into(), false),
        ]
    );
    assert_eq!(
        (
            &c.base_url,
            &c.reviewer,
            &c.command,
            &c.cassettes,
            &c.provider,
            &c.fail_on
        ),
        (&None, &None, &None, &None, &None, &None)
    );
    assert_eq!(
        c.timeout, None,
        "a limit of the project's is a limit relaxed"
    );
    assert_eq!(c.model.unwrap().value, "m");

    // Values that move nothing are not asked about: a model, crit's own
    // reviewer, a stricter gate.
    std::fs::write(
        dir.path().join(".crit/config.yaml"),
        "model: m\nreviewer: agent\nfail_on: p3\n",
    )
    .unwrap();
    let rules = ProjectRules::untrusted(dir.path(), "test");
    let c = Config::load_project(None, &rules).unwrap();
    assert!(rules.asked().is_empty());
    assert_eq!(c.fail_on.unwrap().value, crit_core::FailOn::P3);
    assert_eq!(c.reviewer.unwrap().value, ReviewerKind::Agent);

    // A backend of the project's choosing, and each limit, are asked about
    // whatever their value: the Claude Code CLI runs outside crit's sandbox,
    // a budget spends the user's money, and turns and time bound the review.
    std::fs::write(
        dir.path().join(".crit/config.yaml"),
        "provider: claude-code\nmax_budget_usd: 0.01\nmax_turns: 1\ntimeout: 1\n",
    )
    .unwrap();
    let rules = ProjectRules::untrusted(dir.path(), "test");
    let c = Config::load_project(None, &rules).unwrap();
    assert_eq!(
        keys(&rules),
        [
            ("provider".into(), false),
            ("timeout".into(), false),
            ("max_turns".into(), false),
            ("max_budget_usd".into(), false),
        ]
    );
    assert_eq!(
        (&c.provider, &c.timeout, &c.max_turns, &c.max_budget_usd),
        (&None, &None, &None, &None)
    );

    // The user's own file is never asked about; the legacy loader trusts no project.
    let user = dir.path().join("user.yaml");
    std::fs::write(&user, "base_url: http://user.example\n").unwrap();
    std::fs::write(dir.path().join(".crit/config.yaml"), EXEC_CONFIG).unwrap();
    let c = Config::load(Some(&user), Some(&dir.path().join(".crit/config.yaml"))).unwrap();
    assert_eq!(c.base_url.unwrap().value, "http://user.example");
    assert_eq!(c.command, None);
}

#[test]
fn the_store_honours_exact_values_in_one_project_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    let state = dir.path().join("state");
    std::fs::create_dir_all(root.join(".crit")).unwrap();
    std::fs::write(root.join(".crit/config.yaml"), "base_url: http://a\n").unwrap();
    let e = [("XDG_STATE_HOME", state.display().to_string())];
    let root = root.canonicalize().unwrap();
    let found = crit_review::template::trust_survey(&root);
    assert_eq!(
        found.settings,
        [Gated::new(".crit/config.yaml", 1, "base_url", "http://a")]
    );
    TrustStore::at(state.join("crit/trust.json"))
        .trust(&root, &found.settings, SystemTime::now())
        .unwrap();
    let load = |text: &str| {
        std::fs::write(root.join(".crit/config.yaml"), text).unwrap();
        let rules = ProjectRules::discover(&root, &env(&e), None).unwrap();
        Config::load_project(None, &rules)
            .unwrap()
            .base_url
            .map(|s| s.value)
    };
    assert_eq!(load("base_url: http://a\n").as_deref(), Some("http://a"));
    assert_eq!(
        load("# moved\n\nbase_url: http://a # same\n").as_deref(),
        Some("http://a")
    );
    assert_eq!(load("base_url: http://b\n"), None);
    assert_eq!(load("base_url: http://a/\n"), None);

    // In CI the store is not consulted: with no base, nothing is honoured.
    std::fs::write(root.join(".crit/config.yaml"), "base_url: http://a\n").unwrap();
    let ci = [e[0].clone(), ("CI", "true".to_string())];
    let rules = ProjectRules::discover(&root, &env(&ci), None).unwrap();
    assert_eq!(Config::load_project(None, &rules).unwrap().base_url, None);
    assert!(
        rules
            .refusal(&rules.asked()[0].setting)
            .contains("--rules-from REF")
    );

    // A store that cannot be read trusts nothing, and says why.
    std::fs::write(state.join("crit/trust.json"), "[]").unwrap();
    let rules = ProjectRules::discover(&root, &env(&e), None).unwrap();
    assert_eq!(Config::load_project(None, &rules).unwrap().base_url, None);
    assert!(
        rules.why_ignored().contains("trust.json"),
        "{}",
        rules.why_ignored()
    );
}

#[test]
fn each_suppression_is_its_own_setting() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let entry =
        |title: &str| format!("  - title: \"{title}\"\n    reason: because\n    author: a\n");
    let write = |entries: &[&str]| {
        let text: String = entries.iter().map(|t| entry(t)).collect();
        std::fs::create_dir_all(root.join(".crit")).unwrap();
        std::fs::write(
            root.join(".crit/suppressions.yaml"),
            format!("suppressions:\n{text}"),
        )
        .unwrap();
    };
    write(&["Missing docstring*"]);
    let store = TrustStore::at(root.join("state/crit/trust.json"));
    store
        .trust(
            &root,
            &crit_review::template::trust_survey(&root).settings,
            SystemTime::now(),
        )
        .unwrap();
    write(&["Missing docstring*", "*"]);
    let e = [("XDG_STATE_HOME", root.join("state").display().to_string())];
    let rules = ProjectRules::discover(&root, &env(&e), None).unwrap();
    let s = Suppressions::load_with(&rules).unwrap();
    assert_eq!(s.entries(), ["title \"Missing docstring*\""]);
    assert_eq!(
        keys(&rules),
        [("suppression".into(), true), ("suppression".into(), false)]
    );
    // A broken file is an error whatever its trust: never a silent pass.
    std::fs::write(
        root.join(".crit/suppressions.yaml"),
        "suppressions:\n  - title: [\n",
    )
    .unwrap();
    assert!(Suppressions::load_with(&rules).is_err());
}

#[test]
fn template_hooks_are_dropped_not_the_template() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join(".crit/templates");
    std::fs::create_dir_all(&t).unwrap();
    std::fs::write(
        t.join("h.yaml"),
        "name: h\ndescription: d\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\nhooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: \"true\"\n",
    )
    .unwrap();
    let rules = ProjectRules::untrusted(dir.path(), "test");
    let reg = Registry::load_with(&TemplateDirs::default(), &rules).unwrap();
    assert_eq!(reg.get("h").unwrap().hooks, None);
    assert_eq!(keys(&rules), [("hooks".into(), false)]);
    assert_eq!(rules.asked()[0].setting.at(), ".crit/templates/h.yaml:6");
    let legacy = Registry::load(&TemplateDirs {
        user: None,
        project: Some(t.clone()),
        ..TemplateDirs::default()
    })
    .unwrap();
    assert_eq!(legacy.get("h").unwrap().hooks, None);
    let trusted = Registry::load_with(
        &TemplateDirs::default(),
        &ProjectRules::trusting(dir.path()),
    )
    .unwrap();
    assert!(trusted.get("h").unwrap().hooks.is_some());
}

#[test]
fn run_config_gates_servers_variables_and_paths_out_of_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("p");
    std::fs::create_dir_all(root.join(".crit/prompts")).unwrap();
    std::fs::write(root.join(".crit/prompts/o.md"), "Orchestrate.").unwrap();
    std::fs::write(dir.path().join("secret.md"), "SECRET").unwrap();
    let text = format!(
        "prompt: .crit/prompts/o.md\ncwd: ${{cwd}}\nmcp_servers:\n  a:\n    command: srv\n    env: {{T: \"${{env:TOKEN}}\"}}\nagents:\n  x:\n    description: d\n    prompt: \"Check ${{env:TEAM}}\"\n  y:\n    description: d\n    prompt: {}\nlogging:\n  output_dir: .crit/logs\n",
        dir.path().join("secret.md").display()
    );
    std::fs::write(root.join(".crit/run.yaml"), &text).unwrap();
    let vars = [
        ("TOKEN", "tok".to_string()),
        ("TEAM", "payments".to_string()),
    ];
    let rules = ProjectRules::untrusted(&root, "test");
    let c = RunConfig::load_with(&root.join(".crit/run.yaml"), &root, &env(&vars), &rules).unwrap();
    assert!(c.mcp_servers.is_empty());
    assert_eq!(
        c.prompt.as_deref(),
        Some("Orchestrate."),
        "a prompt file in the project is plain"
    );
    assert_eq!(c.cwd, root, "`${{cwd}}` is the project: no question");
    assert_eq!(c.logging.output_dir, Some(root.join(".crit/logs")));
    let names: Vec<&str> = c.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        ["x"],
        "the agent whose prompt is outside is left out"
    );
    assert_eq!(
        c.agents[0].system_prompt, "Check ${env:TEAM}",
        "kept as written"
    );
    let asked: Vec<String> = rules.asked().into_iter().map(|a| a.setting.key).collect();
    assert_eq!(asked, ["mcp_servers.a", "${env:TEAM}", "agents.y.prompt"]);

    let trusting = ProjectRules::trusting(&root);
    let c =
        RunConfig::load_with(&root.join(".crit/run.yaml"), &root, &env(&vars), &trusting).unwrap();
    assert_eq!(c.mcp_servers[0].env["T"], "tok");
    assert_eq!(c.agents.len(), 2);
    assert_eq!(c.agents[0].system_prompt, "Check payments");

    // A file outside the project is the user's own: nothing is asked.
    let own = dir.path().join("own.yaml");
    std::fs::write(&own, "mcp_servers:\n  b:\n    command: srv\n").unwrap();
    let rules = ProjectRules::untrusted(&root, "test");
    let c = RunConfig::load_with(&own, &root, &env(&vars), &rules).unwrap();
    assert_eq!(c.mcp_servers.len(), 1);
    assert!(rules.asked().is_empty());
}

/// A monorepo: the project is `svc/`. Its rules at a commit come from
/// `svc/.crit/` at that commit; a link there is not followed.
#[test]
fn rules_at_a_commit_for_a_project_in_a_subdirectory() {
    let repo = Repo::new();
    repo.write(
        "svc/.crit/config.yaml",
        "model: at-base\nbase_url: http://owner\n",
    );
    repo.write(
        "svc/.crit/templates/t.yaml",
        "name: t\ndescription: base\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\n",
    );
    repo.write(".crit/config.yaml", "model: top-level\n");
    std::os::unix::fs::symlink("/etc/hostname", repo.path("svc/.crit/suppressions.yaml")).unwrap();
    let base = repo.commit("base");
    repo.write(
        "svc/.crit/config.yaml",
        "model: changed\nbase_url: http://evil\n",
    );
    repo.write(
        "svc/.crit/templates/u.yaml",
        "name: u\ndescription: new\nsystem_prompt: s\nallowed_tools: [Read]\nprompt_template: x\n",
    );
    repo.commit("change");
    let svc = repo.path("svc");
    let rules = ProjectRules::discover(&svc, &crit_os::Env::new(), Some("HEAD~1")).unwrap();
    let Source::Revision(b) = rules.source() else {
        panic!("not at a commit")
    };
    assert_eq!(b.revision.sha, base);
    let c = Config::load_project(None, &rules).unwrap();
    assert_eq!(c.model.as_ref().unwrap().value, "at-base");
    assert_eq!(
        c.model.unwrap().source.to_string(),
        "HEAD~1:.crit/config.yaml:1"
    );
    assert_eq!(
        c.base_url.unwrap().value,
        "http://owner",
        "the owner's rules are honoured"
    );
    let reg = Registry::load_with(&TemplateDirs::default(), &rules).unwrap();
    assert_eq!(reg.get("t").unwrap().description, "base");
    assert!(
        reg.get("u").is_err(),
        "a template the change adds is not read"
    );
    assert!(
        Suppressions::load_with(&rules).unwrap().is_empty(),
        "a link is not a file"
    );
    assert_eq!(
        rules.read("../.crit/config.yaml").unwrap(),
        None,
        "never above the project"
    );
    let e =
        ProjectRules::discover(&svc, &crit_os::Env::new(), Some("--output=/tmp/x")).unwrap_err();
    assert!(e.to_string().contains("cannot start with `-`"), "{e}");
    let outside = tempfile::tempdir().unwrap();
    let e = ProjectRules::discover(outside.path(), &crit_os::Env::new(), Some("main")).unwrap_err();
    assert!(e.to_string().contains("not inside a git repository"), "{e}");
}

#[test]
fn a_survey_lists_every_file_kind_and_what_did_not_load() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let w = |p: &str, t: &str| {
        let p = root.join(p);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, t).unwrap();
    };
    w(".crit/config.yaml", "base_url: http://x\n");
    w(
        ".crit/suppressions.yaml",
        "suppressions:\n  - fingerprint: 0123456789abcdef\n    reason: r\n    author: a\n",
    );
    w(
        ".claude/reldo.json",
        r#"{"mcp_servers": {"s": {"command": "x", "env": {"K": "${env:UNSET_ANYWHERE}"}}}}"#,
    );
    w(".crit/templates/bad.yaml", "name: [\n");
    let s = crit_review::template::trust_survey(&root);
    let found: Vec<(&str, &str)> = s
        .settings
        .iter()
        .map(|g| (g.file.as_str(), g.key.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            (".crit/config.yaml", "base_url"),
            (".crit/suppressions.yaml", "suppression"),
            (".claude/reldo.json", "mcp_servers.s"),
            (".claude/reldo.json", "${env:UNSET_ANYWHERE}"),
        ]
    );
    assert_eq!(s.unreadable.len(), 1);
    assert!(s.unreadable[0].contains("bad.yaml"), "{:?}", s.unreadable);
    assert!(Path::new(&root).join(".crit").is_dir());
}

/// The environment a library caller hands a review decides whose trust
/// store judges the project and where the audit line goes; the process's
/// own environment is never read behind its back.
#[tokio::test]
async fn the_callers_env_not_the_processes_decides_trust_and_the_state_dir() {
    use crate::support_code::{self, agent, numbered, options};
    use crit_review::code::{CodeReviewRequest, CodeReviewer};
    use crit_testkit::{FakeServer, Reply};
    use serde_json::json;

    let bare = crit_review::review::ReviewOptions::new("sonnet");
    assert_eq!(bare.env, crit_os::Env::new(), "no fallback to the process");

    let repo = support_code::Repo::new();
    repo.git(&["checkout", "-q", "-b", "work"]);
    repo.write("src/app.py", &numbered(10, &[(5, "x = eval(input())")]));
    repo.commit("read input");
    let server = FakeServer::start().await;
    let finding = json!({"file_path": "src/app.py", "line_start": 5, "line_end": 5,
        "priority": 1, "title": "[P1] eval of user input", "body": "Why it matters."});
    for _ in 0..3 {
        server.push(Reply::json(
            json!({"verdict": "FAIL", "summary": "s", "findings": [finding]}),
        ));
    }
    let req = CodeReviewRequest {
        diff_range: Some("main..HEAD".into()),
        ..Default::default()
    };
    let (trusted, other) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = agent(&server, &repo, options(other.path()))
        .review(&req)
        .await;
    let id = first.findings[0].id.clone();
    repo.write(
        ".crit/suppressions.yaml",
        &format!("suppressions:\n  - fingerprint: {id}\n    reason: fine here\n    author: a\n"),
    );
    let root = repo.path().canonicalize().unwrap();
    let settings = crit_review::template::trust_survey(&root).settings;
    TrustStore::at(trusted.path().join("crit/trust.json"))
        .trust(&root, &settings, SystemTime::now())
        .unwrap();
    let audit_lines = |state: &Path| {
        let Ok(dir) = std::fs::read_dir(state.join("crit/audit")) else {
            return 0;
        };
        dir.filter_map(Result::ok)
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .map(|t| t.lines().count())
            .sum::<usize>()
    };
    assert_eq!(audit_lines(trusted.path()), 0);

    let judged_elsewhere = agent(&server, &repo, options(other.path()))
        .review(&req)
        .await;
    assert!(
        judged_elsewhere.dismissed.is_empty(),
        "{judged_elsewhere:#?}"
    );
    assert!(!judged_elsewhere.passed);
    assert_eq!(audit_lines(trusted.path()), 0, "the audit follows the env");
    assert_eq!(audit_lines(other.path()), 2);

    let judged_here = agent(&server, &repo, options(trusted.path()))
        .review(&req)
        .await;
    assert_eq!(judged_here.dismissed.len(), 1, "{judged_here:#?}");
    assert!(judged_here.passed);
    assert_eq!(audit_lines(trusted.path()), 1);
}
