//! `crit hook claude-code UserPromptSubmit`: the prompt-review plugin's `!!!`
//! trigger. It runs on every prompt, so a prompt without the trigger exits 0
//! with no output before any setting is read (it only notes, once a session,
//! the commit the review gate measures the agent's commits from). With it:
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

use crit_project::Project;
use crit_project::config::prompt_review::Mode;
use tokio_util::sync::CancellationToken;

use crate::agent::{Agent, Event};
use crate::event::{self, HookInput, PromptAction};
use crate::prompt_hook;
use crate::state::{Pending, SessionState, Subject};
use crate::status::LiveStatus;
use crate::{HookEnv, HookOutput, hook_dir};
use crit_prompt::audit::{self, Awaiting};
use crit_prompt::{
    FailedBecause, Outcome, PromptOptions, PromptRequest, PromptReview, PromptSettings, Status, run,
};
use serde_json::json;

/// An answer counts for a review at most this old.
const ANSWER_WITHIN_SECS: u64 = 3600;

/// Runs the hook on one event. `cancel` ends a review early (a signal:
/// Claude Code's own deadline); `signal` names the signal that did.
pub fn run(
    input: &[u8],
    hook: &HookEnv,
    cancel: CancellationToken,
    signal: &dyn Fn() -> Option<&'static str>,
) -> HookOutput {
    hook.agent
        .render(Event::Prompt, decide(input, hook, cancel, signal))
}

fn decide(
    input: &[u8],
    hook: &HookEnv,
    cancel: CancellationToken,
    signal: &dyn Fn() -> Option<&'static str>,
) -> HookOutput {
    let Some((action, event)) = event::decide(input) else {
        return HookOutput::note(
            "crit: the hook's input is not a UserPromptSubmit event (a JSON object with a string `prompt`); the prompt proceeds unreviewed",
        );
    };
    crate::stop::mark_start(&event, hook);
    match action {
        PromptAction::Pass => HookOutput::default(),
        PromptAction::Answer(outcome) => record_answer(&event, outcome, hook),
        PromptAction::Review(stripped) if switched_off(hook) => {
            let _ = stripped;
            HookOutput::default()
        }
        PromptAction::Review(stripped) => review(hook, &event, stripped, cancel, signal),
    }
}

/// What a prompt the hook does not act on still does: note, once a session,
/// the commit the review gate measures the agent's commits from.
pub fn note_session_start(input: &[u8], hook: &HookEnv) {
    if let Some((_, event)) = event::decide(input) {
        crate::stop::mark_start(&event, hook);
    }
}

/// `PROMPT_REVIEW_ENABLED=false` (or 0, no, off).
fn switched_off(hook: &HookEnv) -> bool {
    hook.env.get("PROMPT_REVIEW_ENABLED").is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "false" | "0" | "no" | "off"
        )
    })
}

/// The user's reply to a refined prompt this session is waiting on.
fn record_answer(event: &HookInput, outcome: Outcome, hook: &HookEnv) -> HookOutput {
    let Some(state) = event
        .session_id
        .as_deref()
        .and_then(|id| SessionState::of_agent(&hook.env, hook.agent, id))
    else {
        return HookOutput::default();
    };
    let Some(pending) = state.pending() else {
        return HookOutput::default();
    };
    state.clear_pending();
    let now = SystemTime::now();
    if crit_core::timestamp::unix_secs(now).saturating_sub(pending.at) > ANSWER_WITHIN_SECS {
        return HookOutput::default();
    }
    if let Some(dir) = audit::dir(&hook.env)
        && let Err(e) = audit::append_decision(&dir, &pending.review, outcome, now)
    {
        return HookOutput::note(format!(
            "crit: prompt review audit log {}: {e}",
            dir.display()
        ));
    }
    HookOutput::default()
}

/// Where the review's outcome goes.
struct Sink<'a> {
    hook: &'a HookEnv,
    session: Option<SessionState>,
    log: bool,
    /// Lines for stderr.
    notes: Vec<String>,
}

fn review(
    hook: &HookEnv,
    event: &HookInput,
    stripped: String,
    cancel: CancellationToken,
    signal: &dyn Fn() -> Option<&'static str>,
) -> HookOutput {
    let env = &hook.env;
    let session = event
        .session_id
        .as_deref()
        .and_then(|id| SessionState::of_agent(&hook.env, hook.agent, id));
    let dir = hook_dir(event.cwd.as_deref(), hook);
    let dir = dir.canonicalize().unwrap_or(dir);
    let mut req = PromptRequest {
        prompt: stripped.clone(),
        root: dir.clone(),
        cwd: dir.clone(),
        trigger: event::TRIGGER.into(),
        source: None,
    };
    let mut sink = Sink {
        hook,
        session,
        log: hook.log,
        notes: Vec::new(),
    };
    // The prompt review fails open: a project that does not open is said,
    // and the user's prompt goes on.
    let project = match Project::open(&dir, hook.explicit.clone(), env.clone()) {
        Ok(p) => p,
        Err(e) => {
            return sink.finish(
                run::failed(&req, FailedBecause::Settings, &e.to_string()),
                None,
            );
        }
    };
    project.rules().release_warnings();
    req.root = project.root().to_path_buf();
    let settings = match PromptSettings::of(&project) {
        Ok(s) => s,
        Err(e) => {
            return sink.finish(
                run::failed(&req, FailedBecause::Settings, &e.to_string()),
                None,
            );
        }
    };
    for w in &settings.loaded.warnings {
        sink.notes.push(format!("crit: {w}"));
    }
    if !settings.enabled() {
        return HookOutput {
            stdout: None,
            stderr: sink.notes,
        };
    }
    sink.log = sink.log && settings.logs();
    match &settings.choice {
        Err(e) => {
            // The full list of ways to set one up is `crit doctor`'s to show.
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default();
            let first = first.trim_end_matches(['.', ':', ' ']);
            let first = first.trim_end_matches(" Fix it with one of");
            let why = format!("{first}; `crit doctor` shows how to set one up");
            sink.finish(run::failed(&req, FailedBecause::NoBackend, &why), None)
        }
        Ok(choice) if choice.mode == Mode::Subscription => in_session(hook, sink, &stripped),
        Ok(_) => here(hook, sink, &req, &settings, cancel, signal),
    }
}

