//! Running a template review from the command line: the backend (or the
//! external reviewer command) the config chooses, the options the flags set,
//! progress on stderr, the result on stdout.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::anyhow;
use crit_core::ReviewResult;
use crit_project::config::mala::ReviewerType;
use crit_project::scope::{Reading, Scope};
use crit_project::suppress::Suppressions;
use crit_project::trust::{ProjectRules, ci};
use crit_project::{Kind, Project, Reviewer, Settings};
use crit_review::code::{CodeReviewRequest, CodeReviewer, CommandReviewer};
use crit_review::review::{HunkCache, ReviewOptions, ReviewRequest, run_template_or};
use crit_review::template::Template;

use super::code_flags::{CodeFlags, is_code};
use super::print_prompt::{self, Printer};
use crate::backend;
use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::output;
use crate::progress::StderrProgress;
use crate::runner;
use crit_core::render::compat::Compat;

pub fn run_review(
    mut common: CommonArgs,
    template: &Template,
    mut given: BTreeMap<String, String>,
    mut code: CodeFlags,
    checks: super::Checks,
    project: &Project,
    posting: super::Posting<'_>,
) -> Result<Code, CliError> {
    runner::init_logging(&common);
    // A template written for the review templates' tool: its `--output json`
    // (or `file PATH`) is that tool's JSON, as its users' scripts read it.
    if template.in_original_format()
        && common.compat.is_none()
        && common
            .output
            .as_ref()
            .is_some_and(|o| o.first().is_some_and(|m| m != "terminal"))
    {
        common.compat = Some(Compat::Squadron);
    }
    let rules = project.rules();
    rules.release_warnings();
    let kind = match is_code(template) {
        true => Kind::Code,
        false => Kind::Template,
    };
    let settings = backend::settings(project, kind)?;
    let root = project.root().to_path_buf();
    if code.post.since_last_review && !no_scope(&given, &code) {
        return Err(CliError::usage(anyhow!(
            "--since-last-review chooses what to review itself (the commits since the last review); leave out --diff, --commit, --uncommitted and --files"
        )));
    }
    if code.all && !no_scope(&given, &code) {
        return Err(CliError::usage(anyhow!(
            "--all reviews the whole project; it does not go with --diff or --files"
        )));
    }
    if is_code(template) && no_scope(&given, &code) && !code.all {
        match rules.ci() {
            Some(_) => ci_scope(rules, &root, project.env(), &mut given)?,
            None => branch_scope(&root, project.env(), &mut given, &mut code, common.quiet)?,
        }
    }
    let disputed = match (is_code(template), posting.poster) {
        (true, Some(poster)) => {
            super::answers::catch_up(&common, posting.env, poster, &code.post, &settings.respond)
        }
        _ => Vec::new(),
    };
    let since = match (code.post.since_last_review, posting.poster) {
        (true, Some(poster)) => Some(super::since::narrow(
            poster,
            &root,
            project.env(),
            &mut given,
            common.quiet,
        )?),
        _ => None,
    };
    let record = |mut result: ReviewResult| {
        if let Some(s) = &since {
            s.record(&mut result);
        }
        result
    };
    let scope = match is_code(template) {
        true => Some(
            Scope::from_options(
                given.get("diff").map(String::as_str),
                &code.commits,
                code.uncommitted,
                given.get("files").map(std::slice::from_ref).unwrap_or(&[]),
            )
            .map_err(CliError::usage)?,
        ),
        false => None,
    };
    if let Some(scope) = scope.as_ref().filter(|_| code.describe) {
        return super::describe::run(&common, &settings, scope, project, posting);
    }
    // A bad output flag is refused before anything runs.
    let shown = output::OutputPlan::from_common(&common)?;
    // The terminal report on stdout says why the review could not run; said
    // on stderr too, it would be said twice.
    let report_says_it = shown.is_terminal() && shown.dest.is_none();
    let command = match (&settings.reviewer.value, is_code(template)) {
        (Reviewer::Command(argv), true) => Some(argv.clone()),
        _ => None,
    };
    // mala's instrumentation, worded as mala logs it, for mala's users only.
    let mala = common.compat == Some(Compat::Mala);
    if let Some(s) = scope.as_ref().filter(|_| mala && !common.quiet) {
        let kind = match command.is_some() {
            true => ReviewerType::Cerberus,
            false => ReviewerType::AgentSdk,
        }
        .log_name();
        let what = given
            .get("diff")
            .cloned()
            .unwrap_or_else(|| match &code.commits[..] {
                [] => s.describe(),
                shas => shas.join(", "),
            });
        eprintln!("Initializing code reviewer: {kind}");
        eprintln!(
            "Starting review for {} with {kind}",
            output::printable(&what)
        );
    }
    if command.is_some() && checks.print_prompt {
        return Err(CliError::usage(anyhow!(
            "--print-prompt shows the requests of crit's own reviewers; this project reviews with an external command, which builds its own"
        )));
    }
    if let Some(argv) = command {
        let (result, stop) = run_command(&settings, argv, &given, &code, &root, rules)?;
        return conclude(
            &common,
            settings.gate,
            record(result),
            &stop,
            &root,
            fix_options(&common, &code),
            posting,
        );
    }
    if checks.interactive && posting.poster.is_some() {
        return Err(CliError::usage(anyhow!(
            "--post does not go with --interactive: post the saved result with `crit report RESULT.json --post …`"
        )));
    }
    let mut opts = ReviewOptions::from_settings(project, &settings);
    opts.filter = code.filter;
    opts.max_findings = code.max_findings;
    opts.disputed = disputed;
    opts.shard = code.shard;
    if let Some(n) = code.max_chunks {
        opts.parts.max_parts = n.max(1);
    }
    opts.allow_partial = code.allow_partial;
    if !code.no_cache {
        opts.hunk_cache = HunkCache::at_default(project.env());
    }
    opts.verify = checks.verify;
    opts.consensus = checks.consensus;
    opts.log = !common.no_log;
    if let Some(poster) = posting.poster {
        poster.teach(&opts.redactor);
    }
    if !common.quiet {
        opts.progress = Some(Arc::new(StderrProgress::new(&common.env)));
    }
    opts.spending = Some(Arc::new(super::spend::AskToSpend::new(
        settings.max_cost_usd.clone(),
        checks.yes,
        common.quiet,
        &common.env,
    )));
    // The change is read (git) while the rest is set up.
    opts.reading = scope
        .as_ref()
        .map(|s| Reading::start(&root, s, &opts.scope_options()));
    // No backend is not the end: an empty change passes without one, and
    // anything else is an ERROR result that still reaches stdout.
    let built = settings.build_backend();
    // --print-prompt sends nothing: it needs no backend.
    if let (Err(why), false, false) = (&built, checks.print_prompt, report_says_it) {
        eprintln!("crit: {}", output::printable(&why.to_string()));
    }
    let req = ReviewRequest {
        template: template.clone(),
        inputs: given,
        scope,
        change: None,
        context_file: code.context.clone(),
        root,
        cwd: project.cwd().to_path_buf(),
    };
    if checks.print_prompt {
        return print_requests(&common, built.as_ref().ok(), &req, opts);
    }
    if checks.interactive {
        let built = built.map_err(|why| CliError::could_not_run(anyhow!("{why}")))?;
        return super::interactive::run(&common, &built, &req, opts, settings.gate);
    }
    let stop = runner::Stop::new();
    let result = runner::block_on(&stop, |cancel| {
        opts.cancel = cancel;
        let (built, req, opts) = (built.as_ref(), &req, &opts);
        async move { run_template_or(built, req, opts).await }
    })?
    .map_err(CliError::usage)?;
    let result = match mala && is_code(template) {
        true => as_agent_sdk(result),
        false => result,
    };
    let result = record(result);
    let code = conclude(
        &common,
        settings.gate,
        result,
        &stop,
        &req.root,
        fix_options(&common, &code),
        posting,
    )?;
    // No usable backend is the user's to fix (exit 2), though the ERROR
    // result still went to stdout for scripts that read it.
    Ok(match code {
        Code::CouldNotRun if built.is_err() => Code::Usage,
        code => code,
    })
}

