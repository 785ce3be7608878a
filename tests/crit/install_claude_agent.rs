//! The expert-review agent and the permission rules `crit install
//! claude-code` adds, through the binary: a user's own `expert-review.md`
//! (the original agent) is never overwritten and install says how to get
//! crit's; crit's own older agent is updated in place; rules and hooks the
//! user added after install stay through uninstall; `permissions` of odd
//! shapes are refused or kept as they are; and a hostile checkout's links
//! and ledger make install and uninstall write and remove nothing of the
//! user's.

use crate::install_claude::{crit, read, run, stdout};
use crate::support;

use std::os::unix::fs::symlink;
use std::path::Path;

use serde_json::{Value, json};
use support::write;

/// The original expert-review's own agent file, as a user has it.
const ORIGINAL_AGENT: &str = "---\nname: expert-review\ndescription: Generic plan reviewer. Loads checks from external sources. Returns APPROVED/REJECTED/INCOMPLETE/ERROR.\n---\n\n## CALLER REQUIREMENTS\n";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    dir
}

fn settings(d: &Path) -> Value {
    serde_json::from_str(&read(d, ".claude/settings.json")).unwrap()
}

fn ledger(d: &Path) -> Value {
    serde_json::from_str(&read(d, ".claude/crit-install.json")).unwrap()
}

fn crit_agent() -> String {
    read(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "claude-plugin/agents/expert-review.md",
    )
}

#[test]
fn a_user_s_own_expert_review_agent_is_never_overwritten() {
    let dir = project();
    let d = dir.path();
    write(d, ".claude/agents/expert-review.md", ORIGINAL_AGENT);
    let out = run(d, &["install", "claude-code"]);
    assert_eq!(
        support::stderr(&out),
        "crit: .claude/agents/expert-review.md is not crit's (crit did not write it, or it was changed since) and `Task(subagent_type=\"expert-review\")` keeps running it, not `crit plan`; left as it is. To install crit's, move it aside and run `crit install claude-code` again\n"
    );
    assert!(
        !stdout(&out).contains("agents/expert-review"),
        "{}",
        stdout(&out)
    );
    assert_eq!(read(d, ".claude/agents/expert-review.md"), ORIGINAL_AGENT);
    // The rest is installed all the same.
    assert_eq!(
        settings(d)["permissions"]["allow"],
        json!([
            "Skill(prompt-review)",
            "Bash(crit prompt:*)",
            "Skill(crit-review)",
            "Bash(crit plan:*)"
        ])
    );
    let listed = ledger(d)["files"].to_string();
    assert!(!listed.contains("expert-review"), "{listed}");
    // A second install leaves it too; uninstall never removes it.
    run(d, &["install", "claude-code"]);
    assert_eq!(read(d, ".claude/agents/expert-review.md"), ORIGINAL_AGENT);
    run(d, &["uninstall", "claude-code"]);
    assert_eq!(read(d, ".claude/agents/expert-review.md"), ORIGINAL_AGENT);
    assert!(!d.join(".claude/settings.json").exists());

    // Resolved as install says: crit's agent, and the user's moved one kept.
    std::fs::rename(
        d.join(".claude/agents/expert-review.md"),
        d.join(".claude/agents/expert-review.md.orig"),
    )
    .unwrap();
    let out = run(d, &["install", "claude-code"]);
    assert!(
        stdout(&out).contains("wrote .claude/agents/expert-review.md"),
        "{}",
        stdout(&out)
    );
    assert_eq!(support::stderr(&out), "");
    assert_eq!(read(d, ".claude/agents/expert-review.md"), crit_agent());
    run(d, &["uninstall", "claude-code"]);
    assert!(!d.join(".claude/agents/expert-review.md").exists());
    assert_eq!(
        read(d, ".claude/agents/expert-review.md.orig"),
        ORIGINAL_AGENT
    );
}

/// A ledger entry that vouches for `text` as what crit wrote at `rel`.
fn vouch(ledger_path: &Path, rel: &str, text: &str) {
    let mut l: Value =
        serde_json::from_str(&std::fs::read_to_string(ledger_path).unwrap()).unwrap();
    for f in l["files"].as_array_mut().unwrap() {
        if f["path"] == rel {
            f["sha256"] = json!(crit_os::seal::sha256_hex(text.as_bytes()));
        }
    }
    std::fs::write(ledger_path, l.to_string()).unwrap();
}

