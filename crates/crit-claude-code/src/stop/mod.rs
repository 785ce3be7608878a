//! `crit hook AGENT Stop` (Claude Code's and Codex's `Stop` and
//! `SubagentStop`, Gemini CLI's `AfterAgent`): the review gate before the
//! agent says it is done. The gate ([`gate`]) takes an agent-neutral
//! [`StopInput`] and returns a [`Decision`]; [`run`] reads the agent's event
//! and writes the decision in its words ([`crate::agent`]). With uncommitted changes, crit reviews them with
//! the settings `crit review code --uncommitted` uses, read from the project
//! as committed when the session began and as the user trusted it
//! (`ProjectRules::committed_at`): the agent under the gate writes the working
//! tree and commits, so nothing it wrote — settings, models, templates,
//! suppressions — moves its own review. What it committed since, and work it
//! moved off HEAD (another branch, a tag, a stash: [`moved`]), is reviewed
//! with the uncommitted changes. When the gate
//! fails, the agent gets `{"decision":"block","reason":…}` listing the
//! blocking findings and goes back to fix them.
//!
//! The project is the one the agent runs in (`--cwd`, else the agent's
//! project variable, `CLAUDE_PROJECT_DIR` or `GEMINI_PROJECT_DIR`, else the
//! directory the agent started the hook in), never the event's `cwd`, which
//! the agent moves. It fails closed and never loops (see
//! [`gate`]); when it lets the agent stop without a passing review, the user
//! is told in `systemMessage` and the audit log records it.

pub mod at_start;
pub mod gate;
mod moved;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

use crit_core::{FailOn, ReviewResult};
use crit_project::scope::{self, Scope, ScopeOptions};
use crit_project::trust::ProjectRules;
use crit_project::{Kind, Project, Reviewer};
use crit_review::review::{HoldToLimit, ReviewOptions, ReviewRequest, run_template};
use crit_review::template::Registry;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::agent::Event;
use crate::event::HookInput;
use crate::state::{NotedRefs, SessionState, StopState, Subject};
use crate::status::LiveStatus;
use crate::{HookEnv, HookOutput};
use at_start::SettingsAtStart;
use gate::Before;

/// The review's deadline at most: under the 360 s `crit install` gives the
/// hook, so crit ends it and says so before Claude Code would kill it.
pub const DEADLINE_SECS: u64 = 300;

/// What the gate needs from an agent's stop event, in no agent's words.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StopInput {
    /// The agent's session: the gate's memory (rounds, what was reviewed).
    pub session_id: Option<String>,
    /// A subagent's id: its stops are counted apart from the main agent's.
    pub agent_id: Option<String>,
    /// The agent is already continuing because a stop hook held it.
    pub stop_hook_active: bool,
    /// The session's transcript, as the agent names it (not read: the
    /// agent writes it).
    pub transcript_path: Option<String>,
}

impl From<&HookInput> for StopInput {
    fn from(e: &HookInput) -> StopInput {
        StopInput {
            session_id: e.session_id.clone(),
            agent_id: e.agent_id.clone(),
            stop_hook_active: e.stop_hook_active,
            transcript_path: e.transcript_path.clone(),
        }
    }
}

/// What the gate decided, for the answer and the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Nothing to review, or it passed: the agent stops.
    Pass,
    /// The agent goes back, with this reason.
    Block(String),
    /// The agent stops without a passing review: the user is told why.
    LetGo(String),
}

/// Runs the gate on one hook event. `cancel` ends a review early (a signal:
/// Claude Code's own deadline).
pub fn run(
    input: &[u8],
    event_name: &str,
    hook: &HookEnv,
    max_rounds: u32,
    cancel: CancellationToken,
) -> HookOutput {
    // Input that is not an event still gets its review (the gate fails
    // closed): only the session's memory is lost, and that is said.
    let mut notes = Vec::new();
    let event = HookInput::parse(input).unwrap_or_else(|e| {
        notes.push(format!(
            "crit: the hook's input is not a {event_name} event ({}:{}): {e}; reviewing the project without the session's state",
            e.line(),
            e.column()
        ));
        HookInput::default()
    });
    let decision = gate(&StopInput::from(&event), hook, max_rounds, cancel);
    let redactor = crit_core::redact::Redactor::from_env(hook.env.iter());
    let mut out = answer(decision, hook, &redactor);
    if !hook.quiet {
        out.stderr
            .extend(notes.iter().map(|n| redactor.redact_str(n).into_owned()));
    }
    let event = if event_name == "SubagentStop" {
        Event::SubagentStop
    } else {
        Event::Stop
    };
    hook.agent.render(event, out)
}

