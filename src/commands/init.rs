//! `crit init`: the starter `.crit/` files, never overwriting what exists.

use std::path::Path;

use anyhow::anyhow;
use crit_review::starter::{self, Written};

use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};

pub fn run(common: &CommonArgs) -> Result<Code, CliError> {
    let root = common
        .cwd
        .clone()
        .unwrap_or_else(|| Path::new(".").to_path_buf());
    let written = starter::write(&root)
        .map_err(|e| CliError::could_not_run(anyhow!("writing the starter files: {e}")))?;
    let show = |p: &Path| p.strip_prefix(&root).unwrap_or(p).display().to_string();
    let mut out = String::new();
    for w in &written {
        match w {
            Written::Created(p) => out.push_str(&format!("created  {}\n", show(p))),
            Written::Kept(p) => out.push_str(&format!("kept     {} (already there)\n", show(p))),
        }
    }
    out.push_str("\nNext: edit .crit/run.yaml and the prompts under .crit/, then\n  crit run \"Review the changes on this branch\"\n");
    if !common.quiet {
        print!("{out}");
    }
    Ok(Code::Ok)
}
