//! Which finding goes where on this run: a new inline comment, one already
//! on the pull request, or the summary (and why); and which earlier
//! comments are about findings no longer reported. Forge-independent.

use std::collections::{BTreeMap, HashMap};

use crit_core::{Finding, ReviewResult, Severity};

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
        }
    }
}

/// A comment crit's account posted on an earlier run.
#[derive(Debug, Clone)]
pub(crate) struct Earlier<H> {
    pub key: String,
    pub resolved: bool,
    pub body: String,
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

/// The plan for `result` against the diff and the earlier comments.
pub(crate) fn plan<'r, H>(
    result: &'r ReviewResult,
    diffs: &BTreeMap<String, FileDiff>,
    earlier: Vec<Earlier<H>>,
    max_comments: Option<usize>,
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
        if open.contains_key(&e.key) {
            extra.push(e);
        } else {
            open.insert(e.key.clone(), e);
        }
    }
    let mut plan = Plan {
        new: Vec::new(),
        kept: 0,
        resolve: Vec::new(),
        elsewhere: Vec::new(),
    };
    let mut candidates = Vec::new();
    for f in result.sorted_findings() {
        let key = key_of.get(&(f as *const Finding)).copied().unwrap_or(&f.id);
        if open.remove(key).is_some() {
            plan.kept += 1;
            continue;
        }
        match place(f, diffs) {
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
    plan.resolve = open.into_values().collect();
    plan.resolve.extend(
        extra
            .into_iter()
            .filter(|e| !reported.contains(e.key.as_str())),
    );
    plan.resolve.sort_by(|a, b| a.key.cmp(&b.key));
    plan
}

/// Where `f` can be commented on, or why it cannot.
fn place(f: &Finding, diffs: &BTreeMap<String, FileDiff>) -> Result<Anchor, Elsewhere> {
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
    diffs
        .get(path)
        .and_then(|d| d.anchor(start, end))
        .ok_or(Elsewhere::NotInDiff)
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
                handle: 1,
            },
            Earlier {
                key: "gone".into(),
                resolved: false,
                body: String::new(),
                handle: 2,
            },
            Earlier {
                key: "gone-earlier".into(),
                resolved: true,
                body: String::new(),
                handle: 3,
            },
        ];
        let p = plan(&r, &diffs(), earlier, Some(2));
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
            handle: 1,
        }];
        let p = plan(&r, &diffs(), earlier, None);
        assert_eq!((p.new.len(), p.kept, p.resolve.len()), (1, 0, 0));
    }
}
