//! The confined writer: every write (and read) beneath a directory crit does
//! not own — a project root, a plan's directory, `.claude/`, the session and
//! state directories — goes through a [`Root`], and never follows a symlink
//! found beneath it.
//!
//! A [`Root`] is an open directory. Each operation takes a path relative to
//! it and:
//! - opens the parent directory from the root without following symlinks
//!   ([`Resolution`]: `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`,
//!   else an `O_NOFOLLOW | O_DIRECTORY` walk, one component at a time);
//!   `..` and absolute paths are refused;
//! - refuses a symlink anywhere under the root with [`FsError::Symlink`],
//!   which names the link ("refusing to write …/.crit/config.yaml: …/.crit is
//!   a symbolic link");
//! - writes through a temp file created `O_CREAT | O_EXCL | O_NOFOLLOW` in
//!   that directory, fsynced, then `renameat`ed over the final name, and the
//!   directory fsynced: readers see the old file or the new one, a full disk
//!   leaves the old file and no temp file, and a hard link at the final name
//!   keeps its old content (the name is replaced, nothing is written through).
//!
//! The root itself may be reached through symlinks: the user typed it, or it
//! is the project's canonical root. Paths the user typed for crit's output
//! (`--out`, `--record`, a user-level settings file) go through
//! [`write_atomic_user_path`], which follows symlinks the user chose.

mod error;
mod resolve;
mod user_path;

use std::ffi::OsStr;
use std::hash::BuildHasher;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};
use rustix::io::Errno;

pub use error::{FsError, Op};
pub use resolve::Resolution;
pub use user_path::write_atomic_user_path;

use crate::read::InputLimits;
use resolve::{Ctx, components, open_dir};

/// What to do when the final name of a write is a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Replace {
    /// Refuse with [`FsError::Symlink`]: a user's link is not silently replaced.
    #[default]
    Refuse,
    /// Replace the link itself with the new file (its target is untouched).
    Link,
}

/// How [`Root::write_atomic_with`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// The new file's mode; `None` keeps an existing file's mode, else 0644
    /// (less the umask).
    pub mode: Option<u32>,
    pub replace: Replace,
    /// Mode of parent directories created on the way (less the umask).
    pub dir_mode: u32,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            mode: None,
            replace: Replace::Refuse,
            dir_mode: 0o755,
        }
    }
}

impl WriteOptions {
    /// Owner-only: files 0600, new directories 0700 (sessions, state, caches).
    pub fn private() -> Self {
        WriteOptions {
            mode: Some(0o600),
            replace: Replace::Refuse,
            dir_mode: 0o700,
        }
    }
}

/// An open directory that confined operations are relative to.
#[derive(Debug)]
pub struct Root {
    fd: OwnedFd,
    path: PathBuf,
    resolution: Resolution,
}

/// An exclusive `flock` on a lock file; released when dropped.
#[derive(Debug)]
pub struct Lock {
    _fd: OwnedFd,
}

impl Root {
    /// Opens `dir` (symlinks on the way to it are followed: see the module docs).
    pub fn open(dir: impl AsRef<Path>) -> Result<Root, FsError> {
        let dir = dir.as_ref();
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let fd = rustix::fs::open(dir, flags, Mode::empty()).map_err(|e| FsError::Io {
            op: Op::Open,
            path: dir.to_path_buf(),
            source: e.into(),
        })?;
        Ok(Root {
            fd,
            path: dir.to_path_buf(),
            resolution: Resolution::Auto,
        })
    }

    /// Opens `dir`, creating it and its missing parents with `mode` (less the
    /// umask) first: for the user's own state and cache directories.
    pub fn open_or_create(dir: impl AsRef<Path>, mode: u32) -> Result<Root, FsError> {
        use std::os::unix::fs::DirBuilderExt;
        let dir = dir.as_ref();
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(mode)
            .create(dir)
            .map_err(|source| FsError::Io {
                op: Op::CreateDir,
                path: dir.to_path_buf(),
                source,
            })?;
        Root::open(dir)
    }

    /// Resolves paths the given way ([`Resolution::Walk`] forces the fallback
    /// walk, so it can be exercised where the kernel has `openat2`).
    pub fn with_resolution(mut self, resolution: Resolution) -> Self {
        self.resolution = resolution;
        self
    }

