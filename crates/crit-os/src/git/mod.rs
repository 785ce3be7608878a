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
#[derive(Debug, thiserror::Error)]
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
    /// The repository's settings that need handling (filters, blame lists).
    config: RepoConfig,
    /// `-c` overrides and the attribute source, after the fixed hardening.
    extra: Vec<String>,
    env: Vec<(OsString, OsString)>,
    /// `git` found once on the child's PATH: spawning by absolute path lets
    /// std use posix_spawn (a bare name with a changed PATH makes it fork,
    /// which costs more the larger the calling process).
    program: PathBuf,
}

impl Git {
    /// The runner for the repository containing `dir`, found without running
    /// git; the repository's config is then read once (one git run) to
    /// neutralise its filter drivers and attribute files. Outside any
    /// repository git is still pointed at `dir/.git`, so every command fails
    /// with git's own "not a git repository".
    pub fn open(dir: &Path, env: &Env, opts: GitOptions) -> Result<Git, GitError> {
        let git = Git::unconfigured(dir, env, &opts)?;
        let out = git.run(CONFIG_QUERY, CONFIG_CAP)?;
        Ok(git.configured(&out, &opts))
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
    /// [`EarlyRead`]) started at the same time instead of after it: each
    /// answer, in order, or `None` where the read did not run as the
    /// configured runner would have run it (the repository's object format
    /// is not SHA-1, or its config names a filter driver, attribute or
    /// exclude file to neutralise): the caller runs that one again.
    pub fn open_reading(
        dir: &Path,
        env: &Env,
        opts: GitOptions,
        revs: &[&str],
        early: &[EarlyRead<'_>],
    ) -> Result<(Git, GitOutput, Vec<Option<GitOutput>>), GitError> {
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
        // The config is not known yet: assume what a plain repository's
        // says (SHA-1, nothing to neutralise) and keep only the answers that
        // this turns out to be true for.
        let assumed = git.clone().with_config(RepoConfig::default(), &opts);
        // Every process starts from this thread before any is waited for,
        // the reads first (the diff is the longest): a thread per process
        // cost each its own start-up, the diff's on the critical path.
        let reads: Vec<_> = early.iter().map(|e| e.start(&assumed)).collect();
        let config = git.start(CONFIG_QUERY, CONFIG_CAP, false);
        let located = git.start(&args, LOCATE_CAP, false);
        let config = config?.finish()?;
        let located = located.and_then(GitRun::finish);
        let read: Vec<_> = reads
            .into_iter()
            .map(|r| r.and_then(GitRun::finish).ok())
            .collect();
        let git = git.configured(&config, &opts);
        let same = git.extra == assumed.extra && git.env == assumed.env;
        let read = read.into_iter().map(|r| r.filter(|_| same)).collect();
        Ok((git, located?, read))
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
            config: RepoConfig::default(),
            extra: Vec::new(),
            program: find_git(&child_env),
            env: child_env,
        })
    }

    /// The runner with the repository's config (`out`, the answer to
    /// [`CONFIG_QUERY`]) neutralised. `git config --get-regexp` exits 1 when
    /// nothing matches; outside a repository it fails and there is nothing
    /// to neutralise.
    fn configured(self, out: &GitOutput, opts: &GitOptions) -> Git {
        self.with_config(RepoConfig::parse(&out.text()), opts)
    }

    /// The runner with the settings `config` lists neutralised.
    fn with_config(self, config: RepoConfig, opts: &GitOptions) -> Git {
        let mut git = self;
        git.config = config;
        let mut extra = git.config.overrides();
        let empty_tree = git.empty_tree();
        let attributes_file = match &opts.attributes {
            Attributes::None => "/dev/null".to_string(),
            Attributes::File(p) => p.display().to_string(),
        };
        extra.extend([
            "-c".to_string(),
            format!("core.attributesFile={attributes_file}"),
        ]);
        git.extra = extra;
        // The environment form, not `--attr-source`: a git older than 2.40
        // ignores the variable instead of refusing to run.
        git.env.push(("GIT_ATTR_SOURCE".into(), empty_tree.into()));
        git
    }

    /// The empty tree's id in the repository's object format (SHA-1 unless
    /// its config says `extensions.objectFormat=sha256`): the base of a root
    /// commit, known without running git.
    pub fn empty_tree(&self) -> &'static str {
        match self.config.object_format() {
            "sha256" => EMPTY_TREE_SHA256,
            _ => EMPTY_TREE_SHA1,
        }
    }

    /// Where the repository is (`None` outside any).
    pub fn layout(&self) -> Option<&GitLayout> {
        self.layout.as_ref()
    }

    /// The repository settings found at [`Git::open`] (its blame lists, say).
    pub fn repo_config(&self) -> &RepoConfig {
        &self.config
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
        let mut cmd = Command::new(&self.program);
        cmd.args(HARDENING)
            .args(&self.repo)
            .args(OUTPUT_SHAPE)
            .args(&self.extra)
            .args(args)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)));
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
        let out = self.running.finish();
        tracing::debug!(command = %self.command, ok = out.success(), timed_out = out.timed_out, "git");
        if out.timed_out {
            return Err(GitError::Timeout {
                command: self.command,
                secs: self.timeout.as_secs_f64(),
            });
        }
        let out = GitOutput {
            stdout: out.stdout,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            status: out.status,
            overflowed: out.overflowed,
        };
        if self.ok && !out.success() {
            return Err(GitError::Failed {
                command: self.command,
                message: out.stderr.trim().to_string(),
            });
        }
        Ok(out)
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
