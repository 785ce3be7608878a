//! Text from a model or a reviewed file, made safe to print on a terminal.
//!
//! A model's title or a file's line may carry escape sequences that retitle the
//! window, clear the screen, move the cursor or hide text, and bidirectional
//! controls that reorder what the reader sees. [`sanitize`] removes every
//! control character but newline and tab (C0, DEL, C1), so an escape sequence
//! loses its introducer and prints as inert text, and shows bidirectional
//! controls as `<U+202E>` so they are visible instead of obeyed. crit's own
//! colours are added after this, around sanitized text.

use std::borrow::Cow;

/// `text` without terminal control characters (see the module docs).
pub fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_care) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if is_bidi(c) {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else if !is_control(c) {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

fn needs_care(c: char) -> bool {
    is_control(c) || is_bidi(c)
}

fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || c == '\u{2028}' || c == '\u{2029}'
}

/// Bidirectional embeddings, overrides and isolates, and the marks.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_lose_their_power() {
        let cases = [
            ("\x1b]0;pwned\x07Title", "]0;pwnedTitle"),
            ("\x1b[2J\x1b[HClear", "[2J[HClear"),
            ("a\rb", "ab"),
            ("bell\x07", "bell"),
            ("\u{9b}31mC1 CSI", "31mC1 CSI"),
            ("del\x7f", "del"),
            ("nul\0byte", "nulbyte"),
            ("back\x08space", "backspace"),
            ("line\u{2028}sep", "linesep"),
            ("\x1bP+q\x1b\\dcs", "P+q\\dcs"),
            (
                "if access \u{202E} { admin }",
                "if access <U+202E> { admin }",
            ),
            ("iso\u{2066}late\u{2069}", "iso<U+2066>late<U+2069>"),
        ];
        for (given, want) in cases {
            assert_eq!(sanitize(given), want, "{given:?}");
        }
    }

    #[test]
    fn ordinary_text_is_untouched_and_not_copied() {
        for t in ["plain", "tabs\tand\nnewlines", "émoji 🎉 und Ümlaut", ""] {
            assert!(matches!(sanitize(t), Cow::Borrowed(s) if s == t));
        }
    }
}
