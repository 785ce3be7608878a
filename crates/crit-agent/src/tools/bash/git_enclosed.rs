//! git in a project that is a directory inside a larger repository (a monorepo
//! package, or a `$HOME` kept in git): the model may see the history and files
//! of the project directory, never the rest of the repository.
//!
//! The rule, applied after the ordinary policy of [`super::git`]:
//! - **Pathspecs** stay inside the project root (already checked), and a
//!   command that takes pathspecs gets `-- .` (the project root, git's cwd)
//!   when it has none, so `status`, `log`, `show`, `diff`, `diff-tree`,
//!   `shortlog`, `grep` and `ls-files` only see the project. Pathspecs are
//!   literal (`GIT_LITERAL_PATHSPECS`), so `:/` cannot name the top.
//! - **`REV:path`** (and `:path`, `:N:path`) must name a path inside the
//!   project: from the repository top, or from the project root when it starts
//!   with `./` or `../`, with `..` applied. `REV:` alone (the top tree) is
//!   refused.
//! - **Any other revision** (also each side of `A..B`, `A...B`, and `^A`,
//!   `A^!`, `A^@`, `A^-`) must name a commit: git is asked once, before the
//!   command runs, to peel each to a commit (`cat-file --batch-check` on
//!   `REV^{commit}`). A raw object id of a blob or tree, `REV^{tree}`, or a tag
//!   of a blob is refused, so no object outside the project can be printed.
//! - A command with `REV:path` operands shows exactly those objects and gets no
//!   pathspec; mixing them with commits (which would show whole trees) is
//!   refused.
//! - Refused: `--full-diff` (it shows every file of a commit that touched the
//!   project), `--follow` (it follows a file to its rename or copy source
//!   outside, and shows that file's history), blame's `-C` (it names files
//!   outside as origins), and a
//!   `branch`/`tag` `--format` with `%(raw)` (a ref may point at a blob). `log -L`
//!   takes no pathspec; its files are confined instead.
//! - `blame` needs its file inside the project; `cat-file`, `rev-parse`,
//!   `merge-base` and `describe` take only checked revisions; `branch` and
//!   `tag` list names only.
//!
//! Which options take the next word as their value (`--author Bob`) is known
//! from the allow-list of [`super::git_options`], so only real operands are
//! read as revisions here; a word git would not take as a value (a separate
//! word after `--format`) is refused before it gets here.

use std::path::Path;

use crate::confine::Roots;
use crate::git_layout::tree_path;

use super::git::GitCall;
use super::policy::BashPolicyError;
use super::spec::confine_path;

/// What the command needs before it runs in an enclosing repository.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Plan {
    /// `(operand, expression)`: each expression must resolve to a commit.
    pub verify: Vec<(String, String)>,
    /// Appended to the argv (`--`, `.`).
    pub append: Vec<String>,
}

/// The plan for `call`, or why it is refused. `prefix` is the project root
/// relative to the repository top.
pub(super) fn plan(call: &GitCall, prefix: &Path, roots: &Roots) -> Result<Plan, BashPolicyError> {
    let mut plan = Plan::default();
    if let Some(opt) = &call.widening {
        return Err(refuse(
            opt,
            "this repository is larger than the project, and this option would show files \
             outside it",
        ));
    }
    match call.sub.as_str() {
        "status" | "ls-files" => {
            for p in &call.operands {
                confine_path(p, roots)?;
            }
            if call.operands.is_empty() && call.pathspecs.is_empty() {
                plan.append = default_pathspec(call);
            }
        }
        "blame" => {
            let (file, revs) = match (call.dashdash, call.pathspecs.split_last()) {
                (true, Some((file, _))) => (Some(file), call.operands.as_slice()),
                _ => match call.operands.split_last() {
                    Some((file, revs)) => (Some(file), revs),
                    None => (None, &[][..]),
                },
            };
            if let Some(file) = file {
                confine_path(file, roots)?;
            }
            for rev in revs {
                match parse(rev) {
                    Operand::Commits(exprs) => plan.add(rev, exprs),
                    _ => return Err(refuse(rev, "blame takes commits before the file")),
                }
            }
        }
        "branch" | "tag" => {}
        "cat-file" | "rev-parse" | "merge-base" | "describe" => {
            for rev in &call.operands {
                plan.check_operand(rev, prefix)?;
            }
            for p in &call.pathspecs {
                confine_path(p, roots)?;
            }
        }
        _ => {
            let mut tree_paths = 0;
            for rev in &call.operands {
                tree_paths += usize::from(plan.check_operand(rev, prefix)?);
            }
            if tree_paths > 0 && tree_paths < call.operands.len() {
                return Err(mixed(&call.operands.join(" ")));
            }
            if tree_paths == 0 && call.pathspecs.is_empty() && !call.line_log {
                // Without a revision, shortlog reads a log from stdin.
                if call.sub == "shortlog" && call.operands.is_empty() && !call.dashdash {
                    plan.append.push("HEAD".into());
                }
                plan.append.extend(default_pathspec(call));
            }
        }
    }
    Ok(plan)
}

