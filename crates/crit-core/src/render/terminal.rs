//! The terminal report: findings grouped by file, colored by severity, and one
//! summary line. Colors only when asked (the caller resolves `--color` and
//! `NO_COLOR`). Every text that came from a model or a file is a
//! [`Printable`] for the terminal first (titles, paths and names on one line):
//! crit's colours are the only escape sequences printed, and no line can start
//! a CI workflow command.

use std::fmt::Write as _;

use anstyle::{AnsiColor, Style};

use super::RenderOptions;
use crate::printable::{Dest, Printable};
use crate::{Finding, ReviewResult, Severity, Verdict};

/// Several lines of model or repository text, for the terminal.
fn text(s: &str) -> Printable {
    Printable::new(s, Dest::Terminal)
}

/// A title, path or name: one line.
fn line(s: &str) -> Printable {
    Printable::line(s, Dest::Terminal)
}

pub(super) fn render(result: &ReviewResult, options: &RenderOptions) -> String {
    let p = Painter { on: options.color };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {}",
        p.paint(verdict_style(result.verdict), result.verdict.as_str()),
        p.paint(dim(), &format!("crit {}", line(&result.review)))
    );
    if !result.summary.trim().is_empty() {
        out.push('\n');
        for l in text(result.summary.trim()).as_str().lines() {
            let _ = writeln!(out, "  {l}");
        }
    }
    if let Some(err) = &result.parse_error {
        let _ = writeln!(
            out,
            "\n  {} {}",
            p.paint(bold(AnsiColor::Red), "error:"),
            line(err)
        );
    }
    for (path, findings) in grouped(result) {
        let _ = writeln!(
            out,
            "\n{}",
            p.paint(
                Style::new().bold().underline(),
                line(path.unwrap_or("(general)")).as_str()
            )
        );
        for f in findings {
            write_finding(&mut out, f, &p);
        }
    }
    if let Some(c) = &result.coverage {
        write_coverage(&mut out, c, &p);
    }
    out.push('\n');
    out.push_str(&summary_line(result, &p));
    out.push('\n');
    out
}

/// What the reviewers saw, and every gap by file: nothing is left out
/// without a word.
fn write_coverage(out: &mut String, c: &crate::Coverage, p: &Painter) {
    let _ = writeln!(
        out,
        "\n{} {}",
        p.paint(Style::new().bold(), "coverage:"),
        line(&c.describe())
    );
    for l in &c.left_out {
        let style = if l.cause.is_gap() {
            bold(AnsiColor::Red)
        } else {
            dim()
        };
        let _ = writeln!(
            out,
            "  {} {}: {}",
            p.paint(style, "left out"),
            line(&l.path),
            line(&l.reason)
        );
    }
}

fn write_finding(out: &mut String, f: &Finding, p: &Painter) {
    let lines = match f.location.as_ref().and_then(|l| l.start_line()) {
        Some(s) => match f.location.as_ref().and_then(|l| l.end_line()) {
            Some(e) if e > s => format!("{s}-{e}"),
            _ => s.to_string(),
        },
        None => String::new(),
    };
    let tag = format!("{:<4}", f.severity.code());
    let _ = writeln!(
        out,
        "  {} {:>7}  {}",
        p.paint(severity_style(f.severity), &tag),
        p.paint(dim(), &lines),
        p.paint(Style::new().bold(), line(f.display_title()).as_str())
    );
    for l in text(f.body.trim()).as_str().lines() {
        let _ = writeln!(out, "               {l}");
    }
    write_suggestion(out, f, p);
    let mut meta = vec![f.severity.label().to_string()];
    if !f.reviewer.is_empty() {
        meta.push(f.reviewer.clone());
    }
    if let Some(rule) = &f.rule_id {
        meta.push(rule.clone());
    }
    if f.in_change == Some(false) {
        meta.push("outside the change".to_string());
    }
    if f.cached {
        meta.push("from an earlier review".to_string());
    }
    if !f.agreed_by.is_empty() {
        meta.push(format!("agreed: {}", f.agreed_by.join(", ")));
    }
    if let Some(v) = &f.verification {
        meta.push(match v.reported_severity {
            Some(s) => format!("downgraded from {} on a second look", s.code()),
            None => "confirmed on a second look".to_string(),
        });
    }
    let _ = writeln!(
        out,
        "               {}",
        p.paint(
            dim(),
            line(&format!("[{}] {}", meta.join(" · "), f.id)).as_str()
        )
    );
}

