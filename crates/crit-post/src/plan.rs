//! Which finding goes where on this run: a new inline comment, one already
//! on the pull request, or the summary (and why); and which earlier
//! comments are about findings no longer reported. ForgeKind-independent.

use std::collections::{BTreeMap, HashMap};

use crit_core::shard::{self, ShardSet};
use crit_core::{Finding, ReviewResult, Severity, Verdict};

use crate::diff::{Anchor, FileDiff};

/// Why a finding is listed in the summary instead of on a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elsewhere {
    /// It has no file line (a whole-file or general finding).
    NoLine,
    /// Its lines are not in the pull request's diff.
    NotInDiff,
    /// The reviewer said it is outside the change.
    OutsideChange,
    /// A note (`info`), not a problem to fix on a line.
    Note,
    /// Over the cap on inline comments.
    OverCap,
    /// The forge refused the inline comment.
    Refused,
    /// Its lines changed after the review (the pull request moved on).
    ChangedSince,
    /// Posting the comment failed (the forge kept answering with errors).
    NotPosted,
}

impl Elsewhere {
    pub fn reason(self) -> &'static str {
        match self {
            Elsewhere::NoLine => "no line to comment on",
            Elsewhere::NotInDiff => "not on a line of the diff",
            Elsewhere::OutsideChange => "outside the change",
            Elsewhere::Note => "a note",
            Elsewhere::OverCap => "over the cap on inline comments",
            Elsewhere::Refused => "the inline comment was refused",
            Elsewhere::ChangedSince => "its lines changed after the review",
            Elsewhere::NotPosted => "crit could not post the inline comment",
        }
    }
}

/// A comment crit's account posted on an earlier run.
#[derive(Debug, Clone)]
pub(crate) struct Earlier<H> {
    pub key: String,
    pub resolved: bool,
    pub body: String,
    /// The file it is on, as the forge names it.
    pub path: Option<String>,
    /// No longer on the line it was about: outdated by a push (GitHub's
    /// `line: null`), or on an earlier diff whose lines changed since.
    pub stale: bool,
    pub handle: H,
}

/// A finding to comment on now.
#[derive(Debug, Clone)]
pub(crate) struct Inline<'r> {
    pub key: String,
    pub finding: &'r Finding,
    pub anchor: Anchor,
}

#[derive(Debug)]
pub(crate) struct Plan<'r, H> {
    pub new: Vec<Inline<'r>>,
    /// Already commented on, still reported.
    pub kept: usize,
    /// Earlier comments whose findings are gone.
    pub resolve: Vec<Earlier<H>>,
    /// Earlier comments left stale whose findings are still reported: each
    /// finding is commented on again on its current line (or listed in the
    /// summary) and the old comment is resolved pointing there.
    pub superseded: Vec<Earlier<H>>,
    /// Earlier comments whose findings this run did not report, left open
    /// because it cannot vouch they are gone (it did not finish, did not
    /// see their file, or cut them at a cap).
    pub left_open: usize,
    pub elsewhere: Vec<(&'r Finding, Elsewhere)>,
}

/// Each finding's key: its fingerprint, with `-2`, `-3`… for repeats of
/// the same problem elsewhere in the same file (in line order).
pub(crate) fn keys(findings: &[Finding]) -> Vec<String> {
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by_key(|&i| {
        let f = &findings[i];
        let line = f.location.as_ref().and_then(|l| l.start_line());
        (f.id.clone(), line, f.title.clone(), i)
    });
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut keys = vec![String::new(); findings.len()];
    for i in order {
        let id = findings[i].id.as_str();
        let n = seen.entry(id).or_insert(0);
        *n += 1;
        keys[i] = if *n == 1 {
            id.to_string()
        } else {
            format!("{id}-{n}")
        };
    }
    keys
}

