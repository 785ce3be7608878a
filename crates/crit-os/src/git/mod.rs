//! The hardened git runner for crit's own fixed commands (the review scope,
//! the base revision's files): no shell; the repository named explicitly
//! (`--git-dir`/`--work-tree` from [`layout::discover`], so `core.worktree` or
//! a `.git` file pointing elsewhere cannot move it); [`hardening::HARDENING`]
//! (`-c` overrides that beat every config file: no hooks, fsmonitor, pagers,
//! external diff, credential helpers…); the repository's own filter drivers
//! and attribute or exclude files neutralised ([`hardening::RepoConfig`]); a
//! scrubbed environment (nothing of the caller's `GIT_DIR` & co, only `PATH`
//! without entries inside the project, `HOME`, `XDG_CONFIG_HOME`,
//! [`hardening::GIT_ENV`] and the C locale); stdin empty; output capped; a
//! timeout that kills git's whole process group.
//!
//! Attributes never come from the change under review. Every run gets
//! `GIT_ATTR_SOURCE=<the empty tree>` (git 2.40 and later: `.gitattributes`
//! files in the work tree, the index and every revision are ignored; an
//! older git ignores the variable, and `--text --no-textconv` still shows
//! every file as text),
//! `GIT_ATTR_NOSYSTEM=1`, and `-c core.attributesFile=` `/dev/null` or the
//! trusted file the caller names ([`Attributes`]). What is left is the
//! repository's own `$GIT_DIR/info/attributes`, which no checkout or patch
//! can write; [`Git::diff`] with `text` also makes git show every file as
//! text whatever an attribute says (`-diff`, `binary`). Diffs always run with
//! `--no-ext-diff --no-textconv`. Relied on and tested here with git 2.47.
//!
//! The user's global config (git-lfs) still applies: crit runs fixed
//! commands, not the model's, so this runner is not in the tools' sandbox.

mod early;
pub mod hardening;
pub mod layout;
pub mod refs;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::env::{Env, is_executable};
use crate::process::{self, Limits};
pub use early::EarlyRead;
use hardening::{CONFIG_QUERY, GIT_ENV, HARDENING, RepoConfig};
use layout::{GitLayout, GitLayoutError};

/// A stable output shape for parsers: unquoted paths, no colour, `a/` `b/`
/// prefixes, full-tree paths, whatever the repository's config says.
#[rustfmt::skip]
const OUTPUT_SHAPE: &[&str] = &[
    "-c", "core.quotePath=false",
    "-c", "color.ui=false",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "diff.relative=false",
    "-c", "diff.srcPrefix=a/",
    "-c", "diff.dstPrefix=b/",
    "-c", "diff.suppressBlankEmpty=false",
];

/// Options of every diff: no program named by a repository runs.
const DIFF_SAFE: &[&str] = &["--no-ext-diff", "--no-textconv"];

/// The empty tree, per object format: the attribute source with no attributes.
const EMPTY_TREE_SHA1: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const EMPTY_TREE_SHA256: &str = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321";

/// Bytes of stderr kept: enough for git's message.
const STDERR_CAP: usize = 16 * 1024;
/// Bytes kept of the config listing [`CONFIG_QUERY`] asks for.
const CONFIG_CAP: usize = 256 * 1024;
/// Bytes kept of [`Git::open_locating`]'s answer: paths and object names.
const LOCATE_CAP: usize = 64 * 1024;

/// Where git's attributes come from (never from the reviewed tree).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Attributes {
    /// No attributes but the repository's own `$GIT_DIR/info/attributes`.
    #[default]
    None,
    /// Those of a trusted file the caller supplies (`core.attributesFile`).
    File(PathBuf),
}

/// How a [`Git`] runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitOptions {
    pub timeout: Duration,
    pub attributes: Attributes,
}

impl Default for GitOptions {
    fn default() -> Self {
        GitOptions {
            timeout: Duration::from_secs(60),
            attributes: Attributes::None,
        }
    }
}

