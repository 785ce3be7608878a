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
use crit_post::{
    DescribeReport, GithubContext, GithubPoster, GitlabContext, GitlabPoster, LastReview,
    PostError, PostOptions, PostReport,
};

use crate::cli::{ForgeArg, PostArgs};
use crate::exit::{CliError, Code};
use crate::output::printable;
use crate::runner;

/// The variable naming the pull request when the event does not (the
/// fork-safe pattern's posting job).
const PULL_REQUEST_VAR: &str = "CRIT_PULL_REQUEST";

/// The variable naming the GitHub account crit posts as (`--github-login`).
const GITHUB_LOGIN_VAR: &str = "CRIT_GITHUB_LOGIN";

/// Where to post, and how.
#[derive(Debug)]
pub struct Poster {
    target: Target,
    options: PostOptions,
    /// `GITHUB_STEP_SUMMARY`: where a summary that could not be posted goes.
    step_summary: Option<std::path::PathBuf>,
    /// In GitHub Actions: a post that did not complete is also an annotation.
    actions: bool,
}

#[derive(Debug)]
enum Target {
    Github(GithubContext),
    Gitlab(GitlabContext),
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
        let wrong_token_flag = match forge {
            ForgeArg::Github => args.gitlab_token_env.as_ref().map(|_| "--gitlab-token-env"),
            ForgeArg::Gitlab => args.github_token_env.as_ref().map(|_| "--github-token-env"),
        };
        if let Some(flag) = wrong_token_flag {
            return Err(CliError::usage(anyhow!(
                "{flag} names a token for the other forge; with --post {} use --{}-token-env",
                forge_name(forge),
                forge_name(forge)
            )));
        }
        let target = match forge {
            ForgeArg::Github => {
                let var = args.github_token_env.as_deref();
                let ctx = match pull_request(args, env, forge)? {
                    Some(n) => GithubContext::for_pull_request(env, var, n),
                    None => GithubContext::from_env(env, var),
                }
                .map_err(CliError::usage)?;
                Target::Github(ctx)
            }
            ForgeArg::Gitlab => {
                pull_request(args, env, forge)?;
                let ctx = GitlabContext::from_env(env, args.gitlab_token_env.as_deref())
                    .map_err(CliError::usage)?;
                Target::Gitlab(ctx)
            }
        };
        let author = match forge {
            ForgeArg::Github => github_login(args, env)?,
            ForgeArg::Gitlab if args.github_login.is_some() => {
                return Err(CliError::usage(anyhow!(
                    "--github-login is for GitHub; on GitLab crit asks the API who its token is"
                )));
            }
            ForgeArg::Gitlab => None,
        };
        let poster = Poster {
            target,
            options: PostOptions {
                max_comments: args.max_comments,
                author,
                ..PostOptions::default()
            },
            step_summary: env
                .non_empty("GITHUB_STEP_SUMMARY")
                .map(std::path::PathBuf::from),
            actions: env.non_empty("GITHUB_ACTIONS") == Some("true"),
        };
        poster.teach(Redactor::process());
        Ok(Some(poster))
    }

    /// Has `redactor` redact the token (a review's own redactor, so that
    /// not even a reviewed file holding it shows it to the model).
    pub fn teach(&self, redactor: &Redactor) {
        let token = match &self.target {
            Target::Github(c) => c.token.expose(),
            Target::Gitlab(c) => c.token.expose(),
        };
        redactor.learn(token, "forge-token");
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
            cancel.run_until_cancelled(self.send(result)).await
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
        if let (Some(body), Some(path)) = (&report.unposted_summary, &self.step_summary) {
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
        if self.actions {
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
            let asked = async {
                match &self.target {
                    Target::Github(ctx) => {
                        GithubPoster::new(ctx.clone(), self.options.clone())?
                            .last_review()
                            .await
                    }
                    Target::Gitlab(ctx) => {
                        GitlabPoster::new(ctx.clone(), self.options.clone())?
                            .last_review()
                            .await
                    }
                }
            };
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
                .run_until_cancelled(self.send_description(section))
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

    async fn send_description(&self, section: &str) -> Result<DescribeReport, PostError> {
        match &self.target {
            Target::Github(ctx) => {
                GithubPoster::new(ctx.clone(), self.options.clone())?
                    .describe(section)
                    .await
            }
            Target::Gitlab(ctx) => {
                GitlabPoster::new(ctx.clone(), self.options.clone())?
                    .describe(section)
                    .await
            }
        }
    }

    /// The pull or merge request, in words.
    fn place(&self) -> String {
        match &self.target {
            Target::Github(c) => format!("GitHub pull request #{}", c.number),
            Target::Gitlab(c) => format!("GitLab merge request !{}", c.iid),
        }
    }

    async fn send(&self, result: &ReviewResult) -> Result<PostReport, PostError> {
        match &self.target {
            Target::Github(ctx) => {
                GithubPoster::new(ctx.clone(), self.options.clone())?
                    .post(result)
                    .await
            }
            Target::Gitlab(ctx) => {
                GitlabPoster::new(ctx.clone(), self.options.clone())?
                    .post(result)
                    .await
            }
        }
    }

    /// One line: where it went and what it did.
    fn said(&self, r: &PostReport) -> String {
        let place = match &self.target {
            Target::Github(c) => format!("GitHub pull request #{}", c.number),
            Target::Gitlab(c) => format!("GitLab merge request !{}", c.iid),
        };
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

/// `--github-login`, else `CRIT_GITHUB_LOGIN`: a GitHub account's name.
fn github_login(args: &PostArgs, env: &Env) -> Result<Option<String>, CliError> {
    let (given, from) = match (&args.github_login, env.non_empty(GITHUB_LOGIN_VAR)) {
        (Some(l), _) => (l.trim().to_string(), "--github-login"),
        (None, Some(l)) => (l.trim().to_string(), GITHUB_LOGIN_VAR),
        (None, None) => return Ok(None),
    };
    let name = given.strip_suffix("[bot]").unwrap_or(&given);
    let ok = !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
    if !ok {
        return Err(CliError::usage(anyhow!(
            "{from} is not a GitHub account's name: {}",
            printable(&given)
        )));
    }
    Ok(Some(given))
}

/// The shards `result` covers, when it is not all of them.
fn partial_shards(result: &ReviewResult) -> Option<String> {
    let value = result.inputs.get(shard::INPUT_KEY)?;
    let complete = value
        .parse::<ShardSet>()
        .is_ok_and(|s| s.missing().is_empty());
    (!complete).then(|| printable(value))
}

/// `--pull-request N`, else `CRIT_PULL_REQUEST`: GitHub only.
fn pull_request(args: &PostArgs, env: &Env, forge: ForgeArg) -> Result<Option<u64>, CliError> {
    let from_env = env.non_empty(PULL_REQUEST_VAR);
    let given = match (args.pull_request, from_env) {
        (Some(n), _) => Some(n),
        (None, Some(v)) => Some(v.trim().parse::<u64>().map_err(|_| {
            CliError::usage(anyhow!(
                "{PULL_REQUEST_VAR} is not a pull request number: {}",
                printable(v)
            ))
        })?),
        (None, None) => None,
    };
    match (forge, given) {
        (ForgeArg::Gitlab, Some(_)) if args.pull_request.is_some() => {
            Err(CliError::usage(anyhow!(
                "--pull-request is for GitHub; on GitLab the merge request is CI_MERGE_REQUEST_IID"
            )))
        }
        (ForgeArg::Gitlab, _) => Ok(None),
        (ForgeArg::Github, Some(0)) => Err(CliError::usage(anyhow!(
            "pull request 0 does not exist; pull requests are numbered from 1"
        ))),
        (ForgeArg::Github, n) => Ok(n),
    }
}

fn forge_name(f: ForgeArg) -> &'static str {
    match f {
        ForgeArg::Github => "github",
        ForgeArg::Gitlab => "gitlab",
    }
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
