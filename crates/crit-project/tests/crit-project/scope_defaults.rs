//! What a review looks at when no one said, through real repositories and
//! real remotes (bare repositories in temp dirs): a branch with no scope
//! (its upstream, else the default branch, else the uncommitted changes), a
//! first push to a new remote (the remote's default branch, else the local
//! default branch's merge base, else everything pushed), and crit's own
//! files, which no scope includes unless named.

use crate::scope_support;

use crit_project::scope::{Scope, branch_scope, compute, push_scope};
use scope_support::{Repo, lines, lines_with, opts, run};

/// A bare repository next to `repo`, added as its remote `origin`.
fn remote(repo: &Repo) -> std::path::PathBuf {
    let bare = repo.outside("origin.git");
    let out = repo
        .command(&["init", "-q", "--bare", bare.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    repo.git(&["remote", "add", "origin", bare.to_str().unwrap()]);
    bare
}

fn paths(repo: &Repo, scope: &Scope) -> Vec<String> {
    let mut p: Vec<String> = run(repo, scope)
        .paths()
        .into_iter()
        .map(str::to_string)
        .collect();
    p.sort();
    p
}

/// main (pushed: origin/main, origin/HEAD) and a feature branch off it.
fn pushed_main_and_feature() -> Repo {
    let repo = Repo::new();
    remote(&repo);
    repo.write("a.txt", lines(20));
    repo.commit("base");
    repo.git(&["push", "-q", "-u", "origin", "main"]);
    repo.git(&["remote", "set-head", "origin", "main"]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("a.txt", lines_with(20, 10, "changed 10"));
    repo.write("c.txt", "new\n");
    repo.commit("feature");
    repo
}

#[test]
fn no_scope_reviews_a_branch_against_the_default_branch_and_says_so() {
    let repo = pushed_main_and_feature();
    let chosen = branch_scope(&repo.root, &crit_os::Env::new()).unwrap();
    assert_eq!(chosen.scope, Scope::Diff("origin/main".into()));
    assert!(
        chosen.why.contains("`feature`") && chosen.why.contains("default branch `origin/main`"),
        "{}",
        chosen.why
    );
    assert_eq!(paths(&repo, &chosen.scope), ["a.txt", "c.txt"]);
}

#[test]
fn no_scope_prefers_the_upstream_the_branch_has_moved_past() {
    let repo = pushed_main_and_feature();
    repo.git(&["push", "-q", "-u", "origin", "feature"]);
    repo.write("d.txt", "later\n");
    repo.commit("not pushed yet");
    let chosen = branch_scope(&repo.root, &crit_os::Env::new()).unwrap();
    assert_eq!(chosen.scope, Scope::Diff("origin/feature".into()));
    assert!(
        chosen.why.contains("upstream `origin/feature`"),
        "{}",
        chosen.why
    );
    assert_eq!(paths(&repo, &chosen.scope), ["d.txt"]);
    // All pushed: the branch against the default branch again.
    repo.git(&["push", "-q"]);
    let chosen = branch_scope(&repo.root, &crit_os::Env::new()).unwrap();
    assert_eq!(chosen.scope, Scope::Diff("origin/main".into()));
    assert_eq!(paths(&repo, &chosen.scope), ["a.txt", "c.txt", "d.txt"]);
}

#[test]
fn no_scope_without_a_remote_uses_the_local_default_branch() {
    let repo = Repo::new();
    repo.write("a.txt", lines(5));
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "topic"]);
    repo.write("b.txt", "b\n");
    repo.commit("topic");
    let chosen = branch_scope(&repo.root, &crit_os::Env::new()).unwrap();
    assert_eq!(chosen.scope, Scope::Diff("main".into()));
    assert_eq!(paths(&repo, &chosen.scope), ["b.txt"]);
    // On the default branch itself: what is not committed yet.
    repo.git(&["checkout", "-q", "main"]);
    repo.write("a.txt", lines_with(5, 2, "edited"));
    let chosen = branch_scope(&repo.root, &crit_os::Env::new()).unwrap();
    assert_eq!(chosen.scope, Scope::Uncommitted);
    assert!(chosen.why.contains("uncommitted"), "{}", chosen.why);
    // No commits at all: the uncommitted changes too.
    let empty = Repo::new();
    assert_eq!(
        branch_scope(&empty.root, &crit_os::Env::new())
            .unwrap()
            .scope,
        Scope::Uncommitted
    );
    // Not a repository: the whole project, said.
    let plain = tempfile::tempdir().unwrap();
    let chosen = branch_scope(plain.path(), &crit_os::Env::new()).unwrap();
    assert_eq!(chosen.scope, Scope::Survey);
    assert!(chosen.why.contains("whole project"), "{}", chosen.why);
}

#[test]
fn a_first_push_reviews_the_pushed_commits_never_the_uncommitted_changes() {
    // A new, empty remote: nothing of the history is there.
    let repo = Repo::new();
    remote(&repo);
    repo.write("a.txt", lines(5));
    repo.commit("base");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("bad.py", "x = eval(input())\n");
    let pushed = repo.commit("feature");
    repo.write("scratch.txt", "not committed\n");
    // The branch: against its merge base with the local default branch.
    let chosen = push_scope(
        &repo.root,
        "origin",
        "refs/heads/feature",
        &crit_os::Env::new(),
    )
    .unwrap();
    let base = repo.git(&["rev-parse", "main"]);
    assert_eq!(chosen.scope, Scope::Range(format!("{base}..{pushed}")));
    assert!(
        chosen.why.contains("local default branch `main`"),
        "{}",
        chosen.why
    );
    assert_eq!(paths(&repo, &chosen.scope), ["bad.py"]);
    // The default branch itself: everything it holds.
    let chosen = push_scope(
        &repo.root,
        "origin",
        "refs/heads/main",
        &crit_os::Env::new(),
    )
    .unwrap();
    assert!(chosen.why.contains("everything"), "{}", chosen.why);
    let change = run(&repo, &chosen.scope);
    assert_eq!(change.paths(), ["a.txt"]);
    assert!(
        change.description.contains("holds"),
        "{}",
        change.description
    );
    assert_eq!(change.commits.len(), 1, "{:?}", change.commits);
    // Once the remote has a default branch, the push is judged against it.
    repo.git(&["push", "-q", "origin", "main"]);
    repo.git(&["remote", "set-head", "origin", "main"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("a.txt", lines_with(5, 1, "main moved"));
    repo.commit("main moved");
    let chosen = push_scope(
        &repo.root,
        "origin",
        "refs/heads/feature",
        &crit_os::Env::new(),
    )
    .unwrap();
    assert!(
        chosen
            .why
            .contains("the remote's default branch `origin/main`"),
        "{}",
        chosen.why
    );
    assert_eq!(paths(&repo, &chosen.scope), ["bad.py"]);
    // A revision that could be an option is refused before git sees it.
    assert!(
        push_scope(
            &repo.root,
            "origin",
            "--output=/tmp/x",
            &crit_os::Env::new()
        )
        .is_err()
    );
}

#[test]
fn crit_never_reviews_what_crit_wrote_unless_named() {
    let repo = Repo::new();
    repo.write("a.txt", lines(5));
    repo.commit("base");
    // What a review writes, and what an install wrote (crit's own text).
    // The session files are added past crit's .gitignore: in git, they are
    // the change's (crit's own are git-ignored logs), as is a script planted
    // where crit keeps its logs.
    repo.write(".crit/.gitignore", crit_project::scope::CRIT_GITIGNORE);
    repo.write(".crit/sessions/20260101-1/result.json", "{}");
    repo.write(".crit/sessions/20260101-1/evil.py", "import os\n");
    repo.git(&["add", "-f", ".crit/sessions"]);
    repo.write(".crit/config.yaml", "model: sonnet\n");
    let (command, text) = crit_project::scope::installed::FILES[1];
    repo.write(&format!(".claude/{command}"), text);
    // Settings with nothing but crit's, its gate wired (a file without it
    // is not what install writes, and is reviewed).
    let installed = |i: usize| {
        crit_project::scope::installed::hook_group(
            "crit",
            &crit_project::scope::installed::HOOKS[i],
        )
    };
    let settings = serde_json::json!({
        "hooks": {"UserPromptSubmit": [installed(0)], "Stop": [installed(1)]},
        "statusLine": crit_project::scope::installed::status_line("crit"),
    })
    .to_string();
    repo.write(".claude/settings.json", &settings);
    // SHA-256 of the text, as crit install records it.
    let sha = |t: &str| crit_os::seal::sha256_hex(t.as_bytes());
    let ledger = crit_project::scope::installed::Ledger {
        version: 1,
        files: vec![crit_project::scope::installed::AddedFile {
            path: command.into(),
            sha256: sha(text),
        }],
        settings_sha256: Some(sha(&settings)),
        ..Default::default()
    };
    repo.write(
        ".claude/crit-install.json",
        serde_json::to_string_pretty(&ledger).unwrap(),
    );
    repo.write("a.txt", lines_with(5, 3, "the user's change"));

    // The user's files stay: the change and crit's config, which the user
    // writes; and what crit never writes, wherever it is.
    assert_eq!(
        paths(&repo, &Scope::Uncommitted),
        [
            ".crit/config.yaml",
            ".crit/sessions/20260101-1/evil.py",
            ".crit/sessions/20260101-1/result.json",
            "a.txt"
        ]
    );
    // Nothing of them reaches the reviewer, not even as a note.
    let change = run(&repo, &Scope::Uncommitted);
    assert!(
        !change.patch.contains(".crit/.gitignore"),
        "{}",
        change.patch
    );
    assert!(
        change.notes.iter().all(|n| !n.contains(".claude")),
        "{:?}",
        change.notes
    );
    // Committed, they stay out of a diff too.
    let base = repo.head();
    repo.commit("all of it");
    assert_eq!(
        paths(&repo, &Scope::Range(format!("{base}..HEAD"))),
        [
            ".crit/config.yaml",
            ".crit/sessions/20260101-1/evil.py",
            ".crit/sessions/20260101-1/result.json",
            "a.txt"
        ]
    );
    // Named, they are reviewed; a pattern that merely reaches them is not a name.
    let named = compute(
        &repo.root,
        &Scope::Files(vec![".claude/**".into()]),
        &opts(),
    )
    .unwrap();
    let mut p = named.paths();
    p.sort();
    assert_eq!(
        p,
        [
            ".claude/commands/crit-review.md",
            ".claude/crit-install.json",
            ".claude/settings.json"
        ]
    );
    let all = compute(&repo.root, &Scope::Files(vec!["**".into()]), &opts()).unwrap();
    assert!(
        !all.paths().iter().any(|p| p.starts_with(".claude/")),
        "{:?}",
        all.paths()
    );
    let within = compute(
        &repo.root,
        &Scope::Within(
            Box::new(Scope::Range(format!("{base}..HEAD"))),
            vec![".crit/**".into()],
        ),
        &opts(),
    )
    .unwrap();
    let mut p = within.paths();
    p.sort();
    assert_eq!(
        p,
        [
            ".crit/.gitignore",
            ".crit/config.yaml",
            ".crit/sessions/20260101-1/evil.py",
            ".crit/sessions/20260101-1/result.json"
        ]
    );
    // A .gitignore of the user's there is theirs: reviewed.
    repo.write(".crit/.gitignore", "*.tmp\n");
    assert_eq!(paths(&repo, &Scope::Uncommitted), [".crit/.gitignore"]);
    repo.git(&["checkout", "-q", "--", ".crit/.gitignore"]);
    // Edited by the user since, an installed file is theirs: reviewed.
    repo.write(".claude/commands/crit-review.md", "my own now\n");
    assert_eq!(
        paths(&repo, &Scope::Uncommitted),
        [".claude/commands/crit-review.md"]
    );
}

/// git runs with the environment the caller gave, never this process's: the
/// `git` found is the one on the given PATH.
#[test]
fn git_sees_the_environment_it_is_given() {
    use std::os::unix::fs::PermissionsExt;
    let repo = Repo::new();
    repo.write("a.txt", "one\n");
    repo.commit("base");
    repo.write("a.txt", "two\n");
    let real = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|d| d.join("git"))
        .find(|p| p.is_file())
        .unwrap();
    let tools = repo.outside("tools");
    let log = tools.join("git.log");
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real.display()
    );
    std::fs::write(tools.join("git"), script).unwrap();
    std::fs::set_permissions(tools.join("git"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let opts = crit_project::scope::ScopeOptions {
        env: crit_os::Env::new().with("PATH", tools.display().to_string()),
        ..opts()
    };
    let change = compute(&repo.root, &Scope::Uncommitted, &opts).unwrap();
    assert_eq!(change.files.len(), 1);
    let ran = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        ran.contains("diff"),
        "the given PATH's git did not run: {ran:?}"
    );
}
