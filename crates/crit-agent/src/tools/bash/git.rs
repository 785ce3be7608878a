//! The git part of the Bash policy: read-only subcommands only, no global options
//! from the model, only the options on each subcommand's allow-list
//! ([`super::git_options`]; refusals worded by [`super::git_refusal`]), file
//! values and path operands confined, and hardening options put in front of
//! every run. What the model asked for is also kept in a [`GitCall`]
//! (subcommand, revisions, pathspecs), which [`super::git_enclosed`] checks
//! when the repository is larger than the project.
//!
//! Repo-local config can run code (`core.fsmonitor`, pagers, external diff and
//! textconv drivers, gpg programs); the `-c` overrides of
//! [`crate::git_hardening`] beat every config file, `exec` also neutralizes the
//! repo's clean/smudge filter drivers, and the options that would still run a
//! driver or write are not on the lists: `status -v` (textconv), `describe
//! --dirty` and `--broken` (they write the index), `--remerge-diff` and
//! `--diff-merges=remerge` (they write objects).

use std::path::{Component, Path};

use crate::confine::Roots;

use super::git_options::{self, Arity, GitOption};
use super::git_refusal;
use super::policy::BashPolicyError;
use super::spec::confine_path;

pub const ALLOWED_SUBCOMMANDS: &[&str] = &[
    "diff",
    "log",
    "show",
    "status",
    "blame",
    "ls-files",
    "rev-parse",
    "merge-base",
    "diff-tree",
    "cat-file",
    "grep",
    "shortlog",
    "describe",
    "branch",
    "tag",
];

/// Put before the subcommand of every git run.
pub use crate::git_hardening::HARDENING;

/// What a git command line asks for, as far as confinement cares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitCall {
    pub sub: String,
    /// Operands before `--`: revisions, or paths for `status` and `ls-files`
    /// (for `grep` without `-e`/`-f`, the pattern is left out).
    pub operands: Vec<String>,
    /// Whether `--` was given, and the pathspecs after it.
    pub dashdash: bool,
    pub pathspecs: Vec<String>,
    /// An option that shows more than the pathspec selects (`--full-diff`,
    /// `--follow`, blame's `-C`).
    pub widening: Option<String>,
    /// `log -L RANGE:FILE`: git takes no pathspec with it.
    pub line_log: bool,
}

/// Checks `args` (after `git`) and returns the full argv to run and what it asks for.
pub(super) fn check(
    args: &[String],
    roots: &Roots,
) -> Result<(Vec<String>, GitCall), BashPolicyError> {
    let mut args = args;
    // `--no-pager` is already in the hardening prefix; tolerate it from the model.
    while args.first().is_some_and(|a| a == "--no-pager") {
        args = &args[1..];
    }
    let Some((sub, rest)) = args.split_first() else {
        return Err(refuse("", "give a subcommand, e.g. `git status`"));
    };
    if sub.starts_with('-') {
        return Err(refuse(
            sub,
            "git options before the subcommand (`-c`, `-C`, `--git-dir`, ...) are not allowed; \
             git already runs in the project root with a fixed, hardened configuration",
        ));
    }
    if !ALLOWED_SUBCOMMANDS.contains(&sub.as_str()) {
        return Err(BashPolicyError::GitSubcommand { sub: sub.clone() });
    }
    let mut call = GitCall {
        sub: sub.clone(),
        ..GitCall::default()
    };
    let injected: &[&str] = match sub.as_str() {
        "cat-file" => {
            check_cat_file(rest)?;
            call.operands = rest.last().cloned().into_iter().collect();
            &[]
        }
        "branch" => {
            check_listing(sub, rest, BRANCH_OPTIONS)?;
            call.widening = raw_format(rest);
            &[]
        }
        "tag" => {
            check_listing(sub, rest, TAG_OPTIONS)?;
            call.widening = raw_format(rest);
            &[]
        }
        _ => {
            check_options(&mut call, rest, roots)?;
            match sub.as_str() {
                "diff" | "log" | "show" | "diff-tree" => {
                    &["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"]
                }
                "grep" | "blame" => &["--no-textconv"],
                "status" => &["--ignore-submodules=all"],
                _ => &[],
            }
        }
    };
    let mut argv: Vec<String> = HARDENING.iter().map(|s| s.to_string()).collect();
    argv.push(sub.clone());
    argv.extend(injected.iter().map(|s| s.to_string()));
    argv.extend(rest.iter().cloned());
    Ok((argv, call))
}

fn refuse(arg: &str, why: &str) -> BashPolicyError {
    BashPolicyError::Argument {
        program: "git".to_string(),
        arg: arg.to_string(),
        why: why.to_string(),
    }
}

