//! The agent reviewer: the `code` template on crit's own loop (or on the
//! Claude Code backend), in process.

use std::path::PathBuf;
use std::time::Duration;

use crit_core::ReviewResult;
use crit_llm::Backend;
use futures_util::future::BoxFuture;

use super::{CodeReviewRequest, CodeReviewer, bad_request};
use crate::kinds::template::Template;
use crate::kinds::template::{ReviewOptions, ReviewRequest, run_template};

/// Beyond the review's own timeout, how long the whole call may take (git,
/// session files) before it is cut off anyway.
const BACKSTOP: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub struct AgentReviewer {
    backend: Backend,
    template: Template,
    root: PathBuf,
    opts: ReviewOptions,
}

impl AgentReviewer {
    /// `template` is the code review template (the built-in `code`, or a
    /// project's override of it).
    pub fn new(backend: Backend, template: Template, root: PathBuf, opts: ReviewOptions) -> Self {
        tracing::info!("Initializing code reviewer: agent-sdk");
        AgentReviewer {
            backend,
            template,
            root,
            opts,
        }
    }

    async fn run(&self, req: &CodeReviewRequest) -> ReviewResult {
        tracing::info!("Starting review for {} with agent-sdk", req.describe());
        let scope = match req.scope() {
            Ok(s) => s,
            Err(e) => return bad_request(e),
        };
        let mut opts = self.opts.clone();
        // The request's own timeout, else the configured one (`review.timeout`),
        // else the default.
        let timeout = req.timeout.unwrap_or_else(|| {
            opts.limits
                .timeout_secs
                .map_or(super::DEFAULT_TIMEOUT, Duration::from_secs)
        });
        opts.limits.timeout_secs = Some(timeout.as_secs().max(1));
        let review = ReviewRequest {
            template: self.template.clone(),
            inputs: Default::default(),
            scope: Some(scope),
            change: None,
            context_file: req.context_file.clone(),
            root: self.root.clone(),
            cwd: self.root.clone(),
        };
        match tokio::time::timeout(
            timeout + BACKSTOP,
            run_template(&self.backend, &review, &opts),
        )
        .await
        {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => bad_request(e),
            Err(_) => {
                opts.cancel.cancel();
                ReviewResult::parse_failure("code", "timeout", "")
            }
        }
    }
}

impl CodeReviewer for AgentReviewer {
    fn kind(&self) -> &'static str {
        "agent"
    }

    fn review<'a>(&'a self, req: &'a CodeReviewRequest) -> BoxFuture<'a, ReviewResult> {
        Box::pin(self.run(req))
    }
}