impl Plan {
    fn add(&mut self, operand: &str, exprs: Vec<String>) {
        self.verify
            .extend(exprs.into_iter().map(|e| (operand.to_string(), e)));
    }

    /// Checks one revision operand; `true` when it is a `REV:path` object.
    fn check_operand(&mut self, rev: &str, prefix: &Path) -> Result<bool, BashPolicyError> {
        let inside = |paths: &[String]| {
            paths.iter().all(|path| {
                tree_path(path, prefix)
                    .is_some_and(|p| p.starts_with(prefix) && !p.as_os_str().is_empty())
            })
        };
        match parse(rev) {
            Operand::TreePath(paths) | Operand::Mixed(paths) if !inside(&paths) => Err(refuse(
                rev,
                &format!(
                    "this names a path outside the project, which is the directory `{}` of a \
                     larger repository; name files inside it, e.g. `HEAD:./file` or \
                     `HEAD:{}/file`",
                    prefix.display(),
                    prefix.display()
                ),
            )),
            Operand::TreePath(_) => Ok(true),
            Operand::Commits(exprs) => {
                self.add(rev, exprs);
                Ok(false)
            }
            Operand::Mixed(_) => Err(mixed(rev)),
        }
    }
}

fn mixed(arg: &str) -> BashPolicyError {
    refuse(
        arg,
        "give either commits (limited to the project) or `REV:path` objects, not both",
    )
}

fn default_pathspec(call: &GitCall) -> Vec<String> {
    if call.dashdash {
        vec![".".into()]
    } else {
        vec!["--".into(), ".".into()]
    }
}

enum Operand {
    /// `REV:path`, `:path`, `:N:path`: the path parts (see [`parse`]).
    TreePath(Vec<String>),
    /// Expressions that must each resolve to a commit.
    Commits(Vec<String>),
    /// A range with a commit on one side and a path on the other (the paths).
    Mixed(Vec<String>),
}

/// Reads a revision operand both ways git may: whole (commands that take one
/// object, such as `cat-file`) and as a range (`A..B`, `A...B`, each side on
/// its first colon outside `{…}`), so that neither reading can name a path
/// the other missed.
fn parse(op: &str) -> Operand {
    let body = op.strip_prefix('^').unwrap_or(op);
    let sides: Vec<&str> = match body.split_once("...").or_else(|| body.split_once("..")) {
        Some((a, b)) => vec![a, b],
        None => vec![body],
    };
    let mut paths = Vec::new();
    if !body.starts_with(":/")
        && let Some(path) = tree_path_part(body)
    {
        paths.push(path.to_string());
    }
    let mut commits = Vec::new();
    for side in sides.into_iter().filter(|s| !s.is_empty()) {
        if side.starts_with(":/") {
            // A commit message search: resolves to a commit or to nothing.
            commits.push(side.to_string());
        } else if let Some(path) = tree_path_part(side) {
            if !paths.iter().any(|p| p == path) {
                paths.push(path.to_string());
            }
        } else {
            let side = ["^!", "^@"]
                .iter()
                .find_map(|s| side.strip_suffix(s))
                .unwrap_or(side);
            let side = match side.rsplit_once("^-") {
                Some((base, n)) if n.chars().all(|c| c.is_ascii_digit()) => base,
                _ => side,
            };
            commits.push(format!("{side}^{{commit}}"));
        }
    }
    match (paths.is_empty(), commits.is_empty()) {
        (true, _) => Operand::Commits(commits),
        (false, true) => Operand::TreePath(paths),
        (false, false) => Operand::Mixed(paths),
    }
}

