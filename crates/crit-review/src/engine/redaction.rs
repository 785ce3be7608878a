//! Secrets in what a review sends: the diff and the project's conventions are
//! redacted before any reviewer sees them, and each secret found becomes an
//! `info` finding at its file and line, so the author learns a credential sits
//! in the change without the credential going anywhere.
//!
//! The redactor itself (what a secret looks like) is crit-core's; this module
//! knows where review inputs come from.

use crit_agent::redaction::ToolRedaction;
use crit_core::redact::{Redaction, Redactor};
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
}

impl Removed {
    pub(crate) fn finding(&self) -> Finding {
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

    /// A secret a tool's output held (a file a reviewer read, a grep hit).
    pub(crate) fn from_tool(t: &ToolRedaction) -> Removed {
        Removed {
            path: t.path.clone(),
            line: t.line,
            kind: t.kind,
            context: "a tool's output",
        }
    }
}

/// Each (path, line, kind) once: the same secret can reach reviewers through
/// the diff and through several reviewers' reads.
pub(crate) fn dedup(removed: &mut Vec<Removed>) {
    let mut seen = std::collections::BTreeSet::new();
    removed.retain(|r| seen.insert((r.path.clone(), r.line, r.kind)));
}

/// Redacts the change's patch in place; each secret is located at its file and
/// new-file line (an old-file line for a removed one).
pub(crate) fn redact_change(change: &mut Change, redactor: &Redactor) -> Vec<Removed> {
    let r = redactor.redact(&change.patch);
    if r.found.is_empty() {
        return Vec::new();
    }
    let lines = PatchLines::index(&change.patch);
    let removed = r
        .found
        .iter()
        .map(|hit| {
            let (path, line) = lines.at(hit);
            Removed {
                path: Some(change.path_from_root(path).to_string()),
                line,
                kind: hit.kind,
                context: "the change",
            }
        })
        .collect();
    change.patch = r.text.into_owned();
    removed
}

/// Redacts every convention file given to reviewers, in place.
pub(crate) fn redact_context(cx: &mut ProjectContext, redactor: &Redactor) -> Vec<Removed> {
    let mut removed = Vec::new();
    for section in &mut cx.sections {
        let r = redactor.redact(&section.text);
        if r.found.is_empty() {
            continue;
        }
        removed.extend(r.found.iter().map(|hit| Removed {
            path: Some(section.path.clone()),
            line: Some(hit.line),
            kind: hit.kind,
            context: "the project conventions",
        }));
        section.text = r.text.into_owned();
    }
    removed
}

/// Where each line of a unified diff belongs: its file (from the top of the
/// repository) and its line in the new file (the old file for a removal).
struct PatchLines<'a> {
    /// (byte offset of the line, file, line number)
    lines: Vec<(usize, &'a str, Option<u32>)>,
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
                lines.push((at, file, None));
                continue;
            }
            if let Some(p) = line.strip_prefix("+++ ") {
                let p = p.trim_end();
                if p != "/dev/null" {
                    file = p.strip_prefix("b/").unwrap_or(p);
                }
                lines.push((at, file, None));
                continue;
            }
            if line.starts_with("--- ") {
                lines.push((at, file, None));
                continue;
            }
            if let Some((o, n)) = hunk_starts(line) {
                (old, new) = (o, n);
                lines.push((at, file, None));
                continue;
            }
            match line.as_bytes().first() {
                Some(b'+') => {
                    lines.push((at, file, Some(new)));
                    new += 1;
                }
                Some(b'-') => {
                    lines.push((at, file, Some(old)));
                    old += 1;
                }
                Some(b' ') => {
                    lines.push((at, file, Some(new)));
                    old += 1;
                    new += 1;
                }
                _ => lines.push((at, file, None)),
            }
        }
        PatchLines { lines }
    }

    fn at(&self, hit: &Redaction) -> (&'a str, Option<u32>) {
        let i = self
            .lines
            .partition_point(|(start, ..)| *start <= hit.start)
            .saturating_sub(1);
        self.lines
            .get(i)
            .map_or(("", None), |(_, file, line)| (*file, *line))
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
        let at: Vec<_> = r.found.iter().map(|h| lines.at(h)).collect();
        assert_eq!(at, [(".env", Some(2)), ("src/a.rs", Some(11))]);
    }

    #[test]
    fn hunk_headers() {
        assert_eq!(hunk_starts("@@ -12,3 +14,5 @@ fn x"), Some((12, 14)));
        assert_eq!(hunk_starts("@@ -1 +1 @@"), Some((1, 1)));
        assert_eq!(hunk_starts("@@@ nope"), None);
    }
}