/// The hook's answer for `gate`.
fn answer(gate: Decision, hook: &HookEnv, redactor: &crit_core::redact::Redactor) -> HookOutput {
    match gate {
        Decision::Pass => HookOutput::default(),
        Decision::Block(reason) => HookOutput::json(json!({
            "decision": "block",
            "reason": redactor.redact_str(&reason),
        })),
        Decision::LetGo(why) => {
            record_let_go(hook, &why);
            let message = format!(
                "crit: the agent stopped without a passing review: {why}. Review the changes with `crit review code --uncommitted` before you use them."
            );
            let message = redactor.redact_str(&message);
            let mut out = HookOutput::json(json!({"systemMessage": message}));
            if !hook.quiet {
                out.stderr.push(message.into_owned());
            }
            out
        }
    }
}

/// The project root the gate reviews: `--cwd`, else the agent's project.
fn project_dir(hook: &HookEnv) -> PathBuf {
    hook.cwd
        .clone()
        .or_else(|| {
            hook.env
                .get(hook.agent.project_dir_var()?)
                .filter(|d| !d.is_empty())
                .map(PathBuf::from)
        })
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Records, at a session's first prompt, the commit the gate's first stop
/// measures commits from (without it, what the agent commits before the
/// gate has ever decided would be out of the first review; its project
/// settings are the gate's), and the refs and reflog sizes, so work moved
/// off HEAD is found. Read from the git directory's files (no git process:
/// this runs on every prompt); a session that already has the gate's memory
/// is left as it is.
pub fn mark_start(event: &HookInput, hook: &HookEnv) {
    let lookup = &hook.env;
    let Some(session) = event
        .session_id
        .as_deref()
        .and_then(|id| SessionState::of_agent(lookup, hook.agent, id))
    else {
        return;
    };
    if session.stop().is_some() {
        return;
    }
    let Ok(cwd) = project_dir(hook).canonicalize() else {
        return;
    };
    let root =
        crit_project::paths::project_root_in(&cwd, hook.env.get("HOME").map(std::path::Path::new));
    let Ok(layout) = crit_os::git::layout::discover(&root) else {
        return;
    };
    let refs = layout.refs().map(NotedRefs::from);
    let head = layout.head_commit();
    let settings = Some(SettingsAtStart::now(&root, lookup));
    // No commit yet: whatever the session commits is measured from nothing
    // at all, and no project setting is read from it.
    let head = head.as_deref().unwrap_or(UNBORN);
    let at = Memory {
        start: Some(head),
        refs,
        settings,
        ..Memory::new("", 0, Some(head))
    };
    remember(Some(&session), at, None);
}

/// The head noted for a session that began before the repository's first
/// commit (no commit id looks like it).
const UNBORN: &str = "unborn";

/// The review gate on one stop, in no agent's words. `cancel` ends a
/// review early.
pub fn gate(
    event: &StopInput,
    hook: &HookEnv,
    max_rounds: u32,
    cancel: CancellationToken,
) -> Decision {
    let lookup = &hook.env;
    let dir = project_dir(hook);
    let Ok(cwd) = dir.canonicalize() else {
        return Decision::LetGo(format!(
            "the project directory {} does not exist",
            dir.display()
        ));
    };
    let root =
        crit_project::paths::project_root_in(&cwd, hook.env.get("HOME").map(std::path::Path::new));
    // A subagent's stops are counted apart from the main agent's.
    let key = match (&event.session_id, &event.agent_id) {
        (Some(s), Some(a)) => Some(format!("{s}-{a}")),
        (Some(s), None) => Some(s.clone()),
        (None, _) => None,
    };
    let session = key.and_then(|k| SessionState::of_agent(lookup, hook.agent, &k));
    let remembered = session.as_ref().and_then(SessionState::stop);
    // A subagent runs within its session: where that began, and the
    // user's settings then, are the subagent's too.
    let main = match &event.agent_id {
        Some(_) => event
            .session_id
            .as_deref()
            .and_then(|s| SessionState::of_agent(lookup, hook.agent, s))
            .and_then(|s| s.stop()),
        None => None,
    };
    let settings_at_start = remembered
        .as_ref()
        .and_then(|s| s.settings.clone())
        .or_else(|| main.as_ref().and_then(|s| s.settings.clone()))
        .unwrap_or_else(|| SettingsAtStart::now(&root, lookup));
    // An agent whose stop says nothing of an earlier hold: every stop of a
    // session the gate held since its last pass is a held one, so the
    // rounds bound it.
    let mut event = event.clone();
    event.stop_hook_active |=
        !hook.agent.says_when_held() && remembered.as_ref().is_some_and(|s| s.rounds > 0);
    let event = &event;
    if !root.join(".git").exists() {
        return match &remembered {
            // Never a repository in this session: nothing to review.
            None => Decision::Pass,
            // It was one: an agent that moves `.git` away would otherwise
            // stop with nothing read. Held shut like a review that could not
            // decide, within the rounds.
            Some(r) => {
                let why = "the repository's .git is not there any more, so what the session changed cannot be read; put it back, or review the work with `crit review code`, before you stop".to_string();
                let rounds = if event.stop_hook_active { r.rounds } else { 0 };
                if event.stop_hook_active && rounds >= max_rounds {
                    return Decision::LetGo(why);
                }
                let at = Memory {
                    start: r.start.as_deref(),
                    refs: r.refs.clone(),
                    ..Memory::new("", rounds + 1, r.head.as_deref())
                };
                fail(session.as_ref(), at, why)
            }
        };
    }
    // The review's settings, read before the change: the change is read
    // once, the way the review reads it, and handed to it as fingerprinted.
    // Failing to read them fails the review, not the stop's bookkeeping.
    let prepared = prepare(
        hook,
        (&cwd, &root),
        remembered.as_ref().and_then(|s| s.start.as_deref()),
        &settings_at_start.trusted,
    );
    let scope_options = match &prepared {
        Ok(p) => p.opts.scope_options(),
        Err(_) => ScopeOptions {
            env: hook.env.clone(),
            ..ScopeOptions::default()
        },
    };
    let uncommitted = scope::compute(&root, &Scope::Uncommitted, &scope_options);
    let head_now = uncommitted.as_ref().ok().and_then(|c| c.base.clone());
    // The session's first commit gives the settings; failing a note, HEAD
    // does, and is noted for the session's later stops.
    let noted_start = remembered
        .as_ref()
        .and_then(|s| s.start.clone())
        .or_else(|| main.as_ref().and_then(|s| s.start.clone()));
    let start = noted_start.clone().or_else(|| head_now.clone());
    let noted = remembered.as_ref().and_then(|s| s.refs.clone());
    let (off_head, refs_now) = moved::since(&root, noted.as_ref(), head_now.as_deref(), &hook.env);
    // Until a review passes, what moved is measured from the same note.
    let kept = noted.clone().or_else(|| refs_now.clone());
    // HEAD moved since the gate last decided: what was committed since then
    // is reviewed with what is not committed yet.
    let noted_head = remembered.as_ref().and_then(|s| s.head.clone());
    let born = noted_head.as_deref() == Some(UNBORN) && head_now.is_some();
    let since = match (&uncommitted, noted_head) {
        (Ok(c), Some(h)) if h != UNBORN && c.base.as_deref() != Some(h.as_str()) => Some(h),
        _ => None,
    };
    // Where the next stop measures commits from: HEAD once a review passed,
    // else where this one did.
    let from = match born {
        // Until a review passes, every commit stays the session's.
        true => Some(UNBORN.to_string()),
        false => since.clone().or_else(|| head_now.clone()),
    };
    let keep = |fingerprint, rounds| Memory {
        start: start.as_deref(),
        refs: kept.clone(),
        settings: Some(settings_at_start.clone()),
        ..Memory::new(fingerprint, rounds, from.as_deref())
    };
    let off_head = match off_head {
        Ok(c) => c,
        Err(why) => {
            let why = format!(
                "{why}; review the repository's branches, tags and stashes with `crit review code` before you stop"
            );
            // Held shut like a review that could not decide, within the rounds.
            let rounds = match (event.stop_hook_active, remembered.as_ref()) {
                (true, Some(s)) => s.rounds,
                _ => 0,
            };
            if event.stop_hook_active && (session.is_none() || rounds >= max_rounds) {
                return Decision::LetGo(why);
            }
            return fail(session.as_ref(), keep("", rounds + 1), why);
        }
    };
    let here = match &since {
        Some(h) => Scope::Since(h.clone()),
        None => Scope::Uncommitted,
    };
    let off_head = match born {
        false => off_head,
        // The session began before the first commit: every commit is its.
        true => match moved::from_unborn(&root, &hook.env) {
            Ok(mut all) => {
                all.extend(off_head);
                all
            }
            Err(why) => {
                return fail(
                    session.as_ref(),
                    keep("", 0),
                    format!("{why}; the session's commits could not be read"),
                );
            }
        },
    };
    let (scope, computed) = match (&since, off_head.is_empty()) {
        (None, true) => (here, uncommitted),
        (Some(_), true) => {
            let c = scope::compute(&root, &here, &scope_options);
            (here, c)
        }
        (_, false) => {
            let mut parts = vec![here];
            parts.extend(off_head);
            let s = Scope::Union(parts);
            let c = scope::compute(&root, &s, &scope_options);
            (s, c)
        }
    };
    let change = match computed {
        Ok(c) => c,
        Err(e) if event.stop_hook_active => {
            return Decision::LetGo(format!("the change could not be read: {e}"));
        }
        Err(e) => {
            return fail(
                None,
                Memory::new("", 0, None),
                format!("the change could not be read: {e}"),
            );
        }
    };
    // A change of files git hides alone is still a change: no reviewer
    // reads them, so the review says so and the gate holds.
    if change.is_empty() && change.hidden.is_empty() {
        return Decision::Pass;
    }
    // The change, and which model reviews it: a pass under another model
    // (the agent running this hook with its own environment) is not this one.
    let fingerprint = match &prepared {
        Ok(p) => format!("{}-{}", gate::fingerprint(&change), p.reviewer_id),
        Err(_) => gate::fingerprint(&change),
    };
    // Without a session there is no memory: only `stop_hook_active` stops a loop.
    if session.is_none() && event.stop_hook_active {
        return Decision::LetGo(format!(
            "{} gave no session id to count the gate's rounds by",
            hook.agent.name()
        ));
    }
    let rounds = match gate::before(
        remembered.as_ref(),
        &fingerprint,
        event.stop_hook_active,
        max_rounds,
    ) {
        Before::Passed => return Decision::Pass,
        Before::LetGo(why) => {
            // The agent stops: its next stop follows the user's next prompt,
            // a new turn, where the agent's stop cannot say so.
            if !hook.agent.says_when_held() {
                remember(session.as_ref(), keep("", 0), None);
            }
            return Decision::LetGo(why);
        }
        Before::Again { reason, rounds } => {
            remember(
                session.as_ref(),
                keep(&fingerprint, rounds + 1),
                Some(&reason),
            );
            return Decision::Block(reason);
        }
        Before::Review { rounds } => rounds,
    };
    // Settings the session wrote (the user's config, moved or changed) are
    // not the gate's: it holds, within its rounds, and says why.
    if let Some(why) = settings_at_start.changed(&SettingsAtStart::now(&root, lookup)) {
        let why = format!(
            "{why}, and the review gate takes only the settings the session began with. Put them back as they were, or ask the user to start a new session if they changed them"
        );
        if event.stop_hook_active && rounds >= max_rounds {
            return Decision::LetGo(why);
        }
        remember(session.as_ref(), keep("", rounds + 1), Some(&why));
        return Decision::Block(format!("crit's review gate holds: {why}."));
    }
    let live = session
        .clone()
        .map(|s| LiveStatus::begin(s, Subject::Changes, None));
    let reviewed = prepared.and_then(|p| review(p, &cwd, &root, scope, change, cancel));
    if let Some(l) = &live {
        match &reviewed {
            Ok((r, _)) => l.finish(r.reviewers.len(), r.findings.len(), None),
            Err(_) => l.finish(0, 0, Some("the review could not run".into())),
        }
    }
    let (result, fail_on) = match reviewed {
        Ok(r) => r,
        Err(why) => return fail(session.as_ref(), keep("", rounds + 1), why.to_string()),
    };
    // Files no reviewer could read are no fault of crit's setup: the hold
    // says which, and what lets the next stop review them.
    if let Some(unread) = unread(&result) {
        remember(session.as_ref(), keep("", rounds + 1), None);
        return Decision::Block(format!(
            "crit's review gate holds: the review ended {}, because {unread}. Let git show them (take them out of what an ignore rule, the index or a nested repository hides), or delete them, then stop again; files the project means to keep out of reviews belong in its `ignore` settings.",
            result.verdict.as_str()
        ));
    }
    if result.fatal_error || result.parse_error.is_some() || result.verdict.is_inconclusive() {
        return fail(
            session.as_ref(),
            keep("", rounds + 1),
            inconclusive(&result),
        );
    }
    if result.passed {
        // Passed: later stops measure from here, refs included (and the
        // rounds start again where the agent's stop cannot say so).
        let rounds = if hook.agent.says_when_held() {
            rounds
        } else {
            0
        };
        let at = Memory {
            start: start.as_deref(),
            refs: refs_now,
            settings: Some(settings_at_start.clone()),
            ..Memory::new(&fingerprint, rounds, head_now.as_deref())
        };
        remember(session.as_ref(), at, None);
        return Decision::Pass;
    }
    let reason = gate::reason(&result, fail_on);
    remember(
        session.as_ref(),
        keep(&fingerprint, rounds + 1),
        Some(&reason),
    );
    Decision::Block(reason)
}

/// A review that could not decide holds the gate shut: the agent goes back
/// (the next stop reviews again), until the round limit lets it go.
fn fail(session: Option<&SessionState>, at: Memory<'_>, why: String) -> Decision {
    remember(session, at, None);
    Decision::Block(format!(
        "crit could not finish reviewing the uncommitted changes ({why}). The review gate holds until a review passes: stop again to retry, or ask the user to check crit's setup with `crit doctor`."
    ))
}

/// What the next stop starts from: the change's fingerprint, the rounds,
/// the commit later commits are measured from, the session's first commit
/// and the refs moves are measured from.
struct Memory<'a> {
    fingerprint: &'a str,
    rounds: u32,
    head: Option<&'a str>,
    start: Option<&'a str>,
    refs: Option<NotedRefs>,
    settings: Option<SettingsAtStart>,
}

