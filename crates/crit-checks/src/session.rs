//! The session directory on disk: where `plan.md`, `context.yaml`,
//! `state.yaml` and the approval marker live; atomic writes; the run lock.

use std::fs::{File, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::error::CheckError;
use crate::machine::Store;
use crate::state::State;

/// The files of one review session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPaths {
    pub dir: PathBuf,
    pub plan: PathBuf,
    pub context: PathBuf,
    pub state: PathBuf,
    pub lock: PathBuf,
    /// `{dir}/{plan stem}.approved` (seed APPROVED step 1).
    pub marker: PathBuf,
}

impl SessionPaths {
    /// `session://ID` (→ `~/.claude/sessions/ID`), a session directory, or a plan
    /// file (`plan.md`, or any `*.md` whose directory holds the session files).
    pub fn resolve(target: &str, home: Option<&Path>) -> Result<Self, CheckError> {
        if let Some(id) = target.strip_prefix("session://") {
            let id = id.trim_end_matches('/');
            if id.is_empty() || id.contains(['/', '\\']) || id == "." || id == ".." {
                return Err(CheckError::PlanNotFound(PathBuf::from(target)));
            }
            let home = home.ok_or_else(|| CheckError::NoHome(target.to_string()))?;
            return Ok(Self::in_dir(home.join(".claude").join("sessions").join(id)));
        }
        let path = PathBuf::from(target);
        let is_md = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"));
        if path.is_dir() || !is_md {
            return Ok(Self::in_dir(path));
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Ok(Self::for_plan(dir, path))
    }

    fn in_dir(dir: PathBuf) -> Self {
        let plan = dir.join("plan.md");
        Self::for_plan(dir, plan)
    }

    fn for_plan(dir: PathBuf, plan: PathBuf) -> Self {
        let stem = plan
            .file_stem()
            .map_or_else(|| "plan".into(), |s| s.to_string_lossy().into_owned());
        SessionPaths {
            context: dir.join("context.yaml"),
            state: dir.join("state.yaml"),
            lock: dir.join(".crit-plan.lock"),
            marker: dir.join(format!("{stem}.approved")),
            plan,
            dir,
        }
    }

    /// Keep other `crit plan` runs off this session until the guard drops.
    pub fn lock(&self) -> Result<SessionLock, CheckError> {
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.lock)
            .map_err(|e| CheckError::io(&self.lock, e))?;
        match file.try_lock() {
            Ok(()) => Ok(SessionLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(CheckError::Locked {
                dir: self.dir.clone(),
                lock: self.lock.clone(),
            }),
            Err(TryLockError::Error(e)) => Err(CheckError::io(&self.lock, e)),
        }
    }

    /// Is the approval marker at least as new as the plan?
    pub fn verify(&self) -> Result<Freshness, CheckError> {
        let plan =
            modified(&self.plan)?.ok_or_else(|| CheckError::PlanNotFound(self.plan.clone()))?;
        Ok(match modified(&self.marker)? {
            None => Freshness::Missing,
            Some(m) if m >= plan => Freshness::Fresh,
            Some(_) => Freshness::Stale,
        })
    }

    /// Write the approval marker (seed: `touch "{dir}/${PLAN_BASE}.approved"`).
    pub fn write_marker(&self) -> Result<(), CheckError> {
        write_atomic(&self.marker, "")
    }
}

/// Whether an approval still covers the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// The marker is as new as plan.md or newer.
    Fresh,
    /// plan.md changed after the approval.
    Stale,
    /// Never approved.
    Missing,
}

/// Holds the session lock; dropping it releases the lock.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
}

fn modified(path: &Path) -> Result<Option<SystemTime>, CheckError> {
    match std::fs::metadata(path) {
        Ok(m) => m.modified().map(Some).map_err(|e| CheckError::io(path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CheckError::io(path, e)),
    }
}

/// Temp file in the same directory, fsync, rename: readers see the old file or
/// the new one, never half of one. A symlink is followed (its target is
/// replaced) and an existing file keeps its permissions.
pub fn write_atomic(path: &Path, contents: &str) -> Result<(), CheckError> {
    let existing = std::fs::metadata(path).ok();
    let path = match existing {
        Some(_) => std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()),
        None => path.to_path_buf(),
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".crit-");
    match existing {
        Some(m) => {
            builder.permissions(m.permissions());
        }
        None => set_default_permissions(&mut builder),
    }
    let mut tmp = builder
        .tempfile_in(&dir)
        .map_err(|e| CheckError::io(&dir, e))?;
    tmp.write_all(contents.as_bytes())
        .map_err(|e| CheckError::io(tmp.path(), e))?;
    tmp.as_file()
        .sync_all()
        .map_err(|e| CheckError::io(tmp.path(), e))?;
    tmp.persist(&path)
        .map_err(|e| CheckError::io(&path, e.error))?;
    Ok(())
}

