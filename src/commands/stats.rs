//! `crit stats [--since 7d] [--until DATE] [--json]`: the history in the
//! audit logs, as a terminal table or JSON.

use std::time::SystemTime;

use anyhow::anyhow;
use crit_bench::stats::{self, Period, Sources, days};

use crate::cli::{CommonArgs, FormatChoice, StatsArgs};
use crate::exit::{CliError, Code};
use crit_core::render::Format;

pub fn run(common: &CommonArgs, args: &StatsArgs) -> Result<Code, CliError> {
    let until = match &args.until {
        Some(d) => days::parse_date(d.trim()).ok_or_else(|| {
            CliError::usage(anyhow!("--until {d}: expected a date such as 2026-02-24"))
        })?,
        None => days::of_secs(crit_core::timestamp::unix_secs(SystemTime::now())),
    };
    let period = Period::parse(&args.since, until).map_err(|e| CliError::usage(anyhow!(e)))?;
    let sources = Sources::standard(&common.env);
    if sources.audit.is_none() {
        return Err(CliError::usage(anyhow!(
            "cannot tell where the audit log is: set XDG_STATE_HOME or HOME"
        )));
    }
    let reading = stats::read(&sources, &period);
    let computed = stats::compute(&reading, &period);
    let json = common.json || FormatChoice::output(common.format) == Some(Format::Json);
    let text = if json {
        serde_json::to_string_pretty(&computed)
            .map(crit_core::printable::json_document)
            .map_err(|e| CliError::could_not_run(anyhow!("writing the stats as JSON: {e}")))?
            + "\n"
    } else {
        stats::terminal(&computed)
    };
    match &common.out {
        Some(path) => crit_core::files::write_atomic(path, text.as_bytes())
            .map_err(|e| CliError::could_not_run(anyhow!("writing {}: {e}", path.display())))?,
        None => print!("{text}"),
    }
    Ok(Code::Ok)
}
