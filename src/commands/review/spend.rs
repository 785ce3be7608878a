//! Spending is the user's decision: before a review's first request its
//! plan and estimated cost go to stderr; above the limit (`--max-cost`,
//! `max_cost_usd`, $1 by default) crit asks at a terminal, and stops
//! without one unless `--yes` said to go ahead. What it then spends is held
//! to what was approved: an estimate is no promise.

use std::io::{BufRead, IsTerminal, Write};

use crit_llm::{Source, Sourced};
use crit_review::review::{CostPlan, Spending};

use crit_core::printable::Dest;
use crit_llm::Env;

use crate::output;

pub struct AskToSpend {
    /// The estimated cost (USD) sent without asking, and where it was set.
    limit: Sourced<f64>,
    /// `--yes`: send whatever the estimate.
    yes: bool,
    /// `--quiet`: the plan is said only when it is asked about.
    quiet: bool,
    /// stdin and stderr are a terminal: someone can answer.
    terminal: bool,
    /// What reads stderr: a terminal or a CI log.
    dest: Dest,
}

impl AskToSpend {
    pub fn new(limit: Sourced<f64>, yes: bool, quiet: bool, env: &Env) -> Self {
        AskToSpend {
            limit,
            yes,
            quiet,
            terminal: std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
            dest: output::stderr_dest(env),
        }
    }

    fn limit_words(&self) -> String {
        let from = match &self.limit.source {
            Source::Default => "crit's default".to_string(),
            other => other.to_string(),
        };
        format!("the ${:.2} limit ({from})", self.limit.value)
    }
}

impl AskToSpend {
    /// A model with no known price: what it spends is never counted, so a
    /// limit cannot hold it. Sent only on the user's word: `--yes`, or yes
    /// at a terminal.
    fn approve_unpriced(&self, plan: &CostPlan) -> bool {
        say(self.dest, &format!("crit: the review: {}", plan.describe()));
        let why = format!(
            "{} has no known price, so {} cannot be held",
            match plan.models.is_empty() {
                true => "the backend's default model".to_string(),
                false => plan.models.join(", "),
            },
            self.limit_words()
        );
        if !self.terminal {
            say(
                self.dest,
                &format!(
                    "crit: {why}; nothing was sent. crit has no setting for a model's price: review with a model crit knows the price of, or pass --yes to send it with no limit"
                ),
            );
            return false;
        }
        ask(
            self.dest,
            &format!("crit: {why}. Send it with no limit? [y/N] "),
        )
    }
}

impl Spending for AskToSpend {
    fn approve(&self, plan: &CostPlan) -> bool {
        if plan.requests == 0 {
            return true;
        }
        if plan.usd_high.is_none() && !self.yes {
            // Sent unasked (the unknown cost said even with --quiet) only
            // where every front end sends it.
            if crit_review::review::sends_unpriced(&self.limit) {
                say(self.dest, &format!("crit: the review: {}", plan.describe()));
                return true;
            }
            return self.approve_unpriced(plan);
        }
        let over = plan.usd_high.filter(|hi| *hi > self.limit.value);
        if !self.quiet || (over.is_some() && !self.yes) {
            say(self.dest, &format!("crit: the review: {}", plan.describe()));
        }
        let Some(high) = over else {
            return true;
        };
        if self.yes {
            return true;
        }
        if !self.terminal {
            say(
                self.dest,
                &format!(
                    "crit: up to ${high:.2} is over {}, and there is no terminal to ask at; --yes sends it, --max-cost USD sets the limit",
                    self.limit_words()
                ),
            );
            return false;
        }
        ask(
            self.dest,
            &format!(
                "crit: up to ${high:.2} is over {}. Send it? [y/N] ",
                self.limit_words()
            ),
        )
    }

    /// Sent without asking, the review spends at most the limit; approved
    /// above it, at most the estimate the user saw; with `--yes`, any.
    fn ceiling(&self, plan: &CostPlan) -> Option<f64> {
        if self.yes {
            return None;
        }
        Some(
            plan.usd_high
                .map_or(self.limit.value, |high| high.max(self.limit.value)),
        )
    }
}

/// `question` at the terminal; `true` on yes.
fn ask(dest: Dest, question: &str) -> bool {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{}", output::stderr_line(dest, question));
    let _ = err.flush();
    drop(err);
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return false;
    }
    matches!(answer.trim().to_lowercase().as_str(), "y" | "yes")
}

fn say(dest: Dest, line: &str) {
    let _ = writeln!(
        std::io::stderr().lock(),
        "{}",
        output::stderr_line(dest, line)
    );
}
