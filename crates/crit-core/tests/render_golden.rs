//! Golden tests: every renderer on every fixture.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

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
