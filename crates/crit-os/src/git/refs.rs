//! The repository's refs and reflogs as its files hold them, read without
//! running git (for a hook that runs on every prompt): loose refs under
//! `refs/heads`, `refs/tags`, `refs/remotes` and `refs/stash`, then
//! `packed-refs` for those not loose, and the sizes of HEAD's and the
//! stash's reflogs. A snapshot taken at one time and another taken later
//! say which refs moved and which reflog lines were written in between.
//!
//! Anything unexpected (the reftable format, a symlinked ref directory, more
//! refs than [`MAX_REFS`]) gives `None`: the caller knows it cannot tell.

use std::collections::BTreeMap;
use std::path::Path;

use super::is_object_id;
use super::layout::GitLayout;

/// More refs than this are not read file by file on a prompt.
pub const MAX_REFS: usize = 20_000;

/// The namespaces a snapshot holds.
const NAMESPACES: [&str; 3] = ["refs/heads", "refs/tags", "refs/remotes"];
const STASH: &str = "refs/stash";

/// The refs and reflog sizes at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefSnapshot {
    /// Each ref's full name and the object it names.
    pub refs: BTreeMap<String, String>,
    /// The commit HEAD names (detached or through its branch).
    pub head: Option<String>,
    /// Bytes in `logs/HEAD` (0 when there is none).
    pub head_log: u64,
    /// Bytes in `logs/refs/stash` (0 when there is none).
    pub stash_log: u64,
}

/// One reflog line: what the ref named before and after, and why (`commit
/// (amend): …`, `checkout: moving from …`, as the writer said).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReflogEntry {
    pub old: String,
    pub new: String,
    pub message: String,
}

/// The reflogs a snapshot measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reflog {
    Head,
    Stash,
}

impl GitLayout {
    /// The repository's refs and reflog sizes now; `None` when they cannot
    /// be told from the files (see the module docs).
    pub fn refs(&self) -> Option<RefSnapshot> {
        if self.common_dir.join("reftable").exists() {
            return None;
        }
        let mut refs = BTreeMap::new();
        let packed_path = self.common_dir.join("packed-refs");
        if packed_path.symlink_metadata().is_ok() {
            // There but unreadable: the snapshot would miss refs.
            let packed = whole_file(&packed_path)?;
            for line in packed.lines() {
                let Some((sha, name)) = line.split_once(' ') else {
                    continue;
                };
                if is_object_id(sha) && wanted(name) {
                    refs.insert(name.to_string(), sha.to_string());
                }
            }
        }
        // Loose refs win over packed ones.
        for ns in NAMESPACES {
            loose(&self.common_dir, ns, &mut refs)?;
        }
        if let Some(sha) = ref_file(&self.common_dir.join(STASH)) {
            refs.insert(STASH.to_string(), sha);
        }
        if refs.len() > MAX_REFS {
            return None;
        }
        Some(RefSnapshot {
            refs,
            head: self.head_commit(),
            head_log: size(&self.reflog_path(Reflog::Head)),
            stash_log: size(&self.reflog_path(Reflog::Stash)),
        })
    }

    fn reflog_path(&self, log: Reflog) -> std::path::PathBuf {
        match log {
            // HEAD's reflog is the worktree's own.
            Reflog::Head => self.git_dir.join("logs").join("HEAD"),
            Reflog::Stash => self.common_dir.join("logs").join(STASH),
        }
    }

    /// The lines of a reflog after its first `from` bytes, oldest first:
    /// `Ok(None)` when the reflog is now shorter than `from` (it was
    /// rewritten: expired, or a stash entry dropped), `Err` when it cannot
    /// be read.
    pub fn reflog_since(
        &self,
        log: Reflog,
        from: u64,
    ) -> std::io::Result<Option<Vec<ReflogEntry>>> {
        let path = self.reflog_path(log);
        let text = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let Ok(from) = usize::try_from(from) else {
            return Ok(None);
        };
        // The noted size must end a line, else the file was rewritten.
        if text.len() < from || (from > 0 && text.get(from - 1) != Some(&b'\n')) {
            return Ok(None);
        }
        let rest = String::from_utf8_lossy(&text[from..]);
        Ok(Some(rest.lines().filter_map(entry).collect()))
    }
}

/// `OLD NEW ident time zone\tmessage` → its parts.
fn entry(line: &str) -> Option<ReflogEntry> {
    let (head, message) = line.split_once('\t').unwrap_or((line, ""));
    let mut parts = head.split(' ');
    let old = parts.next().filter(|s| is_object_id(s))?;
    let new = parts.next().filter(|s| is_object_id(s))?;
    Some(ReflogEntry {
        old: old.to_string(),
        new: new.to_string(),
        message: message.to_string(),
    })
}

/// A name in one of the snapshot's namespaces, with no odd components.
fn wanted(name: &str) -> bool {
    (name == STASH
        || NAMESPACES
            .iter()
            .any(|ns| name.starts_with(&format!("{ns}/"))))
        && name
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
}

/// Every loose ref below `common/ns`; `None` on anything unexpected.
fn loose(common: &Path, ns: &str, refs: &mut BTreeMap<String, String>) -> Option<()> {
    let mut stack = vec![ns.to_string()];
    while let Some(rel) = stack.pop() {
        let dir = common.join(&rel);
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        };
        for e in entries {
            let e = e.ok()?;
            let name = format!("{rel}/{}", e.file_name().to_str()?);
            let kind = e.file_type().ok()?;
            if kind.is_dir() {
                stack.push(name);
            } else if kind.is_file() {
                // A lock file or stray text is not a ref.
                if let Some(sha) = ref_file(&e.path()) {
                    refs.insert(name, sha);
                }
            } else {
                return None;
            }
            if refs.len() + stack.len() > MAX_REFS {
                return None;
            }
        }
    }
    Some(())
}

/// A loose ref file's object name (a symbolic ref inside the namespaces is
/// left out: what it names is listed under its own name).
fn ref_file(path: &Path) -> Option<String> {
    let text = whole_file(path)?;
    let line = text.lines().next()?.trim();
    is_object_id(line).then(|| line.to_string())
}

fn size(path: &Path) -> u64 {
    path.symlink_metadata()
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map_or(0, |m| m.len())
}

/// A regular file's text, up to 1 MiB (`packed-refs` of a large repository
/// may be bigger: then `None`, and the snapshot cannot be taken).
fn whole_file(path: &Path) -> Option<String> {
    let meta = path.symlink_metadata().ok()?;
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflog_lines_give_both_names() {
        let a = "a".repeat(40);
        let b = "b".repeat(40);
        let line = format!("{a} {b} A U Thor <a@example.com> 1700000000 +0000\tcommit: x");
        assert_eq!(
            entry(&line),
            Some(ReflogEntry {
                old: a.clone(),
                new: b,
                message: "commit: x".into()
            })
        );
        assert_eq!(entry("garbage"), None);
        assert!(wanted("refs/heads/main") && wanted("refs/stash"));
        assert!(!wanted("refs/heads/../x") && !wanted("refs/notes/x"));
    }
}
