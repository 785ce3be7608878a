//! The prompt review pipeline against crit-testkit's fake Anthropic server:
//! reviewers in parallel, triggers, a vague prompt refined, and every way it
//! fails open (one reviewer down, all down, malformed, rate limit, deadline,
//! no backend, the editor giving up), plus the cache and the editor model.

use crate::support;

use std::time::Duration;

use crit_project::config::prompt_review::{EditorMode, Mode, PromptConfig};
use crit_prompt::result::ReviewerState;
use crit_prompt::{Outcome, PromptOptions, Status, review};
use crit_testkit::prompt_review::{
    GUARDRAIL_CHECK, VAGUE, critique, finding, no_contradictions, no_issues_panel, vague_panel, who,
};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::{Value, json};
use support::{options, project, request, script as script_all};

/// The four always-on reviewers answer the vague prompt, each after `delay`,
/// except `except`.
fn script(server: &FakeServer, delay: Duration, except: &[&str]) {
    for (label, answer) in vague_panel() {
        if !except.contains(&label) {
            server.push(
                Step::when_contains(who(label))
                    .reply(Reply::json(answer).usage(700, 120, 0, 0).delay(delay)),
            );
        }
    }
    server.push(
        Step::when_contains(GUARDRAIL_CHECK)
            .reply(Reply::json(no_contradictions()).usage(100, 10, 0, 0)),
    );
}

fn script_four(server: &FakeServer, delay: Duration) {
    script(server, delay, &[]);
}

#[tokio::test]
async fn a_vague_prompt_is_refined_by_four_reviewers_at_once() {
    let server = FakeServer::start().await;
    script_four(&server, Duration::from_millis(300));
    let dir = project(&[(
        "package.json",
        r#"{"name":"obsidian-claude-daily","devDependencies":{"typescript":"5","vitest":"1","esbuild":"0.20"}}"#,
    )]);
    let r = review(
        &request(dir.path(), VAGUE),
        &options(&server, PromptConfig::default()),
    )
    .await;

    assert_eq!(r.status, Status::Refined, "{:#?}", r.warnings);
    assert_eq!(r.outcome, Outcome::Reviewed);
    assert_eq!(r.changes.len(), 4);
    assert!(
        r.refined.starts_with("Reduce settings.ts render time"),
        "{}",
        r.refined
    );
    assert!(
        r.refined.contains("## Guardrails\n- Never commit .env"),
        "{}",
        r.refined
    );
    assert!(r.diff.contains("-optimize the settings page"), "{}", r.diff);
    assert_eq!(r.project, "obsidian-claude-daily");
    let asked: Vec<&str> = r
        .reviewers
        .iter()
        .filter(|x| x.state != ReviewerState::NotRun)
        .map(|x| x.name.as_str())
        .collect();
    assert_eq!(asked, ["security", "testing", "domain_sme", "clarity"]);
    assert!(
        r.reviewers
            .iter()
            .filter(|x| x.state == ReviewerState::Ok)
            .count()
            == 4
    );
    // Four reviewers, and the refined prompt checked against Security's guardrail.
    assert_eq!(r.usage.input_tokens, 2900);
    assert!(r.cost_usd > 0.0 && (r.cost_usd - r.api_price_usd).abs() < 1e-12);
    assert_eq!(r.findings.len(), 4);
    assert_eq!(
        r.findings
            .iter()
            .filter(|f| f.severity == crit_core::Severity::P1)
            .count(),
        2
    );

    // Concurrently: every reviewer's request overlaps every other; the
    // guardrail check comes after them.
    let (checks, reqs): (Vec<_>, Vec<_>) = server
        .model_requests()
        .into_iter()
        .partition(|r| r.body.to_string().contains(GUARDRAIL_CHECK));
    assert_eq!(reqs.len(), 4);
    assert_eq!(checks.len(), 1);
    for a in &reqs {
        for b in &reqs {
            assert!(
                a.seq == b.seq || a.overlaps(b),
                "reviewers ran one after another"
            );
        }
    }
    // The project context is in every system prompt; the prompt is the user message.
    let body = reqs[0].body.to_string();
    assert!(body.contains("Project: obsidian-claude-daily"), "{body}");
    assert!(body.contains("Test framework: vitest"), "{body}");
    assert!(body.contains("optimize the settings page"), "{body}");
}

