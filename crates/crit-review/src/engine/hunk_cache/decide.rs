//! Which hunks of a finished review the cache may keep. Decided once, after
//! the whole review (every part, every reviewer, every check), because a
//! reviewer of one part reads other files with its tools and may find a
//! problem in a file another part's reviewers passed.
//!
//! The cache keeps only clean hunks and no findings, so a hunk served from it
//! cannot lose one: a hunk is kept when its part's reviewers all finished and
//! said PASS, and no finding of the whole review — any part, any reviewer,
//! kept or dismissed, crit's own included — points into its file. A finding
//! that points nowhere (no file) could be about any file: nothing of that
//! review is kept. A part whose reviewer reported a finding outside the
//! part's own files (another part's file, a file outside the change) keeps
//! none of its hunks, so that its reviewers see all of it again.
//!
//! Paths are matched loosely on purpose, so that a finding spelled
//! `./a.rs`, `b/src/a.rs`, `SRC/A.RS`, `src/x/../a.rs`, `/abs/src/a.rs` or
//! `src/a.rs:12` still holds `src/a.rs`, and one naming a directory holds
//! every file under it: a hunk is not kept when any segment of its path
//! equals the last segment of a finding's path (case folded). Matching too
//! much only costs a re-review. Findings are grouped in one hash set, so
//! the decision is linear in findings plus hunks.

use std::collections::HashSet;

/// One finding of the review, as the decision sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewFinding<'a> {
    /// The part whose reviewers reported it; `None` for crit's own findings
    /// and those of checks after the panel.
    pub part: Option<usize>,
    /// The file (or directory) it points into, as it names it; `None` when
    /// it names none.
    pub path: Option<&'a str>,
}

/// One hunk a part sent to its reviewers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartHunk<'a> {
    /// Its file, root-relative.
    pub path: &'a str,
    /// Its cache key; `None`: never kept.
    pub key: Option<&'a str>,
    /// Redaction or screening touched it: its part is not kept.
    pub tainted: bool,
}

/// One part of the review and how it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewedPart<'a> {
    /// Every reviewer of the part finished and said PASS (and the part was
    /// sent at all).
    pub passed: bool,
    pub hunks: Vec<PartHunk<'a>>,
}

/// The hunks to keep, as `(part, hunk)` indexes into `parts`, given every
/// finding of the review (`findings`: as reported, kept and dismissed).
pub fn hunks_to_store(
    parts: &[ReviewedPart<'_>],
    findings: &[ReviewFinding<'_>],
) -> Vec<(usize, usize)> {
    let mut named: HashSet<String> = HashSet::with_capacity(findings.len());
    // Per part, the names its own reviewers' findings point at.
    let mut reported: Vec<Vec<String>> = vec![Vec::new(); parts.len()];
    for f in findings {
        // One that names no file could be about any file of the change.
        let Some(name) = f.path.and_then(last_segment) else {
            return Vec::new();
        };
        match f.part.and_then(|p| reported.get_mut(p)) {
            Some(own) => own.push(name.clone()),
            // A reviewer's finding of no part that ran: nothing is sure.
            None if f.part.is_some() => return Vec::new(),
            None => {}
        }
        named.insert(name);
    }
    let mut out = Vec::new();
    for (i, (part, own)) in parts.iter().zip(&reported).enumerate() {
        if !part.passed || part.hunks.iter().any(|h| h.tainted) {
            continue;
        }
        let files: HashSet<String> = part.hunks.iter().flat_map(|h| segments(h.path)).collect();
        if own.iter().any(|n| !files.contains(n)) {
            continue;
        }
        for (j, h) in part.hunks.iter().enumerate() {
            if h.key.is_some() && !segments(h.path).any(|s| named.contains(&s)) {
                out.push((i, j));
            }
        }
    }
    out
}

/// The last meaningful segment of a path as a finding spells it, case
/// folded: no `.`/`..`, no `:line` or `#anchor`, no quotes; `None` when
/// nothing is left.
fn last_segment(path: &str) -> Option<String> {
    segments(path).last()
}

fn segments(path: &str) -> impl Iterator<Item = String> + '_ {
    path.split(['/', '\\'])
        .map(|s| {
            let s = s.trim().trim_matches(['`', '"', '\'']);
            // `a.rs:12`, `a.rs#L12`, `a.rs (line 12)`.
            let s = s.split([':', '#', ' ', '\t', '(']).next().unwrap_or("");
            s.to_lowercase()
        })
        .filter(|s| !s.is_empty() && s != "." && s != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_one_file_share_its_last_segment() {
        for p in [
            "src/a_auth.rs",
            "./src/a_auth.rs",
            "b/src/a_auth.rs",
            "SRC/A_AUTH.RS",
            "src/x/../a_auth.rs",
            "/home/u/p/src/a_auth.rs",
            "src\\a_auth.rs",
            "src/a_auth.rs:12",
            "`src/a_auth.rs`",
            "src/a_auth.rs/.",
        ] {
            assert_eq!(last_segment(p).as_deref(), Some("a_auth.rs"), "{p}");
        }
        for p in ["", "  ", ".", "..", "/", "./..", ":12"] {
            assert_eq!(last_segment(p), None, "{p:?}");
        }
    }

    #[test]
    fn a_directory_holds_the_files_under_it() {
        let parts = [ReviewedPart {
            passed: true,
            hunks: vec![
                PartHunk {
                    path: "src/auth/a.rs",
                    key: Some("k1"),
                    tainted: false,
                },
                PartHunk {
                    path: "lib/b.rs",
                    key: Some("k2"),
                    tainted: false,
                },
            ],
        }];
        let dir = [ReviewFinding {
            part: None,
            path: Some("src/auth/"),
        }];
        assert_eq!(hunks_to_store(&parts, &dir), vec![(0, 1)]);
    }
}
