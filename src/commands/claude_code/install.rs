//! `crit install claude-code` and `crit uninstall claude-code`: the flags
//! to `crit_claude_code::install`, its report to stdout and stderr.

use anyhow::anyhow;
use crit_claude_code::install::{self, InstallOptions, Report};
use crit_llm::Env;

use crate::cli::{CommonArgs, InstallArgs, SettingsScope, UninstallArgs};
use crate::exit::{CliError, Code};

fn options(
    common: &CommonArgs,
    scope: &SettingsScope,
    subagent_stop: bool,
) -> Result<InstallOptions, CliError> {
    let env = Env::from_process();
    let (dir, confine_to) = install::claude_dir(scope.user, common.cwd.as_deref(), &env)
        .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    Ok(InstallOptions {
        dir,
        confine_to,
        dry_run: scope.dry_run,
        subagent_stop,
        env,
    })
}

fn show(common: &CommonArgs, report: &Report, dry_run: bool) {
    if !common.quiet || dry_run {
        for line in &report.stdout {
            println!("{line}");
        }
    }
    for line in &report.stderr {
        eprintln!("{line}");
    }
}

fn failed(e: install::InstallError) -> CliError {
    if let install::InstallError::Fs(crit_os::write::FsError::Symlink { link, .. }) = &e {
        // A link inside a project may be the checkout's, pointing anywhere.
        return CliError::usage(anyhow!(
            "{e}. If {} is yours, replace the link with the file or directory itself and run this again",
            link.display()
        ));
    }
    match e {
        install::InstallError::Io { .. }
        | install::InstallError::Fs(crit_os::write::FsError::Io { .. }) => {
            CliError::could_not_run(anyhow!("{e}"))
        }
        e => CliError::usage(anyhow!("{e}")),
    }
}

pub fn install(common: &CommonArgs, args: &InstallArgs) -> Result<Code, CliError> {
    let opts = options(common, &args.scope, args.subagent_stop)?;
    let report = install::install(&opts).map_err(failed)?;
    show(common, &report, opts.dry_run);
    Ok(Code::Ok)
}

pub fn uninstall(common: &CommonArgs, args: &UninstallArgs) -> Result<Code, CliError> {
    let opts = options(common, &args.scope, false)?;
    let report = install::uninstall(&opts).map_err(failed)?;
    show(common, &report, opts.dry_run);
    Ok(Code::Ok)
}
