//! Checking what reviewers quote. A finding from crit's findings contract
//! carries `evidence` (the lines at its location, copied from the file) and,
//! for a convention breach, `convention` (the rule, copied from the
//! conventions given). This check can only remove a finding, so it acts only
//! on positive proof:
//!
//! - the path is resolved first (`a/` and `b/` prefixes, `./`, the project
//!   root, or the one file of the change it names), and a finding is moved
//!   to the resolved path;
//! - the quote is in the file (anywhere) or in the change's diff: kept; when
//!   it is not near the cited lines, a note says where it is — never lowered,
//!   never moved (a decoy copy of a line must not carry a finding off);
//! - the quote is there only read as a person reads it (invisible characters
//!   set aside, look-alike letters as Latin ones: [`lenient::fold`]): kept,
//!   with a note;
//! - the quote is a slip away (one edit in ten) from the code near the lines
//!   it cites, or from the file's part of the diff: a near miss, kept, marked
//!   `unchecked`, with a note. A typo proves the quote wrong, not the finding;
//! - the path is a readable text file inside the project and the quote is in
//!   neither it nor the diff, even so read, nor near: dismissed, cause
//!   `evidence_not_found`, with the proof (the file read, the quote that is
//!   not in it);
//! - anything less certain (no such file, a file outside the project, binary,
//!   not UTF-8): kept, marked `unchecked`;
//! - a quoted convention that is not in the conventions given: kept,
//!   marked `unchecked`, with a note. A rule misquoted or paraphrased proves
//!   the quote wrong, not the finding, which stands or falls on its code.
//!
//! Quotes are compared with every white-space character removed (so line
//! breaks and indentation do not matter), leading diff markers and line
//! numbers stripped from each quoted line, `…` or `...` lines skipping, and
//! `[REDACTED:…]` markers and hidden characters (`[U+202E]`) standing for
//! what reviewers were shown instead of the file's bytes. [`locate`] compares
//! only so, as written: the verifier's disproof removes a finding, so a
//! look-alike letter, an invisible character or a slip never counts there.

use std::path::Path;

use crit_core::{Dismissed, Finding, Location, Verification, VerificationOutcome};

use super::lenient::{self, Fold};
use super::quote::{
    compact, contains, diff_text, find_all, in_order, in_whole_diff, line_no, pieces, quote_lines,
    span,
};

/// Lines a quote may sit away from the cited range and still count as there.
const SLACK: u32 = 3;
/// Who marks a finding this check could not settle.
const BY: &str = "crit (evidence check)";

/// What a check needs: where files are, the diff text of the change (for
/// quotes of removed lines), the change's files (root-relative), and the
/// conventions the reviewers were given.
pub(crate) struct Sources<'a> {
    pub root: &'a Path,
    pub patch: &'a str,
    pub files: &'a [String],
    pub conventions: &'a str,
}

/// Where a quote was looked for, and what was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// In the file, at these lines (1-based, first and last; empty when the
    /// quote matched only across lines), or in the diff.
    There(Vec<(u32, u32)>),
    /// Positive proof it is not there: the text file was read, and neither it
    /// nor the diff holds the quote. The proof, for people.
    NotThere(String),
    /// Could not be checked, and why.
    Unchecked(String),
}

