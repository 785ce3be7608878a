//! Reading git's output: the `--raw --numstat -z` listing (file names exactly,
//! statuses, counts) and the unified diff (per-file sections and their hunks).
//!
//! Both come from the same diff options, so git lists files in the same order
//! in each: the n-th patch section belongs to the n-th listed file. Paths come
//! from the NUL-separated listing only, never from patch headers, which quote
//! and prefix them.

use std::ops::Range;

use super::{ChangedFile, FileStatus, Hunk};

/// One file's part of a unified diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchSection {
    /// Byte range of the section in the patch text.
    pub range: Range<usize>,
    pub hunks: Vec<Hunk>,
}

/// What was malformed in git's listing (the token, as git wrote it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum ListingError {
    #[error("unexpected entry `{0}`")]
    Entry(String),
    #[error("a count without a file: `{0}`")]
    CountWithoutFile(String),
    #[error("bad count in `{0}`")]
    Count(String),
    #[error("unexpected raw entry `:{0}`")]
    Raw(String),
    #[error("raw entry `:{0}` has no path")]
    NoPath(String),
    #[error("raw entry `:{0}` has no new path")]
    NoNewPath(String),
}

/// Files of a `git diff --raw [--numstat] -z` listing, in git's order. Hunks
/// are empty; `Err` says what was malformed.
pub(super) fn parse_listing(bytes: &[u8]) -> Result<Vec<ChangedFile>, ListingError> {
    let mut tokens = bytes
        .split(|b| *b == 0)
        .map(|t| String::from_utf8_lossy(t).into_owned());
    let mut files: Vec<ChangedFile> = Vec::new();
    let mut counted = 0;
    while let Some(tok) = tokens.next() {
        if tok.is_empty() {
            continue;
        }
        if let Some(raw) = tok.strip_prefix(':') {
            files.push(raw_entry(raw, &mut tokens)?);
            continue;
        }
        // numstat: "ADD\tDEL\tPATH" or, for a rename or copy, "ADD\tDEL\t" + two paths.
        let mut parts = tok.splitn(3, '\t');
        let (add, del, path) = (parts.next(), parts.next(), parts.next());
        let (Some(add), Some(del), Some(path)) = (add, del, path) else {
            return Err(ListingError::Entry(tok));
        };
        if path.is_empty() {
            tokens.next();
            tokens.next();
        }
        let file = files
            .get_mut(counted)
            .ok_or_else(|| ListingError::CountWithoutFile(tok.clone()))?;
        counted += 1;
        if add == "-" && del == "-" {
            file.binary = true;
        } else {
            let bad = |_| ListingError::Count(tok.clone());
            file.additions = add.parse().map_err(bad)?;
            file.deletions = del.parse().map_err(bad)?;
        }
    }
    Ok(files)
}

/// Each file's added and deleted lines from a `git diff --numstat -z`
/// listing, by its (new) path. A file git calls binary (`-`) is not in it.
pub(super) fn parse_counts(
    bytes: &[u8],
) -> Result<std::collections::HashMap<String, (u32, u32)>, ListingError> {
    let mut tokens = bytes
        .split(|b| *b == 0)
        .map(|t| String::from_utf8_lossy(t).into_owned());
    let mut counts = std::collections::HashMap::new();
    while let Some(tok) = tokens.next() {
        if tok.is_empty() {
            continue;
        }
        // "ADD\tDEL\tPATH" or, for a rename or copy, "ADD\tDEL\t" + two paths.
        let mut parts = tok.splitn(3, '\t');
        let (Some(add), Some(del), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(ListingError::Entry(tok));
        };
        let path = match path.is_empty() {
            true => {
                tokens.next();
                tokens.next().unwrap_or_default()
            }
            false => path.to_string(),
        };
        if add == "-" && del == "-" {
            continue;
        }
        let bad = |_| ListingError::Count(tok.clone());
        counts.insert(path, (add.parse().map_err(bad)?, del.parse().map_err(bad)?));
    }
    Ok(counts)
}

