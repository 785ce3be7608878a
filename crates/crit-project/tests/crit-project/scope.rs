//! What a code review looks at, through real temporary git repositories:
//! every scope kind, the upstream preference of `--diff REF`, empty changes,
//! odd paths, errors, a hostile repository config, the patch cap, and a
//! 1,000-file repository. The filter modes and the code prompt are in
//! `scope_filter.rs`.

use crate::scope_support;

use crit_project::scope::{FileStatus, FilterMode, Scope, ScopeError, compute};
use scope_support::{Repo, diff, exists, feature_repo, file, lines, lines_with, opts, run};

// ---- options ----------------------------------------------------------------

#[test]
fn options_pick_one_scope_and_name_both_flags_on_conflict() {
    let s = |d: Option<&str>, c: &[&str], u: bool, f: &[&str]| {
        let c: Vec<String> = c.iter().map(|s| s.to_string()).collect();
        let f: Vec<String> = f.iter().map(|s| s.to_string()).collect();
        Scope::from_options(d, &c, u, &f)
    };
    assert_eq!(s(None, &[], false, &[]).unwrap(), Scope::Survey);
    assert_eq!(
        s(Some("main"), &[], false, &[]).unwrap(),
        Scope::Diff("main".into())
    );
    assert_eq!(
        s(Some("main...HEAD"), &[], false, &[]).unwrap(),
        Scope::Range("main...HEAD".into())
    );
    assert_eq!(
        s(None, &["abc", "def"], false, &[]).unwrap(),
        Scope::Commits(vec!["abc".into(), "def".into()])
    );
    assert_eq!(s(None, &[], true, &[]).unwrap(), Scope::Uncommitted);
    assert_eq!(
        s(None, &[], false, &["src/**/*.rs"]).unwrap(),
        Scope::Files(vec!["src/**/*.rs".into()])
    );
    let err = s(Some("main"), &[], true, &[]).unwrap_err();
    assert!(matches!(err, ScopeError::Conflict { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains("--diff") && msg.contains("--uncommitted"),
        "{msg}"
    );
    // A change and --files combine: the change, limited to matching files.
    let within = s(None, &["a"], false, &["*.rs"]).unwrap();
    assert!(
        format!("{within:?}").starts_with("Within(Commits("),
        "{within:?}"
    );
}

#[test]
fn revisions_that_look_like_options_are_rejected() {
    for bad in [
        "--output=/tmp/x",
        "-p",
        "main..--output=/tmp/x",
        "--output=/tmp/x..HEAD",
        "",
    ] {
        let err = Scope::from_options(Some(bad), &[], false, &[]).unwrap_err();
        assert!(
            matches!(err, ScopeError::BadRevision { .. }),
            "{bad}: {err}"
        );
    }
    let err = Scope::from_options(None, &["--output=/tmp/x".into()], false, &[]).unwrap_err();
    assert!(err.to_string().contains("cannot start with `-`"), "{err}");
}

#[test]
fn an_option_smuggled_past_from_options_never_reaches_git() {
    let (repo, _) = feature_repo();
    let target = repo.outside("out").join("x");
    let rev = format!("--output={}", target.display());
    for scope in [
        Scope::Diff(rev.clone()),
        Scope::Range(format!("{rev}..HEAD")),
        Scope::Range(format!("HEAD...{rev}")),
        Scope::Commits(vec![rev.clone()]),
    ] {
        let err = compute(&repo.root, &scope, &opts()).unwrap_err();
        assert!(matches!(err, ScopeError::BadRevision { .. }), "{err}");
    }
    assert!(!exists(&target));
}

#[test]
fn describe_says_what_is_under_review() {
    assert_eq!(Scope::Range("main..HEAD".into()).describe(), "main..HEAD");
    assert_eq!(Scope::Uncommitted.describe(), "uncommitted changes");
    assert_eq!(
        Scope::Commits(vec!["abc1234ffff0000".into(), "def5678".into()]).describe(),
        "commits abc1234, def5678"
    );
    assert_eq!(
        Scope::Files(vec!["src/**/*.rs".into()]).describe(),
        "files src/**/*.rs"
    );
    assert_eq!(Scope::Survey.describe(), "the whole project");
}

// ---- scope kinds --------------------------------------------------------------

#[test]
fn diff_ref_covers_the_work_tree_since_the_merge_base() {
    let (repo, base) = feature_repo();
    // Uncommitted edits to tracked files count; untracked files do not.
    repo.write("b.txt", "b\nmore\n");
    repo.write("untracked.txt", "x\n");
    let c = run(&repo, &diff("main"));
    assert_eq!(c.base.as_deref(), Some(base.as_str()));
    assert_eq!(c.paths(), ["a.txt", "b.txt", "c.txt"]);
    assert!(
        c.description
            .contains(&format!("merge base {}", &base[..7]))
            && c.description.contains("main"),
        "{}",
        c.description
    );
    let a = file(&c, "a.txt");
    assert_eq!(
        (a.status, a.additions, a.deletions),
        (FileStatus::Modified, 1, 1)
    );
    assert_eq!(a.hunks.len(), 1);
    assert_eq!(a.hunks[0].added, [10]);
    assert_eq!((a.hunks[0].new_start, a.hunks[0].new_lines), (7, 7));
    assert_eq!(file(&c, "c.txt").status, FileStatus::Added);
    assert!(c.patch.contains("+changed 10") && c.patch.contains("+more"));
    assert!(!c.truncated && !c.is_empty());
}

#[test]
fn diff_ref_prefers_an_upstream_that_is_ahead() {
    let repo = Repo::new();
    repo.write("a.txt", "a\n");
    let old = repo.commit("old main");
    // origin/main moved on (someone else's work); local main did not.
    repo.git(&["checkout", "-q", "-b", "upstream-work"]);
    repo.write("theirs.txt", "theirs\n");
    let theirs = repo.commit("upstream work");
    repo.git(&["remote", "add", "origin", "/nonexistent/origin.git"]);
    repo.git(&["update-ref", "refs/remotes/origin/main", &theirs]);
    repo.git(&["config", "branch.main.remote", "origin"]);
    repo.git(&["config", "branch.main.merge", "refs/heads/main"]);
    // The feature branches off origin/main.
    repo.git(&["checkout", "-q", "-b", "feature", "origin/main"]);
    repo.write("mine.txt", "mine\n");
    repo.commit("my work");
    assert_eq!(repo.git(&["rev-parse", "main"]), old);

    let c = run(&repo, &diff("main"));
    assert_eq!(c.base.as_deref(), Some(theirs.as_str()));
    assert_eq!(c.paths(), ["mine.txt"]);
    assert!(c.description.contains("origin/main"), "{}", c.description);

    // When the upstream is not ahead, REF itself is the base.
    repo.git(&["update-ref", "refs/remotes/origin/main", &old]);
    let c = run(&repo, &diff("main"));
    assert_eq!(c.base.as_deref(), Some(old.as_str()));
    assert_eq!(c.paths(), ["mine.txt", "theirs.txt"]);
}

#[test]
fn ranges_two_and_three_dots() {
    let (repo, base) = feature_repo();
    // main moves on after the feature branched.
    repo.git(&["checkout", "-q", "main"]);
    repo.write("main-only.txt", "m\n");
    repo.commit("main moves");
    repo.git(&["checkout", "-q", "feature"]);

    let two = run(&repo, &diff("main..feature"));
    // Two dots compare the tips: main's new file shows as deleted.
    assert_eq!(two.paths(), ["a.txt", "c.txt", "main-only.txt"]);
    assert_eq!(file(&two, "main-only.txt").status, FileStatus::Deleted);

    let three = run(&repo, &diff("main...feature"));
    assert_eq!(three.paths(), ["a.txt", "c.txt"]);
    assert_eq!(three.base.as_deref(), Some(base.as_str()));
    assert!(
        three.description.contains("merge base"),
        "{}",
        three.description
    );

    // An empty side is HEAD.
    assert_eq!(run(&repo, &diff("main...")).paths(), ["a.txt", "c.txt"]);
}

#[test]
fn head_to_head_and_empty_commits_are_empty() {
    let (repo, _) = feature_repo();
    let c = run(&repo, &diff("HEAD..HEAD"));
    assert!(c.is_empty() && c.patch.is_empty(), "{c:?}");
    repo.git(&["commit", "-q", "--allow-empty", "-m", "nothing"]);
    let empty = repo.head();
    let c = run(&repo, &Scope::Commits(vec![empty.clone()]));
    assert!(c.is_empty(), "{c:?}");
    // Every commit must be empty for the change to be.
    let c = run(&repo, &Scope::Commits(vec![empty, "HEAD~1".into()]));
    assert!(!c.is_empty());
    assert!(!run(&repo, &Scope::Survey).is_empty());
}

#[test]
fn commits_are_their_own_change_including_a_root_commit() {
    let repo = Repo::new();
    repo.write("a.txt", lines(5));
    let root = repo.commit("root commit");
    repo.write("a.txt", lines_with(5, 2, "two"));
    let second = repo.commit("second");
    repo.write("b.txt", "b\n");
    let third = repo.commit("third");

    let c = run(&repo, &Scope::Commits(vec![root.clone()]));
    assert_eq!(c.paths(), ["a.txt"]);
    assert_eq!(file(&c, "a.txt").status, FileStatus::Added);
    assert_eq!(file(&c, "a.txt").hunks[0].added, [1, 2, 3, 4, 5]);

    let c = run(&repo, &Scope::Commits(vec![second[..9].to_string()]));
    assert_eq!(c.paths(), ["a.txt"]);
    assert_eq!(c.base.as_deref(), Some(root.as_str()));
    assert!(
        c.description.contains(&second[..7]) && c.description.contains("second"),
        "{}",
        c.description
    );

    let c = run(&repo, &Scope::Commits(vec![second.clone(), third]));
    assert_eq!(c.paths(), ["a.txt", "b.txt"]);
    assert!(c.description.starts_with("commits "), "{}", c.description);
    assert_eq!(c.base, None);

    // A merge commit's change is what it brought in: against its first parent.
    repo.git(&["checkout", "-q", "-b", "side", &root]);
    repo.write("side.txt", "s\n");
    repo.commit("side work");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-edit", "side"]);
    let c = run(&repo, &Scope::Commits(vec!["HEAD".into()]));
    assert_eq!(c.paths(), ["side.txt"]);
}

#[test]
fn uncommitted_covers_staged_unstaged_and_untracked() {
    let repo = Repo::new();
    repo.write("staged.txt", "s\n");
    repo.write("unstaged.txt", "u\n");
    repo.write("deleted.txt", "d\n");
    let head = repo.commit("base");
    repo.write("staged.txt", "s\nstaged\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("unstaged.txt", "u\nunstaged\n");
    repo.remove("deleted.txt");
    repo.write("new dir/untracked.txt", "one\ntwo");
    repo.write("empty.txt", "");
    repo.write(".gitignore", "ignored.txt\n");
    repo.write("ignored.txt", "no\n");
    repo.write("pic.bin", b"\x89PNG\0\0binary");
    repo.write("huge.txt", "x".repeat(5000));
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/passwd", repo.path("link")).unwrap();
        assert!(
            std::process::Command::new("mkfifo")
                .arg(repo.path("pipe"))
                .status()
                .unwrap()
                .success()
        );
    }

    let mut o = opts();
    o.max_untracked_bytes = 4096;
    let c = compute(&repo.root, &Scope::Uncommitted, &o).unwrap();
    assert_eq!(c.base.as_deref(), Some(head.as_str()));
    assert_eq!(
        c.paths(),
        [
            "deleted.txt",
            "staged.txt",
            "unstaged.txt",
            ".gitignore",
            "empty.txt",
            "huge.txt",
            #[cfg(unix)]
            "link",
            "new dir/untracked.txt",
            "pic.bin",
        ]
    );
    assert_eq!(file(&c, "deleted.txt").status, FileStatus::Deleted);
    let u = file(&c, "new dir/untracked.txt");
    assert_eq!((u.status, u.additions), (FileStatus::Untracked, 2));
    assert_eq!(u.hunks[0].added, [1, 2]);
    assert!(c.patch.contains("+++ b/new dir/untracked.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n"), "{}", c.patch);
    assert!(file(&c, "pic.bin").binary);
    assert!(!c.patch.contains("PNG") && !c.patch.contains("xxxx"));
    assert_eq!(c.notes.len(), 2, "{:?}", c.notes);
    if cfg!(unix) {
        // A symlink shows its target, never the file it names; git does not list
        // the FIFO (and crit would not read one).
        assert!(
            c.patch.contains("+/etc/passwd\n\\ No newline"),
            "{}",
            c.patch
        );
        assert!(!c.patch.contains("root:"));
    }
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("huge.txt") && n.contains("larger"))
    );
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("pic.bin") && n.contains("binary"))
    );
    assert!(c.patch.contains("+staged") && c.patch.contains("+unstaged"));
    assert!(c.description.contains("uncommitted"), "{}", c.description);
}

