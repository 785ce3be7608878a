//! GitLab Code Quality: a JSON array of Code Climate issues, which GitLab shows
//! in the merge request when a job declares it as
//! `artifacts: reports: codequality`.
//!
//! GitLab reads `description`, `check_name`, `fingerprint` (unique within the
//! report), `severity` (`info`, `minor`, `major`, `critical`, `blocker`) and
//! `location.path` with `location.lines.begin`. The fingerprint is crit's own,
//! so an issue keeps its identity across pipelines; a second finding with the
//! same fingerprint (the same problem at another line) gets `-2`, `-3`, …
//! A finding with no file, or a review that did not complete, points at the
//! repository root (`.`, line 1): GitLab needs a path, and an incomplete review
//! must not look like a clean one.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{RenderOptions, markdown, plain, plain_line};
use crate::{Finding, ReviewResult, Severity};

pub(super) fn render(result: &ReviewResult, options: &RenderOptions) -> String {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut issues: Vec<Value> = result
        .sorted_findings()
        .into_iter()
        .map(|f| {
            let n = seen.entry(f.id.clone()).or_insert(0);
            *n += 1;
            let fingerprint = match *n {
                1 => f.id.clone(),
                n => format!("{}-{n}", f.id),
            };
            issue(f, fingerprint, options)
        })
        .collect();
    if let Some(err) = &result.parse_error {
        issues.push(json!({
            "type": "issue",
            "engine_name": options.tool_name,
            "check_name": format!("{}/incomplete", options.tool_name),
            "description": plain_line(&format!("{} {}: {}: the review did not complete: {err}", options.tool_name, result.review, result.verdict)),
            "categories": ["Bug Risk"],
            "severity": "blocker",
            "fingerprint": crate::fingerprint::of(&format!("incomplete {}", result.review), None, Some("crit/incomplete")),
            "location": {"path": ".", "lines": {"begin": 1}},
        }));
    }
    super::pretty(&Value::Array(issues))
}

fn issue(f: &Finding, fingerprint: String, options: &RenderOptions) -> Value {
    let check = plain_line(
        &f.rule_id
            .clone()
            .unwrap_or_else(|| match f.reviewer.as_str() {
                "" => options.tool_name.clone(),
                r => format!("{}/{r}", options.tool_name),
            }),
    );
    let (path, begin, end) = match &f.location {
        Some(loc) => {
            let begin = loc.start_line().unwrap_or(1).max(1);
            let end = loc.end_line().unwrap_or(begin).max(begin);
            (plain(loc.path().trim_start_matches("./")), begin, end)
        }
        None => (".".to_string(), 1, 1),
    };
    let mut issue = json!({
        "type": "issue",
        "engine_name": options.tool_name,
        "check_name": check,
        "description": plain_line(&format!("{} {}", f.severity.code(), f.display_title())),
        "categories": [category(f)],
        "severity": severity(f.severity),
        "fingerprint": fingerprint,
        "location": {"path": path, "lines": {"begin": begin, "end": end}},
    });
    if !f.body.trim().is_empty() {
        issue["content"] = json!({"body": markdown(f.body.trim())});
    }
    issue
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::P0 => "blocker",
        Severity::P1 => "critical",
        Severity::P2 => "major",
        Severity::P3 => "minor",
        Severity::Info => "info",
    }
}

/// One of Code Climate's categories, from words in the rule or reviewer name;
/// "Bug Risk" when none says otherwise.
fn category(f: &Finding) -> &'static str {
    let name =
        format!("{} {}", f.rule_id.as_deref().unwrap_or(""), f.reviewer).to_ascii_lowercase();
    const WORDS: [(&str, &str); 5] = [
        ("security", "Security"),
        ("perf", "Performance"),
        ("style", "Style"),
        ("complex", "Complexity"),
        ("duplic", "Duplication"),
    ];
    WORDS
        .iter()
        .find(|(w, _)| name.contains(w))
        .map_or("Bug Risk", |(_, c)| c)
}
