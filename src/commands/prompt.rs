//! `crit prompt`: review a prompt before an agent runs it.
//!
//! One prompt: the review block and the diff go to stderr, the question
//! `Proceed with the refined prompt? (yes / no / edit)` is asked at a terminal,
//! and the chosen prompt goes to stdout (`crit prompt "…" | claude -p`). With
//! `--json` or `--format markdown` the report goes to stdout instead.
//!
//! Several prompts (`--file 'prompts/**/*.md'`), a gate (`--fail-on`,
//! `--exit-code`) or `--format sarif|rdjson`: every prompt is reviewed, several
//! at once, and the findings are one result for the gate.

mod approve;

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use anyhow::anyhow;
use crit_claude_code::state::{Pending, SessionState, Subject};
use crit_claude_code::status::LiveStatus;
use crit_llm::Env;
use crit_prompt::audit::Awaiting;
use crit_prompt::render::{self, BlockStyle};
use crit_prompt::{
    Decision, FailedBecause, Outcome, PromptOptions, PromptRequest, PromptReview, PromptSettings,
    Status, audit, gate, run,
};

use crate::backend;
use crate::cli::{CommonArgs, FormatChoice, PromptArgs};
use crate::exit::{CliError, Code};
use crate::progress::StderrProgress;
use crate::runner;
use crit_core::render::Format;

/// What was asked for on the command line, read.
struct Inputs {
    /// (text, file it came from)
    prompts: Vec<(String, Option<String>)>,
}

pub fn run(common: &CommonArgs, args: &PromptArgs) -> Result<Code, CliError> {
    runner::init_logging(common);
    let env = &common.env;
    let cwd = common.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let cwd = cwd
        .canonicalize()
        .map_err(|e| CliError::usage(anyhow!("--cwd {}: {e}", cwd.display())))?;
    let inputs = inputs(args, &cwd)?;
    let gate_mode = gate_mode(common, &inputs);
    // Run from Claude Code (`/prompt-review`): its status line follows the
    // review, and a `!!!` the hook handed on makes this its review.
    let session = env
        .non_empty("CLAUDE_CODE_SESSION_ID")
        .and_then(|id| SessionState::of(env, id));
    let now = crit_core::timestamp::unix_secs(SystemTime::now());
    let trigger = match &session {
        Some(s) if !gate_mode && s.take_triggered(now, TRIGGER_WITHIN_SECS) => "!!!",
        _ => "cli",
    };
    let failed_open = |root: &Path, why: String| {
        let open = FailOpen {
            common,
            args,
            inputs: &inputs,
            cwd: &cwd,
            trigger,
            env,
        };
        open.finish(root, &why)
    };
    // Prompt review fails open: settings that do not load are said, and the
    // user's prompt goes on (to stdout, where `| claude -p` reads it).
    let project = match backend::project(common, env) {
        Ok(p) => p,
        Err(e) if !gate_mode => return failed_open(&cwd, e.message()),
        Err(e) => return Err(e),
    };
    project.rules().release_warnings();
    let root = project.root().to_path_buf();
    let settings = match PromptSettings::of(&project) {
        Ok(s) => s,
        Err(e) if !gate_mode => return failed_open(&root, e.to_string()),
        Err(e) => return Err(CliError::usage(e)),
    };
    let quiet = common.quiet;
    for w in &settings.loaded.warnings {
        if !quiet {
            eprintln!("crit: {}", crate::output::printable(w));
        }
    }
    let requests = requests(&inputs, &root, &cwd, trigger);
    if !settings.enabled() {
        return kill_switch(common, &requests, gate_mode);
    }
    let opts = options(common, args, &settings);
    let log = !common.no_log && settings.logs();
    let stop = runner::Stop::new();
    if gate_mode {
        let settings = backend::settings(&project, crit_project::Kind::Prompt)?;
        let reviews = runner::block_on(&stop, |cancel| {
            let mut opts = opts.clone();
            opts.cancel = cancel;
            let requests = requests.clone();
            let jobs = args.jobs;
            async move { gate::review_many(&requests, &opts, jobs).await }
        })?;
        return finish_gate(common, &settings, reviews, log, env, &stop);
    }
    let Some(request) = requests.into_iter().next() else {
        return Err(CliError::usage(anyhow!("no prompt to review")));
    };
    let review = review_one(request, opts, session.as_ref(), &stop)?;
    // Stopped by a signal: nothing is chosen for anyone.
    if let Some(signal) = stop.signal() {
        return Ok(signal.code());
    }
    finish_one(common, args, review, log, env, session.as_ref())
}

/// Several prompts, a gate asked for, or a format for CI: every prompt is
/// reviewed and the findings are one result for the gate.
fn gate_mode(common: &CommonArgs, inputs: &Inputs) -> bool {
    inputs.prompts.len() > 1
        || common.fail_on.is_some()
        || common.exit_code
        || matches!(
            FormatChoice::output(common.format),
            Some(Format::Sarif | Format::Rdjson)
        )
}

