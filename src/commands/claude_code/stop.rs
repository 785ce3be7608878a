//! `crit hook claude-code Stop` (and `SubagentStop`): the review gate before
//! the agent says it is done. With uncommitted changes, crit reviews them as
//! `crit review code --uncommitted` would, with the project's configuration
//! and rules (as trusted: an untrusted checkout cannot make this hook run its
//! programs); when the gate fails, Claude Code gets
//! `{"decision":"block","reason":…}` listing the blocking findings, and the
//! agent goes back to fix them.
//!
//! It never loops (see `crit_review::claude_code::stop_gate`) and fails
//! open: when the review cannot decide, the agent stops and stderr says why.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::SystemTime;

use crit_core::{FailOn, ReviewResult};
use crit_llm::Env;
use crit_project::scope::{self, Scope, ScopeOptions};
use crit_project::{Kind, Project, Reviewer};
use crit_review::claude_code::event::HookInput;
use crit_review::claude_code::state::{SessionState, StopState, Subject};
use crit_review::claude_code::status::LiveStatus;
use crit_review::claude_code::stop_gate::{self, Before};
use crit_review::review::{ReviewOptions, ReviewRequest, run_template};
use crit_review::template::Registry;
use serde_json::json;

use super::{answer, hook_dir, read_stdin};
use crate::backend;
use crate::cli::{CommonArgs, HookArgs};
use crate::exit::{CliError, Code};
use crate::runner;

/// The review's deadline at most: under the 360 s `crit install` gives the
/// hook, so crit ends it and says so before Claude Code would kill it.
const DEFAULT_TIMEOUT_SECS: u64 = 300;

enum Gate {
    /// Let the agent stop; say why on stderr when there is something to say.
    Pass(Option<String>),
    Block(String),
}

pub fn run(common: &CommonArgs, args: &HookArgs, event_name: &str) -> Result<Code, CliError> {
    runner::init_logging(common);
    match gate(common, args, event_name) {
        Ok(Gate::Pass(note)) => {
            if let Some(n) = note.filter(|_| !common.quiet) {
                eprintln!("crit: {n}");
            }
        }
        Ok(Gate::Block(reason)) => {
            let redactor = crit_core::redact::Redactor::from_env(std::env::vars());
            answer(&json!({"decision": "block", "reason": redactor.redact_str(&reason)}));
        }
        Err(why) => eprintln!(
            "crit: the review gate could not decide ({why}); the agent stops without it (the gate fails open)"
        ),
    }
    Ok(Code::Ok)
}

fn gate(common: &CommonArgs, args: &HookArgs, event_name: &str) -> Result<Gate, String> {
    let input = read_stdin()?;
    let event: HookInput = serde_json::from_slice(&input).map_err(|e| {
        format!(
            "the hook's input is not a {event_name} event ({}:{}): {e}",
            e.line(),
            e.column()
        )
    })?;
    let env = Env::from_process();
    let lookup = |k: &str| env.get(k).map(str::to_string);
    let dir = hook_dir(event.cwd.as_deref(), common.cwd.as_deref());
    let project = backend::project_at(&dir, common, &env).map_err(|e| e.message())?;
    let rules = project.rules();
    let root = project.root().to_path_buf();
    if !root.join(".git").exists() {
        return Ok(Gate::Pass(None));
    }
    let change = scope::compute(&root, &Scope::Uncommitted, &ScopeOptions::default())
        .map_err(|e| e.to_string())?;
    if change.is_empty() {
        return Ok(Gate::Pass(None));
    }
    let fingerprint = stop_gate::fingerprint(&change);
    // A subagent's stops are counted apart from the main agent's.
    let key = match (&event.session_id, &event.agent_id) {
        (Some(s), Some(a)) => Some(format!("{s}-{a}")),
        (Some(s), None) => Some(s.clone()),
        (None, _) => None,
    };
    let session = key.and_then(|k| SessionState::of(&lookup, &k));
    let remembered = session.as_ref().and_then(SessionState::stop);
    let rounds = match stop_gate::before(
        remembered.as_ref(),
        &fingerprint,
        event.stop_hook_active,
        args.max_rounds,
    ) {
        Before::Skip(why) => return Ok(Gate::Pass(Some(format!("no review: {why}")))),
        Before::Review { rounds } => rounds,
    };
    // Without a session there is no memory: only `stop_hook_active` stops a loop.
    if session.is_none() && event.stop_hook_active {
        return Ok(Gate::Pass(None));
    }
    rules.release_warnings();
    let live = session
        .clone()
        .map(|s| LiveStatus::begin(s, Subject::Changes, None));
    let reviewed = review(common, &project);
    let (result, fail_on) = match reviewed {
        Ok(r) => r,
        Err(e) => {
            if let Some(l) = &live {
                l.finish(0, 0, Some("the review could not run".into()));
            }
            return Err(e);
        }
    };
    if let Some(l) = &live {
        l.finish(result.reviewers.len(), result.findings.len(), None);
    }
    if result.fatal_error || result.parse_error.is_some() || result.verdict.is_inconclusive() {
        return Err(inconclusive(&result));
    }
    let now = crit_core::timestamp::unix_secs(SystemTime::now());
    let passed = fail_on.passes(&result);
    let state = StopState {
        fingerprint,
        rounds: if passed { rounds } else { rounds + 1 },
        at: now,
    };
    if let Some(s) = &session
        && let Err(e) = s.set_stop(&state)
    {
        tracing::warn!("the review gate's state: {e}");
    }
    if passed {
        return Ok(Gate::Pass(None));
    }
    Ok(Gate::Block(stop_gate::reason(&result, fail_on)))
}

