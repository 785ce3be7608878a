//! Matching every check against the plan in one pass: one Aho-Corasick automaton
//! for the literal patterns (`literal`, `prescriptive`, `negation_aware`) and one
//! `RegexSet` for the `regex` ones. Negation filters run only on raw hits.

use std::cell::OnceCell;
use std::ops::Range;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::{Regex, RegexSet, RegexSetBuilder};

use crate::pattern::Pattern;

use crate::check::{Check, MatchRule};
use crate::error::CheckError;
use crate::text::Structure;

/// Negation words for `prescriptive` (expert-review's prescriptive matching).
const PRESCRIPTIVE_NEGATIONS: &str = r"(?i)\b(?:not|don['’]t|doesn['’]t|won['’]t|shouldn['’]t|cannot|can['’]t|instead of|rather than|unlike|avoid(?:s|ed|ing)?|ruled out)\b";
/// Negation words for `negation_aware` (expert-review's match rules).
const SENTENCE_NEGATIONS: &str =
    r"(?i)\b(?:not|doesn['’]t|unlike|cannot|don['’]t|won['’]t|shouldn['’]t|ruled out)\b";
/// How many words after a `prescriptive` hit still count as "near" it.
const NEAR_WORDS_AFTER: usize = 3;
/// Size limit for the compiled regex set: a thousand patterns need more than the default.
const REGEX_SET_SIZE_LIMIT: usize = 256 << 20;

/// Checks compiled for matching.
#[derive(Debug)]
pub struct CheckSet {
    checks: Vec<Check>,
    literals: Option<AhoCorasick>,
    literal_owner: Vec<usize>,
    regex_set: Option<RegexSet>,
    regexes: Vec<Regex>,
    regex_owner: Vec<usize>,
    /// Backtracking patterns and their checks.
    fancy: Vec<(usize, Pattern)>,
    prescriptive: Regex,
    sentence: Regex,
}

impl CheckSet {
    pub fn compile(checks: Vec<Check>) -> Result<Self, CheckError> {
        let mut literal_patterns = Vec::new();
        let mut literal_owner = Vec::new();
        let mut regex_patterns = Vec::new();
        let mut regexes = Vec::new();
        let mut regex_owner = Vec::new();
        let mut fancy = Vec::new();
        for (i, c) in checks.iter().enumerate() {
            if c.match_rule == MatchRule::Regex {
                match Pattern::compile(&c.pattern)
                    .map_err(|e| invalid(c, &format!("invalid regex: {e}")))?
                {
                    Pattern::Fast(re) => {
                        regexes.push(re);
                        regex_patterns.push(c.pattern.as_str());
                        regex_owner.push(i);
                    }
                    p @ Pattern::Fancy(_) => fancy.push((i, p)),
                }
            } else {
                literal_patterns.push(c.pattern.as_str());
                literal_owner.push(i);
            }
        }
        let literals = if literal_patterns.is_empty() {
            None
        } else {
            let ac = AhoCorasick::builder()
                .match_kind(MatchKind::Standard)
                .build(&literal_patterns)
                .map_err(|e| CheckError::InvalidCheck {
                    path: checks[literal_owner[0]].origin.clone(),
                    id: checks[literal_owner[0]].id.clone(),
                    message: format!("cannot build the literal matcher: {e}"),
                })?;
            Some(ac)
        };
        let regex_set = if regex_patterns.is_empty() {
            None
        } else {
            let set = RegexSetBuilder::new(&regex_patterns)
                .size_limit(REGEX_SET_SIZE_LIMIT)
                .dfa_size_limit(REGEX_SET_SIZE_LIMIT)
                .build()
                .map_err(|e| {
                    invalid(
                        &checks[regex_owner[0]],
                        &format!("cannot build the regex set: {e}"),
                    )
                })?;
            Some(set)
        };
        Ok(CheckSet {
            literals,
            literal_owner,
            regex_set,
            regexes,
            regex_owner,
            fancy,
            prescriptive: built_in(PRESCRIPTIVE_NEGATIONS)?,
            sentence: built_in(SENTENCE_NEGATIONS)?,
            checks,
        })
    }

    pub fn checks(&self) -> &[Check] {
        &self.checks
    }

    pub fn len(&self) -> usize {
        self.checks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.checks.is_empty()
    }

