//! What a comment on a GitHub pull request asks of crit, and crit's answer:
//! the threads, answers and reactions read through the REST API, a thread
//! resolved through GraphQL.

use reqwest::Method;
use serde_json::{Value, json};

use crate::error::PostError;
use crate::github::{GithubPoster, WORKFLOW_BOT, author, str_at};
use crate::inert;
use crate::marker::Marker;
use crate::respond::{
    Command, Heard, Said, answer_marker, answered_id, command, disputes, finding_of,
};

/// 👍 or 👎 by a person on one of crit's finding comments, or its thread
/// resolved by a person with the flagged lines unchanged.
#[derive(Debug, Clone, PartialEq)]
pub struct Reacted {
    pub finding: crit_core::Finding,
    /// `Some(true)` 👍, `Some(false)` 👎, `None`: the thread was resolved.
    pub up: Option<bool>,
    pub author: String,
    pub url: Option<String>,
}

impl GithubPoster {
    /// crit's account: the one given or asked, else a workflow's bot.
    pub(crate) async fn me(&mut self) -> Result<String, PostError> {
        Ok(self
            .identity()
            .await?
            .unwrap_or_else(|| WORKFLOW_BOT.to_string()))
    }

    pub(crate) async fn review_comments(&mut self) -> Result<Vec<Value>, PostError> {
        let path = self.pull("/comments");
        self.api
            .get_all(&path, "list the pull request's review comments")
            .await
    }

    pub(crate) async fn conversation(&mut self) -> Result<Vec<Value>, PostError> {
        let path = self.repo(&format!("/issues/{}/comments", self.ctx.number));
        self.api
            .get_all(&path, "list the pull request's comments")
            .await
    }

    /// What `said` asks of crit, and whether crit should answer: see
    /// [`crate::respond`].
    pub(crate) async fn hear(&mut self, said: &Said, limit: usize) -> Result<Heard, PostError> {
        let me = self.me().await?;
        if said.author == me {
            return Ok(Heard::Nothing("crit's own comment"));
        }
        if said.bot {
            return Ok(Heard::Nothing("a bot's comment"));
        }
        let review = self.review_comments().await?;
        let talk = self.conversation().await?;
        let mine = |c: &&Value| author(c) == me;
        let answers: Vec<&Value> = review.iter().chain(&talk).filter(mine).collect();
        if answers
            .iter()
            .any(|c| answered_id(str_at(c, "/body")) == Some(said.id))
        {
            return Ok(Heard::Nothing("already answered"));
        }
        // The thread: a line's review thread, or the conversation.
        let root = match said.on_a_line {
            true => Some(said.in_reply_to.unwrap_or(said.id)),
            false => None,
        };
        let in_thread = |c: &&&Value| match root {
            Some(r) => {
                c.get("in_reply_to_id").and_then(Value::as_u64) == Some(r)
                    || c.get("id").and_then(Value::as_u64) == Some(r)
            }
            None => c.get("path").is_none(),
        };
        let recent = answers
            .iter()
            .filter(in_thread)
            .filter(|c| answered_id(str_at(c, "/body")).is_some())
            .filter(|c| within_hour(str_at(c, "/created_at"), &said.created_at))
            .count();
        if recent >= limit {
            return Ok(Heard::Nothing("the thread's limit of answers this hour"));
        }
        if let Some(c) = command(&said.body) {
            return Ok(match said.may_command {
                true => Heard::Command(c),
                false => Heard::NotAllowed(c),
            });
        }
        let Some(root) = root.filter(|_| said.in_reply_to.is_some()) else {
            return Ok(Heard::Nothing(
                "not a command, nor a reply in crit's thread",
            ));
        };
        let Some(first) = review
            .iter()
            .find(|c| c.get("id").and_then(Value::as_u64) == Some(root))
        else {
            return Ok(Heard::Nothing("the thread is gone"));
        };
        let key = match (
            author(first) == me,
            self.markers.read(str_at(first, "/body")),
        ) {
            (
                true,
                Some(Marker::Finding {
                    key,
                    resolved: false,
                }),
            ) => key,
            _ => return Ok(Heard::Nothing("not a thread of crit's open findings")),
        };
        // A reply not worded as a dispute goes on too: the caller may read
        // it with a model (a dispute in other words is still a dispute).
        let dispute = disputes(&said.body);
        Ok(Heard::Reply {
            finding: Box::new(finding_of(&key, first)),
            key,
            root,
            dispute,
        })
    }

    /// Posts `text` (markdown crit wrote; model text in it already made
    /// inert) as crit's one answer to `said`: in its thread, or on the
    /// conversation.
    pub(crate) async fn answer(&mut self, said: &Said, text: &str) -> Result<(), PostError> {
        let body = format!("{}\n{text}", answer_marker(said.id));
        match (said.on_a_line, said.in_reply_to.unwrap_or(said.id)) {
            (true, root) => {
                let path = self.pull(&format!("/comments/{root}/replies"));
                self.api
                    .write(
                        Method::POST,
                        &path,
                        &json!({"body": body}),
                        "reply in the thread",
                    )
                    .await?;
            }
            (false, _) => {
                let path = self.repo(&format!("/issues/{}/comments", self.ctx.number));
                self.api
                    .write(
                        Method::POST,
                        &path,
                        &json!({"body": body}),
                        "answer the comment",
                    )
                    .await?;
            }
        }
        Ok(())
    }

