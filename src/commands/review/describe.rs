//! `crit review code --describe`: the change's pull-request description
//! (a title, a summary, a walkthrough per file, the risks) on stdout, as
//! markdown or with `--json` as JSON; with `--post`, written into the section
//! of the pull or merge request's description that crit owns.

use std::time::Duration;

use anyhow::anyhow;
use crit_agent::RunLimits;
use crit_core::redact::Redactor;
use crit_project::scope::{self, Scope, ScopeOptions};
use crit_project::{Project, Settings};
use crit_review::describe::{DescribeRequest, describe};

use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::output::printable;
use crate::runner;

pub fn run(
    common: &CommonArgs,
    settings: &Settings,
    scope: &Scope,
    project: &Project,
    posting: super::Posting<'_>,
) -> Result<Code, CliError> {
    let root = project.root().to_path_buf();
    let change = scope::compute(
        &root,
        scope,
        &ScopeOptions {
            env: project.env().clone(),
            ..ScopeOptions::default()
        },
    )
    .map_err(CliError::usage)?;
    if change.is_empty() {
        if !common.quiet {
            eprintln!(
                "crit: {}: the change is empty, nothing to describe",
                printable(&change.description)
            );
        }
        return Ok(Code::Ok);
    }
    let backend = settings
        .build_backend()
        .map_err(|e| CliError::could_not_run(anyhow!("{e}")))?;
    let redactor = Redactor::process().clone();
    if let Some(poster) = posting.poster {
        poster.teach(&redactor);
    }
    if !common.quiet {
        eprintln!("crit: describing {}", printable(&change.description));
    }
    let limits = RunLimits {
        timeout: settings
            .timeout
            .as_ref()
            .map(|s| Duration::from_secs(s.value)),
        max_budget_usd: settings.max_budget_usd.as_ref().map(|s| s.value),
        ..RunLimits::default()
    };
    let req = DescribeRequest {
        root,
        change,
        model: common
            .model
            .clone()
            .unwrap_or_else(|| settings.request_model()),
        limits,
        cancel: Default::default(),
        redactor,
    };
    let stop = runner::Stop::new();
    let described = runner::block_on(&stop, |cancel| async move {
        describe(&backend, DescribeRequest { cancel, ..req }).await
    })?
    .map_err(|e| CliError::could_not_run(anyhow!("{e}")))?;
    if let Some(signal) = stop.signal() {
        return Ok(signal.code());
    }
    let text = described.description.markdown();
    if common.json {
        let json = serde_json::to_string_pretty(&described.description)
            .map_err(|e| CliError::could_not_run(anyhow!("{e}")))?;
        println!("{}", printable(&json));
    } else {
        print!("{}", printable(&text));
    }
    if !common.quiet {
        let run = &described.run;
        let cost = run
            .cost_usd
            .map(|c| format!(", ${c:.4}"))
            .unwrap_or_default();
        eprintln!(
            "crit: described with {} ({} tokens{cost})",
            printable(run.model.as_deref().unwrap_or("the configured model")),
            run.usage.total()
        );
    }
    if let Some(poster) = posting.poster {
        poster.describe(&text, common.quiet, &stop)?;
    }
    Ok(Code::Ok)
}
