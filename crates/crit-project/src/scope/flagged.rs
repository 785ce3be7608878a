//! Tracked files git is told not to look at: `git update-index
//! --skip-worktree` or `--assume-unchanged` make `git diff` show nothing of
//! their working-tree edits, so a change hidden that way would never reach
//! a reviewer. Each such file whose working-tree content differs from the
//! index is shown as a whole-file addition, with a note saying why.

use std::path::Path;

use super::git::Git;
use super::{Change, FileStatus, ScopeError, ScopeOptions, untracked};

/// Paths hashed per `git hash-object` run.
const CHUNK: usize = 200;

/// Appends the flagged tracked files whose content changed to `change`.
pub(super) fn add(
    git: &Git,
    top: &Path,
    prefix: &str,
    change: &mut Change,
    opts: &ScopeOptions,
) -> Result<(), ScopeError> {
    let depth = prefix.split('/').filter(|c| !c.is_empty()).count();
    let to_top = match depth {
        0 => ".".to_string(),
        n => vec![".."; n].join("/"),
    };
    // `TAG MODE SHA STAGE\tPATH`: a lowercase tag is assume-unchanged, `S`
    // (or `s`) skip-worktree.
    let out = git.ok(
        &["ls-files", "-v", "-s", "--full-name", "-z", "--", &to_top],
        opts.max_git_output_bytes,
    )?;
    let mut flagged: Vec<(String, String, &'static str)> = Vec::new();
    for raw in out.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let entry = String::from_utf8_lossy(raw);
        let Some((meta, path)) = entry.split_once('\t') else {
            continue;
        };
        let mut parts = meta.split(' ');
        let (Some(tag), Some(mode), Some(sha)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let how = match tag {
            "S" | "s" => "--skip-worktree",
            t if t.chars().all(|c| c.is_ascii_lowercase()) => "--assume-unchanged",
            _ => continue,
        };
        // Gitlinks are other repositories; a missing file (sparse checkout)
        // has nothing to show.
        if mode == "160000" || top.join(path).symlink_metadata().is_err() {
            continue;
        }
        flagged.push((path.to_string(), sha.to_string(), how));
    }
    if flagged.is_empty() {
        return Ok(());
    }
    for chunk in flagged.chunks(CHUNK) {
        let mut args = vec!["hash-object", "--no-filters", "--"];
        args.extend(chunk.iter().map(|(p, _, _)| p.as_str()));
        // A file that cannot be hashed (a symlink to a directory, unreadable)
        // is shown anyway: "could not check" counts as changed.
        let hashed = git.run(&args, opts.max_git_output_bytes)?;
        let text = hashed.text();
        let shas: Vec<&str> = text.lines().collect();
        let all_hashed = hashed.success() && shas.len() == chunk.len();
        for (i, (path, index_sha, how)) in chunk.iter().enumerate() {
            if all_hashed && shas.get(i) == Some(&index_sha.as_str()) {
                continue;
            }
            let before = change.files.len();
            untracked::add_whole(top, path, FileStatus::Modified, change, opts);
            if change.files.len() > before {
                change.notes.push(format!(
                    "`{path}` is marked {how}, so git shows none of its edits: its whole working-tree content is shown"
                ));
                merge_same_path(change);
            }
        }
    }
    Ok(())
}

/// The file just added joins an earlier entry for the same path (its
/// committed part of the change), hunks together.
fn merge_same_path(change: &mut Change) {
    let Some(last) = change.files.pop() else {
        return;
    };
    match change.files.iter_mut().find(|f| f.path == last.path) {
        Some(f) => {
            f.additions = f.additions.saturating_add(last.additions);
            f.binary |= last.binary;
            f.hunks.extend(last.hunks);
        }
        None => change.files.push(last),
    }
}
