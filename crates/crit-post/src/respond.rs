//! crit in a pull request's conversation: what a comment asks of crit (a
//! `/crit` command, a reply in one of crit's threads), whether crit may and
//! should answer it, and its answer, posted once.
//!
//! Who may command crit is the forge's word (GitHub's
//! `author_association`: `OWNER`, `MEMBER`, `COLLABORATOR`). crit never
//! answers its own account or any bot (no loops), answers each comment once
//! (its answer carries a marker naming the comment it answers, so an edited
//! comment or a re-run does not run a command again), and at most `limit`
//! times per thread in an hour. Everything a person wrote is hostile text:
//! the caller screens it, and everything crit posts is made inert.

use crit_core::{Finding, Location, Severity};
use serde_json::Value;

use crate::error::ContextError;

/// The marker on the first line of crit's answer to comment `id`.
pub(crate) fn answer_marker(id: u64) -> String {
    format!("<!-- crit:answers {id} -->")
}

/// The comment an answer's first line says it answers.
pub(crate) fn answered_id(body: &str) -> Option<u64> {
    let first = body.split('\n').next()?.trim();
    first
        .strip_prefix("<!-- crit:answers ")?
        .strip_suffix(" -->")?
        .parse()
        .ok()
}

/// A comment that raised an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub id: u64,
    pub author: String,
    /// Written by a bot (the forge says so, or its name does).
    pub bot: bool,
    /// The author may command crit (write access to the repository).
    pub may_command: bool,
    pub body: String,
    /// A review comment (on a line) rather than one on the conversation.
    pub on_a_line: bool,
    /// The review comment it replies to.
    pub in_reply_to: Option<u64>,
    /// The event is the comment's edit.
    pub edited: bool,
    pub created_at: String,
    pub url: Option<String>,
}

const WRITERS: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];

impl Said {
    /// From a GitHub Actions `issue_comment` or `pull_request_review_comment`
    /// event's payload.
    pub fn from_github_event(event: &Value) -> Result<Said, ContextError> {
        let c = event
            .get("comment")
            .filter(|c| c.is_object())
            .ok_or(ContextError::NotAPullRequest)?;
        let s = |p: &str| c.pointer(p).and_then(Value::as_str).unwrap_or("");
        let author = s("/user/login").to_string();
        Ok(Said {
            id: c
                .get("id")
                .and_then(Value::as_u64)
                .ok_or(ContextError::NotAPullRequest)?,
            bot: s("/user/type") == "Bot" || author.ends_with("[bot]"),
            may_command: WRITERS.contains(&s("/author_association")),
            body: s("/body").to_string(),
            on_a_line: event.get("pull_request").is_some_and(Value::is_object)
                && c.get("path").is_some(),
            in_reply_to: c.get("in_reply_to_id").and_then(Value::as_u64),
            edited: event.get("action").and_then(Value::as_str) == Some("edited"),
            created_at: s("/created_at").to_string(),
            url: Some(s("/html_url").to_string()).filter(|u| !u.is_empty()),
            author,
        })
    }
}

/// A `/crit` command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Review,
    Describe,
    Ask(String),
    Help,
    /// `/crit` with a word crit does not know.
    Unknown(String),
}

