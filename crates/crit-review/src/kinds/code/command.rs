//! The command reviewer: an external reviewer program (mala's Cerberus
//! `review-gate`, a Cerberus-style binary). crit hands it the change, reads
//! its JSON answer with the findings contract, and maps its exit status.
//!
//! The program gets the change both ways, so any CLI can be adapted without a
//! wrapper script: in the environment (`CRIT_DIFF_RANGE`, `CRIT_COMMITS`,
//! `CRIT_CONTEXT_FILE`, `CRIT_SESSION_ID`, `CRIT_PROJECT_ROOT`) and through
//! placeholders in its command line (`{diff_range}`, `{commits}`,
//! `{context_file}`, `{session_id}`); an argument that is only a placeholder
//! with no value is left out.

use std::ffi::OsString;
use std::path::PathBuf;

use crit_agent::process::{Ended, Spawn, spawn_capture};
use crit_core::contract::{self, Contract, ParseContext};
use crit_core::{FailOn, ReviewResult, ReviewerOutcome, ReviewerStatus, Verdict};
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::{CodeReviewRequest, CodeReviewer, bad_request, empty_pass};
use crate::kinds::template::Finish;
use crit_project::scope::{self, FilterMode, ScopeOptions};
use crit_project::suppress::Suppressions;
use crit_project::trust::ProjectRules;

/// Bytes of the program's stdout and stderr kept.
const STDOUT_CAP: usize = 4 * 1024 * 1024;
const STDERR_CAP: usize = 64 * 1024;

/// Why an external reviewer with no program cannot run, and what to do.
const NO_COMMAND: &str = "the external reviewer (mala.yaml's `reviewer_type: cerberus`, or `reviewer: command`) runs a program, and none is set: name it as `command:` in .crit/config.yaml, e.g. `command: [review-gate, --json]`, then allow it with `crit trust` (a project's program runs only once trusted). Run: crit trust";

#[derive(Clone)]
pub struct CommandReviewer {
    argv: Vec<String>,
    root: PathBuf,
    cancel: CancellationToken,
    filter: Option<FilterMode>,
    max_findings: Option<usize>,
    fail_on: FailOn,
    /// The suppressions the project's rules allow; `None` reads them from
    /// the rules found for `root` in `env`.
    suppressions: Option<Suppressions>,
    /// The environment the front end read (CI variables, the trust store's
    /// place); none by default, and then no project file is trusted.
    env: crit_os::Env,
}

impl std::fmt::Debug for CommandReviewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandReviewer")
            .field("argv", &self.argv)
            .field("root", &self.root)
            .field("filter", &self.filter)
            .field("max_findings", &self.max_findings)
            .field("fail_on", &self.fail_on)
            .finish_non_exhaustive()
    }
}

impl CommandReviewer {
    /// `argv`: the program and its arguments (the config's `command`).
    pub fn new(argv: Vec<String>, root: PathBuf) -> Self {
        tracing::info!("Initializing code reviewer: cerberus");
        CommandReviewer {
            argv,
            root,
            cancel: CancellationToken::new(),
            filter: None,
            max_findings: None,
            fail_on: FailOn::default(),
            suppressions: None,
            env: crit_os::Env::new(),
        }
    }

    /// The environment the front end read, for finding the project's rules
    /// when no suppressions are given.
    pub fn with_env(mut self, env: crit_os::Env) -> Self {
        self.env = env;
        self
    }

    /// The suppressions to apply, as the caller's trust decision allows them
    /// (`Suppressions::load_with`); never the working tree's file unchecked.
    pub fn with_suppressions(mut self, suppressions: Suppressions) -> Self {
        self.suppressions = Some(suppressions);
        self
    }

    /// The noise controls a pipeline asked for, applied to the program's
    /// findings as to any reviewer's (suppressions always apply).
    pub fn with_noise_controls(
        mut self,
        filter: Option<FilterMode>,
        max_findings: Option<usize>,
        fail_on: FailOn,
    ) -> Self {
        self.filter = filter;
        self.max_findings = max_findings;
        self.fail_on = fail_on;
        self
    }

    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    fn program(&self) -> &str {
        self.argv.first().map_or("", String::as_str)
    }

    /// The reviewer's name on its findings: the program's file name.
    fn name(&self) -> String {
        std::path::Path::new(self.program())
            .file_name()
            .map_or_else(|| "command".into(), |n| n.to_string_lossy().into_owned())
    }