/// Checks every finding with a quote; moves those proven wrong to
/// `dismissed`, marks those it could not check.
pub(crate) fn check(
    findings: &mut Vec<Finding>,
    dismissed: &mut Vec<Dismissed>,
    src: &Sources<'_>,
) {
    let mut kept = Vec::with_capacity(findings.len());
    for mut f in std::mem::take(findings) {
        resolve_location(&mut f, src);
        if let Some(rule) = f.convention.clone()
            && !src.conventions.is_empty()
            && !contains(src.conventions, &rule)
        {
            note(
                &mut f,
                &format!(
                    "the rule it cites is not in the project's conventions as quoted: “{}”",
                    short(&rule)
                ),
            );
            mark_unchecked(
                &mut f,
                format!(
                    "the convention it cites is not in the conventions given to reviewers ({} bytes searched)",
                    src.conventions.len()
                ),
            );
        }
        let (
            Some(evidence),
            Some(Location::File {
                path,
                line_start,
                line_end,
            }),
        ) = (f.evidence.clone(), f.location.clone())
        else {
            kept.push(f);
            continue;
        };
        let cited = line_start.map(|s| (s, line_end.unwrap_or(s).max(s)));
        let elsewhere = format!("the quoted code is not in `{path}` but elsewhere in the change");
        match locate(src, &path, &evidence) {
            Found::There(at) => note_place(&mut f, &at, cited, &path),
            Found::Unchecked(why) => mark_unchecked(
                &mut f,
                format!("its quoted evidence could not be checked: {why}"),
            ),
            // The quote is code the change adds or removes, in another of its
            // files: the reviewer named the wrong file, not code that is not
            // there. No proof the finding is wrong: kept, said.
            Found::NotThere(_) if in_whole_diff(src.patch, &evidence, Fold::Exact) => {
                note(&mut f, &elsewhere);
            }
            // Not there as written: read as a person reads it, and then
            // allowing for a slip. Only a quote that is nothing like the code
            // near its lines proves the finding wrong.
            Found::NotThere(_) => match as_read(src, &path, &evidence, cited) {
                AsRead::There(at) => {
                    note(
                        &mut f,
                        &format!(
                            "the quoted code matches `{path}` only with invisible characters, \
                             spacing and look-alike letters set aside"
                        ),
                    );
                    note_place(&mut f, &at, cited, &path);
                }
                AsRead::InChange => note(&mut f, &elsewhere),
                AsRead::Near(place) => {
                    note(
                        &mut f,
                        &format!(
                            "the quote does not match `{path}` exactly: it is a few characters \
                             off the code {place}"
                        ),
                    );
                    mark_unchecked(
                        &mut f,
                        format!(
                            "its quoted evidence is not in {path} as quoted, but within a few \
                             characters of the code {place}"
                        ),
                    );
                }
                AsRead::Unchecked(why) => mark_unchecked(
                    &mut f,
                    format!("its quoted evidence could not be checked: {why}"),
                ),
                AsRead::Absent(proof) => {
                    let reason = format!(
                        "the code it quotes as evidence is not in {path}: “{}”",
                        short(&evidence)
                    );
                    dismissed.push(Dismissed {
                        finding: f,
                        cause: "evidence_not_found".into(),
                        reason,
                        proof,
                    });
                    continue;
                }
            },
        }
        kept.push(f);
    }
    *findings = kept;
}

/// Appends crit's note to a finding's text.
fn note(f: &mut Finding, what: &str) {
    f.body = format!("{}\n\n_crit: {what}._", f.body.trim_end());
}

/// Marks a finding this check could not settle, unless something marked it
/// before.
fn mark_unchecked(f: &mut Finding, reason: String) {
    if f.verification.is_none() {
        f.verification = Some(Verification {
            outcome: VerificationOutcome::Unchecked,
            reason,
            reported_severity: None,
            by: BY.into(),
        });
    }
}

/// Says where the quote is when none of the places it was found is near the
/// lines cited; never moves or lowers the finding (a decoy copy of a line
/// must not carry it off).
fn note_place(f: &mut Finding, at: &[(u32, u32)], cited: Option<(u32, u32)>, path: &str) {
    let Some((start, end)) = cited else {
        return;
    };
    let near =
        |(s, e): &(u32, u32)| *s <= end.saturating_add(SLACK) && e.saturating_add(SLACK) >= start;
    if !at.is_empty() && !at.iter().any(near) {
        let places: Vec<String> = at.iter().take(3).map(|(s, e)| span(*s, *e)).collect();
        note(
            f,
            &format!(
                "the quoted code is at {} of `{path}`, not at the lines reported",
                places.join(", ")
            ),
        );
    }
}

/// What a quote that is not in the file as written is, read as people read.
enum AsRead {
    /// There once invisible characters, spacing and look-alike letters are
    /// set aside, at these lines (as [`Found::There`]).
    There(Vec<(u32, u32)>),
    /// So read, in another file of the change.
    InChange,
    /// A near miss of the code there (for people: "at lines 9–45").
    Near(String),
    Unchecked(String),
    /// Positive proof it is not there, for people.
    Absent(String),
}

/// Lines on each side of the cited ones (beyond the quote's own length) a
/// near miss may be found in.
const NEAR_LINES: u32 = 30;

