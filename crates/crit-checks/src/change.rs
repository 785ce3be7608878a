//! What one edit changed in the plan's text, as people read it: the lines it
//! touched before and after, found by trimming the lines both texts share at
//! the start and the end. state.yaml records only the fix's description;
//! this is what the run that made the edit can also show.

use serde::Serialize;

/// The lines one edit replaced, and what replaced them (empty: removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The edit's entry in `state.history`.
    #[serde(skip)]
    pub history_index: usize,
    pub before: String,
    pub after: String,
}

impl Change {
    /// The changed lines between `old` and `new`; `None` when they are the same.
    pub fn between(history_index: usize, old: &str, new: &str) -> Option<Change> {
        let a: Vec<&str> = old.lines().collect();
        let b: Vec<&str> = new.lines().collect();
        let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let tail = a[head..]
            .iter()
            .rev()
            .zip(b[head..].iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let before = a[head..a.len() - tail].join("\n");
        let after = b[head..b.len() - tail].join("\n");
        (before != after).then_some(Change {
            history_index,
            before,
            after,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_lines_that_differ() {
        let c = Change::between(0, "a\nb c\nd\n", "a\nc\nd\n").unwrap();
        assert_eq!((c.before.as_str(), c.after.as_str()), ("b c", "c"));
        let c = Change::between(1, "a\n\nb\n\nc\n", "a\n\nc\n").unwrap();
        assert_eq!((c.before.as_str(), c.after.as_str()), ("b\n", ""));
        assert_eq!(Change::between(0, "same\n", "same\n"), None);
        // A repeated line is not mistaken for both head and tail.
        let c = Change::between(0, "x\nx\n", "x\n").unwrap();
        assert_eq!((c.before.as_str(), c.after.as_str()), ("x", ""));
    }
}
