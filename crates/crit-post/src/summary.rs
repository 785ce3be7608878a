//! The one summary comment, edited in place on every run: the verdict,
//! counts by severity, what is inline and what is not (with the findings
//! that are not on a line in full), coverage, cost, what was dismissed and
//! why, and what was resolved. Held under the forges' comment size limit.

use std::fmt::Write as _;

use crit_core::{Finding, ReviewResult, Verdict};

use crate::comment::{headline, short_sha};
use crate::inert;
use crate::marker::{Markers, Recorded};
use crate::plan::Elsewhere;
use crate::since::Since;

/// GitHub takes 65,536 characters in a comment; room is left for the end.
const BUDGET: usize = 60_000;

/// What the summary reports besides the result.
pub(crate) struct Outcome<'a> {
    pub head: Option<&'a str>,
    /// The account posting it, recorded in the marker for later runs.
    pub by: Option<&'a str>,
    pub new_inline: usize,
    pub kept_inline: usize,
    pub elsewhere: &'a [(&'a Finding, Elsewhere)],
    pub resolved: usize,
    pub notes: &'a [String],
}

pub(crate) fn body(markers: &Markers, result: &ReviewResult, o: &Outcome<'_>) -> String {
    let since = Since::of(result);
    let recorded = Recorded {
        by: o.by.map(str::to_string),
        head: o.head.map(str::to_string),
        from: since.as_ref().and_then(Since::from).map(str::to_string),
    };
    let mut out = format!("{}\n{}\n\n", markers.summary_with(&recorded), title(result));
    if !result.summary.trim().is_empty() {
        for line in inert::block(result.summary.trim()).split('\n') {
            let _ = writeln!(out, "> {line}");
        }
        out.push('\n');
    }
    if let Some(err) = &result.parse_error {
        let _ = write!(
            out,
            "**The review did not complete:** {}\n\n",
            inert::line(err)
        );
    }
    if let Some(since) = &since {
        let _ = writeln!(out, "{}  ", since.describe(o.head));
    }
    let _ = writeln!(out, "{}  ", counts(result));
    let inline = o.new_inline + o.kept_inline;
    let _ = writeln!(
        out,
        "**Inline:** {inline} comment(s) on the diff ({} new) · **Below:** {}  ",
        o.new_inline,
        o.elsewhere.len()
    );
    if let Some(c) = &result.coverage {
        let _ = writeln!(out, "**Coverage:** {}  ", inert::line(&c.describe()));
    }
    let _ = writeln!(out, "**Cost:** {}", cost(result));
    out.push('\n');
    let mut rest = String::new();
    if !o.elsewhere.is_empty() {
        // The dismissed findings keep a quarter of what is left.
        let room = BUDGET.saturating_sub(out.len());
        let room = if result.dismissed.is_empty() {
            room
        } else {
            room / 4 * 3
        };
        elsewhere(&mut rest, o.elsewhere, room);
    }
    if !result.dismissed.is_empty() {
        let room = BUDGET.saturating_sub(out.len() + rest.len());
        dismissed(&mut rest, result, room);
    }
    out.push_str(&rest);
    if o.resolved > 0 {
        let _ = write!(
            out,
            "**Resolved since the last run:** {} comment(s) whose finding crit no longer reports.\n\n",
            o.resolved
        );
    }
    for note in o.notes {
        let _ = write!(out, "_{}_\n\n", inert::line(note));
    }
    let head = o
        .head
        .map(|h| format!(" · {}", inert::code(&short_sha(h))))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "<sub>crit {}{head} · this comment is updated on every run</sub>",
        env!("CARGO_PKG_VERSION")
    );
    out
}

/// The note for earlier comments a run left open (none for zero).
pub(crate) fn left_open_note(n: usize, result: &ReviewResult) -> Vec<String> {
    let why = match crate::since::only_newer(result) {
        true => "it reviewed only the commits pushed since the last review",
        false => "it did not finish, did not see all of their file, or cut them at a cap",
    };
    match n {
        0 => Vec::new(),
        n => vec![format!(
            "{n} earlier comment(s) stay open: this run did not report their findings, but {why}, so it cannot say they are fixed."
        )],
    }
}