fn requests(inputs: &Inputs, root: &Path, cwd: &Path, trigger: &str) -> Vec<PromptRequest> {
    inputs
        .prompts
        .iter()
        .map(|(text, source)| PromptRequest {
            prompt: text.clone(),
            root: root.to_path_buf(),
            cwd: cwd.to_path_buf(),
            trigger: trigger.into(),
            source: source.clone(),
        })
        .collect()
}

/// One prompt reviewed; run from a Claude Code session, its status line
/// follows the review.
fn review_one(
    request: PromptRequest,
    mut opts: PromptOptions,
    session: Option<&SessionState>,
    stop: &runner::Stop,
) -> Result<PromptReview, CliError> {
    let live = session
        .cloned()
        .map(|s| LiveStatus::begin(s, Subject::Prompt, opts.progress.clone()));
    if let Some(l) = &live {
        opts.progress = Some(l.clone() as Arc<dyn crit_review::panel::Progress>);
    }
    let review = runner::block_on(stop, |cancel| {
        let mut opts = opts.clone();
        opts.cancel = cancel;
        async move { run::review(&request, &opts).await }
    })?;
    if let Some(l) = &live {
        let failed = matches!(review.status, Status::FailedOpen)
            .then(|| crit_claude_code::prompt_hook::why(&review));
        let took_part = review
            .reviewers
            .iter()
            .filter(|r| r.state != crit_prompt::result::ReviewerState::NotRun)
            .count();
        l.finish(took_part, review.findings_count(), failed);
    }
    Ok(review)
}

/// How long after a `!!!` the review `/prompt-review` runs counts as its.
const TRIGGER_WITHIN_SECS: u64 = 600;

/// A review whose settings did not load: the original prompt proceeds.
struct FailOpen<'a> {
    common: &'a CommonArgs,
    args: &'a PromptArgs,
    inputs: &'a Inputs,
    cwd: &'a Path,
    trigger: &'a str,
    env: &'a Env,
}

impl FailOpen<'_> {
    fn finish(&self, root: &Path, why: &str) -> Result<Code, CliError> {
        let Some((text, source)) = self.inputs.prompts.first() else {
            return Ok(Code::Ok);
        };
        let req = PromptRequest {
            prompt: text.clone(),
            root: root.to_path_buf(),
            cwd: self.cwd.to_path_buf(),
            trigger: self.trigger.into(),
            source: source.clone(),
        };
        let review = run::failed(&req, FailedBecause::Settings, why);
        finish_one(
            self.common,
            self.args,
            review,
            !self.common.no_log,
            self.env,
            None,
        )
    }
}

/// The prompts: TEXT words joined (or stdin for `-`), then every `--file`.
fn inputs(args: &PromptArgs, cwd: &Path) -> Result<Inputs, CliError> {
    let mut prompts = Vec::new();
    if args.text.len() == 1 && args.text[0] == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| CliError::usage(anyhow!("reading the prompt from stdin: {e}")))?;
        prompts.push((s, None));
    } else if !args.text.is_empty() {
        prompts.push((args.text.join(" "), None));
    }
    if !args.files.is_empty() {
        let files = gate::expand(cwd, &args.files).map_err(|e| CliError::usage(anyhow!(e)))?;
        prompts.extend(files.into_iter().map(|f| (f.text, Some(f.path))));
    }
    if prompts.is_empty() {
        return Err(CliError::usage(anyhow!(
            "give a prompt to review: crit prompt \"optimize the settings page\", `-` for stdin, or --file FILE"
        )));
    }
    if let Some((_, source)) = prompts.iter().find(|(t, _)| t.trim().is_empty()) {
        return Err(CliError::usage(anyhow!(
            "{} is empty: there is nothing to review",
            source.as_deref().unwrap_or("the prompt")
        )));
    }
    Ok(Inputs { prompts })
}

/// The options the settings give (the backend, or why there is none: the
/// review then fails open), with the progress display `-v` asks for.
fn options(common: &CommonArgs, args: &PromptArgs, settings: &PromptSettings) -> PromptOptions {
    let mut opts = PromptOptions::from_settings(settings, !args.no_cache);
    if common.verbose > 0 && !common.quiet {
        opts.progress = Some(Arc::new(StderrProgress::new(&common.env)));
    }
    opts
}

/// `PROMPT_REVIEW_ENABLED=false`: nothing is reviewed, the prompt passes.
fn kill_switch(
    common: &CommonArgs,
    requests: &[PromptRequest],
    gate_mode: bool,
) -> Result<Code, CliError> {
    let why = "prompt review is off (PROMPT_REVIEW_ENABLED=false)";
    if !common.quiet {
        eprintln!("crit: {why}; the prompt passes unreviewed");
    }
    if gate_mode {
        return Ok(Code::Ok);
    }
    let review = match requests.first() {
        Some(r) => run::disabled(r, why),
        None => return Ok(Code::Ok),
    };
    let text = match output_format(common) {
        OutFormat::Json => pretty(&review)?,
        OutFormat::Markdown => render::markdown(&review),
        OutFormat::Prompt => with_newline(&review.original),
    };
    write_out(common, &text)?;
    Ok(Code::Ok)
}

enum OutFormat {
    /// The chosen prompt on stdout, the block on stderr.
    Prompt,
    Json,
    Markdown,
}

