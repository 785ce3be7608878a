//! What the change under review is used for: the filter modes (reviewdog's
//! names) that keep findings to the change, and the code prompt rendering a
//! computed change — through real temporary git repositories.

use crate::scope_support;

use crit_core::{Finding, Location, Severity};
use crit_project::scope::{FilterMode, Scope};
use scope_support::{diff, feature_repo, run};

// ---- the prompt -------------------------------------------------------------------

#[test]
fn the_code_prompt_reads_a_computed_change() {
    use crit_review::template::Registry;
    let (repo, base) = feature_repo();
    let c = run(&repo, &diff("main"));
    let reg = Registry::built_in().unwrap();
    let t = reg.get("code").unwrap();
    let inputs = t.resolve_inputs(&Default::default()).unwrap();
    let mut extra = std::collections::BTreeMap::new();
    extra.insert(
        "scope".to_string(),
        minijinja::Value::from(minijinja::value::Serde(&c)),
    );
    // The change is the work (data), sent before the instructions.
    let p = t.render(&t.panel()[0], &inputs, &extra).unwrap();
    let user = format!("{}\n{}", p.work, p.about);
    let want = [
        format!(
            "<commits>\nchanges since merge base {} with main\n",
            &base[..7]
        ),
        "- `a.txt` (modified, +1 −1)".to_string(),
        "- `c.txt` (added, +2 −0)".to_string(),
        "+changed 10".to_string(),
    ];
    for w in want {
        assert!(user.contains(&w), "missing {w:?} in:\n{user}");
    }
    assert!(!user.contains("cut to fit"));
}

// ---- filter modes ---------------------------------------------------------------

fn finding(path: &str, line: Option<u32>) -> Finding {
    let mut f = Finding::new(format!("{path}:{line:?}"), Severity::P2, "t");
    f.location = Some(match line {
        Some(l) => Location::lines(path, l, l),
        None => Location::File {
            path: path.into(),
            line_start: None,
            line_end: None,
        },
    });
    f
}

#[test]
fn filter_modes_on_added_context_elsewhere_and_unchanged() {
    let (repo, _) = feature_repo();
    let c = run(&repo, &diff("main"));
    // a.txt: line 10 added, hunk new side 7..=13; b.txt unchanged.
    let cases = [
        (("a.txt", Some(10)), [true, true, true, true]),
        (("a.txt", Some(8)), [false, true, true, true]),
        (("a.txt", Some(18)), [false, false, true, true]),
        (("b.txt", Some(1)), [false, false, false, true]),
        (("a.txt", None), [true, true, true, true]),
        (("./c.txt", Some(2)), [true, true, true, true]),
    ];
    let modes = [
        FilterMode::Added,
        FilterMode::DiffContext,
        FilterMode::File,
        FilterMode::NoFilter,
    ];
    for ((path, line), want) in cases {
        for (mode, want) in modes.iter().zip(want) {
            assert_eq!(
                c.contains(path, line, line, *mode),
                want,
                "{path}:{line:?} under {mode}"
            );
        }
    }
    // A range overlapping the hunk's edge counts.
    assert!(c.contains("a.txt", Some(13), Some(30), FilterMode::DiffContext));
    assert!(!c.contains("a.txt", Some(14), Some(30), FilterMode::DiffContext));
    assert!(c.contains("a.txt", Some(1), Some(10), FilterMode::Added));

    let mut findings = vec![
        finding("a.txt", Some(10)),
        finding("a.txt", Some(8)),
        finding("a.txt", Some(18)),
        finding("b.txt", Some(1)),
        Finding::new("no location", Severity::P1, "t"),
    ];
    let mut doc = Finding::new("doc", Severity::P3, "t");
    doc.location = Some(Location::Document {
        path: "DESIGN.md".into(),
        heading: None,
        line: Some(1),
    });
    findings.push(doc);

    c.mark(&mut findings);
    let marks: Vec<Option<bool>> = findings.iter().map(|f| f.in_change).collect();
    assert_eq!(
        marks,
        [Some(true), Some(true), Some(false), Some(false), None, None]
    );

    let mut added = findings.clone();
    assert_eq!(c.filter(&mut added, FilterMode::Added), 3);
    assert_eq!(added.len(), 3);
    let mut file_mode = findings.clone();
    assert_eq!(c.filter(&mut file_mode, FilterMode::File), 1);
    let mut all = findings.clone();
    assert_eq!(c.filter(&mut all, FilterMode::NoFilter), 0);

    let survey = run(&repo, &Scope::Survey);
    assert!(survey.contains("anything.rs", Some(1), None, FilterMode::Added));
}

#[test]
fn filter_mode_names_are_reviewdogs() {
    for (name, mode) in [
        ("added", FilterMode::Added),
        ("diff_context", FilterMode::DiffContext),
        ("file", FilterMode::File),
        ("nofilter", FilterMode::NoFilter),
    ] {
        assert_eq!(name.parse::<FilterMode>().unwrap(), mode);
        assert_eq!(mode.to_string(), name);
    }
    assert_eq!(
        "diff-context".parse::<FilterMode>().unwrap(),
        FilterMode::DiffContext
    );
    let err = "lines".parse::<FilterMode>().unwrap_err().to_string();
    assert!(
        err.contains("`lines`") && err.contains("diff_context"),
        "{err}"
    );
}

// ---- scale ------------------------------------------------------------------------

// ---- a change handed in -----------------------------------------------------------

/// A caller that read the change already (the Stop gate fingerprints what it
/// reviews) hands it to the review, which reviews it as handed and does not
/// read the repository's change again: a commit made after it was read is
/// not in what the reviewer is sent.
#[test]
fn a_handed_change_is_reviewed_as_handed() {
    use crit_llm::{Anthropic, AnthropicAuth, AnthropicConfig, Backend, RetryPolicy, Secret};
    use crit_review::review::{ReviewOptions, ReviewRequest, run_template};
    use crit_review::template::Registry;
    use crit_testkit::{FakeServer, Reply, Step};
    use std::sync::Arc;

    let (repo, _) = feature_repo();
    let mut opts = ReviewOptions::new("sonnet");
    opts.log = false;
    let home = repo.home.clone();
    opts.env = crit_os::Env::new().with("HOME", home.display().to_string());
    let scope = diff("main");
    let handed = crit_project::scope::compute(&repo.root, &scope, &opts.scope_options()).unwrap();
    repo.write("c.txt", "read after the change was handed\n");
    repo.commit("later");

    let server = FakeServer::start_blocking();
    server.push(Step::reply(Reply::json(serde_json::json!(
        {"verdict": "PASS", "summary": "Fine.", "findings": []}
    ))));
    let mut c = AnthropicConfig::new(
        server.url(),
        AnthropicAuth::ApiKey(Secret::new("sk-ant-test")),
    );
    c.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    let backend = Backend {
        model: Arc::new(Anthropic::new(c).unwrap()),
        agent: None,
    };
    let req = ReviewRequest {
        template: Registry::built_in().unwrap().get("code").unwrap().clone(),
        inputs: Default::default(),
        scope: Some(scope),
        change: Some(handed),
        context_file: None,
        root: repo.root.clone(),
        cwd: repo.root.clone(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let r = rt.block_on(run_template(&backend, &req, &opts)).unwrap();
    assert!(r.passed, "{}", r.summary);
    let sent = server.model_requests()[0].body.to_string();
    assert!(sent.contains("+ changed 10"), "{sent}");
    assert!(!sent.contains("read after the change was handed"), "{sent}");
}