/// Why a git command did not produce output.
#[derive(Debug, Clone, thiserror::Error)]
pub enum GitError {
    #[error(transparent)]
    Layout(#[from] GitLayoutError),
    #[error("cannot run git: {reason}")]
    Unavailable { reason: String },
    #[error("`{command}` did not finish within {secs:.0}s")]
    Timeout { command: String, secs: f64 },
    #[error("`{command}` failed: {message}")]
    Failed { command: String, message: String },
}

/// What one git run produced.
#[derive(Debug)]
pub struct GitOutput {
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub status: Option<ExitStatus>,
    /// stdout went past the cap; `stdout` holds the first `cap` bytes.
    pub overflowed: bool,
}

impl GitOutput {
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// A git runner for the repository that contains one directory.
#[derive(Debug, Clone)]
pub struct Git {
    cwd: PathBuf,
    timeout: Duration,
    layout: Option<GitLayout>,
    /// `--git-dir`/`--work-tree`.
    repo: Vec<String>,
    attributes: Attributes,
    /// The repository's settings, read by the first run that needs them
    /// (shared by the clones: one read).
    configured: Arc<OnceLock<Result<Configured, GitError>>>,
    /// The repository's object format, when a git answer showed it before
    /// the config was read.
    format: Option<ObjectFormat>,
    /// The environment, but for the attribute source ([`Configured`]).
    env: Vec<(OsString, OsString)>,
    /// `git` found once on the child's PATH: spawning by absolute path lets
    /// std use posix_spawn (a bare name with a changed PATH makes it fork,
    /// which costs more the larger the calling process).
    program: PathBuf,
}

/// What a run takes from the repository's config.
#[derive(Debug, Clone)]
struct Configured {
    /// `-c` overrides after the fixed hardening.
    extra: Vec<String>,
    /// `GIT_ATTR_SOURCE`: the empty tree, in the repository's object format.
    attr_source: &'static str,
}

/// How the repository names its objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ObjectFormat {
    Sha1,
    Sha256,
}

impl ObjectFormat {
    /// The format of a full object name git printed.
    fn of(id: &str) -> Option<ObjectFormat> {
        match id.len() {
            _ if !is_object_id(id) => None,
            40 => Some(ObjectFormat::Sha1),
            _ => Some(ObjectFormat::Sha256),
        }
    }

    fn of_config(config: &RepoConfig) -> ObjectFormat {
        match config.object_format() {
            "sha256" => ObjectFormat::Sha256,
            _ => ObjectFormat::Sha1,
        }
    }

    fn empty_tree(self) -> &'static str {
        match self {
            ObjectFormat::Sha1 => EMPTY_TREE_SHA1,
            ObjectFormat::Sha256 => EMPTY_TREE_SHA256,
        }
    }
}

impl Configured {
    /// The runs' settings from the answer to [`CONFIG_QUERY`].
    fn from_answer(out: &GitOutput, attributes: &Attributes) -> Configured {
        Configured::new(RepoConfig::parse(&out.text()), attributes)
    }

    /// The runs' settings for a repository whose config lists `config`
    /// (filter drivers, attribute files, object format).
    fn new(config: RepoConfig, attributes: &Attributes) -> Configured {
        let mut extra = config.overrides();
        let attributes_file = match attributes {
            Attributes::None => "/dev/null".to_string(),
            Attributes::File(p) => p.display().to_string(),
        };
        // Last, so it beats a repository's `core.attributesFile` above.
        extra.extend([
            "-c".to_string(),
            format!("core.attributesFile={attributes_file}"),
        ]);
        Configured {
            attr_source: ObjectFormat::of_config(&config).empty_tree(),
            extra,
        }
    }
}

impl Git {
    /// The runner for the repository containing `dir`, found without running
    /// git; the repository's config is then read once (one git run) to
    /// neutralise its filter drivers and attribute files. Outside any
    /// repository git is still pointed at `dir/.git`, so every command fails
    /// with git's own "not a git repository".
    pub fn open(dir: &Path, env: &Env, opts: GitOptions) -> Result<Git, GitError> {
        let git = Git::unconfigured(dir, env, &opts)?;
        git.configured()?;
        Ok(git)
    }

    /// [`Git::open`], and beside its config read (two processes at once) one
    /// `git rev-parse --show-toplevel --show-prefix HEAD^{commit}
    /// --end-of-options REV^{commit}… --`: where the repository is, its HEAD
    /// and the commits `revs` name, a line each (the command fails at the
    /// first it cannot resolve, an unborn HEAD included, after printing what
    /// came before). rev-parse reads no file of the work tree, so it needs
    /// none of the repository-specific neutralising the config read finds.
    /// `revs` must not start with `-`.
    pub fn open_locating(
        dir: &Path,
        env: &Env,
        opts: GitOptions,
        revs: &[&str],
    ) -> Result<(Git, GitOutput), GitError> {
        let (git, located, _) = Git::open_reading(dir, env, opts, revs, &[])?;
        Ok((git, located))
    }

