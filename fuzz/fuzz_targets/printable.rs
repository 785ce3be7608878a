#![no_main]

//! Whatever text comes in, no destination prints a control character it does
//! not allow, a hidden or reordering character, or a line that starts a
//! GitHub workflow command.

use crit_core::printable::{Dest, Printable};
use libfuzzer_sys::fuzz_target;

fn check(out: &str, dest: Dest, lines_allowed: bool) {
    let allowed: &[char] = match (dest, lines_allowed) {
        (Dest::Xml, _) => &[],
        (Dest::CiLog, _) | (_, false) => &['\t'],
        (Dest::Terminal | Dest::Markdown, true) => &['\n', '\t'],
    };
    for c in out.chars() {
        let hidden = crit_core::screen::hidden_name(c).is_some()
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{FFFE}' | '\u{FFFF}');
        assert!(
            !(c.is_control() && !allowed.contains(&c)) && !hidden,
            "{dest:?} printed {c:?}: {out:?}"
        );
    }
    for line in out.split('\n') {
        assert!(!line.trim_start().starts_with("::"), "{dest:?}: {line:?}");
    }
    assert!(!out.contains("##["), "{dest:?}: {out:?}");
    if dest == Dest::Markdown || dest == Dest::Xml {
        assert!(!out.contains('<'), "{dest:?}: {out:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for dest in [Dest::Terminal, Dest::CiLog, Dest::Markdown, Dest::Xml] {
        check(Printable::new(&text, dest).as_str(), dest, true);
        check(Printable::line(&text, dest).as_str(), dest, false);
        check(Printable::exact_line(&text, dest).as_str(), dest, false);
    }
    let block = Printable::code_block(&text, "text");
    for line in block.as_str().split('\n') {
        assert!(!line.trim_start().starts_with("::"), "{line:?}");
        assert!(line.chars().all(|c| !c.is_control() || c == '\t'), "{line:?}");
    }
});
