//! Output caps. Command output is cut in the middle ([`HeadTail`], from
//! crit-os); listings and text are cut at the end on a char boundary.

pub(crate) use crit_os::process::HeadTail;

/// Cuts `text` to at most `max` bytes on a char boundary.
pub(crate) fn cut_at_char(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let end = (0..=max)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_at_char_respects_utf8() {
        assert_eq!(cut_at_char("héllo", 2), "h");
        assert_eq!(cut_at_char("abc", 10), "abc");
    }
}
