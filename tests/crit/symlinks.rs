//! crit writes only where it means to: every file crit writes into a
//! directory it does not own — a plan directory, the project's `.crit/` and
//! `.claude/` — goes through the confined writer, so a symlink the reviewed
//! change laid out (the file itself, or a directory on the way to it) is
//! refused with an error naming it, and nothing outside the project changes.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Output;

use crit_testkit::{FakeServer, Reply, Step};

use crate::support::{crit, git, init_repo, write};

/// A project and, beside it, the user's files the links point at.
struct Scene {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

const PRECIOUS: &str = "the user's own file\n";

impl Scene {
    fn new() -> Scene {
        let tmp = tempfile::tempdir().unwrap();
        let project = tmp.path().join("project");
        let home = tmp.path().join("user");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(home.join("dir")).unwrap();
        std::fs::write(home.join("precious.txt"), PRECIOUS).unwrap();
        std::fs::write(home.join("dir/precious.txt"), PRECIOUS).unwrap();
        Scene {
            _tmp: tmp,
            project,
            home,
        }
    }

    /// Everything under the user's directory, with content.
    fn outside(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        walk(&self.home, &self.home, &mut out);
        out.sort();
        out
    }

    fn assert_outside_untouched(&self, what: &str) {
        assert_eq!(
            self.outside(),
            vec![
                ("dir/precious.txt".to_string(), PRECIOUS.to_string()),
                ("precious.txt".to_string(), PRECIOUS.to_string()),
            ],
            "{what}: the user's files changed"
        );
    }

    fn link(&self, rel: &str, to: &Path) {
        let at = self.project.join(rel);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        symlink(to, at).unwrap();
    }
}

fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let rel = p.strip_prefix(base).unwrap().display().to_string();
        if e.file_type().unwrap().is_dir() {
            walk(base, &p, out);
        } else {
            out.push((rel, std::fs::read_to_string(&p).unwrap_or_default()));
        }
    }
}

fn refused(o: &Output, what: &str, names: &str) {
    // `crit plan` reports in its own words on stdout; the rest on stderr.
    let err = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert_ne!(o.status.code(), Some(0), "{what}: {err}");
    assert!(
        err.contains(names) && err.contains("symbolic link"),
        "{what}: the error does not name {names}: {err}"
    );
}

/// `crit plan` on a plan directory whose plan, checks or state file is a
/// link to a user's file: refused, the user's file as it was.
#[test]
fn plan_files_that_are_links_are_refused() {
    for (file, to_dir) in [
        ("plan.md", false),
        ("checks.yaml", false),
        ("state.yaml", false),
        ("context.yaml", false),
    ] {
        let s = Scene::new();
        let plans = s.project.join("plans");
        write(&plans, "plan.md", "# Plan\n\nUse eval() to parse.\n");
        write(
            &plans,
            "checks.yaml",
            "checks:\n  - id: no_eval\n    pattern: \"eval()\"\n    fix:\n      action: replace\n      with: \"JSON.parse()\"\n    reason: unsafe\n",
        );
        std::fs::remove_file(plans.join(file)).ok();
        let target = match to_dir {
            true => s.home.join("dir"),
            false => s.home.join("precious.txt"),
        };
        symlink(&target, plans.join(file)).unwrap();
        let server = FakeServer::start_blocking();
        // No model: the checks alone decide, so the plan is written, its
        // state saved and its approval marked.
        let o = crit(&s.project, &server, None)
            .env_remove("ANTHROPIC_API_KEY")
            .args(["plan", plans.to_str().unwrap(), "--non-interactive"])
            .output()
            .unwrap();
        refused(&o, file, file);
        s.assert_outside_untouched(file);
    }
}

/// A review's session goes under `.crit/sessions/`: a `.crit` or
/// `.crit/sessions` that is a link out of the project is refused.
#[test]
fn session_directories_that_are_links_are_refused() {
    for (rel, names) in [(".crit", ".crit"), (".crit/sessions", "sessions")] {
        let s = Scene::new();
        let d = &s.project;
        init_repo(d);
        write(d, "app.py", "print(1)\n");
        git(d, &["add", "-A"]);
        git(d, &["commit", "-qm", "base"]);
        write(d, "app.py", "print(eval(input()))\n");
        s.link(rel, &s.home.join("dir"));
        let server = FakeServer::start_blocking();
        server.push(Step::reply(Reply::json(crate::support::pass())));
        let o = crit(d, &server, None)
            .args([
                "review",
                "code",
                "--uncommitted",
                "--verify",
                "off",
                "--no-cache",
            ])
            .output()
            .unwrap();
        refused(&o, rel, names);
        s.assert_outside_untouched(rel);
    }
}

/// `crit init --force` replaces the project's starter files, never a file a
/// link in the checkout points at, and never through a linked `.crit`.
#[test]
fn init_force_never_writes_through_a_link() {
    for (rel, to, names) in [
        (".crit/config.yaml", "precious.txt", ".crit/config.yaml"),
        (".crit", "dir", ".crit"),
        (".crit/agents", "dir", "agents"),
    ] {
        let s = Scene::new();
        s.link(rel, &s.home.join(to));
        let server = FakeServer::start_blocking();
        let o = crit(&s.project, &server, None)
            .args(["init", "--force"])
            .output()
            .unwrap();
        refused(&o, rel, names);
        s.assert_outside_untouched(rel);
    }
}

/// `crit install claude-code --project` edits the project's
/// `.claude/settings.json` and writes its commands and agent there, never
/// the user's files through a link.
#[test]
fn install_project_never_writes_through_a_link() {
    for (rel, to, names) in [
        (".claude/settings.json", "precious.txt", "settings.json"),
        (".claude", "dir", ".claude"),
        (".claude/commands", "dir", "commands"),
        (".claude/agents", "dir", "agents"),
        (
            ".claude/agents/expert-review.md",
            "precious.txt",
            "expert-review.md",
        ),
    ] {
        let s = Scene::new();
        init_repo(&s.project);
        s.link(rel, &s.home.join(to));
        let server = FakeServer::start_blocking();
        let o = crit(&s.project, &server, None)
            .args(["install", "claude-code", "--project"])
            .output()
            .unwrap();
        refused(&o, rel, names);
        s.assert_outside_untouched(rel);
    }
}
