//! `crit run`: the orchestrator (seed 001) through the library's `Crit`.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::anyhow;
use crit_llm::Env;
use crit_review::orchestrate::{Crit, RunConfig};

use crate::backend;
use crate::cli::{CommonArgs, RunArgs};
use crate::exit::{CliError, Code};
use crate::progress::StderrProgress;
use crate::runner;

pub fn run(common: &CommonArgs, args: &RunArgs) -> Result<Code, CliError> {
    runner::init_logging(common);
    let prompt = prompt_of(args)?;
    let cwd = common.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
    let cwd = cwd
        .canonicalize()
        .map_err(|e| CliError::usage(anyhow!("--cwd {}: {e}", cwd.display())))?;
    let env = Env::from_process();
    let rules = backend::rules(common, &env)?;
    let lookup = |k: &str| env.get(k).map(str::to_string);
    let path = match &args.config {
        Some(p) => Some(p.clone()),
        None => RunConfig::find_with(&rules)
            .map_err(CliError::usage)?
            .map(|rel| rules.root().join(rel)),
    };
    let mut config = match &path {
        Some(p) => RunConfig::load_with(p, &cwd, &lookup, &rules).map_err(CliError::usage)?,
        None => RunConfig::builtin(&cwd),
    };
    if let Some(t) = common.timeout {
        config.timeout = std::time::Duration::from_secs(t);
    }
    if let Some(n) = common.max_turns {
        config.max_turns = Some(n);
    }
    if let Some(m) = &common.model {
        config.model = Some(m.clone());
    }
    let selection = backend::select_with(common, &env, &backend::load_config(&env, &rules)?)?;
    let built = selection
        .build()
        .map_err(|e| CliError::could_not_run(anyhow!("{e}")))?;
    let mut crit = Crit::new(config)
        .with_backend(built, selection.request_model())
        .with_max_budget_usd(common.max_budget_usd)
        .verbose(common.verbose > 0)
        .logging(!common.no_log);
    if !common.quiet {
        crit = crit.with_progress(Arc::new(StderrProgress::new()));
    }
    let stop = runner::Stop::new();
    let result = runner::block_on(&stop, |cancel| {
        let crit = crit.with_cancel(cancel);
        async move { crit.review(&prompt).await }
    })?
    .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    runner::finish(common, result, &stop)
}

/// The positional PROMPT or `--prompt`; `-` reads stdin.
fn prompt_of(args: &RunArgs) -> Result<String, CliError> {
    let given = args
        .text
        .clone()
        .or_else(|| args.prompt.clone())
        .unwrap_or_default();
    let text = if given == "-" {
        let bytes = crit_core::files::read_capped_from(
            std::io::stdin().lock(),
            std::path::Path::new("<stdin>"),
            Default::default(),
        )
        .map_err(|e| CliError::usage(anyhow!("reading the prompt: {e}")))?;
        String::from_utf8(bytes)
            .map_err(|_| CliError::usage(anyhow!("the prompt on stdin is not UTF-8 text")))?
    } else {
        given
    };
    if text.trim().is_empty() {
        return Err(CliError::usage(anyhow!(
            "the prompt is empty: say what to review, e.g. crit run \"Review src/auth.rs\""
        )));
    }
    Ok(text)
}