/// New session files are readable like any file an editor would create
/// (tempfile's own default is owner-only).
#[cfg(unix)]
fn set_default_permissions(builder: &mut tempfile::Builder<'_, '_>) {
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(std::fs::Permissions::from_mode(0o644));
}

#[cfg(not(unix))]
fn set_default_permissions(_: &mut tempfile::Builder<'_, '_>) {}

/// The machine's writes, to the session's files.
#[derive(Debug)]
pub struct FileStore<'a> {
    pub paths: &'a SessionPaths,
}

impl Store for FileStore<'_> {
    fn save_state(&mut self, state: &State) -> Result<(), CheckError> {
        write_atomic(&self.paths.state, &state.to_yaml())
    }

    fn save_plan(&mut self, plan: &str) -> Result<(), CheckError> {
        // Any edit invalidates an earlier approval (seed "Re-Review Requirements").
        match std::fs::remove_file(&self.paths.marker) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(CheckError::io(&self.paths.marker, e)),
        }
        write_atomic(&self.paths.plan, plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve() {
        let home = Path::new("/home/u");
        let s = SessionPaths::resolve("session://20260101-abcd", Some(home)).unwrap();
        assert_eq!(
            s.dir,
            PathBuf::from("/home/u/.claude/sessions/20260101-abcd")
        );
        assert_eq!(s.plan, s.dir.join("plan.md"));
        assert_eq!(s.marker, s.dir.join("plan.approved"));
        assert!(SessionPaths::resolve("session://../x", Some(home)).is_err());
        assert!(matches!(
            SessionPaths::resolve("session://x", None),
            Err(CheckError::NoHome(_))
        ));
        let p = SessionPaths::resolve("/home/u/.claude/plans/my-plan.md", None).unwrap();
        assert_eq!(
            p.marker,
            PathBuf::from("/home/u/.claude/plans/my-plan.approved")
        );
        assert_eq!(
            p.context,
            PathBuf::from("/home/u/.claude/plans/context.yaml")
        );
        assert_eq!(
            SessionPaths::resolve("plan.md", None).unwrap().dir,
            PathBuf::from(".")
        );
        assert_eq!(
            SessionPaths::resolve("some/dir", None).unwrap().plan,
            PathBuf::from("some/dir/plan.md")
        );
    }

    #[test]
    fn lock_keeps_a_second_run_out() {
        let tmp = tempfile::tempdir().unwrap();
        let s = SessionPaths::resolve(tmp.path().to_str().unwrap(), None).unwrap();
        let guard = s.lock().unwrap();
        let err = s.lock().unwrap_err();
        assert!(err.is_retryable());
        assert!(err.to_string().contains("another `crit plan` run"), "{err}");
        drop(guard);
        assert!(s.lock().is_ok());
    }

    #[test]
    fn atomic_write_and_marker_freshness() {
        let tmp = tempfile::tempdir().unwrap();
        let s = SessionPaths::resolve(tmp.path().to_str().unwrap(), None).unwrap();
        assert!(matches!(s.verify(), Err(CheckError::PlanNotFound(_))));
        write_atomic(&s.plan, "# Plan\n").unwrap();
        assert_eq!(s.verify().unwrap(), Freshness::Missing);
        s.write_marker().unwrap();
        assert_eq!(s.verify().unwrap(), Freshness::Fresh);
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        File::options()
            .write(true)
            .open(&s.plan)
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert_eq!(s.verify().unwrap(), Freshness::Stale);
        // A plan edit through the store removes the marker.
        s.write_marker().unwrap();
        FileStore { paths: &s }.save_plan("# Plan v2\n").unwrap();
        assert!(!s.marker.exists());
        assert_eq!(std::fs::read_to_string(&s.plan).unwrap(), "# Plan v2\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&s.plan, std::fs::Permissions::from_mode(0o640)).unwrap();
            write_atomic(&s.plan, "# Plan v3\n").unwrap();
            assert_eq!(
                std::fs::metadata(&s.plan).unwrap().permissions().mode() & 0o777,
                0o640
            );
            write_atomic(&s.state, "edits: 0\n").unwrap();
            assert_eq!(
                std::fs::metadata(&s.state).unwrap().permissions().mode() & 0o777,
                0o644
            );
            std::fs::remove_file(&s.state).unwrap();
            // A symlinked plan keeps its link; the target gets the new text.
            let real = tmp.path().join("real.md");
            std::fs::rename(&s.plan, &real).unwrap();
            std::os::unix::fs::symlink(&real, &s.plan).unwrap();
            write_atomic(&s.plan, "# via link\n").unwrap();
            assert!(
                std::fs::symlink_metadata(&s.plan)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(std::fs::read_to_string(&real).unwrap(), "# via link\n");
            std::fs::remove_file(&s.plan).unwrap();
            std::fs::rename(&real, &s.plan).unwrap();
        }
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "no temp files left: {leftovers:?}");
    }
}