/// The path of `REV:path` / `:path` / `:N:path`, if the operand has one.
fn tree_path_part(side: &str) -> Option<&str> {
    if let Some(rest) = side.strip_prefix(':') {
        let mut chars = rest.chars();
        return Some(match (chars.next(), chars.next()) {
            (Some(n), Some(':')) if n.is_ascii_digit() => &rest[2..],
            _ => rest,
        });
    }
    let mut depth = 0usize;
    for (i, c) in side.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => return Some(&side[i + 1..]),
            _ => {}
        }
    }
    None
}

fn refuse(arg: &str, why: &str) -> BashPolicyError {
    BashPolicyError::Argument {
        program: "git".to_string(),
        arg: arg.to_string(),
        why: why.to_string(),
    }
}

/// Why a revision did not resolve to a commit, worded for the model.
pub(super) fn not_a_commit(operand: &str, prefix: &Path) -> BashPolicyError {
    refuse(
        operand,
        &format!(
            "this project is the directory `{}` of a larger repository, so git here shows \
             commits (limited to the project) and files by `REV:path` inside it, and no other \
             object; this does not name a commit. Paths go after `--`, and option values \
             attach with `=` (`--author=NAME`)",
            prefix.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exprs(op: &str) -> Vec<String> {
        match parse(op) {
            Operand::Commits(e) => e,
            Operand::TreePath(p) => p.iter().map(|p| format!("path:{p}")).collect(),
            Operand::Mixed(_) => vec!["mixed".into()],
        }
    }

    #[test]
    fn operands_split_like_git() {
        assert_eq!(exprs("HEAD"), ["HEAD^{commit}"]);
        assert_eq!(exprs("main..HEAD"), ["main^{commit}", "HEAD^{commit}"]);
        assert_eq!(exprs("a...b"), ["a^{commit}", "b^{commit}"]);
        assert_eq!(exprs("^v1"), ["v1^{commit}"]);
        assert_eq!(exprs("HEAD^!"), ["HEAD^{commit}"]);
        assert_eq!(exprs("HEAD^-2"), ["HEAD^{commit}"]);
        assert_eq!(exprs("HEAD^{tree}"), ["HEAD^{tree}^{commit}"]);
        assert_eq!(exprs(":/fix: the bug"), [":/fix: the bug"]);
        assert_eq!(exprs("HEAD:a/b"), ["path:a/b"]);
        assert_eq!(exprs("HEAD^{/x:y}:a"), ["path:a"]);
        assert_eq!(exprs(":0:a"), ["path:a"]);
        assert_eq!(exprs(":a"), ["path:a"]);
        assert_eq!(exprs("HEAD:"), ["path:"]);
        // Both readings: `HEAD:..` is the path `..` to cat-file, and the top
        // tree up to HEAD to rev-parse.
        assert_eq!(exprs("HEAD:.."), ["path:..", "path:"]);
        assert_eq!(exprs("HEAD:./sub/../../x"), ["mixed"]);
        assert_eq!(
            exprs("HEAD:a..HEAD:b"),
            ["path:a..HEAD:b", "path:a", "path:b"]
        );
        assert_eq!(exprs("HEAD~5..HEAD:proj"), ["mixed"]);
        assert_eq!(exprs("..HEAD"), ["HEAD^{commit}"]);
    }
}
