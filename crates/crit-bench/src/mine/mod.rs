//! `crit bench mine [--since 90d]`: review quality from the user's own
//! history in one project, with no model. The audit log says where each
//! finding pointed (hashes of the project and the file's path, the lines, a
//! hash of those lines); git and the working tree say what those lines are
//! now. A finding is
//!
//! - `acted_on` when its lines are no longer there as they were (changed,
//!   moved and changed, or deleted with their file): likely fixed;
//! - `dismissed` when they are still there, unchanged, at HEAD or in the
//!   working tree;
//! - `suppressed` when a later review dismissed it by the team's suppressions;
//! - `unknown` when crit cannot tell (a line written before crit recorded
//!   locations, a finding without lines, a file it cannot read).
//!
//! precision (a proxy) = acted_on / (acted_on + dismissed + suppressed), per
//! reviewer, rule and severity. A finding reported by several reviews (the
//! Stop gate's rounds) counts once, where it was first reported. Recent
//! findings may not have been acted on yet: choose the period accordingly.
//!
//! Beside it, what the team said ([`feedback`]): reactions, disputes and
//! their outcome, resolved threads and suppressions from the feedback log.

pub mod feedback;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crit_os::env::Env;
use crit_os::git::{Git, GitOptions};
use crit_os::write::Root;
use serde::Serialize;

use crate::stats::days::{self, Period};
use crate::stats::read::{self as audit, Line, Sources};
use crit_review::session::{Flagged, lines_hash, path_hash};

/// Files compared, at most this big.
const MAX_FILE: usize = 4 * 1024 * 1024;
/// The project's file listing, at most this big.
const MAX_LISTING: usize = 64 * 1024 * 1024;

/// What happened to one finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    ActedOn,
    Dismissed,
    Suppressed,
    Unknown,
}

/// Findings by outcome, and the precision proxy.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Outcomes {
    pub acted_on: usize,
    pub dismissed: usize,
    pub suppressed: usize,
    pub unknown: usize,
    /// acted_on / (acted_on + dismissed + suppressed); `null` when none of
    /// those.
    pub precision: Option<f64>,
}

impl Outcomes {
    fn add(&mut self, o: Outcome) {
        match o {
            Outcome::ActedOn => self.acted_on += 1,
            Outcome::Dismissed => self.dismissed += 1,
            Outcome::Suppressed => self.suppressed += 1,
            Outcome::Unknown => self.unknown += 1,
        }
        let known = self.acted_on + self.dismissed + self.suppressed;
        self.precision = (known > 0).then(|| self.acted_on as f64 / known as f64);
    }
}

/// One reviewer, rule or severity.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Group {
    pub name: String,
    #[serde(flatten)]
    pub outcomes: Outcomes,
}

/// What `crit bench mine` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mined {
    pub since: String,
    pub until: String,
    /// Reviews in the period that recorded where their findings pointed.
    pub reviews: usize,
    /// Distinct findings (per repository and fingerprint).
    pub findings: usize,
    pub overall: Outcomes,
    pub by_reviewer: Vec<Group>,
    pub by_rule: Vec<Group>,
    pub by_severity: Vec<Group>,
    /// Audit lines that were not review lines.
    pub skipped_lines: usize,
    /// What the team said, from the feedback log.
    pub feedback: feedback::FeedbackMined,
}