#[test]
fn crit_s_own_older_agent_is_updated_and_an_edited_one_kept() {
    // In the user's own ~/.claude the ledger is the user's: it vouches for
    // an earlier crit's agent, which install updates.
    let dir = project();
    let d = dir.path();
    run(d, &["install", "claude-code", "--user"]);
    let older = "---\nname: expert-review\n---\nan earlier crit's agent\n";
    write(d, ".home/.claude/agents/expert-review.md", older);
    vouch(
        &d.join(".home/.claude/crit-install.json"),
        "agents/expert-review.md",
        older,
    );
    let out = run(d, &["install", "claude-code", "--user"]);
    assert_eq!(support::stderr(&out), "");
    assert_eq!(
        read(d, ".home/.claude/agents/expert-review.md"),
        crit_agent()
    );

    // The user edits it: install and uninstall leave their version.
    let edited = crit_agent().replace("model: haiku", "model: opus");
    write(d, ".home/.claude/agents/expert-review.md", &edited);
    let out = run(d, &["install", "claude-code", "--user"]);
    assert!(
        support::stderr(&out).contains("expert-review.md is not crit's"),
        "{}",
        support::stderr(&out)
    );
    let out = run(d, &["uninstall", "claude-code", "--user"]);
    assert!(
        support::stderr(&out).contains("is not the text crit ships"),
        "{}",
        support::stderr(&out)
    );
    assert_eq!(read(d, ".home/.claude/agents/expert-review.md"), edited);
}

#[test]
fn a_checkout_s_ledger_never_vouches_for_overwriting_a_file() {
    // The ledger in a checkout is anyone's to write: one that lists the
    // team's own agent with its hash (or an earlier crit's text) does not
    // make install replace it.
    let dir = project();
    let d = dir.path();
    run(d, &["install", "claude-code"]);
    for theirs in [
        ORIGINAL_AGENT,
        "---\nname: expert-review\n---\nan earlier crit's agent\n",
    ] {
        write(d, ".claude/agents/expert-review.md", theirs);
        vouch(
            &d.join(".claude/crit-install.json"),
            "agents/expert-review.md",
            theirs,
        );
        let out = run(d, &["install", "claude-code"]);
        assert!(
            support::stderr(&out).contains(".claude/agents/expert-review.md is not crit's"),
            "{}",
            support::stderr(&out)
        );
        assert_eq!(read(d, ".claude/agents/expert-review.md"), theirs);
    }
}

