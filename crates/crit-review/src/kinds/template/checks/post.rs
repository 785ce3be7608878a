//! Checks on a panel's findings before the finish steps: consensus across a
//! panel (when asked for), the quotes reviewers gave as evidence, and a
//! second look at the findings that can block. Each moves what fails to
//! `dismissed` with its cause; the verdict is settled afterwards from what
//! remains.

use crit_core::{ReviewResult, ReviewerStatus};
use crit_project::scope::Change;

use super::evidence::{self, Sources};
use super::verify::{self, VerifyMode, VerifySettings};
use crate::engine::panel;
use crate::kinds::template::Job;

/// Runs the checks over `result`'s findings. `change`: the change under
/// review, for quotes of lines it removed and for the paths reviewers name.
pub(crate) async fn check(
    job: &Job<'_>,
    result: &mut ReviewResult,
    change: Option<&Change>,
    budget_usd: Option<f64>,
) {
    let from_template = job.template.consensus.filter(|c| {
        *c == panel::Consensus::Any || job.template_may_relax("consensus", &c.to_string())
    });
    if let Some(mode) = job.opts.consensus.or(from_template) {
        let voters: Vec<String> = result
            .reviewers
            .iter()
            .filter(|r| r.status == ReviewerStatus::Completed)
            .map(|r| r.name.clone())
            .collect();
        panel::apply_consensus(mode, &mut result.findings, &mut result.dismissed, &voters);
    }
    let files: Vec<String> = change
        .map(|c| {
            c.files
                .iter()
                .map(|f| c.path_from_root(&f.path).to_string())
                .collect()
        })
        .unwrap_or_default();
    let sources = Sources {
        root: &job.env.root,
        patch: change.map(|c| c.patch.as_str()).unwrap_or_default(),
        files: &files,
        conventions: &job.env.project_context,
    };
    evidence::check(&mut result.findings, &mut result.dismissed, &sources);
    let settings = VerifySettings {
        mode: job
            .opts
            .verify
            .or(job.template.verify.filter(|v| {
                *v == VerifyMode::Off || job.template_may_relax("verify", &v.to_string())
            }))
            .unwrap_or_default(),
        model: verify::model_for(&job.opts.verify_model, job.backend, &review_model(job)),
    };
    if job.env.cancel.is_cancelled() {
        return;
    }
    if let Some(outcome) = verify::run(
        &mut result.findings,
        &mut result.dismissed,
        &settings,
        job.backend,
        job.env,
        &sources,
        budget_usd,
    )
    .await
    {
        result.usage += outcome.usage;
        result.cost_usd = crit_core::usage::add_cost(result.cost_usd, outcome.cost_usd);
        result.reviewers.push(outcome);
    }
}

/// The model the review's reviewers ask (`--model`, the template's, the
/// configured one): the verifier's on a server that has no other.
fn review_model(job: &Job<'_>) -> String {
    job.opts
        .model_override
        .clone()
        .or_else(|| job.template.model.clone())
        .unwrap_or_else(|| job.opts.default_model.clone())
}
