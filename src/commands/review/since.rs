//! `--since-last-review`: the review narrowed to the commits pushed since
//! crit's last review of the pull or merge request, whose head its summary
//! records. After a force-push (the recorded head is not in HEAD's history)
//! the whole change is reviewed, and the summary says so.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::anyhow;
use crit_post::Since;
use crit_project::scope::Revision;

use crate::exit::CliError;
use crate::output::printable;
use crate::post::Poster;
use crate::runner;

/// Narrows `given`'s `diff` (the pull request's change) to `LAST..HEAD`
/// when crit's last review's head is in HEAD's history; what the review
/// then is, relative to the last one, for its result to record.
pub fn narrow(
    poster: &Poster,
    root: &Path,
    env: &crit_os::Env,
    given: &mut BTreeMap<String, String>,
    quiet: bool,
) -> Result<Since, CliError> {
    if !given.contains_key("diff") {
        return Err(CliError::usage(anyhow!(
            "--since-last-review reviews part of the pull or merge request's change, and crit found no base to review it against"
        )));
    }
    let last = poster.last_review(&runner::Stop::new())?;
    let usage = |e: crit_project::scope::ScopeError| CliError::usage(anyhow!("{e}"));
    let head = Revision::resolve(root, "HEAD", env)
        .map_err(usage)?
        .ok_or_else(|| CliError::usage(anyhow!("--since-last-review: HEAD names no commit")))?;
    // The result names the commit it reviewed: on a comment event the
    // event names none, and the API's head at posting time may be a later
    // push than the one reviewed.
    pin_head(given, &head.sha);
    let Some(last) = last else {
        say(
            quiet,
            "no earlier review by crit here (or crit's account is unknown: a GitHub App's token needs --github-login to trust its own summary): reviewing the whole change",
        );
        return Ok(Since::First);
    };
    let earlier = Revision::resolve(root, &last.head, env).map_err(usage)?;
    let ancestor = match &earlier {
        Some(e) => e.is_ancestor_of(&head).map_err(usage)?,
        None => false,
    };
    let short = |s: &str| s.chars().take(12).collect::<String>();
    if !ancestor {
        let why = match earlier {
            Some(_) => "is not in this branch's history (a force-push rewrote it)",
            None => {
                "is not in this clone (a force-push rewrote it, or the clone is too shallow to have it)"
            }
        };
        say(
            quiet,
            &format!(
                "the last review's head {} {why}: reviewing the whole change",
                short(&last.head)
            ),
        );
        return Ok(Since::Rewritten(last));
    }
    say(
        quiet,
        &format!(
            "reviewing the commits since the last review: {}..{}",
            short(&last.head),
            short(&head.sha)
        ),
    );
    given.insert("diff".into(), format!("{}..{}", last.head, head.sha));
    Ok(Since::Commits(last))
}

/// `diff`'s right side set to `sha` when it names `HEAD`.
fn pin_head(given: &mut BTreeMap<String, String>, sha: &str) {
    let Some(diff) = given.get_mut("diff") else {
        return;
    };
    if let Some(left) = diff.strip_suffix("HEAD").filter(|l| l.ends_with("..")) {
        *diff = format!("{left}{sha}");
    }
}

fn say(quiet: bool, what: &str) {
    if !quiet {
        eprintln!("crit: {}", printable(what));
    }
}
