//! Line numbers of the plan as a run found it, kept through the run's edits:
//! an edit is reported at the line the user wrote it on, not where an earlier
//! edit of the same run moved it.

/// For each line of the current text, its line in the text the run started from.
#[derive(Debug, Clone)]
pub(crate) struct LineOrigins(Vec<u32>);

impl LineOrigins {
    pub(crate) fn new(text: &str) -> Self {
        let n = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
        LineOrigins((1..=n).collect())
    }

    /// The starting text's line of current line `line` (1-based).
    pub(crate) fn original(&self, line: u32) -> u32 {
        line.checked_sub(1)
            .and_then(|i| self.0.get(i as usize))
            .copied()
            .unwrap_or(line)
    }

    /// Follows one edit from `before` to `after`. An edit changes one stretch
    /// of lines: those before and after it keep their origin, and the lines
    /// it wrote take the origin of the first line it replaced.
    pub(crate) fn follow(&mut self, before: &str, after: &str) {
        let b: Vec<&str> = before.lines().collect();
        let a: Vec<&str> = after.lines().collect();
        let prefix = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
        let room = b.len().min(a.len()) - prefix;
        let suffix = b
            .iter()
            .rev()
            .zip(a.iter().rev())
            .take(room)
            .take_while(|(x, y)| x == y)
            .count();
        let at = |i: usize| self.0.get(i).or(self.0.last()).copied().unwrap_or(1);
        let written = a.len() - prefix - suffix;
        let mut next: Vec<u32> = (0..prefix).map(at).collect();
        next.extend(std::iter::repeat_n(at(prefix), written));
        next.extend((b.len() - suffix..b.len()).map(at));
        self.0 = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_after_a_removed_line_keep_their_first_number() {
        let start = "a\nb\nc\nd\n";
        let mut o = LineOrigins::new(start);
        o.follow(start, "a\nc\nd\n");
        assert_eq!((o.original(1), o.original(2), o.original(3)), (1, 3, 4));
    }

    #[test]
    fn a_changed_line_and_inserted_lines_keep_the_number_they_replaced() {
        let start = "a\nb\nc\n";
        let mut o = LineOrigins::new(start);
        o.follow(start, "a\nB\nc\n");
        assert_eq!(o.original(2), 2);
        o.follow("a\nB\nc\n", "a\nB1\nB2\nc\n");
        assert_eq!((o.original(2), o.original(3), o.original(4)), (2, 2, 3));
    }

    #[test]
    fn edits_in_a_row_and_a_removed_paragraph() {
        let start = "1\n2\n\n4\n5\n\n7\n";
        let mut o = LineOrigins::new(start);
        let after = "1\n2\n\n7\n";
        o.follow(start, after);
        assert_eq!(o.original(4), 7);
        o.follow(after, "1\n2\n\nseven\n");
        assert_eq!(o.original(4), 7);
        // Out of range: the number as given.
        assert_eq!(o.original(40), 40);
    }
}