    /// The path this root was opened at (for messages).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `rel` beneath this root, for messages and for handing to others.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.path.join(rel)
    }

    /// The directory `rel` as a root of its own (created with `create` when
    /// given and missing), reached without following symlinks.
    pub fn subdir(&self, rel: impl AsRef<Path>, create: Option<u32>) -> Result<Root, FsError> {
        let rel = rel.as_ref();
        let path = self.path.join(rel);
        let op = if create.is_some() {
            Op::CreateDir
        } else {
            Op::Open
        };
        let cx = self.cx(op, &path);
        let comps = self.comps(rel, &cx)?;
        let fd = open_dir(&self.fd, &comps, create, self.resolution, &cx)?;
        Ok(Root {
            fd,
            path,
            resolution: self.resolution,
        })
    }

    /// Creates the directory `rel` and its missing parents with `mode`.
    pub fn create_dir_all(&self, rel: impl AsRef<Path>, mode: u32) -> Result<(), FsError> {
        self.subdir(rel, Some(mode)).map(drop)
    }

    /// Replaces `rel` with `bytes` atomically, with the default [`WriteOptions`].
    pub fn write_atomic(&self, rel: impl AsRef<Path>, bytes: &[u8]) -> Result<(), FsError> {
        self.write_atomic_with(rel, bytes, WriteOptions::default())
    }

    /// Replaces `rel` with `bytes` atomically (see the module docs).
    pub fn write_atomic_with(
        &self,
        rel: impl AsRef<Path>,
        bytes: &[u8],
        opts: WriteOptions,
    ) -> Result<(), FsError> {
        let rel = rel.as_ref();
        let path = self.path.join(rel);
        let cx = self.cx(Op::Write, &path);
        let (dir, name, comps) = self.parent(rel, Some(opts.dir_mode), &cx)?;
        let keep_mode = match stat_nofollow(&dir, name) {
            Ok(st) => match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => Some(st.st_mode & 0o7777),
                FileType::Symlink if opts.replace == Replace::Link => None,
                FileType::Symlink => {
                    return Err(FsError::Symlink {
                        op: Op::Write,
                        path: path.clone(),
                        link: cx.at(&comps),
                    });
                }
                _ => {
                    return Err(FsError::NotAFile {
                        op: Op::Write,
                        path,
                    });
                }
            },
            Err(e) if e == Errno::NOENT => None,
            Err(e) => return Err(cx.io(e)),
        };
        let (tmp, fd) = create_temp(&dir, name, opts.mode.unwrap_or(0o644), &cx)?;
        let written = (|| {
            if let (None, Some(mode)) = (opts.mode, keep_mode) {
                rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode))?;
            }
            let mut file = std::fs::File::from(fd);
            file.write_all(bytes)?;
            file.sync_all()?;
            drop(file);
            // Replaces whatever has the name now (a link swapped in since the
            // check included): the name, never what it points at.
            rustix::fs::renameat(&dir, &tmp, &dir, name)?;
            Ok::<(), std::io::Error>(())
        })();
        if let Err(e) = written {
            let _ = rustix::fs::unlinkat(&dir, &tmp, AtFlags::empty());
            return Err(cx.io(e));
        }
        rustix::fs::fsync(&dir).map_err(|e| cx.io(e))
    }

    /// Creates the file `rel` holding `bytes` only if the name is free, never
    /// replacing anything: a temp file written and fsynced, then linked into
    /// place (`linkat` fails on an existing name), so a concurrent reader sees
    /// the whole file or none. `false` when the name was taken (by a racing
    /// run, say); what holds it is left alone.
    pub fn create_new(
        &self,
        rel: impl AsRef<Path>,
        bytes: &[u8],
        mode: u32,
    ) -> Result<bool, FsError> {
        let rel = rel.as_ref();
        let path = self.path.join(rel);
        let cx = self.cx(Op::Write, &path);
        let (dir, name, _) = self.parent(rel, Some(0o700), &cx)?;
        let (tmp, fd) = create_temp(&dir, name, mode, &cx)?;
        let linked = (|| {
            let mut file = std::fs::File::from(fd);
            file.write_all(bytes)?;
            file.sync_all()?;
            match rustix::fs::linkat(&dir, &tmp, &dir, name, AtFlags::empty()) {
                Ok(()) => Ok(true),
                Err(e) if e == Errno::EXIST => Ok(false),
                Err(e) => Err(std::io::Error::from(e)),
            }
        })();
        let _ = rustix::fs::unlinkat(&dir, &tmp, AtFlags::empty());
        let linked = linked.map_err(|e| cx.io(e))?;
        rustix::fs::fsync(&dir).map_err(|e| cx.io(e))?;
        Ok(linked)
    }

    /// Appends `bytes` to `rel` (created with `mode` when missing, parents 0700):
    /// for logs of JSON lines. One `write` call, `O_APPEND`, under an
    /// exclusive lock on the file where the file system can lock (it keeps
    /// lines whole where `O_APPEND` alone might not).
    pub fn append(&self, rel: impl AsRef<Path>, bytes: &[u8], mode: u32) -> Result<(), FsError> {
        let rel = rel.as_ref();
        let path = self.path.join(rel);
        let cx = self.cx(Op::Append, &path);
        let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE;
        let fd = self.open_file(rel, flags, mode, Some(0o700), &cx)?;
        // Best effort: a file system that cannot lock still appends.
        let _ = rustix::fs::flock(&fd, rustix::fs::FlockOperation::LockExclusive);
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes).map_err(|e| cx.io(e))
    }

    /// Creates `rel` (or truncates it) and returns it open for writing, for
    /// a file written as it goes (a transcript); parents created 0700.
    pub fn create_truncate(
        &self,
        rel: impl AsRef<Path>,
        mode: u32,
    ) -> Result<std::fs::File, FsError> {
        let rel = rel.as_ref();
        let path = self.path.join(rel);
        let cx = self.cx(Op::Write, &path);
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC;
        let fd = self.open_file(rel, flags, mode, Some(0o700), &cx)?;
        Ok(std::fs::File::from(fd))
    }

    /// All of `rel`, at most `limits.max_bytes`; a symlink anywhere (the
    /// final name included) or a non-regular file is refused.
    pub fn read(&self, rel: impl AsRef<Path>, limits: InputLimits) -> Result<Vec<u8>, FsError> {
        let rel = rel.as_ref();
        let path = self.path.join(rel);
        let cx = self.cx(Op::Read, &path);
        let fd = self.open_file(rel, OFlags::RDONLY, 0, None, &cx)?;
        let mut out = Vec::new();
        std::fs::File::from(fd)
            .take(limits.max_bytes.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| cx.io(e))?;
        if out.len() as u64 > limits.max_bytes {
            return Err(FsError::TooLarge {
                path,
                limit: limits.max_bytes,
            });
        }
        Ok(out)
    }

    /// [`Root::read`] as UTF-8 text (not UTF-8 is an `InvalidData` error).
    pub fn read_to_string(
        &self,
        rel: impl AsRef<Path>,
        limits: InputLimits,
    ) -> Result<String, FsError> {
        let rel = rel.as_ref();
        let bytes = self.read(rel, limits)?;
        String::from_utf8(bytes).map_err(|_| FsError::Io {
            op: Op::Read,
            path: self.path.join(rel),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, "not UTF-8 text"),
        })
    }

    /// Whether anything (a symlink included) has the name `rel`; a symlinked
    /// directory on the way is an error.
    pub fn exists(&self, rel: impl AsRef<Path>) -> Result<bool, FsError> {
        let rel = rel.as_ref();
        let path = self.path.join(rel);
        let cx = self.cx(Op::Read, &path);
        let (dir, name, _) = match self.parent(rel, None, &cx) {
            Err(e) if e.is_not_found() => return Ok(false),
            other => other?,
        };
        match stat_nofollow(&dir, name) {
            Ok(_) => Ok(true),
            Err(e) if e == Errno::NOENT => Ok(false),
            Err(e) => Err(cx.io(e)),
        }
    }

    /// Removes the name `rel` (a symlink there is removed, never followed);
    /// `false` when there was nothing to remove.
    pub fn remove(&self, rel: impl AsRef<Path>) -> Result<bool, FsError> {
        let rel = rel.as_ref();
        let path = self.path.join(rel);
        let cx = self.cx(Op::Remove, &path);
        let (dir, name, _) = match self.parent(rel, None, &cx) {
            Err(e) if e.is_not_found() => return Ok(false),
            other => other?,
        };
        match rustix::fs::unlinkat(&dir, name, AtFlags::empty()) {
            Ok(()) => Ok(true),
            Err(e) if e == Errno::NOENT => Ok(false),
            Err(e) => Err(cx.io(e)),
        }
    }

    /// Takes an exclusive lock on the file `rel` (created 0600 when missing),
    /// or `None` when another process holds it.
    pub fn try_lock(&self, rel: impl AsRef<Path>) -> Result<Option<Lock>, FsError> {
        self.lock_with(rel.as_ref(), FlockOperation::NonBlockingLockExclusive)
    }

    /// Waits for an exclusive lock on the file `rel` (created 0600 when missing).
    pub fn lock(&self, rel: impl AsRef<Path>) -> Result<Lock, FsError> {
        let rel = rel.as_ref();
        self.lock_with(rel, FlockOperation::LockExclusive)?
            .ok_or_else(|| {
                self.cx(Op::Lock, &self.path.join(rel))
                    .io(Errno::WOULDBLOCK)
            })
    }

    fn lock_with(&self, rel: &Path, how: FlockOperation) -> Result<Option<Lock>, FsError> {
        let path = self.path.join(rel);
        let cx = self.cx(Op::Lock, &path);
        let fd = self.open_file(rel, OFlags::RDWR | OFlags::CREATE, 0o600, None, &cx)?;
        match rustix::fs::flock(&fd, how) {
            Ok(()) => Ok(Some(Lock { _fd: fd })),
            Err(e) if e == Errno::WOULDBLOCK => Ok(None),
            Err(e) => Err(cx.io(e)),
        }
    }

    fn cx<'a>(&'a self, op: Op, path: &'a Path) -> Ctx<'a> {
        Ctx {
            root: &self.path,
            op,
            path,
        }
    }

    fn comps<'r>(&self, rel: &'r Path, cx: &Ctx<'_>) -> Result<Vec<&'r OsStr>, FsError> {
        components(rel).ok_or_else(|| FsError::Escapes {
            op: cx.op,
            path: cx.path.to_path_buf(),
            root: self.path.clone(),
        })
    }

    /// The parent directory of `rel` (opened confined), its final name, and
    /// all of `rel`'s components.
    fn parent<'r>(
        &self,
        rel: &'r Path,
        create: Option<u32>,
        cx: &Ctx<'_>,
    ) -> Result<(OwnedFd, &'r OsStr, Vec<&'r OsStr>), FsError> {
        let comps = self.comps(rel, cx)?;
        let (name, dirs) = match comps.split_last() {
            Some((name, dirs)) => (*name, dirs),
            None => return Err(cx.io(Errno::INVAL)),
        };
        let dir = open_dir(&self.fd, dirs, create, self.resolution, cx)?;
        Ok((dir, name, comps))
    }

    /// Opens the file `rel` with `flags`, never following a symlink and never
    /// blocking on a FIFO; anything but a regular file is refused.
    fn open_file(
        &self,
        rel: &Path,
        flags: OFlags,
        mode: u32,
        create_dirs: Option<u32>,
        cx: &Ctx<'_>,
    ) -> Result<OwnedFd, FsError> {
        let (dir, name, comps) = self.parent(rel, create_dirs, cx)?;
        let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
        let fd = rustix::fs::openat(&dir, name, flags, Mode::from_raw_mode(mode)).map_err(|e| {
            match e {
                // A FIFO without a reader (write-only, non-blocking) or a socket.
                Errno::NXIO => FsError::NotAFile {
                    op: cx.op,
                    path: cx.path.to_path_buf(),
                },
                e => cx.classify(&dir, name, &comps, e),
            }
        })?;
        let st = rustix::fs::fstat(&fd).map_err(|e| cx.io(e))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(FsError::NotAFile {
                op: cx.op,
                path: cx.path.to_path_buf(),
            });
        }
        // Back to blocking I/O for the regular file.
        let fl = rustix::fs::fcntl_getfl(&fd).map_err(|e| cx.io(e))?;
        rustix::fs::fcntl_setfl(&fd, fl.difference(OFlags::NONBLOCK)).map_err(|e| cx.io(e))?;
        Ok(fd)
    }
}

fn stat_nofollow(dir: &OwnedFd, name: &OsStr) -> rustix::io::Result<rustix::fs::Stat> {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
}

/// A new temp file beside `name` in `dir`, created exclusively and never
/// through a symlink.
fn create_temp(
    dir: &OwnedFd,
    name: &OsStr,
    mode: u32,
    cx: &Ctx<'_>,
) -> Result<(std::ffi::OsString, OwnedFd), FsError> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut last = Errno::EXIST;
    for attempt in 0u32..16 {
        let salt = std::collections::hash_map::RandomState::new().hash_one((
            std::process::id(),
            attempt,
            name,
        ));
        let tmp = resolve::temp_name(name, salt as u32);
        match rustix::fs::openat(dir, &tmp, flags, Mode::from_raw_mode(mode)) {
            Ok(fd) => return Ok((tmp, fd)),
            Err(e) if e == Errno::EXIST => last = e,
            Err(e) => return Err(cx.io(e)),
        }
    }
    Err(cx.io(last))
}