/// The evidence check's closer look at a quote not in the file as written:
/// compared as read ([`lenient::fold`]), then as a near miss of the code
/// around the lines cited (or of the whole file when none are) and of the
/// file's part of the diff.
fn as_read(src: &Sources<'_>, path: &str, quote: &str, cited: Option<(u32, u32)>) -> AsRead {
    let proof = match locate_as(src, path, quote, Fold::AsRead) {
        Found::There(at) => return AsRead::There(at),
        Found::Unchecked(why) => return AsRead::Unchecked(why),
        Found::NotThere(_) if in_whole_diff(src.patch, quote, Fold::AsRead) => {
            return AsRead::InChange;
        }
        Found::NotThere(proof) => proof,
    };
    let folded = lenient::fold(quote);
    let pieces: Vec<Vec<char>> = pieces(&folded)
        .iter()
        .map(|p| p.chars().collect())
        .collect();
    let text = match resolve(src, path).map(|rel| read(src.root, &rel)) {
        Some(Ok(text)) => lenient::fold(&text),
        Some(Err(why)) => return AsRead::Unchecked(why.to_string()),
        None => return AsRead::Unchecked(Unreadable::Unknown.to_string()),
    };
    let lines: Vec<&str> = text.lines().collect();
    let reach = NEAR_LINES.saturating_add(line_no(quote_lines(&folded).len()));
    let (from, to) = match cited {
        Some((s, e)) => (s.saturating_sub(reach).max(1), e.saturating_add(reach)),
        None => (1, u32::MAX),
    };
    let to = to.min(line_no(lines.len())).max(from);
    let window: Vec<char> = lines
        .iter()
        .skip(from as usize - 1)
        .take((to - from + 1) as usize)
        .flat_map(|l| compact(l).chars().collect::<Vec<_>>())
        .collect();
    let diff: Vec<char> = resolve(src, path)
        .map(|rel| compact(&lenient::fold(&diff_text(src.patch, &rel))))
        .unwrap_or_default()
        .chars()
        .collect();
    let mut budget = lenient::BUDGET;
    for (place, w) in [
        (format!("at {}", span(from, to)), &window),
        ("in the change's diff of it".into(), &diff),
    ] {
        match lenient::near_in_order(w, &pieces, &mut budget) {
            Ok(true) => return AsRead::Near(place),
            Ok(false) => {}
            Err(lenient::Spent) => {
                return AsRead::Unchecked(
                    "the quote is not there as written, and too long to compare with the code \
                     near it allowing for slips"
                        .into(),
                );
            }
        }
    }
    AsRead::Absent(format!(
        "{proof}; nor is the code at {} of the file or in its part of the diff within a \
         few characters of the quote (one edit in ten)",
        span(from, to)
    ))
}

/// Where `quote` is in the file at `path` (as a reviewer named it) or in the
/// diff, compared as written; see [`Found`]. This is what may prove code is
/// there (the verifier's disproof).
pub(crate) fn locate(src: &Sources<'_>, path: &str, quote: &str) -> Found {
    locate_as(src, path, quote, Fold::Exact)
}

/// [`locate`], with quote, file and diff compared as `fold` makes them.
fn locate_as(src: &Sources<'_>, path: &str, quote: &str, fold: Fold) -> Found {
    let quote = fold.apply(quote);
    let quote = quote.as_ref();
    let pieces = pieces(quote);
    if pieces.is_empty() {
        return Found::Unchecked("the quote is empty".into());
    }
    let resolved = resolve(src, path);
    let in_diff = |p: &str| {
        let diff = compact(&fold.apply(&diff_text(src.patch, p)));
        !diff.is_empty() && in_order(&diff, &pieces)
    };
    let diff_has = resolved.as_deref().is_some_and(in_diff) || in_diff(path);
    let file = match resolved.as_deref() {
        Some(rel) => read(src.root, rel),
        None => Err(Unreadable::Unknown),
    };
    let text = match file {
        Ok(text) => fold.apply(&text).into_owned(),
        // A deleted file, or one that cannot be read: the diff holds it.
        Err(_) if diff_has => return Found::There(Vec::new()),
        Err(why) => return Found::Unchecked(why.to_string()),
    };
    let lines: Vec<String> = text.lines().map(compact).collect();
    let at = find_all(&lines, &quote_lines(quote));
    if !at.is_empty() {
        return Found::There(at);
    }
    let (visible, _) = crit_core::screen::neutralize(&text);
    if in_order(&compact(&text), &pieces) || in_order(&compact(&visible), &pieces) || diff_has {
        return Found::There(Vec::new());
    }
    let rel = resolved.unwrap_or_else(|| path.to_string());
    if text.contains('\u{FFFD}') {
        return Found::Unchecked(format!(
            "`{rel}` is not valid UTF-8, so a quote of it cannot be compared exactly"
        ));
    }
    Found::NotThere(format!(
        "read `{rel}` ({} lines) and the change's diff: neither holds the quote, compared \
         without white space{}",
        lines.len(),
        match fold {
            Fold::Exact => "",
            Fold::AsRead => " or invisible characters, look-alike letters read as Latin ones",
        }
    ))
}

