//! `RefactorStructure`: a prompt written as one run of text, put into
//! sections. Its sentences that set a requirement ("must", "never", "only",
//! …) go under `## Constraints` as a list; everything else stays, in order,
//! under `## Task`. Every word is kept; code blocks move whole. A prompt that
//! already has sections of its own is left as its author structured it.

use super::apply::NotApplied;

/// Words that make a sentence a requirement.
const REQUIRING: [&[&str]; 14] = [
    &["must"],
    &["never"],
    &["always"],
    &["should"],
    &["shouldn", "t"],
    &["do", "not"],
    &["don", "t"],
    &["only"],
    &["avoid"],
    &["ensure"],
    &["make", "sure"],
    &["required"],
    &["without"],
    &["no"],
];

/// The restructured text and the sections it has, or why it is left alone.
pub(super) fn restructure(body: &str) -> Result<(String, Vec<String>), NotApplied> {
    if body.lines().any(super::apply::is_heading) {
        return Err(NotApplied::HasSections);
    }
    let mut task: Vec<String> = Vec::new();
    let mut constraints: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in body.lines() {
        let fence = line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~");
        if in_code || fence {
            task.push(line.to_string());
            in_code ^= fence;
            continue;
        }
        let item = strip_marker(line.trim());
        if item.is_empty() {
            // A paragraph break stays one.
            if task.last().is_some_and(|l| !l.is_empty()) {
                task.push(String::new());
            }
            continue;
        }
        let mut kept: Vec<&str> = Vec::new();
        for sentence in sentences(item) {
            match requires(sentence) {
                true => constraints.push(sentence.to_string()),
                false => kept.push(sentence),
            }
        }
        if !kept.is_empty() {
            let text = kept.join(" ");
            // A list item the task keeps stays one.
            task.push(match item.len() < line.trim().len() {
                true => format!("- {text}"),
                false => text,
            });
        }
    }
    while task.last().is_some_and(String::is_empty) {
        task.pop();
    }
    if task.is_empty() && constraints.is_empty() {
        return Err(NotApplied::Empty);
    }
    let mut out = String::new();
    let mut sections = Vec::new();
    if !task.is_empty() {
        out.push_str("## Task\n");
        out.push_str(&task.join("\n"));
        sections.push("Task".to_string());
    }
    if !constraints.is_empty() {
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str("## Constraints\n");
        let items: Vec<String> = constraints.iter().map(|c| format!("- {c}")).collect();
        out.push_str(&items.join("\n"));
        sections.push("Constraints".to_string());
    }
    if body.ends_with('\n') {
        out.push('\n');
    }
    Ok((out, sections))
}

/// `- x`, `* x`, `+ x`, `1. x`, `2) x` → `x`.
fn strip_marker(line: &str) -> &str {
    for m in ["- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(m) {
            return rest.trim_start();
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 {
        let rest = &line[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    line
}

/// The sentences of one line: each ends with `.`, `!` or `?` before white
/// space (so `.env` and `settings.ts` stay whole), or with the line.
pub(super) fn sentences(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = line.as_bytes();
    for (i, c) in bytes.iter().enumerate() {
        let blank_after = bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace);
        if matches!(c, b'.' | b'!' | b'?') && blank_after {
            out.push(line[start..=i].trim());
            start = i + 1;
        }
    }
    out.push(line[start..].trim());
    out.into_iter().filter(|s| !s.is_empty()).collect()
}

fn requires(sentence: &str) -> bool {
    let w = super::text::words(sentence);
    REQUIRING.iter().any(|p| {
        w.windows(p.len())
            .any(|x| x.iter().zip(*p).all(|(a, b)| a == b))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        let mut w = super::super::text::words(s);
        w.sort();
        w
    }

    #[test]
    fn sections_keep_every_word() {
        let prompt = "Optimize the settings page. It must not break the mobile layout. Use the existing components.\n";
        let (text, sections) = restructure(prompt).unwrap();
        assert_eq!(
            text,
            "## Task\nOptimize the settings page. Use the existing components.\n\n## Constraints\n- It must not break the mobile layout.\n"
        );
        assert_eq!(sections, ["Task", "Constraints"]);
        let without_titles = text.replace("## Task", "").replace("## Constraints", "");
        assert_eq!(words(&without_titles), words(prompt));
    }

    #[test]
    fn code_lists_and_sections() {
        let prompt = "Fix the parser.\n\n```\nfn main() { never(); }\n```\n- only touch src/\n- add a test\n";
        let (text, _) = restructure(prompt).unwrap();
        assert_eq!(
            text,
            "## Task\nFix the parser.\n\n```\nfn main() { never(); }\n```\n- add a test\n\n## Constraints\n- only touch src/\n"
        );
        assert!(restructure("# Goal\nDo it.").is_err());
        assert!(restructure("  \n").is_err());
        assert_eq!(
            sentences("Read .env. Then stop! ok?"),
            ["Read .env.", "Then stop!", "ok?"]
        );
    }
}