#[test]
fn what_the_user_adds_after_install_survives_uninstall() {
    let dir = project();
    let d = dir.path();
    let mine =
        "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test:*)\"\n    ]\n  }\n}\n";
    write(d, ".claude/settings.json", mine);
    run(d, &["install", "claude-code"]);
    let installed = read(d, ".claude/settings.json");
    // Re-install: nothing changes.
    let again = run(d, &["install", "claude-code"]);
    assert_eq!(
        stdout(&again),
        format!(
            ".claude/settings.json: crit's hooks are already there\n{}",
            crate::install_claude::WIRED
        )
    );
    assert_eq!(read(d, ".claude/settings.json"), installed);

    // The user adds a rule of their own, allows one of crit's too, and adds a
    // hook beside crit's.
    let mut v = settings(d);
    let allow = v["permissions"]["allow"].as_array_mut().unwrap();
    allow.push(json!("Bash(make:*)"));
    allow.push(json!("Bash(crit plan:*)"));
    v["hooks"]["Stop"]
        .as_array_mut()
        .unwrap()
        .push(json!({"hooks": [{"type": "command", "command": "notify-send done"}]}));
    write(
        d,
        ".claude/settings.json",
        &serde_json::to_string_pretty(&v).unwrap(),
    );
    let out = run(d, &["uninstall", "claude-code"]);
    assert_eq!(support::stderr(&out), "");
    let v = settings(d);
    assert_eq!(
        v["permissions"],
        json!({"allow": ["Bash(npm test:*)", "Bash(make:*)", "Bash(crit plan:*)"]})
    );
    assert_eq!(
        v["hooks"],
        json!({"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]})
    );
    assert!(v.get("statusLine").is_none());
    assert!(!d.join(".claude/agents").exists());
}

#[test]
fn odd_permissions_are_kept_as_they_are() {
    // Duplicates and entries that are not strings: crit adds only what is
    // missing, and uninstall gives the file back byte for byte.
    let odd = r#"{
  "permissions": {
    "allow": [
      "Skill(prompt-review)",
      "Skill(prompt-review)",
      3,
      {
        "rule": "x"
      }
    ],
    "ask": [
      "Bash(crit plan:*)"
    ]
  }
}
"#;
    let dir = project();
    let d = dir.path();
    write(d, ".claude/settings.json", odd);
    let out = run(d, &["install", "claude-code"]);
    assert!(
        stdout(&out)
            .contains("allowed Bash(crit prompt:*), Skill(crit-review), Bash(crit plan:*)\n"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        settings(d)["permissions"]["allow"],
        json!(["Skill(prompt-review)", "Skill(prompt-review)", 3, {"rule": "x"}, "Bash(crit prompt:*)", "Skill(crit-review)", "Bash(crit plan:*)"])
    );
    run(d, &["uninstall", "claude-code"]);
    assert_eq!(read(d, ".claude/settings.json"), odd);
}

/// A checkout whose `.claude/agents` or agent file links outside, or whose
/// settings file does: install stops before it writes anything, and names
/// the link.
#[test]
fn a_hostile_checkout_s_links_stop_install_before_it_writes() {
    for (rel, target_is_dir) in [
        (".claude/agents", true),
        (".claude/agents/expert-review.md", false),
        (".claude/settings.json", false),
    ] {
        let dir = project();
        let d = dir.path();
        let outside = tempfile::tempdir().unwrap();
        let target = if target_is_dir {
            outside.path().to_path_buf()
        } else {
            outside.path().join("settings.json")
        };
        std::fs::write(outside.path().join("settings.json"), "{}\n").unwrap();
        write(d, ".claude/settings.local.json", "{}\n");
        std::fs::create_dir_all(d.join(rel).parent().unwrap()).unwrap();
        symlink(&target, d.join(rel)).unwrap();
        let out = crit(d).args(["install", "claude-code"]).output().unwrap();
        assert_ne!(out.status.code(), Some(0), "{rel}");
        let err = support::stderr(&out);
        assert!(
            err.contains("is a symbolic link") && err.contains(rel.rsplit('/').next().unwrap()),
            "{rel}: {err}"
        );
        // Nothing written on either side of the link.
        assert!(!d.join(".claude/commands").exists(), "{rel}");
        assert!(!d.join(".claude/crit-install.json").exists(), "{rel}");
        assert!(
            std::fs::symlink_metadata(d.join(".claude/settings.json"))
                .map(|m| m.file_type().is_symlink())
                .unwrap_or(true),
            "{rel}: settings.json written"
        );
        let mut names: Vec<String> = std::fs::read_dir(outside.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["settings.json"], "{rel}");
        assert_eq!(
            std::fs::read_to_string(outside.path().join("settings.json")).unwrap(),
            "{}\n"
        );
    }
}

/// A checkout's ledger is anyone's: uninstall removes only the files and
/// rules install adds, and of those only what holds the text crit ships,
/// never another file it lists or a team's own file at crit's path (however
/// its hash matches), nor a rule of the user's.
#[test]
fn a_hostile_ledger_removes_nothing_but_crit_s_files() {
    let dir = project();
    let d = dir.path();
    write(d, ".claude/settings.local.json", "{\"model\": \"opus\"}\n");
    write(d, "src/main.rs", "fn main() {}\n");
    write(d, ".claude/agents/expert-review.md", ORIGINAL_AGENT);
    let crits_command = read(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        "claude-plugin/commands/crit-review.md",
    );
    write(d, ".claude/commands/crit-review.md", &crits_command);
    let sha = |t: &str| crit_os::seal::sha256_hex(t.as_bytes());
    let ledger = json!({"version": 1, "files": [
        {"path": "settings.local.json", "sha256": sha("{\"model\": \"opus\"}\n")},
        {"path": "../src/main.rs", "sha256": sha("fn main() {}\n")},
        {"path": "agents/expert-review.md", "sha256": sha(ORIGINAL_AGENT)},
        {"path": "commands/crit-review.md", "sha256": sha("not what is there")},
    ], "permissions": ["Bash(npm test:*)"]});
    write(d, ".claude/crit-install.json", &ledger.to_string());
    let mine = "{\"permissions\": {\"allow\": [\"Bash(npm test:*)\"]}}\n";
    write(d, ".claude/settings.json", mine);
    let out = crit(d)
        .args(["uninstall", "claude-code", "--project"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::stderr(&out));
    assert_eq!(
        read(d, ".claude/settings.local.json"),
        "{\"model\": \"opus\"}\n"
    );
    assert_eq!(read(d, "src/main.rs"), "fn main() {}\n");
    // The team's own agent stays; crit's own command goes.
    assert_eq!(read(d, ".claude/agents/expert-review.md"), ORIGINAL_AGENT);
    assert!(
        support::stderr(&out)
            .contains(".claude/agents/expert-review.md is not the text crit ships"),
        "{}",
        support::stderr(&out)
    );
    assert!(!d.join(".claude/commands/crit-review.md").exists());
    // Nor a rule of the user's it lists.
    assert_eq!(read(d, ".claude/settings.json"), mine);
}

/// The agent's prompt is the product: any change to it shows here. Its
/// frontmatter has the fields Claude Code reads for an agent, and it tells
/// the agent to run the one command the permission rule allows.
#[test]
fn the_expert_review_agent_s_prompt() {
    let dir = project();
    let d = dir.path();
    run(d, &["install", "claude-code"]);
    let text = read(d, ".claude/agents/expert-review.md");
    insta::assert_snapshot!("expert_review_agent", text);
    let front = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .map(|(f, _)| f)
        .unwrap();
    let keys: Vec<&str> = front
        .lines()
        .filter_map(|l| l.split_once(':').map(|(k, _)| k))
        .collect();
    assert_eq!(keys, ["name", "description", "tools", "model"]);
    let fields: Value = serde_saphyr::from_str(front).unwrap();
    assert_eq!(fields["name"], "expert-review");
    assert_eq!(fields["tools"], "Bash");
    let rules = settings(d)["permissions"]["allow"].to_string();
    assert!(rules.contains("Bash(crit plan:*)"), "{rules}");
    assert!(
        text.contains("\n   crit plan --non-interactive --quiet 'TARGET'"),
        "{text}"
    );
}