fn title(r: &ReviewResult) -> String {
    let mark = match r.verdict {
        Verdict::Pass => "✅",
        Verdict::Concerns => "⚠️",
        _ => "❌",
    };
    format!("### {mark} crit {}: {}", inert::line(&r.review), r.verdict)
}

fn counts(r: &ReviewResult) -> String {
    let by: Vec<String> = r
        .severity_counts()
        .iter()
        .map(|(s, n)| format!("{n} {}", s.code()))
        .collect();
    let gate = if r.passed {
        "gate passed"
    } else {
        "gate not passed"
    };
    match by.is_empty() {
        true => format!("**Findings:** none · {gate}"),
        false => format!(
            "**Findings:** {} ({}) · {gate}",
            r.findings.len(),
            by.join(" · ")
        ),
    }
}

fn cost(r: &ReviewResult) -> String {
    let mut parts = vec![match r.cost_usd {
        Some(c) => format!("${c:.4}"),
        None => "unknown (a model without a known price)".to_string(),
    }];
    if !r.usage.is_zero() {
        parts.push(format!("{} tokens", r.usage.total()));
    }
    if r.duration_ms > 0 {
        parts.push(format!("{:.1}s", r.duration_ms as f64 / 1000.0));
    }
    parts.join(" · ")
}

/// The findings not on a line: a table, then each in full (collapsed),
/// as many as fit in `room`.
fn elsewhere(out: &mut String, list: &[(&Finding, Elsewhere)], room: usize) {
    let mut table = format!(
        "#### Not on a line of the diff ({})\n\n| Severity | Where | Finding | Why here |\n| --- | --- | --- | --- |\n",
        list.len()
    );
    let mut details = String::from("<details>\n<summary>These findings in full</summary>\n\n");
    let mut shown = 0;
    for (f, why) in list {
        let row = format!(
            "| {} | {} | {} | {} |\n",
            f.severity.code(),
            f.location
                .as_ref()
                .map(|l| inert::code(&l.display()).replace('|', "\\|"))
                .unwrap_or_default(),
            inert::cell(f.display_title()),
            why.reason()
        );
        let full = in_full(f);
        if table.len() + details.len() + row.len() + full.len() + 200 > room {
            break;
        }
        table.push_str(&row);
        details.push_str(&full);
        shown += 1;
    }
    if shown < list.len() {
        let _ = writeln!(
            table,
            "\n_…and {} more; every finding is in the review's result._",
            list.len() - shown
        );
    }
    details.push_str("</details>\n\n");
    out.push_str(&table);
    out.push('\n');
    if shown > 0 {
        out.push_str(&details);
    }
}

fn in_full(f: &Finding) -> String {
    let mut s = format!("{}\n\n", headline(f));
    if let Some(loc) = &f.location {
        let _ = write!(s, "{} · ", inert::code(&loc.display()));
    }
    let _ = write!(s, "{}\n\n", inert::line(&f.reviewer));
    let body: String = f.body.trim().chars().take(4_000).collect();
    if !body.is_empty() {
        let _ = write!(s, "{}\n\n", inert::block(&body));
    }
    if let Some(text) = crit_core::suggestion::replacement(f) {
        let fence = crit_core::suggestion::fence(&text);
        let _ = write!(
            s,
            "Suggested replacement:\n\n{fence}text\n{text}\n{fence}\n\n"
        );
    }
    s
}

