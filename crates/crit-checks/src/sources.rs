//! Loading checks from every source of SETUP step 6, in expert-review's order.
//! Earlier sources win on an id collision; later duplicates are silently dropped.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::check::{Check, ChecksFile, RawCheck, SourceKind};
use crate::error::CheckError;
use crate::table::{self, Flavor};
use crate::yaml;

/// Where the sources live.
#[derive(Debug, Clone)]
pub struct SourceDirs {
    /// The session directory (`{dir}`).
    pub session: PathBuf,
    pub project_root: PathBuf,
    /// The user's home, for `~/.claude/...`; `None` skips the global sources.
    pub home: Option<PathBuf>,
}

/// The checks, and how many each file gave (after collisions).
#[derive(Debug, Clone, Default)]
pub struct Loaded {
    pub checks: Vec<Check>,
    pub files: Vec<(SourceKind, PathBuf, usize)>,
    /// Checks dropped because an earlier source had their id.
    pub dropped: Vec<(String, PathBuf)>,
}

impl Loaded {
    fn add(
        &mut self,
        seen: &mut HashSet<String>,
        kind: SourceKind,
        path: &Path,
        checks: Vec<Check>,
    ) {
        let mut kept = 0;
        for c in checks {
            if seen.insert(c.id.clone()) {
                self.checks.push(c);
                kept += 1;
            } else {
                tracing::debug!(id = %c.id, file = %path.display(), "check id already loaded from an earlier source; dropped");
                self.dropped.push((c.id, path.to_path_buf()));
            }
        }
        self.files.push((kind, path.to_path_buf(), kept));
    }
}

/// Load checks from a–g and then context.yaml's `checks`. No check at all is
/// `CheckError::NoChecks`.
pub fn load(
    dirs: &SourceDirs,
    context_checks: Option<(&Path, Vec<RawCheck>)>,
) -> Result<Loaded, CheckError> {
    let mut loaded = Loaded::default();
    let mut seen = HashSet::new();
    let home_claude = dirs.home.as_ref().map(|h| h.join(".claude"));

    // a. session checks.yaml
    let session_checks = dirs.session.join("checks.yaml");
    let text = read_confined(&dirs.session, &session_checks)?;
    if let Some(checks) = parse_checks(&session_checks, text, SourceKind::SessionChecks)? {
        loaded.add(
            &mut seen,
            SourceKind::SessionChecks,
            &session_checks,
            checks,
        );
    }
    // b. global checks
    if let Some(hc) = &home_claude {
        let p = hc.join("checks").join("global-checks.yaml");
        if let Some(checks) = yaml_checks(&p, SourceKind::GlobalChecks)? {
            loaded.add(&mut seen, SourceKind::GlobalChecks, &p, checks);
        }
    }
    // c. project checks/*.yaml
    for p in files_with_ext(&dirs.project_root.join("checks"), &["yaml", "yml"])? {
        if let Some(checks) = yaml_checks(&p, SourceKind::ProjectChecks)? {
            loaded.add(&mut seen, SourceKind::ProjectChecks, &p, checks);
        }
    }
    // d. session rules/*.md
    for p in files_with_ext(&dirs.session.join("rules"), &["md"])? {
        let text = read_confined(&dirs.session, &p)?.unwrap_or_default();
        let stem = id_stem(&p);
        let checks = table::parse(&text, Flavor::Rules)
            .into_iter()
            .enumerate()
            .map(|(n, r)| {
                Check::from_table(
                    format!("{stem}_{}", n + 1),
                    r.pattern,
                    r.reason,
                    SourceKind::RulesFile,
                    &p,
                )
            })
            .collect();
        loaded.add(&mut seen, SourceKind::RulesFile, &p, checks);
    }
    // e. session project-claude.md, else f. CLAUDE.md in the project root
    let session_claude = dirs.session.join("project-claude.md");
    let project_claude = dirs.project_root.join("CLAUDE.md");
    let mut claude_files = Vec::new();
    if session_claude.is_file() {
        claude_files.push((SourceKind::SessionClaudeMd, session_claude));
    } else {
        claude_files.push((SourceKind::ProjectClaudeMd, project_claude.clone()));
    }
    // g. the global CLAUDE.md (unless it is the same file as f)
    if let Some(hc) = &home_claude {
        let global = hc.join("CLAUDE.md");
        if !same_file(&global, &project_claude) || claude_files[0].0 == SourceKind::SessionClaudeMd
        {
            claude_files.push((SourceKind::GlobalClaudeMd, global));
        }
    }
    for (kind, p) in claude_files {
        let text = match kind {
            SourceKind::SessionClaudeMd => read_confined(&dirs.session, &p)?,
            _ => read(&p)?,
        };
        if let Some(text) = text {
            // Each CLAUDE.md numbers its own rows: the project's are
            // expert-review's `anti_pattern_N`, the user's own
            // `user_anti_pattern_N`, so neither shadows the other's.
            let prefix = match kind {
                SourceKind::GlobalClaudeMd => "user_anti_pattern",
                _ => "anti_pattern",
            };
            let checks = table::parse(&text, Flavor::ClaudeMd)
                .into_iter()
                .enumerate()
                .map(|(n, r)| {
                    Check::from_table(format!("{prefix}_{}", n + 1), r.pattern, r.reason, kind, &p)
                })
                .collect();
            loaded.add(&mut seen, kind, &p, checks);
        }
    }
    // Lowest priority: context.yaml's own checks.
    if let Some((path, raw)) = context_checks {
        let checks = raw
            .into_iter()
            .map(|c| c.into_check(SourceKind::Context, path))
            .collect::<Result<Vec<_>, _>>()?;
        loaded.add(&mut seen, SourceKind::Context, path, checks);
    }
    if loaded.checks.is_empty() {
        return Err(CheckError::NoChecks);
    }
    Ok(loaded)
}

