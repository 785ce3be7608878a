//! How a quote is compared with a file's text (see the evidence check):
//! every white-space character removed, diff markers and line numbers
//! stripped, `…` skipping, and the markers reviewers saw standing for the
//! file's own bytes.

use super::lenient::Fold;

/// Whether any file's section of the change's diff holds `quote`.
pub(super) fn in_whole_diff(patch: &str, quote: &str, fold: Fold) -> bool {
    let pieces = pieces(&fold.apply(quote));
    let mut text = String::new();
    for l in patch.lines() {
        if l.starts_with("diff --git ")
            || l.starts_with("@@")
            || l.starts_with("+++")
            || l.starts_with("---")
        {
            continue;
        }
        text.push_str(l.get(1..).unwrap_or_default());
        text.push('\n');
    }
    !pieces.is_empty() && in_order(&compact(&fold.apply(&text)), &pieces)
}

/// A line as compared: every white-space character removed.
pub(super) fn compact(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether `text` holds the quote `needle` (compared as [`pieces`]).
pub(super) fn contains(text: &str, needle: &str) -> bool {
    let pieces = pieces(needle);
    !pieces.is_empty() && in_order(&compact(text), &pieces)
}

/// The quote as compacted pieces that must appear in order: cut at `…`
/// lines and at the markers reviewers saw in place of the file's own bytes
/// (`[REDACTED:kind]`, `[U+202E]`).
pub(super) fn pieces(quote: &str) -> Vec<String> {
    static MARKER: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\[REDACTED:[a-z0-9\-]+\]|\[U\+[0-9A-F]{4,6}\]|…|\.\.\.").ok()
    });
    let joined = quote_lines(quote).join("");
    let Some(marker) = MARKER.as_ref() else {
        return vec![joined];
    };
    marker
        .split(&joined)
        .map(str::to_string)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Whether every piece is in `text`, each after the one before.
pub(super) fn in_order(text: &str, pieces: &[String]) -> bool {
    let mut at = 0;
    for p in pieces {
        match text.get(at..).and_then(|rest| rest.find(p.as_str())) {
            Some(i) => at += i + p.len(),
            None => return false,
        }
    }
    true
}

/// The quote's lines, without the line numbers and diff markers a model may
/// copy from the prompt's diff (`  41 + code`), a Read result (`41\tcode`)
/// or git (`+code`), blank lines dropped; `…` marks a gap. Stripping only
/// shortens a line, and lines match by containment, so it never makes a
/// quote that is there look missing.
pub(super) fn quote_lines(quote: &str) -> Vec<String> {
    static NUMBERED: std::sync::LazyLock<Option<regex::Regex>> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"^\s*\d+(?: [+ -] |\t|: |\| )").ok());
    quote
        .lines()
        .map(|l| {
            let t = match NUMBERED.as_ref().and_then(|re| re.find(l)) {
                Some(m) => &l[m.end()..],
                None => l,
            };
            let t = t.trim_start();
            let t = t.strip_prefix(['+', '-']).unwrap_or(t);
            compact(t)
        })
        .filter(|l| !l.is_empty())
        .collect()
}

/// The text of the diff sections of `path` (without their markers).
pub(super) fn diff_text(patch: &str, path: &str) -> String {
    let mut out = String::new();
    let mut mine = false;
    for l in patch.lines() {
        if let Some(rest) = l.strip_prefix("diff --git ") {
            mine = rest.ends_with(&format!(" b/{path}")) || rest.contains(&format!("/{path} "));
            continue;
        }
        if mine && !l.starts_with("@@") && !l.starts_with("+++") && !l.starts_with("---") {
            out.push_str(l.get(1..).unwrap_or_default());
            out.push('\n');
        }
    }
    out
}

/// Every place (1-based first and last line) where `quote` matches: each
/// quote line is contained in its file line (a quote may be part of a long
/// line), consecutive, except that a `…` line skips up to 50 lines.
pub(super) fn find_all(lines: &[String], quote: &[String]) -> Vec<(u32, u32)> {
    let pieces: Vec<&[String]> = quote
        .split(|l| l == "…" || l == "..." || l == "[…]")
        .filter(|p| !p.is_empty())
        .collect();
    let Some(first) = pieces.first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for start in 0..lines.len() {
        let Some(mut end) = run_at(lines, start, first) else {
            continue;
        };
        let mut ok = true;
        for piece in &pieces[1..] {
            match (end..(end + 50).min(lines.len())).find_map(|s| run_at(lines, s, piece)) {
                Some(e) => end = e,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            out.push((line_no(start + 1), line_no(end)));
        }
    }
    out
}

/// Where a run of `piece` lines starting at `start` ends (exclusive).
fn run_at(lines: &[String], start: usize, piece: &[String]) -> Option<usize> {
    let end = start + piece.len();
    (end <= lines.len()
        && lines[start..end]
            .iter()
            .zip(piece)
            .all(|(l, q)| l.contains(q.as_str())))
    .then_some(end)
}

pub(super) fn line_no(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

pub(super) fn span(s: u32, e: u32) -> String {
    match s == e {
        true => format!("line {s}"),
        false => format!("lines {s}–{e}"),
    }
}