fn dismissed(out: &mut String, r: &ReviewResult, room: usize) {
    let mut s = format!(
        "<details>\n<summary>Dismissed: {} finding(s) crit did not count, and why</summary>\n\n| Finding | Where | Cause | Why |\n| --- | --- | --- | --- |\n",
        r.dismissed.len()
    );
    let mut shown = 0;
    for d in &r.dismissed {
        let row = format!(
            "| {} | {} | {} | {} |\n",
            inert::cell(d.finding.display_title()),
            d.finding
                .location
                .as_ref()
                .map(|l| inert::code(&l.display()).replace('|', "\\|"))
                .unwrap_or_default(),
            inert::cell(&d.cause),
            inert::cell(&d.reason)
        );
        if s.len() + row.len() + 100 > room {
            break;
        }
        s.push_str(&row);
        shown += 1;
    }
    if shown < r.dismissed.len() {
        let _ = writeln!(
            s,
            "\n_…and {} more in the review's result._",
            r.dismissed.len() - shown
        );
    }
    s.push_str("\n</details>\n\n");
    out.push_str(&s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::{Dismissed, Location, Severity};

    fn result() -> ReviewResult {
        let mut r = ReviewResult::new("code", Verdict::Fail);
        r.summary = "Two problems.\n</details><!-- crit:summary -->".into();
        r.findings = vec![
            Finding::new("Leak", Severity::P1, "correctness")
                .with_location(Location::lines("a.rs", 9, 9)),
            Finding::new("Style", Severity::P3, "style"),
        ];
        r.dismissed = vec![Dismissed {
            finding: Finding::new("Wrong | claim", Severity::P2, "x"),
            cause: "not_confirmed".into(),
            reason: "the verifier found the check".into(),
            proof: String::new(),
        }];
        r.cost_usd = Some(0.25);
        r
    }

    #[test]
    fn the_summary_says_everything_once() {
        let r = result();
        let elsewhere = vec![(&r.findings[0], Elsewhere::NotInDiff)];
        let notes = vec!["Review threads were not resolved.".to_string()];
        let o = Outcome {
            head: Some("abcdef0123456789"),
            by: None,
            new_inline: 1,
            kept_inline: 2,
            elsewhere: &elsewhere,
            resolved: 1,
            notes: &notes,
        };
        let b = body(&Markers::default(), &r, &o);
        assert!(b.starts_with("<!-- crit:summary -->\n### ❌ crit code: FAIL\n\n> Two problems.\n> &lt;/details&gt;&lt;!-- crit:summary --&gt;\n"), "{b}");
        assert_eq!(b.matches("<!-- crit:summary -->").count(), 1);
        assert!(b.contains("**Findings:** 2 (1 P1 · 1 P3) · gate not passed"));
        assert!(b.contains("**Inline:** 3 comment(s) on the diff (1 new) · **Below:** 1"));
        assert!(b.contains("| P1 | `a.rs:9` | Leak | not on a line of the diff |"));
        assert!(
            b.contains("| Wrong \\| claim |  | not_confirmed | the verifier found the check |")
        );
        assert!(b.contains("**Cost:** $0.2500"));
        assert!(b.contains("**Resolved since the last run:** 1"));
        assert!(b.contains("_Review threads were not resolved._"));
        assert!(b.contains("· `abcdef012345` ·"));
        assert_eq!(
            b.matches("<details>").count(),
            b.matches("</details>").count()
        );
    }

    #[test]
    fn a_huge_review_stays_under_the_limit() {
        let mut r = result();
        r.findings = (0..3000)
            .map(|i| {
                Finding::new(format!("Finding {i}"), Severity::P2, "r")
                    .with_body("x".repeat(3000))
                    .with_location(Location::lines(format!("f{i}.rs"), 1, 1))
            })
            .collect();
        r.dismissed = (0..3000).map(|_| r.dismissed[0].clone()).collect();
        let elsewhere: Vec<(&Finding, Elsewhere)> = r
            .findings
            .iter()
            .map(|f| (f, Elsewhere::NotInDiff))
            .collect();
        let o = Outcome {
            head: None,
            by: None,
            new_inline: 0,
            kept_inline: 0,
            elsewhere: &elsewhere,
            resolved: 0,
            notes: &[],
        };
        let b = body(&Markers::default(), &r, &o);
        assert!(b.chars().count() < 65_536, "{}", b.len());
        assert!(b.contains("more; every finding is in the review's result"));
        assert!(b.contains("more in the review's result"));
        assert_eq!(
            b.matches("<details>").count(),
            b.matches("</details>").count()
        );
    }
}