/// `OLDMODE NEWMODE OLDSHA NEWSHA STATUS[SCORE]` then one or two paths.
fn raw_entry(
    raw: &str,
    tokens: &mut impl Iterator<Item = String>,
) -> Result<ChangedFile, ListingError> {
    let letter = raw
        .rsplit(' ')
        .next()
        .and_then(|s| s.chars().next())
        .ok_or_else(|| ListingError::Raw(raw.into()))?;
    let status = match letter {
        'A' => FileStatus::Added,
        'D' => FileStatus::Deleted,
        'R' => FileStatus::Renamed,
        'C' => FileStatus::Copied,
        'T' => FileStatus::TypeChanged,
        _ => FileStatus::Modified,
    };
    let first = tokens
        .next()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| ListingError::NoPath(raw.into()))?;
    let (path, old_path) = if matches!(status, FileStatus::Renamed | FileStatus::Copied) {
        let new = tokens
            .next()
            .filter(|t| !t.is_empty())
            .ok_or_else(|| ListingError::NoNewPath(raw.into()))?;
        (new, Some(first))
    } else {
        (first, None)
    };
    Ok(ChangedFile {
        path,
        old_path,
        status,
        additions: 0,
        deletions: 0,
        binary: false,
        hunks: Vec::new(),
    })
}

/// Splits a unified diff into per-file sections (each starting at a `diff `
/// line) and reads their hunks. Never fails: malformed lines are skipped, a
/// hunk cut short ends where its lines end.
pub fn parse_patch(text: &str) -> Vec<PatchSection> {
    let mut sections: Vec<PatchSection> = Vec::new();
    let mut hunk: Option<(Hunk, u32, u32, u32)> = None; // hunk, old left, new left, next new line
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches('\n').trim_end_matches('\r');
        if let Some((h, old_left, new_left, next_new)) = hunk.as_mut() {
            if *old_left > 0 || *new_left > 0 {
                let counted = match body.as_bytes().first() {
                    // An empty line is a context line whose space was stripped.
                    None | Some(b' ') => {
                        *old_left = old_left.saturating_sub(1);
                        *new_left = new_left.saturating_sub(1);
                        *next_new = next_new.saturating_add(1);
                        true
                    }
                    Some(b'-') => {
                        *old_left = old_left.saturating_sub(1);
                        true
                    }
                    Some(b'+') => {
                        h.added.push(*next_new);
                        *new_left = new_left.saturating_sub(1);
                        *next_new = next_new.saturating_add(1);
                        true
                    }
                    Some(b'\\') => true,
                    _ => false,
                };
                if counted {
                    if let Some(s) = sections.last_mut() {
                        s.range.end = offset;
                    }
                    continue;
                }
            }
            if body.starts_with('\\') {
                if let Some(s) = sections.last_mut() {
                    s.range.end = offset;
                }
                continue;
            }
            close(&mut sections, &mut hunk);
        }
        if body.starts_with("diff ") {
            sections.push(PatchSection {
                range: start..offset,
                hunks: Vec::new(),
            });
            continue;
        }
        if let Some(s) = sections.last_mut() {
            s.range.end = offset;
            if let Some(h) = parse_hunk_header(body) {
                let (old, new, next) = (h.old_lines, h.new_lines, h.new_start.max(1));
                hunk = Some((h, old, new, next));
            }
        }
    }
    close(&mut sections, &mut hunk);
    sections
}

fn close(sections: &mut [PatchSection], hunk: &mut Option<(Hunk, u32, u32, u32)>) {
    if let (Some((h, ..)), Some(s)) = (hunk.take(), sections.last_mut()) {
        s.hunks.push(h);
    }
}

