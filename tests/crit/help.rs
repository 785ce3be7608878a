//! Every subcommand's `--help`, snapshotted: it speaks the user's language (no
//! internal words) and lists only the options the subcommand uses.

use assert_cmd::Command;
use tempfile::TempDir;

/// Every subcommand path; `every_subcommand_is_listed` keeps this complete.
const SUBCOMMANDS: &[&str] = &[
    "",
    "report",
    "report merge",
    "doctor",
    "config",
    "trust",
    "review",
    "review list",
    "review code",
    "review arch",
    "review tasks",
    "run",
    "init",
    "plan",
    "plan verify",
    "hook",
    "respond",
    "completions",
    "man",
    "prompt",
    "install",
    "uninstall",
    "statusline",
    "mcp",
    "stats",
    "bench",
    "bench import",
    "bench export",
    "bench mine",
    "learn",
];

/// Words from crit's own design notes that mean nothing to a user.
const INTERNAL: &[&str] = &[
    "seed",
    "Seed",
    "DESIGN.md",
    "protocols.md",
    "§",
    "issue #",
    "Reldo's spelling",
    "The seed's spelling",
    "Flags every command understands",
    "TODO",
];

fn help(path: &str) -> String {
    let home = TempDir::new().unwrap();
    let out = Command::cargo_bin("crit")
        .unwrap()
        .current_dir(home.path())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join("xdg"))
        .env("COLUMNS", "100")
        .args(path.split_whitespace())
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "crit {path} --help: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

fn name(path: &str) -> String {
    match path {
        "" => "crit".to_string(),
        p => format!("crit_{}", p.replace(' ', "_")),
    }
}

#[test]
fn every_help_text_is_snapshotted_and_speaks_the_users_language() {
    for path in SUBCOMMANDS {
        let text = help(path);
        for word in INTERNAL {
            assert!(
                !text.contains(word),
                "`crit {path} --help` says {word:?}:\n{text}"
            );
        }
        insta::assert_snapshot!(name(path), text);
    }
}

/// The shared flags a subcommand does not use are not in its help, and are
/// refused when given.
#[test]
fn a_subcommand_lists_and_takes_only_the_options_it_uses() {
    let unused: &[(&str, &[&str])] = &[
        (
            "report",
            &[
                "--provider",
                "--model",
                "--max-turns",
                "--timeout",
                "--no-log",
                "--cwd",
            ],
        ),
        (
            "report merge",
            &["--provider", "--max-budget-usd", "--rules-from"],
        ),
        (
            "trust",
            &["--provider", "--format", "--fail-on", "--timeout"],
        ),
        ("init", &["--provider", "--json", "--exit-code"]),
        ("completions", &["--cwd", "--json", "--model"]),
        ("statusline", &["--cwd", "--json", "--model"]),
        ("stats", &["--cwd", "--provider", "--fail-on"]),
        ("man", &["--cwd", "--json", "--model"]),
        ("doctor", &["--fail-on", "--max-turns", "--no-log", "--out"]),
        ("config", &["--max-turns", "--out", "--exit-code"]),
        ("plan", &["--max-turns"]),
        ("prompt", &["--max-turns", "--max-budget-usd"]),
        ("bench", &["--fail-on", "--exit-code", "--no-log"]),
        ("bench mine", &["--provider", "--model", "--rules-from"]),
    ];
    for (path, flags) in unused {
        let text = help(path);
        for flag in *flags {
            assert!(
                !text.lines().any(|l| {
                    let l = l.trim_start();
                    l.starts_with(&format!("{flag} ")) || l == *flag
                }),
                "`crit {path} --help` lists {flag}"
            );
            let mut args: Vec<&str> = path.split_whitespace().collect();
            // Required arguments first: clap checks them before crit looks at the flags.
            match *path {
                "report" | "report merge" => args.push("r.json"),
                "completions" => args.push("bash"),
                _ => {}
            }
            args.push(flag);
            match *flag {
                "--json" | "--exit-code" | "--no-log" => {}
                "--provider" => args.push("anthropic"),
                "--format" => args.push("json"),
                "--fail-on" => args.push("p1"),
                _ => args.push("1"),
            }
            let out = Command::cargo_bin("crit")
                .unwrap()
                .args(&args)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "crit {args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(&format!("{flag} does nothing for `crit {path}`")),
                "crit {args:?}: {err}"
            );
        }
    }
    // Before the subcommand, as scripts write them, they are refused the same way.
    let out = Command::cargo_bin("crit")
        .unwrap()
        .args(["--provider", "anthropic", "report", "r.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--provider does nothing for `crit report`")
    );
}

