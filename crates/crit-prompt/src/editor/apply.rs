//! Applying ordered proposals to the prompt's text: replacements and removals
//! in the prompt itself, additions under named sections.

use std::collections::BTreeMap;

use super::text::{find_folded, find_quoted, normalize, words};
use super::{Applied, Change, Dropped, Proposal};
use crate::critique::{OpKind, Target};

/// Why a proposal was not applied (said in the review's `dropped` list).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum NotApplied {
    #[error("already in the prompt")]
    AlreadyThere,
    #[error("it names no text of the prompt to replace")]
    NoTarget,
    #[error("\"{0}\" is not in the prompt")]
    NotInPrompt(String),
    #[error("\"{0}\" does not occur in the prompt")]
    DoesNotOccur(String),
    #[error("it is the whole prompt")]
    WholePrompt,
    #[error("the prompt already has sections of its own")]
    HasSections,
    #[error("the prompt is empty")]
    Empty,
}

/// The sections additions go under, in the order they are appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Section {
    Context,
    Constraints,
    Output,
    Examples,
    Structure,
    Guardrails,
    AcceptanceCriteria,
    Clarifications,
}

impl Section {
    fn title(self) -> &'static str {
        match self {
            Section::Context => "Context",
            Section::Constraints => "Constraints",
            Section::Output => "Output",
            Section::Examples => "Examples",
            Section::Structure => "Structure",
            Section::Guardrails => "Guardrails",
            Section::AcceptanceCriteria => "Acceptance criteria",
            Section::Clarifications => "Clarifications",
        }
    }

    fn of(op: OpKind, target: Target) -> Section {
        match (op, target) {
            (OpKind::AddGuardrail, _) => Section::Guardrails,
            (OpKind::AddAcceptanceCriteria, _) => Section::AcceptanceCriteria,
            (OpKind::AddContext, _) => Section::Context,
            (OpKind::RefactorStructure, _) => Section::Structure,
            (_, Target::Output) => Section::Output,
            (_, Target::Examples) => Section::Examples,
            (_, Target::Context) => Section::Context,
            _ => Section::Constraints,
        }
    }
}

/// The prompt being edited.
struct Draft {
    body: String,
    sections: BTreeMap<Section, Vec<String>>,
    /// `body` and every addition, normalised, for "already there" checks;
    /// rebuilt when the body changes.
    seen: Option<Vec<String>>,
}

impl Draft {
    /// True when `text` (normalised) already occurs in the prompt or an addition.
    fn has(&mut self, text: &str) -> bool {
        let needle = normalize(text);
        if needle.is_empty() {
            return true;
        }
        let seen = self.seen.get_or_insert_with(|| {
            std::iter::once(normalize(&self.body))
                .chain(self.sections.values().flatten().map(|i| normalize(i)))
                .collect()
        });
        seen.iter().any(|s| s.contains(&needle))
    }

    fn set_body(&mut self, s: usize, e: usize, with: &str) {
        self.body.replace_range(s..e, with);
        self.seen = None;
    }

    fn add(&mut self, section: Section, text: &str) -> Result<Change, NotApplied> {
        if self.has(text) {
            return Err(NotApplied::AlreadyThere);
        }
        if let Some(seen) = &mut self.seen {
            seen.push(normalize(text));
        }
        self.sections
            .entry(section)
            .or_default()
            .push(text.to_string());
        Ok(Change::Added {
            section: section.title().to_string(),
            text: text.to_string(),
        })
    }
}

/// Applies `proposals` in order. Returns the refined text, what applied, and
/// what could not (a removal whose text is not there, an addition already made).
pub(super) fn apply(
    prompt: &str,
    proposals: Vec<Proposal>,
) -> (String, Vec<Applied>, Vec<Dropped>) {
    let mut draft = Draft {
        body: prompt.to_string(),
        sections: BTreeMap::new(),
        seen: None,
    };
    let mut applied = Vec::new();
    let mut dropped = Vec::new();
    for p in proposals {
        let outcome = match p.op {
            OpKind::ReplaceVague => replace(&mut draft, &p),
            OpKind::RemoveConstraint => remove(&mut draft, &p),
            OpKind::RefactorStructure => restructure(&mut draft),
            _ => draft.add(Section::of(p.op, p.target), &p.value),
        };
        match outcome {
            Ok(change) => applied.push(Applied {
                proposal: p,
                change,
            }),
            Err(why) => dropped.push(Dropped {
                proposal: p,
                why: why.to_string(),
            }),
        }
    }
    let text = assemble(prompt, &draft);
    (text, applied, dropped)
}

