//! Running a template review from the command line: the backend (or the
//! external reviewer command) the config chooses, the options the flags set,
//! progress on stderr, the result on stdout.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::anyhow;
use crit_llm::Env;
use crit_review::code::{CodeReviewRequest, CodeReviewer, CommandReviewer};
use crit_review::config::Config;
use crit_review::review::{HunkCache, ReviewOptions, ReviewRequest, run_template};
use crit_review::scope::Scope;
use crit_review::suppress::Suppressions;
use crit_review::template::{Limits, Template};
use crit_review::trust::{ProjectRules, ci};

use super::code_flags::{CodeFlags, is_code};
use crate::backend;
use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::output;
use crate::progress::StderrProgress;
use crate::runner;

pub fn run_review(
    common: CommonArgs,
    template: &Template,
    mut given: BTreeMap<String, String>,
    code: CodeFlags,
    checks: super::Checks,
    cwd: &Path,
    rules: Arc<ProjectRules>,
) -> Result<Code, CliError> {
    runner::init_logging(&common);
    rules.release_warnings();
    let env = Env::from_process();
    let config = backend::load_config(&env, &rules)?;
    let cwd = cwd
        .canonicalize()
        .map_err(|e| CliError::usage(anyhow!("--cwd {}: {e}", cwd.display())))?;
    let root = crit_review::paths::project_root(&cwd);
    if is_code(template) && no_scope(&given, &code) {
        ci_scope(&rules, &root, &mut given)?;
    }
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
    let uses_command = config
        .reviewer
        .as_ref()
        .is_some_and(|r| r.value == "command");
    if is_code(template) && uses_command {
        return run_command(&common, &config, &given, &code, &root, &rules);
    }
    if let Some(s) = &scope {
        // Seed 003's instrumentation, as the library's AgentReviewer logs it.
        tracing::info!("Initializing code reviewer: agent");
        tracing::info!("Starting review for {} with agent", s.describe());
    }
    let selection = backend::select_with(&common, &env, &config)?;
    let built = selection
        .build()
        .map_err(|e| CliError::could_not_run(anyhow!("{e}")))?;
    let mut opts = ReviewOptions::new(selection.request_model());
    opts.fail_on = output::effective_fail_on(&common, &config)?;
    opts.model_override = common.model.clone();
    opts.limits = limits(&common, &config);
    opts.filter = code.filter;
    opts.max_findings = code.max_findings;
    opts.shard = code.shard;
    if let Some(n) = code.max_chunks {
        opts.parts.max_parts = n.max(1);
    }
    opts.allow_partial = code.allow_partial;
    if !code.no_cache {
        opts.hunk_cache = HunkCache::at_default(&|k| std::env::var(k).ok());
    }
    opts.verify = checks.verify;
    opts.consensus = checks.consensus;
    opts.log = !common.no_log;
    opts.rules = Some(rules);
    opts.config_snapshot = serde_json::to_value(selection.rows()).unwrap_or_default();
    if !common.quiet {
        opts.progress = Some(Arc::new(StderrProgress::new()));
    }
    let req = ReviewRequest {
        template: template.clone(),
        inputs: given,
        scope,
        context_file: code.context.clone(),
        root,
        cwd,
    };
    if checks.interactive {
        return super::interactive::run(&common, &built, &req, opts);
    }
    let stop = runner::Stop::new();
    let result = runner::block_on(&stop, |cancel| {
        opts.cancel = cancel;
        let (built, req, opts) = (&built, &req, &opts);
        async move { run_template(built, req, opts).await }
    })?
    .map_err(CliError::usage)?;
    runner::finish(&common, result, &stop)
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
fn ci_scope(
    rules: &ProjectRules,
    root: &Path,
    given: &mut BTreeMap<String, String>,
) -> Result<(), CliError> {
    let Some(c) = rules.ci() else {
        return Ok(());
    };
    match ci::review_base(root, c).map_err(|why| CliError::usage(anyhow!("{why}")))? {
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

/// `reviewer: command` in the config: an external reviewer program.
fn run_command(
    common: &CommonArgs,
    config: &Config,
    given: &BTreeMap<String, String>,
    code: &CodeFlags,
    root: &Path,
    rules: &ProjectRules,
) -> Result<Code, CliError> {
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
    let argv = config
        .command
        .as_ref()
        .map(|c| c.value.clone())
        .unwrap_or_default();
    let req = CodeReviewRequest {
        diff_range: given.get("diff").cloned(),
        commit_shas: code.commits.clone(),
        context_file: code.context.clone(),
        timeout: limits(common, config)
            .timeout_secs
            .map(std::time::Duration::from_secs),
        session_id: None,
    };
    let fail_on = output::effective_fail_on(common, config)?;
    let stop = runner::Stop::new();
    let mut result = runner::block_on(&stop, |cancel| {
        let reviewer = CommandReviewer::new(argv, root.to_path_buf())
            .with_noise_controls(code.filter, code.max_findings, fail_on)
            .with_suppressions(suppressions)
            .with_cancel(cancel);
        async move { reviewer.review(&req).await }
    })?;
    result.apply_gate(fail_on);
    runner::finish(common, result, &stop)
}

/// Flags over the config files; the template's own limits apply under these.
fn limits(common: &CommonArgs, config: &Config) -> Limits {
    Limits {
        max_turns: common
            .max_turns
            .or(config.max_turns.as_ref().map(|s| s.value)),
        timeout_secs: common.timeout.or(config.timeout.as_ref().map(|s| s.value)),
        max_budget_usd: common
            .max_budget_usd
            .or(config.max_budget_usd.as_ref().map(|s| s.value)),
        max_tokens: None,
    }
}
