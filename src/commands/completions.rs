//! `crit completions SHELL` and `crit man [--dir DIR]`, from the one command
//! definition in `cli.rs`. A template's own inputs (`crit review NAME --INPUT`)
//! are read from the template at run time, so they are not in these.

use std::io::Write;
use std::path::Path;

use anyhow::anyhow;
use clap_complete::Shell;

use crate::exit::{CliError, Code};

pub fn completions(shell: Shell) -> Result<Code, CliError> {
    let mut cmd = crate::cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "crit", &mut out);
    write_stdout(&out)
}

pub fn man(dir: Option<&Path>) -> Result<Code, CliError> {
    let cmd = crate::cli::command();
    match dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .and_then(|()| clap_mangen::generate_to(cmd, dir))
                .map_err(|e| CliError::could_not_run(anyhow!("{}: {e}", dir.display())))?;
            Ok(Code::Ok)
        }
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .map_err(|e| CliError::could_not_run(anyhow!("rendering the man page: {e}")))?;
            write_stdout(&out)
        }
    }
}

fn write_stdout(bytes: &[u8]) -> Result<Code, CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::could_not_run(anyhow!("writing to stdout: {e}")))
        }
        _ => Ok(Code::Ok),
    }
}
