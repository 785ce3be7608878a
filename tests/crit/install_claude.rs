//! `crit install claude-code` and `crit uninstall claude-code` through the
//! binary: a settings.json with other hooks and unknown keys gets a golden
//! diff, a second run changes nothing, uninstall restores it byte for byte;
//! files that are not crit's are never overwritten or removed; and the
//! repository's Claude Code plugin ships the same hooks and commands.

use crate::support;

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};
use support::write;

/// A user's settings: their own hooks (one under an event crit uses), keys
/// crit does not know, four-space indentation.
const SETTINGS: &str = r#"{
    "model": "opus",
    "permissions": {
        "allow": [
            "Bash(npm run test:*)"
        ],
        "deny": []
    },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [
                    {
                        "type": "command",
                        "command": "./scripts/guard.sh"
                    }
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "notify-send done"
                    }
                ]
            }
        ]
    },
    "x-team": {
        "owner": "platform",
        "numbers": [
            1,
            2.5,
            -3
        ]
    }
}
"#;

/// What install says when it adds rules to a project's settings.
const TRUSTED: &str = "Claude Code applies a project's permission rules once you have trusted its folder (claude asks the first time it runs there); until then `claude -p` there refuses crit's commands";

/// What install says it wired, when it wired everything.
pub(crate) const WIRED: &str = "wired prompt-review: the prompt review on a prompt ending in `!!!`\n\
wired stop-gate: the review gate when the agent stops\n\
wired plan-gate: the plan gate when the agent leaves plan mode\n\
wired agent: the expert-review agent\n\
wired statusline: the status line\n\
To take a piece out, run `crit uninstall claude-code`, then `crit install claude-code --skip NAME` (or `--only NAME,…`)\n";

/// crit in `dir`, with its own directory on PATH as after an install.
pub(crate) fn crit(dir: &Path) -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("crit").unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_crit")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    c.env_clear()
        .env("PATH", path)
        .env("HOME", dir.join(".home"))
        .env("XDG_STATE_HOME", dir.join(".state"))
        .current_dir(dir);
    c
}

pub(crate) fn run(dir: &Path, args: &[&str]) -> Output {
    let out = crit(dir).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        support::stderr(&out)
    );
    out
}

pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub(crate) fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap()
}

