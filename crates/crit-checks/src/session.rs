//! The session directory on disk: where `plan.md`, `context.yaml`,
//! `state.yaml` and the approval marker live; atomic writes; the run lock.
//!
//! A session directory (`plan.md`, expert-review's layout) keeps its files
//! under their plain names. A directory of several plans (Claude Code's
//! `~/.claude/plans/*.md`) keeps each plan's own: `{stem}.state.yaml`,
//! `{stem}.context.yaml` (the directory's `context.yaml` is read when the
//! plan has none of its own), `{stem}.approved`, and its lock, so no two
//! plans share approvals, counters, history or a chosen panel.
//!
//! Every file here is read and written beneath the plan's directory without
//! following a symlink ([`crit_os::write::Root`]): the directory is where the
//! user pointed, but what is in it may come from a reviewed checkout.

use std::path::{Path, PathBuf};

use crit_os::write::{Lock, Root};

use crate::error::CheckError;
use crate::machine::Store;
use crate::state::State;
use crate::state_file::StateSeal;

/// The files of one review session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionPaths {
    pub dir: PathBuf,
    pub plan: PathBuf,
    /// This plan's context file: where a missing one is created and an
    /// AUTO-SELECTed panel is written.
    pub context: PathBuf,
    /// The directory's shared `context.yaml`, read when a plan of a plans
    /// directory has no context of its own (`None` for `plan.md`).
    pub shared_context: Option<PathBuf>,
    pub state: PathBuf,
    pub lock: PathBuf,
    /// `{dir}/{plan stem}.approved` (expert-review's APPROVED step 1).
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
        let session_layout = plan
            .file_name()
            .is_some_and(|n| n.eq_ignore_ascii_case("plan.md"));
        let own = |name: &str| match session_layout {
            true => dir.join(name),
            false => dir.join(format!("{stem}.{name}")),
        };
        SessionPaths {
            context: own("context.yaml"),
            shared_context: (!session_layout).then(|| dir.join("context.yaml")),
            state: own("state.yaml"),
            lock: match session_layout {
                true => dir.join(".crit-plan.lock"),
                false => dir.join(format!(".{stem}.crit-plan.lock")),
            },
            marker: dir.join(format!("{stem}.approved")),
            plan,
            dir,
        }
    }

    /// The context file to read: the plan's own, else the directory's
    /// shared one, else the plan's own (to be created).
    pub fn context_to_read(&self) -> &Path {
        match &self.shared_context {
            Some(shared) if !self.context.exists() && shared.exists() => shared,
            _ => &self.context,
        }
    }

    /// What the state's seal binds it to: the session directory for
    /// `plan.md` (as before), the plan's own state file in a plans directory,
    /// so one plan's sealed state never verifies as another's.
    pub fn seal_scope(&self) -> PathBuf {
        match &self.shared_context {
            None => self.dir.clone(),
            Some(_) => self.state.clone(),
        }
    }

    /// Keep other `crit plan` runs off this session until the guard drops.
    pub fn lock(&self) -> Result<SessionLock, CheckError> {
        let (dir, rel) = beneath(&self.dir, &self.lock);
        match Root::open(dir)?.try_lock(rel)? {
            Some(lock) => Ok(SessionLock { _lock: lock }),
            None => Err(CheckError::Locked {
                dir: self.dir.clone(),
                lock: self.lock.clone(),
            }),
        }
    }
}

/// Holds the session lock; dropping it releases the lock.
#[derive(Debug)]
pub struct SessionLock {
    _lock: Lock,
}

/// `path` as a directory to open and a path beneath it: relative to `dir`
/// when it is inside it (a session's files), else its own parent and name.
pub(crate) fn beneath(dir: &Path, path: &Path) -> (PathBuf, PathBuf) {
    if let Ok(rel) = path.strip_prefix(dir)
        && !dir.as_os_str().is_empty()
        && !rel.as_os_str().is_empty()
    {
        return (dir.to_path_buf(), rel.to_path_buf());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map_or_else(PathBuf::new, PathBuf::from);
    (parent, name)
}

/// Replaces the file at `path` atomically (temp file in the same directory,
/// fsync, rename: readers see the old file or the new one, a failed write
/// leaves no temp file; an existing file keeps its permissions). The
/// directory is opened as the user named it; a symlink at `path` itself is
/// refused, never followed or replaced.
pub fn write_atomic(path: &Path, contents: &str) -> Result<(), CheckError> {
    let (dir, name) = beneath(Path::new(""), path);
    Ok(Root::open(dir)?.write_atomic(name, contents.as_bytes())?)
}

/// [`write_atomic`] for a file of the session directory `dir`, opened beneath
/// it without following symlinks.
pub(crate) fn write_in(dir: &Path, path: &Path, contents: &str) -> Result<(), CheckError> {
    let (dir, rel) = beneath(dir, path);
    Ok(Root::open(dir)?.write_atomic(rel, contents.as_bytes())?)
}

/// The machine's writes, to the session's files: kept until [`FileStore::flush`],
/// then one durable write per file that changed, however many edits the run
/// made. A run that dies before the flush leaves the files as they were:
/// the old plan, its sealed state, its approval marker.
#[derive(Debug)]
pub struct FileStore<'a> {
    pub paths: &'a SessionPaths,
    /// Seals state.yaml as it is written.
    pub seal: &'a StateSeal<'a>,
    state: Option<State>,
    plan: Option<String>,
}

