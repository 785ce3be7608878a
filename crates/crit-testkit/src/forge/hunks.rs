//! The lines of a unified diff's hunks, as the forges see them: which old and
//! new line numbers each hunk shows (the lines a comment may be put on).
//! Written apart from crit's own parser on purpose: a stand-in that shared
//! the client's code could not catch the client's mistakes.

/// One line shown in a hunk: its number in the old file, the new file, or
/// both (context).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shown {
    pub hunk: usize,
    pub old: Option<u32>,
    pub new: Option<u32>,
}

/// Every line the hunks of `patch` show.
pub(crate) fn shown(patch: &str) -> Vec<Shown> {
    let mut out = Vec::new();
    let (mut old, mut new) = (0u32, 0u32);
    let mut hunk = None::<usize>;
    for line in patch.lines() {
        if let Some(rest) = line.strip_prefix("@@ ") {
            let mut ranges = rest.split_whitespace();
            let start = |r: Option<&str>, sign: char| -> Option<u32> {
                r?.strip_prefix(sign)?.split(',').next()?.parse().ok()
            };
            match (start(ranges.next(), '-'), start(ranges.next(), '+')) {
                (Some(o), Some(n)) => {
                    old = o;
                    new = n;
                    hunk = Some(hunk.map_or(0, |h| h + 1));
                }
                _ => hunk = None,
            }
            continue;
        }
        let Some(h) = hunk else { continue };
        match line.chars().next() {
            Some('+') => {
                out.push(Shown {
                    hunk: h,
                    old: None,
                    new: Some(new),
                });
                new += 1;
            }
            Some('-') => {
                out.push(Shown {
                    hunk: h,
                    old: Some(old),
                    new: None,
                });
                old += 1;
            }
            Some('\\') => {}
            _ => {
                out.push(Shown {
                    hunk: h,
                    old: Some(old),
                    new: Some(new),
                });
                old += 1;
                new += 1;
            }
        }
    }
    out
}

/// The text of new-side line `line` as the hunks of `patch` show it.
pub(crate) fn new_text(patch: &str, line: u32) -> Option<String> {
    let mut new = 0u32;
    let mut open = false;
    for l in patch.lines() {
        if let Some(rest) = l.strip_prefix("@@ ") {
            let n = rest
                .split_whitespace()
                .nth(1)
                .and_then(|r| r.strip_prefix('+'))
                .and_then(|r| r.split(',').next())
                .and_then(|r| r.parse::<u32>().ok());
            open = n.is_some();
            new = n.unwrap_or(0);
            continue;
        }
        if !open {
            continue;
        }
        match l.chars().next() {
            Some('-') | Some('\\') => {}
            _ => {
                if new == line {
                    return Some(l.get(1..).unwrap_or("").to_string());
                }
                new += 1;
            }
        }
    }
    None
}

/// The shown line with this number on the new (`right`) or old side.
pub(crate) fn find(lines: &[Shown], line: u32, right: bool) -> Option<Shown> {
    lines
        .iter()
        .copied()
        .find(|s| if right { s.new } else { s.old } == Some(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_the_hunk_headers() {
        let patch = "@@ -1,3 +1,4 @@\n a\n-b\n+B\n+C\n c\n@@ -10 +11,2 @@ fn x()\n x\n+y\n\\ No newline at end of file";
        let lines = shown(patch);
        assert_eq!(find(&lines, 2, true).map(|s| s.old), Some(None));
        assert_eq!(find(&lines, 4, true).map(|s| s.old), Some(Some(3)));
        assert_eq!(find(&lines, 2, false).map(|s| s.new), Some(None));
        assert_eq!(find(&lines, 12, true).map(|s| s.hunk), Some(1));
        assert_eq!(find(&lines, 11, true).map(|s| s.old), Some(Some(10)));
        assert_eq!(find(&lines, 5, true), None);
    }
}