#[tokio::test]
async fn all_no_issues_passes_the_original_through_untouched() {
    let server = FakeServer::start().await;
    for label in ["Domain SME", "Security", "Clarity", "Testing"] {
        let role = match label {
            "Domain SME" => "domain_sme".to_string(),
            other => other.to_lowercase(),
        };
        server.push(Step::when_contains(who(label)).reply(Reply::json(critique(&role, json!([])))));
    }
    let dir = project(&[]);
    let prompt = "Rename `foo` to `bar` in src/lib.rs; run cargo test.\n";
    let r = review(
        &request(dir.path(), prompt),
        &options(&server, PromptConfig::default()),
    )
    .await;
    assert_eq!(r.status, Status::NoChanges);
    assert_eq!(r.refined, prompt);
    assert_eq!(r.chosen.as_deref(), Some(prompt));
    assert!(r.diff.is_empty());
    assert!(
        r.reviewers
            .iter()
            .filter(|x| x.state == ReviewerState::NoIssues)
            .count()
            == 4
    );
}

#[tokio::test]
async fn one_reviewer_down_the_others_are_used() {
    let server = FakeServer::start().await;
    server.push(Step::when_contains(who("Security")).reply(Reply::api_error(
        500,
        "api_error",
        "boom",
    )));
    script(&server, Duration::ZERO, &["Security"]);
    let dir = project(&[]);
    let r = review(
        &request(dir.path(), VAGUE),
        &options(&server, PromptConfig::default()),
    )
    .await;
    assert_eq!(r.status, Status::Refined);
    assert_eq!(r.changes.len(), 3);
    assert!(
        r.warnings.iter().any(|w| w == "1 reviewer unavailable"),
        "{:?}",
        r.warnings
    );
    let sec = r.reviewers.iter().find(|x| x.name == "security").unwrap();
    assert_eq!(sec.state, ReviewerState::Failed);
    assert!(sec.why.contains("boom"), "{}", sec.why);
}

#[tokio::test]
async fn a_malformed_critique_is_dropped_and_its_reviewer_skipped() {
    let server = FakeServer::start().await;
    // Prose, twice (the loop reminds it once).
    for _ in 0..2 {
        server.push(Step::when_contains(who("Clarity")).reply(Reply::text("Looks fine to me.")));
    }
    // A critique in the wrong role, as text.
    for _ in 0..2 {
        server.push(
            Step::when_contains(who("Testing"))
                .reply(Reply::text(critique("security", json!([])).to_string())),
        );
    }
    script(&server, Duration::ZERO, &["Clarity", "Testing"]);
    let dir = project(&[]);
    let r = review(
        &request(dir.path(), VAGUE),
        &options(&server, PromptConfig::default()),
    )
    .await;
    assert_eq!(r.status, Status::Refined);
    for name in ["clarity", "testing"] {
        let rep = r.reviewers.iter().find(|x| x.name == name).unwrap();
        assert_eq!(rep.state, ReviewerState::Skipped, "{name}: {}", rep.why);
        assert!(rep.why.starts_with("malformed critique"), "{}", rep.why);
    }
    assert!(
        r.warnings.iter().any(|w| w == "2 reviewers unavailable"),
        "{:?}",
        r.warnings
    );
    assert!(
        r.critiques
            .iter()
            .all(|c| c.reviewer != "clarity" && c.reviewer != "testing")
    );
}

#[tokio::test]
async fn every_reviewer_down_fails_open_with_the_original() {
    let server = FakeServer::start().await;
    for label in ["Domain SME", "Security", "Clarity", "Testing"] {
        server.push(Step::when_contains(who(label)).reply(Reply::api_error(
            500,
            "api_error",
            "down",
        )));
    }
    let dir = project(&[]);
    let r = review(
        &request(dir.path(), VAGUE),
        &options(&server, PromptConfig::default()),
    )
    .await;
    assert_eq!(r.status, Status::FailedOpen);
    assert_eq!(r.outcome, Outcome::FailedOpen);
    assert_eq!(r.refined, VAGUE);
    assert_eq!(r.chosen.as_deref(), Some(VAGUE));
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("all 4 reviewers were unavailable")
                && w.contains("the original prompt proceeds")),
        "{:?}",
        r.warnings
    );
}

