//! `regex` checks: expert-review's patterns are Python regexes. The `regex` crate
//! takes most of them (and they join the one-pass `RegexSet`); lookaround and
//! backreferences fall back to `fancy-regex`, matched one by one.

use std::ops::Range;

/// A compiled `regex` check pattern.
#[derive(Debug, Clone)]
pub(crate) enum Pattern {
    /// Linear-time, part of the `RegexSet`.
    Fast(regex::Regex),
    /// Needs backtracking (lookaround, backreferences).
    Fancy(Box<fancy_regex::Regex>),
}

/// Why a pattern does not compile: the regex crate's message, on one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct PatternError(String);

impl Pattern {
    pub(crate) fn compile(pattern: &str) -> Result<Pattern, PatternError> {
        match regex::Regex::new(pattern) {
            Ok(re) => Ok(Pattern::Fast(re)),
            Err(fast_err) => match fancy_regex::Regex::new(pattern) {
                Ok(re) => Ok(Pattern::Fancy(Box::new(re))),
                // The regex crate's message is the clearer one for plain syntax errors.
                Err(_) => Err(PatternError(one_line(&fast_err.to_string()))),
            },
        }
    }

    pub(crate) fn matches_empty(&self) -> bool {
        match self {
            Pattern::Fast(re) => re.is_match(""),
            Pattern::Fancy(re) => re.is_match("").unwrap_or(false),
        }
    }

    /// Every non-overlapping match. A backtracking pattern that exceeds its
    /// limit stops with what it found so far (and says so in the log).
    pub(crate) fn find_all(&self, text: &str) -> Vec<Range<usize>> {
        match self {
            Pattern::Fast(re) => re.find_iter(text).map(|m| m.range()).collect(),
            Pattern::Fancy(re) => {
                let mut out = Vec::new();
                for m in re.find_iter(text) {
                    match m {
                        Ok(m) => out.push(m.range()),
                        Err(e) => {
                            tracing::warn!(pattern = re.as_str(), "regex check stopped early: {e}");
                            break;
                        }
                    }
                }
                out
            }
        }
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_lookaround_and_backreferences() {
        let p = Pattern::compile(r"(?<!\w)any(?!\w)").unwrap();
        assert!(matches!(p, Pattern::Fancy(_)));
        assert_eq!(p.find_all("any company many any"), vec![0..3, 17..20]);
        let p = Pattern::compile(r"\b(\w+) \1\b").unwrap();
        assert_eq!(p.find_all("the the end"), vec![0..7]);
        assert!(matches!(
            Pattern::compile(r": any").unwrap(),
            Pattern::Fast(_)
        ));
        let err = Pattern::compile("(unclosed").unwrap_err().to_string();
        assert!(err.contains("unclosed group"), "{err}");
        assert!(
            Pattern::compile("(?=x)?")
                .map(|p| p.matches_empty())
                .unwrap_or(true)
        );
    }
}
