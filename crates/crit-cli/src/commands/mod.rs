//! One module per subcommand.

mod report;

use crate::cli::{Cli, Command};
use crate::exit::{CliError, Code};

pub fn run(cli: Cli) -> Result<Code, CliError> {
    match cli.command {
        Command::Report(args) => report::run(&cli.common, &args),
    }
}
