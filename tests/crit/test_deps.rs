//! Under CI every third-party test dependency must be installed: the tests
//! that need one are ignored where it is missing (see `.ci/test_deps_cfg.rs`),
//! and this test, never ignored, is what makes a missing one fail CI.

#[test]
fn under_ci_no_test_dependency_is_missing() {
    if std::env::var_os("CI").is_none_or(|v| v.is_empty()) {
        return;
    }
    let missing: Vec<&str> = [
        (cfg!(missing_sdk_venv), "the Python SDK venv"),
        (cfg!(missing_claude_cli), "the Claude Code CLI"),
        (cfg!(missing_claude_cli_older), "the older Claude Code CLI"),
        (cfg!(missing_pre_commit), "pre-commit"),
        (cfg!(missing_check_jsonschema), "check-jsonschema"),
        (cfg!(missing_codex_cli), "the Codex CLI"),
        (cfg!(missing_gemini_cli), "the Gemini CLI"),
        (cfg!(missing_copilot_cli), "the Copilot CLI"),
        (cfg!(missing_opencode_cli), "OpenCode"),
    ]
    .into_iter()
    .filter_map(|(m, what)| m.then_some(what))
    .collect();
    assert!(
        missing.is_empty(),
        "missing under CI: {}; run .ci/install-test-deps (then touch a build.rs to re-check)",
        missing.join(", ")
    );
}
