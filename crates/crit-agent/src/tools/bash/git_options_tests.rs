//! Every option on the lists, in every form its arity allows, passes the
//! policy unchanged and is understood by the real git: git knows the option
//! in that subcommand, and a value given as a separate word is taken as the
//! value (not as a revision or path, which the policy would then not have
//! checked).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use super::super::git::check;
use super::*;
use crate::confine::Roots;
use crate::git_hardening::GIT_ENV;

const SUBCOMMANDS: &[&str] = &[
    "diff",
    "log",
    "show",
    "diff-tree",
    "grep",
    "blame",
    "status",
    "ls-files",
    "shortlog",
    "rev-parse",
    "merge-base",
    "describe",
];

fn git(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .envs(GIT_ENV.iter().copied())
        .env("HOME", dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A repository with two commits, a tag, a change in the work tree, and the
/// files the file-valued options read.
fn repo(dir: &Path) {
    let run = |args: &[&str]| {
        let (code, _, err) = git(dir, args);
        assert_eq!(code, 0, "git {args:?}: {err}");
    };
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    run(&["init", "-q", "-b", "main"]);
    write("src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    write("order.txt", "src/*\n");
    write("patterns.txt", "fn\n");
    write("revs.txt", "");
    write("ignore.txt", "*.o\n");
    run(&["add", "-A"]);
    run(&["commit", "-q", "-m", "initial"]);
    run(&["tag", "v1"]);
    write("src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    run(&["commit", "-q", "-am", "two"]);
    write("src/lib.rs", "pub fn one() -> u32 {\n    3\n}\n");
}

/// The words around the option that make a complete command.
fn around(sub: &str, opt: &str) -> (Vec<&'static str>, Vec<&'static str>) {
    let path = vec!["--", "src/lib.rs"];
    match sub {
        // Stages of a conflict: the work tree against the index only.
        "diff" if ["--base", "--ours", "--theirs"].contains(&opt) => (vec![], path),
        "diff" => (vec![], [vec!["HEAD~1"], path].concat()),
        "log" if opt == "-L" => (vec![], vec![]),
        "log" => (vec![], path),
        "show" if opt == "-L" => (vec![], vec!["HEAD"]),
        "show" => (vec![], [vec!["HEAD"], path].concat()),
        "diff-tree" => (vec![], vec!["HEAD~1", "HEAD"]),
        "grep" => (vec!["-e", "pub"], vec!["-e", "fn"]),
        "blame" if opt == "--reverse" => (vec![], vec!["HEAD~1..HEAD", "src/lib.rs"]),
        "blame" => (vec![], vec!["src/lib.rs"]),
        "shortlog" | "rev-parse" | "describe" => (vec![], vec!["HEAD"]),
        "merge-base" => (vec![], vec!["HEAD", "HEAD~1"]),
        _ => (vec![], vec![]),
    }
}

/// The ways `opt` may be written, each a list of words.
fn forms(opt: &GitOption) -> Vec<Vec<String>> {
    let (n, ex) = (opt.name, opt.example);
    let short = n.len() == 2;
    let attached = if short {
        format!("{n}{ex}")
    } else {
        format!("{n}={ex}")
    };
    match opt.arity {
        Arity::Flag => vec![vec![n.into()]],
        Arity::Number => vec![vec![format!("-{ex}")]],
        Arity::Value => vec![vec![attached], vec![n.into(), ex.into()]],
        Arity::Attached => vec![vec![attached]],
        Arity::Optional => vec![vec![n.into()], vec![attached]],
    }
}

/// What git says when it did not take the option as the tables claim.
const MISREAD: &[&str] = &[
    "unknown option",
    "unknown switch",
    "unrecognized argument",
    "ambiguous argument",
    "bad revision",
    "requires a value",
    "takes no value",
    "usage: git",
    "outside repository",
    "unknown revision",
];

#[test]
fn every_listed_option_passes_the_policy_and_real_git_knows_it() {
    let dir = tempfile::TempDir::new().unwrap();
    let root = dir.path().canonicalize().unwrap();
    repo(&root);
    let roots = Roots::new(&root, &[]).unwrap();
    let mut failures = Vec::new();
    let mut runs = 0;
    for sub in SUBCOMMANDS {
        for opt in all(sub) {
            let (before, after) = around(sub, opt.name);
            for form in forms(opt) {
                let args: Vec<String> = std::iter::once(sub.to_string())
                    .chain(before.iter().map(|s| s.to_string()))
                    .chain(form.iter().cloned())
                    .chain(after.iter().map(|s| s.to_string()))
                    .collect();
                let shown = args.join(" ");
                let argv = match check(&args, &roots) {
                    Ok((argv, _)) => argv,
                    Err(e) => {
                        failures.push(format!("policy refused `git {shown}`: {e}"));
                        continue;
                    }
                };
                assert!(argv.ends_with(&args[1..]), "`git {shown}` became {argv:?}");
                let words: Vec<&str> = argv.iter().map(String::as_str).collect();
                let (code, out, err) = git(&root, &words);
                runs += 1;
                let misread = MISREAD.iter().find(|m| err.contains(*m));
                // rev-parse prints an option it does not know instead of
                // failing.
                let echoed = *sub == "rev-parse" && out.lines().any(|l| l == form[0]);
                if code == 129 || misread.is_some() || echoed {
                    failures.push(format!(
                        "git did not take `git {shown}` ({code}): {err}{out}"
                    ));
                }
            }
        }
    }
    assert!(runs > 400, "{runs}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn tables_are_well_formed() {
    for sub in super::super::git::ALLOWED_SUBCOMMANDS {
        let own_check = ["cat-file", "branch", "tag"].contains(sub);
        assert_eq!(tables(sub).is_some(), !own_check, "`git {sub}`");
        assert_eq!(SUBCOMMANDS.contains(sub), !own_check, "`git {sub}`");
    }
    for sub in SUBCOMMANDS {
        let names: Vec<&str> = all(sub).map(|o| o.name).collect();
        for (i, n) in names.iter().enumerate() {
            assert!(!names[..i].contains(n), "`{n}` twice for `git {sub}`");
        }
        for o in all(sub) {
            let well_formed = match o.arity {
                Arity::Number => o.name == "-<number>",
                _ => {
                    (o.name.len() == 2 || o.name.starts_with("--"))
                        && o.name.starts_with('-')
                        && !o.name.contains('=')
                }
            };
            assert!(well_formed, "`{}`", o.name);
            assert_eq!(
                o.example.is_empty(),
                o.arity == Arity::Flag,
                "`{}`: only flags have no example",
                o.name
            );
        }
    }
}
