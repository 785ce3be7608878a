//! Secrets in what a review sends: the diff, the project's conventions and the
//! author's notes are redacted before any reviewer sees them, and each secret
//! found becomes an `info` finding at its file and line, so the author learns
//! a credential sits in the change without the credential going anywhere.
//!
//! Redaction of the change is bounded: no span crosses a file boundary, each
//! line keeps its place (and its diff marker), and the redactor learns every
//! secret it finds, so the review's one redactor hides it wherever it shows up
//! later (a model repeating it, a transcript, a cassette). A span that may
//! hold more than a credential (code around a secret, a private key with no
//! END line) is reported with the added lines it hid: no reviewer read them,
//! and the review's coverage counts them as a gap.
//!
//! The redactor itself (what a secret looks like) is crit-core's; this module
//! knows where review inputs come from.

use crit_agent::redaction::{ToolRedaction, ToolRedactor};
use crit_core::redact::{Options, Redactor};
use crit_core::{Finding, Location, Severity};

use crit_project::context::ProjectContext;
use crit_project::scope::Change;

/// The rule id of redaction findings.
pub(crate) const RULE: &str = "crit/secret-redacted";
/// The reviewer name on redaction findings: crit itself, not a model.
const REVIEWER: &str = "crit";

/// One secret removed from what was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Removed {
    /// Root-relative path of the file it was in, when known.
    pub path: Option<String>,
    pub line: Option<u32>,
    pub kind: &'static str,
    /// Where the text was going: "the change", "the project conventions",
    /// "a tool's output".
    pub context: &'static str,
    /// The span may hold more than a credential: the change's added lines
    /// (new-file numbers) it covered, which no reviewer read whole.
    pub hid_code: Option<Vec<u32>>,
}

impl Removed {
    pub(crate) fn finding(&self) -> Finding {
        if let Some(lines) = &self.hid_code {
            return self.gap_finding(lines);
        }
        let mut f = Finding::new(
            format!("Secret removed before review ({})", self.kind),
            Severity::Info,
            REVIEWER,
        );
        f.body = format!(
            "A value that looks like a {} was found in {} and replaced with \
             `[REDACTED:{}]` before any reviewer saw it, and in everything crit \
             wrote. If it is a real credential, rotate it and keep it out of the \
             repository.",
            self.kind.replace('-', " "),
            self.context,
            self.kind
        );
        f.rule_id = Some(RULE.to_string());
        f.location = self.path.as_ref().map(|p| match self.line {
            Some(l) => Location::lines(p.clone(), l, l),
            None => Location::file(p.clone()),
        });
        f
    }

    /// What a span that may hide code says: where, and that no reviewer
    /// read it (the review's coverage lists the same lines as a gap).
    fn gap_finding(&self, lines: &[u32]) -> Finding {
        let mut f = Finding::new(
            format!(
                "Redaction hid more than a credential ({}): not reviewed",
                self.kind
            ),
            Severity::Info,
            REVIEWER,
        );
        let what = match (lines.first(), lines.last()) {
            (Some(a), Some(b)) if a != b => format!("added lines {a}–{b}"),
            (Some(a), _) => format!("added line {a}"),
            _ => "text".to_string(),
        };
        f.body = format!(
            "Something that looks like a {} was found in {} and replaced with \
             `[REDACTED:{}]`, but the span may hold more than a credential (code \
             around it, several lines, a private key with no END line), so {what} \
             did not reach any reviewer. The review's coverage counts them as \
             not reviewed. Move the secret out of the code, or review those lines \
             yourself.",
            self.kind.replace('-', " "),
            self.context,
            self.kind
        );
        f.rule_id = Some(RULE.to_string());
        f.location = self
            .path
            .as_ref()
            .map(|p| match (lines.first(), lines.last()) {
                (Some(a), Some(b)) => Location::lines(p.clone(), *a, *b),
                _ => Location::file(p.clone()),
            });
        f
    }

    /// A secret a tool's output held (a file a reviewer read, a grep hit).
    pub(crate) fn from_tool(t: &ToolRedaction) -> Removed {
        Removed {
            path: t.path.clone(),
            line: t.line,
            kind: t.kind,
            context: "a tool's output",
            hid_code: None,
        }
    }
}

/// The tools' redactor for a review: it shares what it learns with the
/// process's redactor, which every writer of the review uses (the result,
/// the session, the transcript, cassettes, the terminal), so a secret a tool
/// found (a git-ignored `.env` a reviewer read) stays hidden wherever the
/// model repeats it.
pub(crate) fn tools_redactor() -> ToolRedactor {
    ToolRedactor::new(Redactor::process().clone())
}

