//! `crit report FILE`: re-render a saved ReviewResult.

use std::path::Path;

use anyhow::anyhow;
use crit_core::ReviewResult;
use crit_core::files::{InputLimits, read_capped, read_capped_from};
use crit_core::result::RESULT_SCHEMA_VERSION;

use crate::cli::{CommonArgs, PostArgs, ReportArgs};
use crate::exit::{CliError, Code};
use crate::output::OutputPlan;
use crate::post::Poster;

pub fn run(common: &CommonArgs, args: &ReportArgs, post: &PostArgs) -> Result<Code, CliError> {
    let plan = OutputPlan::from_common(common)?;
    crate::runner::init_logging(common);
    let poster = Poster::from_args(post, &common.env)?;
    let (name, text) = read_input(&args.file)?;
    let mut result = parse(&name, &text)?;
    result.fill_missing_ids();
    let gate = gate_saved(common, &mut result);
    let code = crate::runner::gate_code(gate, &result);
    plan.emit(&result)?;
    // Suggestions are not checked against files here: the posting job of
    // the fork-safe pattern has no checkout of the change (the poster checks
    // each against the pull request's diff).
    if let Some(poster) = &poster {
        poster.post(&result, common.quiet, &crate::runner::Stop::new())?;
    }
    Ok(code)
}

/// The gate over a saved result, decided once here: `--fail-on` decides at
/// its level; `--exit-code` alone adds the project's level (its config's
/// `fail_on`, as `crit config` shows it) to what the review that saved it
/// decided, and never passes a result that review failed. Returns the gate
/// asked for, if any.
pub(super) fn gate_saved(
    common: &CommonArgs,
    result: &mut ReviewResult,
) -> Option<crit_core::FailOn> {
    let level = match (common.fail_on, common.exit_code) {
        (Some(f), _) => f,
        (None, true) => {
            let env = common.env.clone();
            crate::backend::project(common, &env)
                .and_then(|p| crate::backend::settings(&p, crit_project::Kind::Code))
                .map_or_else(|_| crit_core::FailOn::default(), |s| s.fail_on.value)
        }
        (None, false) => return None,
    };
    result.regate_saved(level, common.fail_on.is_some());
    Some(level)
}

/// The file (or stdin), at most the input limit of it: `crit report /dev/zero`
/// stops there with an error naming the file and the limit.
pub(super) fn read_input(file: &Path) -> Result<(String, String), CliError> {
    let limits = InputLimits::default();
    let (name, bytes) = if file.as_os_str() == "-" {
        let name = "<stdin>".to_string();
        let bytes = read_capped_from(std::io::stdin().lock(), Path::new(&name), limits);
        (name, bytes)
    } else {
        (file.display().to_string(), read_capped(file, limits))
    };
    let bytes = bytes.map_err(|e| CliError::usage(anyhow!("{e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        CliError::usage(anyhow!(
            "{name}: not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok((name, text))
}

/// Parse a saved result, or say in one line what is wrong and where.
pub(super) fn parse(name: &str, text: &str) -> Result<ReviewResult, CliError> {
    const EXPECTED: &str =
        "expected a ReviewResult JSON document as written by `crit … --format json`";
    if text.trim().is_empty() {
        return Err(CliError::usage(anyhow!("{name}: empty file; {EXPECTED}")));
    }
    let start = text.len() - text.trim_start().len();
    if !text[start..].starts_with('{') {
        let line = text[..start].matches('\n').count() + 1;
        let column = start - text[..start].rfind('\n').map_or(0, |i| i + 1) + 1;
        return Err(CliError::usage(anyhow!(
            "{name}:{line}:{column}: not a JSON object; {EXPECTED}"
        )));
    }
    let result: ReviewResult = serde_json::from_str(text).map_err(|e| {
        // serde_json appends " at line L column C"; the position is already in front.
        let msg = e.to_string();
        let msg = msg
            .rsplit_once(" at line ")
            .map_or(msg.as_str(), |(m, _)| m);
        CliError::usage(anyhow!(
            "{name}:{}:{}: {msg}; {EXPECTED}",
            e.line(),
            e.column()
        ))
    })?;
    if result.schema_version > RESULT_SCHEMA_VERSION {
        return Err(CliError::usage(anyhow!(
            "{name}: schema_version {} was written by a newer crit (this one reads up to {RESULT_SCHEMA_VERSION}); upgrade crit",
            result.schema_version
        )));
    }
    Ok(result)
}
