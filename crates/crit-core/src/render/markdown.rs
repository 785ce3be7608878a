//! A pull-request comment: verdict, summary, a table of findings, then details.
//! Every text a model or the repository wrote is a Markdown [`Printable`]: it
//! reads as written and cannot close crit's `<details>`, fake its heading or
//! verdict, hide the footer, show an image or mention anyone. Suggestions are
//! fenced with a fence nothing inside can close.

use std::fmt::Write as _;

use crate::printable::{Dest, Printable};
use crate::{Finding, ReviewResult, Verdict};

pub(super) fn render(result: &ReviewResult) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "## {} crit {}: {}\n",
        badge(result.verdict),
        inline(&result.review),
        result.verdict
    );
    if !result.summary.trim().is_empty() {
        for line in text(result.summary.trim()).as_str().lines() {
            let _ = writeln!(out, "> {line}");
        }
        out.push('\n');
    }
    if let Some(err) = &result.parse_error {
        let _ = writeln!(out, "**The review did not complete:** {}\n", inline(err));
    }
    let findings = result.sorted_findings();
    if findings.is_empty() {
        out.push_str("No findings.\n");
    } else {
        out.push_str("| Severity | Location | Finding |\n| --- | --- | --- |\n");
        for f in &findings {
            let loc = f
                .location
                .as_ref()
                .map(|l| code(&l.display()).into_string())
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                f.severity.code(),
                loc,
                inline(f.display_title())
            );
        }
        out.push_str("\n<details>\n<summary>Details</summary>\n\n");
        for f in &findings {
            let _ = writeln!(
                out,
                "### {} {}\n",
                f.severity.code(),
                inline(f.display_title())
            );
            if let Some(l) = &f.location {
                let _ = writeln!(out, "{}", code(&l.display()));
            }
            let _ = writeln!(out, "*{} · {}*\n", f.severity.label(), inline(&f.reviewer));
            if !f.body.trim().is_empty() {
                let _ = writeln!(out, "{}\n", text(f.body.trim()));
            }
            if let Some(diff) = suggestion_diff(f) {
                // Printed to a CI log too: the printable block, not the
                // committable one crit-post writes into pull requests.
                let what = match crate::suggestion::replacement(f).as_deref() {
                    Some("") => "Suggested change (delete the lines):",
                    _ => "Suggested change:",
                };
                let _ = writeln!(out, "{what}\n\n{}\n", Printable::code_block(&diff, "diff"));
            }
        }
        out.push_str("</details>\n");
    }
    let mut footer = vec![format!("{} finding(s)", findings.len())];
    if !result.usage.is_zero() {
        footer.push(format!("{} tokens", result.usage.total()));
    }
    match result.cost_usd {
        Some(c) if c > 0.0 => footer.push(format!("${c:.4}")),
        None => footer.push("cost unknown".into()),
        _ => {}
    }
    if let Some(saved) = result.cache_saved_usd() {
        footer.push(format!("${saved:.4} saved by the hunk cache"));
    }
    footer.push(if result.passed {
        "gate passed".into()
    } else {
        "gate not passed".into()
    });
    let _ = writeln!(out, "\n<sub>{}</sub>", footer.join(" · "));
    out
}

fn badge(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "✅",
        Verdict::Concerns => "⚠️",
        Verdict::Fail => "❌",
        Verdict::Incomplete => "⏸️",
        Verdict::Unknown => "❓",
        Verdict::Error => "💥",
    }
}

/// Model or repository text on one line, safe in a heading or a table cell
/// (pipes are escaped).
fn inline(s: &str) -> Printable {
    Printable::line(s, Dest::Markdown)
}

/// A path or location as inline code; escaped text instead when it holds
/// anything a code span would not keep inert.
fn code(s: &str) -> Printable {
    inline(&format!(
        "`{}`",
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    ))
}

/// Model or repository text of several lines.
fn text(s: &str) -> Printable {
    Printable::new(s, Dest::Markdown)
}

/// The suggestion as diff lines: the lines it replaces, when crit read them,
/// then the new ones.
fn suggestion_diff(f: &Finding) -> Option<String> {
    let new = crate::suggestion::replacement(f)?;
    let mut lines: Vec<String> = Vec::new();
    if let Some(old) = &f.suggestion_replaces {
        lines.extend(old.split('\n').map(|l| format!("-{l}")));
    }
    if !new.is_empty() {
        lines.extend(new.split('\n').map(|l| format!("+{l}")));
    }
    Some(lines.join("\n"))
}
