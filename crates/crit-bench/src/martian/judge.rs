//! The benchmark's judge and extraction prompts, as published (their text is
//! data, in `prompts/martian/`), filled in the way Python's `str.format`
//! fills them, and their answers read the way the benchmark reads them.

use serde_json::Value;

use super::PairAnswer;

/// The judge's system message.
pub const JUDGE_SYSTEM: &str = include_str!("../../prompts/martian/judge_system.txt");
/// The judge's user message, with `{golden_comment}` and `{candidate}`.
pub const JUDGE_USER: &str = include_str!("../../prompts/martian/judge_user.txt");
/// The extraction step's system message.
pub const EXTRACT_SYSTEM: &str = include_str!("../../prompts/martian/extract_system.txt");
/// The extraction step's user message, with `{comment}`.
pub const EXTRACT_USER: &str = include_str!("../../prompts/martian/extract_user.txt");

/// The judge's message for one pair: only the two texts.
pub fn judge_user(golden: &str, candidate: &str) -> String {
    fill(
        JUDGE_USER,
        &[("{golden_comment}", golden), ("{candidate}", candidate)],
    )
}

/// The extraction message for all of a tool's comments on a pull request.
pub fn extract_user(comments: &str) -> String {
    fill(EXTRACT_USER, &[("{comment}", comments)])
}

/// Replaces each placeholder in one pass, as `str.format` does: text put in
/// is never searched again, so a comment holding `{candidate}` stays as it is.
fn fill(template: &str, with: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    'scan: while !rest.is_empty() {
        for (key, value) in with {
            if let Some(after) = rest.strip_prefix(key) {
                out.push_str(value);
                rest = after;
                continue 'scan;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// The JSON in an answer's text: trimmed, and out of a ``` fence (with or
/// without `json`) when it starts with one, as the benchmark takes it.
fn json_text(text: &str) -> Option<Value> {
    let mut content = text.trim().to_string();
    if content.starts_with("```") {
        content = content.split("```").nth(1).unwrap_or_default().to_string();
        if let Some(rest) = content.strip_prefix("json") {
            content = rest.to_string();
        }
        content = content.trim().to_string();
    }
    serde_json::from_str(&content).ok()
}

/// Python's truthiness of a JSON value.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

/// One judge answer as the benchmark reads it: `None` when the text is not
/// JSON (the benchmark asks again, up to three times); an object carrying
/// `error` is a failed pair; otherwise `match` by truthiness and
/// `confidence` as a number, 0 when absent (so an answer lacking the fields
/// is "no match", as there). A confidence that is not a number is taken as
/// 0 (the benchmark's script would stop on it).
pub fn parse_judge_answer(text: &str) -> Option<(PairAnswer, Option<String>)> {
    let v = json_text(text)?;
    let Some(o) = v.as_object() else {
        // `result.get` on a list or a number fails in the benchmark too.
        return Some((PairAnswer::Failed, None));
    };
    if o.get("error").is_some_and(truthy) {
        return Some((PairAnswer::Failed, None));
    }
    let matched = o.get("match").is_some_and(truthy);
    let confidence = o
        .get("confidence")
        .and_then(Value::as_f64)
        .filter(|c| c.is_finite())
        .unwrap_or(0.0);
    let reasoning = o
        .get("reasoning")
        .and_then(Value::as_str)
        .map(str::to_string);
    Some((
        PairAnswer::Answer {
            matched,
            confidence,
        },
        reasoning,
    ))
}

/// The extraction step's issues; `None` when the answer is not JSON or has
/// no `issues` list (the benchmark records an error and no candidates).
pub fn parse_extracted(text: &str) -> Option<Vec<String>> {
    let v = json_text(text)?;
    let issues = v.get("issues")?.as_array()?;
    Some(
        issues
            .iter()
            .filter_map(|i| match i {
                Value::String(s) => Some(s.clone()),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_prompts() {
        insta::assert_snapshot!("martian_judge_system", JUDGE_SYSTEM);
        insta::assert_snapshot!(
            "martian_judge_user",
            judge_user(
                "Django querysets do not support negative slicing",
                "Paginator slices the queryset with a negative index: it raises."
            )
        );
        insta::assert_snapshot!("martian_extract_system", EXTRACT_SYSTEM);
        insta::assert_snapshot!("martian_extract_user", extract_user("A comment."));
    }

    #[test]
    fn text_put_in_is_not_filled_again() {
        let u = judge_user("{candidate}", "c");
        assert!(u.contains("looking for):\n{candidate}\n\nCandidate"));
        // The literal braces of the answer's shape stay single.
        assert!(u.ends_with(
            r#"{"reasoning": "brief explanation", "match": true/false, "confidence": 0.0-1.0}"#
        ));
    }

    #[test]
    fn answers_are_read_as_the_benchmark_reads_them() {
        let a = |m, c| PairAnswer::Answer {
            matched: m,
            confidence: c,
        };
        let p = |t: &str| parse_judge_answer(t).map(|x| x.0);
        assert_eq!(
            p("```json\n{\"reasoning\": \"r\", \"match\": true, \"confidence\": 0.8}\n```"),
            Some(a(true, 0.8))
        );
        assert_eq!(p("{\"reasoning\": \"r\"}"), Some(a(false, 0.0)));
        assert_eq!(p("{\"match\": 1}"), Some(a(true, 0.0)));
        assert_eq!(p("{\"error\": \"x\"}"), Some(PairAnswer::Failed));
        assert_eq!(p("[1]"), Some(PairAnswer::Failed));
        assert_eq!(p("not json"), None);
        assert_eq!(
            parse_extracted("{\"issues\": [\"a\", \"b\"]}"),
            Some(vec!["a".to_string(), "b".to_string()])
        );
        assert_eq!(parse_extracted("{\"other\": []}"), None);
    }
}
