//! The review as a markdown report (`--format markdown`).

use super::render::{change_line, cost, cost_line, disagreement, tokens};
use super::result::{PromptReview, ReviewerState, Status};

/// A fence longer than any run of backticks in `text`.
fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

/// The review as a markdown report.
pub fn markdown(review: &PromptReview) -> String {
    let mut out = String::from("## Prompt review\n\n");
    if let Some(src) = &review.source {
        out.push_str(&format!("Prompt: `{src}`\n\n"));
    }
    let asked: Vec<_> = review
        .reviewers
        .iter()
        .filter(|r| r.state != ReviewerState::NotRun)
        .collect();
    if !asked.is_empty() {
        out.push_str(
            "| Reviewer | Status | Findings | Tokens | Cost | Time |\n|---|---|---|---|---|---|\n",
        );
        for r in asked {
            let status = if r.state.unavailable() {
                format!("{}: {}", r.state.word(), r.why.replace('|', "\\|"))
            } else {
                r.state.word().to_string()
            };
            out.push_str(&format!(
                "| {} | {status} | {} | {} | {} | {:.1}s |\n",
                r.label,
                r.findings,
                tokens(r.usage.total()),
                cost(r.cost_usd),
                r.duration_ms as f64 / 1000.0
            ));
        }
        out.push('\n');
    }
    out.push_str(&format!("{}\n\n", cost_line(review)));
    for w in &review.warnings {
        out.push_str(&format!("> **Warning:** {w}\n"));
    }
    if !review.warnings.is_empty() {
        out.push('\n');
    }
    if !review.disagreements.is_empty() {
        out.push_str("### Reviewer disagreements\n\n");
        for d in &review.disagreements {
            out.push_str(&format!(
                "- **REVIEWER DISAGREEMENT:** {}\n",
                disagreement(review, d)
            ));
        }
        out.push('\n');
    }
    match review.status {
        Status::Refined => {
            out.push_str(&format!("### Changes ({})\n\n", review.changes.len()));
            for a in &review.changes {
                let (mark, text) = change_line(review, a);
                out.push_str(&format!("- `{mark}` {text}\n"));
            }
            let f = fence(&review.diff);
            out.push_str(&format!("\n### Diff\n\n{f}diff\n{}{f}\n", review.diff));
            let f = fence(&review.refined);
            out.push_str(&format!(
                "\n### Refined prompt\n\n{f}text\n{}\n{f}\n",
                review.refined.trim_end()
            ));
        }
        Status::NoChanges => {
            out.push_str("No changes. ");
            out.push_str(&review.no_changes_sentence());
            out.push('\n');
        }
        Status::EditorFailed => {
            out.push_str("### Raw critiques\n\n");
            out.push_str(review.raw_critiques.as_deref().unwrap_or(""));
            out.push('\n');
        }
        Status::FailedOpen | Status::Disabled => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_the_text() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("has ```` four"), "`````");
    }
}
