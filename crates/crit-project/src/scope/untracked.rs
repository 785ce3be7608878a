//! Untracked files for `--uncommitted`: each shown as a whole-file addition,
//! except binary, huge or special files, which are listed with a note.

use std::io::Read;
use std::path::Path;

use super::git::Git;
use super::parse::untracked_section;
use super::{Change, ChangedFile, FileStatus, Hidden, ScopeError, ScopeOptions};

/// Appends the repository's untracked, not ignored files to `change`.
/// Returns the directories git lists whole (`dir/`): each a repository of
/// its own, whose files git does not show.
pub(super) fn add(
    git: &Git,
    top: &Path,
    prefix: &str,
    change: &mut Change,
    opts: &ScopeOptions,
) -> Result<Vec<String>, ScopeError> {
    let to_top = to_top(prefix);
    let out = git.ok(
        &[
            "ls-files",
            "--others",
            "--exclude-standard",
            "--full-name",
            "-z",
            "--",
            &to_top,
        ],
        opts.max_git_output_bytes,
    )?;
    let mut nested = Vec::new();
    for raw in out.stdout.split(|b| *b == 0).filter(|p| !p.is_empty()) {
        let path = String::from_utf8_lossy(raw).into_owned();
        // A nested repository (or a worktree) is listed as `dir/`: git
        // shows none of its files, so the caller lists it as hidden.
        if path.ends_with('/') {
            nested.push(path);
            continue;
        }
        add_whole(top, &path, FileStatus::Untracked, change, opts);
    }
    Ok(nested)
}

/// The pathspec for the whole repository from the project root (`prefix`
/// below the top): pathspecs are literal (no `:/`), so it climbs.
pub(super) fn to_top(prefix: &str) -> String {
    let depth = prefix.split('/').filter(|c| !c.is_empty()).count();
    match depth {
        0 => ".".to_string(),
        _ => vec![".."; depth].join("/"),
    }
}

/// What an untracked file shows in the patch.
enum Shown {
    Text(String, &'static str),
    Binary,
    /// Not shown, with the reason (what the file is, no advice).
    Skipped(String),
}

/// Appends `path`'s whole working-tree content to `change` as an addition.
pub(super) fn add_whole(
    top: &Path,
    path: &str,
    status: FileStatus,
    change: &mut Change,
    opts: &ScopeOptions,
) {
    let mut file = ChangedFile {
        path: path.to_string(),
        old_path: None,
        status,
        additions: 0,
        deletions: 0,
        binary: false,
        hunks: Vec::new(),
    };
    match read(&top.join(path), path, opts) {
        // Deleted since git listed it.
        None => {}
        Some(Shown::Text(content, mode)) => {
            let (text, hunk) = untracked_section(path, &content, mode);
            file.additions = hunk.as_ref().map_or(0, |h| h.new_lines);
            file.hunks.extend(hunk);
            change.patch.push_str(&text);
            change.files.push(file);
        }
        Some(Shown::Binary) => {
            file.binary = true;
            change.patch.push_str(&format!(
                "diff --git a/{path} b/{path}\nnew file mode 100644\n{}\n",
                super::binary::NOTICE
            ));
            note(
                change,
                file,
                format!("untracked binary file `{path}`; not shown"),
            );
        }
        Some(Shown::Skipped(why)) => {
            // Listed, yet no reviewer read a line of it: a gap that holds
            // the gate, never a file counted as reviewed with 0 lines.
            if let Some(rel) = path.strip_prefix(change.prefix.as_str()) {
                change.hidden.push(Hidden {
                    path: rel.to_string(),
                    reason: format!("{why}: not reviewed"),
                });
            }
            note(
                change,
                file,
                format!("{why}; not shown, read it if it matters"),
            );
        }
    }
}

/// A file that cannot be read is listed with a note rather than failing the
/// whole review.
fn read(full: &Path, path: &str, opts: &ScopeOptions) -> Option<Shown> {
    let cannot = |e: std::io::Error| Shown::Skipped(format!("cannot read untracked `{path}`: {e}"));
    let meta = match std::fs::symlink_metadata(full) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return Some(cannot(e)),
    };
    if meta.file_type().is_symlink() {
        // Like git: a symlink's content is its target, never the file it names.
        return Some(match std::fs::read_link(full) {
            Ok(t) => Shown::Text(t.to_string_lossy().into_owned(), "120000"),
            Err(e) => cannot(e),
        });
    }
    if !meta.is_file() {
        // A FIFO would block the read forever.
        return Some(Shown::Skipped(format!(
            "untracked `{path}` is not a regular file"
        )));
    }
    if meta.len() > opts.max_untracked_bytes {
        return Some(Shown::Skipped(format!(
            "untracked file `{path}` ({} bytes) is larger than {} bytes",
            meta.len(),
            opts.max_untracked_bytes
        )));
    }
    let mut bytes = Vec::new();
    if let Err(e) = std::fs::File::open(full)
        .and_then(|f| f.take(opts.max_untracked_bytes).read_to_end(&mut bytes))
    {
        return Some(cannot(e));
    }
    // The bytes decide, as for tracked files: a stray NUL is still text.
    if super::binary::looks_binary(&bytes) {
        return Some(Shown::Binary);
    }
    Some(Shown::Text(
        String::from_utf8_lossy(&bytes).into_owned(),
        file_mode(&meta),
    ))
}

/// Lists `file` without its content, and says why in the notes and, for the
/// model, in the patch.
fn note(change: &mut Change, file: ChangedFile, text: String) {
    if !file.binary {
        let p = &file.path;
        change.patch.push_str(&format!(
            "diff --git a/{p} b/{p}\nnew file mode 100644\n(crit: {text})\n"
        ));
    }
    change.notes.push(text);
    change.files.push(file);
}

#[cfg(unix)]
fn file_mode(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::PermissionsExt;
    if meta.permissions().mode() & 0o111 != 0 {
        "100755"
    } else {
        "100644"
    }
}

#[cfg(not(unix))]
fn file_mode(_meta: &std::fs::Metadata) -> &'static str {
    "100644"
}
