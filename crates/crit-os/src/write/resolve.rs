//! Opening a directory beneath a root without following any symlink.
//!
//! One `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` where the kernel has it
//! (Linux 5.6+); where it does not (`ENOSYS`, or `EPERM`/`EINVAL` from a
//! seccomp filter that does not know it), and whenever the fast path fails
//! (a missing directory to create, a symlink to name), a walk that opens one
//! component at a time relative to the last one's descriptor with
//! `O_NOFOLLOW | O_DIRECTORY`. Either way a symlink swapped in between two
//! checks is never followed: each step is relative to a descriptor already
//! held, and the kernel refuses the link itself.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use super::error::{FsError, Op};

/// Set once the kernel (or a seccomp filter) refuses `openat2`: later opens
/// go straight to the walk.
static OPENAT2_MISSING: AtomicBool = AtomicBool::new(false);

/// How directories beneath a root are opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Resolution {
    /// `openat2` where the kernel has it, else the walk.
    #[default]
    Auto,
    /// Always the component-by-component walk (the fallback, forced).
    Walk,
}

/// A relative path split into plain components, or why it may not be used:
/// `..`, an absolute path and an empty one are refused; `.` is skipped.
pub(super) fn components(rel: &Path) -> Option<Vec<&OsStr>> {
    let mut out = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.is_empty()).then_some(out)
}

/// What is needed to name paths in errors.
pub(super) struct Ctx<'a> {
    pub root: &'a Path,
    pub op: Op,
    /// The whole path the operation is about (root joined with rel).
    pub path: &'a Path,
}

impl Ctx<'_> {
    pub(super) fn at(&self, comps: &[&OsStr]) -> PathBuf {
        let mut p = self.root.to_path_buf();
        p.extend(comps);
        p
    }

    pub(super) fn io(&self, source: impl Into<std::io::Error>) -> FsError {
        FsError::Io {
            op: self.op,
            path: self.path.to_path_buf(),
            source: source.into(),
        }
    }

    /// The error for opening `name` in `dir` (reached by `comps`) failing with `e`.
    pub(super) fn classify(
        &self,
        dir: impl AsFd,
        name: &OsStr,
        comps: &[&OsStr],
        e: Errno,
    ) -> FsError {
        let link = || FsError::Symlink {
            op: self.op,
            path: self.path.to_path_buf(),
            link: self.at(comps),
        };
        if e == Errno::LOOP || e == Errno::MLINK {
            return link();
        }
        if e == Errno::NOTDIR {
            return match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                Ok(st) if FileType::from_raw_mode(st.st_mode) == FileType::Symlink => link(),
                _ => FsError::NotADirectory {
                    op: self.op,
                    path: self.path.to_path_buf(),
                    at: self.at(comps),
                },
            };
        }
        self.io(e)
    }
}

/// The directory `comps` beneath `root`, opened without following symlinks;
/// missing directories are created with `create` (less the umask) when given.
pub(super) fn open_dir(
    root: &OwnedFd,
    comps: &[&OsStr],
    create: Option<u32>,
    how: Resolution,
    cx: &Ctx<'_>,
) -> Result<OwnedFd, FsError> {
    if comps.is_empty() {
        return reopen(root).map_err(|e| cx.io(e));
    }
    if how == Resolution::Auto && !OPENAT2_MISSING.load(Ordering::Relaxed) {
        let rel: PathBuf = comps.iter().collect();
        match rustix::fs::openat2(
            root,
            &rel,
            dir_flags(),
            Mode::empty(),
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        ) {
            Ok(fd) => return Ok(fd),
            Err(e) if e == Errno::NOSYS || e == Errno::PERM || e == Errno::INVAL => {
                OPENAT2_MISSING.store(true, Ordering::Relaxed);
            }
            // A missing directory to create, a symlink or a file to name
            // precisely, a rename race (EAGAIN): the walk does each.
            Err(_) => {}
        }
    }
    walk(root, comps, create, cx)
}

fn walk(
    root: &OwnedFd,
    comps: &[&OsStr],
    create: Option<u32>,
    cx: &Ctx<'_>,
) -> Result<OwnedFd, FsError> {
    let mut cur = reopen(root).map_err(|e| cx.io(e))?;
    for (i, name) in comps.iter().enumerate() {
        let here = &comps[..=i];
        let next = match rustix::fs::openat(&cur, *name, dir_flags(), Mode::empty()) {
            Err(e) if e == Errno::NOENT && create.is_some() => {
                let mode = Mode::from_raw_mode(create.unwrap_or(0o755));
                match rustix::fs::mkdirat(&cur, *name, mode) {
                    Ok(()) => {}
                    // Another run made it, or it is a symlink: the open says which.
                    Err(e) if e == Errno::EXIST => {}
                    Err(e) => return Err(cx.classify(&cur, name, here, e)),
                }
                rustix::fs::openat(&cur, *name, dir_flags(), Mode::empty())
            }
            other => other,
        };
        cur = next.map_err(|e| cx.classify(&cur, name, here, e))?;
    }
    Ok(cur)
}

fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

/// A second descriptor for `dir` (never follows: `.` is the directory itself).
pub(super) fn reopen(dir: &OwnedFd) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat(
        dir,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// A temp name beside `name`: `.{name}.crit-tmp-{salt}` (shortened for long names).
pub(super) fn temp_name(name: &OsStr, salt: u32) -> OsString {
    let mut t = OsString::from(".");
    if name.as_bytes().len() <= 200 {
        t.push(name);
    }
    t.push(format!(".crit-tmp-{salt:08x}"));
    t
}
