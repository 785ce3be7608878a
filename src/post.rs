//! `--post github|gitlab`: posting a written result to the pull or merge
//! request a CI job runs for. Where to post is read from the environment
//! before anything runs (a missing variable is exit 2 before a review spends
//! a token); the result is always written before posting, and a failed post
//! is exit 3 with the result kept.

use anyhow::anyhow;
use crit_core::ReviewResult;
use crit_core::redact::Redactor;
use crit_core::shard::{self, ShardSet};
use crit_llm::Env;
use crit_post::{Choice, Destination, ForgeKind, LastReview, PostError, PostReport};

use crate::cli::PostArgs;
use crate::exit::{CliError, Code};
use crate::output::printable;
use crate::runner;

/// Where to post (chosen by crit-post from the environment), and what to
/// say about it.
#[derive(Debug)]
pub struct Poster {
    dest: Destination,
}

impl Poster {
    /// The poster `args` ask for (`None` without `--post`), from the
    /// environment. From here on the token is one of the secrets crit
    /// redacts from everything it prints and writes, whatever the variable
    /// holding it is called.
    pub fn from_args(args: &PostArgs, env: &Env) -> Result<Option<Poster>, CliError> {
        let Some(forge) = args.post else {
            return Ok(None);
        };
        // The per-forge flags, kept for the workflows that name them; a
        // forge without one takes `--token-env`.
        let per_forge = [
            (
                ForgeKind::Github,
                "--github-token-env",
                &args.github_token_env,
            ),
            (
                ForgeKind::Gitlab,
                "--gitlab-token-env",
                &args.gitlab_token_env,
            ),
        ];
        if let Some((_, flag, _)) = per_forge
            .iter()
            .find(|(f, _, v)| *f != forge && v.is_some())
        {
            let name = forge.name();
            return Err(CliError::usage(anyhow!(
                "{flag} names a token for the other forge; with --post {name} use --token-env"
            )));
        }
        let token_var = args.token_env.clone().or_else(|| {
            per_forge
                .iter()
                .find(|(f, _, _)| *f == forge)
                .and_then(|(_, _, v)| (*v).clone())
        });
        let choice = Choice {
            token_var,
            pull_request: args.pull_request,
            github_login: args.github_login.clone(),
            max_comments: args.max_comments,
        };
        let dest = Destination::from_env(env, forge, &choice)
            .map_err(|e| CliError::usage(anyhow!("{}", printable(&e.to_string()))))?;
        Ok(Some(Poster { dest }))
    }

    /// Where it posts.
    pub fn destination(&self) -> &Destination {
        &self.dest
    }

    /// Has `redactor` redact the token (a review's own redactor, so that
    /// not even a reviewed file holding it shows it to the model).
    pub fn teach(&self, redactor: &Redactor) {
        self.dest.teach(redactor);
    }

    /// Posts `result`, which is already written, and says what was done on
    /// stderr (unless `quiet`). A failure is exit 3 (a signal's code when
    /// `stop` was tripped), its message saying the result is kept.
    pub fn post(
        &self,
        result: &ReviewResult,
        quiet: bool,
        stop: &runner::Stop,
    ) -> Result<(), CliError> {
        if let Some(shards) = partial_shards(result) {
            return Err(CliError::usage(anyhow!(
                "this result reviews shard {shards} of the change only; its summary would stand for the whole pull request, so post the shards merged: `crit report merge SHARD.json… --out merged.json`, then `crit report merged.json --post …`"
            )));
        }
        let outcome = runner::block_on(stop, |cancel| async move {
            cancel.run_until_cancelled(self.dest.post(result)).await
        })?;
        let report = match outcome {
            Some(Ok(report)) => report,
            Some(Err(e)) => return Err(failed(&e)),
            None => {
                let signal = stop.signal().map_or("a signal", runner::Signal::name);
                return Err(CliError::with_code(
                    stop.signal()
                        .map_or(Code::CouldNotRun, runner::Signal::code),
                    anyhow!("{signal} stopped the post; the result is written"),
                ));
            }
        };
        if !quiet {
            eprintln!("crit: {}", printable(&self.said(&report)));
            for note in &report.notes {
                eprintln!("crit: note: {}", printable(note));
            }
        }
        let st = &report.stats;
        if !report.complete() {
            return Err(self.incomplete(&report));
        }
        tracing::info!(
            "posting: {} request(s), {} byte(s) sent, {} received, {} retried, waits {:?}",
            st.requests,
            st.bytes_sent,
            st.bytes_received,
            st.retries,
            st.waits
        );
        Ok(())
    }

