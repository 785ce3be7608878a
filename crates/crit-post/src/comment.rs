//! An inline comment's body: the hidden marker, the finding (made inert),
//! the committable suggestion in the forge's syntax when it may be offered,
//! and the body a comment gets when its finding is gone.

use std::fmt::Write as _;

use crit_core::Finding;
use crit_core::suggestion::{self, SuggestionError};

use crate::error::ForgeKind;
use crate::inert;
use crate::marker::Markers;
use crate::plan::Inline;

/// Most characters of a finding's body in a comment.
const MAX_BODY_CHARS: usize = 20_000;

/// The body of the inline comment for `inline`.
pub(crate) fn inline_body(markers: &Markers, inline: &Inline<'_>, forge: ForgeKind) -> String {
    let f = inline.finding;
    let a = &inline.anchor;
    let mut out = format!(
        "{}\n{}\n\n",
        markers.finding(&inline.key, false),
        headline(f)
    );
    let body = f.body.trim();
    if !body.is_empty() {
        let kept: String = body.chars().take(MAX_BODY_CHARS).collect();
        let _ = write!(out, "{}\n\n", inert::block(&kept));
        if kept.len() < body.len() {
            out.push_str("_(shortened; the whole text is in the review's result)_\n\n");
        }
    }
    if let Some(loc) = &f.location
        && !a.whole
    {
        let _ = write!(
            out,
            "_The finding is about {}; the diff shows lines {}-{} of it._\n\n",
            inert::code(&loc.display()),
            a.start,
            a.end
        );
    }
    if let Some(text) = f.suggestion.as_deref() {
        match offered(text, inline, forge) {
            Ok(()) => {
                let block = match forge {
                    ForgeKind::Github => suggestion::github_block(text),
                    ForgeKind::Gitlab => suggestion::gitlab_block(text, a.end - a.start),
                };
                let _ = writeln!(out, "{block}");
            }
            Err(why) => {
                let _ = write!(out, "_A suggested change was left out: {why}._\n\n");
            }
        }
    }
    out.push_str(&footer(f));
    out
}

/// Why a suggestion is left out of a comment.
#[derive(Debug, thiserror::Error)]
enum NotOffered {
    #[error("not all of its lines are in the diff")]
    OutsideDiff,
    #[error(transparent)]
    Replacement(#[from] SuggestionError),
    #[error("a line of it reads as a GitLab quick action")]
    QuickAction,
}

/// Whether the suggestion may be offered on this comment, and why not.
fn offered(text: &str, inline: &Inline<'_>, forge: ForgeKind) -> Result<(), NotOffered> {
    if !inline.anchor.whole {
        return Err(NotOffered::OutsideDiff);
    }
    let current: Vec<&str> = inline.anchor.current.iter().map(String::as_str).collect();
    suggestion::check_replacement(text, &current)?;
    // GitLab runs a quick action on any line of a note that starts with
    // `/word`; a suggestion's lines are the model's, so none may.
    if forge == ForgeKind::Gitlab && text.lines().any(quick_action) {
        return Err(NotOffered::QuickAction);
    }
    Ok(())
}

fn quick_action(line: &str) -> bool {
    line.strip_prefix('/').is_some_and(|rest| {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '_')
            .collect();
        !word.is_empty()
            && rest[word.len()..]
                .chars()
                .next()
                .is_none_or(char::is_whitespace)
    })
}

/// `**P1** · major · Title`.
pub(crate) fn headline(f: &Finding) -> String {
    format!(
        "**{}** · {} · {}",
        f.severity.code(),
        f.severity.label(),
        inert::line(f.display_title())
    )
}

fn footer(f: &Finding) -> String {
    let mut parts = vec!["crit".to_string()];
    if !f.reviewer.is_empty() {
        parts.push(inert::line(&f.reviewer));
    }
    if let Some(rule) = &f.rule_id {
        parts.push(inert::code(rule));
    }
    format!("<sub>{}</sub>\n", parts.join(" · "))
}

/// The body a comment gets once its finding is no longer reported: the
/// marker says resolved, the headline is struck through, the suggestion is
/// gone (it no longer applies).
pub(crate) fn resolved_body(
    markers: &Markers,
    key: &str,
    old_body: &str,
    head: Option<&str>,
) -> String {
    let headline = old_body
        .split('\n')
        .nth(1)
        .map(|l| l.trim_end_matches('\r').trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.chars().take(500).collect::<String>())
        .unwrap_or_else(|| "A finding".to_string());
    let at = match head {
        Some(h) => format!(" as of {}", inert::code(&short_sha(h))),
        None => String::new(),
    };
    format!(
        "{}\n~~{headline}~~\n\n**Resolved**: crit no longer reports this{at}.\n",
        markers.finding(key, true)
    )
}

