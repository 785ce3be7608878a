//! `crit init [--reldo] [--force]`: the starter files, never replacing one
//! that exists unless `--force` says so.

use std::path::Path;

use anyhow::anyhow;
use crit_review::starter::{self, Layout, StarterError, Written};

use crate::cli::{CommonArgs, InitArgs};
use crate::exit::{CliError, Code};

pub fn run(common: &CommonArgs, args: &InitArgs) -> Result<Code, CliError> {
    let root = common
        .cwd
        .clone()
        .unwrap_or_else(|| Path::new(".").to_path_buf());
    let layout = match args.reldo {
        true => Layout::Reldo,
        false => Layout::Crit,
    };
    let written = starter::write(&root, layout, args.force).map_err(|e| match e {
        StarterError::Exists(_) => CliError::usage(anyhow!("crit init: {e}")),
        StarterError::Fs {
            source: crit_os::write::FsError::Io { .. },
            ..
        } => CliError::could_not_run(anyhow!("writing the starter files: {e}")),
        // A symlink or a non-file where a starter file goes: the user's to fix.
        StarterError::Fs { .. } => CliError::usage(anyhow!("crit init: {e}")),
    })?;
    let show = |p: &Path| p.strip_prefix(&root).unwrap_or(p).display().to_string();
    let mut out = String::new();
    for w in &written {
        match w {
            Written::Created(p) => out.push_str(&format!("created  {}\n", show(p))),
            Written::Replaced(p) => out.push_str(&format!("replaced {}\n", show(p))),
        }
    }
    out.push_str(match layout {
        Layout::Crit => "\nNext: edit .crit/run.yaml and the prompts under .crit/, then\n  crit run \"Review the changes on this branch\"\n",
        Layout::Reldo => "\nNext: edit .claude/reldo.json and the prompts under .claude/reldo/, then\n  crit run \"Review the changes on this branch\" --exit-code\n",
    });
    if !common.quiet {
        print!("{out}");
    }
    Ok(Code::Ok)
}