impl<'a> Memory<'a> {
    fn new(fingerprint: &'a str, rounds: u32, head: Option<&'a str>) -> Self {
        Memory {
            fingerprint,
            rounds,
            head,
            start: None,
            refs: None,
            settings: None,
        }
    }
}

fn remember(session: Option<&SessionState>, at: Memory<'_>, blocked: Option<&str>) {
    let Some(s) = session else { return };
    // Noted once per session: a later stop never replaces it.
    let settings = s.stop().and_then(|old| old.settings).or(at.settings);
    let state = StopState {
        fingerprint: at.fingerprint.to_string(),
        rounds: at.rounds,
        at: crit_core::timestamp::unix_secs(SystemTime::now()),
        blocked: blocked.map(str::to_string),
        head: at.head.map(str::to_string),
        start: at.start.map(str::to_string),
        refs: at.refs,
        settings,
    };
    if let Err(e) = s.set_stop(&state) {
        tracing::warn!("the review gate's state: {e}");
    }
}

/// What git kept from every reviewer, when that alone kept the review from
/// deciding: every reviewer answered, nothing failed, and each gap is a
/// file that was never sent (not a budget, a binary or a failed part).
fn unread(result: &ReviewResult) -> Option<String> {
    let answered = !result.fatal_error
        && result.parse_error.is_none()
        && result.reviewers.iter().all(|r| r.error.is_none());
    let only_unsent = result.coverage.as_ref().is_some_and(|c| {
        c.left_out
            .iter()
            .filter(|l| l.cause.is_gap())
            .all(|l| l.cause == crit_core::LeftOutCause::NotSent)
    });
    (answered && only_unsent && result.verdict.is_inconclusive())
        .then(|| gate::gaps(result))
        .flatten()
}

