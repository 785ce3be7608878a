//! Exact secret values a redactor knows: the credentials crit holds, and the
//! secrets it found earlier in the same review. Kept behind a lock so every
//! clone of a redactor, on any thread, learns and hides the same values.

use std::collections::HashSet;

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
    /// Every [`FRAGMENT`]-byte window of every value that mixes letters and
    /// digits, for text that may hold a secret cut into pieces.
    windows: HashSet<[u8; FRAGMENT]>,
}

/// The shortest piece of a known secret that is hidden on its own.
pub(super) const FRAGMENT: usize = 8;

/// Whether a window is specific enough to stand for its secret: a run of
/// letters alone (`password`) or digits alone would hide ordinary words.
fn specific(window: &[u8]) -> bool {
    window.iter().any(u8::is_ascii_alphabetic) && window.iter().any(u8::is_ascii_digit)
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
        for w in value.as_bytes().windows(FRAGMENT).filter(|w| specific(w)) {
            let mut key = [0u8; FRAGMENT];
            key.copy_from_slice(w);
            self.windows.insert(key);
        }
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

    /// Pieces of known values: every run of text covered by windows of a
    /// known value, as one hit each.
    pub(super) fn find_fragments(&self, text: &str, hits: &mut Vec<Hit>) {
        if self.windows.is_empty() || text.len() < FRAGMENT {
            return;
        }
        let bytes = text.as_bytes();
        let mut run: Option<(usize, usize)> = None;
        for (i, w) in bytes.windows(FRAGMENT).enumerate() {
            let mut key = [0u8; FRAGMENT];
            key.copy_from_slice(w);
            if !self.windows.contains(&key) {
                continue;
            }
            run = match run {
                Some((start, end)) if i <= end => Some((start, i + FRAGMENT)),
                Some((start, end)) => {
                    push_fragment(text, start, end, hits);
                    Some((i, i + FRAGMENT))
                }
                None => Some((i, i + FRAGMENT)),
            };
        }
        if let Some((start, end)) = run {
            push_fragment(text, start, end, hits);
        }
    }

    pub(super) fn copy(&self) -> Known {
        Known {
            values: self.values.clone(),
            matcher: self.matcher.clone(),
            windows: self.windows.clone(),
        }
    }
}

/// A fragment hit, widened to whole characters (a window may cut one) and
/// without the line breaks at its ends (a key learned from a diff has them
/// inside), so the lines around it stay.
fn push_fragment(text: &str, mut start: usize, mut end: usize, hits: &mut Vec<Hit>) {
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    while end < text.len() && !text.is_char_boundary(end) {
        end += 1;
    }
    let piece = &text[start..end];
    let inner = piece.trim_matches(['\n', '\r']);
    if inner.is_empty() {
        return;
    }
    let offset = inner.as_ptr() as usize - piece.as_ptr() as usize;
    hits.push(Hit::new(
        start + offset,
        start + offset + inner.len(),
        "known-secret-fragment",
    ));
}