#[test]
fn install_merges_golden_idempotent_and_uninstall_restores_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    write(d, ".claude/settings.json", SETTINGS);

    // --dry-run: the diff, and nothing written.
    let dry = run(d, &["install", "claude-code", "--dry-run"]);
    insta::assert_snapshot!("install_dry_run", stdout(&dry));
    assert_eq!(read(d, ".claude/settings.json"), SETTINGS);
    assert!(!d.join(".claude/commands").exists());
    assert!(!d.join(".claude/agents").exists());
    assert!(!d.join(".claude/crit-install.json").exists());

    let first = run(d, &["install", "claude-code", "--project"]);
    assert_eq!(
        stdout(&first),
        format!(
            ".claude/settings.json: added UserPromptSubmit hook, Stop hook, PreToolUse hook, status line\n\
             .claude/settings.json: allowed Skill(prompt-review), Bash(crit prompt:*), Skill(crit-review), Bash(crit plan:*)\n\
             wrote .claude/commands/prompt-review.md\n\
             wrote .claude/commands/crit-review.md\n\
             wrote .claude/agents/expert-review.md\n\
             {TRUSTED}\n{WIRED}"
        )
    );
    let installed = read(d, ".claude/settings.json");
    // The file now is what the dry run showed.
    let dry_text = stdout(&dry);
    for line in dry_text
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
    {
        assert!(installed.contains(&line[1..]), "{line}");
    }
    let v: Value = serde_json::from_str(&installed).unwrap();
    assert_eq!(v["model"], "opus");
    assert_eq!(v["x-team"]["numbers"], json!([1, 2.5, -3]));
    assert_eq!(
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        "./scripts/guard.sh"
    );
    assert_eq!(
        v["hooks"]["Stop"][0]["hooks"][0]["command"],
        "notify-send done"
    );
    assert_eq!(
        v["hooks"]["Stop"][1]["hooks"][0]["command"],
        "crit hook claude-code Stop"
    );
    assert_eq!(
        v["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"],
        "crit hook claude-code UserPromptSubmit"
    );
    assert_eq!(v["statusLine"]["command"], "crit statusline");
    assert_eq!(
        v["permissions"],
        json!({"allow": ["Bash(npm run test:*)", "Skill(prompt-review)", "Bash(crit prompt:*)", "Skill(crit-review)", "Bash(crit plan:*)"], "deny": []})
    );
    assert_eq!(
        read(d, ".claude/agents/expert-review.md"),
        read(
            Path::new(env!("CARGO_MANIFEST_DIR")),
            "claude-plugin/agents/expert-review.md"
        )
    );
    assert_eq!(
        read(d, ".claude/commands/prompt-review.md"),
        read(
            Path::new(env!("CARGO_MANIFEST_DIR")),
            "claude-plugin/commands/prompt-review.md"
        )
    );

    // A second run changes nothing.
    let second = run(d, &["install", "claude-code"]);
    assert_eq!(
        stdout(&second),
        format!(".claude/settings.json: crit's hooks are already there\n{WIRED}")
    );
    assert_eq!(read(d, ".claude/settings.json"), installed);
    let dry = run(d, &["install", "claude-code", "--dry-run"]);
    assert_eq!(
        stdout(&dry),
        ".claude/settings.json: no change (crit's hooks are already there)\n"
    );

    // Uninstall: exactly what was added comes out.
    let dry = run(d, &["uninstall", "claude-code", "--dry-run"]);
    assert!(stdout(&dry).contains("would remove .claude/commands/prompt-review.md"));
    assert!(stdout(&dry).contains("would remove .claude/agents/expert-review.md"));
    assert_eq!(read(d, ".claude/settings.json"), installed);
    let out = run(d, &["uninstall", "claude-code"]);
    assert_eq!(
        stdout(&out),
        ".claude/settings.json: removed UserPromptSubmit hook, Stop hook, PreToolUse hook, status line\n\
         .claude/settings.json: no longer allows Skill(prompt-review), Bash(crit prompt:*), Skill(crit-review), Bash(crit plan:*)\n\
         removed .claude/commands/prompt-review.md\n\
         removed .claude/commands/crit-review.md\n\
         removed .claude/agents/expert-review.md\n"
    );
    assert_eq!(read(d, ".claude/settings.json"), SETTINGS);
    assert!(!d.join(".claude/commands").exists());
    assert!(!d.join(".claude/agents").exists());
    assert!(!d.join(".claude/crit-install.json").exists());
    let again = run(d, &["uninstall", "claude-code"]);
    assert!(
        stdout(&again).starts_with("nothing to uninstall"),
        "{}",
        stdout(&again)
    );
}

#[test]
fn what_the_user_had_or_changed_stays() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    let mine = r#"{
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "crit hook claude-code UserPromptSubmit",
            "timeout": 5
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "my-statusline"
  }
}
"#;
    write(d, ".claude/settings.json", mine);
    write(d, ".claude/commands/prompt-review.md", "my own command\n");
    let out = run(d, &["install", "claude-code"]);
    assert_eq!(
        stdout(&out),
        format!(
            ".claude/settings.json: added Stop hook, PreToolUse hook\n\
             .claude/settings.json: allowed Skill(prompt-review), Bash(crit prompt:*), Skill(crit-review), Bash(crit plan:*)\n\
             wrote .claude/commands/crit-review.md\n\
             wrote .claude/agents/expert-review.md\n\
             .claude/settings.json has a status line of its own; crit left it. To show crit's gate in it, have your command run `crit statusline` with the same input on stdin and print its line beside yours\n\
             {TRUSTED}\n{WIRED}"
        )
    );
    assert_eq!(
        support::stderr(&out),
        "crit: .claude/commands/prompt-review.md is not crit's (crit did not write it, or it was changed since); left as it is. To install crit's, move it aside and run `crit install claude-code` again\n"
    );
    let v: Value = serde_json::from_str(&read(d, ".claude/settings.json")).unwrap();
    assert_eq!(v["hooks"]["UserPromptSubmit"].as_array().unwrap().len(), 1);
    assert_eq!(v["statusLine"]["command"], "my-statusline");
    // The user edits the command crit wrote: uninstall leaves it.
    write(d, ".claude/commands/crit-review.md", "edited\n");
    let out = run(d, &["uninstall", "claude-code"]);
    assert!(
        support::stderr(&out)
            .contains(".claude/commands/crit-review.md is not the text crit ships"),
        "{}",
        support::stderr(&out)
    );
    assert_eq!(read(d, ".claude/settings.json"), mine);
    assert_eq!(
        read(d, ".claude/commands/prompt-review.md"),
        "my own command\n"
    );
    assert_eq!(read(d, ".claude/commands/crit-review.md"), "edited\n");
}

