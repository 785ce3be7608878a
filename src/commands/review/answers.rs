//! Before a `--post` review: answering what people wrote in crit's threads
//! since the last run. GitLab starts no pipeline on a comment, so this is
//! how its merge requests get answers (on the next pipeline); on GitHub it
//! answers what no `crit respond` job did. The answers are `crit respond`'s
//! (its rules, its limit per thread, its answers); a failure here is said
//! and the review goes on, since it is not the review's.

use crit_llm::Env;
use crit_post::{Heard, Remembered, Rules};
use crit_review::review::DisputeDismissal;

use clap::{Arg, ArgMatches};
use crit_project::Respond;
use crit_project::config::respond::{Others as RespondOthers, RespondConfig};

use crate::cli::{CommonArgs, Others, PostArgs};
use crate::commands::respond::{self, Acting, Thread};
use crate::exit::CliError;
use crate::output::printable;
use crate::post::Poster;
use crate::runner;

const ANSWERS: &str = "max-answers-per-hour";
const OTHERS: &str = "others";

/// `crit review code`'s flags for the answers, over `respond:` in the
/// trusted config.
pub fn augment(cmd: clap::Command) -> clap::Command {
    cmd.arg(
        Arg::new(ANSWERS)
            .long(ANSWERS)
            .value_name("N")
            .value_parser(clap::value_parser!(u32).range(1..))
            .requires("post")
            .help("Most answers crit gives in one thread in an hour, before a --post review [default: `respond.max_answers_per_hour` in .crit/config.yaml, else 3]")
            .help_heading("Posting"),
    )
    .arg(
        Arg::new(OTHERS)
            .long(OTHERS)
            .value_name("WHAT")
            .value_parser(clap::builder::EnumValueParser::<Others>::new())
            .requires("post")
            .help("A command from someone without write access: reply (one short answer saying who may use it) or silent [default: `respond.others` in .crit/config.yaml, else reply]")
            .help_heading("Posting"),
    )
}

/// The flags `augment` added, as explicit settings.
pub fn flags(m: &ArgMatches) -> RespondConfig {
    crate::cli::respond_flags(
        m.get_one::<u32>(ANSWERS).copied(),
        m.get_one::<Others>(OTHERS).copied(),
    )
}

/// Answers what waits on the pull or merge request `poster` posts to; the
/// findings crit dismissed on a dispute there (this run's answers
/// included), for the review to dismiss again while their proof holds.
pub fn catch_up(
    common: &CommonArgs,
    env: &Env,
    poster: &Poster,
    post: &PostArgs,
    policy: &Respond,
) -> Vec<DisputeDismissal> {
    match answer_all(common, env, poster, post, policy) {
        Ok(remembered) => remembered
            .into_iter()
            .map(|r| DisputeDismissal {
                fingerprint: r.key,
                path: r.path,
                quote: r.quote,
                proof: r.proof,
                thread: r.thread,
            })
            .collect(),
        Err(e) => {
            eprintln!(
                "crit: answering the comments since the last run: {}; the review goes on",
                printable(&e.message())
            );
            Vec::new()
        }
    }
}

fn answer_all(
    common: &CommonArgs,
    env: &Env,
    poster: &Poster,
    post: &PostArgs,
    policy: &Respond,
) -> Result<Vec<Remembered>, CliError> {
    let dest = poster.destination();
    let stop = runner::Stop::new();
    let forge = dest.forge();
    let mut describe: Vec<String> = [
        "crit",
        "review",
        "code",
        "--describe",
        "--post",
        forge.name(),
    ]
    .map(String::from)
    .to_vec();
    // The review's own posting flags, as given (only its forge's apply).
    let given = [
        ("--token-env", &post.token_env),
        ("--github-token-env", &post.github_token_env),
        ("--gitlab-token-env", &post.gitlab_token_env),
        ("--github-login", &post.github_login),
    ];
    for (flag, value) in given {
        if let Some(v) = value {
            describe.extend([flag.to_string(), v.clone()]);
        }
    }
    let acting = Acting {
        others: policy.others.value,
        review: None,
        describe,
    };
    let rules = Rules {
        limit: policy.max_answers_per_hour.value as usize,
        answer_others: policy.others.value == RespondOthers::Reply,
    };
    let err = |e: crit_post::PostError| respond::failed(forge, e);
    let mut responder = dest.responder().map_err(err)?;
    let pending =
        runner::block_on(&stop, |_| async { responder.waiting(rules).await })?.map_err(err)?;
    let disputes = pending
        .waiting
        .iter()
        .any(|w| matches!(w.heard, Heard::Reply { dispute: true, .. }));
    for waiting in &pending.waiting {
        let mut thread = Thread {
            responder: &mut responder,
            waiting,
        };
        respond::act(common, env, &stop, &mut thread, &acting)?;
    }
    if !disputes {
        return Ok(pending.dismissed);
    }
    // This run's answers may have dismissed more.
    let again =
        runner::block_on(&stop, |_| async { responder.waiting(rules).await })?.map_err(err)?;
    Ok(again.dismissed)
}