/// The op's `original` (else its evidence) replaced where the prompt has it;
/// evidence whose words the prompt has, but not as one phrase, clarified;
/// anything else is not the prompt's and is not applied.
fn replace(draft: &mut Draft, p: &Proposal) -> Result<Change, NotApplied> {
    let target = p.original.as_deref().unwrap_or(&p.evidence);
    if target.trim().is_empty() {
        return Err(NotApplied::NoTarget);
    }
    let found = find_quoted(&draft.body, target).or_else(|| find_folded(&draft.body, target));
    if let Some((s, e)) = found {
        let from = draft.body[s..e].to_string();
        draft.set_body(s, e, &p.value);
        return Ok(Change::Replaced {
            from,
            to: p.value.clone(),
        });
    }
    let said = words(&draft.body);
    let asked = words(target);
    if p.original.is_some() || asked.is_empty() || !asked.iter().all(|w| said.contains(w)) {
        return Err(NotApplied::NotInPrompt(target.to_string()));
    }
    let text = format!("\"{}\" means: {}", p.evidence, p.value);
    match draft.add(Section::Clarifications, &text)? {
        Change::Added { .. } => Ok(Change::Clarified {
            evidence: p.evidence.clone(),
            text,
        }),
        other => Ok(other),
    }
}

/// The constraint the op's text is in: its sentence, or, in a sentence of
/// several clauses, its clause, when the text is a good part of it (a third
/// of its words or more), so nothing is left of it ("Also so we can debug."
/// was the rest of the constraint, not another one); a word or two of a
/// longer sentence go alone.
fn remove(draft: &mut Draft, p: &Proposal) -> Result<Change, NotApplied> {
    let found = [p.value.as_str(), p.evidence.as_str()]
        .into_iter()
        .find_map(|t| find_quoted(&draft.body, t).or_else(|| find_folded(&draft.body, t)));
    let Some((s, e)) = found else {
        return Err(NotApplied::DoesNotOccur(p.value.clone()));
    };
    let (cs, ce) = constraint(&draft.body, s, e);
    let part = words(&draft.body[s..e]).len();
    let unit = words(&draft.body[cs..ce]).len();
    let whole_prompt = draft.body[cs..ce].trim() == draft.body.trim();
    let (s, e) = match part * 3 >= unit && !whole_prompt {
        true => (cs, ce),
        false => (s, e),
    };
    let whole = draft.body[s..e].trim();
    if draft.body.trim() == whole {
        return Err(NotApplied::WholePrompt);
    }
    // As the constraint reads: without the comma or list marker before it.
    let text = whole.trim_start_matches([',', ';', ' ']);
    let text = ["- ", "* ", "+ "]
        .iter()
        .find_map(|m| text.strip_prefix(m))
        .unwrap_or(text)
        .to_string();
    cut(&mut draft.body, s, e);
    draft.seen = None;
    Ok(Change::Removed { text })
}

fn restructure(draft: &mut Draft) -> Result<Change, NotApplied> {
    let (body, sections) = super::restructure::restructure(&draft.body)?;
    let end = draft.body.len();
    draft.set_body(0, end, &body);
    Ok(Change::Restructured { sections })
}

