//! The git part of the Bash policy: read-only subcommands only, no global options
//! from the model, options that write files, run programs or leave the project
//! refused, and hardening options put in front of every run.
//!
//! Repo-local config can run code (`core.fsmonitor`, pagers, external diff and
//! textconv drivers, gpg programs); the `-c` overrides below beat every config
//! file, and `exec` also neutralizes the repo's clean/smudge filter drivers.

use std::path::{Component, Path};

use crate::confine::Roots;

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

/// Long options refused in any subcommand, also when abbreviated (git's
/// parse-options accepts unambiguous prefixes) or negated with `no-`.
const DENIED_LONG: &[&str] = &[
    "output",
    "ext-diff",
    "textconv",
    "exec-path",
    "git-dir",
    "work-tree",
    "no-index",
    "open-files-in-pager",
    "help",
    "show-signature",
    "submodule",
    "ignore-submodules",
    "recurse-submodules",
    "filters",
    "upload-pack",
    "receive-pack",
    "exec",
    "paginate",
    "resolve-git-dir",
    "batch",
    "batch-check",
    "batch-command",
    "batch-all-objects",
    "config-env",
    "attr-source",
    "super-prefix",
    "namespace",
    "stdin",
    "follow-symlinks",
    "path",
    "ext-grep",
];

/// Exact names that are fine although a denied name starts with them.
const EXACT_OK: &[&str] = &[
    "text",
    "no-ext-diff",
    "no-textconv",
    "follow",
    "no-follow",
    "exclude",
    "ignore-rev",
    "or",
];

/// Long options whose value is a file git reads: the value is confined.
const PATH_LONG: &[&str] = &[
    "contents",
    "ignore-revs-file",
    "orderfile",
    "exclude-from",
    "file",
    "pathspec-from-file",
];

/// Per-subcommand short options: (required value, optional attached value, path
/// value, refused).
struct Shorts {
    valued: &'static str,
    optional: &'static str,
    path: &'static str,
    denied: &'static str,
}

const DIFF_SHORTS: Shorts = Shorts {
    valued: "SGOlnLI",
    optional: "UMCBX",
    path: "O",
    denied: "",
};
const GREP_SHORTS: Shorts = Shorts {
    valued: "eABCmf",
    optional: "",
    path: "f",
    denied: "O",
};
const BLAME_SHORTS: Shorts = Shorts {
    valued: "LS",
    optional: "MC",
    path: "S",
    denied: "",
};
const LS_FILES_SHORTS: Shorts = Shorts {
    valued: "xX",
    optional: "",
    path: "X",
    denied: "",
};
const SHORTLOG_SHORTS: Shorts = Shorts {
    valued: "",
    optional: "w",
    path: "",
    denied: "",
};
const PLAIN_SHORTS: Shorts = Shorts {
    valued: "",
    optional: "u",
    path: "",
    denied: "",
};

/// Checks `args` (after `git`) and returns the full argv to run.
pub(super) fn check(args: &[String], roots: &Roots) -> Result<Vec<String>, BashPolicyError> {
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
    let injected: &[&str] = match sub.as_str() {
        "cat-file" => {
            check_cat_file(rest)?;
            &[]
        }
        "branch" => {
            check_listing(sub, rest, BRANCH_OPTIONS)?;
            &[]
        }
        "tag" => {
            check_listing(sub, rest, TAG_OPTIONS)?;
            &[]
        }
        "diff" | "log" | "show" | "diff-tree" => {
            check_options(sub, rest, &DIFF_SHORTS, roots)?;
            &["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"]
        }
        "grep" => {
            check_options(sub, rest, &GREP_SHORTS, roots)?;
            &["--no-textconv"]
        }
        "blame" => {
            check_options(sub, rest, &BLAME_SHORTS, roots)?;
            &["--no-textconv"]
        }
        "ls-files" => {
            check_options(sub, rest, &LS_FILES_SHORTS, roots)?;
            &[]
        }
        "status" => {
            check_options(sub, rest, &PLAIN_SHORTS, roots)?;
            &["--ignore-submodules=all"]
        }
        "shortlog" => {
            check_options(sub, rest, &SHORTLOG_SHORTS, roots)?;
            &[]
        }
        _ => {
            check_options(sub, rest, &PLAIN_SHORTS, roots)?;
            &[]
        }
    };
    let mut argv: Vec<String> = HARDENING.iter().map(|s| s.to_string()).collect();
    argv.push(sub.clone());
    argv.extend(injected.iter().map(|s| s.to_string()));
    argv.extend(rest.iter().cloned());
    Ok(argv)
}

