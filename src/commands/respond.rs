//! `crit respond`: one comment on a GitHub pull request answered, as a
//! workflow on `issue_comment` and `pull_request_review_comment` runs it.
//! What the comment asks and whether crit may answer is crit-post's
//! (`GithubPoster::hear`); the answers are crit-review's (`converse`); this
//! file wires them, runs `/crit review` and `/crit describe` as the review
//! command would, and records the team's feedback.

use std::collections::BTreeMap;
use std::time::SystemTime;

use anyhow::anyhow;
use crit_agent::RunLimits;
use crit_core::redact::Redactor;
use crit_llm::Env;
use crit_post::{
    Choice, Command, Destination, ForgeKind, Heard, Reacted, Responder, Said, Waiting,
};
use crit_project::Kind;
use crit_project::scope::{self, Scope, ScopeOptions};
use crit_review::converse::{Conversation, RecheckOutcome};
use crit_review::session::{self, Feedback, FeedbackKind, FeedbackOutcome};

use crate::cli::{CommonArgs, RespondArgs};
use crate::exit::{CliError, Code};
use crate::output::printable;
use crate::runner;
use crit_project::config::respond::Others as RespondOthers;

const HELP: &str = "crit answers these commands from people with write access to this repository:\n\n\
- `/crit review`: review the commits pushed since crit's last review\n\
- `/crit describe`: write crit's section of the description\n\
- `/crit ask QUESTION`: answer a question about the change from its code\n\
- `/crit help`: this list\n\n\
In one of crit's threads, ask a question and crit answers it there; say why a finding is wrong (\"false positive: …\") and crit checks it again: it goes only when the check finds the code that shows it wrong.";

/// The biggest event payload crit reads.
const MAX_EVENT: u64 = 25 * 1024 * 1024;

pub fn run(common: &CommonArgs, args: &RespondArgs) -> Result<Code, CliError> {
    let env = common.env.clone();
    let said = read_said(&env)?;
    let choice = Choice {
        token_var: args.github_token_env.clone(),
        github_login: args.github_login.clone(),
        ..Choice::default()
    };
    let dest = Destination::from_env(&env, ForgeKind::Github, &choice)
        .map_err(|e| CliError::usage(anyhow!("{}", printable(&e.to_string()))))?;
    let stop = runner::Stop::new();
    let mut project = crate::backend::project(common, &env)?;
    let mut explicit = crate::backend::explicit(common)?;
    explicit.respond = crate::cli::respond_flags(args.max_answers_per_hour, args.others);
    project.set_explicit(explicit);
    let policy = crate::backend::settings(&project, Kind::Code)?.respond;
    let limit = policy.max_answers_per_hour.value as usize;
    let mut responder = dest.responder().map_err(|e| failed(dest.forge(), e))?;
    let (waiting, reacted) = runner::block_on(&stop, |_| async {
        let waiting = responder.hear(said, limit).await?;
        let reacted = responder.reactions().await.unwrap_or_default();
        Ok::<_, crit_post::PostError>((waiting, reacted))
    })?
    .map_err(|e| failed(dest.forge(), e))?;
    record_reactions(&env, dest.forge(), &reacted);
    let name = dest.forge().name();
    let mut review: Vec<String> = [
        "crit",
        "review",
        "code",
        "--post",
        name,
        "--since-last-review",
    ]
    .map(String::from)
    .to_vec();
    review.extend(passed_on(args));
    review.extend(args.review_flags.iter().cloned());
    let mut describe: Vec<String> = ["crit", "review", "code", "--describe", "--post", name]
        .map(String::from)
        .to_vec();
    describe.extend(passed_on(args));
    let acting = Acting {
        others: policy.others.value,
        review: Some(review),
        describe,
    };
    let mut thread = Thread {
        responder: &mut responder,
        waiting: &waiting,
    };
    act(common, &env, &stop, &mut thread, &acting)
}

/// Where crit's one answer to a comment goes: its thread on the forge the
/// responder answers on.
pub(crate) struct Thread<'a> {
    pub responder: &'a mut Responder,
    pub waiting: &'a Waiting,
}

