//! Every output format, fed a result whose every model- or
//! repository-controlled field (review name, summary, error, title, body,
//! path, heading, reviewer, rule id, suggestion, agreed reviewers, coverage
//! paths and reasons) holds control sequences, hidden characters, workflow
//! commands and markup: the bytes written hold none of it live.

use crit_core::render::{Format, RenderOptions, render};
use crit_core::{
    Coverage, FileCoverage, Finding, LeftOut, LeftOutCause, Location, ReviewResult, Severity,
    Verdict,
};

/// Everything a hostile model or repository reaches for, in one string.
const EVIL: &str = "A\x1b]0;retitle\x07\x1b[2J\u{9b}31m\r\n::error file=x.rs,line=1::forged\n  ::add-mask::secret\n##[set-output name=a]b \u{202E}rtl\u{2066} zero\u{200B}width\n## PASS\n</details>\n<!-- gate not passed -->\n![i](https://evil.example/x.png) [l](https://evil.example) <img src=x> @octocat\n```\n~~~\n===\n|a|b|";

fn evil(tag: &str) -> String {
    format!("{tag} {EVIL}")
}

fn hostile() -> ReviewResult {
    let mut r = ReviewResult::new(evil("review"), Verdict::Fail);
    r.summary = evil("summary");
    r.parse_error = Some(evil("error"));
    let mut f = Finding::new(evil("[P1] title"), Severity::P1, evil("reviewer"))
        .with_body(evil("body"))
        .with_location(Location::lines(evil("src/path"), 3, 5))
        .with_rule(evil("rule"))
        .with_suggestion(evil("suggestion"));
    f.agreed_by = vec![evil("agreed")];
    r.findings.push(f);
    let mut g = Finding::new(evil("[P2] doc"), Severity::P2, "docs")
        .with_body(evil("doc body"))
        .with_location(Location::Document {
            path: evil("docs/plan.md"),
            heading: Some(evil("heading")),
            line: Some(2),
        });
    g.refresh_id();
    r.findings.push(g);
    r.coverage = Some(Coverage {
        complete: false,
        files: vec![FileCoverage {
            path: evil("cov/file"),
            hunks: 1,
            ..FileCoverage::default()
        }],
        left_out: vec![LeftOut {
            path: evil("cov/left"),
            hunks: 1,
            lines: 1,
            cause: LeftOutCause::Budget,
            reason: evil("reason"),
        }],
        ..Coverage::default()
    });
    r.apply_gate(crit_core::FailOn::default());
    r
}

fn options(color: bool) -> RenderOptions {
    RenderOptions {
        color,
        ..RenderOptions::default()
    }
}

/// What no output format may hold, whatever its destination.
fn assert_inert(name: &str, text: &str, own_commands: usize) {
    for c in text.chars() {
        let allowed = matches!(c, '\n' | '\t') || (c == '\x1b' && name == "terminal-color");
        assert!(!c.is_control() || allowed, "{name}: control {c:?} written");
        assert!(
            crit_core::screen::hidden_name(c).is_none() && !matches!(c, '\u{2028}' | '\u{2029}'),
            "{name}: hidden {c:?} written"
        );
    }
    if name == "terminal-color" {
        // Only crit's own colours: every ESC starts an SGR sequence.
        for (i, _) in text.match_indices('\x1b') {
            let rest = &text[i + 1..];
            let sgr = rest.starts_with('[')
                && rest[1..]
                    .chars()
                    .take_while(|c| *c != 'm')
                    .all(|c| c.is_ascii_digit() || c == ';');
            assert!(sgr, "{name}: escape other than a colour at {i}");
        }
    }
    let commands = text
        .lines()
        .filter(|l| l.trim_start().starts_with("::"))
        .count();
    assert_eq!(commands, own_commands, "{name}: workflow commands:\n{text}");
    assert!(!text.contains("##["), "{name}: `##[` written");
}