/// Mines the audit log in `audit_dir` over `period` for the project at
/// `root`.
pub fn mine(audit_dir: &Path, period: &Period, root: &Path, env: &Env) -> Mined {
    let sources = Sources {
        audit: Some(audit_dir.to_path_buf()),
        plugin_logs: None,
    };
    let reading = audit::read(&sources, period);
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let here = path_hash(&root.display().to_string());
    let mut reviews = 0;
    let mut first: Vec<Flagged> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut suppressed: BTreeSet<String> = BTreeSet::new();
    for line in &reading.lines {
        let Line::Review(r) = line else { continue };
        if r.flagged.is_empty() || r.repo.as_deref() != Some(here.as_str()) {
            continue;
        }
        reviews += 1;
        for f in &r.flagged {
            match f.dismissed.as_deref() {
                Some("suppressed") => {
                    suppressed.insert(f.fp.clone());
                }
                Some(_) => {}
                None => {
                    if seen.insert(f.fp.clone()) {
                        first.push(f.clone());
                    }
                }
            }
        }
    }
    let mut project = Now::new(&root, env);
    let mut overall = Outcomes::default();
    let mut by: [BTreeMap<String, Outcomes>; 3] = Default::default();
    for f in &first {
        let outcome = match suppressed.contains(&f.fp) {
            true => Outcome::Suppressed,
            false => project.classify(f),
        };
        overall.add(outcome);
        let reviewer = match f.reviewer.as_str() {
            "" => "(unnamed)".to_string(),
            r => r.to_string(),
        };
        by[0].entry(reviewer).or_default().add(outcome);
        if let Some(rule) = &f.rule {
            by[1].entry(rule.clone()).or_default().add(outcome);
        }
        by[2].entry(f.severity.clone()).or_default().add(outcome);
    }
    let [by_reviewer, by_rule, by_severity] = by.map(|m| {
        m.into_iter()
            .map(|(name, outcomes)| Group { name, outcomes })
            .collect::<Vec<_>>()
    });
    Mined {
        since: days::date(period.since),
        until: days::date(period.until),
        reviews,
        findings: first.len(),
        overall,
        by_reviewer,
        by_rule,
        by_severity,
        skipped_lines: reading.skipped,
        feedback: feedback::mine_feedback(&audit_dir.join("feedback"), period, &here),
    }
}

/// The project as it is now: its files by path hash, and their text at
/// HEAD and in the working tree, read once each.
struct Now {
    root: PathBuf,
    git: Option<Git>,
    /// Path hash → path, of every file at HEAD, in the index or untracked
    /// (`None`: git could not list them).
    paths: Option<HashMap<String, String>>,
    files: HashMap<String, Versions>,
}

#[derive(Clone)]
struct Versions {
    /// A version could not be read (other than being absent).
    unreadable: bool,
    texts: Vec<Vec<String>>,
}

impl Now {
    fn new(root: &Path, env: &Env) -> Self {
        let git = Git::open(root, env, GitOptions::default()).ok();
        let paths = git.as_ref().and_then(listed);
        Now {
            root: root.to_path_buf(),
            git,
            paths,
            files: HashMap::new(),
        }
    }

    fn classify(&mut self, f: &Flagged) -> Outcome {
        let (Some(file), Some([start, end]), Some(hash)) =
            (f.file.as_deref(), f.lines, f.hash.as_deref())
        else {
            return Outcome::Unknown;
        };
        let Some(paths) = &self.paths else {
            return Outcome::Unknown;
        };
        // Gone from HEAD, the index and the working tree: its lines went with it.
        let Some(path) = paths.get(file).cloned() else {
            return Outcome::ActedOn;
        };
        if !safe_path(&path) || end < start {
            return Outcome::Unknown;
        }
        let v = self.versions(&path);
        let n = (end - start + 1) as usize;
        let there = v
            .texts
            .iter()
            .any(|t| t.len() >= n && t.windows(n).any(|w| lines_hash(w) == hash));
        match (there, v.unreadable) {
            (true, _) => Outcome::Dismissed,
            (false, true) => Outcome::Unknown,
            (false, false) => Outcome::ActedOn,
        }
    }

