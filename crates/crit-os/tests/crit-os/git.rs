//! The hardened git runner on real temporary repositories (git 2.40 or later
//! for `--attr-source`): attributes the change lays out never shape the diff.

use std::fs;
use std::path::Path;
use std::process::Command;

use crit_os::Env;
use crit_os::git::{Attributes, Git, GitError, GitOptions};
use tempfile::TempDir;

pub(crate) fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.email=t@example.invalid", "-c", "user.name=t"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository whose base commit has `a.rs`; `format` is `sha1` or `sha256`.
pub(crate) fn repo(format: &str) -> TempDir {
    let dir = TempDir::new().unwrap();
    git(
        dir.path(),
        &["init", "-q", &format!("--object-format={format}")],
    );
    fs::write(dir.path().join("a.rs"), "fn main() {}\n").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "base"]);
    dir
}

/// The change: edits `a.rs` and adds attributes that would hide it, with a
/// textconv driver the repository's config defines; `reencode` also asks git
/// to read the work tree's files as UTF-16 (which `git add` would refuse).
fn hostile_change(dir: &Path, reencode: bool) {
    fs::write(dir.join("a.rs"), "fn main() { evil() }\n").unwrap();
    let mut attrs = String::from("*.rs -diff\n*.rs binary\n*.rs diff=foo\n");
    if reencode {
        attrs.push_str("*.rs working-tree-encoding=UTF-16\n");
    }
    fs::write(dir.join(".gitattributes"), attrs).unwrap();
    git(
        dir,
        &["config", "diff.foo.textconv", "sh -c 'echo TEXTCONV-RAN'"],
    );
    git(dir, &["config", "diff.foo.binary", "true"]);
}

pub(crate) fn env() -> Env {
    Env::from_pairs([("PATH", std::env::var("PATH").unwrap_or_default())])
}

fn open(dir: &Path, attributes: Attributes) -> Git {
    let opts = GitOptions {
        attributes,
        ..GitOptions::default()
    };
    Git::open(dir, &env(), opts).unwrap()
}

fn assert_text_patch(patch: &str) {
    assert!(patch.contains("+fn main() { evil() }"), "{patch}");
    assert!(patch.contains("-fn main() {}"), "{patch}");
    assert!(!patch.contains("Binary files"), "{patch}");
    assert!(!patch.contains("TEXTCONV-RAN"), "{patch}");
}

#[test]
fn attributes_in_the_work_tree_do_not_hide_a_change() {
    for format in ["sha1", "sha256"] {
        let dir = repo(format);
        hostile_change(dir.path(), true);
        let g = open(dir.path(), Attributes::None);
        for text in [false, true] {
            let out = g.diff(&["HEAD", "--", "a.rs"], text, 1 << 20).unwrap();
            assert_text_patch(&out.text());
        }
        // What git itself would have shown, to prove the attributes bite.
        let plain = Command::new("git")
            .args(["diff", "HEAD", "--", "a.rs"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let plain = String::from_utf8_lossy(&plain.stdout);
        assert!(
            !plain.contains("+fn main() { evil() }"),
            "{format}: {plain}"
        );
    }
}

#[test]
fn attributes_committed_by_the_change_do_not_hide_it() {
    let dir = repo("sha1");
    hostile_change(dir.path(), false);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "change"]);
    let g = open(dir.path(), Attributes::None);
    let out = g
        .diff(&["HEAD~1", "HEAD", "--", "a.rs"], false, 1 << 20)
        .unwrap();
    assert_text_patch(&out.text());
    let attrs = g.run(&["check-attr", "-a", "a.rs"], 4096).unwrap();
    assert_eq!(attrs.text(), "", "no attribute reaches git");
}

#[test]
fn trusted_attributes_apply_and_text_overrides_them() {
    let dir = repo("sha1");
    fs::write(dir.path().join("a.rs"), "fn main() { evil() }\n").unwrap();
    let trusted = TempDir::new().unwrap();
    let file = trusted.path().join("attributes");
    fs::write(&file, "*.rs -diff\n").unwrap();
    let g = open(dir.path(), Attributes::File(file));
    let out = g.diff(&["HEAD"], false, 1 << 20).unwrap();
    assert!(out.text().contains("Binary files"), "{}", out.text());
    let out = g.diff(&["HEAD"], true, 1 << 20).unwrap();
    assert_text_patch(&out.text());
}

#[test]
fn a_real_binary_file_stays_binary_without_text() {
    let dir = repo("sha1");
    fs::write(dir.path().join("blob.bin"), b"\0\x01\x02binary\0").unwrap();
    git(dir.path(), &["add", "-A"]);
    let g = open(dir.path(), Attributes::None);
    let out = g.diff(&["--cached"], false, 1 << 20).unwrap();
    assert!(out.text().contains("Binary files"), "{}", out.text());
}

#[test]
fn the_callers_git_environment_and_repository_filters_do_not_apply() {
    let dir = repo("sha1");
    let other = repo("sha1");
    fs::write(dir.path().join("a.rs"), "fn main() { evil() }\n").unwrap();
    // A clean filter the repository defines would rewrite what git sees.
    fs::write(dir.path().join(".gitattributes"), "*.rs filter=evil\n").unwrap();
    git(
        dir.path(),
        &["config", "filter.evil.clean", "sh -c 'echo FILTERED'"],
    );
    let env = env()
        .with("GIT_DIR", other.path().join(".git").display().to_string())
        .with("GIT_EXTERNAL_DIFF", "false");
    let g = Git::open(dir.path(), &env, GitOptions::default()).unwrap();
    let out = g.diff(&["HEAD", "--", "a.rs"], false, 1 << 20).unwrap();
    assert_text_patch(&out.text());
    assert!(!out.text().contains("FILTERED"), "{}", out.text());
    assert!(g.layout().is_some());
}