/// The porcelain subcommands: every option on the subcommand's allow-list
/// ([`git_options`]), file-valued options confined, every operand that names
/// a path confined, and operands recorded in `call`.
fn check_options(
    call: &mut GitCall,
    args: &[String],
    roots: &Roots,
) -> Result<(), BashPolicyError> {
    let sub = call.sub.clone();
    let mut i = 0;
    let mut options_done = false;
    let mut pattern_given = false;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" && !call.dashdash {
            call.dashdash = true;
            options_done = true;
            continue;
        }
        if options_done || !arg.starts_with('-') || arg == "-" {
            check_operand(arg, roots)?;
            if call.dashdash {
                call.pathspecs.push(arg.clone());
            } else {
                call.operands.push(arg.clone());
            }
            continue;
        }
        if arg == "--end-of-options" {
            options_done = true;
            continue;
        }
        let taken = match arg.strip_prefix("--") {
            Some(long) => take_long(&sub, arg, long, args.get(i))?,
            None => take_short(&sub, arg, args.get(i))?,
        };
        i += usize::from(taken.used_next);
        for opt in &taken.opts {
            if matches!(
                (sub.as_str(), opt.name),
                ("log" | "show", "--full-diff" | "--follow") | ("blame", "-C")
            ) {
                call.widening = Some(arg.clone());
            }
        }
        let (Some(opt), Some(value)) = (taken.opts.last(), taken.value.as_deref()) else {
            continue;
        };
        if opt.path {
            confine_path(value, roots)?;
        }
        match (sub.as_str(), opt.name) {
            ("grep", "-e" | "-f") => pattern_given = true,
            ("log" | "show", "-L") => {
                confine_line_range(value, roots)?;
                call.line_log = true;
            }
            (_, "--diff-merges") => {
                if let Some(why) = git_refusal::diff_merges(value) {
                    return Err(refuse(arg, why));
                }
            }
            _ => {}
        }
    }
    if sub == "grep" && !pattern_given && !call.operands.is_empty() {
        call.operands.remove(0);
    }
    Ok(())
}

/// The options one argument gives; the last may have taken a value.
struct Taken {
    opts: Vec<&'static GitOption>,
    value: Option<String>,
    /// Whether the value was the next argument.
    used_next: bool,
}

/// `--name`, `--name=value` or `--name value`, by the option's arity.
fn take_long(
    sub: &str,
    arg: &str,
    long: &str,
    next: Option<&String>,
) -> Result<Taken, BashPolicyError> {
    let (name, attached) = match long.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (long, None),
    };
    let Some(opt) = git_options::find(sub, &format!("--{name}")) else {
        return Err(refuse(arg, &git_refusal::long(sub, name)));
    };
    let misused = || refuse(arg, &git_refusal::misused(opt));
    let (value, used_next) = match (opt.arity, attached, next) {
        (Arity::Flag | Arity::Number, None, _) => (None, false),
        (Arity::Flag | Arity::Number, Some(_), _) => return Err(misused()),
        (Arity::Value, None, Some(n)) => (Some(n.clone()), true),
        (Arity::Value, None, None) | (Arity::Attached, None, _) => return Err(misused()),
        (_, v, _) => (v.map(str::to_string), false),
    };
    Ok(Taken {
        opts: vec![opt],
        value,
        used_next,
    })
}

/// `-5`, or a bundle of short options (`-pw`, `-n5`, `-n 5`, `-U3`): every
/// letter listed, and the first that takes a value takes the rest.
fn take_short(sub: &str, arg: &str, next: Option<&String>) -> Result<Taken, BashPolicyError> {
    let digits = &arg[1..];
    if digits.bytes().all(|b| b.is_ascii_digit())
        && let Some(opt) = git_options::find(sub, "-<number>")
    {
        return Ok(Taken {
            opts: vec![opt],
            value: None,
            used_next: false,
        });
    }
    let mut opts = Vec::new();
    for (idx, c) in arg.char_indices().skip(1) {
        let Some(opt) = git_options::find(sub, &format!("-{c}")) else {
            return Err(refuse(arg, &git_refusal::short(sub, c)));
        };
        opts.push(opt);
        let rest = &arg[idx + c.len_utf8()..];
        let (value, used_next) = match (opt.arity, rest.is_empty(), next) {
            (Arity::Flag | Arity::Number, ..) => continue,
            (Arity::Optional, true, _) => (None, false),
            (Arity::Value, true, Some(n)) => (Some(n.clone()), true),
            (Arity::Value | Arity::Attached, true, _) => {
                return Err(refuse(arg, &git_refusal::misused(opt)));
            }
            (_, false, _) => (Some(rest.to_string()), false),
        };
        return Ok(Taken {
            opts,
            value,
            used_next,
        });
    }
    Ok(Taken {
        opts,
        value: None,
        used_next: false,
    })
}