#[test]
fn a_fresh_install_is_taken_out_entirely_and_user_scope_uses_home() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    run(d, &["install", "claude-code", "--subagent-stop"]);
    let v: Value = serde_json::from_str(&read(d, ".claude/settings.json")).unwrap();
    assert_eq!(
        v["hooks"]["SubagentStop"][0]["hooks"][0]["command"],
        "crit hook claude-code SubagentStop"
    );
    run(d, &["uninstall", "claude-code"]);
    assert!(
        !d.join(".claude").exists(),
        "crit created .claude; uninstall removes it"
    );

    let out = run(d, &["install", "claude-code", "--user"]);
    assert!(
        !stdout(&out).contains("trusted its folder"),
        "user rules apply everywhere: {}",
        stdout(&out)
    );
    assert!(d.join(".home/.claude/settings.json").exists());
    assert!(d.join(".home/.claude/commands/prompt-review.md").exists());
    assert!(d.join(".home/.claude/agents/expert-review.md").exists());
    assert!(!d.join(".claude").exists());
    run(d, &["uninstall", "claude-code", "--user"]);
    assert!(!d.join(".home/.claude").exists());
}

#[test]
fn settings_crit_does_not_understand_are_left_alone() {
    for (text, want) in [
        (
            "{\n  \"hooks\": {\n    \"Stop\": [\n  }\n}\n",
            ".claude/settings.json:4:3: not valid JSON",
        ),
        ("[1, 2]\n", "the file is not a JSON object"),
        ("{\"hooks\": []}\n", "`hooks` is not an object"),
        (
            "{\"hooks\": {\"Stop\": {\"x\": 1}}}\n",
            "`hooks.Stop` is not an array",
        ),
        (
            "{\"permissions\": [\"Bash(crit plan:*)\"]}\n",
            "`permissions` is not an object",
        ),
        (
            "{\"permissions\": {\"allow\": \"Bash(crit plan:*)\"}}\n",
            "`permissions.allow` is not an array",
        ),
        (
            "{\"permissions\": {\"allow\": null}}\n",
            "`permissions.allow` is not an array",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join(".git")).unwrap();
        write(d, ".claude/settings.json", text);
        let out = crit(d).args(["install", "claude-code"]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(
            support::stderr(&out).contains(want),
            "{text}: {}",
            support::stderr(&out)
        );
        assert_eq!(read(d, ".claude/settings.json"), text);
        assert!(!d.join(".claude/commands").exists());
        assert!(!d.join(".claude/agents").exists());
        assert!(!d.join(".claude/crit-install.json").exists());
    }
}

/// The plugin in `claude-plugin/` ships what `crit install` writes (the
/// permission rules excepted: Claude Code takes none from a plugin).
#[test]
fn the_plugin_ships_the_same_hooks_and_commands() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let plugin = root.join("claude-plugin");
    let manifest: Value =
        serde_json::from_str(&read(&plugin, ".claude-plugin/plugin.json")).unwrap();
    assert_eq!(manifest["name"], "crit");
    let hooks: Value = serde_json::from_str(&read(&plugin, "hooks/hooks.json")).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join(".git")).unwrap();
    run(d, &["install", "claude-code"]);
    let installed: Value = serde_json::from_str(&read(d, ".claude/settings.json")).unwrap();
    assert_eq!(hooks["hooks"], installed["hooks"]);
    for rel in [
        "commands/prompt-review.md",
        "commands/crit-review.md",
        "agents/expert-review.md",
    ] {
        assert_eq!(read(&plugin, rel), read(d, &format!(".claude/{rel}")));
    }
    let market: Value =
        serde_json::from_str(&read(root, ".claude-plugin/marketplace.json")).unwrap();
    assert_eq!(market["plugins"][0]["source"], "./claude-plugin");
}
