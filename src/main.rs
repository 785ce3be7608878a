//! The `crit` binary: parses arguments, runs one command, maps the outcome to an
//! exit code. Thin by design: anything a library user would need lives in the
//! library crates.

mod backend;
mod cli;
mod commands;
mod exit;
mod output;
mod post;
mod progress;
mod runner;

use std::process::ExitCode;

fn main() -> ExitCode {
    // The front end reads the environment; the libraries' writers redact the
    // secret-named variables' values from what it held at start.
    let env = crit_os::env::Env::from_process();
    crit_core::redact::Redactor::init_process(env.iter());
    let mut cli = match cli::parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version are "errors" to clap; they print to stdout and exit 0.
            let code = if e.use_stderr() {
                exit::Code::Usage
            } else {
                exit::Code::Ok
            };
            let _ = e.print();
            return code.into();
        }
    };
    // The one read of the environment: every command takes it from here.
    cli.common.env = env;
    match commands::run(cli) {
        Ok(code) => code.into(),
        Err(err) => {
            // Errors can quote a file or a model's answer.
            eprintln!("crit: {}", output::printable(&err.message()));
            err.code().into()
        }
    }
}
