//! What people read: the review block (reviewers with status, tokens and cost;
//! warnings; each change attributed to its reviewer; the refined prompt), the
//! coloured diff, and the raw critiques as bullets when the editor fails. The
//! markdown report is in `markdown.rs`.

pub use super::markdown::markdown;

use super::editor::{Applied, Change, Disagreement};
use super::result::{PromptReview, ReviewerState, Status};
use crit_project::config::prompt_review::Mode;

/// How the block is drawn.
#[derive(Debug, Clone, Copy)]
pub struct BlockStyle {
    /// Total width, borders included (at least 40).
    pub width: usize,
    pub color: bool,
}

impl Default for BlockStyle {
    fn default() -> Self {
        BlockStyle {
            width: 72,
            color: false,
        }
    }
}

const GREEN: &str = "32";
const RED: &str = "31";
const YELLOW: &str = "33";
const CYAN: &str = "36";
const BOLD: &str = "1";

fn paint(on: bool, code: &str, text: &str) -> String {
    if on && !text.is_empty() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// `$0.00`, `$0.0042` below a cent, `$1.25` above.
pub fn cost(usd: f64) -> String {
    if usd <= 0.0 {
        "$0.00".into()
    } else if usd < 0.01 {
        format!("${usd:.4}")
    } else {
        format!("${usd:.2}")
    }
}

/// `950 tokens`, `2.8K tokens`, `1.2M tokens`.
pub fn tokens(n: u64) -> String {
    if n < 1_000 {
        format!("{n} tokens")
    } else if n < 1_000_000 {
        format!("{:.1}K tokens", n as f64 / 1_000.0)
    } else {
        format!("{:.1}M tokens", n as f64 / 1_000_000.0)
    }
}

pub(super) fn label_of<'a>(review: &'a PromptReview, name: &'a str) -> &'a str {
    review
        .reviewers
        .iter()
        .find(|r| r.name == name)
        .map_or(name, |r| r.label.as_str())
}

/// One change, as the block lists it: `+ [Security] Added: "…"`.
pub fn change_line(review: &PromptReview, a: &Applied) -> (char, String) {
    let who = label_of(review, &a.proposal.reviewer);
    match &a.change {
        Change::Added { text, .. } => ('+', format!("[{who}] Added: \"{text}\"")),
        Change::Clarified { text, .. } => ('+', format!("[{who}] Clarified: {text}")),
        Change::Replaced { from, to } => ('~', format!("[{who}] Replaced \"{from}\" → \"{to}\"")),
        Change::Removed { text } => ('-', format!("[{who}] Removed: \"{text}\"")),
        Change::Restructured { sections } => (
            '~',
            format!(
                "[{who}] Restructured into sections: {}",
                sections.join(", ")
            ),
        ),
    }
}

/// `[Testing] AddConstraint "x" / [Clarity] RemoveConstraint "x": why`.
pub(super) fn disagreement(review: &PromptReview, d: &Disagreement) -> String {
    format!(
        "[{}] {} \"{}\" / [{}] {} \"{}\": {}",
        label_of(review, &d.first.reviewer),
        d.first.op,
        d.first.value,
        label_of(review, &d.second.reviewer),
        d.second.op,
        d.second.value,
        d.about
    )
}

/// The change without its reviewer, for the editor model.
pub fn change_summary(a: &Applied) -> String {
    match &a.change {
        Change::Added { section, text } => format!("Added under {section}: \"{text}\""),
        Change::Clarified { evidence, text } => format!("Clarified \"{evidence}\": {text}"),
        Change::Replaced { from, to } => format!("Replaced \"{from}\" with \"{to}\""),
        Change::Removed { text } => format!("Removed \"{text}\""),
        Change::Restructured { sections } => {
            format!(
                "Restructured the prompt into sections: {}",
                sections.join(", ")
            )
        }
    }
}

pub(super) fn cost_line(review: &PromptReview) -> String {
    let tok = tokens(review.usage.total());
    if review.cached {
        return format!("Cost: $0.00 (cached review) | {tok}");
    }
    match review.mode {
        Mode::Subscription if review.api_price_usd > 0.0 => format!(
            "Cost: $0.00 (subscription; {} at API prices) | {tok}",
            cost(review.api_price_usd)
        ),
        Mode::Subscription => format!("Cost: $0.00 (subscription) | {tok}"),
        Mode::Api => format!("Cost: {} | {tok}", cost(review.cost_usd)),
    }
}

/// Lines of the block's body: (plain text, painted text, continuation indent).
struct Body {
    lines: Vec<(String, String, usize)>,
}

impl Body {
    fn blank(&mut self) {
        self.lines.push((String::new(), String::new(), 0));
    }
    fn text(&mut self, plain: String, painted: String, indent: usize) {
        self.lines.push((plain, painted, indent));
    }
    fn plain(&mut self, text: impl Into<String>, indent: usize) {
        let t = text.into();
        self.lines.push((t.clone(), t, indent));
    }
}

/// The review block.
pub fn block(review: &PromptReview, style: &BlockStyle) -> String {
    let width = style.width.max(40);
    let inner = width - 4;
    let c = style.color;
    let mut b = Body { lines: Vec::new() };
    b.blank();
    reviewer_lines(&mut b, review, c);
    b.plain(cost_line(review), 0);
    if !review.warnings.is_empty() {
        b.blank();
        for w in &review.warnings {
            let plain = format!("! {w}");
            b.text(plain.clone(), paint(c, YELLOW, &plain), 2);
        }
    }
    if !review.disagreements.is_empty() {
        section(
            &mut b,
            &format!("Reviewer disagreement ({})", review.disagreements.len()),
            inner,
            c,
        );
        for d in &review.disagreements {
            b.plain(
                format!("REVIEWER DISAGREEMENT: {}", disagreement(review, d)),
                2,
            );
        }
    }
    outcome_sections(&mut b, review, inner, c);
    b.blank();
    frame(&b, width, c)
}

/// One line per reviewer asked: its state, and its tokens, cost and time
/// (or why it gave no answer).
fn reviewer_lines(b: &mut Body, review: &PromptReview, c: bool) {
    let asked: Vec<_> = review
        .reviewers
        .iter()
        .filter(|r| r.state != ReviewerState::NotRun)
        .collect();
    if asked.is_empty() {
        return;
    }
    b.plain("Reviewers:", 0);
    let name_w = asked
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(0);
    for r in &asked {
        let word = r.state.word();
        let color = match r.state {
            ReviewerState::Ok | ReviewerState::NoIssues => GREEN,
            ReviewerState::Skipped => YELLOW,
            _ => RED,
        };
        let detail = if r.state.unavailable() {
            format!("  {}", r.why)
        } else {
            format!(
                "  {}  {}  {:.1}s",
                tokens(r.usage.total()),
                cost(r.cost_usd),
                r.duration_ms as f64 / 1000.0
            )
        };
        let pad = " ".repeat(name_w - r.label.chars().count());
        let head = format!("  {}{pad}  ", r.label);
        let plain = format!("{head}{word:<9}{detail}");
        let painted = format!(
            "{head}{}{}{detail}",
            paint(c, color, word),
            " ".repeat(9usize.saturating_sub(word.len()))
        );
        b.text(plain, painted, head.chars().count() + 2);
    }
}

/// What became of the prompt: the changes and the refined prompt, no
/// changes, or the raw critiques when the editor gave up.
fn outcome_sections(b: &mut Body, review: &PromptReview, inner: usize, c: bool) {
    match review.status {
        Status::Refined => {
            section(b, &format!("Changes ({})", review.changes.len()), inner, c);
            for a in &review.changes {
                let (mark, text) = change_line(review, a);
                let color = match mark {
                    '+' => GREEN,
                    '-' => RED,
                    _ => YELLOW,
                };
                let plain = format!("{mark} {text}");
                let painted = format!("{} {text}", paint(c, color, &mark.to_string()));
                b.text(plain, painted, 2);
                b.blank();
            }
            b.lines.pop();
            section(b, "Refined Prompt", inner, c);
            for line in review.refined.trim_end().split('\n') {
                b.plain(line.trim_end(), hanging_indent(line).min(inner / 2));
            }
        }
        Status::NoChanges => {
            section(b, "No changes", inner, c);
            b.plain(review.no_changes_sentence(), 0);
        }
        Status::EditorFailed => {
            section(b, "Raw critiques", inner, c);
            for line in review.raw_critiques.as_deref().unwrap_or("").split('\n') {
                let indent = line.len() - line.trim_start().len();
                b.plain(line, indent + 2);
            }
        }
        Status::FailedOpen | Status::Disabled => {}
    }
}

/// Where a wrapped line continues: under the text of a list item.
fn hanging_indent(line: &str) -> usize {
    let lead = line.len() - line.trim_start().len();
    let t = line.trim_start();
    let marker = if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") {
        2
    } else {
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && t[digits..].starts_with(". ") {
            digits + 2
        } else {
            0
        }
    };
    lead + marker
}