/// The project root: context.yaml's `project_root`, else the git root of the
/// session directory, else its parent (SETUP step 5).
pub fn project_root(session: &Path, from_context: Option<&Path>, home: Option<&Path>) -> PathBuf {
    // `crit plan plan.md` without git: the directory is `.`, whose parent as
    // written is nothing at all; as the OS finds it, a real directory.
    let absolute = std::path::absolute(session).unwrap_or_else(|_| session.to_path_buf());
    let session = absolute.as_path();
    if let Some(p) = from_context {
        // A relative project_root is read from the session directory, not the caller's cwd.
        return session.join(expand_home(p, home));
    }
    if let Some(root) = git_root(session) {
        return root;
    }
    session
        .parent()
        .map_or_else(|| session.to_path_buf(), Path::to_path_buf)
}

fn expand_home(p: &Path, home: Option<&Path>) -> PathBuf {
    match (p.strip_prefix("~"), home) {
        (Ok(rest), Some(h)) => h.join(rest),
        _ => p.to_path_buf(),
    }
}

/// The work tree of the repository containing `dir`, found the way crit's git
/// runner finds it (no git process, no repository config read).
fn git_root(dir: &Path) -> Option<PathBuf> {
    crit_os::git::layout::discover(dir)
        .ok()
        .map(|layout| layout.work_tree)
}

fn yaml_checks(path: &Path, kind: SourceKind) -> Result<Option<Vec<Check>>, CheckError> {
    parse_checks(path, read(path)?, kind)
}

fn parse_checks(
    path: &Path,
    text: Option<String>,
    kind: SourceKind,
) -> Result<Option<Vec<Check>>, CheckError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let file: ChecksFile = yaml::parse(path, &text)?;
    let checks = file
        .checks
        .into_iter()
        .map(|c| c.into_check(kind, path))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some(checks))
}

/// The file's text, or `None` when it does not exist. At most the input limit
/// is read: a plan or check file larger than that is an error naming it.
/// For the user's own files (their CLAUDE.md, global checks), which may be
/// symlinks into a dotfiles repository.
pub(crate) fn read(path: &Path) -> Result<Option<String>, CheckError> {
    use crit_core::files::{InputLimits, ReadError, read_capped};
    match read_capped(path, InputLimits::default()) {
        Ok(bytes) => utf8(path, bytes).map(Some),
        Err(ReadError::Io { source, .. }) => match source.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::IsADirectory => Ok(None),
            _ => Err(CheckError::io(path, source)),
        },
        Err(e @ ReadError::TooLarge { .. }) => Err(CheckError::TooLarge(e)),
    }
}

/// [`read`] for a file of the plan's directory `dir` (the plan, its checks,
/// context and state, the approval marker): opened beneath `dir` without
/// following a symlink, so a checkout's `plan.md -> ~/.bashrc` is refused
/// with an error naming the link. `dir` itself is where the user pointed.
pub(crate) fn read_confined(dir: &Path, path: &Path) -> Result<Option<String>, CheckError> {
    use crit_os::write::{FsError, Root};
    let (dir, rel) = crate::session::beneath(dir, path);
    let root = match Root::open(&dir) {
        Err(e) if e.is_not_found() => return Ok(None),
        other => other?,
    };
    match root.read(&rel, crit_core::files::InputLimits::default()) {
        Ok(bytes) => utf8(path, bytes).map(Some),
        Err(e) if e.is_not_found() => Ok(None),
        Err(FsError::NotAFile { .. }) if path.is_dir() => Ok(None),
        Err(FsError::TooLarge { limit, .. }) => Err(CheckError::TooLarge(
            crit_core::files::ReadError::TooLarge {
                path: path.to_path_buf(),
                limit,
            },
        )),
        Err(e) => Err(e.into()),
    }
}

fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, CheckError> {
    String::from_utf8(bytes).map_err(|e| CheckError::Malformed {
        path: path.to_path_buf(),
        line: 1,
        column: 1,
        message: format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ),
    })
}

/// Files of `dir` with one of `exts`, sorted by name so the load order is stable.
fn files_with_ext(dir: &Path, exts: &[&str]) -> Result<Vec<PathBuf>, CheckError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(Vec::new());
        }
        Err(e) => return Err(CheckError::io(dir, e)),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.contains(&e))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// `physics-antipatterns.md` → `physics_antipatterns`.
fn id_stem(path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("rules");
    stem.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
#[path = "sources_tests.rs"]
mod tests;
