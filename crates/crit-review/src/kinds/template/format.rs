//! Review templates written for the original tool fill `prompt_template`
//! with Python's `str.format(**inputs)`: `{name}` is an input, `{{` and `}}`
//! are literal braces, and any other field is an error. crit keeps those
//! rules for such templates (checked when the template loads), and turns the
//! text into the minijinja it renders everything with. A template that uses
//! minijinja itself (`{% … %}`, `{# … #}`, or `{{ name }}` expressions) is
//! crit's own and left as it is.

/// Whether `text` is written for minijinja rather than `str.format`.
pub(super) fn is_minijinja(text: &str) -> bool {
    if text.contains("{%") || text.contains("{#") {
        return true;
    }
    let mut rest = text;
    while let Some(i) = rest.find("{{") {
        let tail = &rest[i + 2..];
        let Some(end) = tail.find("}}") else {
            return false;
        };
        if is_expression(tail[..end].trim()) && tail[..end].starts_with(char::is_whitespace) {
            return true;
        }
        rest = &tail[end + 2..];
    }
    false
}

/// `name`, `a.b`, `name | filter`: what a minijinja expression looks like,
/// and what a literal-brace JSON example (`{{ "a": 1 }}`) does not.
fn is_expression(inner: &str) -> bool {
    let mut parts = inner.split('|').map(str::trim);
    let head = parts.next().unwrap_or_default();
    let ident = |s: &str| {
        let mut c = s.chars();
        c.next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '.')
    };
    ident(head)
        && parts.all(|f| {
            let name = f.split('(').next().unwrap_or_default().trim();
            ident(name)
        })
}

/// `text` in `str.format` syntax as minijinja: `{name}` becomes
/// `{{ name }}`, `{{` and `}}` literal braces. A field that is not one of
/// `inputs`, or a lone brace, is an error that says what to write instead.
/// Why a `str.format` template cannot be read, in words for the template's author.
#[derive(Debug)]
pub(super) struct FormatError(pub(super) String);

pub(super) fn to_minijinja(text: &str, inputs: &[&str]) -> Result<String, FormatError> {
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' if chars.peek().is_some_and(|(_, n)| *n == '{') => {
                chars.next();
                out.push_str("{{ \"{\" }}");
            }
            '}' if chars.peek().is_some_and(|(_, n)| *n == '}') => {
                chars.next();
                out.push_str("{{ \"}\" }}");
            }
            '{' => {
                let rest = &text[i + 1..];
                let Some(end) = rest
                    .find(['}', '{'])
                    .filter(|e| rest[*e..].starts_with('}'))
                else {
                    return Err(FormatError(
                        "prompt_template has a `{` with no closing `}`; write `{{` for a literal brace"
                            .to_string(),
                    ));
                };
                let field = &rest[..end];
                // `{name!r}` and `{name:>10}` name `name` too.
                let name = field.split(['!', ':']).next().unwrap_or_default().trim();
                if !inputs.contains(&name) {
                    return Err(FormatError(format!(
                        "prompt_template uses `{{{field}}}`, which is not a declared input (declared: {}); write `{{{{` and `}}}}` for literal braces",
                        if inputs.is_empty() {
                            "none".to_string()
                        } else {
                            inputs.join(", ")
                        }
                    )));
                }
                if field != name {
                    return Err(FormatError(format!(
                        "prompt_template uses `{{{field}}}`: conversions and format specs are not supported; write `{{{name}}}`"
                    )));
                }
                out.push_str("{{ ");
                out.push_str(name);
                out.push_str(" }}");
                for _ in 0..=field.chars().count() {
                    chars.next();
                }
            }
            '}' => {
                return Err(FormatError(
                    "prompt_template has a single `}`; write `}}` for a literal brace".to_string(),
                ));
            }
            other => out.push(other),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_format_rules() {
        let t = to_minijinja(
            "Review {input} against {against}. Answer {{\"verdict\": \"PASS\"}}.",
            &["input", "against"],
        )
        .unwrap();
        assert_eq!(
            t,
            "Review {{ input }} against {{ against }}. Answer {{ \"{\" }}\"verdict\": \"PASS\"{{ \"}\" }}."
        );
        for (bad, needle) in [
            (
                "Review {doc}",
                "`{doc}`, which is not a declared input (declared: input)",
            ),
            ("Review {0}", "`{0}`"),
            ("Review {}", "`{}`"),
            ("JSON {\"a\": 1}", "not a declared input"),
            ("Review {input", "no closing"),
            ("a } b", "single `}`"),
            ("{input!r}", "conversions and format specs"),
        ] {
            let e = to_minijinja(bad, &["input"]).unwrap_err().0;
            assert!(e.contains(needle), "{bad}: {e}");
        }
        assert_eq!(
            to_minijinja("é {input} ü", &["input"]).unwrap(),
            "é {{ input }} ü"
        );
    }

    #[test]
    fn minijinja_is_told_apart() {
        assert!(is_minijinja("{% if x %}a{% endif %}"));
        assert!(is_minijinja("Review {{ input }}"));
        assert!(is_minijinja("Review {{ input | upper }}"));
        assert!(!is_minijinja("Review {input}"));
        assert!(!is_minijinja("JSON {{ \"a\": 1 }}"));
        assert!(!is_minijinja("literal {{input}} braces"));
        assert!(!is_minijinja("{{"));
    }
}
