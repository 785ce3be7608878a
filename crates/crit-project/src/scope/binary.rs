//! Which content is binary, judged by crit from the bytes, never by git's
//! attributes or its NUL test: git shows every file as text (`--text`), and
//! a section whose added lines are not text (an image, a UTF-16 file, a
//! blob) is shown to reviewers as `Binary files … differ` and marked binary,
//! so the review reports it instead of passing over it. A source file with a
//! stray NUL byte, or a few bytes that are not UTF-8, is text: reviewers read
//! it, those bytes shown as escapes or U+FFFD.

/// The line a binary section ends with in place of its hunks.
pub(super) const NOTICE: &str = "Binary files differ (crit: binary content, not shown)";

/// Whether `bytes` read as binary: more than one byte in ten is not UTF-8 or
/// a control character other than white space.
pub fn looks_binary(bytes: &[u8]) -> bool {
    let mut odd = 0usize;
    for chunk in bytes.utf8_chunks() {
        odd += chunk.invalid().len();
        odd += chunk
            .valid()
            .chars()
            .filter(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c'))
            .count();
    }
    odd > 0 && odd * 10 > bytes.len()
}

/// A `git diff --text` patch as text: each file section whose added lines
/// are binary loses its hunks for [`NOTICE`]; every other byte is decoded
/// lossily (a byte that is not UTF-8 becomes U+FFFD).
pub(super) fn patch_text(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    for section in sections(raw) {
        let hunks_at = hunks_start(section);
        let added: Vec<u8> = section[hunks_at..]
            .split(|b| *b == b'\n')
            .filter_map(|l| l.strip_prefix(b"+"))
            .flat_map(|l| l.iter().copied().chain([b'\n']))
            .collect();
        if hunks_at < section.len() && looks_binary(&added) {
            let header = String::from_utf8_lossy(&section[..hunks_at]);
            // The `---`/`+++` lines name the sides; the hunks are withheld.
            out.push_str(&header);
            if !header.is_empty() && !header.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(NOTICE);
            out.push('\n');
        } else {
            out.push_str(&String::from_utf8_lossy(section));
        }
    }
    out
}

/// Whether a patch section (from its `diff --git` line) was withheld as binary.
pub(super) fn is_binary_section(section: &str) -> bool {
    section
        .lines()
        .take_while(|l| !l.starts_with("@@ "))
        .any(|l| l == NOTICE || (l.starts_with("Binary files ") && l.ends_with(" differ")))
}

/// The patch cut at every line that starts a file section (`diff --git`):
/// inside a hunk every line starts with ` `, `+`, `-` or `\`, so such a line
/// is git's. Bytes before the first section come first, as their own piece.
fn sections(raw: &[u8]) -> Vec<&[u8]> {
    let mut starts = vec![0];
    let mut at = 0;
    for line in raw.split_inclusive(|b| *b == b'\n') {
        if at > 0 && line.starts_with(b"diff --git ") {
            starts.push(at);
        }
        at += line.len();
    }
    starts.push(raw.len());
    starts.windows(2).map(|w| &raw[w[0]..w[1]]).collect()
}

/// Where a section's first `@@ ` line starts (its end when it has none).
fn hunks_start(section: &[u8]) -> usize {
    let mut at = 0;
    for line in section.split_inclusive(|b| *b == b'\n') {
        if line.starts_with(b"@@ ") {
            return at;
        }
        at += line.len();
    }
    section.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_a_stray_byte_is_text_and_blobs_are_not() {
        assert!(!looks_binary(b"fn main() {}\n"));
        assert!(!looks_binary(b"\0fn main() { evil() }\n"));
        assert!(!looks_binary(b"let x = 1;\0\nlet y = 2;\n\0"));
        assert!(!looks_binary("caf\u{e9}\n".as_bytes()));
        assert!(!looks_binary(
            b"caf\xe9 au lait, na\xefve text in Latin-1\n"
        ));
        assert!(looks_binary(
            b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0"
        ));
        let utf16: Vec<u8> = "fn main() {}\n"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes())
            .collect();
        assert!(looks_binary(&utf16));
        assert!(!looks_binary(b""));
        assert!(looks_binary(b"\0\x01\x02"));
    }

    #[test]
    fn binary_sections_lose_their_hunks_and_text_ones_stay_whole() {
        let mut raw = b"diff --git a/a.rs b/a.rs\n--- a/a.rs\n+++ b/a.rs\n@@ -1 +1 @@\n-x\n+let y = compute();\0\n"
            .to_vec();
        raw.extend_from_slice(
            b"diff --git a/i.png b/i.png\nnew file mode 100644\n--- /dev/null\n+++ b/i.png\n@@ -0,0 +1,2 @@\n+\x89PNG\r\n+\x1a\n+\0\0\0\rIHDR\0\0\0\x01\0\0\xff\xfe\n",
        );
        let text = patch_text(&raw);
        assert!(text.starts_with("diff --git a/a.rs b/a.rs\n--- a/a.rs\n+++ b/a.rs\n@@ -1 +1 @@\n-x\n+let y = compute();\0\n"));
        assert!(
            text.ends_with(&format!("+++ b/i.png\n{NOTICE}\n")),
            "{text:?}"
        );
        let png = &text[text.find("diff --git a/i.png").unwrap()..];
        assert!(is_binary_section(png));
        assert!(!is_binary_section(
            &text[..text.find("diff --git a/i.png").unwrap()]
        ));
        // A line that only says so inside a hunk is the file's own text.
        assert!(!is_binary_section(
            "diff --git a/t b/t\n@@ -0,0 +1 @@\n+Binary files a and b differ\n"
        ));
    }
}