/// Subscription mode: the review runs in Claude's session, through the
/// slash command (other agents run `crit prompt` in their shell).
fn in_session(hook: &HookEnv, mut sink: Sink<'_>, stripped: &str) -> HookOutput {
    let command = if hook.env.get("CLAUDE_PLUGIN_ROOT").is_some() {
        "/crit:prompt-review"
    } else {
        "/prompt-review"
    };
    // The review `/prompt-review` runs is this `!!!`'s, in the audit log too.
    if let Some(s) = &sink.session {
        let now = crit_core::timestamp::unix_secs(SystemTime::now());
        if let Err(e) = s.set_triggered(now) {
            sink.notes
                .push(format!("crit: recording the `!!!` trigger: {e}"));
        }
    }
    let context = match hook.agent {
        Agent::ClaudeCode => prompt_hook::subscription(stripped, command),
        _ => prompt_hook::subscription_shell(stripped),
    };
    emit(hook, &context, None, sink.notes)
}

/// API mode: the review runs here, within its budget and the hook's own
/// deadline (a signal cancels it).
fn here(
    hook: &HookEnv,
    sink: Sink<'_>,
    req: &PromptRequest,
    settings: &PromptSettings,
    cancel: CancellationToken,
    signal: &dyn Fn() -> Option<&'static str>,
) -> HookOutput {
    let mut opts = PromptOptions::from_settings(settings, true);
    let live = sink
        .session
        .clone()
        .map(|s| LiveStatus::begin(s, Subject::Prompt, None));
    if let Some(l) = &live {
        opts.progress = Some(l.clone() as Arc<dyn crit_review::panel::Progress>);
    }
    opts.cancel = cancel;
    let reviewed = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the async runtime: {e}"))
        .map(|runtime| {
            let review = runtime.block_on(run::review(req, &opts));
            runtime.shutdown_background();
            review
        });
    let review = match reviewed {
        // Claude Code ends a hook that outlives its timeout with a signal.
        _ if opts.cancel.is_cancelled() => run::failed(
            req,
            FailedBecause::Deadline,
            &format!(
                "stopped by {} at {}'s hook timeout",
                signal().unwrap_or("a signal"),
                hook.agent.name()
            ),
        ),
        Ok(r) => r,
        Err(e) => run::failed(req, FailedBecause::Error, &e),
    };
    sink.finish(review, live)
}

impl Sink<'_> {
    /// The audit line, the status line, the answer for Claude.
    fn finish(mut self, mut review: PromptReview, live: Option<Arc<LiveStatus>>) -> HookOutput {
        review.decide(None);
        if self.log {
            match audit::dir(&self.hook.env) {
                Some(dir) => {
                    if let Err(e) = audit::append(&dir, &review, SystemTime::now()) {
                        self.notes.push(format!(
                            "crit: prompt review audit log {}: {e}",
                            dir.display()
                        ));
                    }
                }
                None => self
                    .notes
                    .push("crit: prompt review audit log: set XDG_STATE_HOME or HOME".into()),
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
                .filter(|r| r.state != crit_prompt::result::ReviewerState::NotRun)
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
            format!("crit: prompt review could not run ({why}); the original prompt proceeds")
        });
        if let Some(line) = note.as_ref().filter(|_| !self.hook.quiet) {
            self.notes.push(line.clone());
        }
        emit(self.hook, &prompt_hook::reviewed(&review), note, self.notes)
    }
}

/// The hook's answer: context for Claude, and a message for the user.
fn emit(hook: &HookEnv, context: &str, message: Option<String>, notes: Vec<String>) -> HookOutput {
    let redactor = crit_core::redact::Redactor::from_env(hook.env.iter());
    let mut out = json!({
        "hookSpecificOutput": {
            "hookEventName": "UserPromptSubmit",
            "additionalContext": redactor.redact_str(context),
        }
    });
    if let Some(m) = message {
        out["systemMessage"] = json!(redactor.redact_str(&m));
    }
    HookOutput {
        stdout: Some(out),
        stderr: notes,
    }
}