/// A finding located at a path the project does not have as written, but
/// does once resolved (`b/src/a.rs`, `./src/a.rs`, `/abs/root/src/a.rs`, or
/// `a.rs` when the change has exactly one `…/a.rs`), is moved to it.
fn resolve_location(f: &mut Finding, src: &Sources<'_>) {
    let Some(Location::File { path, .. }) = &mut f.location else {
        return;
    };
    if let Some(rel) = resolve(src, path)
        && rel != *path
    {
        *path = rel;
        f.refresh_id();
    }
}

/// The root-relative path a reviewer's `path` names, if any: as written when
/// that is a file of the project or of the change, else with a diff prefix,
/// `./` or the root stripped, else the one file of the change ending in it.
pub(crate) fn resolve(src: &Sources<'_>, path: &str) -> Option<String> {
    let root = src.root.to_string_lossy();
    let mut candidates = vec![path.to_string()];
    let mut p = path.replace('\\', "/");
    if let Some(rest) = p
        .strip_prefix(root.trim_end_matches('/'))
        .filter(|r| r.starts_with('/'))
    {
        p = rest.trim_start_matches('/').to_string();
        candidates.push(p.clone());
    }
    let p2 = p.trim_start_matches("./").to_string();
    candidates.push(p2.clone());
    for prefix in ["a/", "b/"] {
        if let Some(rest) = p2.strip_prefix(prefix) {
            candidates.push(rest.to_string());
        }
    }
    let exists = |c: &str| {
        !c.is_empty()
            && !c.starts_with('/')
            && (src.files.iter().any(|f| f == c) || src.root.join(c).is_file())
    };
    if let Some(c) = candidates.iter().find(|c| exists(c)) {
        return Some(c.clone());
    }
    let tail = candidates.last().cloned().unwrap_or_default();
    let mut ends: Vec<&String> = src
        .files
        .iter()
        .filter(|f| !tail.is_empty() && f.ends_with(&format!("/{tail}")))
        .collect();
    ends.dedup();
    match ends.as_slice() {
        [one] => Some((*one).clone()),
        _ => None,
    }
}

/// Why a quoted file could not be read for the check.
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    #[error("the project root cannot be read: {0}")]
    Root(std::io::Error),
    #[error("no such file in the project")]
    Unknown,
    #[error("`{0}` does not exist in the project (deleted, or never there)")]
    Missing(String),
    #[error("`{0}` leads outside the project")]
    Outside(String),
    #[error("`{0}` is not a regular file")]
    NotAFile(String),
    #[error("`{0}` cannot be read: {1}")]
    Io(String, crit_core::files::ReadError),
    #[error("`{0}` is not a text file")]
    Binary(String),
}

/// The file at `rel` under `root`, decoded lossily, when it is a regular
/// text file inside the root; else why not.
fn read(root: &Path, rel: &str) -> Result<String, Unreadable> {
    let root = root.canonicalize().map_err(Unreadable::Root)?;
    let full = root
        .join(rel)
        .canonicalize()
        .map_err(|_| Unreadable::Missing(rel.to_string()))?;
    if !full.starts_with(&root) {
        return Err(Unreadable::Outside(rel.to_string()));
    }
    if !full.is_file() {
        return Err(Unreadable::NotAFile(rel.to_string()));
    }
    let bytes = crit_core::files::read_capped(&full, Default::default())
        .map_err(|e| Unreadable::Io(rel.to_string(), e))?;
    if crit_project::scope::binary::looks_binary(&bytes) {
        return Err(Unreadable::Binary(rel.to_string()));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn short(text: &str) -> String {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(120) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

#[cfg(test)]
#[path = "evidence_tests.rs"]
mod tests;
