//! Comparing a reviewer's quote with the file as a person reads both, for
//! the evidence check alone: there a closer look can only keep a finding.
//! Invisible characters (format characters such as U+200B, U+FEFF, U+00AD,
//! bidi marks) are dropped, every run of spaces (NBSP and the other Unicode
//! spaces, tabs) is one space, and letters that look like Latin ones
//! (Cyrillic `а`, Greek `ο`, fullwidth `ａ`) are read as them; and a quote a
//! few characters off the code near the lines it cites is a near miss.
//!
//! Nothing here may count as proof that code is there (the verifier's
//! disproof uses the exact comparison): a look-alike letter is another
//! identifier to a compiler, and a near miss is other code.

use std::borrow::Cow;

/// How quote and file text are compared (white space never matters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fold {
    /// As written: what may prove that code is there.
    Exact,
    /// As read: see [`fold`].
    AsRead,
}

impl Fold {
    pub(crate) fn apply(self, text: &str) -> Cow<'_, str> {
        match self {
            Fold::Exact => Cow::Borrowed(text),
            Fold::AsRead => Cow::Owned(fold(text)),
        }
    }
}

/// `text` without invisible characters, each run of white space but line
/// breaks one space, look-alike letters and fullwidth forms as ASCII. Line
/// breaks stay, so line numbers do.
pub(crate) fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_space = false;
    for c in text.chars() {
        if invisible(c) {
            continue;
        }
        if c != '\n' && c.is_whitespace() {
            if !in_space {
                out.push(' ');
            }
            in_space = true;
            continue;
        }
        in_space = false;
        out.push(as_ascii(c));
    }
    out
}

/// A character that shows nothing: a format character (Unicode's `Cf`, all
/// of it as of Unicode 15: the zero-width, bidi and tag characters, the BOM,
/// the soft hyphen), one crit's screening names as hidden, a variation
/// selector, the combining grapheme joiner or a Hangul filler.
fn invisible(c: char) -> bool {
    !c.is_ascii()
        && (crit_core::screen::hidden_name(c).is_some()
            || matches!(c,
                '\u{00AD}'
                | '\u{0600}'..='\u{0605}'
                | '\u{061C}'
                | '\u{06DD}'
                | '\u{070F}'
                | '\u{0890}'..='\u{0891}'
                | '\u{08E2}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{110BD}'
                | '\u{110CD}'
                | '\u{13430}'..='\u{1343F}'
                | '\u{1BCA0}'..='\u{1BCA3}'
                | '\u{1D173}'..='\u{1D17A}'
                | '\u{E0001}'
                | '\u{E0020}'..='\u{E007F}'
                | '\u{034F}'
                | '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{E0100}'..='\u{E01EF}'))
}

/// The ASCII character `c` looks like, or `c`.
fn as_ascii(c: char) -> char {
    if ('\u{FF01}'..='\u{FF5E}').contains(&c) {
        // Fullwidth forms sit at a fixed offset from ASCII.
        return char::from_u32(c as u32 - 0xFEE0).unwrap_or(c);
    }
    match c {
        // Cyrillic
        '\u{0430}' => 'a',
        '\u{0435}' => 'e',
        '\u{043E}' => 'o',
        '\u{0440}' => 'p',
        '\u{0441}' => 'c',
        '\u{0443}' => 'y',
        '\u{0445}' => 'x',
        '\u{0455}' => 's',
        '\u{0456}' => 'i',
        '\u{0458}' => 'j',
        '\u{04BB}' => 'h',
        '\u{04CF}' => 'l',
        '\u{0501}' => 'd',
        '\u{051B}' => 'q',
        '\u{051D}' => 'w',
        '\u{0405}' => 'S',
        '\u{0406}' => 'I',
        '\u{0408}' => 'J',
        '\u{0410}' => 'A',
        '\u{0412}' => 'B',
        '\u{0415}' => 'E',
        '\u{041A}' => 'K',
        '\u{041C}' => 'M',
        '\u{041D}' => 'H',
        '\u{041E}' => 'O',
        '\u{0420}' => 'P',
        '\u{0421}' => 'C',
        '\u{0422}' => 'T',
        '\u{0423}' => 'Y',
        '\u{0425}' => 'X',
        // Greek
        '\u{03B1}' => 'a',
        '\u{03B9}' => 'i',
        '\u{03BA}' => 'k',
        '\u{03BD}' => 'v',
        '\u{03BF}' => 'o',
        '\u{03C1}' => 'p',
        '\u{03C5}' => 'u',
        '\u{03C7}' => 'x',
        '\u{03F2}' => 'c',
        '\u{03F3}' => 'j',
        '\u{0391}' => 'A',
        '\u{0392}' => 'B',
        '\u{0395}' => 'E',
        '\u{0396}' => 'Z',
        '\u{0397}' => 'H',
        '\u{0399}' => 'I',
        '\u{039A}' => 'K',
        '\u{039C}' => 'M',
        '\u{039D}' => 'N',
        '\u{039F}' => 'O',
        '\u{03A1}' => 'P',
        '\u{03A4}' => 'T',
        '\u{03A5}' => 'Y',
        '\u{03A7}' => 'X',
        // Latin dotless i
        '\u{0131}' => 'i',
        _ => c,
    }
}