#[test]
fn no_format_writes_hostile_text_live() {
    let r = hostile();
    for format in Format::ALL {
        let text = render(&r, format, &options(false));
        let own = match format {
            // One annotation per finding and one verdict line: crit's own.
            Format::Github => r.findings.len() + 1,
            _ => 0,
        };
        assert_inert(format.name(), &text, own);
    }
    assert_inert(
        "terminal-color",
        &render(&r, Format::Terminal, &options(true)),
        0,
    );
}

#[test]
fn github_annotations_are_only_crits_own() {
    let text = render(&hostile(), Format::Github, &options(false));
    for line in text.lines() {
        assert!(
            ["::error ", "::warning ", "::notice "]
                .iter()
                .any(|c| line.starts_with(c)),
            "{line:?}"
        );
        // Properties end at the first `::`: only crit's own come before it.
        let props = line.split_once(' ').unwrap().1.split("::").next().unwrap();
        for p in props.split(',') {
            let key = p.split('=').next().unwrap();
            assert!(
                ["file", "line", "endLine", "title"].contains(&key),
                "{key:?} in {line:?}"
            );
        }
    }
}

/// The Markdown as GitHub reads it (CommonMark with tables), parsed: the
/// only HTML is crit's own, the headings are crit's, no image or link, one
/// code block (the suggestion, as a diff), and no live mention.
#[test]
fn markdown_keeps_crits_own_structure() {
    use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};
    let text = render(&hostile(), Format::Markdown, &options(false));
    let mut html = Vec::new();
    let mut headings = 0;
    let mut blocks = Vec::new();
    let mut in_code = false;
    let mut prose = String::new();
    for event in Parser::new_ext(
        &text,
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
    ) {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => {
                html.extend(
                    h.lines()
                        .map(|l| l.trim().to_string())
                        .filter(|l| !l.is_empty()),
                );
            }
            Event::Start(Tag::Heading { .. }) => headings += 1,
            Event::Start(Tag::Image { .. } | Tag::Link { .. }) => panic!("{event:?} in:\n{text}"),
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code = true;
                blocks.push(match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => "(indented)".to_string(),
                });
            }
            Event::End(pulldown_cmark::TagEnd::CodeBlock) => in_code = false,
            Event::Text(t) | Event::Code(t) if !in_code => prose.push_str(&t),
            _ => {}
        }
    }
    assert_eq!(
        html,
        [
            "<details>",
            "<summary>Details</summary>",
            "</details>",
            "<sub>",
            "</sub>"
        ],
        "{text}"
    );
    assert_eq!(headings, 3, "crit's title and one per finding:\n{text}");
    assert_eq!(blocks, ["diff"], "{text}");
    assert!(!prose.contains("@octocat"), "a live mention");
    // What the model wrote reads as written.
    assert!(prose.contains("</details>") && prose.contains("<!-- gate not passed -->"));
    assert!(prose.contains("![i](https://evil.example/x.png)"));
    // The footer says the truth, outside any comment or block.
    let footer = text.lines().last().unwrap();
    assert_eq!(footer, "<sub>2 finding(s) · gate not passed</sub>");
}

#[test]
fn junit_and_json_formats_stay_documents_that_read_back_as_written() {
    let r = hostile();
    let junit = render(&r, Format::Junit, &options(false));
    let doc = roxmltree::Document::parse(&junit).unwrap();
    let case = doc
        .descendants()
        .find(|n| {
            n.attribute("file")
                .is_some_and(|f| f.starts_with("src/path"))
        })
        .unwrap();
    // The text reads back as written, escape sequences shown, not obeyed.
    let file = case.attribute("file").unwrap();
    assert!(file.contains("<U+001B>]0;retitle<U+0007>"), "{file:?}");
    assert!(file.contains("\n::error file=x.rs"), "{file:?}");
    for format in [
        Format::Json,
        Format::Sarif,
        Format::Rdjson,
        Format::Codeclimate,
    ] {
        let text = render(&r, format, &options(false));
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(value.is_object() || value.is_array(), "{}", format.name());
    }
    // The stable JSON keeps the model's exact words (JSON escapes them).
    let json: serde_json::Value =
        serde_json::from_str(&render(&r, Format::Json, &options(false))).unwrap();
    assert_eq!(json["findings"][0]["title"], evil("[P1] title"));
}