/// `--print-prompt`: the review run against a model that prints each
/// request instead of sending it.
fn print_requests(
    common: &CommonArgs,
    built: Option<&crit_llm::Backend>,
    req: &ReviewRequest,
    mut opts: ReviewOptions,
) -> Result<Code, CliError> {
    let printer = Printer::for_backend(built);
    let backend = printer.backend();
    opts.log = false;
    opts.progress = None;
    opts.spending = None;
    let stop = runner::Stop::new();
    let result = runner::block_on(&stop, |cancel| {
        opts.cancel = cancel;
        let (backend, opts) = (&backend, &opts);
        async move { run_template_or(Ok(backend), req, opts).await }
    })?
    .map_err(CliError::usage)?;
    let reqs = printer.requests();
    if reqs.is_empty() && !common.quiet {
        eprintln!(
            "crit: {}",
            output::printable(&print_prompt::why_none(&result))
        );
    }
    match common.json {
        true => println!("{}", output::json_printable(&print_prompt::to_json(&reqs))),
        false => print!("{}", output::printable(&print_prompt::to_text(&reqs))),
    }
    Ok(Code::Ok)
}

/// The agent reviewer's findings as mala's contract names their reviewer:
/// `agent-sdk`, whichever of crit's reviewers reported them.
fn as_agent_sdk(mut result: ReviewResult) -> ReviewResult {
    let name = ReviewerType::AgentSdk.log_name();
    for f in &mut result.findings {
        f.reviewer = name.to_string();
    }
    result
}

fn no_scope(given: &BTreeMap<String, String>, code: &CodeFlags) -> bool {
    !given.contains_key("diff")
        && !given.contains_key("files")
        && code.commits.is_empty()
        && !code.uncommitted
}