#[tokio::test]
async fn a_rate_limit_fails_open() {
    let server = FakeServer::start().await;
    server.push(Step::when_contains(who("Security")).reply(Reply::api_error(
        429,
        "rate_limit_error",
        "slow down",
    )));
    script(&server, Duration::ZERO, &["Security"]);
    let dir = project(&[]);
    let r = review(
        &request(dir.path(), VAGUE),
        &options(&server, PromptConfig::default()),
    )
    .await;
    assert_eq!(r.status, Status::FailedOpen);
    assert_eq!(r.refined, VAGUE);
    assert!(
        r.warnings.iter().any(|w| w.contains("rate limited")),
        "{:?}",
        r.warnings
    );
}

fn with_timeout(ms: u64) -> PromptConfig {
    let mut c = PromptConfig::default();
    c.budget.timeout_ms = ms;
    c
}

#[tokio::test]
async fn the_deadline_fails_open_when_no_one_answered_in_time() {
    let server = FakeServer::start().await;
    script_four(&server, Duration::from_secs(5));
    let dir = project(&[]);
    let started = std::time::Instant::now();
    let r = review(
        &request(dir.path(), VAGUE),
        &options(&server, with_timeout(300)),
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the deadline did not stop the reviewers"
    );
    assert_eq!(r.status, Status::FailedOpen);
    assert_eq!(r.refined, VAGUE);
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("timed out after 0.3s")),
        "{:?}",
        r.warnings
    );
    assert!(
        r.reviewers
            .iter()
            .filter(|x| x.state != ReviewerState::NotRun)
            .all(|x| x.state == ReviewerState::TimedOut)
    );
}

#[tokio::test]
async fn a_slow_reviewer_is_left_behind_at_the_deadline() {
    let server = FakeServer::start().await;
    server.push(
        Step::when_contains(who("Testing"))
            .reply(Reply::json(critique("testing", json!([]))).delay(Duration::from_secs(5))),
    );
    script(&server, Duration::ZERO, &["Testing"]);
    let dir = project(&[]);
    let r = review(
        &request(dir.path(), VAGUE),
        &options(&server, with_timeout(1500)),
    )
    .await;
    assert_eq!(r.status, Status::Refined);
    let t = r.reviewers.iter().find(|x| x.name == "testing").unwrap();
    assert_eq!(t.state, ReviewerState::TimedOut);
    assert!(
        r.warnings.iter().any(|w| w == "1 reviewer unavailable"),
        "{:?}",
        r.warnings
    );
}

#[tokio::test]
async fn no_backend_fails_open() {
    let dir = project(&[]);
    let no_key = crit_llm::LlmError::Config {
        message: "no API key".into(),
    };
    let opts = PromptOptions::new(PromptConfig::default(), Err(no_key), Mode::Api);
    let r = review(&request(dir.path(), VAGUE), &opts).await;
    assert_eq!(r.status, Status::FailedOpen);
    assert!(
        r.warnings[0].contains("no model backend: configuration error: no API key"),
        "{:?}",
        r.warnings
    );
    assert_eq!(r.refined, VAGUE);
}