#[test]
fn shared_flags_still_go_before_the_subcommand() {
    let dir = TempDir::new().unwrap();
    let result = dir.path().join("r.json");
    let r = crit_core::ReviewResult::new("code", crit_core::Verdict::Concerns);
    std::fs::write(&result, serde_json::to_string(&r).unwrap()).unwrap();
    let out = Command::cargo_bin("crit")
        .unwrap()
        .args(["--json", "report"])
        .arg(&result)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["verdict"], "CONCERNS");
    // Given in both places, the later one wins.
    let out = Command::cargo_bin("crit")
        .unwrap()
        .args(["--fail-on", "never", "report"])
        .arg(&result)
        .args(["--fail-on", "concerns"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn every_subcommand_is_listed() {
    let top = help("");
    let commands = top
        .split("Commands:\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .next()
        .unwrap();
    for line in commands.lines() {
        let Some(word) = line
            .strip_prefix("  ")
            .filter(|l| !l.starts_with(' '))
            .and_then(|l| l.split_whitespace().next())
        else {
            continue;
        };
        if word == "help" {
            continue;
        }
        assert!(
            SUBCOMMANDS.contains(&word),
            "`crit {word}` has no help snapshot"
        );
    }
}

#[test]
fn the_top_level_help_explains_the_gate_and_exit_codes() {
    let top = help("");
    for level in [
        "p0, blocker",
        "p1, major",
        "p2, minor",
        "p3, nit",
        "concerns",
        "never",
    ] {
        assert!(top.contains(level), "{level}");
    }
    for code in ["  0  ", "  1  ", "  2  ", "  3  ", "129, 130, 143"] {
        assert!(top.contains(code), "{code}");
    }
}

/// A project's template is the repository's text: its description and its
/// inputs' help reach `--help` escaped as `crit review list` shows them,
/// never as a workflow command of their own or a reversed line.
#[test]
fn a_project_template_s_text_is_escaped_in_its_help() {
    let home = TempDir::new().unwrap();
    let project = TempDir::new().unwrap();
    let d = project.path();
    std::fs::create_dir_all(d.join(".crit/templates")).unwrap();
    std::fs::write(
        d.join(".crit/templates/sneaky.yaml"),
        "name: sneaky\n\
         description: \"Looks fine\\n::error::forged one\\n::error file=a.rs::forged two \\u202Erevo\"\n\
         system_prompt: \"You review.\"\n\
         prompt_template: \"Review {input}.\"\n\
         allowed_tools: [Read]\n\
         inputs:\n  required:\n    - name: input\n      description: \"The doc\\n::warning::forged three \\u202E\"\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = Command::cargo_bin("crit")
            .unwrap()
            .current_dir(d)
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("xdg"))
            .env("COLUMNS", "100")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "crit {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let listed = run(&["review", "list"]);
    assert!(listed.contains("sneaky"), "{listed}");
    let help = run(&["review", "sneaky", "--help"]);
    assert!(help.contains("Looks fine"), "{help}");
    assert!(help.contains("forged three"), "{help}");
    for text in [&listed, &help] {
        assert!(!text.contains('\u{202E}'), "{text}");
        assert!(
            !text.lines().any(|l| l.trim_start().starts_with("::")),
            "{text}"
        );
    }
}
