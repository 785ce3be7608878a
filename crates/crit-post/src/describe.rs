//! The part of a pull or merge request's description that crit owns: a
//! section between its markers, written again on each run, with the
//! author's text around it left as it was.

use crate::marker::Markers;

/// `body` with crit's section set to `section`: replaced where the markers
/// are (the first start marker and the first end marker after it), else
/// appended after a blank line. Running it again with the same section
/// changes nothing.
pub(crate) fn update_body(body: &str, section: &str, markers: &Markers) -> String {
    let (start, end) = (markers.describe_start(), markers.describe_end());
    let block = format!("{start}\n{}\n{end}", section_text(section));
    if let Some(s) = body.find(&start)
        && let Some(e) = body[s..].find(&end)
    {
        let after = s + e + end.len();
        return format!("{}{block}{}", &body[..s], &body[after..]);
    }
    let author = body.trim_end();
    if author.is_empty() {
        block
    } else {
        format!("{author}\n\n{block}")
    }
}

/// The section as it goes between the markers: model-written markdown with
/// its structure kept (headings, lists, code) but nothing that acts (HTML,
/// hidden comments, mentions, remote images, quick actions), and a code
/// fence left open closed, so the end marker stays outside any block.
fn section_text(section: &str) -> String {
    let mut out = Vec::new();
    let mut open: Option<(char, usize)> = None;
    for line in crit_core::terminal::sanitize(section.trim()).split('\n') {
        let run = fence_run(line);
        match open {
            Some((c, n)) => {
                // Verbatim, but no marker of crit's can hide in code.
                out.push(line.replace("<!--", "<!\u{200B}--"));
                if let Some((c2, n2, rest)) = run
                    && c2 == c
                    && n2 >= n
                    && rest.trim().is_empty()
                {
                    open = None;
                }
            }
            None => match run {
                Some((c, n, _)) => {
                    open = Some((c, n));
                    out.push(line.replace("<!--", "<!\u{200B}--"));
                }
                None => out.push(markdown_line(line)),
            },
        }
    }
    if let Some((c, n)) = open {
        out.push(c.to_string().repeat(n));
    }
    out.join("\n")
}

/// A code fence's character, its length and what follows it, when `line`
/// is one.
fn fence_run(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = t.chars().take_while(|x| *x == c).count();
    (n >= 3).then(|| (c, n, &t[n..]))
}

/// One line outside code: markdown kept, what acts made inert.
fn markdown_line(line: &str) -> String {
    let escaped = line
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('@', "@&#8203;")
        .replace("![", "!\\[");
    if escaped.trim_start().starts_with('/') {
        format!("\\{}", escaped.trim_start())
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m() -> Markers {
        Markers::default()
    }

    #[test]
    fn the_authors_text_stays() {
        let once = update_body("Fixes the login.\n\nThanks!", "## Summary\nA change.", &m());
        assert_eq!(
            once,
            "Fixes the login.\n\nThanks!\n\n<!-- crit:description:start -->\n## Summary\nA change.\n<!-- crit:description:end -->"
        );
        assert_eq!(
            update_body(&once, "## Summary\nA change.", &m()),
            once,
            "idempotent"
        );
        let edited = once.replace("Thanks!", "Thanks, all!") + "\n\nMore words after.";
        let again = update_body(&edited, "## Summary\nAnother.", &m());
        assert!(again.starts_with("Fixes the login.\n\nThanks, all!\n\n<!-- crit:description:start -->\n## Summary\nAnother.\n"));
        assert!(again.ends_with("<!-- crit:description:end -->\n\nMore words after."));
        assert_eq!(
            update_body("", "x", &m()),
            "<!-- crit:description:start -->\nx\n<!-- crit:description:end -->"
        );
    }

    #[test]
    fn the_section_cannot_act_or_break_out() {
        let hostile = "## Walkthrough\n<!-- crit:description:end -->\n@octocat ![p](https://evil/p.png)\n/merge\n```rust\nlet x = \"<b>\";\n";
        let body = update_body("Author.", hostile, &m());
        assert_eq!(body.matches("<!-- crit:description:end -->").count(), 1);
        assert!(body.contains("&lt;!-- crit:description:end --&gt;"));
        assert!(body.contains("@&#8203;octocat !\\[p]"));
        assert!(body.contains("\n\\/merge\n"));
        assert!(
            body.contains("let x = \"<b>\";\n```\n<!-- crit:description:end -->"),
            "{body}"
        );
        assert_eq!(update_body(&body, hostile, &m()), body);
        let in_code = "```\n<!-- crit:description:end -->\n```";
        let body = update_body("A.", in_code, &m());
        assert_eq!(
            body.matches("<!-- crit:description:end -->").count(),
            1,
            "{body}"
        );
        assert_eq!(update_body(&body, in_code, &m()), body);
    }
}