fn output_format(common: &CommonArgs) -> OutFormat {
    let output_json = common
        .output
        .as_deref()
        .is_some_and(|o| o.first().is_some_and(|m| m == "json" || m == "file"));
    if common.json || output_json || FormatChoice::output(common.format) == Some(Format::Json) {
        OutFormat::Json
    } else if FormatChoice::output(common.format) == Some(Format::Markdown) {
        OutFormat::Markdown
    } else {
        OutFormat::Prompt
    }
}

fn finish_one(
    common: &CommonArgs,
    args: &PromptArgs,
    mut review: PromptReview,
    log: bool,
    env: &Env,
    session: Option<&SessionState>,
) -> Result<Code, CliError> {
    let format = output_format(common);
    let color = crate::output::stderr_color(common);
    match format {
        OutFormat::Json | OutFormat::Markdown => {
            review.decide(args.yes.then_some(Decision::Approve));
            let text = match format {
                OutFormat::Json => pretty(&review)?,
                _ => render::markdown(&review),
            };
            write_out(common, &text)?;
        }
        OutFormat::Prompt => {
            if !common.quiet {
                let style = BlockStyle {
                    width: block_width(env),
                    color,
                };
                let mut err = std::io::stderr().lock();
                let _ = err.write_all(render::block(&review, &style).as_bytes());
                if !review.diff.is_empty() {
                    let _ = err.write_all(render::colored_diff(&review.diff, color).as_bytes());
                }
            }
            let decision = if !review.needs_decision() {
                None
            } else if args.yes {
                Some(Decision::Approve)
            } else if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
                Some(approve::ask(&review.refined, &common.env))
            } else {
                if !common.quiet {
                    eprintln!(
                        "crit: not at a terminal, so no one to ask: the original prompt proceeds (pass --yes to take the refined one)"
                    );
                }
                None
            };
            review.decide(decision);
            let chosen = review
                .chosen
                .clone()
                .unwrap_or_else(|| review.original.clone());
            write_out(common, &with_newline(&chosen))?;
        }
    }
    if log {
        append_audit(&review, env);
    }
    // Claude asks the user; their answer, in the next prompt, is recorded then.
    if let Some(s) = session
        && review.outcome == Outcome::Reviewed
    {
        let pending = Pending {
            review: Awaiting::of(&review),
            at: crit_core::timestamp::unix_secs(SystemTime::now()),
        };
        if let Err(e) = s.set_pending(&pending) {
            tracing::debug!("pending answer: {e}");
        }
    }
    Ok(Code::Ok)
}

fn finish_gate(
    common: &CommonArgs,
    settings: &crit_project::Settings,
    mut reviews: Vec<PromptReview>,
    log: bool,
    env: &Env,
    stop: &runner::Stop,
) -> Result<Code, CliError> {
    for r in &mut reviews {
        r.decide(None);
        if !common.quiet {
            let worst = r
                .severity_max()
                .map_or(String::new(), |s| format!(", worst {s}"));
            eprintln!(
                "{}: {} finding{}{worst}, {} change{} proposed{}",
                crate::output::printable_line(r.source.as_deref().unwrap_or("<prompt>")),
                r.findings.len(),
                if r.findings.len() == 1 { "" } else { "s" },
                r.changes.len(),
                if r.changes.len() == 1 { "" } else { "s" },
                r.warnings
                    .iter()
                    .map(|w| format!("; {w}"))
                    .collect::<String>()
            );
        }
        if log {
            append_audit(r, env);
        }
    }
    let result = gate::to_result(&reviews, settings.fail_on.value);
    runner::finish(common, result, stop, settings.gate)
}

fn append_audit(review: &PromptReview, env: &Env) {
    let Some(dir) = audit::dir(env) else {
        tracing::warn!("prompt review audit log: set XDG_STATE_HOME or HOME");
        return;
    };
    if let Err(e) = audit::append(&dir, review, SystemTime::now()) {
        tracing::warn!("prompt review audit log {}: {e}", dir.display());
    }
}

fn pretty(review: &PromptReview) -> Result<String, CliError> {
    // The prompt and the panel's words, safe to print.
    serde_json::to_string_pretty(review)
        .map(|s| crit_core::printable::json_document(s) + "\n")
        .map_err(|e| CliError::could_not_run(anyhow!("writing the review as JSON: {e}")))
}

fn with_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// To `--out PATH` (or the plugin's `--output file PATH`), else stdout.
fn write_out(common: &CommonArgs, text: &str) -> Result<(), CliError> {
    let dest = common
        .out
        .clone()
        .or_else(|| match common.output.as_deref() {
            Some([mode, path]) if mode == "file" => Some(PathBuf::from(path)),
            _ => None,
        });
    if let Some(path) = dest {
        return crate::output::write_file(&path, text).map_err(CliError::could_not_run);
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::could_not_run(anyhow!("writing to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// `COLUMNS` when set, else 72; between 40 and 100.
fn block_width(env: &Env) -> usize {
    env.get("COLUMNS")
        .and_then(|c| c.trim().parse::<usize>().ok())
        .unwrap_or(72)
        .clamp(40, 100)
}