/// The sentence around `body[s..e]` (a line ends one too), or the clause of
/// it between commas or semicolons when the sentence has more than one and
/// the match is within one. The span starts at the sentence's (or clause's)
/// first character and ends after its own punctuation.
fn constraint(body: &str, s: usize, e: usize) -> (usize, usize) {
    let is_end = |i: usize| {
        let b = body.as_bytes();
        b[i] == b'\n'
            || (matches!(b[i], b'.' | b'!' | b'?')
                && b.get(i + 1).is_none_or(u8::is_ascii_whitespace))
    };
    let start = (0..s).rev().find(|&i| is_end(i)).map_or(0, |i| i + 1);
    let start = start + (body[start..].len() - body[start..].trim_start().len());
    let stop = (e.max(s + 1) - 1..body.len())
        .find(|&i| is_end(i))
        .map_or(body.len(), |i| {
            if body.as_bytes()[i] == b'\n' {
                i
            } else {
                i + 1
            }
        });
    let stop = stop.max(e);
    let sentence = &body[start..stop];
    let marks: Vec<usize> = sentence
        .char_indices()
        .filter(|(_, c)| matches!(c, ',' | ';'))
        .map(|(i, _)| start + i)
        .collect();
    if marks.is_empty() {
        return (start, stop);
    }
    // Clause bounds: from after the mark before the match to the next mark.
    let before = marks.iter().rev().find(|&&m| m < s).copied();
    let after = marks.iter().find(|&&m| m >= e).copied();
    if marks.iter().any(|&m| m >= s && m < e) {
        return (start, stop);
    }
    match (before, after) {
        // The first clause: up to and with its comma.
        (None, Some(a)) => (start, a + 1),
        // A later one: with the comma before it.
        (Some(b), _) => (
            b,
            after.unwrap_or_else(|| sentence_body_end(body, start, stop)),
        ),
        (None, None) => (start, stop),
    }
}

/// Where a sentence's words end: before its closing punctuation.
fn sentence_body_end(body: &str, start: usize, stop: usize) -> usize {
    start + body[start..stop].trim_end_matches(['.', '!', '?']).len()
}

/// Removes `body[s..e]`; a line left empty (or a bare list marker) goes too,
/// and the spaces around the cut are tidied.
fn cut(body: &mut String, s: usize, e: usize) {
    let line_start = body[..s].rfind('\n').map_or(0, |i| i + 1);
    let line_end = body[e..].find('\n').map_or(body.len(), |i| e + i);
    let rest = format!("{}{}", &body[line_start..s], &body[e..line_end]);
    if is_bare_line(&rest) {
        let (from, to) = if line_end < body.len() {
            (line_start, line_end + 1)
        } else {
            (line_start.saturating_sub(1), line_end)
        };
        body.replace_range(from..to, "");
        return;
    }
    let before = &body[line_start..s];
    let after = &body[e..line_end];
    let mut from = s;
    let mut to = e;
    if before.ends_with(' ')
        && (after.is_empty()
            || after.starts_with(' ')
            || after.starts_with(['.', ',', ';', ':', '!', '?', ')']))
    {
        from -= 1;
    } else if before.trim().is_empty() && after.starts_with(' ') {
        to += 1;
    }
    body.replace_range(from..to, "");
}

/// Blank, or only a list marker (`-`, `*`, `+`, `1.`, `2)`).
fn is_bare_line(rest: &str) -> bool {
    let t = rest.trim();
    t.is_empty()
        || matches!(t, "-" | "*" | "+")
        || (t.len() > 1
            && t[..t.len() - 1].chars().all(|c| c.is_ascii_digit())
            && t.ends_with(['.', ')']))
}

/// The body with every section's items: into the prompt's own heading of that
/// name when it has one, else appended as a new `## Section`.
fn assemble(prompt: &str, draft: &Draft) -> String {
    let mut lines: Vec<String> = draft.body.split('\n').map(str::to_string).collect();
    let mut appended = Vec::new();
    for (section, items) in &draft.sections {
        let bullets: Vec<String> = items.iter().flat_map(|i| bullet(i)).collect();
        match section_end(&lines, section.title()) {
            Some(at) => {
                lines.splice(at..at, bullets);
            }
            None => appended.push((section.title(), bullets)),
        }
    }
    let mut out = lines.join("\n");
    if !appended.is_empty() {
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
        for (title, bullets) in appended {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str("## ");
            out.push_str(title);
            out.push('\n');
            out.push_str(&bullets.join("\n"));
        }
        if prompt.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// `- first line` then the other lines indented under it.
fn bullet(item: &str) -> Vec<String> {
    item.split('\n')
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("- {}", l.trim_end())
            } else {
                format!("  {}", l.trim_end())
            }
        })
        .collect()
}