#[tokio::test]
async fn when_the_editor_gives_up_the_raw_critiques_are_shown() {
    let server = FakeServer::start().await;
    let big = "x".repeat(1_900);
    let findings: Vec<Value> = (0..20)
        .map(|i| {
            json!({"id": format!("SME-{i:03}"), "severity": "minor", "confidence": 0.5, "issue": format!("issue {i}"),
                   "evidence": "", "suggested_ops": (0..5).map(|j| json!({"op": "AddContext", "target": "context", "value": format!("{i}.{j} {big}")})).collect::<Vec<_>>()})
        })
        .collect();
    server.push(
        Step::when_contains(who("Domain SME"))
            .reply(Reply::json(critique("domain_sme", json!(findings)))),
    );
    script(&server, Duration::ZERO, &["Domain SME"]);
    let dir = project(&[]);
    let r = review(
        &request(dir.path(), VAGUE),
        &options(&server, PromptConfig::default()),
    )
    .await;
    assert_eq!(r.status, Status::EditorFailed);
    assert_eq!(r.refined, VAGUE);
    assert_eq!(r.chosen.as_deref(), Some(VAGUE));
    let bullets = r.raw_critiques.as_deref().unwrap();
    assert!(
        bullets.contains("- [Security] SEC-001 (major): SEC-001: the prompt is vague"),
        "{bullets}"
    );
    assert!(
        bullets.contains("  - AddGuardrail (constraints): Never commit .env"),
        "{bullets}"
    );
    assert!(
        r.warnings.iter().any(|w| w.contains("the editor failed")),
        "{:?}",
        r.warnings
    );
    assert_eq!(r.findings.len(), 23);
}

/// Every reviewer answers "no issues".
fn script_no_issues(server: &FakeServer) {
    script_all(server, no_issues_panel());
}

fn asked(r: &crit_prompt::PromptReview) -> Vec<String> {
    r.reviewers
        .iter()
        .filter(|x| x.state != ReviewerState::NotRun)
        .map(|x| x.name.clone())
        .collect()
}

