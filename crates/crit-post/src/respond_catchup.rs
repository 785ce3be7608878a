//! The comments on a GitHub pull request crit has not answered yet: what a
//! `--post` run answers before it reviews, for comments no `crit respond`
//! job answered (the workflow has none, or it failed). Each is then heard
//! as `crit respond` hears it ([`GithubPoster::hear`]).

use serde_json::Value;

use crate::error::PostError;
use crate::github::{GithubPoster, author, str_at};
use crate::respond::{Said, answered_id, command};

const WRITERS: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];

impl GithubPoster {
    /// People's `/crit` commands and replies in review threads that no
    /// answer of crit's names, oldest first.
    pub async fn unanswered(&mut self) -> Result<Vec<Said>, PostError> {
        let me = self.me().await?;
        let review = self.review_comments().await?;
        let talk = self.conversation().await?;
        let answered: Vec<u64> = review
            .iter()
            .chain(&talk)
            .filter(|c| author(c) == me)
            .filter_map(|c| answered_id(str_at(c, "/body")))
            .collect();
        let mut out: Vec<Said> = review
            .iter()
            .map(|c| said(c, true))
            .chain(talk.iter().map(|c| said(c, false)))
            .filter(|s| s.author != me && !s.bot && !answered.contains(&s.id))
            .filter(|s| command(&s.body).is_some() || s.in_reply_to.is_some())
            .collect();
        out.sort_by(|a, b| a.created_at.cmp(&b.created_at));
        Ok(out)
    }
}

/// A comment as the REST API lists it, read as its event would be.
fn said(c: &Value, on_a_line: bool) -> Said {
    let s = |p: &str| str_at(c, p).to_string();
    let login = s("/user/login");
    Said {
        id: c.get("id").and_then(Value::as_u64).unwrap_or(0),
        bot: s("/user/type") == "Bot" || login.ends_with("[bot]"),
        may_command: WRITERS.contains(&str_at(c, "/author_association")),
        body: s("/body"),
        on_a_line,
        in_reply_to: c.get("in_reply_to_id").and_then(Value::as_u64),
        edited: s("/updated_at") != s("/created_at"),
        created_at: s("/created_at"),
        url: Some(s("/html_url")).filter(|u| !u.is_empty()),
        author: login,
    }
}