/// The line index after the last non-blank line of the prompt's own section
/// titled `title` (a markdown heading, any level, case-insensitive).
fn section_end(lines: &[String], title: &str) -> Option<usize> {
    let (start, level) = lines.iter().enumerate().find_map(|(i, l)| {
        heading(l)
            .filter(|(_, t)| t.eq_ignore_ascii_case(title))
            .map(|(lv, _)| (i, lv))
    })?;
    let end = lines[start + 1..]
        .iter()
        .position(|l| heading(l).is_some_and(|(lv, _)| lv <= level))
        .map_or(lines.len(), |i| start + 1 + i);
    let last = (start..end)
        .rev()
        .find(|&i| !lines[i].trim().is_empty())
        .unwrap_or(start);
    Some(last + 1)
}

/// Whether `line` is a markdown ATX heading.
pub(super) fn is_heading(line: &str) -> bool {
    heading(line).is_some()
}

/// A markdown ATX heading: its level and title (trailing `#`s and `:` dropped).
fn heading(line: &str) -> Option<(usize, String)> {
    let t = line.trim_start();
    if line.len() - t.len() > 3 {
        return None;
    }
    let level = t.chars().take_while(|c| *c == '#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &t[level..];
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let title = rest
        .trim()
        .trim_end_matches('#')
        .trim()
        .trim_end_matches(':')
        .trim();
    Some((level, title.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_tidy_up() {
        let mut b = "Do it. Use eval here. Done.".to_string();
        let s = b.find("Use eval here.").unwrap();
        cut(&mut b, s, s + "Use eval here.".len());
        assert_eq!(b, "Do it. Done.");
        let mut b = "Goal\n- use eval\n- be fast\n".to_string();
        let s = b.find("use eval").unwrap();
        cut(&mut b, s, s + 8);
        assert_eq!(b, "Goal\n- be fast\n");
        let mut b = "Goal\nlast line".to_string();
        cut(&mut b, 5, 14);
        assert_eq!(b, "Goal");
        let mut b = "Be quick, then stop".to_string();
        cut(&mut b, 3, 8);
        assert_eq!(b, "Be, then stop");
    }

    /// The span `constraint` takes for `needle`, and the text left once it goes.
    fn removing(body: &str, needle: &str) -> (String, String) {
        let s = body.find(needle).unwrap();
        let (a, b) = constraint(body, s, s + needle.len());
        let gone = body[a..b].to_string();
        let mut left = body.to_string();
        cut(&mut left, a, b);
        (gone, left)
    }

    #[test]
    fn a_removal_takes_its_whole_constraint() {
        assert_eq!(
            removing(
                "Log every request. Also log the API key so we can debug.",
                "log the API key"
            ),
            (
                "Also log the API key so we can debug.".into(),
                "Log every request.".into()
            )
        );
        assert_eq!(
            removing(
                "Refactor the parser, log the API key, and add tests.",
                "log the API key"
            )
            .1,
            "Refactor the parser, and add tests."
        );
        assert_eq!(
            removing("Log the API key, then add tests.", "Log the API key").1,
            "then add tests."
        );
        assert_eq!(
            removing(
                "Fix it.\n- log the API key\n- add tests\n",
                "log the API key"
            )
            .1,
            "Fix it.\n- add tests\n"
        );
        assert_eq!(
            removing("Read .env and settings.ts. Then stop.", "Read .env").1,
            "Then stop."
        );
    }

    #[test]
    fn headings() {
        assert_eq!(heading("## Constraints:"), Some((2, "Constraints".into())));
        assert_eq!(heading("# Context ##"), Some((1, "Context".into())));
        assert_eq!(heading("#hashtag"), None);
        assert_eq!(heading("    # code"), None);
        let lines: Vec<String> = "# Task\nDo it.\n\n## Constraints\n- one\n\n## Other\nx"
            .split('\n')
            .map(String::from)
            .collect();
        assert_eq!(section_end(&lines, "constraints"), Some(5));
        assert_eq!(section_end(&lines, "Guardrails"), None);
    }
}
