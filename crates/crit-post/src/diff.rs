//! Which lines of a pull or merge request a comment may be put on: the
//! lines its diff shows (added and context lines of the new file), hunk by
//! hunk, with their text (a suggestion is checked against it).

/// One line a hunk shows on the new side.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Shown {
    new: u32,
    /// Its number in the old file, for a context line (GitLab wants both).
    old: Option<u32>,
    text: String,
}

/// One file's hunks: the new-side lines each shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FileDiff {
    hunks: Vec<Vec<Shown>>,
}

/// Where a finding's lines land in the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Anchor {
    /// First and last new-file lines of the comment, within one hunk.
    pub start: u32,
    pub end: u32,
    /// The old-file number of `start`, when it is a context line.
    pub start_old: Option<u32>,
    /// The comment covers every line of the finding (a suggestion may only
    /// be offered then).
    pub whole: bool,
    /// The current text of lines `start..=end`.
    pub current: Vec<String>,
}

impl FileDiff {
    /// Parses a unified diff's hunks (`@@ -a,b +c,d @@` and their lines);
    /// anything before the first hunk header (file headers) is skipped, and
    /// malformed lines are passed over rather than trusted.
    pub(crate) fn parse(patch: &str) -> Self {
        let mut hunks: Vec<Vec<Shown>> = Vec::new();
        let (mut old, mut new) = (0u32, 0u32);
        let mut open = false;
        for line in patch.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            if let Some(rest) = line.strip_prefix("@@ ") {
                match header(rest) {
                    Some((o, n)) => {
                        (old, new) = (o, n);
                        hunks.push(Vec::new());
                        open = true;
                    }
                    None => open = false,
                }
                continue;
            }
            let Some(hunk) = hunks.last_mut().filter(|_| open) else {
                continue;
            };
            match line.as_bytes().first() {
                Some(b'+') => {
                    hunk.push(Shown {
                        new,
                        old: None,
                        text: line[1..].to_string(),
                    });
                    new = new.saturating_add(1);
                }
                Some(b'-') => old = old.saturating_add(1),
                Some(b'\\') => {}
                Some(b' ') | None => {
                    hunk.push(Shown {
                        new,
                        old: Some(old),
                        text: line.get(1..).unwrap_or("").to_string(),
                    });
                    old = old.saturating_add(1);
                    new = new.saturating_add(1);
                }
                Some(_) => open = false,
            }
        }
        hunks.retain(|h| !h.is_empty());
        FileDiff { hunks }
    }

    /// The part of lines `start..=end` that one hunk shows: the first hunk
    /// that shows any of them, clipped to it.
    pub(crate) fn anchor(&self, start: u32, end: u32) -> Option<Anchor> {
        let end = end.max(start);
        self.hunks.iter().find_map(|hunk| {
            let lines: Vec<&Shown> = hunk
                .iter()
                .filter(|s| s.new >= start && s.new <= end)
                .collect();
            let first = lines.first()?;
            let last = lines.last()?;
            Some(Anchor {
                start: first.new,
                end: last.new,
                start_old: first.old,
                whole: first.new == start && last.new == end,
                current: lines.iter().map(|s| s.text.clone()).collect(),
            })
        })
    }
}

/// The old-file lines a unified diff removes or rewrites: what changed in
/// a file between two revisions, in the first revision's numbers.
pub(crate) fn changed_old_lines(patch: &str) -> std::collections::BTreeSet<u32> {
    let mut out = std::collections::BTreeSet::new();
    let mut old = 0u32;
    let mut open = false;
    for line in patch.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(rest) = line.strip_prefix("@@ ") {
            match header(rest) {
                Some((o, _)) => (old, open) = (o, true),
                None => open = false,
            }
            continue;
        }
        if !open {
            continue;
        }
        match line.as_bytes().first() {
            Some(b'-') => {
                out.insert(old);
                old = old.saturating_add(1);
            }
            Some(b'+') | Some(b'\\') => {}
            Some(b' ') | None => old = old.saturating_add(1),
            Some(_) => open = false,
        }
    }
    out
}

/// `-a,b +c,d @@ …` → (a, c).
fn header(rest: &str) -> Option<(u32, u32)> {
    let mut parts = rest.split_whitespace();
    let start = |p: Option<&str>, sign: char| -> Option<u32> {
        p?.strip_prefix(sign)?.split(',').next()?.parse().ok()
    };
    Some((start(parts.next(), '-')?, start(parts.next(), '+')?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "@@ -1,2 +1,4 @@\n fn main() {\n+    let a = 1;\n+    let b = 2;\n }\n@@ -18,2 +20,3 @@ fn other()\n x\n-gone\n+y\n z\n\\ No newline at end of file";

    #[test]
    fn anchors_clip_to_one_hunk() {
        let d = FileDiff::parse(PATCH);
        let a = d.anchor(2, 3).unwrap();
        assert_eq!((a.start, a.end, a.whole, a.start_old), (2, 3, true, None));
        assert_eq!(a.current, ["    let a = 1;", "    let b = 2;"]);
        let clipped = d.anchor(3, 10).unwrap();
        assert_eq!((clipped.start, clipped.end, clipped.whole), (3, 4, false));
        let context = d.anchor(20, 20).unwrap();
        assert_eq!(
            (context.start_old, context.current.clone()),
            (Some(18), vec!["x".to_string()])
        );
        assert_eq!(d.anchor(21, 21).unwrap().start_old, None, "the added line");
        assert_eq!(d.anchor(22, 22).unwrap().start_old, Some(20));
        assert_eq!(d.anchor(5, 19), None);
        assert_eq!(
            d.anchor(9, 2).map(|a| a.start),
            None,
            "end before start is start"
        );
    }

    #[test]
    fn changed_lines_are_counted_on_the_old_side() {
        let changed = changed_old_lines("@@ -9,4 +9,5 @@\n x\n-a\n-b\n+c\n+d\n+e\n y");
        assert_eq!(changed.into_iter().collect::<Vec<_>>(), [10, 11]);
        assert!(changed_old_lines("@@ -3,1 +3,2 @@\n x\n+new").is_empty());
    }

    #[test]
    fn garbage_is_not_trusted() {
        assert_eq!(FileDiff::parse(""), FileDiff::default());
        assert_eq!(FileDiff::parse("Binary files differ"), FileDiff::default());
        let d = FileDiff::parse("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\r\n");
        assert_eq!(d.anchor(1, 1).unwrap().current, ["b"]);
        let broken = FileDiff::parse("@@ -x +y @@\n+a\n@@ -1 +4294967295 @@\n+a\n+b");
        assert!(broken.anchor(1, 1).is_none());
        assert!(broken.anchor(u32::MAX, u32::MAX).is_some());
    }
}
