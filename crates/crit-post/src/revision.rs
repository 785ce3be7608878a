//! Which revision a result reviewed, and whether the pull request has moved
//! on since: every comment is pinned to the reviewed commit, and when the
//! head moved only lines unchanged since are commented on.

use std::collections::BTreeSet;

use crit_core::ReviewResult;

use crate::diff::changed_old_lines;
use crate::plan::ChangedSince;

/// The reviewed head the result itself names: the right side of a
/// `BASE...HEAD` (or `BASE..HEAD`) `diff` input, when it is a commit id
/// (a name like `HEAD` says nothing once the job is over).
pub(crate) fn named_in(result: &ReviewResult) -> Option<String> {
    let diff = result.inputs.get("diff")?;
    let (_, head) = diff.rsplit_once("..")?;
    let head = head.trim_start_matches('.');
    is_sha(head).then(|| head.to_ascii_lowercase())
}

/// A full commit id (SHA-1 or SHA-256).
pub(crate) fn is_sha(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The same commit: equal, or one an abbreviation (7+) of the other.
pub(crate) fn same_commit(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    short.len() >= 7 && long.starts_with(short.as_str())
}

/// One file of a comparison between two revisions, as a forge lists it.
pub(crate) struct Compared<'a> {
    /// Its path in the first revision.
    pub old_path: &'a str,
    /// The unified diff; `None` when the forge gave none (binary, too
    /// large), so every line counts as changed.
    pub patch: Option<&'a str>,
    /// Removed or renamed away: every line changed.
    pub whole: bool,
}

/// The lines of the first revision the comparison changes.
pub(crate) fn changed_since<'a>(files: impl IntoIterator<Item = Compared<'a>>) -> ChangedSince {
    let mut out = ChangedSince::default();
    for f in files {
        let lines: Option<BTreeSet<u32>> = match (f.whole, f.patch) {
            (false, Some(p)) => Some(changed_old_lines(p)),
            _ => None,
        };
        out.files.insert(f.old_path.to_string(), lines);
    }
    out
}

/// The summary's note when the pull request moved on after the review.
pub(crate) fn moved_note(reviewed: &str, head: &str, changed: usize) -> String {
    let short = |s: &str| crate::comment::short_sha(s);
    format!(
        "The pull request has moved on since the review: crit reviewed {}, its head is now {}. The comments are on the reviewed commit; {changed} finding(s) whose lines changed since are listed below instead.",
        short(reviewed),
        short(head)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::Verdict;

    #[test]
    fn the_reviewed_head_a_result_names() {
        let mut r = ReviewResult::new("code", Verdict::Pass);
        assert_eq!(named_in(&r), None);
        r.inputs.insert("diff".into(), "abc...HEAD".into());
        assert_eq!(named_in(&r), None);
        let sha = "0123456789abcdef0123456789abcdef01234567";
        r.inputs.insert("diff".into(), format!("main...{sha}"));
        assert_eq!(named_in(&r).as_deref(), Some(sha));
        r.inputs
            .insert("diff".into(), format!("main..{}", sha.to_uppercase()));
        assert_eq!(named_in(&r).as_deref(), Some(sha));
        assert!(same_commit(sha, &sha[..7]) && !same_commit(sha, &sha[..6]));
        assert!(!same_commit(
            sha,
            "1123456789abcdef0123456789abcdef01234567"
        ));
    }

    #[test]
    fn lines_changed_since() {
        let c = changed_since([
            Compared {
                old_path: "a.rs",
                patch: Some("@@ -5,2 +5,2 @@\n x\n-y\n+z"),
                whole: false,
            },
            Compared {
                old_path: "b.bin",
                patch: None,
                whole: false,
            },
        ]);
        assert!(c.touches("a.rs", 6, 6) && !c.touches("a.rs", 5, 5));
        assert!(c.touches("b.bin", 1, 1) && !c.touches("c.rs", 1, 1));
    }
}
