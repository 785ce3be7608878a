//! Exact secret values a redactor knows: the credentials crit holds, and the
//! secrets it found earlier in the same review. Kept behind a lock so every
//! clone of a redactor, on any thread, learns and hides the same values.

use aho_corasick::{AhoCorasick, MatchKind};

use super::Hit;

/// Shorter values are not treated as secrets: they would match ordinary words.
pub(super) const MIN_KNOWN_LEN: usize = 8;

#[derive(Default)]
pub(super) struct Known {
    /// (value, kind), each value once.
    values: Vec<(String, &'static str)>,
    /// Every value at once, leftmost-longest; rebuilt when one is learned.
    matcher: Option<AhoCorasick>,
}

impl Known {
    pub(super) fn len(&self) -> usize {
        self.values.len()
    }

    /// Adds `value`; false when it is too short or already known.
    pub(super) fn add(&mut self, value: &str, kind: &'static str) -> bool {
        let value = value.trim();
        if value.len() < MIN_KNOWN_LEN || self.values.iter().any(|(v, _)| v == value) {
            return false;
        }
        self.values.push((value.to_string(), kind));
        // A value the automaton cannot take (never, for the sizes here) is
        // still hidden: `find` falls back to a plain search.
        self.matcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(self.values.iter().map(|(v, _)| v.as_str()))
            .ok();
        true
    }

    pub(super) fn find(&self, text: &str, hits: &mut Vec<Hit>) {
        if self.values.is_empty() {
            return;
        }
        match &self.matcher {
            Some(ac) => {
                for m in ac.find_iter(text) {
                    let kind = self.values[m.pattern().as_usize()].1;
                    hits.push(Hit::new(m.start(), m.end(), kind));
                }
            }
            None => {
                for (value, kind) in &self.values {
                    for (at, _) in text.match_indices(value.as_str()) {
                        hits.push(Hit::new(at, at + value.len(), kind));
                    }
                }
            }
        }
    }

    pub(super) fn copy(&self) -> Known {
        Known {
            values: self.values.clone(),
            matcher: self.matcher.clone(),
        }
    }
}