/// `@@ -OLD[,N] +NEW[,N] @@ ...`; a missing count is 1.
pub fn parse_hunk_header(line: &str) -> Option<Hunk> {
    let rest = line.strip_prefix("@@ -")?;
    let (ranges, _) = rest.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let range = |s: &str| -> Option<(u32, u32)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (old_start, old_lines) = range(old)?;
    let (new_start, new_lines) = range(new)?;
    Some(Hunk {
        old_start,
        old_lines,
        new_start,
        new_lines,
        added: Vec::new(),
    })
}

/// The patch section git would print for a new file, for an untracked one,
/// with its hunk (none for an empty file).
pub(super) fn untracked_section(path: &str, content: &str, mode: &str) -> (String, Option<Hunk>) {
    let mut text = format!("diff --git a/{path} b/{path}\nnew file mode {mode}\n");
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    if lines.is_empty() {
        return (text, None);
    }
    let n = u32::try_from(lines.len()).unwrap_or(u32::MAX);
    let count = if n == 1 {
        String::new()
    } else {
        format!(",{n}")
    };
    text.push_str(&format!(
        "--- /dev/null\n+++ b/{path}\n@@ -0,0 +1{count} @@\n"
    ));
    for l in &lines {
        text.push('+');
        text.push_str(l);
    }
    if !content.ends_with('\n') {
        text.push_str("\n\\ No newline at end of file\n");
    }
    let hunk = Hunk {
        old_start: 0,
        old_lines: 0,
        new_start: 1,
        new_lines: n,
        added: (1..=n).collect(),
    };
    (text, Some(hunk))
}