    /// [`Git::open_locating`], with `early` (reads of commits only, see
    /// [`EarlyRead`]) started at the same time: each answer, in order, or
    /// `None` where the read failed or the rev-parse beside it did not show
    /// a SHA-1 repository (the early reads assume one): the caller runs that
    /// one again.
    ///
    /// With early reads the config is not read here but by the first later
    /// run that needs it: the reads of commits need nothing from it (no
    /// filter converts a blob read from the object store, the attribute
    /// source and files are fixed whatever it says, and the object format
    /// is the one the rev-parse shows), so a review of commits that runs
    /// nothing else starts one git fewer.
    pub fn open_reading(
        dir: &Path,
        env: &Env,
        opts: GitOptions,
        revs: &[&str],
        early: &[EarlyRead<'_>],
    ) -> Result<(Git, GitOutput, Vec<Option<GitOutput>>), GitError> {
        Git::start_reading(dir, env, opts, revs, early)?.finish()
    }

    /// [`Git::open_reading`] in two steps: this one starts every run and
    /// returns at once; [`Opening::finish`] waits for them. A front end
    /// starts them on its own thread before it starts anything else (a
    /// process started while the review sets up waits for a core), and
    /// finishes them on another.
    pub fn start_reading(
        dir: &Path,
        env: &Env,
        opts: GitOptions,
        revs: &[&str],
        early: &[EarlyRead<'_>],
    ) -> Result<Opening, GitError> {
        let git = Git::unconfigured(dir, env, &opts)?;
        let specs: Vec<String> = revs.iter().map(|r| format!("{r}^{{commit}}")).collect();
        let mut args = vec![
            "rev-parse",
            "--show-toplevel",
            "--show-prefix",
            "HEAD^{commit}",
            "--end-of-options",
        ];
        args.extend(specs.iter().map(String::as_str));
        args.push("--");
        // A plain SHA-1 repository's settings, which the reads of commits
        // can use whatever the config says (see above).
        let assumed = Configured::new(RepoConfig::default(), &opts.attributes);
        // Every process starts before any is waited for, the reads first
        // (the diff is the longest).
        let mut runs: Vec<Result<GitRun, GitError>> =
            early.iter().map(|e| e.start_with(&git, &assumed)).collect();
        let located = runs.len();
        runs.push(git.spawn(&args, LOCATE_CAP, false, None));
        let config = early.is_empty().then_some(runs.len());
        if config.is_some() {
            runs.push(git.spawn(CONFIG_QUERY, CONFIG_CAP, false, None));
        }
        Ok(Opening {
            git,
            runs,
            located,
            config,
        })
    }

    /// The runner before the repository's config is read: the fixed
    /// hardening only.
    fn unconfigured(dir: &Path, env: &Env, opts: &GitOptions) -> Result<Git, GitError> {
        let (layout, repo) = match layout::discover(dir) {
            Ok(layout) => {
                let args = layout.args().into();
                (Some(layout), args)
            }
            Err(GitLayoutError::NotARepository { .. }) => (
                None,
                vec![
                    format!("--git-dir={}", dir.join(".git").display()),
                    format!("--work-tree={}", dir.display()),
                ],
            ),
            Err(e) => return Err(e.into()),
        };
        let child_env = child_env(dir, env);
        Ok(Git {
            cwd: dir.to_path_buf(),
            timeout: opts.timeout,
            layout,
            repo,
            attributes: opts.attributes.clone(),
            configured: Arc::default(),
            format: None,
            program: find_git(&child_env),
            env: child_env,
        })
    }

    /// The repository's config, read ([`CONFIG_QUERY`]) the first time it
    /// is asked for. `git config --get-regexp` exits 1 when nothing matches;
    /// outside a repository it fails and there is nothing to neutralise.
    fn configured(&self) -> Result<&Configured, GitError> {
        let read = || {
            let out = self
                .spawn(CONFIG_QUERY, CONFIG_CAP, false, None)?
                .finish()?;
            Ok(Configured::from_answer(&out, &self.attributes))
        };
        self.configured
            .get_or_init(read)
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The empty tree's id in the repository's object format (SHA-1 unless
    /// its config says `extensions.objectFormat=sha256`): the base of a root
    /// commit, known without running git when a rev-parse showed the
    /// format.
    pub fn empty_tree(&self) -> Result<&'static str, GitError> {
        match self.format {
            Some(f) => Ok(f.empty_tree()),
            None => Ok(self.configured()?.attr_source),
        }
    }

    /// Where the repository is (`None` outside any).
    pub fn layout(&self) -> Option<&GitLayout> {
        self.layout.as_ref()
    }

    /// Runs `git <hardening> args`, keeping up to `cap` bytes of stdout. A
    /// non-zero exit is not an error here ([`Git::ok`] makes it one).
    pub fn run(&self, args: &[&str], cap: usize) -> Result<GitOutput, GitError> {
        self.start(args, cap, false)?.finish()
    }

    /// Like [`Git::run`], but a non-zero exit is a [`GitError::Failed`].
    pub fn ok(&self, args: &[&str], cap: usize) -> Result<GitOutput, GitError> {
        self.start(args, cap, true)?.finish()
    }

    /// Starts [`Git::run`] (or, with `ok`, [`Git::ok`]) and returns at once.
    pub fn start(&self, args: &[&str], cap: usize, ok: bool) -> Result<GitRun, GitError> {
        self.spawn(args, cap, ok, Some(self.configured()?))
    }

    /// Starts `git <hardening> [configured's overrides] args`; without
    /// `configured`, the fixed hardening only (the config read itself, and
    /// rev-parse, which reads no file of the work tree).
    fn spawn(
        &self,
        args: &[&str],
        cap: usize,
        ok: bool,
        configured: Option<&Configured>,
    ) -> Result<GitRun, GitError> {
        let mut cmd = Command::new(&self.program);
        cmd.args(HARDENING)
            .args(&self.repo)
            .args(OUTPUT_SHAPE)
            .args(configured.map(|c| c.extra.as_slice()).unwrap_or_default())
            .args(args)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(c) = configured {
            // The environment form, not `--attr-source`: a git older than
            // 2.40 ignores the variable instead of refusing to run.
            cmd.env("GIT_ATTR_SOURCE", c.attr_source);
        }
        let limits = Limits {
            stdout: cap,
            stderr: STDERR_CAP,
            timeout: self.timeout,
        };
        let running =
            process::start(&mut cmd, None, limits).map_err(|e| GitError::Unavailable {
                reason: e.to_string(),
            })?;
        Ok(GitRun {
            running,
            command: command_line(args),
            timeout: self.timeout,
            ok,
        })
    }

    /// `git diff --no-ext-diff --no-textconv [--text] args`: with `text`, every
    /// file is shown as text whatever an attribute says; without it, git's own
    /// detection (NUL bytes) decides what is binary.
    pub fn diff(&self, args: &[&str], text: bool, cap: usize) -> Result<GitOutput, GitError> {
        self.ok(&diff_args(args, text), cap)
    }
}

/// The arguments of [`Git::diff`].
fn diff_args<'a>(args: &[&'a str], text: bool) -> Vec<&'a str> {
    let mut all: Vec<&str> = vec!["diff"];
    all.extend(DIFF_SAFE);
    if text {
        all.push("--text");
    }
    all.extend(args);
    all
}

