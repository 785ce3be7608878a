//! The comments on a GitHub pull request crit has not answered yet: what a
//! `--post` run answers before it reviews, for comments no `crit respond`
//! job answered (the workflow has none, or it failed). Each is then heard
//! as `crit respond` hears it ([`GithubPoster::hear`]).

use std::collections::HashMap;

use serde_json::Value;

use crate::error::PostError;
use crate::github::{GithubPoster, author, str_at};
use crate::marker::Marker;
use crate::respond::{Said, answered_id, command};

const WRITERS: [&str; 3] = ["OWNER", "MEMBER", "COLLABORATOR"];

impl GithubPoster {
    /// People's `/crit` commands and replies in review threads that no
    /// answer of crit's names, oldest first; and the findings crit
    /// dismissed on a dispute in their threads.
    pub(crate) async fn unanswered(&mut self) -> Result<(Vec<Said>, Vec<Remembered>), PostError> {
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
        // crit's finding comments by id, and its records in their threads.
        let id = |c: &Value| c.get("id").and_then(Value::as_u64);
        let roots: HashMap<u64, (String, String)> = review
            .iter()
            .filter(|c| author(c) == me)
            .filter_map(|c| match self.markers.read(str_at(c, "/body")) {
                Some(Marker::Finding { key, .. }) => {
                    Some((id(c)?, (key, str_at(c, "/html_url").to_string())))
                }
                _ => None,
            })
            .collect();
        let dismissed = review
            .iter()
            .filter(|c| author(c) == me)
            .filter_map(|c| {
                let root = c.get("in_reply_to_id").and_then(Value::as_u64)?;
                let (key, url) = roots.get(&root)?;
                let thread = match url.is_empty() {
                    true => format!("comment {root}"),
                    false => url.clone(),
                };
                read_dismissal(str_at(c, "/body"), thread).filter(|r| r.key == *key)
            })
            .collect();
        Ok((out, dismissed))
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

/// crit's record, in its answer to a dispute, of the finding it dismissed:
/// the finding's key, and the proof's quote, file and words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remembered {
    pub key: String,
    pub path: String,
    pub quote: String,
    pub proof: String,
    /// The thread: its address, else `note N` / `comment N`.
    pub thread: String,
}

/// The hidden line crit's answer carries (after its first) when it
/// dismissed finding `key` on a dispute. The rest is hex, so nothing in a
/// quote can end the comment.
pub fn dismissal_marker(key: &str, path: &str, quote: &str, proof: &str) -> String {
    let data = serde_json::json!({"p": path, "q": quote, "r": proof}).to_string();
    let hex: String = data.bytes().map(|b| format!("{b:02x}")).collect();
    format!("<!-- crit:dismissed {key} {hex} -->")
}

/// The record on the second line of `body`, if it holds one.
pub(crate) fn read_dismissal(body: &str, thread: String) -> Option<Remembered> {
    let line = body.split('\n').nth(1)?.trim();
    let inner = line
        .strip_prefix("<!-- crit:dismissed ")?
        .strip_suffix(" -->")?;
    let (key, hex) = inner.split_once(' ')?;
    if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric()) || hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    let v: Value = serde_json::from_slice(&bytes?).ok()?;
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    Some(Remembered {
        key: key.to_string(),
        path: s("p")?,
        quote: s("q")?,
        proof: s("r")?,
        thread,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dismissal_round_trips_whatever_the_quote_holds() {
        let m = dismissal_marker("0a1b", "src/a.rs", "x --> y\n<!--", "p");
        let body = format!("<!-- crit:answers 5 -->\n{m}\nChecked again");
        let r = read_dismissal(&body, "t".into()).unwrap();
        assert_eq!(
            (r.key.as_str(), r.quote.as_str()),
            ("0a1b", "x --> y\n<!--")
        );
        assert!(read_dismissal(&format!("{m}\nsecond"), "t".into()).is_none());
        assert!(read_dismissal("a\n<!-- crit:dismissed k zz -->", "t".into()).is_none());
    }
}