fn inconclusive(result: &ReviewResult) -> String {
    let why = result
        .reviewers
        .iter()
        .find_map(|r| r.error.clone())
        .or_else(|| result.parse_error.clone())
        .or_else(|| gate::gaps(result))
        .unwrap_or_else(|| format!("verdict {}", result.verdict.as_str()));
    format!("the review ended {}: {why}", result.verdict.as_str())
}

/// One line in the audit log: the gate let the agent stop without a passing
/// review. Counts and reasons only, as every audit line.
fn record_let_go(hook: &HookEnv, why: &str) {
    if !hook.log {
        return;
    }
    let Some(dir) = crit_review::session::audit_dir(&hook.env) else {
        return;
    };
    if let Err(e) =
        crit_review::session::append_gate(&dir, "stop", "let_go", why, SystemTime::now())
    {
        tracing::warn!("the audit log: {e}");
    }
}

/// Why the gate's review could not run.
#[derive(Debug, thiserror::Error)]
enum ReviewFailed {
    #[error(transparent)]
    Rules(#[from] crit_project::trust::TrustError),
    #[error(transparent)]
    Project(#[from] crit_project::ProjectError),
    #[error(
        "the configured reviewer is an external command, which reviews commits, not uncommitted changes"
    )]
    CommandReviewer,
    #[error(transparent)]
    Template(#[from] crit_review::template::TemplateError),
    #[error(transparent)]
    Backend(#[from] crit_llm::LlmError),
    #[error("starting the async runtime: {0}")]
    Runtime(#[source] std::io::Error),
    #[error(transparent)]
    Review(#[from] crit_review::review::ReviewError),
    #[error("stopped by a signal at the agent's hook deadline")]
    Stopped,
    #[error(
        "the review would cost more than max_cost_usd ${limit:.2} ({from}) allows: {plan}; nothing was sent. Raise max_cost_usd in your crit config or review with `crit review code --uncommitted` at a terminal"
    )]
    OverLimit {
        plan: String,
        limit: f64,
        from: String,
    },
    #[error(
        "the review's model ({models}) has no known price, so max_cost_usd ${limit:.2} ({from}) cannot be held: nothing was sent. crit has no setting for a model's price: use a model crit knows the price of, or review with `crit review code --uncommitted --yes` at a terminal"
    )]
    Unpriced {
        models: String,
        limit: f64,
        from: String,
    },
}