/// The plan for `result` against the diff of the reviewed revision, the
/// earlier comments, and (when the pull request moved on after the review)
/// the lines changed since.
pub(crate) fn plan<'r, H>(
    result: &'r ReviewResult,
    diffs: &BTreeMap<String, FileDiff>,
    earlier: Vec<Earlier<H>>,
    max_comments: Option<usize>,
    changed: Option<&ChangedSince>,
) -> Plan<'r, H> {
    let keys = keys(&result.findings);
    let key_of: HashMap<*const Finding, &str> = result
        .findings
        .iter()
        .zip(&keys)
        .map(|(f, k)| (f as *const Finding, k.as_str()))
        .collect();
    let mut open: HashMap<String, Earlier<H>> = HashMap::new();
    let mut extra = Vec::new();
    for e in earlier.into_iter().filter(|e| !e.resolved) {
        match open.remove(&e.key) {
            // A current comment stands for the finding before a stale one.
            Some(o) if o.stale && !e.stale => {
                extra.push(o);
                open.insert(e.key.clone(), e);
            }
            Some(o) => {
                extra.push(e);
                open.insert(o.key.clone(), o);
            }
            None => {
                open.insert(e.key.clone(), e);
            }
        }
    }
    let mut plan = Plan {
        new: Vec::new(),
        kept: 0,
        resolve: Vec::new(),
        superseded: Vec::new(),
        left_open: 0,
        elsewhere: Vec::new(),
    };
    let mut candidates = Vec::new();
    for f in result.sorted_findings() {
        let key = key_of.get(&(f as *const Finding)).copied().unwrap_or(&f.id);
        match open.remove(key) {
            Some(e) if e.stale => plan.superseded.push(e),
            Some(_) => {
                plan.kept += 1;
                continue;
            }
            None => {}
        }
        match place(f, diffs, changed) {
            Ok(anchor) => candidates.push(Inline {
                key: key.to_string(),
                finding: f,
                anchor,
            }),
            Err(why) => plan.elsewhere.push((f, why)),
        }
    }
    let cap = max_comments.unwrap_or(usize::MAX);
    for c in candidates {
        if plan.kept + plan.new.len() < cap {
            plan.new.push(c);
        } else {
            plan.elsewhere.push((c.finding, Elsewhere::OverCap));
        }
    }
    let reported: std::collections::HashSet<&str> = keys.iter().map(String::as_str).collect();
    let (extra_reported, extra_gone): (Vec<_>, Vec<_>) = extra
        .into_iter()
        .partition(|e| reported.contains(e.key.as_str()));
    // A stale repeat of a comment still standing: resolved pointing on.
    plan.superseded
        .extend(extra_reported.into_iter().filter(|e| e.stale));
    let gone = open.into_values().chain(extra_gone);
    for e in gone {
        if vouches_gone(result, &e) {
            plan.resolve.push(e);
        } else {
            plan.left_open += 1;
        }
    }
    plan.resolve.sort_by(|a, b| a.key.cmp(&b.key));
    plan
}

/// Whether `result` shows that the finding of earlier comment `e` is gone,
/// not merely unreported: the review finished and its answer was read
/// (PASS, CONCERNS or FAIL), it saw all of the comment's file (or, when the
/// file left the change, the whole change rather than a shard of it), and
/// did not cut the finding at a cap. Anything less leaves the comment open.
fn vouches_gone<H>(result: &ReviewResult, e: &Earlier<H>) -> bool {
    let finished = matches!(
        result.verdict,
        Verdict::Pass | Verdict::Concerns | Verdict::Fail
    ) && !result.fatal_error
        && result.parse_error.is_none();
    let capped = result.dismissed.iter().any(|d| {
        d.cause == "over_cap"
            && (e.key == d.finding.id
                || e.key
                    .strip_prefix(d.finding.id.as_str())
                    .is_some_and(|rest| rest.starts_with('-')))
    });
    // A review of the newer commits only saw none of the earlier ones.
    finished && !capped && !crate::since::only_newer(result) && saw_file(result, e.path.as_deref())
}

/// Whether the review saw all of `path` (always, when it does not say what
/// it saw).
fn saw_file(result: &ReviewResult, path: Option<&str>) -> bool {
    let (Some(coverage), Some(path)) = (&result.coverage, path) else {
        return true;
    };
    let path = path.trim_start_matches("./");
    if coverage.left_out.iter().any(|l| l.path == path) {
        return false;
    }
    match coverage.files.iter().find(|f| f.path == path) {
        Some(f) => f.hunks_shown + f.hunks_cached >= f.hunks,
        None => match result.inputs.get(shard::INPUT_KEY) {
            None => true,
            Some(set) => set
                .parse::<ShardSet>()
                .is_ok_and(|s| s.missing().is_empty()),
        },
    }
}

/// Lines of the reviewed revision that changed after it, per file: `None`
/// for a file changed as a whole (removed, renamed, binary, or a diff the
/// forge did not give).
#[derive(Debug, Clone, Default)]
pub(crate) struct ChangedSince {
    pub files: BTreeMap<String, Option<std::collections::BTreeSet<u32>>>,
    /// Nothing is known of what changed: every line counts as changed.
    pub unknown: bool,
}