#[test]
fn a_repository_without_commits() {
    let repo = Repo::new();
    repo.write("added.txt", "a\n");
    repo.git(&["add", "added.txt"]);
    repo.write("loose.txt", "l\n");
    let c = run(&repo, &Scope::Uncommitted);
    assert_eq!(c.paths(), ["added.txt", "loose.txt"]);
    assert_eq!(file(&c, "added.txt").status, FileStatus::Added);
    assert_eq!(c.base, None);
    assert!(!run(&repo, &Scope::Survey).is_empty());
    for scope in [
        diff("main"),
        diff("HEAD~1..HEAD"),
        Scope::Commits(vec!["HEAD".into()]),
    ] {
        let err = compute(&repo.root, &scope, &opts()).unwrap_err();
        assert!(
            matches!(err, ScopeError::NoCommits { .. }),
            "{scope:?}: {err}"
        );
        assert!(err.to_string().contains("--uncommitted"), "{err}");
    }
}

#[test]
fn files_select_tracked_files_and_work_without_git() {
    let (repo, _) = feature_repo();
    repo.write("src/lib.rs", "fn a() {}\n");
    repo.write("src/deep/mod.rs", "fn b() {}\n");
    repo.write("src/notes.md", "n\n");
    repo.commit("src");
    repo.write("src/untracked.rs", "fn c() {}\n");
    let c = run(&repo, &Scope::Files(vec!["src/**/*.rs".into()]));
    assert_eq!(c.paths(), ["src/deep/mod.rs", "src/lib.rs"]);
    assert!(c.files.iter().all(|f| f.status == FileStatus::Selected));
    assert!(c.patch.is_empty() && !c.is_empty());
    // `*` stays in one directory; a directory name takes what is under it.
    assert_eq!(
        run(&repo, &Scope::Files(vec!["src/*.rs".into()])).paths(),
        ["src/lib.rs"]
    );
    assert_eq!(
        run(&repo, &Scope::Files(vec!["./src/deep".into()])).paths(),
        ["src/deep/mod.rs"]
    );
    assert!(c.contains("src/lib.rs", Some(1), None, FilterMode::Added));
    assert!(!c.contains("a.txt", Some(1), None, FilterMode::File));

    let err = compute(&repo.root, &Scope::Files(vec!["nope/**".into()]), &opts()).unwrap_err();
    assert!(matches!(err, ScopeError::NoFilesMatch { .. }), "{err}");

    let plain = repo.outside("plain");
    std::fs::create_dir_all(plain.join("src")).unwrap();
    std::fs::write(plain.join("src/x.rs"), "x\n").unwrap();
    std::fs::write(plain.join("src/y.txt"), "y\n").unwrap();
    let c = compute(&plain, &Scope::Files(vec!["**/*.rs".into()]), &opts()).unwrap();
    assert_eq!(c.paths(), ["src/x.rs"]);
}