/// The review the gate runs, ready but for its change.
struct Prepared {
    opts: ReviewOptions,
    template: crit_review::template::Template,
    backend: crit_llm::Backend,
    fail_on: FailOn,
    /// The user's spending limit (the gate has no one to ask).
    limit: crit_core::Sourced<f64>,
    /// Which model would review: a pass is remembered for this model only.
    reviewer_id: String,
}

/// A hash of which model reviews (provider, model, endpoint, recordings,
/// Claude Code binary). The agent can run this hook itself with its own
/// environment (a base URL it serves, a weaker model); the pass it gets
/// that way is remembered under another id, so the agent's stop, with the
/// user's environment, is reviewed again.
fn reviewer_id(settings: &crit_project::Settings) -> String {
    let text = match &settings.backend {
        Ok(s) => format!(
            "{:?}\0{:?}\0{:?}\0{:?}\0{:?}",
            s.provider.value,
            s.model.as_ref().map(|m| &m.value),
            s.base_url.as_ref().map(|u| &u.value),
            s.cassettes.as_ref().map(|c| &c.value),
            s.claude_bin.as_ref().map(|c| &c.value),
        ),
        Err(e) => format!("no backend: {e}"),
    };
    crit_review::session::path_hash(&text)
}

/// `crit review code --uncommitted`'s settings, read as committed at the
/// session's first commit (`start`), with the hook's own deadline.
fn prepare(
    hook: &HookEnv,
    (cwd, root): (&std::path::Path, &std::path::Path),
    start: Option<&str>,
    trusted_at_start: &std::collections::BTreeSet<String>,
) -> Result<Prepared, ReviewFailed> {
    let lookup = &hook.env;
    let rules = match start {
        Some(UNBORN) => ProjectRules::before_first_commit(root, lookup)?,
        _ => ProjectRules::committed_at(root, start, lookup)?,
    }
    .trusted_only(trusted_at_start);
    let project = Project::with_rules(
        cwd.to_path_buf(),
        root.to_path_buf(),
        Arc::new(rules),
        hook.explicit.clone(),
        hook.env.clone(),
    )?;
    let settings = project.settings(Kind::Code)?;
    let reviewer_id = reviewer_id(&settings);
    project.rules().release_warnings();
    if let Reviewer::Command(_) = settings.reviewer.value {
        return Err(ReviewFailed::CommandReviewer);
    }
    let registry = Registry::load_with(&project.template_dirs(), project.rules())?;
    let template = registry.get("code")?.clone();
    let backend = settings.build_backend()?;
    // The settings `crit review code --uncommitted` runs with, the second
    // look included, so the agent and its user see the same review. Only
    // the deadline is the hook's own: the review ends before Claude Code's.
    let mut opts = ReviewOptions::from_settings(&project, &settings);
    // No one to ask at a stop: a review estimated over the user's limit is
    // not sent (the gate holds, saying so), and one sent stops at it.
    let limit = settings.max_cost_usd.clone();
    opts.spending = Some(Arc::new(HoldToLimit {
        limit: limit.clone(),
    }));
    opts.limits.timeout_secs = Some(
        settings
            .timeout
            .as_ref()
            .map_or(DEADLINE_SECS, |t| t.value.min(DEADLINE_SECS)),
    );
    opts.log = hook.log;
    Ok(Prepared {
        opts,
        template,
        backend,
        fail_on: settings.fail_on.value,
        limit,
        reviewer_id,
    })
}