/// A repository being opened, its runs started ([`Git::start_reading`]);
/// dropped unfinished, they are killed.
#[must_use = "an opening is waited for with `finish`"]
pub struct Opening {
    git: Git,
    runs: Vec<Result<GitRun, GitError>>,
    /// Where the rev-parse and the config read are in `runs`.
    located: usize,
    config: Option<usize>,
}

impl Opening {
    /// Waits for every run, their pipes drained by one poll on this
    /// thread: [`Git::open_reading`]'s answer.
    pub fn finish(self) -> Result<(Git, GitOutput, Vec<Option<GitOutput>>), GitError> {
        let Opening {
            mut git,
            runs,
            located,
            config,
        } = self;
        let mut outs = GitRun::finish_all(runs);
        if let Some(i) = config {
            let configured = Configured::from_answer(&outs.remove(i)?, &git.attributes);
            let _ = git.configured.set(Ok(configured));
        }
        let located = outs.remove(located)?;
        git.format = located.text().lines().find_map(ObjectFormat::of);
        let sha1 = git.format == Some(ObjectFormat::Sha1);
        let read = outs.into_iter().map(|r| r.ok().filter(|_| sha1)).collect();
        Ok((git, located, read))
    }
}

/// A git run [`Git::start`] started; dropped unfinished, it is killed.
#[must_use = "a run is waited for with `finish`"]
pub struct GitRun {
    running: process::Running,
    command: String,
    timeout: Duration,
    /// A non-zero exit is an error.
    ok: bool,
}

impl GitRun {
    /// Waits for it: its output, or why there is none.
    pub fn finish(self) -> Result<GitOutput, GitError> {
        let (command, timeout, ok) = (self.command, self.timeout, self.ok);
        answer(self.running.finish(), command, timeout, ok)
    }