/// The command a comment's first line gives, if it starts with `/crit`.
pub fn command(body: &str) -> Option<Command> {
    let first = body.lines().map(str::trim).find(|l| !l.is_empty())?;
    let rest = first.strip_prefix("/crit")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let rest = rest.trim();
    let (word, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    Some(match word {
        "review" => Command::Review,
        "describe" => Command::Describe,
        "help" | "" => Command::Help,
        "ask" => {
            // The question may go on over the comment's next lines.
            let after = body.split_once("ask").map_or("", |(_, a)| a);
            let q = after.trim();
            match q.is_empty() && tail.is_empty() {
                true => Command::Help,
                false => Command::Ask(q.to_string()),
            }
        }
        other => Command::Unknown(other.chars().take(40).collect()),
    })
}

/// A reply that disputes the finding it answers, by its words.
pub fn disputes(body: &str) -> bool {
    let t = body.to_lowercase();
    [
        "false positive",
        "not a bug",
        "not an issue",
        "not a problem",
        "not true",
        "this is wrong",
        "is wrong",
        "already handled",
        "already checked",
        "is handled",
        "is validated",
        "is checked",
        "can't happen",
        "cannot happen",
        "never happens",
        "disagree",
    ]
    .iter()
    .any(|w| t.contains(w))
}

/// A reply that asks something.
pub fn asks(body: &str) -> bool {
    body.contains('?')
}

/// What crit is to do about a comment.
#[derive(Debug, Clone, PartialEq)]
pub enum Heard {
    /// A command from someone who may give it.
    Command(Command),
    /// A command from someone who may not.
    NotAllowed(Command),
    /// A reply in crit's thread about `finding` (its comment `root`):
    /// worded as a dispute (`dispute`), or anything else for the caller to
    /// read (a question, a dispute in other words, an acknowledgement).
    Reply {
        finding: Box<Finding>,
        key: String,
        root: u64,
        dispute: bool,
    },
    /// Nothing, and why (for the log).
    Nothing(&'static str),
}

/// The finding crit's inline comment `c` is about, and its key, when `c` is
/// one of crit's finding comments (its first line is the marker `markers`
/// reads; the caller checked the author).
pub(crate) fn finding_of(key: &str, c: &Value) -> Finding {
    let body = c.get("body").and_then(Value::as_str).unwrap_or("");
    let mut lines = body.lines().skip(1);
    let headline = lines.next().unwrap_or("");
    let mut parts = headline.split(" · ");
    let code = parts.next().unwrap_or("").trim_matches('*');
    let severity = (0..=3)
        .filter_map(Severity::from_priority)
        .find(|s| s.code() == code)
        .unwrap_or(Severity::P2);
    let title = parts.nth(1).unwrap_or(headline).to_string();
    let mut text = String::new();
    let mut reviewer = String::new();
    let mut rule = None;
    for l in lines {
        if let Some(footer) = l.strip_prefix("<sub>crit") {
            let footer = footer.trim_end_matches("</sub>");
            let mut bits = footer.split(" · ").skip(1);
            reviewer = bits.next().unwrap_or("").to_string();
            rule = bits.next().map(|r| r.trim_matches('`').to_string());
            break;
        }
        if l.starts_with("_The finding is about") || l.starts_with("```suggestion") {
            continue;
        }
        text.push_str(l);
        text.push('\n');
    }
    let mut f = Finding::new(title, severity, reviewer);
    f.body = text.trim().to_string();
    f.rule_id = rule;
    let path = c.get("path").and_then(Value::as_str).unwrap_or("");
    let line = |k: &str| {
        c.get(k)
            .and_then(Value::as_u64)
            .and_then(|l| u32::try_from(l).ok())
    };
    let end = line("original_line").or_else(|| line("line"));
    let start = line("original_start_line").or(end);
    f.location = Some(match (start, end) {
        (Some(s), Some(e)) => Location::lines(path, s, e),
        _ => Location::file(path),
    });
    // The key its comment carries, not one computed from the text shown.
    f.id = key.to_string();
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_from_the_first_line() {
        assert_eq!(command("/crit review"), Some(Command::Review));
        assert_eq!(
            command("  \n/crit describe please"),
            Some(Command::Describe)
        );
        assert_eq!(
            command("/crit ask why parse()?\nand more"),
            Some(Command::Ask("why parse()?\nand more".into()))
        );
        assert_eq!(command("/crit"), Some(Command::Help));
        assert_eq!(command("/crit ask"), Some(Command::Help));
        assert_eq!(command("/critical bug"), None);
        assert_eq!(command("see /crit review"), None);
        assert_eq!(
            command("/crit approve"),
            Some(Command::Unknown("approve".into()))
        );
    }

    #[test]
    fn answer_markers_round_trip() {
        assert_eq!(answered_id(&format!("{}\nhi", answer_marker(42))), Some(42));
        assert_eq!(answered_id("<!-- crit:answers x -->"), None);
        assert_eq!(answered_id("hi"), None);
    }

    #[test]
    fn disputes_and_questions() {
        assert!(disputes("False positive: checked in parse()"));
        assert!(!disputes("thanks, fixed"));
        assert!(asks("why does this matter?"));
    }
}
