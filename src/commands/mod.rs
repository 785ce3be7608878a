//! One module per subcommand.

mod bench;
mod claude_code;
mod completions;
mod config;
mod doctor;
mod hook;
mod init;
mod learn;
mod learn_post;
mod learn_words;
mod mcp;
mod plan;
mod pre_commit;
mod prompt;
mod report;
mod report_merge;
pub(crate) mod respond;
mod respond_kind;
mod review;
mod run;
mod stats;
mod trust;
mod trust_confirm;
mod trust_hints;

use anyhow::anyhow;

use crate::cli::{Cli, Command, ReportAction};
use crate::exit::{CliError, Code};

pub fn run(cli: Cli) -> Result<Code, CliError> {
    match cli.command {
        Command::Config => config::run(&cli.common),
        Command::Trust(args) => trust::run(&cli.common, &args),
        Command::Doctor => doctor::run(&cli.common),
        Command::Report(r) => match (r.action, r.single) {
            (Some(ReportAction::Merge(m)), _) => report_merge::run(&cli.common, &m),
            (None, Some(args)) => report::run(&cli.common, &args, &r.post),
            (None, None) => Err(CliError::usage(anyhow!(
                "name a result: crit report FILE, or crit report merge FILE..."
            ))),
        },
        Command::Review(args) => review::run(cli.common, &args),
        Command::Run(args) => run::run(&cli.common, &args),
        Command::Init(args) => init::run(&cli.common, &args),
        Command::Plan(args) => plan::run(&cli.common, args),
        Command::Hook(args) => hook::run(&cli.common, &args),
        Command::Respond(args) => respond::run(&cli.common, &args),
        Command::Completions { shell, install } => {
            completions::completions(shell, install, &cli.common.env)
        }
        Command::Man { dir } => completions::man(dir.as_deref(), &cli.common.env),
        Command::Prompt(args) => prompt::run(&cli.common, &args),
        Command::Install(args) => claude_code::install::install(&cli.common, &args),
        Command::Uninstall(args) => claude_code::install::uninstall(&cli.common, &args),
        Command::Mcp => mcp::run(&cli.common),
        Command::Statusline => {
            let input = claude_code::read_stdin().unwrap_or_default();
            if let Some(line) = crit_claude_code::statusline::line(&input, &cli.common.env) {
                println!("{line}");
            }
            Ok(Code::Ok)
        }
        Command::Stats(args) => stats::run(&cli.common, &args),
        Command::Bench(args) => bench::run(&cli.common, args),
        Command::Learn(args) => learn::run(&cli.common, &args),
    }
}
