// Shared by the build scripts of the crates whose tests drive third-party
// programs installed by `.ci/install-test-deps` into `.test-deps/`: the official
// Anthropic and OpenAI Python SDKs, the Claude Code, Codex, Gemini, Copilot
// and OpenCode CLIs, pre-commit, check-jsonschema.
//
// Sets `cfg(missing_<dep>)` when a dependency is absent, so those tests carry
// `#[cfg_attr(missing_<dep>, ignore = "…")]` and the test harness reports them
// as ignored with the reason instead of passing silently. Under CI a missing
// dependency is a failure: each such crate also has a test that is never
// ignored and fails when `CI` is set and a dependency is missing.
//
// The script never reads `CI` (the crate would rebuild whenever it changes),
// and watches only files that exist (a missing one would rerun it, and rebuild
// the crate, on every build): the installer's stamp, `.test-deps/installed`.
// Before the first install, the default applies (rerun when a file of the
// crate changes); after installing, `touch` a crate's build.rs to re-check.

fn main() {
    // The workspace root: this crate's directory, or two up from crates/NAME.
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let top = if here.join(".ci").is_dir() { here.to_path_buf() } else { here.join("../..") };
    let root = top.join(".test-deps");
    let stamp = root.join("installed");
    if stamp.exists() {
        println!("cargo::rerun-if-changed={}", stamp.display());
    }
    for (cfg, file) in [
        ("missing_sdk_venv", "venv/bin/python"),
        ("missing_claude_cli", "npm/node_modules/.bin/claude"),
        ("missing_claude_cli_older", "npm-older/node_modules/.bin/claude"),
        ("missing_pre_commit", "venv/bin/pre-commit"),
        ("missing_check_jsonschema", "venv/bin/check-jsonschema"),
        ("missing_codex_cli", "npm/node_modules/.bin/codex"),
        ("missing_gemini_cli", "npm/node_modules/.bin/gemini"),
        ("missing_copilot_cli", "npm/node_modules/.bin/copilot"),
        ("missing_opencode_cli", "npm/node_modules/.bin/opencode"),
    ] {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if !root.join(file).exists() {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}