/// A `--format` that prints the raw object a ref points at (`%(raw)`), which
/// may be a blob: where the repository is larger than the project, the ref
/// could name a file outside it.
fn raw_format(args: &[String]) -> Option<String> {
    let mut values = args.iter().enumerate().filter_map(|(i, a)| {
        a.strip_prefix("--format=").or_else(|| {
            (a == "--format")
                .then(|| args.get(i + 1).map(String::as_str))
                .flatten()
        })
    });
    values
        .find(|v| v.contains("%(raw") || v.contains("%(*raw"))
        .map(|v| format!("--format={v}"))
}

/// `log -L RANGE:FILE` names a file after a colon; the range may hold colons
/// too (`:funcname:file`), so every part after a colon must stay inside.
fn confine_line_range(value: &str, roots: &Roots) -> Result<(), BashPolicyError> {
    for (at, _) in value.match_indices(':') {
        let file = &value[at + 1..];
        if !file.is_empty() {
            confine_path(file, roots)?;
        }
    }
    Ok(())
}

/// An operand that names a path (absolute, with `..`, or existing under the
/// project root) must stay inside the roots; revisions pass through.
fn check_operand(arg: &str, roots: &Roots) -> Result<(), BashPolicyError> {
    let p = Path::new(arg);
    let path_like = p.is_absolute()
        || p.components().any(|c| c == Component::ParentDir)
        || roots.root().join(p).symlink_metadata().is_ok();
    if path_like {
        confine_path(arg, roots)
    } else {
        Ok(())
    }
}

fn check_cat_file(args: &[String]) -> Result<(), BashPolicyError> {
    match args {
        [mode, object]
            if ["-p", "-t", "-s", "-e"].contains(&mode.as_str()) && !object.starts_with('-') =>
        {
            Ok(())
        }
        _ => Err(refuse(
            &args.join(" "),
            "`git cat-file` accepts only `-p`, `-t`, `-s` or `-e` followed by one object",
        )),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ListArity {
    Flag,
    /// Always takes a value (`--sort=x` or `--sort x`).
    Value,
    /// Takes the next argument when it is not an option (`--contains [<commit>]`).
    MaybeValue,
}

use ListArity::{Flag, MaybeValue, Value};

const BRANCH_OPTIONS: &[(&str, ListArity)] = &[
    ("--list", Flag),
    ("-l", Flag),
    ("-a", Flag),
    ("--all", Flag),
    ("-r", Flag),
    ("--remotes", Flag),
    ("-v", Flag),
    ("-vv", Flag),
    ("--verbose", Flag),
    ("--show-current", Flag),
    ("--no-color", Flag),
    ("--column", Flag),
    ("--no-column", Flag),
    ("-i", Flag),
    ("--ignore-case", Flag),
    ("--omit-empty", Flag),
    ("--no-abbrev", Flag),
    ("--color", Flag),
    ("--abbrev", Flag),
    ("--contains", MaybeValue),
    ("--no-contains", MaybeValue),
    ("--merged", MaybeValue),
    ("--no-merged", MaybeValue),
    ("--points-at", Value),
    ("--sort", Value),
    ("--format", Value),
];

const TAG_OPTIONS: &[(&str, ListArity)] = &[
    ("--list", Flag),
    ("-l", Flag),
    ("--no-column", Flag),
    ("--column", Flag),
    ("-i", Flag),
    ("--ignore-case", Flag),
    ("--omit-empty", Flag),
    ("--no-color", Flag),
    ("--color", Flag),
    ("--contains", MaybeValue),
    ("--no-contains", MaybeValue),
    ("--merged", MaybeValue),
    ("--no-merged", MaybeValue),
    ("--points-at", Value),
    ("--sort", Value),
    ("--format", Value),
];

/// `git branch` / `git tag` list only: every option on the list, and operands
/// (patterns) only together with `--list`, since otherwise they create refs.
fn check_listing(
    sub: &str,
    args: &[String],
    allowed: &[(&str, ListArity)],
) -> Result<(), BashPolicyError> {
    let listing = args.iter().any(|a| a == "--list" || a == "-l");
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if !arg.starts_with('-') {
            if !listing {
                return Err(refuse(
                    arg,
                    &format!(
                        "`git {sub}` with a name creates a ref; add `--list` to filter by pattern"
                    ),
                ));
            }
            continue;
        }
        let (name, attached) = match arg.split_once('=') {
            Some((n, _)) => (n, true),
            None => (arg.as_str(), false),
        };
        // `tag -n<num>` shows annotation lines.
        if sub == "tag" && name.starts_with("-n") && name[2..].chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let next_is_value = args.get(i).is_some_and(|n| !n.starts_with('-'));
        match allowed.iter().find(|(o, _)| *o == name).map(|(_, a)| *a) {
            Some(Value) if !attached => i += 1,
            Some(MaybeValue) if !attached && next_is_value => i += 1,
            Some(_) => {}
            None => {
                return Err(refuse(
                    arg,
                    &format!(
                        "`git {sub}` is allowed only for listing; this option is not on its list"
                    ),
                ));
            }
        }
    }
    Ok(())
}
