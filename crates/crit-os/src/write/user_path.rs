//! Writing a file at a path the user typed (`--out`, `--record`, a user-level
//! settings file, a completions file): symlinks the user chose are followed.

use std::path::{Path, PathBuf};

use super::{FsError, Op, Root, WriteOptions};

/// Replaces the file at `path` atomically (temp file, fsync, rename, as
/// [`Root::write_atomic`]). The directories on the way may be symlinks. When
/// `path` itself is a symlink, the file it finally points at is replaced (in
/// that file's directory, keeping its mode) and the link stays: a dotfile kept
/// as a link into a repository of dotfiles keeps working. A dangling link is
/// an error rather than silently becoming a file. Never use this for a path
/// inside a project or any directory crit does not own: use a [`Root`].
pub fn write_atomic_user_path(path: &Path, bytes: &[u8]) -> Result<(), FsError> {
    let target = follow_final_link(path)?;
    let (dir, name) = split(&target);
    let root = Root::open(&dir).map_err(|e| match e {
        FsError::Io { source, .. } => FsError::Io {
            op: Op::Write,
            path: path.to_path_buf(),
            source,
        },
        other => other,
    })?;
    root.write_atomic_with(name, bytes, WriteOptions::default())
}

/// `path`, or where its final symlink (chain) leads.
fn follow_final_link(path: &Path) -> Result<PathBuf, FsError> {
    let io = |source| FsError::Io {
        op: Op::Write,
        path: path.to_path_buf(),
        source,
    };
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(io),
        _ => Ok(path.to_path_buf()),
    }
}

fn split(path: &Path) -> (PathBuf, PathBuf) {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| path.to_path_buf(), PathBuf::from);
    (dir, name)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::{PermissionsExt, symlink};

    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn atomic_writes_replace_keep_permissions_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("state.yaml");
        write_atomic_user_path(&p, b"one\n").unwrap();
        write_atomic_user_path(&p, b"two\n").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "two\n");
        fs::set_permissions(&p, fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic_user_path(&p, b"three\n").unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(names(dir.path()), vec!["state.yaml"]);
        // A directory where the file should go: an error, no temp file.
        let sub = dir.path().join("sub");
        fs::create_dir(&sub).unwrap();
        assert!(write_atomic_user_path(&sub, b"x").is_err());
        assert_eq!(names(dir.path()), vec!["state.yaml", "sub"]);
        assert!(names(&sub).is_empty());
        // A missing directory: an error naming the path.
        let e = write_atomic_user_path(&dir.path().join("no/such/file"), b"x").unwrap_err();
        assert!(e.to_string().contains("no/such/file"), "{e}");
    }

    #[test]
    fn a_link_the_user_named_is_followed_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles/settings.json");
        fs::create_dir(dir.path().join("dotfiles")).unwrap();
        fs::write(&real, "{}").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = dir.path().join("settings.json");
        symlink("dotfiles/settings.json", &link).unwrap();
        write_atomic_user_path(&link, b"{\"a\":1}").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "{\"a\":1}");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
        // A dangling link is an error, and stays a link.
        let dangling = dir.path().join("gone.json");
        symlink("nowhere.json", &dangling).unwrap();
        let e = write_atomic_user_path(&dangling, b"x").unwrap_err();
        assert!(e.is_not_found(), "{e}");
        assert!(!dir.path().join("nowhere.json").exists());
        // A symlinked directory on the way is the user's choice too.
        let via = dir.path().join("via");
        symlink("dotfiles", &via).unwrap();
        write_atomic_user_path(&via.join("new.json"), b"n").unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("dotfiles/new.json")).unwrap(),
            "n"
        );
    }
}