#[test]
fn output_is_capped_and_failures_are_typed() {
    let dir = repo("sha1");
    let g = open(dir.path(), Attributes::None);
    let out = g.run(&["log", "-1", "--format=%H"], 8).unwrap();
    assert_eq!(out.stdout.len(), 8);
    assert!(out.overflowed);
    let e = g
        .ok(&["rev-parse", "--verify", "no-such-ref"], 1024)
        .unwrap_err();
    assert!(matches!(e, GitError::Failed { .. }), "{e:?}");
    assert!(
        e.to_string().contains("git rev-parse --verify no-such-ref"),
        "{e}"
    );
    // Outside a repository git says so itself.
    let plain = TempDir::new().unwrap();
    let g = Git::open(plain.path(), &env(), GitOptions::default()).unwrap();
    assert!(g.layout().is_none());
    let e = g.ok(&["status"], 1024).unwrap_err();
    assert!(e.to_string().contains("not a git repository"), "{e}");
}

fn rev_parse(dir: &Path, rev: &str) -> String {
    let out = Command::new("git")
        .args(["rev-parse", rev])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// HEAD read from the git directory's files is the commit git names, for a
/// branch as a loose ref and packed, detached, in a linked worktree and in
/// SHA-256; an unborn branch has none.
#[test]
fn head_is_read_without_git_as_git_reads_it() {
    use crit_os::git::layout::discover;
    let head = |dir: &Path| discover(dir).unwrap().head_commit();
    for format in ["sha1", "sha256"] {
        let dir = repo(format);
        let d = dir.path();
        assert_eq!(head(d), Some(rev_parse(d, "HEAD")), "{format}: loose");
        fs::write(d.join("a.rs"), "fn main() { two() }\n").unwrap();
        git(d, &["commit", "-q", "-am", "two"]);
        git(d, &["pack-refs", "--all"]);
        assert!(!d.join(".git/refs/heads/main").exists());
        assert_eq!(head(d), Some(rev_parse(d, "HEAD")), "{format}: packed");
        git(d, &["checkout", "-q", "--detach", "HEAD~1"]);
        assert_eq!(head(d), Some(rev_parse(d, "HEAD")), "{format}: detached");
        git(d, &["checkout", "-q", "main"]);
        let wt = TempDir::new().unwrap();
        let linked = wt.path().join("linked");
        git(
            d,
            &[
                "worktree",
                "add",
                "-q",
                "-b",
                "side",
                linked.to_str().unwrap(),
                "HEAD~1",
            ],
        );
        assert_eq!(
            head(&linked),
            Some(rev_parse(&linked, "HEAD")),
            "{format}: worktree"
        );
        assert_ne!(head(&linked), head(d));
    }
    let unborn = TempDir::new().unwrap();
    git(unborn.path(), &["init", "-q"]);
    assert_eq!(head(unborn.path()), None);
    // A HEAD naming a ref outside `refs/` is not followed.
    let dir = repo("sha1");
    fs::write(dir.path().join(".git/HEAD"), "ref: ../../../etc/passwd\n").unwrap();
    assert_eq!(head(dir.path()), None);
}

/// The refs read from the git directory's files are git's own, loose and
/// packed (a loose one winning); a stash and the reflogs' growth are seen;
/// a reflog shorter than noted says it was rewritten.
#[test]
fn refs_and_reflogs_are_read_without_git_as_git_reads_them() {
    use crit_os::git::layout::discover;
    use crit_os::git::refs::Reflog;
    let dir = repo("sha1");
    let d = dir.path();
    git(d, &["tag", "v1"]);
    git(d, &["branch", "side"]);
    git(d, &["pack-refs", "--all"]);
    fs::write(d.join("a.rs"), "fn main() { two() }\n").unwrap();
    git(d, &["commit", "-q", "-am", "two"]);
    let layout = discover(d).unwrap();
    let before = layout.refs().unwrap();
    assert_eq!(before.refs["refs/heads/main"], rev_parse(d, "main"));
    assert_eq!(before.refs["refs/heads/side"], rev_parse(d, "side"));
    assert_eq!(before.refs["refs/tags/v1"], rev_parse(d, "v1"));
    assert_eq!(before.head.as_deref(), Some(rev_parse(d, "HEAD").as_str()));
    assert!(!before.refs.contains_key("refs/stash"));

    fs::write(d.join("a.rs"), "fn main() { three() }\n").unwrap();
    git(d, &["stash", "-q"]);
    git(d, &["checkout", "-q", "--detach"]);
    git(d, &["commit", "-q", "--allow-empty", "-m", "detached"]);
    let detached = rev_parse(d, "HEAD");
    git(d, &["checkout", "-q", "main"]);
    let after = layout.refs().unwrap();
    assert_eq!(after.refs["refs/stash"], rev_parse(d, "refs/stash"));
    let moved = layout
        .reflog_since(Reflog::Head, before.head_log)
        .unwrap()
        .unwrap();
    assert!(moved.iter().any(|e| e.new == detached), "{moved:?}");
    let stashed = layout
        .reflog_since(Reflog::Stash, before.stash_log)
        .unwrap()
        .unwrap();
    assert_eq!(stashed.len(), 1);
    assert_eq!(stashed[0].new, rev_parse(d, "refs/stash"));
    // Dropped: the stash's reflog is gone, shorter than noted.
    git(d, &["stash", "drop", "-q"]);
    assert_eq!(
        layout.reflog_since(Reflog::Stash, after.stash_log).unwrap(),
        None
    );
    // The reftable format is not read file by file.
    fs::create_dir(d.join(".git/reftable")).unwrap();
    assert_eq!(layout.refs(), None);
}
