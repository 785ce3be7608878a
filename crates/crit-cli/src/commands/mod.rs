//! One module per subcommand.

mod config;
mod doctor;
mod hook;
mod init;
mod plan;
mod prompt;
mod report;
mod review;
mod run;
mod trust;

use crate::cli::{Cli, Command};
use crate::exit::{CliError, Code};

pub fn run(cli: Cli) -> Result<Code, CliError> {
    match cli.command {
        Command::Config => config::run(&cli.common),
        Command::Trust(args) => trust::run(&cli.common, &args),
        Command::Doctor => doctor::run(&cli.common),
        Command::Report(args) => report::run(&cli.common, &args),
        Command::Review(args) => review::run(cli.common, &args),
        Command::Run(args) => run::run(&cli.common, &args),
        Command::Init => init::run(&cli.common),
        Command::Plan(args) => plan::run(&cli.common, args),
        Command::Hook(args) => hook::run(&cli.common, &args),
        Command::Prompt(args) => prompt::run(&cli.common, &args),
    }
}