impl<'a> FileStore<'a> {
    /// `state`: a state to write even if the run changes nothing (a missing
    /// or reset state.yaml).
    pub fn new(paths: &'a SessionPaths, seal: &'a StateSeal<'a>, state: Option<State>) -> Self {
        FileStore {
            paths,
            seal,
            state,
            plan: None,
        }
    }

    /// Writes what the run changed: state.yaml first (its counts are a
    /// floor: a crash before the plan is written re-applies the fix and
    /// counts it again, never fewer), then the approval marker is removed
    /// (any edit invalidates an earlier approval, expert-review's
    /// "Re-Review Requirements") before plan.md is replaced.
    pub fn flush(&mut self) -> Result<(), CheckError> {
        if let Some(state) = self.state.take() {
            write_in(
                &self.paths.dir,
                &self.paths.state,
                &self.seal.render(&state),
            )?;
        }
        if let Some(plan) = self.plan.take() {
            let (dir, marker) = beneath(&self.paths.dir, &self.paths.marker);
            Root::open(dir)?.remove(marker)?;
            write_in(&self.paths.dir, &self.paths.plan, &plan)?;
        }
        Ok(())
    }
}

impl Store for FileStore<'_> {
    fn save_state(&mut self, state: &State) -> Result<(), CheckError> {
        self.state = Some(state.clone());
        Ok(())
    }

    fn save_plan(&mut self, plan: &str) -> Result<(), CheckError> {
        self.plan = Some(plan.to_string());
        Ok(())
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
        // A plans directory keeps each plan's state and context apart.
        assert_eq!(
            p.context,
            PathBuf::from("/home/u/.claude/plans/my-plan.context.yaml")
        );
        assert_eq!(
            p.shared_context.as_deref(),
            Some(Path::new("/home/u/.claude/plans/context.yaml"))
        );
        assert_eq!(
            p.state,
            PathBuf::from("/home/u/.claude/plans/my-plan.state.yaml")
        );
        assert_ne!(
            p.lock,
            SessionPaths::resolve("/home/u/.claude/plans/other.md", None)
                .unwrap()
                .lock
        );
        assert_eq!(s.state, s.dir.join("state.yaml"));
        assert_eq!(s.shared_context, None);
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
    fn atomic_writes_and_plan_edits_void_the_marker() {
        let tmp = tempfile::tempdir().unwrap();
        let keys = tempfile::tempdir().unwrap();
        let key = crit_os::seal::SealKey::open_or_create(keys.path()).unwrap();
        let s = SessionPaths::resolve(tmp.path().to_str().unwrap(), None).unwrap();
        write_atomic(&s.plan, "# Plan\n").unwrap();
        write_atomic(&s.marker, "anything").unwrap();
        // A plan edit through the store removes the marker.
        let seal = StateSeal::new(&key, &s.dir);
        let mut store = FileStore::new(&s, &seal, None);
        store.save_plan("# Plan v1.5\n").unwrap();
        store.save_plan("# Plan v2\n").unwrap();
        // Kept until the flush: the marker and the plan as they were.
        assert!(s.marker.exists());
        store.flush().unwrap();
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
            // A symlinked plan is refused, naming it; its target is untouched.
            let real = tmp.path().join("real.md");
            std::fs::rename(&s.plan, &real).unwrap();
            std::os::unix::fs::symlink(&real, &s.plan).unwrap();
            let e = write_atomic(&s.plan, "# via link\n").unwrap_err();
            assert!(e.to_string().contains("plan.md is a symbolic link"), "{e}");
            let mut store = FileStore::new(&s, &seal, None);
            store.save_plan("# via store\n").unwrap();
            let e = store.flush().unwrap_err();
            assert!(e.to_string().contains("plan.md is a symbolic link"), "{e}");
            assert!(
                std::fs::symlink_metadata(&s.plan)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(std::fs::read_to_string(&real).unwrap(), "# Plan v3\n");
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