/// A code review with no scope in a pull/merge request job reviews the
/// request's change: `diff` becomes `BASE...HEAD`. A base the clone lacks is
/// an error saying how to fetch it.
pub(crate) fn ci_scope(
    rules: &ProjectRules,
    root: &Path,
    env: &crit_os::Env,
    given: &mut BTreeMap<String, String>,
) -> Result<(), CliError> {
    let Some(c) = rules.ci() else {
        return Ok(());
    };
    match ci::review_base(root, c, env).map_err(|why| CliError::usage(anyhow!("{why}")))? {
        Some(base) => {
            tracing::info!(
                "{}: reviewing the change against {} ({}, from {})",
                c.ci.name(),
                base.name,
                base.revision.short(),
                base.from
            );
            given.insert("diff".into(), format!("{}...HEAD", base.revision.sha));
        }
        None => tracing::info!(
            "{}: no pull or merge request base and no upstream ahead of HEAD; surveying the project",
            c.ci.name()
        ),
    }
    Ok(())
}

/// A code review with no scope outside CI reviews the branch: against its
/// upstream, else the default branch, else the uncommitted changes; it says
/// which on stderr.
fn branch_scope(
    root: &Path,
    env: &crit_os::Env,
    given: &mut BTreeMap<String, String>,
    code: &mut CodeFlags,
    quiet: bool,
) -> Result<(), CliError> {
    let chosen = crit_project::scope::branch_scope(root, env).map_err(CliError::usage)?;
    if !quiet && chosen.scope != Scope::Survey {
        eprintln!(
            "crit: no scope given: {} (--diff, --commit, --uncommitted or --files choose another)",
            output::printable(&chosen.why)
        );
    }
    match chosen.scope {
        Scope::Diff(rev) | Scope::Range(rev) => {
            given.insert("diff".into(), rev);
        }
        Scope::Uncommitted => code.uncommitted = true,
        // No repository, so no change: reviewing every file would spend on
        // what nobody asked for, so the user says which.
        Scope::Survey => {
            let why = chosen.why.split(", so there is no change").next();
            return Err(CliError::usage(anyhow!(
                "{}, so there is no change to review: name the files with --files GLOB, or review the whole project with --all",
                output::printable(why.unwrap_or_default())
            )));
        }
        _ => {}
    }
    Ok(())
}

/// The review's result written and posted, and with `--fix` its
/// suggestions applied (unless the review was stopped).
fn conclude(
    common: &CommonArgs,
    gate: Option<crit_core::FailOn>,
    result: ReviewResult,
    stop: &runner::Stop,
    root: &Path,
    fix: Option<super::fix::FixOptions>,
    posting: super::Posting<'_>,
) -> Result<Code, CliError> {
    let fixing = fix
        .filter(|_| stop.signal().is_none())
        .map(|f| (f, result.clone()));
    let code = runner::finish_and_post(common, result, stop, posting.poster, gate)?;
    if let Some((opts, result)) = fixing {
        super::fix::apply(&result, root, posting.env, opts);
    }
    Ok(code)
}

fn fix_options(common: &CommonArgs, code: &CodeFlags) -> Option<super::fix::FixOptions> {
    code.fix.then_some(super::fix::FixOptions {
        dirty: code.fix_dirty,
        quiet: common.quiet,
    })
}

/// `reviewer: command` in the config (or mala.yaml's `reviewer_type:
/// cerberus`): an external reviewer program. Its result, gated, and how it
/// was stopped.
fn run_command(
    settings: &Settings,
    argv: Vec<String>,
    given: &BTreeMap<String, String>,
    code: &CodeFlags,
    root: &Path,
    rules: &ProjectRules,
) -> Result<(ReviewResult, runner::Stop), CliError> {
    if code.uncommitted || given.contains_key("files") {
        return Err(CliError::usage(anyhow!(
            "the command reviewer takes --diff RANGE or --commit SHA; --uncommitted and --files need `reviewer: agent`"
        )));
    }
    if code.shard.is_some() {
        return Err(CliError::usage(anyhow!(
            "the command reviewer reviews the whole range; --shard needs `reviewer: agent`"
        )));
    }
    let suppressions = Suppressions::load_with(rules).map_err(CliError::usage)?;
    let req = CodeReviewRequest {
        diff_range: given.get("diff").cloned(),
        commit_shas: code.commits.clone(),
        context_file: code.context.clone(),
        timeout: settings
            .timeout
            .as_ref()
            .map(|t| std::time::Duration::from_secs(t.value)),
        session_id: None,
    };
    let fail_on = settings.fail_on.value;
    let stop = runner::Stop::new();
    let result = runner::block_on(&stop, |cancel| {
        let reviewer = CommandReviewer::new(argv, root.to_path_buf())
            .with_noise_controls(code.filter, code.max_findings, fail_on)
            .with_suppressions(suppressions)
            .with_cancel(cancel);
        async move { reviewer.review(&req).await }
    })?;
    Ok((result, stop))
}