#[tokio::test]
async fn conditional_reviewers_fire_and_stay_quiet() {
    let dir = project(&[("README.md", "# App\n"), ("src/lib.rs", "")]);
    let cases: [(&str, &[&str]); 5] = [
        (
            "Add a button to the settings tab",
            &["documentation", "frontend_ux"],
        ),
        ("Fix the address parser", &[]),
        ("Add a new command; fix the typo", &[]),
        ("Restyle `src/app/styles.css`", &["frontend_ux"]),
        ("Add caching to the API client", &["documentation"]),
    ];
    for (prompt, extra) in cases {
        let server = FakeServer::start().await;
        script_no_issues(&server);
        let r = review(
            &request(dir.path(), prompt),
            &options(&server, PromptConfig::default()),
        )
        .await;
        let mut want = vec!["security", "testing", "domain_sme"];
        want.extend(extra.iter().filter(|e| **e == "documentation"));
        want.extend(extra.iter().filter(|e| **e == "frontend_ux"));
        want.push("clarity");
        assert_eq!(asked(&r), want, "{prompt}: {:#?}", r.reviewers);
        assert_eq!(server.model_requests().len(), want.len(), "{prompt}");
    }
    // "typo" skips the documentation reviewer even though "new" and "command" match.
    let server = FakeServer::start().await;
    script_no_issues(&server);
    let r = review(
        &request(dir.path(), "Add a new command; fix the typo"),
        &options(&server, PromptConfig::default()),
    )
    .await;
    let doc = r
        .reviewers
        .iter()
        .find(|x| x.name == "documentation")
        .unwrap();
    assert_eq!(doc.why, "the prompt says `typo`");
    // No docs in the project: documentation stays quiet.
    let bare = project(&[("src/lib.rs", "")]);
    let server = FakeServer::start().await;
    script_no_issues(&server);
    let r = review(
        &request(bare.path(), "Add caching to the API client"),
        &options(&server, PromptConfig::default()),
    )
    .await;
    assert_eq!(asked(&r), ["security", "testing", "domain_sme", "clarity"]);
    // A React project: frontend fires on its stack alone.
    let react = project(&[("package.json", r#"{"dependencies":{"react":"19"}}"#)]);
    let server = FakeServer::start().await;
    script_no_issues(&server);
    let r = review(
        &request(react.path(), "Speed up the reducer"),
        &options(&server, PromptConfig::default()),
    )
    .await;
    let ux = r
        .reviewers
        .iter()
        .find(|x| x.name == "frontend_ux")
        .unwrap();
    assert_eq!(ux.why, "the project uses react");
    assert_ne!(ux.state, ReviewerState::NotRun);
}

#[tokio::test]
async fn the_reviewer_cap_and_disabled_reviewers() {
    let server = FakeServer::start().await;
    script_no_issues(&server);
    let dir = project(&[]);
    let mut c = PromptConfig::default();
    c.budget.max_reviewers_per_call = 2;
    c.reviewers.get_mut("security").unwrap().enabled = false;
    let r = review(&request(dir.path(), VAGUE), &options(&server, c)).await;
    assert_eq!(asked(&r), ["testing", "domain_sme"]);
    let clarity = r.reviewers.iter().find(|x| x.name == "clarity").unwrap();
    assert_eq!(clarity.why, "over budget.max_reviewers_per_call (2)");
    let sec = r.reviewers.iter().find(|x| x.name == "security").unwrap();
    assert_eq!(sec.why, "disabled");
}

#[tokio::test]
async fn a_users_reviewer_and_the_stack_specialised_sme() {
    let server = FakeServer::start().await;
    script_no_issues(&server);
    server.push(
        Step::when_contains("You are the Perf reviewer").reply(Reply::json(critique(
            "perf",
            json!([finding(
                "PERF-1",
                "minor",
                "",
                "AddConstraint",
                "Keep p95 latency under 50 ms"
            )]),
        ))),
    );
    let dir = project(&[
        (
            "Cargo.toml",
            "[package]\nname = \"svc\"\n[dependencies]\ntokio = \"1\"\n",
        ),
        (
            "perf.md",
            "Performance: latency budgets, allocations in hot loops.",
        ),
    ]);
    let mut c = PromptConfig::default();
    c.reviewers.insert(
        "perf".into(),
        serde_json::from_value(
            json!({"enabled": true, "conditional": false, "label": "Perf",
            "prompt_file": dir.path().join("perf.md").display().to_string()}),
        )
        .unwrap(),
    );
    let r = review(&request(dir.path(), VAGUE), &options(&server, c)).await;
    assert!(asked(&r).contains(&"perf".to_string()));
    assert!(
        r.refined.contains("- Keep p95 latency under 50 ms"),
        "{}",
        r.refined
    );
    let reqs = server.model_requests();
    let perf = reqs
        .iter()
        .find(|q| q.body.to_string().contains("You are the Perf reviewer"))
        .unwrap();
    assert!(
        perf.body
            .to_string()
            .contains("latency budgets, allocations in hot loops")
    );
    let sme = reqs
        .iter()
        .find(|q| {
            q.body
                .to_string()
                .contains("You are the Domain SME reviewer")
        })
        .unwrap();
    assert!(
        sme.body.to_string().contains("**Rust.**"),
        "the SME has no Rust notes"
    );
    assert!(!sme.body.to_string().contains("**Python.**"));
    let rep = r.reviewers.iter().find(|x| x.name == "domain_sme").unwrap();
    assert_eq!(rep.specialists, ["rust"]);
}

#[tokio::test]
async fn a_retried_prompt_comes_from_the_cache() {
    let server = FakeServer::start().await;
    script_four(&server, Duration::ZERO);
    let dir = project(&[]);
    let cache = tempfile::tempdir().unwrap();
    let mut opts = options(&server, PromptConfig::default());
    opts.cache_dir = Some(cache.path().to_path_buf());
    let marker = "MARKER-7f3a9";
    let prompt = format!("{VAGUE} {marker}");
    let first = review(&request(dir.path(), &prompt), &opts).await;
    assert_eq!(first.status, Status::Refined);
    assert!(!first.cached);
    let second = review(&request(dir.path(), &prompt), &opts).await;
    assert!(second.cached);
    assert_eq!(second.cost_usd, 0.0);
    assert_eq!(second.refined, first.refined);
    assert_eq!(second.changes, first.changes);
    assert_eq!(
        server.model_requests().len(),
        5,
        "the cached review asked the model again (four reviewers and the guardrail check the first time)"
    );
    // No prompt text in the cache.
    for e in std::fs::read_dir(cache.path()).unwrap() {
        let bytes = std::fs::read(e.unwrap().path()).unwrap();
        assert!(!bytes.windows(marker.len()).any(|w| w == marker.as_bytes()));
        assert!(!bytes.windows(8).any(|w| w == b"optimize"));
    }
    // A different context is a different review.
    std::fs::write(dir.path().join("CLAUDE.md"), "# Rules\n- Use pnpm\n").unwrap();
    script_four(&server, Duration::ZERO);
    let third = review(&request(dir.path(), &prompt), &opts).await;
    assert!(!third.cached);
    assert_eq!(server.model_requests().len(), 10);
    // No cache: asked again.
    script_four(&server, Duration::ZERO);
    opts.cache_dir = None;
    let fourth = review(&request(dir.path(), &prompt), &opts).await;
    assert!(!fourth.cached);
    assert_eq!(server.model_requests().len(), 15);
}

#[tokio::test]
async fn the_editor_model_phrases_the_merged_ops_or_the_deterministic_edit_stands() {
    let server = FakeServer::start().await;
    script_four(&server, Duration::ZERO);
    server.push(
        Step::when_contains("You edit prompts for AI coding agents").reply(Reply::json(
            json!({"refined_prompt": "Reduce settings.ts render time (phrased by the editor)."}),
        )),
    );
    let dir = project(&[]);
    let mut c = PromptConfig::default();
    c.editor.mode = EditorMode::Model;
    let r = review(&request(dir.path(), VAGUE), &options(&server, c.clone())).await;
    assert_eq!(
        r.refined,
        "Reduce settings.ts render time (phrased by the editor)."
    );
    assert_eq!(
        r.changes.len(),
        4,
        "the change list is the deterministic editor's"
    );
    let editor_req = server
        .model_requests()
        .into_iter()
        .find(|q| q.body.to_string().contains("You edit prompts"))
        .unwrap();
    let body = editor_req.body.to_string();
    assert!(body.contains("[Security] Added under Guardrails"), "{body}");
    assert!(
        body.contains("claude-sonnet-4-6"),
        "the editor model is models.editor"
    );

    let server = FakeServer::start().await;
    script_four(&server, Duration::ZERO);
    server.push(
        Step::when_contains("You edit prompts for AI coding agents").reply(Reply::api_error(
            500,
            "api_error",
            "editor down",
        )),
    );
    let r = review(&request(dir.path(), VAGUE), &options(&server, c)).await;
    assert_eq!(r.status, Status::Refined);
    assert!(
        r.refined
            .starts_with("Reduce settings.ts render time by extracting"),
        "{}",
        r.refined
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("the deterministic edit stands")),
        "{:?}",
        r.warnings
    );

    // A prompt with a credential in it: the reviewers see it redacted, and the
    // editor model (whose answer would replace the prompt) is not asked.
    let server = FakeServer::start().await;
    script_four(&server, Duration::ZERO);
    server.push(
        Step::when_contains("You edit prompts for AI coding agents")
            .reply(Reply::json(json!({"refined_prompt": "x"}))),
    );
    let key = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    let prompt = format!("{VAGUE} using {key}");
    let mut c = PromptConfig::default();
    c.editor.mode = EditorMode::Model;
    let r = review(&request(dir.path(), &prompt), &options(&server, c)).await;
    assert!(
        r.refined.contains(key),
        "the user's own prompt keeps its text"
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("the prompt holds a credential")),
        "{:?}",
        r.warnings
    );
    let reqs = server.model_requests();
    assert_eq!(reqs.len(), 5, "four reviewers and the guardrail check");
    assert!(
        reqs.iter().all(|q| !q.body.to_string().contains(key)),
        "a credential reached a reviewer or the guardrail check"
    );
}

#[tokio::test]
async fn subscription_mode_bills_nothing() {
    let server = FakeServer::start().await;
    script_four(&server, Duration::ZERO);
    let dir = project(&[]);
    let mut opts = options(&server, PromptConfig::default());
    opts.mode = Mode::Subscription;
    let r = review(&request(dir.path(), VAGUE), &opts).await;
    assert_eq!(r.cost_usd, 0.0);
    assert!(r.api_price_usd > 0.0);
    assert!(r.reviewers.iter().all(|x| x.cost_usd == 0.0));
}
