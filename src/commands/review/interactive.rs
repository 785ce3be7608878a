//! `crit review NAME --interactive`: the review, then follow-up questions to
//! its reviewer, read one per line from stdin until an empty line or EOF.

use std::io::{BufRead, Write};

use crit_llm::Backend;
use crit_review::review::{ReviewOptions, ReviewRequest, run_template_with_follow_up};

use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::{output, runner};

pub fn run(
    common: &CommonArgs,
    backend: &Backend,
    req: &ReviewRequest,
    mut opts: ReviewOptions,
    gate: Option<crit_core::FailOn>,
) -> Result<Code, CliError> {
    let stop = runner::Stop::new();
    runner::block_on(&stop, |cancel| {
        opts.cancel = cancel;
        let stop = &stop;
        async move {
            let (result, conversation) = run_template_with_follow_up(backend, req, &opts)
                .await
                .map_err(CliError::usage)?;
            let code = runner::finish(common, result, stop, gate)?;
            if stop.signal().is_some() {
                return Ok(code);
            }
            let Some(mut conversation) = conversation else {
                eprintln!("crit: no reviewer ran, so there is no one to ask");
                return Ok(code);
            };
            let stdin = std::io::stdin();
            loop {
                eprint!("\nask {} (empty line to finish)> ", conversation.reviewer());
                let _ = std::io::stderr().flush();
                let mut line = String::new();
                // Reading stdin blocks; it is one line at a time between model calls.
                let read = tokio::task::block_in_place(|| stdin.lock().read_line(&mut line));
                if read.map_or(true, |n| n == 0) || line.trim().is_empty() {
                    break;
                }
                match conversation.ask(line.trim()).await {
                    Ok(answer) => println!("{}", output::printable(answer.trim_end())),
                    Err(e) => eprintln!(
                        "crit: the reviewer could not answer: {}",
                        output::printable(&e.to_string())
                    ),
                }
            }
            if !common.quiet && conversation.usage.total() > 0 {
                eprintln!(
                    "follow-up: {} tokens, ${:.4}",
                    conversation.usage.total(),
                    conversation.cost_usd
                );
            }
            Ok(code)
        }
    })?
}