fn section(b: &mut Body, title: &str, inner: usize, color: bool) {
    b.blank();
    let head = format!("-- {title} ");
    let rule = "-".repeat(inner.saturating_sub(head.chars().count()));
    let plain = format!("{head}{rule}");
    b.text(plain, format!("{}{rule}", paint(color, BOLD, &head)), 0);
    b.blank();
}

fn frame(b: &Body, width: usize, color: bool) -> String {
    let inner = width - 4;
    let title = "+-- Prompt Review ";
    let mut out = format!(
        "{}{}+\n",
        paint(color, CYAN, title),
        paint(color, CYAN, &"-".repeat(width - 1 - title.len()))
    );
    let bar = paint(color, CYAN, "|");
    for (plain, painted, indent) in &b.lines {
        let wrapped = wrap(plain, inner, *indent);
        for (i, part) in wrapped.iter().enumerate() {
            let shown = if i == 0 && wrapped.len() == 1 {
                painted.as_str()
            } else {
                part.as_str()
            };
            let pad = inner.saturating_sub(part.chars().count());
            out.push_str(&format!("{bar} {shown}{} {bar}\n", " ".repeat(pad)));
        }
    }
    out.push_str(&paint(color, CYAN, &format!("+{}+", "-".repeat(width - 2))));
    out.push('\n');
    out
}