/// What crit says on a comment left stale whose finding is still
/// reported: where the finding is now (a link the forge gave, or the
/// summary).
pub(crate) fn moved_words(link: Option<&str>) -> String {
    match link.filter(|l| l.starts_with("https://") || l.starts_with("http://")) {
        Some(l) => format!(
            "crit still reports this, and commented on it again on its current line: {}",
            l.replace(['(', ')', ' ', '<', '>'], "")
        ),
        None => "crit still reports this, and lists it in its summary comment now: its lines changed after this comment.".to_string(),
    }
}

/// The body a stale comment gets once crit commented again elsewhere: the
/// marker says resolved (a later run does not take it for the finding's
/// comment), the headline and where it went.
pub(crate) fn moved_body(
    markers: &Markers,
    key: &str,
    old_body: &str,
    link: Option<&str>,
) -> String {
    let headline = old_body
        .split('\n')
        .nth(1)
        .map(|l| l.trim_end_matches('\r').trim())
        .filter(|l| !l.is_empty())
        .map(|l| l.chars().take(500).collect::<String>())
        .unwrap_or_else(|| "A finding".to_string());
    format!(
        "{}\n{headline}\n\n**Moved**: {}\n",
        markers.finding(key, true),
        moved_words(link)
    )
}

/// The first 12 characters of a commit id, when it is one.
pub(crate) fn short_sha(sha: &str) -> String {
    sha.chars()
        .filter(char::is_ascii_hexdigit)
        .take(12)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::Anchor;
    use crit_core::{Location, Severity};

    fn inline<'f>(f: &'f Finding, whole: bool, current: &[&str]) -> Inline<'f> {
        Inline {
            key: f.id.clone(),
            finding: f,
            anchor: Anchor {
                start: 2,
                end: 1 + current.len() as u32,
                start_old: None,
                whole,
                current: current.iter().map(|s| s.to_string()).collect(),
            },
        }
    }

    fn finding() -> Finding {
        Finding::new(
            "[P1] Unchecked <b>unwrap</b> @here",
            Severity::P1,
            "correctness",
        )
        .with_body("Panics on `None`.\n# not a heading\n![x](https://evil/p.png)")
        .with_location(Location::lines("src/a.rs", 2, 3))
        .with_rule("rust/unwrap")
        .with_suggestion("let a = x?;\nlet b = y?;")
    }

    #[test]
    fn github_comment() {
        let f = finding();
        let body = inline_body(
            &Markers::default(),
            &inline(&f, true, &["let a = x.unwrap();", "let b = y.unwrap();"]),
            ForgeKind::Github,
        );
        assert!(body.starts_with(&format!("<!-- crit:finding {} -->\n**P1** · major · Unchecked &lt;b&gt;unwrap&lt;/b&gt; @&#8203;here\n", f.id)), "{body}");
        assert!(body.contains("\n\\# not a heading\n!\\[x]"), "{body}");
        assert!(
            body.contains("```suggestion\nlet a = x?;\nlet b = y?;\n```\n"),
            "{body}"
        );
        assert!(
            body.ends_with("<sub>crit · correctness · `rust/unwrap`</sub>\n"),
            "{body}"
        );
    }

    #[test]
    fn gitlab_comment_and_refused_suggestions() {
        let f = finding();
        let gl = inline_body(
            &Markers::default(),
            &inline(&f, true, &["a", "b"]),
            ForgeKind::Gitlab,
        );
        assert!(gl.contains("```suggestion:-0+1\nlet a = x?;"), "{gl}");
        let partial = inline_body(
            &Markers::default(),
            &inline(&f, false, &["a"]),
            ForgeKind::Github,
        );
        assert!(!partial.contains("```suggestion"));
        assert!(partial.contains("not all of its lines are in the diff"));
        assert!(partial.contains("the diff shows lines 2-2 of it"));
        let same = inline_body(
            &Markers::default(),
            &inline(&f, true, &["let a = x?;", "let b = y?;"]),
            ForgeKind::Github,
        );
        assert!(
            same.contains("left out: the suggestion is the same as the lines"),
            "{same}"
        );
        let quick = f.clone().with_suggestion("/merge\nx");
        let q = inline_body(
            &Markers::default(),
            &inline(&quick, true, &["a", "b"]),
            ForgeKind::Gitlab,
        );
        assert!(
            !q.contains("```suggestion") && q.contains("quick action"),
            "{q}"
        );
        assert!(
            !quick_action("/// doc") && !quick_action("/usr/bin") && quick_action("/approve now")
        );
    }

    #[test]
    fn resolved_comments() {
        let f = finding();
        let m = Markers::default();
        let old = inline_body(&m, &inline(&f, true, &["a", "b"]), ForgeKind::Github);
        let done = resolved_body(&m, &f.id, &old, Some("0123456789abcdef0123"));
        assert!(
            done.starts_with(&format!(
                "<!-- crit:finding {} resolved -->\n~~**P1** · major ·",
                f.id
            )),
            "{done}"
        );
        assert!(done.contains("as of `0123456789ab`"));
        assert!(!done.contains("suggestion"));
        assert_eq!(
            m.read(&done),
            Some(crate::marker::Marker::Finding {
                key: f.id.clone(),
                resolved: true
            })
        );
    }
}
