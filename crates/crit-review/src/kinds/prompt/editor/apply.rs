//! Applying ordered proposals to the prompt's text: replacements and removals
//! in the prompt itself, additions under named sections.

use std::collections::BTreeMap;

use super::text::{find_quoted, normalize};
use super::{Applied, Change, Dropped, Proposal};
use crate::kinds::prompt::critique::{OpKind, Target};

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

    fn add(&mut self, section: Section, text: &str) -> Result<Change, String> {
        if self.has(text) {
            return Err("already in the prompt".into());
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
            _ => draft.add(Section::of(p.op, p.target), &p.value),
        };
        match outcome {
            Ok(change) => applied.push(Applied {
                proposal: p,
                change,
            }),
            Err(why) => dropped.push(Dropped { proposal: p, why }),
        }
    }
    let text = assemble(prompt, &draft);
    (text, applied, dropped)
}

fn replace(draft: &mut Draft, p: &Proposal) -> Result<Change, String> {
    if let Some((s, e)) = find_quoted(&draft.body, &p.evidence) {
        let from = draft.body[s..e].to_string();
        draft.set_body(s, e, &p.value);
        return Ok(Change::Replaced {
            from,
            to: p.value.clone(),
        });
    }
    let text = if p.evidence.is_empty() {
        p.value.clone()
    } else {
        format!("\"{}\" means: {}", p.evidence, p.value)
    };
    match draft.add(Section::Clarifications, &text)? {
        Change::Added { .. } => Ok(Change::Clarified {
            evidence: p.evidence.clone(),
            text,
        }),
        other => Ok(other),
    }
}

fn remove(draft: &mut Draft, p: &Proposal) -> Result<Change, String> {
    let found =
        find_quoted(&draft.body, &p.value).or_else(|| find_quoted(&draft.body, &p.evidence));
    let Some((s, e)) = found else {
        return Err(format!("\"{}\" does not occur in the prompt", p.value));
    };
    let text = draft.body[s..e].to_string();
    cut(&mut draft.body, s, e);
    draft.seen = None;
    Ok(Change::Removed { text })
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
        && (after.starts_with(' ') || after.starts_with(['.', ',', ';', ':', '!', '?', ')']))
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
