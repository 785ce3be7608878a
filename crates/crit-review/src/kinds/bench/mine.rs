//! `crit bench mine [--since 90d]`: review quality from the user's own
//! history, with no model. The audit log says where each finding pointed
//! (file, lines, a hash of those lines); git and the working tree say what
//! those lines are now. A finding is
//!
//! - `acted_on` when its lines are no longer there as they were (changed,
//!   moved and changed, or deleted with their file): likely fixed;
//! - `dismissed` when they are still there, unchanged, at HEAD or in the
//!   working tree;
//! - `suppressed` when a later review dismissed it by the team's suppressions;
//! - `unknown` when crit cannot tell (a line written before crit recorded
//!   locations, a repository that is gone, a file it cannot read).
//!
//! precision (a proxy) = acted_on / (acted_on + dismissed + suppressed), per
//! reviewer, rule and severity. A finding reported by several reviews of one
//! repository (the Stop gate's rounds) counts once, where it was first
//! reported. Recent findings may not have been acted on yet: choose the
//! period accordingly.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crit_os::env::Env;
use crit_os::git::{Git, GitOptions};
use crit_os::write::Root;
use serde::Serialize;

use crate::engine::session::{Flagged, lines_hash};
use crate::stats::days::{self, Period};
use crate::stats::read::{self as audit, Line, Sources};

/// Files compared, at most this big.
const MAX_FILE: usize = 4 * 1024 * 1024;

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
}

/// Mines the audit log in `audit_dir` over `period`.
pub fn mine(audit_dir: &Path, period: &Period, env: &Env) -> Mined {
    let sources = Sources {
        audit: Some(audit_dir.to_path_buf()),
        plugin_logs: None,
    };
    let reading = audit::read(&sources, period);
    let mut reviews = 0;
    let mut first: Vec<(Option<String>, Flagged)> = Vec::new();
    let mut seen: BTreeSet<(Option<String>, String)> = BTreeSet::new();
    let mut suppressed: BTreeSet<(Option<String>, String)> = BTreeSet::new();
    for line in &reading.lines {
        let Line::Review(r) = line else { continue };
        if r.flagged.is_empty() {
            continue;
        }
        reviews += 1;
        for f in &r.flagged {
            let key = (r.repo.clone(), f.fp.clone());
            match f.dismissed.as_deref() {
                Some("suppressed") => {
                    suppressed.insert(key);
                }
                Some(_) => {}
                None => {
                    if seen.insert(key) {
                        first.push((r.repo.clone(), f.clone()));
                    }
                }
            }
        }
    }
    let mut repos = Repos::new(env);
    let mut overall = Outcomes::default();
    let mut by: [BTreeMap<String, Outcomes>; 3] = Default::default();
    for (repo, f) in &first {
        let outcome = match suppressed.contains(&(repo.clone(), f.fp.clone())) {
            true => Outcome::Suppressed,
            false => repos.classify(repo.as_deref(), f),
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
    }
}

/// The repositories looked at, and the files read from them, once each.
struct Repos<'a> {
    env: &'a Env,
    git: HashMap<PathBuf, Option<Git>>,
    /// (repo, path) → the file at HEAD and in the working tree, as lines.
    files: HashMap<(PathBuf, String), Versions>,
}

#[derive(Clone)]
struct Versions {
    /// A version could not be read (other than being absent).
    unreadable: bool,
    texts: Vec<Vec<String>>,
}

impl<'a> Repos<'a> {
    fn new(env: &'a Env) -> Self {
        Repos {
            env,
            git: HashMap::new(),
            files: HashMap::new(),
        }
    }

    fn classify(&mut self, repo: Option<&str>, f: &Flagged) -> Outcome {
        let (Some(repo), Some(path), Some([start, end]), Some(hash)) =
            (repo, f.path.as_deref(), f.lines, f.hash.as_deref())
        else {
            return Outcome::Unknown;
        };
        let repo = PathBuf::from(repo);
        if !repo.is_dir() || !safe_path(path) || end < start {
            return Outcome::Unknown;
        }
        let v = self.versions(&repo, path);
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

    fn versions(&mut self, repo: &Path, path: &str) -> Versions {
        let key = (repo.to_path_buf(), path.to_string());
        if let Some(v) = self.files.get(&key) {
            return v.clone();
        }
        let env = self.env;
        let git = self
            .git
            .entry(repo.to_path_buf())
            .or_insert_with(|| Git::open(repo, env, GitOptions::default()).ok());
        let mut v = Versions {
            unreadable: git.is_none(),
            texts: Vec::new(),
        };
        if let Some(git) = git {
            match git.run(&["show", &format!("HEAD:./{path}")], MAX_FILE) {
                Ok(out) if out.success() && !out.overflowed => v.texts.push(lines(&out.stdout)),
                // Not at HEAD (or no HEAD): absent, which says nothing more.
                Ok(out) if !out.overflowed => {}
                _ => v.unreadable = true,
            }
        }
        let limits = crit_os::read::InputLimits {
            max_bytes: MAX_FILE as u64,
        };
        match Root::open(repo).map(|r| r.read(path, limits)) {
            Ok(Ok(bytes)) => v.texts.push(lines(&bytes)),
            Ok(Err(e)) if e.is_not_found() => {}
            _ => v.unreadable = true,
        }
        self.files.insert(key, v.clone());
        v
    }
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
