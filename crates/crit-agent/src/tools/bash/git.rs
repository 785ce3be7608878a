//! The git part of the Bash policy: read-only subcommands only, no global options
//! from the model, options that write files, run programs or leave the project
//! refused, and hardening options put in front of every run. What the model
//! asked for is also kept in a [`GitCall`] (subcommand, revisions, pathspecs),
//! which [`super::git_enclosed`] checks when the repository is larger than the
//! project.
//!
//! Repo-local config can run code (`core.fsmonitor`, pagers, external diff and
//! textconv drivers, gpg programs); the `-c` overrides of
//! [`crate::git_hardening`] beat every config file, `exec` also neutralizes the
//! repo's clean/smudge filter drivers, and the options that would still run a
//! driver or write are refused here: `status -v` (textconv), `describe --dirty`
//! and `--broken` (they write the index), `--remerge-diff` (it writes objects).

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
    /// blame's `-C`).
    pub widening: Option<String>,
    /// `log -L RANGE:FILE`: git takes no pathspec with it.
    pub line_log: bool,
}

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
/// `-v` shows the staged diff, through the repository's textconv drivers.
const STATUS_SHORTS: Shorts = Shorts {
    valued: "",
    optional: "u",
    path: "",
    denied: "v",
};

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
        "diff" | "log" | "show" | "diff-tree" => {
            check_options(&mut call, rest, &DIFF_SHORTS, roots)?;
            &["--no-ext-diff", "--no-textconv", "--ignore-submodules=all"]
        }
        "grep" => {
            check_options(&mut call, rest, &GREP_SHORTS, roots)?;
            &["--no-textconv"]
        }
        "blame" => {
            check_options(&mut call, rest, &BLAME_SHORTS, roots)?;
            &["--no-textconv"]
        }
        "ls-files" => {
            check_options(&mut call, rest, &LS_FILES_SHORTS, roots)?;
            &[]
        }
        "status" => {
            check_options(&mut call, rest, &STATUS_SHORTS, roots)?;
            &["--ignore-submodules=all"]
        }
        "shortlog" => {
            check_options(&mut call, rest, &SHORTLOG_SHORTS, roots)?;
            &[]
        }
        _ => {
            check_options(&mut call, rest, &PLAIN_SHORTS, roots)?;
            &[]
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

/// The porcelain subcommands: deny-listed options, file-valued options confined,
/// every operand that names a path confined, and operands recorded in `call`.
fn check_options(
    call: &mut GitCall,
    args: &[String],
    shorts: &Shorts,
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
        if let Some(long) = arg.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if denied_long(name) {
                return Err(refuse(arg, &why_denied(&sub, name)));
            }
            if let Some(why) = denied_for(&sub, name, value) {
                return Err(refuse(arg, why));
            }
            if name.len() > "full-".len() && "full-diff".starts_with(name) {
                call.widening = Some(arg.clone());
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
        let (used, valued) = check_short_bundle(arg, args.get(i), shorts, roots)?;
        i += used;
        match (sub.as_str(), valued) {
            ("grep", Some(('e' | 'f', _))) => pattern_given = true,
            ("log", Some(('L', range))) => {
                confine_line_range(&range, roots)?;
                call.line_log = true;
            }
            ("blame", Some(('C', _))) => call.widening = Some(arg.clone()),
            _ => {}
        }
    }
    if sub == "grep" && !pattern_given && !call.operands.is_empty() {
        call.operands.remove(0);
    }
    Ok(())
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

/// Options refused in one subcommand only (with why).
fn denied_for(sub: &str, name: &str, value: Option<&str>) -> Option<&'static str> {
    let prefix_of = |full: &str| !name.is_empty() && full.starts_with(name);
    match sub {
        "status" if prefix_of("verbose") => Some(
            "`git status -v` shows the staged diff through the repository's textconv \
             programs; use `git diff --cached`",
        ),
        "describe" if prefix_of("dirty") || prefix_of("broken") => Some(
            "`--dirty` and `--broken` refresh and write the index; use `git status` to see \
             uncommitted changes",
        ),
        "diff" | "log" | "show" | "diff-tree"
            if name.len() > 2 && "remerge-diff".starts_with(name) =>
        {
            Some("`--remerge-diff` writes temporary objects into the repository")
        }
        "diff" | "log" | "show" | "diff-tree"
            if name.len() > "diff-".len() && "diff-merges".starts_with(name) =>
        {
            match value {
                Some(v) if !v.starts_with('r') => None,
                Some(_) => {
                    Some("`--diff-merges=remerge` writes temporary objects into the repository")
                }
                None => Some("give the format attached, e.g. `--diff-merges=first-parent`"),
            }
        }
        _ => None,
    }
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

/// Returns how many following arguments the bundle consumed (0 or 1), and the
/// option that took a value, with the value.
fn check_short_bundle(
    arg: &str,
    next: Option<&String>,
    s: &Shorts,
    roots: &Roots,
) -> Result<(usize, Option<(char, String)>), BashPolicyError> {
    for (idx, c) in arg.char_indices().skip(1) {
        if s.denied.contains(c) {
            return Err(refuse(arg, &why_short_denied(c)));
        }
        let rest = &arg[idx + c.len_utf8()..];
        if s.optional.contains(c) {
            return Ok((0, Some((c, rest.to_string()))));
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
            return Ok((used, Some((c, value.to_string()))));
        }
    }
    Ok((0, None))
}

fn why_short_denied(c: char) -> String {
    match c {
        'v' => "`git status -v` shows the staged diff through the repository's textconv \
                programs; use `git diff --cached`"
            .to_string(),
        _ => "this option can run another program".to_string(),
    }
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