/// Each (path, line, kind) once: the same secret can reach reviewers through
/// the diff and through several reviewers' reads.
pub(crate) fn dedup(removed: &mut Vec<Removed>) {
    let mut seen = std::collections::BTreeSet::new();
    removed.retain(|r| seen.insert((r.path.clone(), r.line, r.kind)));
}

/// Redacts the change's patch in place, and the strings that describe it (its
/// description, commit subjects, notes); each secret is located at its file
/// and new-file line (an old-file line for a removed one). No span crosses
/// a file, lines keep their place and their diff markers, and every secret
/// found is learned by `redactor`.
pub(crate) fn redact_change(change: &mut Change, redactor: &Redactor) -> Vec<Removed> {
    let starts = file_starts(&change.patch);
    let options = Options {
        file_starts: &starts,
        keep_lines: true,
        learn: true,
        fragments: false,
    };
    let r = redactor.redact_with(&change.patch, options);
    let mut removed = Vec::new();
    if !r.found.is_empty() {
        let lines = PatchLines::index(&change.patch);
        removed = r
            .found
            .iter()
            .map(|hit| {
                let (path, line) = lines.at(hit.start);
                Removed {
                    path: Some(change.path_from_root(path).to_string()),
                    line,
                    kind: hit.kind,
                    context: "the change",
                    hid_code: hit
                        .more_than_credential
                        .then(|| lines.added_within(hit.start, hit.end)),
                }
            })
            .collect();
        change.patch = with_markers(&change.patch, &r.text);
    }
    let learn = |s: &mut String| {
        let r = redactor.redact_with(
            s,
            Options {
                learn: true,
                ..Options::default()
            },
        );
        if !r.found.is_empty() {
            *s = r.text.into_owned();
        }
    };
    learn(&mut change.description);
    change.commits.iter_mut().for_each(learn);
    change.notes.iter_mut().for_each(learn);
    removed
}

/// A string that enters a prompt (a file name, an input, the author's
/// notes), redacted with the review's redactor, which learns what it finds.
pub(crate) fn redact_str(text: &str, redactor: &Redactor) -> String {
    redactor
        .redact_with(
            text,
            Options {
                learn: true,
                ..Options::default()
            },
        )
        .text
        .into_owned()
}

/// The author's notes (`--context`), redacted in place.
pub(crate) fn redact_notes(text: &mut String, path: &str, redactor: &Redactor) -> Vec<Removed> {
    let r = redactor.redact_with(
        text,
        Options {
            learn: true,
            ..Options::default()
        },
    );
    let removed = r
        .found
        .iter()
        .map(|hit| Removed {
            path: Some(path.to_string()),
            line: Some(hit.line),
            kind: hit.kind,
            context: "the author's notes",
            hid_code: None,
        })
        .collect();
    if let std::borrow::Cow::Owned(t) = r.text {
        *text = t;
    }
    removed
}

/// Byte offsets of the `diff --git` lines after the first: where a new
/// file's text starts, which no redaction may cross.
fn file_starts(patch: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in patch.split_inclusive('\n') {
        if at > 0 && line.starts_with("diff --git ") {
            out.push(at);
        }
        at += line.len();
    }
    out
}

/// The redacted patch with each line's diff marker (`+`, `-`, ` `) back in
/// front: a span over several lines leaves a marker on each of them, and a
/// line of a hunk must still start with its own.
fn with_markers(original: &str, redacted: &str) -> String {
    let mut out = String::with_capacity(redacted.len());
    let mut originals = original.split_inclusive('\n');
    for line in redacted.split_inclusive('\n') {
        if let Some(first) = originals.next().and_then(|o| o.chars().next())
            && matches!(first, '+' | '-' | ' ')
            && !line.starts_with(first)
        {
            out.push(first);
        }
        out.push_str(line);
    }
    out
}

/// Redacts every convention file given to reviewers, in place; what it
/// finds is learned.
pub(crate) fn redact_context(cx: &mut ProjectContext, redactor: &Redactor) -> Vec<Removed> {
    let mut removed = Vec::new();
    for section in &mut cx.sections {
        let r = redactor.redact_with(
            &section.text,
            Options {
                learn: true,
                ..Options::default()
            },
        );
        if r.found.is_empty() {
            continue;
        }
        removed.extend(r.found.iter().map(|hit| Removed {
            path: Some(section.path.clone()),
            line: Some(hit.line),
            kind: hit.kind,
            context: "the project conventions",
            hid_code: None,
        }));
        section.text = r.text.into_owned();
    }
    removed
}