fn refuse(arg: &str, why: &str) -> BashPolicyError {
    BashPolicyError::Argument {
        program: "git".to_string(),
        arg: arg.to_string(),
        why: why.to_string(),
    }
}

/// The porcelain subcommands: deny-listed options, file-valued options confined,
/// and every operand that names a path confined.
fn check_options(
    sub: &str,
    args: &[String],
    shorts: &Shorts,
    roots: &Roots,
) -> Result<(), BashPolicyError> {
    let mut i = 0;
    let mut operands_only = false;
    while let Some(arg) = args.get(i) {
        i += 1;
        if operands_only || !arg.starts_with('-') || arg == "-" {
            check_operand(arg, roots)?;
            continue;
        }
        if arg == "--" || arg == "--end-of-options" {
            operands_only = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if denied_long(name) {
                return Err(refuse(arg, &why_denied(sub, name)));
            }
            if !EXACT_OK.contains(&name) && PATH_LONG.iter().any(|p| p.starts_with(name)) {
                let value = match value {
                    Some(v) => v,
                    None => {
                        i += 1;
                        args.get(i - 1)
                            .map(String::as_str)
                            .ok_or_else(|| refuse(arg, "needs a value"))?
                    }
                };
                confine_path(value, roots)?;
            }
            continue;
        }
        i += check_short_bundle(arg, args.get(i), shorts, roots)?;
    }
    Ok(())
}

fn denied_long(name: &str) -> bool {
    if EXACT_OK.contains(&name) {
        return false;
    }
    let hit = |n: &str| !n.is_empty() && DENIED_LONG.iter().any(|d| d.starts_with(n));
    hit(name) || name.strip_prefix("no-").is_some_and(hit)
}

fn why_denied(sub: &str, name: &str) -> String {
    let what = if "output".starts_with(name) {
        "it writes a file"
    } else if [
        "ext-diff",
        "textconv",
        "exec-path",
        "exec",
        "open-files-in-pager",
        "help",
        "filters",
    ]
    .iter()
    .any(|d| d.starts_with(name))
    {
        "it can run another program"
    } else if ["git-dir", "work-tree", "no-index", "resolve-git-dir"]
        .iter()
        .any(|d| d.starts_with(name))
    {
        "it can read outside the project"
    } else {
        "it is not allowed in this read-only tool"
    };
    format!("`git {sub}` with this option is refused: {what}")
}

/// Returns how many following arguments the bundle consumed (0 or 1).
fn check_short_bundle(
    arg: &str,
    next: Option<&String>,
    s: &Shorts,
    roots: &Roots,
) -> Result<usize, BashPolicyError> {
    for (idx, c) in arg.char_indices().skip(1) {
        if s.denied.contains(c) {
            return Err(refuse(arg, "this option can run another program"));
        }
        let rest = &arg[idx + c.len_utf8()..];
        if s.optional.contains(c) {
            return Ok(0);
        }
        if s.valued.contains(c) {
            let (value, used) = match (rest.is_empty(), next) {
                (false, _) => (rest, 0),
                (true, Some(n)) => (n.as_str(), 1),
                (true, None) => return Err(refuse(arg, "needs a value")),
            };
            if s.path.contains(c) {
                confine_path(value, roots)?;
            }
            return Ok(used);
        }
    }
    Ok(0)
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
enum Arity {
    Flag,
    /// Always takes a value (`--sort=x` or `--sort x`).
    Value,
    /// Takes the next argument when it is not an option (`--contains [<commit>]`).
    MaybeValue,
}

use Arity::{Flag, MaybeValue, Value};

const BRANCH_OPTIONS: &[(&str, Arity)] = &[
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

const TAG_OPTIONS: &[(&str, Arity)] = &[
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
    allowed: &[(&str, Arity)],
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
