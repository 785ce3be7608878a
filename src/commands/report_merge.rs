//! `crit report merge A.json B.json …`: fold results (the shards of one
//! change, or separate reviews of one pull request) into one, re-render it,
//! and apply the gate once. The fold itself is `crit_core::merge`.

use anyhow::anyhow;
use crit_core::merge::{self, Part};

use super::report::{parse, read_input};
use crate::cli::{CommonArgs, MergeArgs};
use crate::exit::{CliError, Code};
use crate::output::OutputPlan;

pub fn run(common: &CommonArgs, args: &MergeArgs) -> Result<Code, CliError> {
    let plan = OutputPlan::from_common(common)?;
    let mut parts = Vec::with_capacity(args.files.len());
    for file in &args.files {
        if file.as_os_str() == "-" {
            return Err(CliError::usage(anyhow!(
                "crit report merge reads files; save each result with --out FILE first"
            )));
        }
        let (name, text) = read_input(file)?;
        let mut result = parse(&name, &text)?;
        result.fill_missing_ids();
        parts.push(Part { name, result });
    }
    let mut merged = merge::merge(parts).map_err(CliError::usage)?;
    let gate = super::report::gate_saved(common, &mut merged);
    let code = crate::runner::gate_code(gate, &merged);
    plan.emit(&merged)?;
    Ok(code)
}