/// The review of `change` (what `scope` names, read with the review's own
/// scope options), in process.
fn review(
    prepared: Prepared,
    cwd: &std::path::Path,
    root: &std::path::Path,
    scope: Scope,
    change: crit_project::scope::Change,
    cancel: CancellationToken,
) -> Result<(ReviewResult, FailOn), ReviewFailed> {
    let Prepared {
        mut opts,
        template,
        backend,
        fail_on,
        limit,
        ..
    } = prepared;
    opts.cancel = cancel;
    let req = ReviewRequest {
        template,
        inputs: BTreeMap::new(),
        scope: Some(scope),
        change: Some(change),
        context_file: None,
        root: root.to_path_buf(),
        cwd: cwd.to_path_buf(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(ReviewFailed::Runtime)?;
    let result = runtime.block_on(run_template(&backend, &req, &opts));
    runtime.shutdown_background();
    if opts.cancel.is_cancelled() {
        return Err(ReviewFailed::Stopped);
    }
    match result {
        Err(crit_review::review::ReviewError::NotApproved(plan)) if plan.usd_high.is_none() => {
            Err(ReviewFailed::Unpriced {
                models: match plan.models.is_empty() {
                    true => "the backend's default model".to_string(),
                    false => plan.models.join(", "),
                },
                limit: limit.value,
                from: limit.source.to_string(),
            })
        }
        Err(crit_review::review::ReviewError::NotApproved(plan)) => Err(ReviewFailed::OverLimit {
            plan: plan.describe(),
            limit: limit.value,
            from: limit.source.to_string(),
        }),
        r => Ok((r?, fail_on)),
    }
}