/// Where each line of a unified diff belongs: its file (from the top of the
/// repository) and its line in the new file (the old file for a removal).
struct PatchLines<'a> {
    /// (byte offset of the line, file, line number, an added line)
    lines: Vec<(usize, &'a str, Option<u32>, bool)>,
}

impl<'a> PatchLines<'a> {
    fn index(patch: &'a str) -> Self {
        let mut lines = Vec::new();
        let (mut file, mut old, mut new) = ("", 0u32, 0u32);
        let mut offset = 0;
        for line in patch.split_inclusive('\n') {
            let at = offset;
            offset += line.len();
            if let Some(rest) = line.strip_prefix("diff --git ") {
                // `a/x b/x`: the new side, until `+++` names it exactly.
                file = rest.rsplit_once(" b/").map_or("", |(_, b)| b.trim_end());
                lines.push((at, file, None, false));
                continue;
            }
            if let Some(p) = line.strip_prefix("+++ ") {
                let p = p.trim_end();
                if p != "/dev/null" {
                    file = p.strip_prefix("b/").unwrap_or(p);
                }
                lines.push((at, file, None, false));
                continue;
            }
            if line.starts_with("--- ") {
                lines.push((at, file, None, false));
                continue;
            }
            if let Some((o, n)) = hunk_starts(line) {
                (old, new) = (o, n);
                lines.push((at, file, None, false));
                continue;
            }
            match line.as_bytes().first() {
                Some(b'+') => {
                    lines.push((at, file, Some(new), true));
                    new += 1;
                }
                Some(b'-') => {
                    lines.push((at, file, Some(old), false));
                    old += 1;
                }
                Some(b' ') => {
                    lines.push((at, file, Some(new), false));
                    old += 1;
                    new += 1;
                }
                _ => lines.push((at, file, None, false)),
            }
        }
        PatchLines { lines }
    }

    /// The file and line of the patch's byte `offset`.
    fn at(&self, offset: usize) -> (&'a str, Option<u32>) {
        self.lines
            .get(self.index_of(offset))
            .map_or(("", None), |(_, file, line, _)| (*file, *line))
    }

    fn index_of(&self, offset: usize) -> usize {
        self.lines
            .partition_point(|(start, ..)| *start <= offset)
            .saturating_sub(1)
    }

    /// New-file numbers of the added lines that `start..end` touches.
    fn added_within(&self, start: usize, end: usize) -> Vec<u32> {
        self.lines[self.index_of(start)..]
            .iter()
            .take_while(|(at, ..)| *at < end)
            .filter(|(.., added)| *added)
            .filter_map(|(_, _, line, _)| *line)
            .collect()
    }
}

/// `@@ -12,3 +14,5 @@` → (12, 14).
fn hunk_starts(line: &str) -> Option<(u32, u32)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let new = rest.split(' ').next()?;
    let first = |s: &str| s.split(',').next().and_then(|n| n.parse().ok());
    Some((first(old)?, first(new)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_in_a_patch_are_located_at_file_and_line() {
        let patch = "diff --git a/.env b/.env\nnew file mode 100644\n--- /dev/null\n+++ b/.env\n@@ -0,0 +1,2 @@\n+HOST=db\n+DB_PASSWORD=hunter2hunter2\ndiff --git a/src/a.rs b/src/a.rs\n--- a/src/a.rs\n+++ b/src/a.rs\n@@ -10,3 +10,3 @@ fn x()\n ctx\n-let k = \"ghp_0123456789abcdefghijABCDEFGH\";\n+let k = env(\"K\");\n";
        let lines = PatchLines::index(patch);
        let r = Redactor::new().redact(patch);
        let at: Vec<_> = r.found.iter().map(|h| lines.at(h.start)).collect();
        assert_eq!(at, [(".env", Some(2)), ("src/a.rs", Some(11))]);
    }

    #[test]
    fn hunk_headers() {
        assert_eq!(hunk_starts("@@ -12,3 +14,5 @@ fn x"), Some((12, 14)));
        assert_eq!(hunk_starts("@@ -1 +1 @@"), Some((1, 1)));
        assert_eq!(hunk_starts("@@@ nope"), None);
    }
}
