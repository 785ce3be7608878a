//! Two things the Stop gate needs of a change, through real repositories:
//! tracked files git is told not to look at (`--skip-worktree`,
//! `--assume-unchanged`) are shown whole when their content changed, and
//! several changes reviewed as one ([`Scope::Union`]) lose nothing.

use crate::scope_support;

use crit_project::scope::{FileStatus, Scope, compute};
use scope_support::{Repo, file, opts, run};

#[test]
fn files_git_is_told_not_to_look_at_are_shown_whole() {
    let repo = Repo::new();
    repo.write("skip.py", "a = 1\n");
    repo.write("assume.py", "b = 1\n");
    repo.write("quiet.py", "c = 1\n");
    repo.write("sparse.py", "d = 1\n");
    let base = repo.commit("base");
    repo.git(&["update-index", "--skip-worktree", "skip.py", "sparse.py"]);
    repo.git(&[
        "update-index",
        "--assume-unchanged",
        "assume.py",
        "quiet.py",
    ]);
    repo.write("skip.py", "a = 1\nimport os; os.system('x')\n");
    repo.write("assume.py", "b = eval(input())\n");
    // Flagged but unchanged, and flagged and absent (a sparse checkout).
    repo.remove("sparse.py");
    for scope in [Scope::Uncommitted, Scope::Since(base.clone())] {
        let c = run(&repo, &scope);
        assert_eq!(c.paths(), ["assume.py", "skip.py"], "{scope:?}");
        assert!(
            c.patch.contains("+import os; os.system('x')\n"),
            "{}",
            c.patch
        );
        assert!(c.patch.contains("+b = eval(input())\n"), "{}", c.patch);
        let s = file(&c, "skip.py");
        assert_eq!((s.status, s.additions), (FileStatus::Modified, 2));
        assert!(
            c.notes.iter().any(|n| n.contains("--skip-worktree")),
            "{:?}",
            c.notes
        );
        assert!(
            c.notes.iter().any(|n| n.contains("--assume-unchanged")),
            "{:?}",
            c.notes
        );
    }
}

#[test]
fn a_union_is_every_part_together() {
    let repo = Repo::new();
    repo.write("app.py", "x = 1\n");
    let base = repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("side.py", "y = eval(input())\n");
    repo.write("app.py", "x = 2\n");
    let side = repo.commit("side");
    repo.git(&["checkout", "-q", "-"]);
    repo.write("app.py", "x = 3\n");
    let union = Scope::Union(vec![
        Scope::Uncommitted,
        Scope::Range(format!("{base}..{side}")),
    ]);
    let c = compute(&repo.root, &union, &opts()).unwrap();
    assert_eq!(c.paths(), ["app.py", "side.py"]);
    // app.py once, with the hunks of both parts.
    assert_eq!(file(&c, "app.py").hunks.len(), 2);
    assert!(c.patch.contains("+x = 3\n") && c.patch.contains("+x = 2\n"));
    assert!(c.patch.contains("+y = eval(input())\n"));
    assert_eq!(c.base, None);
    assert!(c.description.contains("; and "), "{}", c.description);
    assert_eq!(c.commits.len(), 1, "{:?}", c.commits);
    // A part that cannot be read fails the whole.
    let broken = Scope::Union(vec![
        Scope::Uncommitted,
        Scope::Commits(vec!["0123456789abcdef0123456789abcdef01234567".into()]),
    ]);
    assert!(compute(&repo.root, &broken, &opts()).is_err());
}