#[test]
fn outside_a_repository_only_survey_and_files_work() {
    let repo = Repo::new();
    let plain = repo.outside("plain");
    assert!(!compute(&plain, &Scope::Survey, &opts()).unwrap().is_empty());
    for scope in [
        diff("main"),
        Scope::Uncommitted,
        Scope::Commits(vec!["HEAD".into()]),
    ] {
        let err = compute(&plain, &scope, &opts()).unwrap_err();
        assert!(matches!(err, ScopeError::NotARepository { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.contains("--files") && msg.contains("not inside a git repository"),
            "{msg}"
        );
    }
}

#[test]
fn unrelated_histories_have_no_merge_base() {
    let (repo, _) = feature_repo();
    repo.git(&["checkout", "-q", "--orphan", "island"]);
    repo.write("island.txt", "i\n");
    repo.commit("unrelated");
    for (scope, hint) in [
        (diff("main"), "main..HEAD"),
        (diff("main...island"), "main..island"),
    ] {
        let err = compute(&repo.root, &scope, &opts()).unwrap_err();
        assert!(matches!(err, ScopeError::NoMergeBase { .. }), "{err}");
        assert!(err.to_string().contains(hint), "{err}");
    }
    // Two dots need no merge base.
    assert!(!run(&repo, &diff("main..island")).is_empty());
}

#[test]
fn a_missing_project_root_is_named() {
    let repo = Repo::new();
    let gone = repo.outside("x").join("missing");
    let err = compute(&gone, &Scope::Uncommitted, &opts()).unwrap_err();
    assert!(matches!(err, ScopeError::Io { .. }), "{err}");
    assert!(err.to_string().contains("missing"), "{err}");
}

#[test]
fn an_unknown_ref_is_named_with_a_hint() {
    let (repo, _) = feature_repo();
    for scope in [
        diff("no-such-branch"),
        diff("main..no-such-branch"),
        Scope::Commits(vec!["no-such-branch".into()]),
    ] {
        let msg = compute(&repo.root, &scope, &opts())
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("`no-such-branch`") && msg.contains("git branch -a"),
            "{msg}"
        );
    }
}

#[test]
fn odd_paths_renames_deletions_binaries_and_modes() {
    let repo = Repo::new();
    repo.write("with space.txt", lines(30));
    repo.write("ünïcødé.txt", "u\n");
    repo.write("gone.txt", "g\n");
    repo.write("img.bin", b"\0\x01\x02");
    repo.write("script.sh", "echo\n");
    repo.write("crlf.txt", "a\r\nb\r\nc\r\n");
    repo.write("say \"hi\".txt", "hi\n");
    let base = repo.commit("base");
    repo.git(&["mv", "with space.txt", "moved here.txt"]);
    repo.write("moved here.txt", lines_with(30, 15, "edited"));
    repo.write("ünïcødé.txt", "u\nv\n");
    repo.remove("gone.txt");
    repo.write("img.bin", b"\0\x01\x03");
    set_executable(&repo.path("script.sh"));
    repo.write("crlf.txt", "a\r\nB\r\nc\r\n");
    repo.write("say \"hi\".txt", "hi\nthere\n");
    repo.commit("changes");

    let c = run(&repo, &diff(&format!("{base}..HEAD")));
    let moved = file(&c, "moved here.txt");
    assert_eq!(moved.status, FileStatus::Renamed);
    assert_eq!(moved.old_path.as_deref(), Some("with space.txt"));
    assert_eq!(moved.hunks[0].added, [15]);
    assert_eq!(file(&c, "ünïcødé.txt").hunks[0].added, [2]);
    assert_eq!(file(&c, "gone.txt").status, FileStatus::Deleted);
    let img = file(&c, "img.bin");
    assert!(img.binary && img.hunks.is_empty());
    let sh = file(&c, "script.sh");
    assert_eq!(
        (sh.status, sh.additions, sh.hunks.len()),
        (FileStatus::Modified, 0, 0)
    );
    assert_eq!(file(&c, "crlf.txt").hunks[0].added, [2]);
    // git quotes this path in the patch header; the listing names it exactly.
    assert_eq!(file(&c, "say \"hi\".txt").hunks[0].added, [2]);
    assert!(c.patch.contains("ünïcødé.txt"), "quotePath is off");
    // Each section's hunks went to its own file.
    assert!(c.contains("moved here.txt", Some(15), None, FilterMode::Added));
    assert!(c.contains("with space.txt", None, None, FilterMode::File));
    let json = serde_json::to_value(&c).unwrap();
    let statuses: Vec<&str> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert!(
        statuses.contains(&"renamed") && statuses.contains(&"deleted"),
        "{statuses:?}"
    );
    assert!(json["files"][0].get("hunks").is_none());
}

#[cfg(unix)]
fn set_executable(p: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
fn set_executable(_p: &std::path::Path) {}

#[test]
fn the_patch_is_capped_but_the_file_list_is_complete() {
    let repo = Repo::new();
    for i in 0..10 {
        repo.write(&format!("f{i}.txt"), lines(50));
    }
    repo.commit("base");
    for i in 0..10 {
        repo.write(
            &format!("f{i}.txt"),
            lines_with(50, 25, &format!("changed {i}")),
        );
    }
    let full = run(&repo, &Scope::Uncommitted);
    assert!(!full.truncated);
    let mut o = opts();
    o.max_patch_bytes = full.patch.len() / 3;
    let c = compute(&repo.root, &Scope::Uncommitted, &o).unwrap();
    assert!(c.truncated);
    assert!(c.patch.len() <= o.max_patch_bytes && !c.patch.is_empty());
    assert!(full.patch.starts_with(&c.patch));
    assert!(c.patch.ends_with('\n'));
    assert_eq!(c.files.len(), 10);
    // Hunks are known past the cut.
    assert_eq!(file(&c, "f9.txt").hunks[0].added, [25]);
}

#[test]
fn the_project_root_may_be_a_subdirectory() {
    let repo = Repo::new();
    repo.write("sub/x.txt", lines(5));
    repo.write("other.txt", "o\n");
    repo.commit("base");
    repo.write("sub/x.txt", lines_with(5, 3, "three"));
    let c = compute(&repo.path("sub"), &Scope::Uncommitted, &opts()).unwrap();
    assert_eq!(c.paths(), ["sub/x.txt"]);
    assert!(c.contains("x.txt", Some(3), None, FilterMode::Added));
    assert!(c.contains("sub/x.txt", Some(3), None, FilterMode::Added));
}

// ---- hostile repository -------------------------------------------------------

#[cfg(unix)]
#[test]
fn a_hostile_repository_config_runs_nothing() {
    use std::os::unix::fs::PermissionsExt;

    let (repo, _) = feature_repo();
    let markers = repo.outside("markers");
    let script = |name: &str| {
        let path = repo.outside("scripts").join(name);
        let marker = markers.join(name);
        std::fs::write(
            &path,
            format!("#!/bin/sh\ntouch '{}'\ncat\n", marker.display()),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    };
    repo.git(&["config", "core.pager", &script("pager")]);
    repo.git(&["config", "diff.external", &script("external")]);
    repo.git(&["config", "diff.evil.textconv", &script("textconv")]);
    repo.git(&["config", "diff.evil.command", &script("command")]);
    repo.git(&["config", "filter.evil.clean", &script("clean")]);
    repo.git(&["config", "filter.evil.smudge", &script("smudge")]);
    repo.git(&["config", "core.fsmonitor", &script("fsmonitor")]);
    repo.git(&[
        "config",
        "core.hooksPath",
        repo.outside("scripts").to_str().unwrap(),
    ]);
    repo.write(".gitattributes", "a.txt diff=evil filter=evil\n");
    repo.write("a.txt", lines_with(20, 3, "dirty work tree"));
    repo.write("c.txt", "changed\n");
    repo.write("untracked.txt", "u\n");

    for scope in [
        diff("main"),
        diff("main..feature"),
        diff("main...feature"),
        Scope::Commits(vec!["HEAD".into()]),
        Scope::Uncommitted,
        Scope::Files(vec!["*.txt".into()]),
    ] {
        let c = run(&repo, &scope);
        assert!(!c.is_empty(), "{scope:?}");
    }
    let ran: Vec<_> = std::fs::read_dir(&markers)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(ran.is_empty(), "hostile programs ran: {ran:?}");

    // The same repository does run them under plain git: the config is live.
    let out = repo.command(&["diff", "HEAD"]).output().unwrap();
    assert!(out.status.success());
    for name in ["command", "external", "fsmonitor", "clean"] {
        assert!(
            exists(&markers.join(name)),
            "{name} did not run under plain git"
        );
    }
    let out = repo
        .command(&["diff", "--no-ext-diff", "HEAD"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        exists(&markers.join("textconv")),
        "textconv did not run under plain git"
    );
}

/// A repository config that moves the work tree or points at files outside
/// cannot bring outside content into what is reviewed: git is told where the
/// work tree is, and the attribute file a repository names is replaced.
#[test]
fn a_hostile_repository_config_reads_nothing_outside() {
    let (repo, _) = feature_repo();
    let outside = repo.outside("elsewhere");
    // The work tree moved to a parent of the project, which then looks like
    // "a repository enclosing the project" to a check of the top alone.
    let parent = repo.root.parent().unwrap();
    std::fs::write(parent.join("a.txt"), "SECRET-WORKTREE-a\n").unwrap();
    std::fs::write(outside.join("secret.txt"), "SECRET-WORKTREE-untracked\n").unwrap();
    std::fs::write(outside.join("attributes"), "* -diff\n").unwrap();
    repo.git(&["config", "core.worktree", parent.to_str().unwrap()]);
    repo.git(&[
        "config",
        "core.attributesFile",
        outside.join("attributes").to_str().unwrap(),
    ]);
    repo.write("a.txt", lines_with(20, 3, "dirty work tree"));
    // Control: plain git follows the setting and lists the outside files.
    let out = repo
        .command(&["status", "--short", "-uall"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("secret.txt"));

    for scope in [
        diff("main"),
        Scope::Uncommitted,
        Scope::Commits(vec!["HEAD".into()]),
    ] {
        let c = run(&repo, &scope);
        assert!(!c.patch.contains("SECRET"), "{scope:?}: {}", c.patch);
        assert!(!c.paths().iter().any(|p| p.contains("secret")), "{scope:?}");
    }
    let c = run(&repo, &Scope::Uncommitted);
    assert!(c.patch.contains("dirty work tree"), "{}", c.patch);
    // `* -diff` from the repository's attribute file would make it binary.
    assert!(c.patch.contains("@@"), "{}", c.patch);
}

/// A `.git` file pointing at another repository on the machine is refused.
#[test]
fn a_git_file_pointing_at_another_repository_is_refused() {
    let (other, _) = feature_repo();
    let repo = Repo::new();
    std::fs::remove_dir_all(repo.root.join(".git")).unwrap();
    repo.write(
        ".git",
        format!("gitdir: {}\n", other.root.join(".git").display()),
    );
    let err = compute(&repo.root, &diff("main"), &opts()).unwrap_err();
    assert!(err.to_string().contains("another repository"), "{err}");
}

#[test]
fn a_thousand_file_repository_with_a_twenty_file_change() {
    let repo = Repo::new();
    for i in 0..1000 {
        repo.write(&format!("d{}/f{i}.rs", i % 37), lines(40));
    }
    repo.commit("many files");
    repo.git(&["checkout", "-q", "-b", "work"]);
    for i in (0..1000).step_by(50) {
        repo.write(
            &format!("d{}/f{i}.rs", i % 37),
            lines_with(40, 20, "// changed"),
        );
    }
    repo.commit("twenty files");
    let started = std::time::Instant::now();
    let c = run(&repo, &diff("main"));
    eprintln!(
        "compute on 1,000 files / 20 changed: {:?}",
        started.elapsed()
    );
    for scope in [
        diff("main"),
        diff("main..HEAD"),
        Scope::Uncommitted,
        Scope::Commits(vec!["HEAD".into()]),
    ] {
        let started = std::time::Instant::now();
        for _ in 0..5 {
            run(&repo, &scope);
        }
        eprintln!("{scope:?}: {:?} per compute", started.elapsed() / 5);
    }
    assert_eq!(c.files.len(), 20);
    assert!(
        c.files
            .iter()
            .all(|f| f.hunks.len() == 1 && f.hunks[0].added == [20])
    );
    let c = run(&repo, &Scope::Files(vec!["d1/**".into()]));
    assert_eq!(c.files.len(), 27);
}