    fn versions(&mut self, path: &str) -> Versions {
        if let Some(v) = self.files.get(path) {
            return v.clone();
        }
        let mut v = Versions {
            unreadable: false,
            texts: Vec::new(),
        };
        if let Some(git) = &self.git {
            match git.run(&["show", &format!("HEAD:./{path}")], MAX_FILE) {
                Ok(out) if out.success() && !out.overflowed => v.texts.push(lines(&out.stdout)),
                // Not at HEAD: absent, which says nothing more.
                Ok(out) if !out.overflowed => {}
                _ => v.unreadable = true,
            }
        }
        let limits = crit_os::read::InputLimits {
            max_bytes: MAX_FILE as u64,
        };
        match Root::open(&self.root).map(|r| r.read(path, limits)) {
            Ok(Ok(bytes)) => v.texts.push(lines(&bytes)),
            Ok(Err(e)) if e.is_not_found() => {}
            _ => v.unreadable = true,
        }
        self.files.insert(path.to_string(), v.clone());
        v
    }
}

/// Every file of the project at HEAD, in the index or untracked (not
/// ignored), by path hash; paths from the project root.
fn listed(git: &Git) -> Option<HashMap<String, String>> {
    let mut out = HashMap::new();
    let runs: [&[&str]; 2] = [
        &[
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ],
        &["ls-tree", "-r", "-z", "--name-only", "HEAD"],
    ];
    let mut any = false;
    for args in runs {
        let Ok(o) = git.run(args, MAX_LISTING) else {
            continue;
        };
        if !o.success() || o.overflowed {
            continue;
        }
        any = true;
        for p in String::from_utf8_lossy(&o.stdout)
            .split('\0')
            .filter(|p| !p.is_empty())
        {
            out.insert(path_hash(p), p.to_string());
        }
    }
    any.then_some(out)
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(str::to_string)
        .collect()
}

/// A path inside the project, as the audit log records them.
fn safe_path(p: &str) -> bool {
    !p.is_empty() && !p.starts_with('/') && !p.split('/').any(|c| c == ".." || c.is_empty())
}

/// The report for people.
pub fn terminal(m: &Mined) -> String {
    let mut out = format!(
        "{} to {}: {} review{} with located findings, {} distinct finding{}\n",
        m.since,
        m.until,
        m.reviews,
        if m.reviews == 1 { "" } else { "s" },
        m.findings,
        if m.findings == 1 { "" } else { "s" },
    );
    out.push_str(
        "acted on: its lines changed since; dismissed: its lines are as they were; \
         suppressed: the team suppressed it\n\n",
    );
    let mut rows = vec![vec![
        "".to_string(),
        "precision".into(),
        "acted on".into(),
        "dismissed".into(),
        "suppressed".into(),
        "unknown".into(),
    ]];
    rows.push(row("all findings", &m.overall));
    for (title, groups) in [
        ("reviewer", &m.by_reviewer),
        ("rule", &m.by_rule),
        ("severity", &m.by_severity),
    ] {
        for g in groups {
            rows.push(row(&format!("{title} {}", g.name), &g.outcomes));
        }
    }
    out.push_str(&super::render::table(&rows));
    out.push_str(&feedback::terminal(&m.feedback));
    out
}

fn row(name: &str, o: &Outcomes) -> Vec<String> {
    vec![
        crit_core::Printable::line(name, crit_core::Dest::Terminal).into_string(),
        o.precision
            .map_or_else(|| "-".into(), |p| format!("{p:.2}")),
        o.acted_on.to_string(),
        o.dismissed.to_string(),
        o.suppressed.to_string(),
        o.unknown.to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_counts_only_what_is_known() {
        let mut o = Outcomes::default();
        o.add(Outcome::Unknown);
        assert_eq!(o.precision, None);
        o.add(Outcome::ActedOn);
        o.add(Outcome::Dismissed);
        o.add(Outcome::Suppressed);
        o.add(Outcome::ActedOn);
        assert_eq!(o.precision, Some(0.5));
    }

    #[test]
    fn only_project_paths() {
        assert!(safe_path("src/a.rs"));
        for bad in ["", "/etc/passwd", "../x", "a//b", "a/../b"] {
            assert!(!safe_path(bad), "{bad}");
        }
    }
}
