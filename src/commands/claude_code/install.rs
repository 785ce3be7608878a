//! `crit install claude-code` and `crit uninstall claude-code`: the flags
//! to `crit_claude_code::install`, its report to stdout and stderr.

use anyhow::anyhow;
use crit_claude_code::agent::Agent;
use crit_claude_code::install::{self, InstallOptions, Piece, Pieces, Report, mcp, other};

use crate::cli::{
    CommonArgs, InstallAgent, InstallArgs, InstallPiece, SettingsScope, UninstallArgs,
};
use crate::exit::{CliError, Code};

fn options(
    common: &CommonArgs,
    scope: &SettingsScope,
    subagent_stop: bool,
    pieces: Pieces,
) -> Result<InstallOptions, CliError> {
    let env = common.env.clone();
    let (dir, confine_to) = install::claude_dir(scope.user, common.cwd.as_deref(), &env)
        .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    Ok(InstallOptions {
        dir,
        confine_to,
        dry_run: scope.dry_run,
        subagent_stop,
        pieces,
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

/// The agent of `crit install` and `crit uninstall`, when it is not Claude Code.
fn other(agent: InstallAgent) -> Option<Agent> {
    match agent {
        InstallAgent::ClaudeCode => None,
        InstallAgent::Codex => Some(Agent::Codex),
        InstallAgent::Gemini => Some(Agent::Gemini),
        InstallAgent::Cursor => Some(Agent::Cursor),
        InstallAgent::Copilot => Some(Agent::Copilot),
        InstallAgent::OpenCode => Some(Agent::OpenCode),
    }
}

fn agent_options(
    common: &CommonArgs,
    scope: &SettingsScope,
    agent: Agent,
    pieces: Pieces,
) -> Result<other::AgentInstall, CliError> {
    let env = common.env.clone();
    let (dir, confine_to) = other::agent_dir(agent, scope.user, common.cwd.as_deref(), &env)
        .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    Ok(other::AgentInstall {
        agent,
        dir,
        confine_to,
        dry_run: scope.dry_run,
        pieces,
        env,
    })
}

pub fn install(common: &CommonArgs, args: &InstallArgs) -> Result<Code, CliError> {
    let piece = |p: &InstallPiece| match p {
        InstallPiece::PromptReview => Piece::PromptReview,
        InstallPiece::StopGate => Piece::StopGate,
        InstallPiece::PlanGate => Piece::PlanGate,
        InstallPiece::Agent => Piece::Agent,
        InstallPiece::Statusline => Piece::Statusline,
    };
    let only: Vec<Piece> = args.only.iter().map(piece).collect();
    let skip: Vec<Piece> = args.skip.iter().map(piece).collect();
    let pieces = Pieces::choose(&only, &skip);
    if pieces.iter().next().is_none() {
        return Err(CliError::usage(anyhow!(
            "--only and --skip leave nothing to install"
        )));
    }
    if let Some(agent) = other(args.scope.agent) {
        let opts = agent_options(common, &args.scope, agent, pieces)?;
        let report = other::install(&opts).map_err(failed)?;
        show(common, &report, opts.dry_run);
    } else {
        let opts = options(common, &args.scope, args.subagent_stop, pieces)?;
        let report = install::install(&opts).map_err(failed)?;
        show(common, &report, opts.dry_run);
    }
    if args.mcp {
        let opts = mcp_options(common, &args.scope)?;
        let report = mcp::install(&opts).map_err(failed)?;
        show(common, &report, opts.dry_run);
    }
    Ok(Code::Ok)
}

/// Where the agent of `scope` reads its MCP servers.
fn mcp_options(common: &CommonArgs, scope: &SettingsScope) -> Result<mcp::McpInstall, CliError> {
    let env = common.env.clone();
    let agent = other(scope.agent).unwrap_or(Agent::ClaudeCode);
    let (file, confine_to) = mcp::mcp_file(agent, scope.user, common.cwd.as_deref(), &env)
        .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    Ok(mcp::McpInstall {
        agent,
        file,
        confine_to,
        dry_run: scope.dry_run,
        env,
    })
}

/// Takes crit's MCP server out too, when install registered it.
fn uninstall_mcp(common: &CommonArgs, scope: &SettingsScope) -> Result<(), CliError> {
    let opts = mcp_options(common, scope)?;
    if let Some(line) = mcp::uninstall(&opts).map_err(failed)?
        && (!common.quiet || opts.dry_run)
    {
        println!("{line}");
    }
    Ok(())
}

pub fn uninstall(common: &CommonArgs, args: &UninstallArgs) -> Result<Code, CliError> {
    if let Some(agent) = other(args.scope.agent) {
        let opts = agent_options(common, &args.scope, agent, Pieces::default())?;
        let report = other::uninstall(&opts).map_err(failed)?;
        show(common, &report, opts.dry_run);
    } else {
        let opts = options(common, &args.scope, false, Pieces::default())?;
        let report = install::uninstall(&opts).map_err(failed)?;
        show(common, &report, opts.dry_run);
    }
    uninstall_mcp(common, &args.scope)?;
    Ok(Code::Ok)
}
