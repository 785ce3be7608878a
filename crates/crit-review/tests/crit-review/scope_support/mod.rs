//! Real temporary git repositories for the scope tests, isolated from the
//! user's and the system's git config.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use crit_project::scope::{Change, Scope, ScopeOptions, compute};
use tempfile::TempDir;

pub struct Repo {
    _dir: TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
}

impl Repo {
    /// An empty repository on branch `main`, no commits.
    pub fn new() -> Repo {
        let dir = TempDir::new().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let home = base.join("home");
        let root = base.join("repo");
        std::fs::create_dir_all(home.join(".config")).unwrap();
        std::fs::create_dir_all(&root).unwrap();
        let repo = Repo {
            _dir: dir,
            root,
            home,
        };
        repo.git(&["-c", "init.defaultBranch=main", "init", "-q"]);
        repo.git(&["config", "user.name", "Crit Test"]);
        repo.git(&["config", "user.email", "crit@example.invalid"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo
    }

    /// A directory next to the repository (not inside it).
    pub fn outside(&self, name: &str) -> PathBuf {
        let p = self.home.parent().unwrap().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new("git");
        c.args(args).current_dir(&self.root);
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("GIT_") {
                c.env_remove(k);
            }
        }
        c.env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C");
        c
    }

    /// Runs git; panics with its stderr when it fails. Returns stdout, trimmed.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.command(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    pub fn write(&self, path: &str, content: impl AsRef<[u8]>) {
        let p = self.root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    pub fn remove(&self, path: &str) {
        std::fs::remove_file(self.root.join(path)).unwrap();
    }

    /// `git add -A` and commit; returns the new commit's sha.
    pub fn commit(&self, msg: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
        self.head()
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

/// `n` numbered lines, `line 1\n` .. `line n\n`.
pub fn lines(n: u32) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

/// `lines(n)` with line `at` replaced by `with`.
pub fn lines_with(n: u32, at: u32, with: &str) -> String {
    (1..=n)
        .map(|i| {
            if i == at {
                format!("{with}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect()
}

pub fn exists(p: &Path) -> bool {
    p.symlink_metadata().is_ok()
}

pub fn opts() -> ScopeOptions {
    ScopeOptions::default()
}

pub fn run(repo: &Repo, scope: &Scope) -> Change {
    compute(&repo.root, scope, &opts()).unwrap()
}

pub fn diff(rev: &str) -> Scope {
    Scope::from_options(Some(rev), &[], false, &[]).unwrap()
}

pub fn file<'a>(c: &'a Change, path: &str) -> &'a crit_project::scope::ChangedFile {
    c.files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("{path} not in {:?}", c.paths()))
}

/// main: a.txt (20 lines) and b.txt; feature: line 10 of a.txt changed, c.txt added.
pub fn feature_repo() -> (Repo, String) {
    let repo = Repo::new();
    repo.write("a.txt", lines(20));
    repo.write("b.txt", "b\n");
    let base = repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("a.txt", lines_with(20, 10, "changed 10"));
    repo.write("c.txt", "new\nfile\n");
    repo.commit("feature");
    (repo, base)
}