    /// Exit 3 for a post that sent what it could but not everything; the
    /// summary that could not be posted goes to the job's step summary, and
    /// in GitHub Actions an annotation says what is missing.
    fn incomplete(&self, report: &PostReport) -> CliError {
        let mut missing = report.failed.clone();
        if report.unposted_summary.is_some() {
            missing.push("the summary".to_string());
        }
        let mut kept = String::new();
        if let (Some(body), Some(path)) = (&report.unposted_summary, self.dest.step_summary()) {
            kept = match append_step_summary(path, body) {
                Ok(()) => "; the summary is in the job's step summary".to_string(),
                Err(e) => format!("; the job's step summary could not be written either ({e})"),
            };
        }
        let what = format!(
            "posting incomplete: {} did not reach {}{kept}. The result is written; nothing was lost",
            missing.join("; "),
            self.place()
        );
        if self.dest.in_actions() {
            // One line the runner turns into an annotation; `%`, CR and LF
            // encoded as its toolkit does, nothing else can end it.
            let line = printable(&what)
                .replace('%', "%25")
                .replace('\r', "%0D")
                .replace('\n', "%0A");
            eprintln!("::error title=crit could not post everything::{line}");
        }
        CliError::could_not_run(anyhow!("{what}"))
    }

    /// What crit's own summary on the pull or merge request records of the
    /// last review (`--since-last-review`), asked before the review runs;
    /// `None` when crit has not summarized a review there yet. Failing to
    /// ask is exit 3 before anything is spent.
    pub fn last_review(&self, stop: &runner::Stop) -> Result<Option<LastReview>, CliError> {
        let outcome = runner::block_on(stop, |cancel| async move {
            let asked = self.dest.last_review();
            cancel.run_until_cancelled(asked).await
        })?;
        match outcome {
            Some(Ok(last)) => Ok(last),
            Some(Err(e)) => Err(CliError::could_not_run(anyhow!(
                "--since-last-review could not read crit's last summary on {}: {e}",
                self.place()
            ))),
            None => Err(CliError::with_code(
                stop.signal()
                    .map_or(Code::CouldNotRun, runner::Signal::code),
                anyhow!("a signal stopped crit before the review"),
            )),
        }
    }

    /// Writes `section` into the part of the pull or merge request's
    /// description crit owns, leaving the author's text alone, and says so.
    pub fn describe(
        &self,
        section: &str,
        quiet: bool,
        stop: &runner::Stop,
    ) -> Result<(), CliError> {
        let outcome = runner::block_on(stop, |cancel| async move {
            cancel
                .run_until_cancelled(self.dest.describe(section))
                .await
        })?;
        let report = match outcome {
            Some(Ok(report)) => report,
            Some(Err(e)) => return Err(failed(&e)),
            None => {
                let signal = stop.signal().map_or("a signal", runner::Signal::name);
                return Err(CliError::with_code(
                    stop.signal()
                        .map_or(Code::CouldNotRun, runner::Signal::code),
                    anyhow!("{signal} stopped the post"),
                ));
            }
        };
        if !quiet {
            let done = match report.changed {
                true => "wrote",
                false => "left as it was (the same text)",
            };
            eprintln!(
                "crit: {done} crit's section of the description of {}",
                self.place()
            );
        }
        Ok(())
    }

    /// The pull or merge request, in words.
    fn place(&self) -> String {
        self.dest.place()
    }

    /// One line: where it went and what it did.
    fn said(&self, r: &PostReport) -> String {
        let place = self.place();
        let mut line = format!(
            "posted to {place}: {} new inline comment(s), {} kept, {} marked resolved; {} finding(s) in the summary",
            r.inline_posted,
            r.inline_kept,
            r.resolved,
            r.in_summary.len()
        );
        line.push_str(match r.summary_created {
            true => " (new)",
            false => " (edited)",
        });
        if let Some(url) = &r.summary_url {
            line.push_str(&format!(": {url}"));
        }
        line
    }
}

/// Appends `body` to the step summary file the runner named.
fn append_step_summary(path: &std::path::Path, body: &str) -> Result<(), String> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err("not a file path".into());
    };
    let root = crit_os::write::Root::open(dir).map_err(|e| e.to_string())?;
    let text = format!("{body}\n");
    root.append(name, text.as_bytes(), 0o644)
        .map_err(|e| e.to_string())
}

/// The shards `result` covers, when it is not all of them.
fn partial_shards(result: &ReviewResult) -> Option<String> {
    let value = result.inputs.get(shard::INPUT_KEY)?;
    let complete = value
        .parse::<ShardSet>()
        .is_ok_and(|s| s.missing().is_empty());
    (!complete).then(|| printable(value))
}

/// Exit 3; a missing permission says so in words the Action (and a person)
/// can tell from any other failure.
fn failed(e: &PostError) -> CliError {
    let what = match e.is_permission() {
        true => "posting not permitted",
        false => "posting failed",
    };
    CliError::could_not_run(anyhow!(
        "{what}: {e}. The result is written; nothing was lost"
    ))
}