impl Thread<'_> {
    /// Posts `text` as crit's answer.
    fn answer(&mut self, stop: &runner::Stop, text: String) -> Result<(), CliError> {
        let (responder, waiting) = (&mut *self.responder, self.waiting);
        let forge = responder.forge();
        runner::block_on(stop, |_| async { responder.answer(waiting, &text).await })?
            .map_err(|e| failed(forge, e))
    }

    /// Resolves the thread; a forge that refuses is logged, not fatal.
    fn resolve(&mut self, stop: &runner::Stop) -> Result<(), CliError> {
        let (responder, waiting) = (&mut *self.responder, self.waiting);
        let forge = responder.forge();
        runner::block_on(stop, |_| async { responder.resolve(waiting).await })?
            .map(|_| ())
            .map_err(|e| failed(forge, e))
    }
}

/// What the commands run.
pub(crate) struct Acting {
    /// A command from someone without write access.
    pub others: RespondOthers,
    /// The command line `/crit review` runs; `None` when the review this
    /// run is about to do is that review.
    pub review: Option<Vec<String>>,
    /// The command line `/crit describe` runs.
    pub describe: Vec<String>,
}

/// Exit 3 for an answer the forge did not take.
pub(crate) fn failed(forge: ForgeKind, e: crit_post::PostError) -> CliError {
    CliError::could_not_run(anyhow!("answering on {forge}: {e}"))
}

