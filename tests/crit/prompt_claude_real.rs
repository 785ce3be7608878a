//! `crit prompt` in subscription mode on the real Claude Code CLI (npm
//! `@anthropic-ai/claude-code`, pinned in `.ci/install-test-deps`), pointed at
//! crit-testkit's fake Anthropic server: four CLI processes at once, each
//! answering through the CLI's own `--json-schema` StructuredOutput tool.
//!
//! Without the installed CLI this test is reported as ignored, with the
//! reason, on a developer machine; under CI (`CI` set) it fails, because CI
//! installs it.

use crate::support;

use crit_testkit::prompt_review::{GUARDRAIL_CHECK, critique, no_contradictions};
use crit_testkit::{FakeServer, Reply, Step};
use serde_json::json;

#[test]
#[cfg_attr(
    missing_claude_cli,
    ignore = "the Claude Code CLI is not installed: run .ci/install-test-deps"
)]
fn subscription_mode_on_the_real_claude_code_cli() {
    let bin = crate::support::npm_bin("claude");
    let server = FakeServer::start_blocking();
    let answers = [
        ("Domain SME", critique("domain_sme", json!([]))),
        (
            "Security",
            critique(
                "security",
                json!([{"id": "SEC-001", "severity": "major", "confidence": 0.9,
            "issue": "secrets", "evidence": "", "suggested_ops": [{"op": "AddGuardrail", "target": "constraints",
            "value": "Never commit .env files"}]}]),
            ),
        ),
        (
            "Clarity",
            critique(
                "clarity",
                json!([{"id": "CLR-001", "severity": "minor", "confidence": 0.9,
            "issue": "vague", "evidence": "optimize the settings", "suggested_ops": [{"op": "ReplaceVague",
            "target": "constraints", "value": "Reduce settings.ts render time"}]}]),
            ),
        ),
        ("Testing", critique("testing", json!([]))),
    ];
    for (label, answer) in answers {
        server.push(
            Step::when_contains(format!("You are the {label} reviewer"))
                .reply(Reply::json(answer).usage(900, 60, 0, 0)),
        );
    }
    server.push(Step::when_contains(GUARDRAIL_CHECK).reply(Reply::json(no_contradictions())));
    let dir = tempfile::tempdir().unwrap();
    support::write(dir.path(), "Cargo.toml", "[package]\nname = \"svc\"\n");
    let out = support::crit(dir.path(), &server, None)
        .env("CRIT_CLAUDE_BIN", &bin)
        // The fake server's key goes through to the CLI (a subscription run removes it).
        .env("CRIT_CLAUDE_AUTH", "env")
        .env("DISABLE_AUTOUPDATER", "1")
        .env("PROMPT_REVIEW_TIMEOUT", "120000")
        .args([
            "prompt",
            "--yes",
            "--no-cache",
            "optimize the settings page",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Reduce settings.ts render time page\n\n## Guardrails\n- Never commit .env files\n",
        "{stderr}"
    );
    assert!(stderr.contains("Cost: $0.00 (subscription"), "{stderr}");
    assert!(
        !stderr.contains("not checked against the security guardrails"),
        "{stderr}"
    );
    let reqs = server.model_requests();
    for label in ["Domain SME", "Security", "Clarity", "Testing"] {
        let req = reqs
            .iter()
            .find(|r| {
                r.body
                    .to_string()
                    .contains(&format!("You are the {label} reviewer"))
            })
            .unwrap_or_else(|| panic!("no request for {label}"));
        assert_eq!(req.body["model"], "claude-haiku-4-5");
        let offered = req.body["tools"]
            .as_array()
            .is_some_and(|ts| ts.iter().any(|t| t["name"] == "StructuredOutput"));
        assert!(offered, "{label}: no StructuredOutput tool");
    }
}