/// Word-wraps `text` to `width` characters; continuation lines are indented
/// by `indent`. Words longer than a line are split. A line break in `text`
/// (a multi-line message) starts a continuation line of its own, so no line
/// leaves the box.
fn wrap(text: &str, width: usize, indent: usize) -> Vec<String> {
    if text.contains('\n') {
        let pad = " ".repeat(indent.min(width / 2));
        return text
            .split('\n')
            .enumerate()
            .flat_map(|(i, piece)| {
                let piece = piece.trim_end_matches('\r');
                match i {
                    0 => wrap(piece, width, indent),
                    _ => wrap(&format!("{pad}{piece}"), width, indent),
                }
            })
            .collect();
    }
    if text.chars().count() <= width {
        return vec![text.to_string()];
    }
    let lead: String = text.chars().take_while(|c| *c == ' ').collect();
    let pad = " ".repeat(indent.min(width / 2));
    let mut lines = Vec::new();
    let mut line = lead.clone();
    for word in text.trim_start().split(' ') {
        let mut word = word.to_string();
        loop {
            let room = width.saturating_sub(line.chars().count());
            let sep = usize::from(line.chars().any(|c| c != ' '));
            if word.chars().count() + sep <= room {
                if sep == 1 {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if line.trim().is_empty() {
                // A word longer than a whole line: split it.
                let head: String = word.chars().take(room.max(1)).collect();
                word = word.chars().skip(room.max(1)).collect();
                line.push_str(&head);
            }
            lines.push(std::mem::replace(&mut line, pad.clone()));
            if word.is_empty() {
                break;
            }
        }
    }
    if line.chars().any(|c| c != ' ') {
        lines.push(line);
    }
    lines
}

/// The unified diff with `+` lines green, `-` red and hunk headers cyan.
pub fn colored_diff(diff: &str, color: bool) -> String {
    if !color {
        return diff.to_string();
    }
    diff.split_inclusive('\n')
        .map(|l| {
            let (body, nl) = l.strip_suffix('\n').map_or((l, ""), |b| (b, "\n"));
            let code = if body.starts_with("+++") || body.starts_with("---") {
                BOLD
            } else if body.starts_with('+') {
                GREEN
            } else if body.starts_with('-') {
                RED
            } else if body.starts_with("@@") {
                CYAN
            } else {
                return l.to_string();
            };
            format!("{}{nl}", paint(true, code, body))
        })
        .collect()
}

/// The critiques as bullets (the editor failed, or for a report).
pub fn critique_bullets(review: &PromptReview) -> String {
    let mut out = Vec::new();
    for c in &review.critiques {
        let who = label_of(review, &c.reviewer);
        for f in &c.critique.findings {
            out.push(format!("- [{who}] {} ({}): {}", f.id, f.severity, f.issue));
            if !f.evidence.is_empty() {
                out.push(format!("  Evidence: \"{}\"", f.evidence));
            }
            for op in &f.suggested_ops {
                out.push(format!(
                    "  - {} ({}): {}",
                    op.op,
                    op.target.as_str(),
                    op.value
                ));
            }
        }
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_and_tokens() {
        assert_eq!(cost(0.0), "$0.00");
        assert_eq!(cost(0.00421), "$0.0042");
        assert_eq!(cost(0.04), "$0.04");
        assert_eq!(cost(1.254), "$1.25");
        assert_eq!(tokens(950), "950 tokens");
        assert_eq!(tokens(2_840), "2.8K tokens");
        assert_eq!(tokens(1_250_000), "1.2M tokens");
    }

    #[test]
    fn wrapping() {
        assert_eq!(wrap("short", 10, 2), ["short"]);
        assert_eq!(
            wrap("+ one two three four", 10, 2),
            ["+ one two", "  three", "  four"]
        );
        assert_eq!(wrap("abcdefghijkl", 5, 0), ["abcde", "fghij", "kl"]);
        for w in [1, 3, 7] {
            for line in wrap("aaa bbbbbbbbbbbbbb c dd", w + 3, 1) {
                assert!(line.chars().count() <= w + 3, "{line:?}");
            }
        }
    }

    #[test]
    fn diff_colours() {
        let d = "--- original\n+++ refined\n@@ -1 +1 @@\n-a\n+b\n c\n";
        assert_eq!(colored_diff(d, false), d);
        let c = colored_diff(d, true);
        assert!(
            c.contains("\x1b[31m-a\x1b[0m\n") && c.contains("\x1b[32m+b\x1b[0m\n"),
            "{c:?}"
        );
        assert!(c.ends_with(" c\n"));
    }
}