/// Does what the comment waiting in `thread` asks, answering there.
pub(crate) fn act(
    common: &CommonArgs,
    env: &Env,
    stop: &runner::Stop,
    thread: &mut Thread,
    acting: &Acting,
) -> Result<Code, CliError> {
    let (said, heard) = (&thread.waiting.said, thread.waiting.heard.clone());
    let say = |what: &str| {
        if !common.quiet {
            eprintln!("crit: {}", printable(what));
        }
    };
    match heard {
        Heard::Nothing(why) => {
            say(&format!("nothing to answer: {why}"));
            Ok(Code::Ok)
        }
        Heard::NotAllowed(c) => {
            say(&format!("{} has no write access here", said.author));
            if acting.others == RespondOthers::Reply {
                thread.answer(stop, crit_post::not_allowed(&c))?;
            }
            Ok(Code::Ok)
        }
        Heard::Command(Command::Help) => {
            thread.answer(stop, HELP.to_string())?;
            Ok(Code::Ok)
        }
        Heard::Command(Command::Unknown(word)) => {
            let text = format!(
                "crit has no command {}.\n\n{HELP}",
                crit_post::inert::code(&format!("/crit {word}"))
            );
            thread.answer(stop, text)?;
            Ok(Code::Ok)
        }
        Heard::Command(Command::Review) => {
            // Answered first: the comment's command runs once, whatever a
            // re-run or an edit of it does.
            let Some(argv) = &acting.review else {
                thread.answer(
                    stop,
                    "crit reviews the commits pushed since the last review in this pipeline."
                        .into(),
                )?;
                return Ok(Code::Ok);
            };
            thread.answer(
                stop,
                "Reviewing the commits pushed since the last review.".into(),
            )?;
            rerun(common, argv.clone())
        }
        Heard::Command(Command::Describe) => {
            thread.answer(stop, "Writing crit's section of the description.".into())?;
            rerun(common, acting.describe.clone())
        }
        Heard::Command(Command::Ask(q)) => {
            let talk = conversation(common, env)?;
            let backend = talk.1;
            let asked = runner::block_on(stop, |_| async { talk.0.ask(&backend, &q, None).await })?;
            let text = match asked {
                Ok(a) => crit_post::inert_text(&a.text),
                Err(e) => format!(
                    "crit could not answer: {}",
                    crit_post::inert_text(&e.to_string())
                ),
            };
            thread.answer(stop, text)?;
            Ok(Code::Ok)
        }
        Heard::Reply {
            finding,
            key,
            root: _,
            dispute,
        } => {
            let talk = conversation(common, env)?;
            let backend = talk.1;
            let reply = talk.0.redactor.redact(&said.body).text.into_owned();
            let dispute = dispute || {
                match super::respond_kind::read(&talk.0, &backend, &finding, &reply, stop)? {
                    super::respond_kind::Next::Recheck => true,
                    super::respond_kind::Next::Answer => false,
                    super::respond_kind::Next::Nothing(why) => {
                        say(&format!("nothing to answer: {why}"));
                        return Ok(Code::Ok);
                    }
                }
            };
            if !dispute {
                let asked = runner::block_on(stop, |_| async {
                    talk.0.ask(&backend, &reply, Some(&finding)).await
                })?;
                let text = match asked {
                    Ok(a) => crit_post::inert_text(&a.text),
                    Err(e) => format!(
                        "crit could not answer: {}",
                        crit_post::inert_text(&e.to_string())
                    ),
                };
                thread.answer(stop, text)?;
                return Ok(Code::Ok);
            }
            let checked = runner::block_on(stop, |_| async {
                talk.0.recheck(&backend, &finding, &reply).await
            })?;
            let reason = crit_post::inert_text(&checked.reason);
            let (text, outcome) = match &checked.outcome {
                RecheckOutcome::Dismissed { proof } => (
                    format!(
                        "{}Checked again: crit dismisses this finding. {reason}\n\nThe proof: {}",
                        remembered(&key, proof),
                        crit_post::inert_text(proof)
                    ),
                    FeedbackOutcome::Dismissed,
                ),
                RecheckOutcome::Kept { why } => (
                    format!(
                        "Checked again: crit keeps this finding ({}). {reason}\n\nA reply alone does not remove a finding; code that shows it wrong does.",
                        crit_post::inert_text(why)
                    ),
                    FeedbackOutcome::Kept,
                ),
            };
            thread.answer(stop, text)?;
            if outcome == FeedbackOutcome::Dismissed {
                thread.resolve(stop)?;
            }
            say(&format!("a dispute of finding {key}: {outcome:?}"));
            record(
                env,
                Feedback {
                    ts: String::new(),
                    kind: FeedbackKind::Dispute,
                    outcome,
                    fingerprint: key,
                    reviewer: finding.reviewer.clone(),
                    rule: finding.rule_id.clone(),
                    severity: finding.severity.code().to_string(),
                    path: finding.location.as_ref().map(|l| l.path().to_string()),
                    repo: None,
                    forge: Some(thread.responder.forge().name().into()),
                    thread: said.url.clone(),
                    author: Some(said.author.clone()),
                    text: reply,
                },
            );
            Ok(Code::Ok)
        }
    }
}

/// The hidden line that lets later runs over the change list the finding
/// as dismissed (its proof checked again there), when the proof names the
/// code it quoted; else nothing.
fn remembered(key: &str, proof: &str) -> String {
    match crit_review::review::DisputeDismissal::from_proof(key, proof, "") {
        Some(d) => format!(
            "{}\n",
            crit_post::dismissal_marker(key, &d.path, &d.quote, proof)
        ),
        None => String::new(),
    }
}

/// The comment the event is about.
fn read_said(env: &Env) -> Result<Said, CliError> {
    let path = env.non_empty("GITHUB_EVENT_PATH").ok_or_else(|| {
        CliError::usage(anyhow!(
            "crit respond reads the comment from GITHUB_EVENT_PATH, which GitHub Actions sets on issue_comment and pull_request_review_comment events"
        ))
    })?;
    let unreadable = |why: String| CliError::usage(anyhow!("{}: {why}", printable(path)));
    let size = std::fs::metadata(path)
        .map_err(|e| unreadable(e.to_string()))?
        .len();
    if size > MAX_EVENT {
        return Err(unreadable("too big for an event".into()));
    }
    let text = std::fs::read_to_string(path).map_err(|e| unreadable(e.to_string()))?;
    let event: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| unreadable(format!("not JSON: {e}")))?;
    Said::from_github_event(&event).map_err(|e| unreadable(e.to_string()))
}

