//! The team's learnings as reviewers read them: the prompt section after the
//! project's conventions, and the check that moves a finding a learning
//! covers to `dismissed`. Only learnings the project's rules allowed reach
//! here (`Learnings::load_with`: in CI the base revision's), so a change
//! cannot teach the reviewer to ignore itself.

use crit_core::{Dismissed, ReviewResult};
use crit_project::learnings::{Learning, Learnings};
use minijinja::context;

use super::prompts::{PromptError, render_prompt};

const PROMPT: &str = include_str!("../../prompts/learnings.md");

/// The learnings section of the reviewers' system prompt for a change to
/// `files`: the learnings whose paths or languages match one of them (or
/// name none); empty when none does. A learning whose words address the
/// reviewer ("ignore previous instructions") is left out, with a warning:
/// its words came from a forge thread, and merging it does not make them
/// safe to obey. `clean` makes each learning's words
/// safe to send (secrets redacted); every text is folded to one line with its
/// hidden characters shown, so a learning cannot pose as a heading or as
/// another learning.
pub fn learnings_section(
    learnings: &Learnings,
    files: &[String],
    clean: impl Fn(&str) -> String,
) -> Result<String, PromptError> {
    let shown: Vec<_> = learnings
        .entries
        .iter()
        .filter(|l| relevant(l, files) && !aimed_at_the_reviewer(l))
        .map(|l| {
            context! {
                id => one_line(&clean(&l.id)),
                rule => one_line(&clean(&l.rule)),
                scope => one_line(&clean(&scope_text(l))),
            }
        })
        .collect();
    if shown.is_empty() {
        return Ok(String::new());
    }
    render_prompt(PROMPT, context! { learnings => shown })
}

/// Moves every finding that cites a learning covering it to `dismissed`
/// (cause `learning`, the learning's words as the reason). A finding that
/// cites a learning crit does not have, or one whose scope does not cover
/// it, is kept: a citation alone proves nothing.
pub fn apply_learnings(learnings: &Learnings, result: &mut ReviewResult) {
    let findings = std::mem::take(&mut result.findings);
    for f in findings {
        // Only a learning reviewers were given can cover a finding.
        let covering = f.learning.as_deref().and_then(|id| {
            learnings
                .about(&f.reviewer, f.rule_id.as_deref(), f.path())
                .find(|l| l.id == id && !aimed(l))
        });
        match covering {
            Some(l) => result.dismissed.push(Dismissed {
                reason: format!("learning {}: {}", l.id, l.rule),
                proof: format!(
                    "the learning `{}` of the project's rules covers it ({})",
                    l.id,
                    scope_text(l)
                ),
                cause: "learning".into(),
                finding: f,
            }),
            None => result.findings.push(f),
        }
    }
}

fn aimed_at_the_reviewer(l: &Learning) -> bool {
    let aimed = aimed(l);
    if aimed {
        tracing::warn!(
            "the learning {} is not given to reviewers: its words address the reviewer",
            crit_core::Printable::line(&l.id, crit_core::Dest::Terminal)
        );
    }
    aimed
}

fn aimed(l: &Learning) -> bool {
    let (visible, _) = crit_core::screen::neutralize(&format!("{}\n{}", l.id, l.rule));
    !crit_core::screen::directives(&visible).is_empty()
}

fn relevant(l: &Learning, files: &[String]) -> bool {
    let s = &l.scope;
    if s.paths.is_empty() && s.languages.is_empty() {
        return true;
    }
    let any = crit_project::learnings::Scope {
        reviewer: None,
        rule: None,
        ..s.clone()
    };
    files.iter().any(|f| any.matches("", None, Some(f)))
}

fn scope_text(l: &Learning) -> String {
    let s = &l.scope;
    let mut parts = Vec::new();
    if let Some(r) = &s.reviewer {
        parts.push(format!("reviewer {r}"));
    }
    if let Some(r) = &s.rule {
        parts.push(format!("rule {r}"));
    }
    if !s.paths.is_empty() {
        parts.push(format!("paths {}", s.paths.join(", ")));
    }
    if !s.languages.is_empty() {
        parts.push(format!("languages {}", s.languages.join(", ")));
    }
    parts.join("; ")
}

fn one_line(text: &str) -> String {
    let (visible, _) = crit_core::screen::neutralize(text);
    visible.split_whitespace().collect::<Vec<_>>().join(" ")
}
