//! A change's patch cut into the units the review works in: one section per
//! file (its `diff --git` header lines) and, inside it, one piece of text per
//! hunk. The hunk cache keys on a hunk's text; chunking packs hunks into parts
//! that fit the model's context; the prompt shows each hunk with new-file line
//! numbers. Joining every unit back gives the patch again.

use std::ops::Range;

use super::parse::{parse_hunk_header, parse_patch};
use super::{Change, Hunk};

/// One file's part of the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    /// Index of the file in [`Change::files`], when the section was matched.
    pub file: Option<usize>,
    /// The lines before the first hunk (`diff --git`, `index`, `---`, `+++`,
    /// or a binary notice).
    pub header: String,
    pub hunks: Vec<HunkText>,
}

/// One hunk: its numbers and its text from the `@@` line on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkText {
    pub hunk: Hunk,
    pub text: String,
}

impl HunkText {
    /// The new-file lines the hunk covers (a deletion covers the line it
    /// follows), for attributing findings.
    pub fn new_range(&self) -> Range<u32> {
        let start = self.hunk.new_start.max(1);
        start..start + self.hunk.new_lines.max(1)
    }

    /// The text without the `@@ -a,b +c,d @@` numbers: the same hunk moved
    /// by an edit above it reads the same.
    pub fn without_numbers(&self) -> &str {
        let first_end = self.text.find('\n').map_or(self.text.len(), |i| i + 1);
        let first = &self.text[..first_end];
        match first.get(2..).and_then(|rest| rest.find("@@")) {
            // Keep the function heading git puts after the second `@@`.
            Some(i) => &self.text[i + 4..],
            None => &self.text,
        }
    }
}

/// `hunk` cut at line boundaries into hunks of at most about `max` bytes
/// each (a single longer line is kept whole), each with its own correct
/// `@@` header: a 5 MB generated file is reviewed in parts, not cut off.
pub fn split_hunk(hunk: &HunkText, max: usize) -> Vec<HunkText> {
    if hunk.text.len() <= max {
        return vec![hunk.clone()];
    }
    let heading = hunk
        .text
        .lines()
        .next()
        .and_then(|l| l.get(2..))
        .and_then(|rest| rest.find("@@").map(|i| rest[i + 2..].to_string()))
        .unwrap_or_default();
    let mut out = Vec::new();
    let (mut old, mut new) = (hunk.hunk.old_start, hunk.hunk.new_start);
    let mut body = String::new();
    let (mut old_n, mut new_n) = (0u32, 0u32);
    let mut added = Vec::new();
    let mut flush = |body: &mut String,
                     old: &mut u32,
                     new: &mut u32,
                     old_n: &mut u32,
                     new_n: &mut u32,
                     added: &mut Vec<u32>| {
        if body.is_empty() {
            return;
        }
        let text = format!("@@ -{old},{old_n} +{new},{new_n} @@{heading}\n{body}");
        out.push(HunkText {
            hunk: Hunk {
                old_start: *old,
                old_lines: *old_n,
                new_start: *new,
                new_lines: *new_n,
                added: std::mem::take(added),
            },
            text,
        });
        *old += *old_n;
        *new += *new_n;
        (*old_n, *new_n) = (0, 0);
        body.clear();
    };
    for line in hunk.text.split_inclusive('\n').skip(1) {
        if !body.is_empty() && body.len() + line.len() > max && !line.starts_with('\\') {
            flush(
                &mut body, &mut old, &mut new, &mut old_n, &mut new_n, &mut added,
            );
        }
        match line.chars().next() {
            Some('-') => old_n += 1,
            Some('+') => {
                added.push(new + new_n);
                new_n += 1;
            }
            Some('\\') => {}
            _ => {
                old_n += 1;
                new_n += 1;
            }
        }
        body.push_str(line);
    }
    flush(
        &mut body, &mut old, &mut new, &mut old_n, &mut new_n, &mut added,
    );
    out
}

/// The patch of `change`, file by file, hunk by hunk.
pub fn split(change: &Change) -> Vec<FilePatch> {
    section_owners(change)
        .into_iter()
        .filter_map(|(range, file)| {
            let text = change.patch.get(range)?;
            Some(split_section(text, file))
        })
        .collect()
}

fn split_section(text: &str, file: Option<usize>) -> FilePatch {
    let mut out = FilePatch {
        file,
        header: String::new(),
        hunks: Vec::new(),
    };
    // New-side lines (context and added) of the current hunk so far: counted
    // as they pass, not recounted per added line (that was quadratic in a
    // hunk's length: seconds on a big generated file).
    let mut new_seen = 0u32;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if let Some(hunk) = parse_hunk_header(body) {
            out.hunks.push(HunkText {
                hunk,
                text: line.to_string(),
            });
            new_seen = 0;
            continue;
        }
        match out.hunks.last_mut() {
            Some(h) => {
                if body.starts_with('+') {
                    h.hunk
                        .added
                        .push(h.hunk.new_start.max(1).saturating_add(new_seen));
                }
                if !body.starts_with('-') && !body.starts_with('\\') {
                    new_seen = new_seen.saturating_add(1);
                }
                h.text.push_str(line);
            }
            None => out.header.push_str(line),
        }
    }
    out
}

