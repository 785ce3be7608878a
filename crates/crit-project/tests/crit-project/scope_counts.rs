//! The line counts of a change, through real temporary git repositories:
//! read from the patch's hunks, asked of git where the patch cannot say,
//! and equal to git's own `--numstat` either way.

use crate::scope_support;

use crit_project::scope::{FileStatus, Scope, compute};
use scope_support::{Repo, file, lines, lines_with, opts, run};

/// git's own count, `git diff --numstat --text -M`, path by path; a file
/// git calls binary is not in it.
fn numstat(repo: &Repo, revs: &[&str]) -> std::collections::BTreeMap<String, (u32, u32)> {
    let mut args = vec!["diff", "--numstat", "--text", "-M", "-z"];
    args.extend(revs);
    let out = repo.command(&args).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let mut tokens = text.split('\0');
    let mut counts = std::collections::BTreeMap::new();
    while let Some(t) = tokens.next().filter(|t| !t.is_empty()) {
        let mut p = t.splitn(3, '\t');
        let (a, d, path) = (p.next().unwrap(), p.next().unwrap(), p.next().unwrap());
        let path = match path.is_empty() {
            true => tokens.nth(1).unwrap().to_string(),
            false => path.to_string(),
        };
        // Binary to git (`-`), whatever `--text` says: counted as nothing.
        if (a, d) != ("-", "-") {
            counts.insert(path, (a.parse().unwrap(), d.parse().unwrap()));
        }
    }
    counts
}

/// The counts crit reads from the patch's hunks (or, for binary content it
/// withholds, asks git for) are git's own, for every kind of edit.
#[test]
fn line_counts_are_gits_for_every_kind_of_edit() {
    let repo = Repo::new();
    repo.write("edit.rs", lines(30));
    repo.write("gone.rs", lines(4));
    repo.write("moved.rs", lines(40));
    repo.write("crlf.txt", "a\r\nb\r\nc\r\n");
    repo.write("eof.txt", "no newline at the end");
    repo.write("mode.sh", "echo hi\n");
    repo.write(
        "img.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0",
    );
    let base = repo.commit("base");
    repo.write("edit.rs", lines_with(30, 7, "changed line"));
    let mut more = lines_with(30, 7, "changed line");
    more.push_str("tail 1\ntail 2\n");
    repo.write("edit.rs", more);
    repo.remove("gone.rs");
    repo.remove("moved.rs");
    repo.write("renamed/moved.rs", lines_with(40, 20, "edited in the move"));
    repo.write("crlf.txt", "a\r\nB\r\nc\r\nd\r\n");
    repo.write("eof.txt", "no newline at the end, still");
    repo.git(&["update-index", "--chmod=+x", "mode.sh"]);
    repo.write("empty.txt", "");
    repo.write(
        "img.png",
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x02\0\0\0\x02\x08\x06\0\0\0\n\x01\x02",
    );
    repo.write(
        "new.bin",
        (0u8..=255).cycle().take(3000).collect::<Vec<u8>>(),
    );
    // Binary to crit (control bytes), text to git (no NUL): git counts it.
    repo.write("ctl.dat", b"\x01\x02\x03\x04\n".repeat(40));
    let head = repo.commit("edits");
    for scope in [
        Scope::Range(format!("{base}..{head}")),
        Scope::Commits(vec![head.clone()]),
    ] {
        let change = run(&repo, &scope);
        let git = numstat(&repo, &[&base, &head]);
        for f in &change.files {
            let want = git.get(&f.path).copied().unwrap_or((0, 0));
            assert_eq!(
                (f.additions, f.deletions),
                want,
                "{} in {scope:?} (binary: {})",
                f.path,
                f.binary
            );
        }
        assert!(file(&change, "img.png").binary && file(&change, "new.bin").binary);
        assert!(file(&change, "ctl.dat").binary);
        assert_eq!(file(&change, "ctl.dat").additions, 40);
        assert_eq!(
            file(&change, "renamed/moved.rs").status,
            FileStatus::Renamed
        );
    }
    // Uncommitted, and the same through the staged layer.
    repo.write("edit.rs", lines(10));
    repo.write("img.png", b"\x89PNG\r\n\x1a\n\0\0\0\0\0");
    let change = run(&repo, &Scope::Uncommitted);
    let git = numstat(&repo, &["HEAD"]);
    for f in change.files.iter().filter(|f| git.contains_key(&f.path)) {
        assert_eq!((f.additions, f.deletions), git[&f.path], "{}", f.path);
    }
}

/// Output past its cap: every file is counted by git, the cut one too.
#[test]
fn line_counts_of_cut_output_are_gits() {
    let repo = Repo::new();
    for i in 0..6 {
        repo.write(&format!("f{i}.rs"), lines(50));
    }
    let base = repo.commit("base");
    for i in 0..6 {
        repo.write(&format!("f{i}.rs"), lines_with(50, 10 + i, "changed"));
        let mut t = std::fs::read_to_string(repo.path(&format!("f{i}.rs"))).unwrap();
        t.push_str(&lines(30 + i * 10));
        repo.write(&format!("f{i}.rs"), t);
    }
    let head = repo.commit("edits");
    let mut o = opts();
    o.max_git_output_bytes = 2_000;
    let change = compute(&repo.root, &Scope::Range(format!("{base}..{head}")), &o).unwrap();
    assert!(change.truncated);
    let git = numstat(&repo, &[&base, &head]);
    assert_eq!(change.files.len(), 6);
    for f in &change.files {
        assert_eq!((f.additions, f.deletions), git[&f.path], "{}", f.path);
    }
}