    /// Waits for all of them at once (their pipes read side by side, on
    /// this thread): each one's [`GitRun::finish`], in order. A run that
    /// could not start stays the error it was.
    pub fn finish_all(runs: Vec<Result<GitRun, GitError>>) -> Vec<Result<GitOutput, GitError>> {
        let mut started = Vec::new();
        let mut slots = Vec::with_capacity(runs.len());
        for r in runs {
            slots.push(match r {
                Ok(run) => {
                    started.push(run);
                    Ok(())
                }
                Err(e) => Err(e),
            });
        }
        let (running, about): (Vec<_>, Vec<_>) = started
            .into_iter()
            .map(|r| (r.running, (r.command, r.timeout, r.ok)))
            .unzip();
        let mut done = process::finish_all(running)
            .into_iter()
            .zip(about)
            .map(|(out, (command, timeout, ok))| answer(out, command, timeout, ok));
        slots
            .into_iter()
            .map(|s| s.and_then(|()| done.next().unwrap_or_else(|| Err(lost()))))
            .collect()
    }
}

/// One finished run in git's terms.
fn answer(
    out: process::Output,
    command: String,
    timeout: Duration,
    ok: bool,
) -> Result<GitOutput, GitError> {
    tracing::debug!(command = %command, ok = out.success(), timed_out = out.timed_out, "git");
    if out.timed_out {
        return Err(GitError::Timeout {
            command,
            secs: timeout.as_secs_f64(),
        });
    }
    let out = GitOutput {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status,
        overflowed: out.overflowed,
    };
    if ok && !out.success() {
        return Err(GitError::Failed {
            command,
            message: out.stderr.trim().to_string(),
        });
    }
    Ok(out)
}

/// A run [`process::finish_all`] did not answer for (it answers for each).
fn lost() -> GitError {
    GitError::Unavailable {
        reason: "a git run ended without an answer".into(),
    }
}

/// A full object name as git prints one: SHA-1 or SHA-256, in hex.
pub fn is_object_id(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

fn command_line(args: &[&str]) -> String {
    format!("git {}", args.join(" "))
}

/// The first executable `git` on the child's (already sanitised) PATH; the
/// bare name when there is none, so the spawn error says git is missing.
fn find_git(env: &[(OsString, OsString)]) -> PathBuf {
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone());
    path.iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join("git"))
        .find(|p| is_executable(p))
        .unwrap_or_else(|| PathBuf::from("git"))
}

/// The child's whole environment: PATH without relative entries or entries
/// inside the project (a repository must not plant its own `git`), HOME and
/// XDG_CONFIG_HOME (the user's own git config applies), [`GIT_ENV`], and the C
/// locale for stable messages.
fn child_env(root: &Path, env: &Env) -> Vec<(OsString, OsString)> {
    let path = env.get("PATH").unwrap_or("/usr/local/bin:/usr/bin:/bin");
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let safe: Vec<_> = std::env::split_paths(path)
        .filter(|p| p.is_absolute() && !p.starts_with(&root))
        .collect();
    let mut out = vec![(
        OsString::from("PATH"),
        std::env::join_paths(safe).unwrap_or_default(),
    )];
    for key in ["HOME", "XDG_CONFIG_HOME"] {
        if let Some(v) = env.get(key) {
            out.push((key.into(), v.into()));
        }
    }
    out.extend(GIT_ENV.iter().map(|(k, v)| ((*k).into(), (*v).into())));
    out.push(("LC_ALL".into(), "C".into()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_drops_relative_and_in_project_entries() {
        let dir = tempfile::TempDir::new().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let path = std::env::join_paths([
            PathBuf::from("/usr/bin"),
            ".".into(),
            root.join("bin"),
            "bin".into(),
        ])
        .unwrap();
        let env = Env::new()
            .with("PATH", path.to_string_lossy())
            .with("GIT_DIR", "/elsewhere")
            .with("GIT_EXTERNAL_DIFF", "evil")
            .with("HOME", "/h");
        let child = child_env(&root, &env);
        assert_eq!(child[0], ("PATH".into(), "/usr/bin".into()));
        assert!(child.iter().any(|(k, v)| k == "LC_ALL" && v == "C"));
        assert!(child.iter().any(|(k, v)| k == "HOME" && v == "/h"));
        // Built from scratch (and the child's is cleared): nothing that
        // redirects git (GIT_DIR, GIT_WORK_TREE, GIT_EXTERNAL_DIFF...).
        for (k, _) in &child {
            let k = k.to_string_lossy();
            assert!(
                ["PATH", "HOME", "XDG_CONFIG_HOME", "LC_ALL", "PAGER"].contains(&k.as_ref())
                    || GIT_ENV.iter().any(|(g, _)| *g == k),
                "{k}"
            );
        }
    }
}
