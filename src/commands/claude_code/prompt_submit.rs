//! `crit hook claude-code UserPromptSubmit`: the prompt-review plugin's `!!!`
//! trigger. It runs on every prompt, so a prompt without the trigger exits 0
//! with no output before any setting is read. With it:
//!
//! - subscription mode: Claude is told to run `/prompt-review` on the prompt
//!   without the `!!!` (the review runs on the user's Claude login);
//! - API mode: the review runs here, within `budget.timeout_ms`, and Claude
//!   gets the review block, the diff and the refined prompt, and is told to
//!   ask "Proceed with the refined prompt? (yes / no / edit)" first.
//!
//! Whatever goes wrong, the hook exits 0 and the original prompt proceeds;
//! the audit line says why. `PROMPT_REVIEW_ENABLED=false` turns it off. A bare
//! "yes", "no" or "edit …" after a refined prompt is recorded in the audit log
//! as the user's answer.

use std::sync::Arc;
use std::time::SystemTime;

use crit_llm::Env;
use crit_project::config::prompt_review::{self as prompt_config, ConfigPaths, Mode};
use crit_review::claude_code::event::{self, HookInput, PromptAction};
use crit_review::claude_code::prompt_hook;
use crit_review::claude_code::state::{Pending, SessionState, Subject};
use crit_review::claude_code::status::LiveStatus;
use crit_review::prompt::audit::{self, Awaiting};
use crit_review::prompt::{
    FailedBecause, Outcome, PromptRequest, PromptReview, Status, backend as prompt_backend, run,
};
use serde_json::json;

use super::{answer, hook_dir, read_stdin};
use crate::backend;
use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::runner;

/// An answer counts for a review at most this old.
const ANSWER_WITHIN_SECS: u64 = 3600;

pub fn run(common: &CommonArgs) -> Result<Code, CliError> {
    let input = match read_stdin() {
        Ok(i) => i,
        Err(e) => {
            eprintln!("crit: {e}; the prompt proceeds unreviewed");
            return Ok(Code::Ok);
        }
    };
    let Some((action, event)) = event::decide(&input) else {
        eprintln!(
            "crit: the hook's input is not a UserPromptSubmit event (a JSON object with a string `prompt`); the prompt proceeds unreviewed"
        );
        return Ok(Code::Ok);
    };
    match action {
        PromptAction::Pass => {}
        PromptAction::Answer(outcome) => record_answer(&event, outcome),
        PromptAction::Review(stripped) => {
            if !switched_off() {
                review(common, &event, stripped);
            }
        }
    }
    Ok(Code::Ok)
}

/// `PROMPT_REVIEW_ENABLED=false` (or 0, no, off).
fn switched_off() -> bool {
    std::env::var("PROMPT_REVIEW_ENABLED").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "false" | "0" | "no" | "off"
        )
    })
}

/// The user's reply to a refined prompt this session is waiting on.
fn record_answer(event: &HookInput, outcome: Outcome) {
    let lookup = |k: &str| std::env::var(k).ok();
    let Some(state) = event
        .session_id
        .as_deref()
        .and_then(|id| SessionState::of(&lookup, id))
    else {
        return;
    };
    let Some(pending) = state.pending() else {
        return;
    };
    state.clear_pending();
    let now = SystemTime::now();
    if crit_core::timestamp::unix_secs(now).saturating_sub(pending.at) > ANSWER_WITHIN_SECS {
        return;
    }
    if let Some(dir) = audit::dir(&lookup)
        && let Err(e) = audit::append_decision(&dir, &pending.review, outcome, now)
    {
        eprintln!("crit: prompt review audit log {}: {e}", dir.display());
    }
}

/// Where the review's outcome goes.
struct Sink<'a> {
    common: &'a CommonArgs,
    lookup: &'a dyn Fn(&str) -> Option<String>,
    session: Option<SessionState>,
    log: bool,
}

