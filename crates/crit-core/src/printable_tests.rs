use proptest::prelude::*;

use super::*;

const ALL: [Dest; 4] = [Dest::Terminal, Dest::CiLog, Dest::Markdown, Dest::Xml];

fn p(raw: &str, dest: Dest) -> String {
    Printable::new(raw, dest).into_string()
}

/// What no destination may ever print (see the module docs); the first
/// broken rule, if any.
pub(crate) fn violation(out: &str, dest: Dest) -> Option<String> {
    let allowed_controls: &[char] = match dest {
        Dest::Terminal | Dest::Markdown => &['\n', '\t'],
        Dest::CiLog => &['\t'],
        Dest::Xml => &[],
    };
    if let Some(c) = out
        .chars()
        .find(|c| escaped_everywhere(*c) && !allowed_controls.contains(c))
        .or_else(|| {
            out.chars()
                .find(|c| c.is_control() && !allowed_controls.contains(c))
        })
    {
        return Some(format!("{c:?} printed"));
    }
    for line in out.split('\n') {
        if line.trim_start().starts_with("::") {
            return Some(format!("a line starts a workflow command: {line:?}"));
        }
    }
    if out.contains("##[") {
        return Some("`##[` printed".into());
    }
    match dest {
        Dest::Markdown => {
            if out.contains('<') {
                return Some("raw `<` in Markdown".into());
            }
            for line in out.split('\n') {
                let body = line.trim_start_matches("&#32;").trim_start();
                if body.starts_with('#') || body.starts_with("```") || body.starts_with("~~~") {
                    return Some(format!("a live block start: {line:?}"));
                }
                if line.starts_with("    ") || line.starts_with('\t') {
                    return Some(format!("an indented code block: {line:?}"));
                }
            }
            for line in out.split('\n') {
                if let Some(why) = live_markdown(line) {
                    return Some(format!("{why}: {line:?}"));
                }
            }
        }
        Dest::Xml => {
            if out.contains(['<', '>', '"', '\'']) {
                return Some("raw markup or quote in XML".into());
            }
        }
        Dest::Terminal | Dest::CiLog => {}
    }
    None
}

/// A live `[`, an unclosed backtick, or an `@mention` outside inline code.
fn live_markdown(line: &str) -> Option<&'static str> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'`' => {
                let ticks = b[i..].iter().take_while(|c| **c == b'`').count();
                let fence = "`".repeat(ticks);
                let rest = &line[i + ticks..];
                let close = rest.match_indices(&fence).find(|(j, _)| {
                    !rest[j + ticks..].starts_with('`') && (*j == 0 || !rest[..*j].ends_with('`'))
                });
                match close {
                    Some((j, _)) if !rest[..j].contains(['<', '&']) => i += ticks + j + ticks,
                    _ => return Some("an unclosed or unsafe code span"),
                }
            }
            b'[' => return Some("a live `[`"),
            b'@' if !line[i..].starts_with("@&#8203;")
                && line[i + 1..].starts_with(char::is_alphanumeric) =>
            {
                return Some("a live @mention");
            }
            _ => i += 1,
        }
    }
    None
}

#[test]
fn escape_sequences_and_hidden_characters_are_shown_not_obeyed() {
    let cases = [
        ("\x1b]0;pwned\x07Title", "<U+001B>]0;pwned<U+0007>Title"),
        ("\x1b[2J\x1b[HClear", "<U+001B>[2J<U+001B>[HClear"),
        ("a\rb", "a<U+000D>b"),
        ("\u{9b}31mC1 CSI", "<U+009B>31mC1 CSI"),
        ("del\x7f nul\0", "del<U+007F> nul<U+0000>"),
        ("line\u{2028}sep", "line<U+2028>sep"),
        (
            "if access \u{202E} { admin }",
            "if access <U+202E> { admin }",
        ),
        ("iso\u{2066}late\u{2069}", "iso<U+2066>late<U+2069>"),
        ("zero\u{200B}width\u{FEFF}", "zero<U+200B>width<U+FEFF>"),
        ("tag\u{E0041}", "tag<U+E0041>"),
    ];
    for (given, want) in cases {
        assert_eq!(p(given, Dest::Terminal), want, "{given:?}");
    }
    for t in [
        "plain",
        "tabs\tand\nnewlines",
        "émoji 🎉 und Ümlaut",
        "50% done",
        "",
    ] {
        assert_eq!(p(t, Dest::Terminal), t);
    }
}

