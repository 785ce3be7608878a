//! Reads of commits that may start before the repository's config is read
//! ([`super::Git::open_reading`]): a diff of two commits and a log of a
//! range. Both read objects only: no file of the work tree, not the index,
//! so no clean or smudge filter can run whatever the config says (those
//! convert work-tree files), and [`super::Git::diff`]'s `--no-ext-diff
//! --no-textconv` and the fixed hardening keep the rest off. Their commits are
//! named `REV^{commit}` after `--end-of-options`, so nothing the caller
//! passes can make them read anything else.

use super::{Configured, Git, GitError, GitOutput, GitRun, diff_args};

/// One read of commits, built here so it stays one.
#[derive(Debug, Clone, Copy)]
pub enum EarlyRead<'a> {
    /// `git diff <safe options> [--text] OPTIONS --end-of-options
    /// FROM^{commit} TO^{commit} -- PATHS`.
    Diff {
        options: &'a [&'a str],
        from: &'a str,
        to: &'a str,
        paths: &'a [&'a str],
        text: bool,
        cap: usize,
    },
    /// `git log OPTIONS --end-of-options FROM^{commit}..TO^{commit} --`.
    Log {
        options: &'a [&'a str],
        from: &'a str,
        to: &'a str,
        cap: usize,
    },
}

impl EarlyRead<'_> {
    /// Runs it with `git`; a non-zero exit is an error.
    pub fn run(&self, git: &Git) -> Result<GitOutput, GitError> {
        self.start(git)?.finish()
    }

    /// Starts [`EarlyRead::run`] and returns at once.
    pub fn start(&self, git: &Git) -> Result<GitRun, GitError> {
        self.with_args(|args, cap| git.start(args, cap, true))
    }

    /// Starts it with `configured`'s settings instead of the repository's
    /// own (not read yet).
    pub(super) fn start_with(
        &self,
        git: &Git,
        configured: &Configured,
    ) -> Result<GitRun, GitError> {
        self.with_args(|args, cap| git.spawn(args, cap, true, Some(configured)))
    }

    /// Calls `start` with its arguments and output cap.
    fn with_args<T>(&self, start: impl FnOnce(&[&str], usize) -> T) -> T {
        match *self {
            EarlyRead::Diff {
                options,
                from,
                to,
                paths,
                text,
                cap,
            } => {
                let (from, to) = (commit(from), commit(to));
                let mut args: Vec<&str> = options.to_vec();
                args.extend(["--end-of-options", &from, &to, "--"]);
                args.extend(paths);
                start(&diff_args(&args, text), cap)
            }
            EarlyRead::Log {
                options,
                from,
                to,
                cap,
            } => {
                let range = format!("{}..{}", commit(from), commit(to));
                let mut args: Vec<&str> = vec!["log"];
                args.extend(options);
                args.extend(["--end-of-options", &range, "--"]);
                start(&args, cap)
            }
        }
    }
}

fn commit(rev: &str) -> String {
    format!("{rev}^{{commit}}")
}
