//! A code review of a diff, end to end before the finish steps: the change
//! cut into hunks and screened, hunks reviewed before taken from the cache,
//! the rest split into parts that fit the model's context and reviewed side
//! by side by the same panel, the findings checked (consensus, evidence, a
//! second look at blockers) and stored per hunk for the next review, and the
//! coverage: what every reviewer saw and what was left out.

use std::collections::BTreeMap;

use crit_core::{Finding, ReviewResult, ReviewerOutcome, ReviewerStatus, Verdict};
use minijinja::Value;

use super::checks::post;
use super::coverage::{self, PartOutcome};
use super::plans as plan;
use super::work::{self, Work};
use super::{Job, ReviewError, parts};
use crate::engine::hunk_cache;
use crate::engine::panel::{self, FollowUp, ReviewerRun};
use crate::engine::prompts::PREAMBLE;
use crit_project::scope::Change;

pub(super) async fn review(
    job: &Job<'_>,
    change: &Change,
    mut extra: BTreeMap<String, Value>,
    conversation: Option<&mut Option<FollowUp>>,
) -> Result<ReviewResult, ReviewError> {
    let opts = job.opts;
    let base = opts.hunk_cache.as_ref().map(|_| cache_base(job));
    let cache = opts.hunk_cache.as_ref().zip(base.as_deref());
    let work = work::plan(change, cache, opts.parts, job.now);
    let count = work.parts.len();
    let mut part_plans = Vec::with_capacity(count);
    let mut skipped = Vec::new();
    for (i, units) in work.parts.iter().enumerate() {
        let scope = part_change(change, &work, units, i, count);
        extra.insert("scope".into(), Value::from(minijinja::value::Serde(&scope)));
        let plans = plan::plans(job.template, job.inputs, &extra, job.under_review, opts)?;
        if i == 0 {
            skipped = plans.skipped;
        }
        part_plans.push(plans.run);
    }
    let limits = plan::limits(&job.template.limits, &opts.limits);
    let ran = parts::run(job.backend, &part_plans, job.env, limits).await;
    let mut origins: Vec<(String, usize)> = Vec::new();
    let mut outcomes: Vec<PartOutcome> = Vec::with_capacity(count);
    let mut part_runs: Vec<Vec<ReviewerRun>> = Vec::with_capacity(count);
    for (i, (runs, outcome)) in ran.into_iter().enumerate() {
        for f in runs.iter().flat_map(|r| r.findings.iter()) {
            origins.push((f.id.clone(), i));
        }
        outcomes.push(outcome);
        if !runs.is_empty() {
            part_runs.push(runs);
        }
    }
    if let (Some(slot), [plans], [runs]) =
        (conversation, part_plans.as_slice(), part_runs.as_slice())
        && let (Some(plan), Some(run)) = (plans.first(), runs.first())
    {
        *slot = Some(FollowUp::new(
            job.backend.clone(),
            plan.clone(),
            job.env.clone(),
            run.raw.clone(),
        ));
    }
    let reviewed = !part_runs.is_empty();
    let mut runs = panel::merge_parts(part_runs);
    runs.extend(skipped);
    let mut result = match reviewed {
        true => panel::aggregate(&job.template.name, &runs),
        false => nothing_sent(job, &work, &outcomes),
    };
    post::check(job, &mut result, Some(&change.patch)).await;
    if let Some((cache, _)) = cache {
        for (i, units) in work.parts.iter().enumerate() {
            let clean = outcomes
                .get(i)
                .is_some_and(|o| o.skipped.is_none() && o.failed.is_empty() && !o.done.is_empty());
            if clean {
                let mine: Vec<Finding> = result
                    .findings
                    .iter()
                    .filter(|f| origins.iter().any(|(id, p)| *id == f.id && *p == i))
                    .cloned()
                    .collect();
                work.store(cache, units, &mine);
            }
        }
        cache.prune(job.now);
    }
    let cached: Vec<Finding> = work
        .cached
        .iter()
        .flat_map(|(_, f)| f.iter().cloned())
        .collect();
    result.findings.extend(cached);
    result.findings = panel::distinct_findings(std::mem::take(&mut result.findings));
    result
        .findings
        .extend(work.screened.findings.iter().cloned());
    result.coverage = Some(coverage::build(
        change,
        &work,
        &outcomes,
        opts.parts.max_parts,
    ));
    Ok(result)
}

/// The change as one part's prompt sees it: its files, its numbered diff.
fn part_change(change: &Change, work: &Work, units: &[usize], i: usize, count: usize) -> Change {
    let (text, files) = work.text(units);
    let mut part = change.clone();
    part.patch = text;
    part.files = files
        .iter()
        .map(|f| work.files[*f].changed.clone())
        .collect();
    part.part = (count > 1).then(|| format!("{}/{count}", i + 1));
    part.screened = work.screened.notes.clone();
    part.truncated = false;
    part
}

/// No part was sent (every hunk came from the cache, or the change holds no
/// text to review): the panel is listed as not run, and the verdict follows
/// the findings.
fn nothing_sent(job: &Job<'_>, work: &Work, outcomes: &[PartOutcome]) -> ReviewResult {
    let why = match (
        work.cached.is_empty(),
        outcomes.first().and_then(|o| o.skipped.as_ref()),
    ) {
        (_, Some((_, why))) => why.clone(),
        (false, None) => {
            "every hunk of the change was reviewed before: its findings come from the cache"
                .to_string()
        }
        (true, None) => "the change holds no text to review".to_string(),
    };
    let mut r = ReviewResult::new(&job.template.name, Verdict::Pass);
    r.verdict_from_findings = true;
    r.reviewers = job
        .template
        .panel()
        .into_iter()
        .map(|s| ReviewerOutcome {
            name: s.name,
            status: ReviewerStatus::Skipped,
            verdict: Verdict::Pass,
            model: None,
            findings: 0,
            usage: Default::default(),
            cost_usd: Some(0.0),
            duration_ms: 0,
            error: Some(why.clone()),
        })
        .collect();
    r.summary = why;
    r
}

/// What every hunk key of this review shares: everything that decides what
/// its reviewers are asked.
fn cache_base(job: &Job<'_>) -> String {
    let opts = job.opts;
    let panel = format!("{:?}", job.template.panel());
    let models = format!(
        "{:?} {:?} {}",
        opts.model_override, job.template.model, opts.default_model
    );
    let checks = format!(
        "{:?} {:?} {} {:?} {:?}",
        opts.verify, job.template.verify, opts.verify_model, opts.consensus, job.template.consensus
    );
    hunk_cache::base(&[
        ("template", &job.template.name),
        ("panel", &panel),
        ("models", &models),
        ("prompts", &crate::engine::prompts::prompt_sources()),
        ("preamble", PREAMBLE),
        ("conventions", &job.env.project_context),
        ("checks", &checks),
    ])
}