impl ChangedSince {
    /// Whether any of lines `start..=end` of `path` changed.
    pub(crate) fn touches(&self, path: &str, start: u32, end: u32) -> bool {
        if self.unknown {
            return true;
        }
        match self.files.get(path) {
            None => false,
            Some(None) => true,
            Some(Some(lines)) => lines.range(start..=end.max(start)).next().is_some(),
        }
    }
}

/// Where `f` can be commented on, or why it cannot.
fn place(
    f: &Finding,
    diffs: &BTreeMap<String, FileDiff>,
    changed: Option<&ChangedSince>,
) -> Result<Anchor, Elsewhere> {
    if f.severity == Severity::Info {
        return Err(Elsewhere::Note);
    }
    if f.in_change == Some(false) {
        return Err(Elsewhere::OutsideChange);
    }
    let loc = f.location.as_ref().ok_or(Elsewhere::NoLine)?;
    let start = loc
        .start_line()
        .filter(|l| *l >= 1)
        .ok_or(Elsewhere::NoLine)?;
    let end = loc.end_line().unwrap_or(start);
    let path = loc.path().trim_start_matches("./");
    let anchor = diffs
        .get(path)
        .and_then(|d| d.anchor(start, end))
        .ok_or(Elsewhere::NotInDiff)?;
    match changed {
        Some(c) if c.touches(path, anchor.start, anchor.end) => Err(Elsewhere::ChangedSince),
        _ => Ok(anchor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::{Location, Verdict};

    fn finding(title: &str, sev: Severity, path: &str, line: u32) -> Finding {
        Finding::new(title, sev, "r").with_location(Location::lines(path, line, line))
    }

    fn diffs() -> BTreeMap<String, FileDiff> {
        let patch = "@@ -1,1 +1,5 @@\n a\n+b\n+c\n+d\n+e";
        BTreeMap::from([("src/a.rs".to_string(), FileDiff::parse(patch))])
    }

    #[test]
    fn repeats_get_their_own_keys() {
        let a = finding("Same", Severity::P2, "src/a.rs", 9);
        let b = finding("Same", Severity::P2, "src/a.rs", 2);
        let keys = keys(&[a.clone(), b]);
        assert_eq!(keys, [format!("{}-2", a.id), a.id.clone()]);
    }

    #[test]
    fn places_caps_and_resolves() {
        let mut r = ReviewResult::new("code", Verdict::Fail);
        r.findings = vec![
            finding("nit", Severity::P3, "src/a.rs", 2),
            finding("blocker", Severity::P0, "src/a.rs", 3),
            finding("off the diff", Severity::P1, "src/a.rs", 40),
            finding("other file", Severity::P1, "src/b.rs", 1),
            finding("good", Severity::Info, "src/a.rs", 4),
            finding("posted before", Severity::P2, "src/a.rs", 5),
            Finding::new("general", Severity::P2, "r"),
        ];
        let mut outside = finding("outside", Severity::P1, "src/a.rs", 2);
        outside.in_change = Some(false);
        r.findings.push(outside);
        let posted_key = r.findings[5].id.clone();
        let earlier = vec![
            Earlier {
                key: posted_key,
                resolved: false,
                body: String::new(),
                path: None,
                stale: false,
                handle: 1,
            },
            Earlier {
                key: "gone".into(),
                resolved: false,
                body: String::new(),
                path: None,
                stale: false,
                handle: 2,
            },
            Earlier {
                key: "gone-earlier".into(),
                resolved: true,
                body: String::new(),
                path: None,
                stale: false,
                handle: 3,
            },
        ];
        let p = plan(&r, &diffs(), earlier, Some(2), None);
        let new: Vec<&str> = p.new.iter().map(|i| i.finding.title.as_str()).collect();
        assert_eq!(new, ["blocker"], "most severe first, the kept one counts");
        assert_eq!(p.kept, 1);
        let elsewhere: Vec<(&str, Elsewhere)> = p
            .elsewhere
            .iter()
            .map(|(f, w)| (f.title.as_str(), *w))
            .collect();
        assert_eq!(
            elsewhere,
            [
                ("outside", Elsewhere::OutsideChange),
                ("off the diff", Elsewhere::NotInDiff),
                ("other file", Elsewhere::NotInDiff),
                ("general", Elsewhere::NoLine),
                ("good", Elsewhere::Note),
                ("nit", Elsewhere::OverCap),
            ]
        );
        let resolve: Vec<i32> = p.resolve.iter().map(|e| e.handle).collect();
        assert_eq!(resolve, [2], "an already resolved comment is left alone");
    }

    #[test]
    fn a_finding_crit_resolved_that_comes_back_is_posted_again() {
        let mut r = ReviewResult::new("code", Verdict::Fail);
        r.findings = vec![finding("back", Severity::P1, "src/a.rs", 2)];
        let earlier = vec![Earlier {
            key: r.findings[0].id.clone(),
            resolved: true,
            body: String::new(),
            path: None,
            stale: false,
            handle: 1,
        }];
        let p = plan(&r, &diffs(), earlier, None, None);
        assert_eq!((p.new.len(), p.kept, p.resolve.len()), (1, 0, 0));
    }

    #[test]
    fn a_stale_comment_is_superseded_and_changed_lines_stay_off_the_diff() {
        let mut r = ReviewResult::new("code", Verdict::Fail);
        r.findings = vec![
            finding("moved", Severity::P1, "src/a.rs", 2),
            finding("changed since", Severity::P1, "src/a.rs", 4),
        ];
        let stale = |key: &str, handle| Earlier {
            key: key.to_string(),
            resolved: false,
            body: String::new(),
            path: None,
            stale: true,
            handle,
        };
        let earlier = vec![stale(&r.findings[0].id, 1), stale(&r.findings[1].id, 2)];
        let mut changed = ChangedSince::default();
        changed
            .files
            .insert("src/a.rs".into(), Some([4u32].into_iter().collect()));
        let p = plan(&r, &diffs(), earlier, None, Some(&changed));
        let new: Vec<&str> = p.new.iter().map(|i| i.finding.title.as_str()).collect();
        assert_eq!(new, ["moved"], "posted again on its current line");
        assert_eq!(p.kept, 0);
        let sup: Vec<i32> = p.superseded.iter().map(|e| e.handle).collect();
        assert_eq!(sup, [1, 2]);
        assert_eq!(p.elsewhere[0].1, Elsewhere::ChangedSince);
        assert!(p.resolve.is_empty());
    }

    fn gone(path: &str) -> Earlier<i32> {
        Earlier {
            key: "gone".into(),
            resolved: false,
            body: String::new(),
            path: Some(path.into()),
            stale: false,
            handle: 1,
        }
    }

    fn coverage(path: &str, hunks: u32, shown: u32) -> crit_core::Coverage {
        crit_core::Coverage {
            complete: hunks == shown,
            files: vec![crit_core::FileCoverage {
                path: path.into(),
                hunks,
                hunks_shown: shown,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn only_a_review_that_saw_the_file_resolves_its_comments() {
        let resolves = |r: &ReviewResult, path: &str| {
            let p = plan(r, &diffs(), vec![gone(path)], None, None);
            assert_eq!(p.resolve.len() + p.left_open, 1);
            p.resolve.len() == 1
        };
        let mut r = ReviewResult::new("code", Verdict::Pass);
        assert!(resolves(&r, "src/a.rs"));
        for v in [Verdict::Incomplete, Verdict::Unknown, Verdict::Error] {
            let r = ReviewResult::new("code", v);
            assert!(!resolves(&r, "src/a.rs"), "{v:?}");
        }
        let mut fatal = r.clone();
        fatal.fatal_error = true;
        assert!(!resolves(&fatal, "src/a.rs"));
        let mut unread = r.clone();
        unread.parse_error = Some("no JSON".into());
        assert!(!resolves(&unread, "src/a.rs"));
        // A partial review (allowed) that did not show the file's hunks.
        r.coverage = Some(coverage("src/a.rs", 3, 1));
        assert!(!resolves(&r, "src/a.rs"));
        r.coverage = Some(coverage("src/a.rs", 3, 3));
        assert!(resolves(&r, "src/a.rs"));
        // A file that left the change: the whole change vouches, a shard does not.
        assert!(resolves(&r, "src/gone.rs"));
        r.inputs.insert("shard".into(), "2/4".into());
        assert!(!resolves(&r, "src/gone.rs"));
        assert!(resolves(&r, "src/a.rs"), "the shard saw this file");
        r.inputs.insert("shard".into(), "1,2,3,4/4".into());
        assert!(resolves(&r, "src/gone.rs"));
        // Cut at --max-findings: still there, only not reported.
        let mut capped = ReviewResult::new("code", Verdict::Fail);
        let mut f = finding("capped", Severity::P3, "src/a.rs", 2);
        f.id = "gone".into();
        capped.dismissed.push(crit_core::Dismissed {
            finding: f,
            cause: "over_cap".into(),
            reason: "over --max-findings".into(),
            proof: String::new(),
        });
        assert!(!resolves(&capped, "src/a.rs"));
    }
}
