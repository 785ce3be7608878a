//! Text helpers of the editor: how two values are compared (normalised), how a
//! quoted piece of the prompt is found in it, and what counts as a prohibition.

/// For comparing values: lower case, whitespace collapsed, surrounding quotes
/// and trailing punctuation dropped (`"Run the tests."` = `run the tests`).
pub(crate) fn normalize(s: &str) -> String {
    let collapsed = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let trimmed = collapsed
        .trim_matches(['"', '\'', '`', '“', '”', '‘', '’'])
        .trim_end_matches(['.', ';', ':', '!', ',', ' '])
        .trim();
    trimmed.to_lowercase()
}

/// The words of `s`, lower case, split on anything but letters and digits.
pub(crate) fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Where `needle` occurs in `hay` as written, except that any run of whitespace
/// matches any other (a model quoting a multi-line prompt re-wraps it). The
/// byte range of the first occurrence.
pub(crate) fn find_quoted(hay: &str, needle: &str) -> Option<(usize, usize)> {
    let needle = needle.trim();
    if needle.is_empty() {
        return None;
    }
    if let Some(i) = hay.find(needle) {
        return Some((i, i + needle.len()));
    }
    // Both sides with whitespace runs squashed to one space; `at[k]` is where
    // byte `k` of the squashed hay starts in `hay`.
    let want = needle.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut squashed = String::with_capacity(hay.len());
    let mut at = Vec::with_capacity(hay.len());
    let mut in_space = false;
    for (i, c) in hay.char_indices() {
        if c.is_whitespace() {
            if !in_space {
                squashed.push(' ');
                at.push(i);
            }
            in_space = true;
            continue;
        }
        in_space = false;
        squashed.push(c);
        at.extend(std::iter::repeat_n(i, c.len_utf8()));
    }
    let start = squashed.find(&want)?;
    let last = start + want.len() - 1;
    let end_char = hay[at[last]..].chars().next().map_or(0, char::len_utf8);
    Some((at[start], at[last] + end_char))
}

/// [`find_quoted`] with ASCII letter case ignored too ("optimize the
/// settings" in "Optimize the settings page").
pub(crate) fn find_folded(hay: &str, needle: &str) -> Option<(usize, usize)> {
    // ASCII folding keeps every byte offset where it was.
    find_quoted(&hay.to_ascii_lowercase(), &needle.to_ascii_lowercase())
}

/// Words that open a prohibition: "Never commit .env", "Do not log tokens".
const PROHIBITIONS: [&[&str]; 8] = [
    &["never"],
    &["do", "not"],
    &["don", "t"],
    &["dont"],
    &["must", "not"],
    &["should", "not"],
    &["avoid"],
    &["no"],
];

/// What a prohibition forbids, as word runs, one per alternative (`Never
/// commit .env or print tokens` → `commit env`, `print tokens`); only
/// alternatives of two words or more, which say enough to be matched.
pub(crate) fn prohibited(value: &str) -> Vec<Vec<String>> {
    let w = words(value);
    let Some(lead) = PROHIBITIONS.iter().find(|p| w.starts_with_words(p)) else {
        return Vec::new();
    };
    let mut rest = &w[lead.len()..];
    if rest.first().is_some_and(|x| x == "ever" || x == "to") {
        rest = &rest[1..];
    }
    rest.split(|x| x == "or" || x == "and" || x == "nor")
        .filter(|alt| alt.len() >= 2)
        .map(<[String]>::to_vec)
        .collect()
}

/// True when `words` holds `part` as a contiguous run.
pub(crate) fn contains_run(words: &[String], part: &[String]) -> bool {
    !part.is_empty() && words.windows(part.len()).any(|w| w == part)
}

trait StartsWithWords {
    fn starts_with_words(&self, prefix: &[&str]) -> bool;
}

impl StartsWithWords for Vec<String> {
    fn starts_with_words(&self, prefix: &[&str]) -> bool {
        self.len() >= prefix.len() && self.iter().zip(prefix).all(|(a, b)| a == b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizing() {
        assert_eq!(normalize("  \"Run  the\ntests.\" "), "run the tests");
        assert_eq!(normalize("Use `pnpm`."), "use `pnpm`");
        assert_eq!(normalize("Ünïcode OK!"), "ünïcode ok");
    }

    #[test]
    fn finding_quotes() {
        let hay = "Optimize the\n  settings page, please.";
        assert_eq!(find_quoted(hay, "settings page"), Some((15, 28)));
        assert_eq!(find_quoted(hay, "Optimize the settings"), Some((0, 23)));
        assert_eq!(find_quoted(hay, "optimize the settings"), None);
        assert_eq!(find_quoted(hay, "a.b"), None);
        assert_eq!(find_quoted(hay, "  "), None);
    }

    #[test]
    fn prohibitions() {
        let p = |s: &str| {
            prohibited(s)
                .iter()
                .map(|w| w.join(" "))
                .collect::<Vec<_>>()
        };
        assert_eq!(p("Never commit .env files"), ["commit env files"]);
        assert_eq!(p("Don't log the API key"), ["log the api key"]);
        assert_eq!(p("Do not ever print tokens"), ["print tokens"]);
        assert_eq!(
            p("Never commit .env or expose ANTHROPIC_API_KEY in code"),
            ["commit env", "expose anthropic api key in code"]
        );
        assert!(p("Never guess").is_empty());
        assert!(p("Add tests").is_empty());
        assert!(p("Nothing to see").is_empty());
        let w = words("Please commit .env files for the setup");
        assert!(contains_run(&w, &words("commit env files")));
        assert!(!contains_run(&w, &[]));
    }
}
