//! `crit learn`: learnings proposed from the team's feedback on crit's
//! findings. Findings of the same reviewer and rule, in files under the same
//! directory with the same extension, that the team disputed or marked 👎 at
//! least `min` times (and more often than 👍) become one learning: the rule in
//! the team's words (their latest reply that is not aimed at the reviewer),
//! scoped to those files, with the threads it came from.
//!
//! Everything in the feedback log came from a forge and may be hostile: a
//! reply addressed to the reviewer ("ignore previous instructions") is never
//! quoted, hidden characters are made visible, names that are not
//! identifiers and paths that are not plainly the project's are left out of
//! the scope, and only `https://` thread addresses are kept.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crit_core::screen;
use crit_project::learnings::{self, LEARNINGS_FILE, Learning, Learnings, Scope};
use crit_review::session::{Feedback, FeedbackKind, FeedbackOutcome, path_hash, read_feedback};
use serde::Serialize;

use crate::mine::feedback::counted;
use crate::stats::days::Period;

/// The team's words quoted in a learning, at most (characters).
const MAX_WORDS: usize = 300;
/// Threads listed per learning, at most.
const MAX_THREADS: usize = 10;

/// One proposed learning and what it rests on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Proposal {
    pub learning: Learning,
    /// Disputes and 👎 it rests on.
    pub against: usize,
    /// 👍 on the same findings.
    pub for_it: usize,
    /// Replies left unquoted because they addressed the reviewer.
    pub screened: usize,
    /// The replies it rests on that address people, made visible and cut,
    /// oldest first: what a model may word the rule from.
    #[serde(skip)]
    pub replies: Vec<String>,
}

/// Proposals from the feedback in `dir` over `period` about the project whose
/// root hashes to `repo`, skipping learnings `existing` already has.
pub fn propose(
    dir: &Path,
    period: &Period,
    repo: &str,
    min: usize,
    existing: &Learnings,
) -> Vec<Proposal> {
    let (lines, _) = read_feedback(dir);
    let mut groups: BTreeMap<Key, Vec<Feedback>> = BTreeMap::new();
    for f in counted(lines, period, repo) {
        if let Some(k) = key(&f) {
            groups.entry(k).or_default().push(f);
        }
    }
    let known: BTreeSet<&str> = existing.entries.iter().map(|l| l.id.as_str()).collect();
    groups
        .into_iter()
        .filter_map(|(k, events)| proposal(&k, &events, min.max(1)))
        .filter(|p| !known.contains(p.learning.id.as_str()))
        .collect()
}

/// What a learning is about: reviewer, rule, top directory, extension.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    reviewer: Option<String>,
    rule: Option<String>,
    /// `None`: the finding had no usable path.
    place: Option<(String, String)>,
}

/// The event's key, or `None` when a path, rule or reviewer it names is not
/// a plain value, or it names none: dropping the odd field would widen the
/// learning's scope past what the team spoke about (to every finding, with
/// all three dropped), so such an event teaches nothing.
fn key(f: &Feedback) -> Option<Key> {
    let plain = f.path.as_deref().is_none_or(plain_path)
        && (f.reviewer.is_empty() || identifier(&f.reviewer))
        && f.rule.as_deref().is_none_or(identifier);
    let place = f.path.as_deref().map(|p| {
        let top = p.split_once('/').map_or("", |(d, _)| d);
        (top.to_string(), extension(p).to_string())
    });
    let k = Key {
        reviewer: Some(f.reviewer.clone()).filter(|r| !r.is_empty()),
        rule: f.rule.clone(),
        place,
    };
    let scoped = k.reviewer.is_some() || k.rule.is_some() || k.place.is_some();
    (plain && scoped).then_some(k)
}