    async fn run(&self, req: &CodeReviewRequest) -> ReviewResult {
        tracing::info!("Starting review for {} with cerberus", req.describe());
        if self.argv.is_empty() {
            return bad_request(NO_COMMAND);
        }
        let scope = match req.scope() {
            Ok(s) => s,
            Err(e) => return bad_request(e),
        };
        // crit-os's git keeps only what git needs of it (PATH, HOME, …).
        let opts = ScopeOptions {
            env: self.env.clone(),
            ..ScopeOptions::default()
        };
        let change = match scope::compute(&self.root, &scope, &opts) {
            Ok(c) if c.is_empty() => return empty_pass(req),
            Ok(c) => c,
            Err(e) => return bad_request(e),
        };
        // Read before the program runs: a broken file is the team's to fix,
        // and reviewing without it would bring dismissed findings back.
        let suppressions = match self.suppressions.clone().map_or_else(
            || {
                ProjectRules::discover(&self.root, &self.env, None)
                    .map_err(|e| e.to_string())
                    .and_then(|rules| Suppressions::load_with(&rules).map_err(|e| e.to_string()))
            },
            Ok,
        ) {
            Ok(s) => s,
            Err(e) => return bad_request(e),
        };
        let started = std::time::Instant::now();
        let args = expand(&self.argv[1..], req);
        let captured = spawn_capture(Spawn {
            program: self.program(),
            args: &args,
            cwd: &self.root,
            env: environment(req, &self.root),
            clear_env: false,
            stdin: None,
            timeout: req.timeout(),
            caps: (STDOUT_CAP, STDERR_CAP),
            cancel: &self.cancel,
        })
        .await;
        let name = self.name();
        let mut result = match captured {
            Err(e) => {
                return ReviewResult::fatal(
                    "code",
                    format!(
                        "cannot run the reviewer command `{}`: {e}; check `command:` in .crit/config.yaml",
                        self.program()
                    ),
                );
            }
            Ok(c) => match c.ended {
                Ended::TimedOut => {
                    ReviewResult::parse_failure("code", "timeout", c.stdout.render())
                }
                Ended::Cancelled => {
                    ReviewResult::parse_failure("code", "cancelled", c.stdout.render())
                }
                Ended::Exited(status) => {
                    self.read(status.code(), &c.stdout.render(), &c.stderr.render(), &name)
                }
            },
        };
        result.reviewers = vec![ReviewerOutcome {
            name,
            status: match (result.verdict, &result.parse_error) {
                (Verdict::Error, _) => ReviewerStatus::Failed,
                (Verdict::Incomplete, _) => ReviewerStatus::Incomplete,
                (_, Some(_)) => ReviewerStatus::ParseError,
                _ => ReviewerStatus::Completed,
            },
            verdict: result.verdict,
            model: None,
            findings: result.findings.len(),
            usage: Default::default(),
            cost_usd: Some(0.0),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            error: result.parse_error.clone(),
        }];
        Finish {
            change: Some(&change),
            suppressions: &suppressions,
            // A program is given no learnings, so none of its findings cites one.
            learnings: &crit_project::learnings::Learnings::default(),
            filter: self.filter,
            max_findings: self.max_findings,
            fail_on: self.fail_on,
            now: std::time::SystemTime::now(),
            // Answers to disputes are the agent reviewer's, on a `--post` run.
            disputed: &[],
            root: &self.root,
        }
        .apply(&mut result);
        crate::kinds::template::checks::suggestions::check(
            &mut result.findings,
            &self.root,
            Some(&scope),
            &opts.env,
        );
        result
    }

    /// Exit 0 and 1 carry a review (1: it found blocking problems); anything
    /// else is the program failing, whatever it printed.
    fn read(&self, code: Option<i32>, stdout: &str, stderr: &str, name: &str) -> ReviewResult {
        let root = self.root.to_string_lossy();
        let cx = ParseContext {
            reviewer: name,
            root: Some(&root),
        };
        match code {
            Some(0 | 1) => {
                let mut r = contract::into_result("code", Contract::FindingsJson, stdout, &cx);
                if let Some(e) = &r.parse_error {
                    r.parse_error = Some(format!(
                        "{e} (from `{}`, exit status {})",
                        self.program(),
                        code.unwrap_or(0)
                    ));
                }
                r
            }
            _ => {
                let status = code.map_or_else(|| "a signal".to_string(), |c| format!("status {c}"));
                let mut r = ReviewResult::new("code", Verdict::Error);
                r.parse_error = Some(format!(
                    "the reviewer command `{}` exited with {status}: {}",
                    self.program(),
                    last_line(stderr).unwrap_or("(no error output)")
                ));
                r.raw_output = stdout.to_string();
                r.passed = false;
                r
            }
        }
    }
}

impl CodeReviewer for CommandReviewer {
    fn kind(&self) -> &'static str {
        "command"
    }

    fn review<'a>(&'a self, req: &'a CodeReviewRequest) -> BoxFuture<'a, ReviewResult> {
        Box::pin(self.run(req))
    }
}

fn last_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).rfind(|l| !l.is_empty())
}

/// Placeholders replaced; `{commits}` alone becomes one argument per commit.
fn expand(args: &[String], req: &CodeReviewRequest) -> Vec<String> {
    let context = req
        .context_file
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let values = [
        ("{diff_range}", req.diff_range.clone().unwrap_or_default()),
        ("{context_file}", context),
        ("{session_id}", req.session_id.clone().unwrap_or_default()),
        ("{commits}", req.commit_shas.join(" ")),
    ];
    let mut out = Vec::new();
    for a in args {
        if a == "{commits}" {
            out.extend(req.commit_shas.iter().cloned());
            continue;
        }
        if let Some((_, v)) = values.iter().find(|(k, _)| a == k)
            && v.is_empty()
        {
            continue;
        }
        let mut s = a.clone();
        for (k, v) in &values {
            s = s.replace(k, v);
        }
        out.push(s);
    }
    out
}

fn environment(req: &CodeReviewRequest, root: &std::path::Path) -> Vec<(OsString, OsString)> {
    let mut env = vec![
        (
            "CRIT_DIFF_RANGE",
            req.diff_range.clone().unwrap_or_default(),
        ),
        ("CRIT_COMMITS", req.commit_shas.join(" ")),
        ("CRIT_PROJECT_ROOT", root.display().to_string()),
        (
            "CRIT_SESSION_ID",
            req.session_id.clone().unwrap_or_default(),
        ),
    ];
    if let Some(c) = &req.context_file {
        env.push(("CRIT_CONTEXT_FILE", c.display().to_string()));
    }
    env.into_iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_expand_and_empty_ones_vanish() {
        let req = CodeReviewRequest {
            diff_range: Some("main..HEAD".into()),
            commit_shas: vec!["abc".into(), "def".into()],
            ..Default::default()
        };
        let args: Vec<String> = [
            "--range",
            "{diff_range}",
            "{commits}",
            "{context_file}",
            "--id={session_id}",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            expand(&args, &req),
            ["--range", "main..HEAD", "abc", "def", "--id="]
        );
    }
}
