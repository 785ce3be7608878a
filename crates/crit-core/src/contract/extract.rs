//! Finding the JSON object in a model's answer: bare, inside ```json fences, or
//! surrounded by prose.

/// Candidate JSON object texts in `text`, most likely first: the whole answer,
/// then fenced blocks (last first: models put the final answer last), then every
/// balanced top-level `{…}` span (last first).
pub fn candidates(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let trimmed = text.trim().trim_start_matches('\u{feff}');
    if trimmed.starts_with('{') {
        out.push(trimmed);
    }
    let mut fenced = fenced_blocks(text);
    fenced.reverse();
    for block in fenced {
        let b = block.trim();
        if b.starts_with('{') && !out.contains(&b) {
            out.push(b);
        }
    }
    let mut spans = balanced_objects(text);
    spans.reverse();
    for span in spans {
        if !out.contains(&span) {
            out.push(span);
        }
    }
    out
}

/// The text from the first `{` to the end: what to parse for an error message
/// when no candidate is valid (a truncated answer, say).
pub fn from_first_brace(text: &str) -> Option<&str> {
    text.find('{').map(|i| text[i..].trim_end())
}

/// Bodies of ``` fenced blocks (any info string), in order. An unclosed final
/// fence yields the rest of the text.
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("```") {
        let after = &rest[start + 3..];
        let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(end) => {
                blocks.push(&body[..end]);
                rest = &body[end + 3..];
            }
            None => {
                blocks.push(body);
                break;
            }
        }
    }
    blocks
}

/// Every top-level balanced `{…}` span, skipping braces inside JSON strings.
fn balanced_objects(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut depth = 0usize;
    let mut start = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' if depth > 0 => in_string = true,
            b'{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            b'}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    spans.push(&text[start..=i]);
                }
            }
            _ => {}
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_fenced_and_embedded_objects() {
        let t = "Here:\n```json\n{\"a\": 1}\n```\nand {\"b\": \"}\"} done";
        let c = candidates(t);
        assert_eq!(c, vec!["{\"a\": 1}", "{\"b\": \"}\"}"]);
    }

    #[test]
    fn bare_object_first() {
        assert_eq!(candidates("  {\"a\":1}\n")[0], "{\"a\":1}");
    }

    #[test]
    fn unclosed_fence_yields_rest() {
        assert_eq!(fenced_blocks("```json\n{\"a\":"), vec!["{\"a\":"]);
    }
}