    /// Resolves the review thread whose first comment is `root`.
    pub(crate) async fn resolve_thread(&mut self, root: u64) -> Result<bool, PostError> {
        match self.resolve_threads(&[root]).await {
            Ok(n) => Ok(n > 0),
            Err(e) => {
                tracing::warn!("could not resolve the thread: {e}");
                Ok(false)
            }
        }
    }

    /// 👍/👎 by people on crit's open finding comments, and their threads
    /// people resolved with the flagged lines unchanged.
    pub(crate) async fn reactions(&mut self) -> Result<Vec<Reacted>, PostError> {
        let me = self.me().await?;
        let review = self.review_comments().await?;
        let mut out = Vec::new();
        let resolved = self.resolved_by_people(&me).await;
        for c in review.iter().filter(|c| author(c) == me) {
            let Some(Marker::Finding { key, .. }) = self.markers.read(str_at(c, "/body")) else {
                continue;
            };
            let Some(id) = c.get("id").and_then(Value::as_u64) else {
                continue;
            };
            let url = Some(str_at(c, "/html_url").to_string()).filter(|u| !u.is_empty());
            let counted = c
                .pointer("/reactions/+1")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                + c.pointer("/reactions/-1")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
            if counted > 0 || c.get("reactions").is_none() {
                let path = self.repo(&format!("/pulls/comments/{id}/reactions"));
                let all = self
                    .api
                    .get_all(&path, "list a comment's reactions")
                    .await?;
                for r in &all {
                    let up = match str_at(r, "/content") {
                        "+1" => true,
                        "-1" => false,
                        _ => continue,
                    };
                    let who = str_at(r, "/user/login");
                    if who == me || str_at(r, "/user/type") == "Bot" || who.ends_with("[bot]") {
                        continue;
                    }
                    out.push(Reacted {
                        finding: finding_of(&key, c),
                        up: Some(up),
                        author: who.to_string(),
                        url: url.clone(),
                    });
                }
            }
            // Resolved by a person while its line still shows as it was.
            if let Some(by) = resolved
                .iter()
                .find(|(first, _)| *first == id)
                .map(|(_, b)| b)
                && !c.get("line").is_none_or(Value::is_null)
            {
                out.push(Reacted {
                    finding: finding_of(&key, c),
                    up: None,
                    author: by.clone(),
                    url,
                });
            }
        }
        Ok(out)
    }

    /// (first comment id, who resolved it) of threads a person resolved.
    async fn resolved_by_people(&mut self, me: &str) -> Vec<(u64, String)> {
        match self.thread_states().await {
            Ok(all) => all
                .into_iter()
                .filter(|(_, by)| {
                    by.as_deref()
                        .is_some_and(|b| b != me && !b.ends_with("[bot]"))
                })
                .filter_map(|(id, by)| Some((id, by?)))
                .collect(),
            Err(e) => {
                tracing::warn!("could not list the review threads: {e}");
                Vec::new()
            }
        }
    }
}

/// `at` is within the hour before `now` (RFC 3339, UTC, as GitHub writes
/// them); an unreadable time counts as recent.
pub(crate) fn within_hour(at: &str, now: &str) -> bool {
    match (secs(at), secs(now)) {
        (Some(a), Some(n)) => n.saturating_sub(a) < 3600,
        _ => true,
    }
}

/// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SSZ` (fractions ignored).
fn secs(t: &str) -> Option<u64> {
    let num = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    u64::try_from(days * 86_400 + hh * 3600 + mm * 60 + ss).ok()
}

/// The short answer to a command from someone without write access.
pub fn not_allowed(c: &Command) -> String {
    let what = match c {
        Command::Review => "`/crit review`",
        Command::Describe => "`/crit describe`",
        Command::Ask(_) => "`/crit ask`",
        Command::Help | Command::Unknown(_) => "crit's commands",
    };
    format!("{what} can be used by people with write access to this repository.")
}

/// `text` a model wrote, made inert for a comment.
pub fn inert_text(text: &str) -> String {
    inert::block(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_within_the_hour() {
        assert_eq!(secs("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(secs("2026-01-01T00:00:00Z"), Some(1_767_225_600));
        assert!(within_hour("2026-01-01T00:00:00Z", "2026-01-01T00:59:59Z"));
        assert!(!within_hour("2026-01-01T00:00:00Z", "2026-01-01T01:00:00Z"));
        assert!(!within_hour("2025-12-31T23:30:00Z", "2026-01-01T00:30:00Z"));
        assert!(
            within_hour("garbage", "2026-01-01T00:00:00Z"),
            "unreadable counts"
        );
    }
}
