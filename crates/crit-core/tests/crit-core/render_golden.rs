//! Golden tests: every renderer on every fixture.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::fixtures;
use crit_core::render::{Format, RenderOptions, render};

fn options(color: bool) -> RenderOptions {
    RenderOptions {
        color,
        tool_version: "0.0.0-test".into(),
        ..RenderOptions::default()
    }
}

macro_rules! golden {
    ($name:ident, $fixture:expr) => {
        #[test]
        fn $name() {
            let r = $fixture;
            for format in Format::ALL {
                let text = render(&r, format, &options(false));
                assert!(
                    text.ends_with('\n'),
                    "{format:?} output ends with a newline"
                );
                insta::assert_snapshot!(format!("{}_{}", stringify!($name), format.name()), text);
            }
            insta::assert_snapshot!(
                format!("{}_terminal_color", stringify!($name)),
                render(&r, Format::Terminal, &options(true))
            );
        }
    };
}

golden!(rich, fixtures::rich());
golden!(clean, fixtures::clean());
golden!(unparseable, fixtures::unparseable());
golden!(suggestions, fixtures::suggestions());

#[test]
fn no_ansi_without_color() {
    let text = render(&fixtures::rich(), Format::Terminal, &options(false));
    assert!(!text.contains('\u{1b}'));
    assert!(render(&fixtures::rich(), Format::Terminal, &options(true)).contains("\u{1b}["));
}

#[test]
fn json_round_trips() {
    for r in [fixtures::rich(), fixtures::clean(), fixtures::unparseable()] {
        let text = render(&r, Format::Json, &options(false));
        let back: crit_core::ReviewResult = serde_json::from_str(&text).unwrap();
        assert_eq!(back, r);
    }
}

/// A model's words reach the terminal without their escape sequences, in
/// every field the report prints; crit's own colours still work.
#[test]
fn hostile_text_prints_without_control_sequences() {
    use crit_core::{Finding, Location, ReviewResult, Severity, Verdict};
    let evil = "\x1b]0;pwned\x07\x1b[2J\u{9b}1m\r\x08";
    let mut r = ReviewResult::new(format!("code{evil}"), Verdict::Fail);
    r.summary = format!("sum{evil}mary");
    r.parse_error = Some(format!("err{evil}"));
    let mut f = Finding::new(
        format!("[P1] ti{evil}tle"),
        Severity::P1,
        format!("rev{evil}"),
    );
    f.body = format!("bo{evil}dy\nline \u{202E}two");
    f.rule_id = Some(format!("rule{evil}"));
    f.location = Some(Location::lines(format!("src/{evil}a.rs"), 3, 3));
    r.findings.push(f);
    let plain = render(&r, Format::Terminal, &options(false));
    assert!(
        !plain.chars().any(|c| c.is_control() && c != '\n'),
        "{plain:?}"
    );
    assert!(plain.contains("<U+202E>"), "{plain}");
    let colored = render(&r, Format::Terminal, &options(true));
    let escapes = colored.matches('\x1b').count();
    let ours = colored.matches("\x1b[").count();
    assert_eq!(escapes, ours, "only crit's own SGR sequences: {colored:?}");
    assert!(!colored.contains("\x1b]") && !colored.contains("\x1b[2J"));
}

/// Each destination's suggestion syntax, whatever the replacement holds.
#[test]
fn suggestion_blocks_for_github_and_gitlab() {
    use crit_core::suggestion::{github_block, gitlab_block};
    let r = fixtures::suggestions();
    let blocks: Vec<String> = r
        .findings
        .iter()
        .map(|f| {
            let text = f.suggestion.as_deref().unwrap();
            let (start, end) = crit_core::suggestion::range(f).unwrap();
            format!(
                "{}\n{}",
                github_block(text),
                gitlab_block(text, end - start)
            )
        })
        .collect();
    insta::assert_snapshot!(blocks.join("\n---\n"));
}
