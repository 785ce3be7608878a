//! Reviewing only what was pushed since the last review: the summary's
//! marker records the head each review reviewed (and where it started, when
//! it reviewed only the commits since an earlier one); a later run reads it
//! back ([`crate::GithubPoster::last_review`]), reviews `HEAD..` of it, and
//! its result says so, which its summary then puts in words.

use crit_core::ReviewResult;

use crate::comment::short_sha;
use crate::inert;
use crate::revision::is_sha;

/// The result's input recording how the review relates to the last one.
const INPUT_KEY: &str = "since_last_review";

/// What crit's summary on the pull request records of the review it
/// summarizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastReview {
    /// The commit it reviewed.
    pub head: String,
    /// Where it started when it reviewed only the commits since an earlier
    /// review; `None`: the whole change.
    pub from: Option<String>,
}

impl LastReview {
    /// The range it covered, in words with the commits as code.
    fn covered(&self) -> String {
        match &self.from {
            Some(from) => inert::code(&format!("{}..{}", short_sha(from), short_sha(&self.head))),
            None => format!(
                "the whole change up to {}",
                inert::code(&short_sha(&self.head))
            ),
        }
    }
}

/// How a review (asked to review only what is new since the last one)
/// relates to the last review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Since {
    /// Only the commits after `last.head` were reviewed.
    Commits(LastReview),
    /// The last review's head is not an ancestor of the reviewed head (a
    /// force-push rewrote the branch, or the clone does not have it): the
    /// whole change was reviewed.
    Rewritten(LastReview),
    /// No review of crit's on the pull request yet: the whole change was
    /// reviewed.
    First,
}

impl Since {
    /// Records `self` in `result`'s inputs, for the summary (also when the
    /// result is posted later by `crit report`).
    pub fn record(&self, result: &mut ReviewResult) {
        let value = match self {
            Since::Commits(l) => format!("commits {}", encode(l)),
            Since::Rewritten(l) => format!("rewritten {}", encode(l)),
            Since::First => "first".to_string(),
        };
        result.inputs.insert(INPUT_KEY.to_string(), value);
    }

    /// What `result` records, if anything.
    pub fn of(result: &ReviewResult) -> Option<Since> {
        let value = result.inputs.get(INPUT_KEY)?;
        let mut words = value.split(' ');
        let kind = words.next()?;
        if kind == "first" {
            return words.next().is_none().then_some(Since::First);
        }
        let head = words.next().filter(|h| is_sha(h))?.to_ascii_lowercase();
        let from = match (words.next(), words.next(), words.next()) {
            (None, _, _) => None,
            (Some("from"), Some(f), None) if is_sha(f) => Some(f.to_ascii_lowercase()),
            _ => return None,
        };
        let last = LastReview { head, from };
        match kind {
            "commits" => Some(Since::Commits(last)),
            "rewritten" => Some(Since::Rewritten(last)),
            _ => None,
        }
    }

    /// Where the review started, when it reviewed only the newer commits:
    /// what the summary's marker records as `from`.
    pub(crate) fn from(&self) -> Option<&str> {
        match self {
            Since::Commits(l) => Some(&l.head),
            _ => None,
        }
    }

    /// The summary's line saying which range was reviewed (up to `head`)
    /// and which the last review covered.
    pub(crate) fn describe(&self, head: Option<&str>) -> String {
        let up_to = |h: Option<&str>| match h {
            Some(h) => format!("the whole change up to {}", inert::code(&short_sha(h))),
            None => "the whole change".to_string(),
        };
        match self {
            Since::Commits(last) => {
                let range = match head {
                    Some(h) => format!("{}..{}", short_sha(&last.head), short_sha(h)),
                    None => format!("{}..", short_sha(&last.head)),
                };
                format!(
                    "**Reviewed:** {}, the commits pushed since the last review · **The last review covered:** {}",
                    inert::code(&range),
                    last.covered()
                )
            }
            Since::Rewritten(last) => format!(
                "**Reviewed:** {}, because the last review's head {} is not in this branch's history (a force-push rewrote it) · **The last review covered:** {}",
                up_to(head),
                inert::code(&short_sha(&last.head)),
                last.covered()
            ),
            Since::First => format!(
                "**Reviewed:** {} (no earlier review of crit's on it)",
                up_to(head)
            ),
        }
    }
}

/// Whether `result` reviewed only the commits since the last review.
pub(crate) fn only_newer(result: &ReviewResult) -> bool {
    matches!(Since::of(result), Some(Since::Commits(_)))
}

fn encode(l: &LastReview) -> String {
    match &l.from {
        Some(f) => format!("{} from {f}", l.head),
        None => l.head.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::Verdict;

    #[test]
    fn a_result_records_how_it_relates_to_the_last_review() {
        let (a, b) = ("a".repeat(40), "b".repeat(40));
        let mut r = ReviewResult::new("code", Verdict::Pass);
        assert_eq!(Since::of(&r), None);
        for since in [
            Since::First,
            Since::Commits(LastReview {
                head: a.clone(),
                from: None,
            }),
            Since::Rewritten(LastReview {
                head: a.clone(),
                from: Some(b.clone()),
            }),
        ] {
            since.record(&mut r);
            assert_eq!(Since::of(&r), Some(since));
        }
        for bad in [
            "commits abc",
            "first x",
            "commits",
            "later aaaa",
            &format!("commits {a} to {b}"),
        ] {
            r.inputs.insert(INPUT_KEY.into(), bad.to_string());
            assert_eq!(Since::of(&r), None, "{bad}");
        }
    }

    #[test]
    fn the_summary_names_both_ranges() {
        let (a, b, c) = ("a".repeat(40), "b".repeat(40), "c".repeat(40));
        let since = Since::Commits(LastReview {
            head: b.clone(),
            from: Some(a.clone()),
        });
        let line = since.describe(Some(&c));
        assert!(line.contains("`bbbbbbbbbbbb..cccccccccccc`"), "{line}");
        assert!(
            line.contains("covered:** `aaaaaaaaaaaa..bbbbbbbbbbbb`"),
            "{line}"
        );
        let whole = Since::Rewritten(LastReview {
            head: b,
            from: None,
        })
        .describe(Some(&c));
        assert!(
            whole.contains("the whole change up to `cccccccccccc`"),
            "{whole}"
        );
        assert!(whole.contains("force-push"), "{whole}");
        assert!(
            whole.ends_with("the whole change up to `bbbbbbbbbbbb`"),
            "{whole}"
        );
    }
}