/// Edits a quote of `len` characters may be off by and still be a near miss:
/// one in ten, at least one.
pub(crate) fn allowance(len: usize) -> usize {
    (len / 10).max(1)
}

/// Comparison steps a near-miss check may take over one quote. A quote the
/// budget cannot settle is left unchecked (and so kept), never dismissed.
pub(crate) const BUDGET: usize = 16_000_000;

/// The budget ran out before the comparison was settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Spent;

/// Whether each piece of a quote (in order; pieces are what `…` separates)
/// is within its [`allowance`] of edits of a stretch of `window`, each after
/// the one before.
pub(crate) fn near_in_order(
    window: &[char],
    pieces: &[Vec<char>],
    budget: &mut usize,
) -> Result<bool, Spent> {
    let mut at = 0;
    for p in pieces {
        let rest = window.get(at..).unwrap_or_default();
        match first_end(p, rest, allowance(p.len()), budget)? {
            Some(end) => at += end,
            None => return Ok(false),
        }
    }
    Ok(!pieces.is_empty())
}

/// Where the first stretch of `text` within `k` edits of `pattern` ends, if
/// any. An edit is a character added, dropped or changed, or two neighbours
/// swapped (optimal string alignment). Sellers' column-wise matching with
/// Ukkonen's cut-off: rows past the last one within `k` are not computed, so
/// the work is near `k` per text character on text that does not match;
/// every step is charged to `budget`. A pattern longer than the text by more
/// than `k` cannot be near, and costs nothing.
fn first_end(
    pattern: &[char],
    text: &[char],
    k: usize,
    budget: &mut usize,
) -> Result<Option<usize>, Spent> {
    let m = pattern.len();
    if m <= k {
        return Ok(Some(0));
    }
    if m > text.len() + k {
        return Ok(None);
    }
    // Values are capped at k + 1: past it only "too far" matters. Each column
    // is kept with its last row within k; every row past that holds `cap`.
    let cap = k + 1;
    let mut before: Vec<usize> = vec![cap; m + 1];
    let mut before_last = 0;
    before[0] = 0;
    let mut prev: Vec<usize> = (0..=m).map(|i| i.min(cap)).collect();
    let mut last = k;
    for (j, &t) in text.iter().enumerate() {
        let rows = (last + 1).min(m);
        let dirty = before_last.max(rows);
        *budget = budget.checked_sub(dirty + 1).ok_or(Spent)?;
        // The column two back is overwritten in place; the two old values a
        // swap needs ride along.
        let mut cur = std::mem::take(&mut before);
        let (mut old2, mut old1) = (cap, cur[0]);
        cur[0] = 0;
        for i in 1..=rows {
            let old = cur[i];
            let mut v = (prev[i - 1] + usize::from(pattern[i - 1] != t))
                .min(prev[i] + 1)
                .min(cur[i - 1] + 1);
            if i >= 2 && j >= 1 && pattern[i - 1] == text[j - 1] && pattern[i - 2] == t {
                v = v.min(old2 + 1);
            }
            cur[i] = v.min(cap);
            old2 = old1;
            old1 = old;
        }
        let mut new_last = rows;
        while new_last > 0 && cur[new_last] > k {
            new_last -= 1;
        }
        for v in cur.iter_mut().take(dirty + 1).skip(new_last + 1) {
            *v = cap;
        }
        if new_last == m {
            return Ok(Some(j + 1));
        }
        before = std::mem::replace(&mut prev, cur);
        before_last = last;
        last = new_last;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    /// The optimal-string-alignment distance of `p` to its closest
    /// substring of `t`, by the full table, for every substring.
    fn reference(p: &[char], t: &[char]) -> usize {
        let mut best = usize::MAX;
        for s in 0..=t.len() {
            for e in s..=t.len() {
                let b = &t[s..e];
                let mut d = vec![vec![0usize; b.len() + 1]; p.len() + 1];
                for (i, row) in d.iter_mut().enumerate() {
                    row[0] = i;
                }
                for (j, v) in d[0].iter_mut().enumerate() {
                    *v = j;
                }
                for i in 1..=p.len() {
                    for j in 1..=b.len() {
                        let mut v = (d[i - 1][j - 1] + usize::from(p[i - 1] != b[j - 1]))
                            .min(d[i - 1][j] + 1)
                            .min(d[i][j - 1] + 1);
                        if i > 1 && j > 1 && p[i - 1] == b[j - 2] && p[i - 2] == b[j - 1] {
                            v = v.min(d[i - 2][j - 2] + 1);
                        }
                        d[i][j] = v;
                    }
                }
                best = best.min(d[p.len()][b.len()]);
            }
        }
        best
    }

    #[test]
    fn invisible_characters_go_and_look_alikes_read_as_ascii() {
        for (written, read) in [
            ("na\u{200B}me", "name"),
            ("na\u{200C}m\u{200D}e", "name"),
            ("\u{FEFF}let x", "let x"),
            ("pass\u{00AD}word", "password"),
            (
                "user\u{200E}\u{200F}\u{202E}\u{2066}\u{2069}\u{2060}",
                "user",
            ),
            ("a\u{E0041}b\u{FE0F}c", "abc"),
            ("let\u{00A0}x\t=  \u{3000}1", "let x = 1"),
            ("\u{0430}dmin \u{0440}\u{043E}\u{0441}", "admin poc"),
            ("\u{03BF}k \u{03B1}\u{03C1}", "ok ap"),
            ("\u{0456}f \u{0445}", "if x"),
            ("\u{FF4C}\u{FF45}\u{FF54}\u{FF01}", "let!"),
            ("a\n\u{200B}\nb", "a\n\nb"),
        ] {
            assert_eq!(fold(written), read, "{written:?}");
        }
        // What is not a look-alike stays: other scripts, accents, CJK.
        assert_eq!(fold("café Ж 名前"), "café Ж 名前");
        assert_eq!(Fold::Exact.apply("na\u{200B}me"), "na\u{200B}me");
    }

    #[test]
    fn the_first_near_stretch_agrees_with_plain_edit_distance() {
        let text = chars("returna/b;letq=format!(\"SELECT*FROMusers\",name);");
        for (quote, near) in [
            ("returna//b", true),
            ("returnab", true),
            ("retrunа/b", false),
            ("retruna/b", true),
            ("retrnua/b", false),
            ("xreturna/b", true),
            ("letq=format!(\"SELECT*FROMuser\",name);", true),
            ("letq=format!(\"SELETC*FROMusers\",name);", true),
            ("letq=format!(\"SELECT*FROMusers\",name).unwrap();", false),
            ("eval(request.body)", false),
        ] {
            let q = chars(quote);
            let k = allowance(q.len());
            let mut budget = BUDGET;
            let got = first_end(&q, &text, k, &mut budget).unwrap().is_some();
            assert_eq!(got, reference(&q, &text) <= k, "{quote}");
            assert_eq!(got, near, "{quote}");
        }
    }

    #[test]
    fn the_cut_off_never_changes_the_answer() {
        // Small texts over two letters hit every corner of the table.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..3000 {
            let (pl, tl) = (1 + next(12), next(16));
            let mut word = |len: u64| -> Vec<char> {
                (0..len)
                    .map(|_| if next(2) == 0 { 'a' } else { 'b' })
                    .collect()
            };
            let (p, t) = (word(pl), word(tl));
            for k in 1..=3 {
                let mut budget = BUDGET;
                let got = first_end(&p, &t, k, &mut budget).unwrap().is_some();
                assert_eq!(got, reference(&p, &t) <= k, "{p:?} in {t:?}, k = {k}");
            }
        }
    }

    #[test]
    fn pieces_match_in_order() {
        let w = chars("letv1=compute(1);letv2=compute(2);letv40=compute(40);");
        let p = |s: &[&str]| s.iter().map(|x| chars(x)).collect::<Vec<_>>();
        let mut b = BUDGET;
        assert_eq!(
            near_in_order(&w, &p(&["letv1=compte(1);", "letv40=compute(40)"]), &mut b),
            Ok(true)
        );
        assert_eq!(
            near_in_order(
                &w,
                &p(&["letv40=compute(40);", "letv1=compute(1);"]),
                &mut b
            ),
            Ok(false)
        );
        assert_eq!(near_in_order(&w, &[], &mut b), Ok(false));
    }

    #[test]
    fn the_work_is_bounded() {
        // A hostile megabyte quote against a small window: settled at once.
        let window = chars(&"let x = compute(1);".repeat(100));
        let huge: Vec<char> = "a".repeat(1 << 20).chars().collect();
        let mut budget = BUDGET;
        assert_eq!(
            first_end(&huge, &window, allowance(huge.len()), &mut budget),
            Ok(None)
        );
        assert_eq!(budget, BUDGET);
        // Text that keeps every row alive: stopped by the budget, not run
        // to its square.
        let same = vec!['a'; 200_000];
        let pattern = [vec!['a'; 100_000], vec!['b'; 20_000]].concat();
        let mut budget = BUDGET;
        assert_eq!(
            first_end(&pattern, &same, allowance(pattern.len()), &mut budget),
            Err(Spent)
        );
        // Ordinary text: far less than a step per character and quote letter.
        let file = chars(&"let value = compute(input);\n".repeat(4000));
        let quote = chars("let query = format!(\"SELECT * FROM t WHERE id = {}\", id);");
        let mut budget = BUDGET;
        assert_eq!(
            first_end(&quote, &file, allowance(quote.len()), &mut budget),
            Ok(None)
        );
        assert!(BUDGET - budget < file.len() * quote.len() / 2);
    }
}