    /// Find every raw hit of every check in one pass over `text`.
    pub fn scan<'a>(&'a self, text: &'a str) -> Scan<'a> {
        let mut hits: Vec<Vec<Range<usize>>> = vec![Vec::new(); self.checks.len()];
        if let Some(ac) = &self.literals {
            for m in ac.find_overlapping_iter(text) {
                hits[self.literal_owner[m.pattern().as_usize()]].push(m.start()..m.end());
            }
        }
        if let Some(set) = &self.regex_set {
            for i in set.matches(text).iter() {
                hits[self.regex_owner[i]] =
                    self.regexes[i].find_iter(text).map(|m| m.range()).collect();
            }
        }
        for (i, p) in &self.fancy {
            hits[*i] = p.find_all(text);
        }
        Scan {
            set: self,
            text,
            hits,
            structure: OnceCell::new(),
        }
    }
}

fn built_in(pattern: &str) -> Result<Regex, CheckError> {
    Regex::new(pattern).map_err(|e| CheckError::InvalidCheck {
        path: "<built-in>".into(),
        id: "negation words".into(),
        message: e.to_string(),
    })
}

fn invalid(c: &Check, message: &str) -> CheckError {
    CheckError::InvalidCheck {
        path: c.origin.clone(),
        id: c.id.clone(),
        message: message.to_string(),
    }
}

/// The raw hits of one scan, filtered per check on demand.
#[derive(Debug)]
pub struct Scan<'a> {
    set: &'a CheckSet,
    text: &'a str,
    hits: Vec<Vec<Range<usize>>>,
    structure: OnceCell<Structure>,
}

impl Scan<'_> {
    /// The hits of check `index` that count under its match rule, in text order.
    pub fn matches(&self, index: usize) -> Vec<Range<usize>> {
        let check = &self.set.checks[index];
        let mut out: Vec<Range<usize>> = self.hits[index]
            .iter()
            .filter(|r| self.counts(check, r))
            .cloned()
            .collect();
        out.sort_by_key(|r| (r.start, r.end));
        out
    }

    /// The first check (in load order) that fails, skipping `skip`, with its hits.
    pub fn first_failure(
        &self,
        skip: impl Fn(&Check) -> bool,
    ) -> Option<(usize, Vec<Range<usize>>)> {
        (0..self.set.checks.len())
            .filter(|&i| !self.hits[i].is_empty() && !skip(&self.set.checks[i]))
            .map(|i| (i, self.matches(i)))
            .find(|(_, m)| !m.is_empty())
    }

    /// Every failing check, skipping `skip`.
    pub fn failures(&self, skip: impl Fn(&Check) -> bool) -> Vec<(usize, Vec<Range<usize>>)> {
        (0..self.set.checks.len())
            .filter(|&i| !self.hits[i].is_empty() && !skip(&self.set.checks[i]))
            .map(|i| (i, self.matches(i)))
            .filter(|(_, m)| !m.is_empty())
            .collect()
    }

    pub fn structure(&self) -> &Structure {
        self.structure.get_or_init(|| Structure::new(self.text))
    }

    fn counts(&self, check: &Check, hit: &Range<usize>) -> bool {
        match check.match_rule {
            MatchRule::Literal | MatchRule::Regex => true,
            MatchRule::Prescriptive => !self.negated_on_line(hit),
            MatchRule::NegationAware => !self.negated_in_sentence(hit),
        }
    }

    /// A negation before the hit on its line, or within a few words after it.
    fn negated_on_line(&self, hit: &Range<usize>) -> bool {
        let text = self.text;
        let line_start = text[..hit.start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[hit.end..]
            .find('\n')
            .map_or(text.len(), |i| hit.end + i);
        if self.set.prescriptive.is_match(&text[line_start..hit.start]) {
            return true;
        }
        let after = &text[hit.end..line_end];
        let near_end = word_window_end(after, NEAR_WORDS_AFTER);
        self.set.prescriptive.is_match(&after[..near_end])
    }

    /// A negation anywhere in the hit's sentence, outside the hit itself.
    fn negated_in_sentence(&self, hit: &Range<usize>) -> bool {
        let sentence = self.structure().sentence_at(self.text, hit.start);
        let before = &self.text[sentence.start.min(hit.start)..hit.start];
        let after = &self.text[hit.end.min(sentence.end)..sentence.end.max(hit.end)];
        self.set.sentence.is_match(before) || self.set.sentence.is_match(after)
    }
}

/// Byte length of the first `n` words of `s` (with what precedes them).
fn word_window_end(s: &str, n: usize) -> usize {
    let mut words = 0;
    let mut in_word = false;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            if in_word {
                words += 1;
                if words == n {
                    return i;
                }
            }
            in_word = false;
        } else {
            in_word = true;
        }
    }
    s.len()
}

#[cfg(test)]
#[path = "matcher_tests.rs"]
mod tests;
