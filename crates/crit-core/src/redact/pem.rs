//! Private keys in PEM form (`-----BEGIN … PRIVATE KEY-----`), bounded by
//! their own lines: the marker, the header lines of an encrypted key, the
//! base64 body, and the END marker when it follows. A key is found as it
//! appears in a file, in a diff (`+` in front of each line), indented in YAML,
//! or inside a string with `\n` escapes; whatever is not part of a key ends
//! it, so a marker with no key after it (`// -----BEGIN RSA PRIVATE KEY-----
//! test fixture header`) hides nothing, and a key cut off before its END line
//! hides its own lines and not one line more.

use std::sync::LazyLock;

use regex::Regex;

use super::Hit;

/// Base64 a key may hold before it is judged not to be one: an RSA key of
/// 16384 bits is about 12.7 KiB of it.
pub const MAX_KEY_BYTES: usize = 16 * 1024;

static BEGIN: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----").ok());

/// Every private key in `text`.
pub(super) fn find(text: &str, hits: &mut Vec<Hit>) {
    // Most texts hold no marker: they never compile the pattern.
    if !text.contains("-----BEGIN") {
        return;
    }
    let Some(begin) = BEGIN.as_ref() else {
        debug_assert!(false, "the private-key pattern does not compile");
        return;
    };
    let mut from = 0;
    while let Some(m) = begin.find_at(text, from) {
        from = m.end();
        if let Some((end, whole)) = extent(text, m.end()) {
            hits.push(Hit {
                start: m.start(),
                end,
                kind: "private-key",
                suspect: !whole,
            });
            from = end;
        }
    }
}

/// A body line shorter than this is taken only as a key's last line, right
/// before its END marker: PEM lines are 64 characters (70 for OpenSSH keys),
/// and a short word is more likely code or prose.
const SHORT_LINE: usize = 16;

/// Where the key that starts right after `at` (the end of its BEGIN marker)
/// ends, and whether it is whole: closed by its END line within
/// [`MAX_KEY_BYTES`]. A key that is not may hide more than a key (a line of
/// code that reads as base64), so its span says so. `None` when no base64
/// follows the marker.
fn extent(text: &str, at: usize) -> Option<(usize, bool)> {
    let bytes = text.as_bytes();
    let mut pos = at;
    let mut body_bytes = 0usize;
    let mut end = None;
    // A short run of base64 waits for the END marker that makes it the last line.
    let mut short: Option<usize> = None;
    let mut after_newline = false;
    loop {
        // What lies between two runs of base64: line breaks and indentation,
        // `\n` escapes, the quotes and joining of a string literal, a diff's
        // `-` prefix. Anything else ends the key.
        while pos < bytes.len() {
            match bytes[pos] {
                b'\n' => {
                    after_newline = true;
                    pos += 1;
                    if body_bytes == 0 && short.is_none() {
                        pos = skip_header(text, pos);
                    }
                    continue;
                }
                b' ' | b'\t' | b'\r' | b'"' | b'\'' | b',' | b';' => pos += 1,
                b'\\' if matches!(bytes.get(pos + 1), Some(b'n' | b'r' | b't')) => pos += 2,
                b'-' if is_end_marker_at(text, pos) => {
                    return (body_bytes > 0).then(|| (end_marker_end(text, pos), true));
                }
                b'-' if after_newline => pos += 1,
                _ => break,
            }
            after_newline = false;
        }
        if pos >= bytes.len() {
            // A key cut off at the end of the text, as far as it goes.
            return short.or(end).map(|e| (e, false));
        }
        let run = text[pos..]
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
            .count();
        let token = &text[pos..pos + run];
        if run == 0 || !is_base64(token) || short.is_some() {
            break;
        }
        pos += run;
        after_newline = false;
        if token.bytes().all(|b| b == b'+') {
            continue; // a string literal's `+`, or a diff's
        }
        body_bytes += run;
        if run < SHORT_LINE {
            short = Some(pos);
            continue;
        }
        end = Some(pos);
        if body_bytes > MAX_KEY_BYTES {
            return Some((pos, false));
        }
    }
    end.map(|e| (e, false))
}

/// Past a header line of an encrypted key (`Proc-Type: 4,ENCRYPTED`,
/// `DEK-Info: AES-128-CBC,…`) starting at `pos`, if one is there.
fn skip_header(text: &str, pos: usize) -> usize {
    let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i);
    let line = text[pos..line_end].trim_start_matches(['+', ' ', '\t']);
    let header = line.split_once(": ").is_some_and(|(name, value)| {
        !value.trim().is_empty()
            && (3..=32).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphabetic() || b == b'-')
    });
    if header { line_end } else { pos }
}

fn is_base64(token: &str) -> bool {
    let data = token.trim_end_matches('=');
    token.len() - data.len() <= 2
        && !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

static END: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\A-----END[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----").ok());

fn is_end_marker_at(text: &str, pos: usize) -> bool {
    END.as_ref().is_some_and(|re| re.is_match(&text[pos..]))
}

fn end_marker_end(text: &str, pos: usize) -> usize {
    END.as_ref()
        .and_then(|re| re.find(&text[pos..]))
        .map_or(pos, |m| pos + m.end())
}
