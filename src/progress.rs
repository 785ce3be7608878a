//! The progress display on stderr while reviewers work: which reviewer, which
//! turn, what it is doing, tokens and cost so far. One line per event, so it
//! reads the same in a terminal, a CI log, or a file; a model's tool name
//! cannot break the line or start a workflow command in a CI log.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crit_core::ReviewerStatus;
use crit_core::printable::Dest;
use crit_llm::Env;
use crit_review::panel::{Progress, ProgressEvent};

#[derive(Debug)]
pub struct StderrProgress {
    started: Instant,
    /// Serializes lines from concurrent reviewers.
    out: Mutex<()>,
    /// The change is split into parts: one line per part, not per reviewer.
    by_part: AtomicBool,
    /// What reads stderr: a terminal or a CI log.
    dest: Dest,
}

impl StderrProgress {
    pub fn new(env: &Env) -> Self {
        StderrProgress {
            started: Instant::now(),
            out: Mutex::new(()),
            by_part: AtomicBool::new(false),
            dest: crate::output::stderr_dest(env),
        }
    }

    fn line(&self, text: &str) {
        let _guard = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let secs = self.started.elapsed().as_secs_f64();
        // Reviewer and tool names, notes: a model or a config file chose
        // them, and this line may be a CI job's log. One line, escaped.
        let _ = writeln!(
            std::io::stderr().lock(),
            "[{secs:>6.1}s] {}",
            crate::output::stderr_line(self.dest, text)
        );
    }
}

impl Progress for StderrProgress {
    fn event(&self, event: &ProgressEvent) {
        let by_part = self.by_part.load(Ordering::Relaxed);
        match event {
            ProgressEvent::Parts {
                total,
                built,
                sent,
                answered,
                tokens,
                cost_usd,
            } => {
                self.by_part.store(true, Ordering::Relaxed);
                self.line(&format!(
                    "parts: {built}/{total} built, {sent} sent, {answered} answered; {} tokens, ${cost_usd:.4} so far",
                    thousands(*tokens)
                ));
            }
            // A split change: its reviewers' own lines would be one per
            // reviewer, turn and part; the parts' lines say it.
            ProgressEvent::Started { .. }
            | ProgressEvent::Turn { .. }
            | ProgressEvent::Usage { .. }
            | ProgressEvent::Finished { .. }
                if by_part => {}
            ProgressEvent::Started { reviewer, model } => {
                self.line(&format!("{reviewer}: started ({model})"));
            }
            ProgressEvent::Turn {
                reviewer,
                agent,
                turn,
                tools,
            } => {
                let who = if agent == reviewer {
                    reviewer.clone()
                } else {
                    format!("{reviewer} › {agent}")
                };
                let doing = if tools.is_empty() {
                    "answered".to_string()
                } else {
                    tools.join(", ")
                };
                self.line(&format!("{who}: turn {turn}: {doing}"));
            }
            ProgressEvent::Usage {
                reviewer,
                tokens,
                cost_usd,
            } => {
                // No price (a model crit's table does not know) is not free.
                let cost = match *cost_usd > 0.0 || *tokens == 0 {
                    true => format!("${cost_usd:.4}"),
                    false => "cost unknown".to_string(),
                };
                self.line(&format!(
                    "{reviewer}: {} tokens, {cost}",
                    thousands(*tokens)
                ));
            }
            ProgressEvent::Note { reviewer, text } => {
                self.line(&format!("{reviewer}: {text}"));
            }
            ProgressEvent::Finished {
                reviewer,
                status,
                verdict,
                findings,
                duration_ms,
            } => {
                let how = match status {
                    ReviewerStatus::Completed => format!("{verdict}, {findings} finding(s)"),
                    other => format!("{verdict} ({})", status_word(*other)),
                };
                self.line(&format!(
                    "{reviewer}: done in {:.1}s: {how}",
                    *duration_ms as f64 / 1000.0
                ));
            }
        }
    }
}

fn status_word(s: ReviewerStatus) -> &'static str {
    match s {
        ReviewerStatus::Completed => "completed",
        ReviewerStatus::Incomplete => "incomplete",
        ReviewerStatus::ParseError => "answer not understood",
        ReviewerStatus::Failed => "failed",
        ReviewerStatus::Skipped => "skipped",
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