fn proposal(k: &Key, events: &[Feedback], min: usize) -> Option<Proposal> {
    let against: Vec<&Feedback> = events.iter().filter(|f| is_against(f)).collect();
    let for_it = events
        .iter()
        .filter(|f| f.kind == FeedbackKind::Reaction && f.outcome == FeedbackOutcome::Up)
        .count();
    if against.len() < min || against.len() <= for_it {
        return None;
    }
    let paths: Vec<&str> = against.iter().filter_map(|f| f.path.as_deref()).collect();
    let glob = k.place.as_ref().map(|(_, ext)| glob_of(&paths, ext));
    let (replies, screened) = words(&against);
    let words = replies.last().cloned();
    let learning = Learning {
        id: format!(
            "l-{}",
            path_hash(&format!("{:?}\0{:?}\0{:?}", k.reviewer, k.rule, glob))
        ),
        rule: rule_text(k, glob.as_deref(), against.len(), words.as_deref()),
        scope: Scope {
            paths: glob.into_iter().collect(),
            languages: k
                .place
                .as_ref()
                .and_then(|(_, ext)| learnings::language(&format!("x.{ext}")))
                .map(str::to_string)
                .into_iter()
                .collect(),
            rule: k.rule.clone(),
            reviewer: k.reviewer.clone(),
        },
        threads: threads(&against),
    };
    Some(Proposal {
        learning,
        against: against.len(),
        for_it,
        screened,
        replies: replies.into_iter().rev().take(MAX_THREADS).rev().collect(),
    })
}

/// A dispute (whatever the re-check decided: the team disagreed) or a 👎.
fn is_against(f: &Feedback) -> bool {
    match f.kind {
        FeedbackKind::Dispute => true,
        FeedbackKind::Reaction => f.outcome == FeedbackOutcome::Down,
        FeedbackKind::ResolvedUnchanged | FeedbackKind::Suppression => false,
    }
}

/// The rule for reviewers, in the team's words where they gave some.
fn rule_text(k: &Key, glob: Option<&str>, n: usize, words: Option<&str>) -> String {
    let what = match (&k.rule, &k.reviewer) {
        (Some(r), Some(v)) => format!("Findings of rule `{r}` from the `{v}` reviewer"),
        (Some(r), None) => format!("Findings of rule `{r}`"),
        (None, Some(v)) => format!("Findings from the `{v}` reviewer"),
        (None, None) => "These findings".to_string(),
    };
    let at = glob.map(|g| format!(" in `{g}`")).unwrap_or_default();
    let head = format!("{what}{at} were disputed or marked 👎 {n} times.");
    match words {
        Some(w) => format!("{head} The team: “{w}”"),
        None => format!("{head} The team does not want them reported there without new evidence."),
    }
}

/// The replies that address people, not the reviewer, made visible and
/// cut, oldest first (the last is the team's latest words); and how many
/// replies were left out for addressing it.
fn words(events: &[&Feedback]) -> (Vec<String>, usize) {
    let mut screened = 0;
    let mut chosen = Vec::new();
    let mut by_time: Vec<&&Feedback> = events
        .iter()
        .filter(|f| !f.text.trim().is_empty())
        .collect();
    by_time.sort_by(|a, b| a.ts.cmp(&b.ts));
    for f in by_time {
        let (visible, hidden) = screen::neutralize(&f.text);
        if !hidden.is_empty() || !screen::directives(&visible).is_empty() {
            screened += 1;
            continue;
        }
        let line = crit_core::Printable::line(&visible, crit_core::Dest::Terminal).into_string();
        let mut cut: String = line.chars().take(MAX_WORDS).collect();
        if line.chars().count() > MAX_WORDS {
            cut.push('…');
        }
        chosen.push(cut);
    }
    (chosen, screened)
}