/// `text` cut to at most `max` bytes: at the end of the last whole file section
/// when that keeps at least half, else at the end of a line.
pub(super) fn cut_patch(text: &str, sections: &[PatchSection], max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let at_file = sections
        .iter()
        .map(|s| s.range.end)
        .filter(|e| *e <= max)
        .max()
        .unwrap_or(0);
    let end = if at_file >= max / 2 {
        at_file
    } else {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text[..end].rfind('\n').map_or(0, |i| i + 1)
    };
    text[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (patch, per section: per hunk (old_start, old_lines, new_start, new_lines, added))
    type Expect = &'static [&'static [(u32, u32, u32, u32, &'static [u32])]];

    type HunkTuple = (u32, u32, u32, u32, Vec<u32>);

    #[test]
    fn hunk_parser_table() {
        let table: &[(&str, &str, Expect)] = &[
            (
                "new file of one line",
                "diff --git a/x b/x\nnew file mode 100644\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+only\n",
                &[&[(0, 0, 1, 1, &[1])]],
            ),
            (
                "no newline markers on both sides",
                "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
                &[&[(1, 2, 1, 2, &[2])]],
            ),
            (
                "empty new file has no hunk",
                "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n",
                &[&[]],
            ),
            (
                "deleted file",
                "diff --git a/d b/d\ndeleted file mode 100644\n--- a/d\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-a\n-b\n",
                &[&[(1, 2, 0, 0, &[])]],
            ),
            (
                "CRLF lines and a blank context line with its space stripped",
                "diff --git a/c b/c\r\n--- a/c\r\n+++ b/c\r\n@@ -1,3 +1,3 @@\r\n a\r\n\n-b\r\n+B\r\n",
                &[&[(1, 3, 1, 3, &[3])]],
            ),
            (
                "two files, two hunks, a line that looks like a header inside a hunk",
                "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-x\n+diff --git a/z b/z\n@@ -10,2 +10,3 @@ fn ctx()\n k\n+n\n k\ndiff --git a/b b/b\nBinary files a/b and b/b differ\n",
                &[&[(1, 1, 1, 1, &[1]), (10, 2, 10, 3, &[11])], &[]],
            ),
            (
                "a hunk cut short by truncation",
                "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1,5 +1,6 @@\n a\n+b\n",
                &[&[(1, 5, 1, 6, &[2])]],
            ),
            (
                "garbage before and between",
                "commit 123\nAuthor: x\n\ndiff --git a/a b/a\n@@ nonsense @@\n@@ -3,1 +3,1 @@\n-q\n+r\nrandom trailer\n",
                &[&[(3, 1, 3, 1, &[3])]],
            ),
        ];
        for (what, text, want) in table {
            let sections = parse_patch(text);
            let got: Vec<Vec<HunkTuple>> = sections
                .iter()
                .map(|s| {
                    s.hunks
                        .iter()
                        .map(|h| {
                            (
                                h.old_start,
                                h.old_lines,
                                h.new_start,
                                h.new_lines,
                                h.added.clone(),
                            )
                        })
                        .collect()
                })
                .collect();
            let want: Vec<Vec<HunkTuple>> = want
                .iter()
                .map(|s| {
                    s.iter()
                        .map(|(a, b, c, d, e)| (*a, *b, *c, *d, e.to_vec()))
                        .collect()
                })
                .collect();
            assert_eq!(got, want, "{what}");
            // Sections tile the text from the first `diff` line, in order.
            for pair in sections.windows(2) {
                assert_eq!(pair[0].range.end, pair[1].range.start, "{what}");
            }
            if let Some(last) = sections.last() {
                assert!(last.range.end <= text.len(), "{what}");
            }
        }
    }

    #[test]
    fn hunk_parser_never_panics_on_line_soup() {
        let pieces = [
            "diff --git a/x b/x\n",
            "@@ -1 +1 @@\n",
            "@@ -0,0 +1,4294967295 @@\n",
            "@@ -4294967295,9 +4294967295,9 @@\n",
            "@@ -4294967295,2 +1 @@\n",
            "+added\n",
            "-removed\n",
            " ctx\n",
            "\\ No newline at end of file\n",
            "\n",
            "\r\n",
            "@@ -a,b +c @@\n",
            "@@ -1,2\n",
            "ü\n",
            "+",
            "@@ -1 +1 @@",
            "diff ",
            "\u{0}\n",
        ];
        // A fixed linear congruential sequence: reproducible, no extra dependency.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(state % 24) {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push_str(pieces[(state >> 33) as usize % pieces.len()]);
            }
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            for s in parse_patch(&text) {
                assert!(s.range.start <= s.range.end && s.range.end <= text.len());
                for h in &s.hunks {
                    assert!(h.added.windows(2).all(|w| w[0] <= w[1]), "{text:?}");
                }
            }
        }
    }

    #[test]
    fn listing_reads_renames_binaries_and_odd_names() {
        let raw = b":100644 100644 aaa bbb M\0with space\0:100644 100644 ccc ddd R087\0old\0new\0\
:000000 100644 000 eee A\0bin\0\
3\t1\twith space\0\
2\t2\t\0old\0new\0\
-\t-\tbin\0";
        let files = parse_listing(raw).unwrap();
        let got: Vec<_> = files
            .iter()
            .map(|f| {
                (
                    f.path.as_str(),
                    f.old_path.as_deref(),
                    f.status,
                    f.additions,
                    f.deletions,
                    f.binary,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("with space", None, FileStatus::Modified, 3, 1, false),
                ("new", Some("old"), FileStatus::Renamed, 2, 2, false),
                ("bin", None, FileStatus::Added, 0, 0, true),
            ]
        );
        assert!(parse_listing(b"1\t2\tx\0").is_err());
        assert!(parse_listing(b":100644 100644 a b M\0").is_err());
        assert!(parse_listing(b"").unwrap().is_empty());
    }

    #[test]
    fn cut_prefers_a_file_boundary() {
        let text = "diff --git a/a b/a\n+1\n+2\ndiff --git a/b b/b\n+3\n";
        let sections = parse_patch(text);
        assert_eq!(
            cut_patch(text, &sections, 40),
            "diff --git a/a b/a\n+1\n+2\n"
        );
        assert_eq!(cut_patch(text, &sections, 21), "diff --git a/a b/a\n");
        assert_eq!(cut_patch(text, &sections, 10), "");
        assert_eq!(cut_patch("ü\nü", &[], 4), "ü\n");
    }
}