#[test]
fn no_line_can_start_a_workflow_command() {
    let hostile = "title\n::error file=a.rs,line=1::forged\n  ::add-mask::x\n\u{3000}::warning::y\nok ##[set-env name=A]b";
    let term = p(hostile, Dest::Terminal);
    assert_eq!(
        term,
        "title\n<U+003A>:error file=a.rs,line=1::forged\n  <U+003A>:add-mask::x\n\u{3000}<U+003A>:warning::y\nok #<U+0023>[set-env name=A]b"
    );
    let log = p(hostile, Dest::CiLog);
    assert!(!log.contains('\n') && !log.contains('\r'), "{log}");
    assert!(log.starts_with("title%0A::error"), "{log}");
    assert_eq!(p("::error::x", Dest::CiLog), "%3A:error::x");
    assert_eq!(p("100% \r\n", Dest::CiLog), "100%25 %0D%0A");
    for dest in ALL {
        assert_eq!(violation(&p(hostile, dest), dest), None, "{dest:?}");
    }
}

#[test]
fn markdown_reads_as_written_and_cannot_break_out() {
    let hostile = "## PASS\n</details>\n<!-- hide -->\n![x](https://evil.example/p.png)\n[link](https://x)\n@octocat and @org/team\n```\ncode\n~~~\n===\n    indented\n| a | b |";
    let md = p(hostile, Dest::Markdown);
    assert_eq!(violation(&md, Dest::Markdown), None, "{md}");
    assert!(md.contains("\\## PASS"), "{md}");
    assert!(md.contains("&lt;/details&gt;"), "{md}");
    assert!(md.contains("&lt;!-- hide --&gt;"), "{md}");
    assert!(md.contains("!\\[x\\](https://evil.example/p.png)"), "{md}");
    assert!(md.contains("@&#8203;octocat and @&#8203;org/team"), "{md}");
    assert!(md.contains("\\`\\`\\`"), "{md}");
    assert!(md.contains("\\==="), "{md}");
    assert!(md.contains("\\| a \\| b \\|"), "{md}");
    assert_eq!(p("a & b", Dest::Markdown), "a &amp; b");
    // Inline code keeps its formatting when nothing in it is markup.
    assert_eq!(
        p(
            "skips `conn.Close()` and `@x` but not `<b>` or `a",
            Dest::Markdown
        ),
        "skips `conn.Close()` and `@x` but not \\`&lt;b&gt;\\` or \\`a"
    );
    assert_eq!(p("x@y.com", Dest::Markdown), "x@&#8203;y.com");
}

#[test]
fn code_blocks_have_a_fence_nothing_inside_closes() {
    let code = "let a = 1;\n````\n```\n</details>\n::error::x\n";
    let block = Printable::code_block(code, "suggestion").into_string();
    assert!(block.starts_with("`````suggestion\n"), "{block}");
    assert!(block.ends_with("\n`````"), "{block}");
    assert!(
        block.contains("\n</details>\n"),
        "inside a fence it is text: {block}"
    );
    assert!(block.contains("<U+003A>:error::x"), "{block}");
    assert!(
        Printable::code_block("x", "text")
            .as_str()
            .starts_with("```text\nx\n```")
    );
}