/// `.crit/learnings.yaml` from `before` to `after` as a patch `git apply`
/// takes from the project root; empty when they are the same.
pub fn patch(before: &str, after: &str) -> String {
    if before == after {
        return String::new();
    }
    let (from, mode) = match before.is_empty() {
        true => ("/dev/null".to_string(), "new file mode 100644\n"),
        false => (format!("a/{LEARNINGS_FILE}"), ""),
    };
    let body = similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&from, &format!("b/{LEARNINGS_FILE}"))
        .to_string();
    format!("diff --git a/{LEARNINGS_FILE} b/{LEARNINGS_FILE}\n{mode}{body}")
}

fn threads(events: &[&Feedback]) -> Vec<String> {
    let set: BTreeSet<&str> = events
        .iter()
        .filter_map(|f| f.thread.as_deref())
        .filter(|t| {
            t.starts_with("https://")
                && t.len() <= 500
                && !t
                    .chars()
                    .any(|c| c.is_whitespace() || c.is_control() || c == '"')
        })
        .collect();
    set.into_iter()
        .take(MAX_THREADS)
        .map(str::to_string)
        .collect()
}

/// The paths' deepest common directory, then every file below it with the
/// extension: `src/parse/**/*.rs`.
fn glob_of(paths: &[&str], ext: &str) -> String {
    let dirs: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| {
            let mut c: Vec<&str> = p.split('/').collect();
            c.pop();
            c
        })
        .collect();
    let mut common: Vec<&str> = dirs.first().cloned().unwrap_or_default();
    for d in &dirs[1.min(dirs.len())..] {
        let n = common.iter().zip(d).take_while(|(a, b)| a == b).count();
        common.truncate(n);
    }
    let file = match ext {
        "" => "*".to_string(),
        e => format!("*.{e}"),
    };
    match common.is_empty() {
        true => file,
        false => format!("{}/**/{file}", common.join("/")),
    }
}

fn extension(p: &str) -> &str {
    let name = p.rsplit('/').next().unwrap_or(p);
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext,
        _ => "",
    }
}

/// A path plainly inside the project, with nothing a glob would read as
/// syntax.
fn plain_path(p: &str) -> bool {
    !p.is_empty()
        && p.len() <= 500
        && !p.starts_with('/')
        && !p.split('/').any(|c| c.is_empty() || c == "." || c == "..")
        && p.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '+' | '@'))
}

/// A reviewer or rule name as configurations write them.
fn identifier(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_from_the_common_directory() {
        assert_eq!(
            glob_of(&["src/p/a.rs", "src/p/q/b.rs"], "rs"),
            "src/p/**/*.rs"
        );
        assert_eq!(glob_of(&["src/a.rs", "tools/b.rs"], "rs"), "*.rs");
        assert_eq!(glob_of(&["Makefile"], ""), "*");
        assert_eq!(extension("src/.env"), "");
        assert!(!plain_path("src/[ab].rs"));
        assert!(!plain_path("../x.rs"));
    }

    #[test]
    fn an_event_with_an_odd_or_no_scope_teaches_nothing() {
        let event = |path: Option<&str>, rule: Option<&str>, reviewer: &str| Feedback {
            ts: String::new(),
            kind: FeedbackKind::Dispute,
            outcome: FeedbackOutcome::Kept,
            fingerprint: "0123456789abcdef".into(),
            reviewer: reviewer.into(),
            rule: rule.map(str::to_string),
            severity: "P2".into(),
            path: path.map(str::to_string),
            repo: None,
            forge: None,
            thread: None,
            author: None,
            text: String::new(),
        };
        assert!(key(&event(Some("src/a.rs"), Some("no-eval"), "security")).is_some());
        assert!(
            key(&event(
                Some("src/\u{1b}[2Ja.rs"),
                Some("no-eval"),
                "security"
            ))
            .is_none()
        );
        assert!(key(&event(Some("src/a.rs"), Some("no eval\n"), "security")).is_none());
        assert!(key(&event(Some("src/a.rs"), Some("no-eval"), "sec urity")).is_none());
        assert!(key(&event(None, None, "")).is_none());
    }
}
