//! Which reviewers take part. Always-on reviewers always do (when enabled); a
//! conditional reviewer does when one of its signals matches — a prompt keyword,
//! a file name the prompt mentions that matches one of its file patterns, or a
//! stack marker of the project — and, when it lists project markers, the
//! project has one of them (`docs/`, `README`, …); a skip keyword in the prompt
//! keeps it out whatever else matches.
//!
//! Keywords match whole words, case-insensitively: `add` fires on "Add a
//! button" but not on "address"; `settings tab` needs both words in a row.
//! List the plural too if you want it (`button` does not match "buttons").
//! File patterns without a `/` match a mentioned file's name (`*.css` matches
//! "src/app/styles.css"). Project markers are names in the project root: a
//! marker ending in `/` is a directory; otherwise any entry whose name starts
//! with it (`README` matches README.md).

use globset::Glob;
use serde::{Deserialize, Serialize};

use super::context::ProjectContext;
use crit_project::config::prompt_review::{PromptConfig, Triggers};

/// Whether one reviewer takes part, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Selection {
    pub name: String,
    pub active: bool,
    pub why: String,
}

/// Every configured reviewer, in priority order (then by name), with its
/// decision. At most `budget.max_reviewers_per_call` are active.
pub fn select(config: &PromptConfig, prompt: &str, ctx: &ProjectContext) -> Vec<Selection> {
    let mut names: Vec<&String> = config
        .editor
        .priority_order
        .iter()
        .filter(|n| config.reviewers.contains_key(*n))
        .collect();
    let mut rest: Vec<&String> = config
        .reviewers
        .keys()
        .filter(|n| !names.contains(n))
        .collect();
    rest.sort();
    names.extend(rest);
    names.dedup();
    let mentioned = mentioned_files(prompt);
    let mut out: Vec<Selection> = names
        .into_iter()
        .filter_map(|name| {
            let r = config.reviewers.get(name)?;
            let (active, why) = if !r.enabled {
                (false, "disabled".to_string())
            } else if !r.conditional {
                (true, "always on".to_string())
            } else {
                fires(&r.triggers, prompt, &mentioned, ctx)
            };
            Some(Selection {
                name: name.clone(),
                active,
                why,
            })
        })
        .collect();
    let cap = config.budget.max_reviewers_per_call;
    for s in out.iter_mut().filter(|s| s.active).skip(cap) {
        s.active = false;
        s.why = format!("over budget.max_reviewers_per_call ({cap})");
    }
    out
}

fn fires(t: &Triggers, prompt: &str, mentioned: &[String], ctx: &ProjectContext) -> (bool, String) {
    if let Some(k) = t.skip_keywords.iter().find(|k| has_word(prompt, k)) {
        return (false, format!("the prompt says `{k}`"));
    }
    let signal = t
        .prompt_keywords
        .iter()
        .find(|k| has_word(prompt, k))
        .map(|k| format!("the prompt mentions `{k}`"))
        .or_else(|| {
            t.file_patterns.iter().find_map(|p| {
                mentioned
                    .iter()
                    .find(|f| matches_file(p, f))
                    .map(|f| format!("the prompt names `{f}` ({p})"))
            })
        })
        .or_else(|| {
            t.stack_markers
                .iter()
                .find(|m| ctx.stack.iter().any(|s| s.eq_ignore_ascii_case(m)))
                .map(|m| format!("the project uses {m}"))
        });
    let any_signals =
        !(t.prompt_keywords.is_empty() && t.file_patterns.is_empty() && t.stack_markers.is_empty());
    let signal = match signal {
        Some(s) => s,
        None if any_signals => return (false, "no trigger matched".into()),
        None => "no signals configured".into(),
    };
    if t.project_markers.is_empty() {
        return (true, signal);
    }
    match t
        .project_markers
        .iter()
        .find(|m| has_marker(&ctx.root_entries, m))
    {
        Some(m) => (true, format!("{signal}, and the project has {m}")),
        None => (
            false,
            format!(
                "{signal}, but the project has none of {}",
                t.project_markers.join(", ")
            ),
        ),
    }
}

/// `keyword` in `text` as whole words, case-insensitively; spaces in the
/// keyword match any run of whitespace.
pub fn has_word(text: &str, keyword: &str) -> bool {
    let squash = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let (text, keyword) = (squash(text), squash(keyword));
    if keyword.is_empty() {
        return false;
    }
    let part_of_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(&keyword).any(|(i, _)| {
        !part_of_word(text[..i].chars().next_back())
            && !part_of_word(text[i + keyword.len()..].chars().next())
    })
}

/// File names the prompt mentions: words with a `/` or an extension.
pub fn mentioned_files(prompt: &str) -> Vec<String> {
    let mut out: Vec<String> = prompt
        .split(|c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '`' | '"' | '\'' | '(' | ')' | ',' | '<' | '>' | '[' | ']'
                )
        })
        .map(|w| w.trim_end_matches(['.', ',', ';', ':', '!', '?']))
        .filter(|w| {
            let ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
                !ext.is_empty()
                    && ext.len() <= 10
                    && ext.chars().all(char::is_alphanumeric)
                    && !stem.is_empty()
            });
            ext || (w.contains('/') && w.len() > 1)
        })
        .map(str::to_string)
        .collect();
    out.sort();
    out.dedup();
    out
}

fn matches_file(pattern: &str, file: &str) -> bool {
    let Ok(glob) = Glob::new(pattern) else {
        return false;
    };
    let m = glob.compile_matcher();
    if pattern.contains('/') {
        m.is_match(file.trim_start_matches("./"))
    } else {
        m.is_match(file.rsplit('/').next().unwrap_or(file))
    }
}

fn has_marker(entries: &[String], marker: &str) -> bool {
    let m = marker.trim();
    if m.ends_with('/') {
        return entries.iter().any(|e| e.eq_ignore_ascii_case(m));
    }
    let m = m.to_ascii_lowercase();
    entries
        .iter()
        .any(|e| e.trim_end_matches('/').to_ascii_lowercase().starts_with(&m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        assert!(has_word("Add a button", "add"));
        assert!(!has_word("Fix the address parser", "add"));
        assert!(!has_word("Padding is off", "add"));
        assert!(has_word("Tweak the CSS.", "css"));
        assert!(has_word("open the Settings\n tab", "settings tab"));
        assert!(!has_word("open the settings", "settings tab"));
        assert!(has_word("improve a11y", "a11y"));
        assert!(!has_word("buttons", "button"));
        assert!(has_word("the UI", "UI"));
        assert!(!has_word("build it", "UI"));
        assert!(!has_word("anything", "  "));
        assert!(has_word("x (ui) y", "ui"));
    }

    #[test]
    fn files_the_prompt_names() {
        assert_eq!(
            mentioned_files(
                "Fix `src/app/styles.css` and settings.ts, then docs/ (see README.md)."
            ),
            ["README.md", "docs/", "settings.ts", "src/app/styles.css"]
        );
        assert!(matches_file("*.css", "src/app/styles.css"));
        assert!(matches_file("settings.ts", "src/settings.ts"));
        assert!(!matches_file("settings.ts", "src/settings.tsx"));
        assert!(matches_file("src/**/*.tsx", "src/a/b.tsx"));
    }

    #[test]
    fn markers() {
        let e = ["README.md".to_string(), "docs/".into(), "src/".into()];
        assert!(has_marker(&e, "docs/"));
        assert!(has_marker(&e, "README"));
        assert!(!has_marker(&e, "CHANGELOG"));
        assert!(!has_marker(&e, "screenshots/"));
        assert!(!has_marker(&["docs".to_string()], "docs/"));
    }
}