/// The suggested replacement as a small diff: the lines it replaces (as
/// crit read them when it checked the suggestion, else by number), then the
/// new lines.
fn write_suggestion(out: &mut String, f: &Finding, p: &Painter) {
    let (Some(suggested), Some((start, end))) = (
        crate::suggestion::replacement(f),
        crate::suggestion::range(f),
    ) else {
        return;
    };
    let lines = if end > start {
        format!("lines {start}-{end}")
    } else {
        format!("line {start}")
    };
    let _ = writeln!(
        out,
        "               {}",
        p.paint(dim(), &format!("suggestion, replacing {lines}:"))
    );
    let red = Style::new().fg_color(Some(AnsiColor::Red.into()));
    let green = Style::new().fg_color(Some(AnsiColor::Green.into()));
    if let Some(old) = &f.suggestion_replaces {
        for line in text(old).as_str().split('\n') {
            let _ = writeln!(out, "               {}", p.paint(red, &format!("- {line}")));
        }
    }
    if suggested.is_empty() {
        let _ = writeln!(out, "               {}", p.paint(green, "+ (nothing)"));
    }
    for line in text(&suggested).as_str().lines() {
        let _ = writeln!(
            out,
            "               {}",
            p.paint(green, &format!("+ {line}"))
        );
    }
}

/// Findings by file, the most severe first: the file with the worst finding
/// leads (then by path, general findings after files at the same severity),
/// and within a file by severity, then line. A P3 is never read before a P1.
fn grouped(result: &ReviewResult) -> Vec<(Option<&str>, Vec<&Finding>)> {
    let mut groups: Vec<(Option<&str>, Vec<&Finding>)> = Vec::new();
    for f in result.sorted_findings() {
        match groups.iter_mut().find(|(path, _)| *path == f.path()) {
            Some((_, list)) => list.push(f),
            None => groups.push((f.path(), vec![f])),
        }
    }
    // `sorted_findings` is by severity first, so each group's first finding
    // is its worst, and groups already stand in order of their worst.
    groups.sort_by(|(pa, a), (pb, b)| {
        let worst = |l: &[&Finding]| l.first().map(|f| f.severity);
        worst(a)
            .cmp(&worst(b))
            .then_with(|| (pa.is_none(), pa).cmp(&(pb.is_none(), pb)))
    });
    groups
}

pub(super) fn summary(result: &ReviewResult, color: bool) -> String {
    summary_line(result, &Painter { on: color })
}

fn summary_line(result: &ReviewResult, p: &Painter) -> String {
    let mut parts = vec![p.paint(verdict_style(result.verdict), result.verdict.as_str())];
    let n = result.findings.len();
    let counts = result
        .severity_counts()
        .iter()
        .map(|(s, c)| format!("{c} {s}"))
        .collect::<Vec<_>>()
        .join(", ");
    parts.push(match n {
        0 => "no findings".to_string(),
        1 => format!("1 finding ({counts})"),
        _ => format!("{n} findings ({counts})"),
    });
    if !result.dismissed.is_empty() {
        // Said, so nobody wonders where a finding went.
        parts.push(format!("{} dismissed", result.dismissed.len()));
    }
    if result.reviewers.len() > 1 {
        parts.push(format!("{} reviewers", result.reviewers.len()));
    }
    if !result.usage.is_zero() {
        // Input read from the prompt cache costs a tenth of the rest: said
        // apart, so a second review of a change shows what it really sent.
        let u = &result.usage;
        let cached = u.cache_read_tokens;
        parts.push(match cached {
            0 => format!("{} tokens", compact(u.total())),
            _ => format!(
                "{} tokens ({} input uncached, {} from prompt cache)",
                compact(u.total()),
                compact(u.input_tokens + u.cache_write_tokens),
                compact(cached)
            ),
        });
    }
    match result.cost_usd {
        Some(c) if c > 0.0 => parts.push(format!("${c:.4}")),
        None => parts.push("cost unknown".to_string()),
        _ => {}
    }
    if let Some(saved) = result.cache_saved_usd() {
        parts.push(format!("${saved:.4} saved by the hunk cache"));
    }
    if result.duration_ms > 0 {
        parts.push(format!("{:.1}s", result.duration_ms as f64 / 1000.0));
    }
    parts.push(if result.passed {
        p.paint(bold(AnsiColor::Green), "passed")
    } else {
        p.paint(bold(AnsiColor::Red), "not passed")
    });
    parts.join(" · ")
}

fn compact(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

struct Painter {
    on: bool,
}

impl Painter {
    fn paint(&self, style: Style, text: &str) -> String {
        if self.on {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    }
}

fn bold(c: AnsiColor) -> Style {
    Style::new().bold().fg_color(Some(c.into()))
}

fn dim() -> Style {
    Style::new().dimmed()
}

fn severity_style(s: Severity) -> Style {
    match s {
        Severity::P0 => bold(AnsiColor::Magenta),
        Severity::P1 => bold(AnsiColor::Red),
        Severity::P2 => bold(AnsiColor::Yellow),
        Severity::P3 => Style::new().fg_color(Some(AnsiColor::Cyan.into())),
        Severity::Info => Style::new().fg_color(Some(AnsiColor::Green.into())),
    }
}

fn verdict_style(v: Verdict) -> Style {
    match v {
        Verdict::Pass => bold(AnsiColor::Green),
        Verdict::Concerns => bold(AnsiColor::Yellow),
        _ => bold(AnsiColor::Red),
    }
}