fn review(common: &CommonArgs, event: &HookInput, stripped: String) {
    runner::init_logging(common);
    let env = Env::from_process();
    let lookup = |k: &str| env.get(k).map(str::to_string);
    let session = event
        .session_id
        .as_deref()
        .and_then(|id| SessionState::of(&lookup, id));
    let dir = hook_dir(event.cwd.as_deref(), common.cwd.as_deref());
    let dir = dir.canonicalize().unwrap_or(dir);
    let mut req = PromptRequest {
        prompt: stripped.clone(),
        root: dir.clone(),
        cwd: dir.clone(),
        trigger: event::TRIGGER.into(),
        source: None,
    };
    let mut sink = Sink {
        common,
        lookup: &lookup,
        session,
        log: !common.no_log,
    };
    // The prompt review fails open: a project that does not open is said,
    // and the user's prompt goes on.
    let project = match backend::project_at(&dir, common, &env) {
        Ok(p) => p,
        Err(e) => {
            return sink.finish(
                run::failed(&req, FailedBecause::Settings, &e.message()),
                None,
            );
        }
    };
    let rules = project.rules();
    rules.release_warnings();
    req.root = project.root().to_path_buf();
    let mut loaded = match prompt_config::load(&ConfigPaths::standard(&lookup), rules, &lookup) {
        Ok(l) => l,
        Err(e) => {
            return sink.finish(
                run::failed(&req, FailedBecause::Settings, &e.to_string()),
                None,
            );
        }
    };
    for w in &loaded.warnings {
        eprintln!("crit: {w}");
    }
    if !loaded.enabled {
        return;
    }
    sink.log = sink.log && loaded.config.budget.log_costs;
    if let Some(secs) = common.timeout {
        loaded.config.budget.timeout_ms = secs.saturating_mul(1000).max(1);
    }
    let crit_config = project.config();
    let explicit = project.explicit();
    match prompt_backend::choose(explicit, crit_config, &loaded, &env) {
        Err(e) => {
            // The full list of ways to set one up is `crit doctor`'s to show.
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default();
            let first = first.trim_end_matches(['.', ':', ' ']);
            let first = first.trim_end_matches(" Fix it with one of");
            let why = format!("{first}; `crit doctor` shows how to set one up");
            sink.finish(run::failed(&req, FailedBecause::NoBackend, &why), None);
        }
        Ok(choice) if choice.mode == Mode::Subscription => {
            // The review runs in Claude's session, through the slash command.
            let command = if std::env::var_os("CLAUDE_PLUGIN_ROOT").is_some() {
                "/crit:prompt-review"
            } else {
                "/prompt-review"
            };
            emit(&prompt_hook::subscription(&stripped, command), None);
        }
        Ok(_) => {
            let mut opts = prompt_backend::options(explicit, crit_config, &loaded, &env, true);
            let live = sink
                .session
                .clone()
                .map(|s| LiveStatus::begin(s, Subject::Prompt, None));
            if let Some(l) = &live {
                opts.progress = Some(l.clone() as Arc<dyn crit_review::panel::Progress>);
            }
            let stop = runner::Stop::new();
            let reviewed = runner::block_on(&stop, |cancel| {
                let mut opts = opts.clone();
                opts.cancel = cancel;
                let req = req.clone();
                async move { run::review(&req, &opts).await }
            });
            let review = match (reviewed, stop.signal()) {
                // Claude Code ends a hook that outlives its timeout with a signal.
                (_, Some(signal)) => run::failed(
                    &req,
                    FailedBecause::Deadline,
                    &format!("stopped by {} at Claude Code's hook timeout", signal.name()),
                ),
                (Ok(r), None) => r,
                (Err(e), None) => run::failed(&req, FailedBecause::Error, &e.message()),
            };
            sink.finish(review, live);
        }
    }
}

impl Sink<'_> {
    /// The audit line, the status line, the answer for Claude.
    fn finish(&self, mut review: PromptReview, live: Option<Arc<LiveStatus>>) {
        review.decide(None);
        if self.log {
            match audit::dir(self.lookup) {
                Some(dir) => {
                    if let Err(e) = audit::append(&dir, &review, SystemTime::now()) {
                        eprintln!("crit: prompt review audit log {}: {e}", dir.display());
                    }
                }
                None => eprintln!("crit: prompt review audit log: set XDG_STATE_HOME or HOME"),
            }
        }
        let failed = matches!(review.status, Status::FailedOpen | Status::Disabled)
            .then(|| prompt_hook::why(&review));
        let live = live.or_else(|| {
            self.session
                .clone()
                .map(|s| LiveStatus::begin(s, Subject::Prompt, None))
        });
        if let Some(l) = &live {
            let took_part = review
                .reviewers
                .iter()
                .filter(|r| r.state != crit_review::prompt::result::ReviewerState::NotRun)
                .count();
            l.finish(took_part, review.findings_count(), failed.clone());
        }
        if let Some(s) = &self.session {
            if review.needs_decision() {
                let pending = Pending {
                    review: Awaiting::of(&review),
                    at: crit_core::timestamp::unix_secs(SystemTime::now()),
                };
                if let Err(e) = s.set_pending(&pending) {
                    tracing::debug!("pending answer: {e}");
                }
            } else {
                s.clear_pending();
            }
        }
        let note = failed.map(|why| {
            let line =
                format!("crit: prompt review could not run ({why}); the original prompt proceeds");
            if !self.common.quiet {
                eprintln!("{line}");
            }
            line
        });
        emit(&prompt_hook::reviewed(&review), note);
    }
}

/// The hook's answer: context for Claude, and a message for the user.
fn emit(context: &str, message: Option<String>) {
    let redactor = crit_core::redact::Redactor::from_env(std::env::vars());
    let mut out = json!({
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": redactor.redact_str(context),
        }
    });
    if let Some(m) = message {
        out["systemMessage"] = json!(redactor.redact_str(&m));
    }
    answer(&out);
}