#[test]
fn xml_is_one_line_of_entities() {
    assert_eq!(
        p("a<b>&\"c'\n\td\u{1b}\u{FFFE}", Dest::Xml),
        "a&lt;b&gt;&amp;&quot;c&apos;&#10;&#9;d&lt;U+001B&gt;&lt;U+FFFE&gt;"
    );
}

#[test]
fn one_line_folds_whitespace() {
    assert_eq!(
        Printable::line("  a\n\n::error::b\t c  ", Dest::Terminal).as_str(),
        "a ::error::b c"
    );
    assert_eq!(
        Printable::line("::x\ny", Dest::Terminal).as_str(),
        "<U+003A>:x y"
    );
}

#[test]
fn an_exact_line_shows_line_breaks_and_tabs() {
    assert_eq!(
        Printable::exact_line("a\n::add-mask::x\t\r\x1b[2K  b", Dest::Terminal).as_str(),
        "a<U+000A>::add-mask::x<U+0009><U+000D><U+001B>[2K  b"
    );
    assert_eq!(
        Printable::exact_line("::x\n", Dest::CiLog).as_str(),
        "%3A:x<U+000A>"
    );
    assert_eq!(
        Printable::exact_line("plain", Dest::Terminal).as_str(),
        "plain"
    );
}

/// Text with everything a hostile writer reaches for, mixed with plain text.
fn hostile_text() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("\n".to_string()),
        Just("\r".to_string()),
        Just("::".to_string()),
        Just("##[".to_string()),
        Just("\u{1b}[".to_string()),
        Just("\u{202E}".to_string()),
        Just("\u{3000}".to_string()),
        Just("<details>".to_string()),
        Just("```".to_string()),
        Just("@a".to_string()),
        Just("\\".to_string()),
        Just("#".to_string()),
        Just("&#60;".to_string()),
        "[ -~]{0,6}",
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn nothing_hostile_comes_out_for_any_destination(raw in hostile_text()) {
        for dest in ALL {
            let out = Printable::new(&raw, dest);
            prop_assert_eq!(violation(out.as_str(), dest), None, "{:?} from {:?}", dest, raw);
            let line = Printable::line(&raw, dest);
            prop_assert!(!line.as_str().contains('\n'));
            prop_assert_eq!(violation(line.as_str(), dest), None, "{:?} line from {:?}", dest, raw);
            let exact = Printable::exact_line(&raw, dest);
            prop_assert!(!exact.as_str().contains('\n'));
            prop_assert_eq!(violation(exact.as_str(), dest), None, "{:?} exact line from {:?}", dest, raw);
        }
        let block = Printable::code_block(&raw, "text");
        let s = block.as_str();
        prop_assert!(s.chars().all(|c| !c.is_control() || c == '\n' || c == '\t'));
        prop_assert!(s.split('\n').all(|l| !l.trim_start().starts_with("::")));
        let fence = s.split('\n').next().unwrap_or("").trim_end_matches("text");
        let inner: Vec<&str> = s.split('\n').collect();
        prop_assert!(inner[1..inner.len() - 1].iter().all(|l| !l.trim().starts_with(fence)));
    }
}

#[test]
fn json_documents_keep_their_value_and_print_safely() {
    let value = serde_json::json!({
        "title": "a\u{202E}b ##[add-mask]x \u{E0041} \u{2028} \u{1b}",
        "n": 1
    });
    let raw = serde_json::to_string_pretty(&value).unwrap();
    assert!(
        raw.contains('\u{202E}') && raw.contains("##["),
        "serde leaves them raw"
    );
    let safe = json_document(raw);
    assert!(!safe.contains('\u{202E}') && !safe.contains("##[") && !safe.contains('\u{E0041}'));
    assert!(
        safe.contains("\\u202e") && safe.contains("\\udb40\\udc41"),
        "{safe}"
    );
    let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
    assert_eq!(back, value);
    let plain = "{\"a\": \"plain\"}".to_string();
    assert_eq!(json_document(plain.clone()), plain);
}
