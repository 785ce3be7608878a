//! A plan directory laid out by a reviewed checkout: its plan, checks, state
//! and approval marker may be symlinks to the user's own files. `crit plan`
//! refuses each with an error naming it, and nothing outside changes.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use crit_checks::{AnswerBook, Options, review};
use tempfile::TempDir;

struct Scene {
    _tmp: TempDir,
    plan_dir: PathBuf,
    outside: PathBuf,
    options: Options,
}

const CHECKS: &str = "checks:\n  - id: no_todo\n    pattern: TODO\n    reason: unfinished\n";

impl Scene {
    fn new() -> Self {
        let tmp = TempDir::new().unwrap();
        let plan_dir = tmp.path().join("checkout/plan");
        let outside = tmp.path().join("home");
        fs::create_dir_all(&plan_dir).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join(".bashrc"), "precious\n").unwrap();
        let options = Options {
            home: Some(tmp.path().join("nohome")),
            state_dir: Some(tmp.path().join("state")),
            ..Options::default()
        };
        Scene {
            _tmp: tmp,
            plan_dir,
            outside,
            options,
        }
    }

    fn file(&self, name: &str, text: &str) {
        fs::write(self.plan_dir.join(name), text).unwrap();
    }

    fn link(&self, name: &str) {
        symlink(self.outside.join(".bashrc"), self.plan_dir.join(name)).unwrap();
    }

    fn review(&self) -> (Result<String, String>, Vec<String>) {
        let mut asker = AnswerBook::parse(&[]).unwrap();
        let target = self.plan_dir.display().to_string();
        let report = review(&target, &self.options, &mut asker);
        let result = report
            .result
            .map(|r| format!("{r:?}"))
            .map_err(|e| e.to_string());
        (result, report.warnings)
    }

    fn assert_outside_untouched(&self) {
        assert_eq!(
            fs::read_to_string(self.outside.join(".bashrc")).unwrap(),
            "precious\n"
        );
        assert_eq!(fs::read_dir(&self.outside).unwrap().count(), 1);
    }
}

fn assert_names(e: &str, name: &str) {
    assert!(e.contains(&format!("{name} is a symbolic link")), "{e}");
}

#[test]
fn a_symlinked_plan_is_refused() {
    let s = Scene::new();
    s.link("plan.md");
    s.file("checks.yaml", CHECKS);
    let (result, _) = s.review();
    assert_names(&result.unwrap_err(), "plan.md");
    s.assert_outside_untouched();
}

#[test]
fn symlinked_checks_are_refused() {
    let s = Scene::new();
    s.file("plan.md", "# Plan\n\nShip it.\n");
    s.link("checks.yaml");
    let (result, _) = s.review();
    assert_names(&result.unwrap_err(), "checks.yaml");
    s.assert_outside_untouched();
}

#[test]
fn a_symlinked_state_file_is_refused() {
    let s = Scene::new();
    s.file("plan.md", "# Plan\n\nShip it.\n");
    s.file("checks.yaml", CHECKS);
    s.link("state.yaml");
    let (result, warnings) = s.review();
    let all = format!("{result:?} {warnings:?}");
    assert_names(&all, "state.yaml");
    assert!(result.is_err(), "{all}");
    s.assert_outside_untouched();
}

#[test]
fn a_symlinked_context_file_is_refused() {
    let s = Scene::new();
    s.file("plan.md", "# Plan\n\nShip it.\n");
    s.file("checks.yaml", CHECKS);
    s.link("context.yaml");
    let (result, _) = s.review();
    assert_names(&result.unwrap_err(), "context.yaml");
    s.assert_outside_untouched();
}

#[test]
fn a_symlinked_approval_marker_is_refused_and_a_clean_plan_still_approves() {
    let s = Scene::new();
    s.file("plan.md", "# Plan\n\nShip it.\n");
    s.file("checks.yaml", CHECKS);
    let (result, _) = s.review();
    let approved = result.unwrap();
    assert!(s.plan_dir.join("plan.approved").is_file(), "{approved}");
    fs::remove_file(s.plan_dir.join("plan.approved")).unwrap();
    s.link("plan.approved");
    let (result, warnings) = s.review();
    assert_names(&format!("{result:?} {warnings:?}"), "plan.approved");
    s.assert_outside_untouched();
    assert!(is_link(&s.plan_dir.join("plan.approved")));
}

fn is_link(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink())
}