/// Each patch section's byte range and the index of the file it belongs to:
/// the file whose `diff --git a/OLD b/NEW` line it starts with, in order; a
/// section git quoted (or any the listing does not explain) goes to the next
/// file not yet matched.
pub(super) fn section_owners(change: &Change) -> Vec<(Range<usize>, Option<usize>)> {
    let expected: Vec<String> = change
        .files
        .iter()
        .map(|f| {
            let old = f.old_path.as_deref().unwrap_or(&f.path);
            format!("diff --git a/{old} b/{}", f.path)
        })
        .collect();
    let mut next = 0;
    parse_patch(&change.patch)
        .into_iter()
        .map(|s| {
            let header = change
                .patch
                .get(s.range.clone())
                .and_then(|t| t.lines().next())
                .unwrap_or_default();
            let owner = match (next..expected.len()).find(|&i| expected[i] == header) {
                Some(i) => Some(i),
                // A path's next section (commits or layers joined in one
                // change): the file it belongs to, matched before.
                None => match expected[..next].iter().position(|e| *e == header) {
                    Some(i) => return (s.range, Some(i)),
                    None if next < expected.len() => Some(next),
                    None => None,
                },
            };
            if let Some(i) = owner {
                next = i + 1;
            }
            (s.range, owner)
        })
        .collect()
}

/// One hunk with every new-side line numbered, so a reviewer cites the line
/// a finding is on without counting: `  41 + code`, `  40   context`, and
/// `     - removed` (a removed line has no new number).
pub fn numbered(hunk: &HunkText) -> String {
    let mut out = String::with_capacity(hunk.text.len() + hunk.text.len() / 4);
    let mut next = hunk.hunk.new_start.max(1);
    for (i, line) in hunk.text.split_inclusive('\n').enumerate() {
        if i == 0 {
            out.push_str(line);
            continue;
        }
        let (marker, rest) = match line.chars().next() {
            Some(c @ ('+' | '-' | ' ')) => (c, &line[1..]),
            Some('\\') => {
                out.push_str("        ");
                out.push_str(line);
                continue;
            }
            // An empty context line whose space was stripped.
            _ => (' ', line),
        };
        match marker {
            '-' => out.push_str("      - "),
            _ => {
                out.push_str(&format!("{next:>5} {marker} "));
                next = next.saturating_add(1);
            }
        }
        out.push_str(rest);
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hunk(text: &str) -> HunkText {
        let first = text.lines().next().unwrap();
        HunkText {
            hunk: parse_hunk_header(first).unwrap(),
            text: text.to_string(),
        }
    }

    #[test]
    fn numbered_lines_follow_the_new_file() {
        let h = hunk(
            "@@ -40,3 +40,4 @@ fn get()\n     let c = pool.get()?;\n-    old();\n+    if fail {\n+        return Err(e);\n\n\\ No newline at end of file\n",
        );
        assert_eq!(
            numbered(&h),
            "@@ -40,3 +40,4 @@ fn get()\n   40       let c = pool.get()?;\n      -     old();\n   41 +     if fail {\n   42 +         return Err(e);\n   43   \n        \\ No newline at end of file\n"
        );
    }

    #[test]
    fn a_huge_hunk_is_split_into_valid_hunks() {
        let mut text = String::from("@@ -10,3 +10,203 @@ fn big()\n a\n-b\n");
        for i in 0..200 {
            text.push_str(&format!("+line {i}\n"));
        }
        text.push_str(" c\n+last\n");
        let h = hunk(&text);
        let parts = split_hunk(&h, 400);
        assert!(parts.len() >= 5, "{}", parts.len());
        let (mut old, mut new) = (10, 10);
        let mut added = Vec::new();
        for p in &parts {
            assert!(p.text.len() <= 400 + 40, "{}", p.text.len());
            let again = parse_hunk_header(p.text.lines().next().unwrap()).unwrap();
            assert_eq!((again.old_start, again.new_start), (old, new));
            assert!(p.text.lines().next().unwrap().ends_with("@@ fn big()"));
            let olds = p
                .text
                .lines()
                .skip(1)
                .filter(|l| !l.starts_with('+'))
                .count() as u32;
            let news = p
                .text
                .lines()
                .skip(1)
                .filter(|l| !l.starts_with('-'))
                .count() as u32;
            assert_eq!((again.old_lines, again.new_lines), (olds, news));
            old += olds;
            new += news;
            added.extend(p.hunk.added.iter().copied());
        }
        assert_eq!((old, new), (13, 213));
        assert_eq!(added, (11..=210).chain([212]).collect::<Vec<u32>>());
        assert_eq!(split_hunk(&h, usize::MAX), vec![h]);
    }

    #[test]
    fn the_numbers_do_not_make_a_moved_hunk_new() {
        let a = hunk("@@ -1,2 +1,2 @@ fn f()\n-a\n+b\n");
        let b = hunk("@@ -31,2 +35,2 @@ fn f()\n-a\n+b\n");
        assert_eq!(a.without_numbers(), b.without_numbers());
        assert_eq!(a.without_numbers(), " fn f()\n-a\n+b\n");
        assert_eq!(a.new_range(), 1..3);
        let deletion = hunk("@@ -5,2 +4,0 @@\n-x\n-y\n");
        assert_eq!(deletion.new_range(), 4..5);
    }
}