/// The flags `crit respond` hands on to the review it runs.
fn passed_on(args: &RespondArgs) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(v) = &args.github_token_env {
        out.extend(["--github-token-env".to_string(), v.clone()]);
    }
    if let Some(v) = &args.github_login {
        out.extend(["--github-login".to_string(), v.clone()]);
    }
    out
}

/// Runs `argv` as crit would from the command line, with the shared flags
/// `crit respond` was given (its backend, project and terminal).
fn rerun(common: &CommonArgs, argv: Vec<String>) -> Result<Code, CliError> {
    let mut cli = crate::cli::parse_from(argv).map_err(|e| CliError::usage(anyhow!("{e}")))?;
    cli.common = common.clone().overlay(cli.common);
    super::run(cli)
}

/// The change under review in this job, its secrets redacted, and the
/// backend to answer with.
pub(crate) fn conversation(
    common: &CommonArgs,
    env: &Env,
) -> Result<(Conversation, crit_llm::Backend), CliError> {
    let project = crate::backend::project(common, env)?;
    let settings = crate::backend::settings(&project, Kind::Code)?;
    let root = project.root().to_path_buf();
    let mut given = BTreeMap::new();
    super::review::ci_scope(project.rules(), &root, env, &mut given)?;
    let scope = Scope::from_options(given.get("diff").map(String::as_str), &[], false, &[])
        .map_err(CliError::usage)?;
    let change = scope::compute(
        &root,
        &scope,
        &ScopeOptions {
            env: env.clone(),
            ..ScopeOptions::default()
        },
    )
    .map_err(CliError::usage)?;
    let backend = settings
        .build_backend()
        .map_err(|e| CliError::could_not_run(anyhow!("{e}")))?;
    let talk = Conversation {
        root: root.clone(),
        change,
        model: common
            .model
            .clone()
            .unwrap_or_else(|| settings.request_model()),
        verify_model: settings.verify_model.value.clone(),
        limits: RunLimits::default(),
        cancel: Default::default(),
        redactor: Redactor::process().clone(),
    }
    .new();
    Ok((talk, backend))
}

/// Appends `event` to the feedback log; a log that cannot be written is
/// said, not fatal (the answer was posted).
fn record(env: &Env, mut event: Feedback) {
    if let Ok(dir) = std::env::current_dir() {
        event.repo = Some(session::path_hash(&dir.display().to_string()));
    }
    if let Err(e) = session::append_feedback(env, &event, SystemTime::now()) {
        eprintln!("crit: the feedback log: {}", printable(&e.to_string()));
    }
}

/// 👍/👎 and resolved threads, each recorded once.
fn record_reactions(env: &Env, forge: ForgeKind, reacted: &[Reacted]) {
    let seen = session::feedback_dir(env)
        .map(|d| session::read_feedback(&d).0)
        .unwrap_or_default();
    for r in reacted {
        let (kind, outcome) = match r.up {
            Some(true) => (FeedbackKind::Reaction, FeedbackOutcome::Up),
            Some(false) => (FeedbackKind::Reaction, FeedbackOutcome::Down),
            None => (FeedbackKind::ResolvedUnchanged, FeedbackOutcome::Noted),
        };
        let already = seen.iter().any(|f| {
            f.kind == kind
                && f.outcome == outcome
                && f.fingerprint == r.finding.id
                && f.author.as_deref() == Some(r.author.as_str())
                && f.thread == r.url
        });
        if already {
            continue;
        }
        record(
            env,
            Feedback {
                ts: String::new(),
                kind,
                outcome,
                fingerprint: r.finding.id.clone(),
                reviewer: r.finding.reviewer.clone(),
                rule: r.finding.rule_id.clone(),
                severity: r.finding.severity.code().to_string(),
                path: r.finding.location.as_ref().map(|l| l.path().to_string()),
                repo: None,
                forge: Some(forge.name().into()),
                thread: r.url.clone(),
                author: Some(r.author.clone()),
                text: String::new(),
            },
        );
    }
}