fn inconclusive(result: &ReviewResult) -> String {
    let why = result
        .reviewers
        .iter()
        .find_map(|r| r.error.clone())
        .or_else(|| result.parse_error.clone())
        .unwrap_or_else(|| format!("verdict {}", result.verdict.as_str()));
    format!("the review ended {}: {why}", result.verdict.as_str())
}

/// `crit review code --uncommitted`, in process, with the settings that
/// command would use.
fn review(common: &CommonArgs, project: &Project) -> Result<(ReviewResult, FailOn), String> {
    let settings = backend::settings(project, Kind::Code).map_err(|e| e.message())?;
    if let Reviewer::Command(_) = settings.reviewer.value {
        return Err(
            "the configured reviewer is an external command, which reviews commits, not uncommitted changes"
                .into(),
        );
    }
    let root = project.root().to_path_buf();
    let registry = Registry::load_with(&project.template_dirs(), project.rules())
        .map_err(|e| e.to_string())?;
    let template = registry.get("code").map_err(|e| e.to_string())?.clone();
    let built = settings.build_backend().map_err(|e| e.to_string())?;
    let fail_on = settings.fail_on.value;
    let mut opts = ReviewOptions::new(settings.request_model());
    opts.fail_on = fail_on;
    opts.model_override = common.model.clone();
    opts.limits = crate::commands::review::limits(&settings);
    opts.verify_model = settings.verify_model.value.clone();
    // The review must end before Claude Code's deadline for the hook.
    opts.limits.timeout_secs = Some(
        opts.limits
            .timeout_secs
            .map_or(DEFAULT_TIMEOUT_SECS, |t| t.min(DEFAULT_TIMEOUT_SECS)),
    );
    // No second look here: the agent the findings go back to reads the code
    // before it acts on them, and the hook runs under Claude Code's deadline.
    opts.verify = Some(crit_review::review::VerifyMode::Off);
    opts.log = !common.no_log;
    opts.rules = Some(Arc::clone(project.rules()));
    opts.config_snapshot = serde_json::to_value(settings.rows()).unwrap_or_default();
    let req = ReviewRequest {
        template,
        inputs: BTreeMap::new(),
        scope: Some(Scope::Uncommitted),
        context_file: None,
        root,
        cwd: project.cwd().to_path_buf(),
    };
    let stop = runner::Stop::new();
    let result = runner::block_on(&stop, |cancel| {
        opts.cancel = cancel;
        let (built, req, opts) = (&built, &req, &opts);
        async move { run_template(built, req, opts).await }
    })
    .map_err(|e| e.message())?
    .map_err(|e| e.to_string())?;
    if stop.signal().is_some() {
        return Err("stopped by a signal".into());
    }
    Ok((result, fail_on))
}
