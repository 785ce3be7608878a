//! `--fix`: the suggestions a review offered, applied to the working tree
//! through the confined writer (no symlink followed, nothing outside the
//! project). Only files of the reviewed change are touched, never anything
//! in a `.git` directory: a suggestion is the model's text, and a model can
//! name any path. A file with changes not yet committed, or one git ignores,
//! is left alone unless `--fix-dirty`: the user's own work is not
//! overwritten where git cannot bring it back. Suggestions whose lines
//! overlap in one file are all left out, and one whose lines changed since
//! the review is too.

use std::collections::BTreeMap;
use std::path::Path;

use crit_core::ReviewResult;
use crit_core::files::InputLimits;
use crit_core::suggestion::{self, Edit};
use crit_llm::Env;
use crit_os::git::{Git, GitOptions};
use crit_os::write::Root;

use crate::output::printable_line;

/// The largest file `--fix` rewrites.
const FILE_CAP: u64 = 4 * 1024 * 1024;
/// Bytes of `git status` kept: any answer at all means changes.
const STATUS_CAP: usize = 64 * 1024;

/// What `--fix` may do.
#[derive(Debug, Clone, Copy)]
pub struct FixOptions {
    /// `--fix-dirty`: also files with changes not committed.
    pub dirty: bool,
    pub quiet: bool,
}

/// Applies `result`'s offered suggestions under `root`; says on stderr
/// which files changed and which suggestions were not applied, and why.
pub fn apply(result: &ReviewResult, root: &Path, env: &Env, opts: FixOptions) {
    let mut by_file: BTreeMap<&str, Vec<Edit>> = BTreeMap::new();
    for f in &result.findings {
        if let (Some(path), Some(edit)) = (f.path(), Edit::of(f)) {
            by_file.entry(path).or_default().push(edit);
        }
    }
    if by_file.is_empty() {
        if !opts.quiet {
            eprintln!("crit: --fix: the review offered no suggestion to apply");
        }
        return;
    }
    let root_dir = match Root::open(root) {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "crit: --fix: cannot open the project: {}",
                printable_line(&e.to_string())
            );
            return;
        }
    };
    let git = Git::open(root, env, GitOptions::default());
    let in_change: Vec<&str> = result
        .coverage
        .iter()
        .flat_map(|c| c.files.iter().map(|f| f.path.as_str()))
        .collect();
    for (path, edits) in by_file {
        let shown = printable_line(path);
        if let Err(why) = fixable(path, &in_change) {
            eprintln!("crit: --fix: not changing {shown}: {why}");
            continue;
        }
        if !opts.dirty {
            match uncommitted(git.as_ref().ok(), path) {
                Ok(false) => {}
                Ok(true) => {
                    eprintln!(
                        "crit: --fix: not changing {shown}: it has changes not committed (--fix-dirty changes it anyway)"
                    );
                    continue;
                }
                Err(why) => {
                    eprintln!(
                        "crit: --fix: not changing {shown}: {why} (--fix-dirty changes it anyway)"
                    );
                    continue;
                }
            }
        }
        match fix_file(&root_dir, path, &edits) {
            Ok(done) => {
                for (i, why) in &done.skipped {
                    let e = &edits[*i];
                    eprintln!(
                        "crit: --fix: the suggestion for {shown}:{} is not applied: {why}",
                        span(e)
                    );
                }
                if done.applied > 0 && !opts.quiet {
                    eprintln!(
                        "crit: --fix: changed {shown} ({} suggestion{})",
                        done.applied,
                        if done.applied == 1 { "" } else { "s" }
                    );
                }
            }
            Err(why) => eprintln!(
                "crit: --fix: not changing {shown}: {}",
                printable_line(&why)
            ),
        }
    }
}

/// Whether a suggestion may change `path`: a file of the reviewed change
/// (named as the change names it), outside every `.git` directory.
fn fixable(path: &str, in_change: &[&str]) -> Result<(), &'static str> {
    let git_dir = path
        .split(['/', '\\'])
        .any(|c| c.trim().eq_ignore_ascii_case(".git"));
    if git_dir {
        return Err("it is inside a .git directory");
    }
    if !in_change.contains(&path.strip_prefix("./").unwrap_or(path)) {
        return Err("it is not a file of the reviewed change");
    }
    Ok(())
}

/// Applies `edits` to the file at `path`, written only when any applied.
fn fix_file(root: &Root, path: &str, edits: &[Edit]) -> Result<suggestion::Applied, String> {
    let text = root
        .read_to_string(
            path,
            InputLimits {
                max_bytes: FILE_CAP,
            },
        )
        .map_err(|e| e.to_string())?;
    let done = suggestion::apply(&text, edits);
    if done.applied > 0 {
        root.write_atomic(path, done.text.as_bytes())
            .map_err(|e| e.to_string())?;
    }
    Ok(done)
}

/// Whether git reports the file changed or untracked; an error when git
/// cannot tell.
fn uncommitted(git: Option<&Git>, path: &str) -> Result<bool, String> {
    let git = git.ok_or("git cannot say whether it has changes not committed")?;
    // The hardened runner reads every pathspec literally: the path is the
    // reviewer's, and pathspec magic in it could make git look elsewhere.
    let out = git
        .run(
            &[
                "status",
                "--porcelain=v1",
                "-z",
                "--untracked-files=all",
                // An ignored file (a local `.env`) is the user's, and git
                // cannot bring it back either.
                "--ignored=matching",
                "--",
                path,
            ],
            STATUS_CAP,
        )
        .map_err(|e| e.to_string())?;
    if !out.success() {
        return Err("git cannot say whether it has changes not committed".into());
    }
    Ok(!out.stdout.is_empty())
}

fn span(e: &Edit) -> String {
    match e.end > e.start {
        true => format!("{}-{}", e.start, e.end),
        false => e.start.to_string(),
    }
}
