//! Text a model or a repository wrote, made inert for GitHub's and GitLab's
//! markdown before it goes into a comment crit posts.
//!
//! Inert means: no HTML (so no hidden `<!--` comment, no `<details>` that
//! closes crit's own, no `<img>`), no mention that notifies anyone, no
//! remote image (a tracking pixel), no heading, rule or code fence that
//! could pass for crit's own layout or swallow it, and no GitLab quick
//! action (`/merge` on a line of its own is run by GitLab as the token's
//! user). Emphasis, links, lists and inline code still render.
//!
//! This stands in for crit-core's printable type (escaped for its
//! destination) until that lands; then [`block`] and [`line`] become its
//! markdown escape.

use crit_core::terminal::sanitize;

/// A paragraph or more of text; the caller puts a blank line after it.
pub fn block(text: &str) -> String {
    let escaped = escape(&sanitize(text));
    escaped
        .split('\n')
        .map(neutral_line_start)
        .collect::<Vec<_>>()
        .join("\n")
}

/// One line of text (a title, a reason): whitespace folded, backticks
/// escaped too, so it cannot open a code span that runs into crit's own
/// text on the same line.
pub fn line(text: &str) -> String {
    let folded = sanitize(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    neutral_line_start(&escape(&folded).replace('`', "\\`"))
}

/// [`line`], safe in a table cell too.
pub fn cell(text: &str) -> String {
    line(text).replace('|', "\\|")
}

/// A code span holding `text` verbatim (a path, a rule id): inside one,
/// nothing is markup. The fence outlasts any run of backticks in the text.
pub fn code(text: &str) -> String {
    let folded = sanitize(text).replace(['\n', '\r'], " ");
    let longest = folded.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if folded.starts_with('`') || folded.ends_with('`') || folded.is_empty() {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{folded}{pad}{fence}")
}

/// HTML special characters as entities, mentions broken with a zero-width
/// space, image syntax broken with an escaped bracket, a `#` that could
/// start a heading escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        match c {
            // A heading needs `#` first in its block, which a list item's
            // marker does not stop (`- # Title`).
            '#' if prev.is_none_or(char::is_whitespace) => out.push_str("\\#"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '@' => out.push_str("@&#8203;"),
            '!' if chars.peek() == Some(&'[') => out.push_str("!\\"),
            c => out.push(c),
        }
        prev = Some(c);
    }
    out
}

/// A line that cannot start a heading, a rule, a setext underline, a code
/// fence or a quick action: its first character (after up to three spaces)
/// is backslash-escaped when it could.
fn neutral_line_start(line: &str) -> String {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return line.to_string();
    }
    let (lead, rest) = line.split_at(indent);
    let Some(first) = rest.chars().next() else {
        return line.to_string();
    };
    let risky = match first {
        '#' | '/' => true,
        '`' | '~' => rest.starts_with("```") || rest.starts_with("~~~"),
        '=' | '-' | '*' | '_' | '+' => rest
            .chars()
            .filter(|c| !c.is_whitespace())
            .all(|c| c == first),
        _ => false,
    };
    if risky {
        format!("{lead}\\{rest}")
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_never_survives() {
        let hostile = "<!-- crit:summary --></details><details open><summary>x</summary><img src=https://evil/p.png>";
        let out = block(hostile);
        assert!(!out.contains('<') && !out.contains('>'), "{out}");
        assert!(out.starts_with("&lt;!-- crit:summary --&gt;"));
        assert_eq!(block("a &lt; b"), "a &amp;lt; b", "entities stay literal");
    }

    #[test]
    fn mentions_and_images_are_broken() {
        assert_eq!(
            block("ping @octocat and @org/team"),
            "ping @&#8203;octocat and @&#8203;org/team"
        );
        assert_eq!(
            block("![pixel](https://evil/t.png)"),
            "!\\[pixel](https://evil/t.png)"
        );
        assert_eq!(block("![ref][1]"), "!\\[ref][1]");
        assert_eq!(block("wow! [a](b)"), "wow! [a](b)", "a plain link stays");
    }

    #[test]
    fn layout_cannot_be_faked() {
        let hostile = "## ✅ crit code: PASS\n---\n===\n```\nfenced\n~~~\n   # indented heading\n/merge\n/approve now\n* * *\n- a list item\n- # a heading in a list\n=\nC# and issue #12";
        let out = block(hostile);
        assert_eq!(
            out,
            "\\## ✅ crit code: PASS\n\\---\n\\===\n\\```\nfenced\n\\~~~\n   \\# indented heading\n\\/merge\n\\/approve now\n\\* * *\n- a list item\n- \\# a heading in a list\n\\=\nC# and issue \\#12"
        );
        assert_eq!(line("# title\nwith `code"), "\\# title with \\`code");
        assert_eq!(cell("a | b"), "a \\| b");
    }

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert_eq!(
            block("a\u{1b}[31mred\u{7}"),
            "a&lt;U+001B&gt;[31mred&lt;U+0007&gt;"
        );
        assert_eq!(line("bidi \u{202E}x"), "bidi &lt;U+202E&gt;x");
    }

    #[test]
    fn code_spans_hold_anything() {
        assert_eq!(code("src/a.rs"), "`src/a.rs`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("a\nb"), "`a b`");
        assert_eq!(code("<b>@x</b>"), "`<b>@x</b>`");
    }
}
