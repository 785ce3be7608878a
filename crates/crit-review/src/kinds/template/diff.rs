//! A code review of a diff, end to end before the finish steps: the change
//! cut into hunks and screened, hunks an earlier review found nothing in
//! left out by the cache, the rest split into parts that fit the model's
//! context and reviewed side by side by the same panel, the findings checked
//! (consensus, evidence, a second look at blockers), then, once the whole
//! review is known, its clean hunks stored for the next review, and the
//! coverage: what every reviewer saw and what was left out. Binary content
//! in the change is a finding of crit's own, never silence.

use std::collections::BTreeMap;

use crit_core::{
    Finding, Location, ReviewResult, ReviewerOutcome, ReviewerStatus, Severity, Verdict,
};
use minijinja::Value;

use super::checks::post;
use super::coverage::{self, PartOutcome};
use super::planner::Planner;
use super::plans as plan;
use super::work::Work;
use super::{Job, ReviewError, estimate, parts};
use crate::engine::hunk_cache::{
    self,
    decide::{ReviewFinding, ReviewedPart},
};
use crate::engine::panel::{self, FollowUp, ReviewerRun};
use crate::engine::prompts::PREAMBLE;
use crate::engine::redaction::{self, Removed};
use crit_project::scope::{Change, FileStatus};

/// The rule id of crit's finding on binary content in the change.
pub(crate) const BINARY_RULE: &str = "crit/binary-content";

/// The change as it came from git, and what redaction did to it.
pub(super) struct Diff<'a> {
    /// Redacted: what reviewers are sent.
    pub change: &'a Change,
    /// The patch before redaction, for the cache keys only.
    pub raw_patch: &'a str,
    pub removed: &'a [Removed],
}

pub(super) async fn review(
    job: &Job<'_>,
    diff: &Diff<'_>,
    extra: BTreeMap<String, Value>,
    conversation: Option<&mut Option<FollowUp>>,
) -> Result<ReviewResult, ReviewError> {
    let opts = job.opts;
    let change = diff.change;
    let base = opts.hunk_cache.as_ref().map(|_| cache_base(job, &extra));
    // Read once here, written once at the end: never a file per hunk.
    let hunks = opts.hunk_cache.as_ref().map(|c| c.open(job.now));
    let cache = hunks.as_ref().zip(base.as_deref());
    // The work is planned a part at a time: the first part is built, the
    // review's cost estimated from it and the outline of the rest, and
    // approved; then it is sent while the others are planned and built.
    let planner = Planner::new(change, diff.raw_patch, cache, opts.parts);
    let mut parts = PartBuilder::new(job, change, planner, extra);
    let first = parts.build()?;
    let (first_plans, skipped) = match first {
        Some(p) => (p.run, p.skipped),
        None => (Vec::new(), Vec::new()),
    };
    let outline = parts.planner.outline().clone();
    let sent_first = parts.built > 0;
    let mut ceiling = None;
    if sent_first {
        let estimate =
            estimate::plan_from_first(&first_plans, &outline.part_bytes, Some(outline.added_lines));
        ceiling = super::run::approve(opts, estimate)?;
    }
    // What was approved is what may be spent: the panel stops there (a part
    // not started is a gap, a reviewer cut short INCOMPLETE).
    let cap = |budget: &mut Option<f64>| {
        if let Some(c) = ceiling {
            *budget = Some(budget.map_or(c, |b| b.min(c)));
        }
    };
    let capped = |mut plans: Vec<panel::ReviewerPlan>| {
        for p in &mut plans {
            cap(&mut p.limits.max_budget_usd);
        }
        plans
    };
    let mut limits = plan::limits(&job.template.limits, &opts.limits);
    cap(&mut limits.max_budget_usd);
    let budget_usd = limits.max_budget_usd;
    let first_plans = capped(first_plans);
    let kept_first = first_plans.clone();
    let (ran, failed) = match sent_first {
        true => {
            parts::run(
                job.backend,
                first_plans,
                outline.part_bytes.len(),
                |_| parts.build().map(|p| p.map(|p| capped(p.run))),
                job.env,
                limits,
            )
            .await
        }
        false => (Vec::new(), None),
    };
    let work = parts.planner.into_work();
    let count = work.parts.len();
    if let Some(e) = failed {
        return Err(e);
    }
    // A part never built (building stopped) was never sent: said so.
    let mut ran = ran;
    while ran.len() < count {
        ran.push((Vec::new(), parts::never_built()));
    }
    // Where every reviewer's finding points, and whose part it came from:
    // the cache's decision waits for the whole review.
    let mut reported: Vec<(Option<usize>, Option<String>)> = Vec::new();
    let mut outcomes: Vec<PartOutcome> = Vec::with_capacity(count);
    let mut part_runs: Vec<Vec<ReviewerRun>> = Vec::with_capacity(count);
    // Every reviewer of the part finished and said PASS in its own words.
    let mut said_pass: Vec<bool> = Vec::with_capacity(count);
    // What each part's reviewers cost, for the cache to remember.
    let mut part_costs: Vec<Option<f64>> = Vec::with_capacity(count);
    for (i, (runs, outcome)) in ran.into_iter().enumerate() {
        part_costs.push(
            runs.iter()
                .map(|r| r.outcome.cost_usd)
                .try_fold(0.0, |sum, c| Some(sum + c?)),
        );
        for f in runs.iter().flat_map(|r| r.findings.iter()) {
            reported.push((Some(i), f.location.as_ref().map(|l| l.path().to_string())));
        }
        said_pass.push(runs.iter().all(|r| {
            r.outcome.status == ReviewerStatus::Completed && r.outcome.verdict == Verdict::Pass
        }));
        outcomes.push(outcome);
        if !runs.is_empty() {
            part_runs.push(runs);
        }
    }
    if let (Some(slot), 1, [runs]) = (conversation, count, part_runs.as_slice())
        && let (Some(plan), Some(run)) = (kept_first.first(), runs.first())
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
    post::check(job, &mut result, Some(change), budget_usd).await;
    let binary = binary_findings(change, opts.allow_partial);
    if let Some(mut cache) = hunks {
        store_clean(
            &mut cache,
            &work,
            &outcomes,
            &said_pass,
            &part_costs,
            &reported,
            [&result.findings, &work.screened.findings, &binary]
                .into_iter()
                .flatten()
                .chain(result.dismissed.iter().map(|d| &d.finding)),
        );
        cache.commit();
    }
    result.findings = panel::distinct_findings(std::mem::take(&mut result.findings));
    result
        .findings
        .extend(work.screened.findings.iter().cloned());
    result.findings.extend(binary);
    result.coverage = Some(coverage::build(
        change,
        &work,
        &outcomes,
        diff.removed,
        opts.parts.max_parts,
    ));
    Ok(result)
}

/// Stores the hunks no finding of the review points into, of parts whose
/// reviewers all finished and said PASS ([`hunk_cache::decide`]). `reported`: every reviewer's finding as
/// reported, with its part; `others`: every other finding of the review
/// (kept, dismissed, crit's own).
fn store_clean<'a>(
    cache: &mut hunk_cache::Hunks,
    work: &Work,
    outcomes: &[PartOutcome],
    said_pass: &[bool],
    part_costs: &[Option<f64>],
    reported: &[(Option<usize>, Option<String>)],
    others: impl Iterator<Item = &'a Finding>,
) {
    let parts: Vec<ReviewedPart<'_>> = work
        .parts
        .iter()
        .enumerate()
        .map(|(i, units)| {
            let finished = outcomes
                .get(i)
                .is_some_and(|o| o.skipped.is_none() && o.failed.is_empty() && !o.done.is_empty());
            work.reviewed_part(
                units,
                finished && said_pass.get(i).copied().unwrap_or(false),
            )
        })
        .collect();
    let findings: Vec<ReviewFinding<'_>> = reported
        .iter()
        .map(|(part, path)| ReviewFinding {
            part: *part,
            path: path.as_deref(),
        })
        .chain(others.map(|f| ReviewFinding {
            part: None,
            path: f.location.as_ref().map(Location::path),
        }))
        .collect();
    let mut keep: Vec<Vec<usize>> = vec![Vec::new(); work.parts.len()];
    for (p, j) in hunk_cache::decide::hunks_to_store(&parts, &findings) {
        if let Some(k) = keep.get_mut(p) {
            k.push(j);
        }
    }
    for (i, (units, mine)) in work.parts.iter().zip(&keep).enumerate() {
        if !mine.is_empty() {
            let cost = part_costs.get(i).copied().flatten();
            work.store(cache, units, mine, cost);
        }
    }
}

/// One finding per file whose binary content was added or changed: no
/// reviewer read it, so it blocks unless the user accepted a partial review.
fn binary_findings(change: &Change, allow_partial: bool) -> Vec<Finding> {
    change
        .files
        .iter()
        .filter(|f| f.binary && f.status != FileStatus::Deleted)
        .map(|f| {
            let path = change.path_from_root(&f.path);
            let severity = match allow_partial {
                true => Severity::Info,
                false => Severity::P1,
            };
            let mut finding = Finding::new(
                "Binary content in the change, not reviewed",
                severity,
                "crit",
            )
            .with_location(Location::file(path))
            .with_rule(BINARY_RULE);
            finding.body = format!(
                "`{path}` holds binary content (bytes that are not text), so no reviewer read \
                 it. Binary content can carry anything a reviewer would have flagged. Check \
                 it yourself, then run with --allow-partial to accept a review that could \
                 not see it{}.",
                match allow_partial {
                    true => " (as this run did)",
                    false => "",
                }
            );
            finding
        })
        .collect()
}

/// Builds each part's plans as the planner hands the part out, from one
/// copy of the change without its patch (a part's own diff replaces it;
/// copying the whole patch for every part made a big change's parts cost its
/// size times their number).
struct PartBuilder<'a> {
    job: &'a Job<'a>,
    planner: Planner<'a>,
    skeleton: Change,
    extra: BTreeMap<String, Value>,
    /// Parts built so far.
    built: usize,
}

impl<'a> PartBuilder<'a> {
    fn new(
        job: &'a Job<'a>,
        change: &Change,
        planner: Planner<'a>,
        extra: BTreeMap<String, Value>,
    ) -> Self {
        let mut skeleton = change.clone();
        skeleton.patch = String::new();
        skeleton.files = Vec::new();
        PartBuilder {
            job,
            planner,
            skeleton,
            extra,
            built: 0,
        }
    }

    /// The next part's plans; `None` when every part was built.
    fn build(&mut self) -> Result<Option<plan::Plans>, ReviewError> {
        let Some(i) = self.planner.next_part() else {
            return Ok(None);
        };
        self.built += 1;
        let job = self.job;
        let several = self.planner.several(i);
        let work = self.planner.work();
        let units = work.parts.get(i).map(Vec::as_slice).unwrap_or_default();
        let scope = part_change(
            &self.skeleton,
            work,
            units,
            several.then_some(i),
            &job.opts.redactor,
        );
        self.extra
            .insert("scope".into(), Value::from(minijinja::value::Serde(&scope)));
        Ok(Some(plan::plans(
            job.template,
            job.inputs,
            &self.extra,
            job.under_review,
            job.opts,
        )?))
    }
}

/// The change as one part's prompt sees it: its files (their names
/// redacted, like every string a prompt holds), its numbered diff.
/// `skeleton`: the change without its patch and files; `i`: which part,
/// when there are several.
fn part_change(
    skeleton: &Change,
    work: &Work,
    units: &[usize],
    i: Option<usize>,
    redactor: &crit_core::redact::Redactor,
) -> Change {
    let (text, files) = work.text(units);
    let mut part = skeleton.clone();
    part.patch = text;
    part.files = files
        .iter()
        .map(|f| {
            let mut c = work.files[*f].changed.clone();
            c.path = redaction::redact_str(&c.path, redactor);
            c.old_path = c.old_path.map(|p| redaction::redact_str(&p, redactor));
            c
        })
        .collect();
    // Which part, when there are several: the count is known only once
    // the whole change is planned, after the first parts are sent.
    part.part = i.map(|i| (i + 1).to_string());
    part.screened = work.screened.notes.clone();
    part.truncated = false;
    part
}

/// No part was sent (every hunk came from the cache, or nothing of the
/// change could be sent: binary content, parts left out): the panel is
/// listed as not run, the verdict follows the findings, and the coverage
/// says what no reviewer saw.
fn nothing_sent(job: &Job<'_>, work: &Work, outcomes: &[PartOutcome]) -> ReviewResult {
    let why = match (
        work.cached.is_empty(),
        outcomes.first().and_then(|o| o.skipped.as_ref()),
    ) {
        (_, Some((_, why))) => why.clone(),
        (false, None) => {
            "every hunk of the change was reviewed before, with nothing found in its file"
                .to_string()
        }
        (true, None) => "no reviewer was sent any part of the change (see coverage)".to_string(),
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

/// What every hunk key of this review shares: everything its requests hold
/// but the change itself (its hunks, its description and commit subjects,
/// which describe the whole change, not a hunk).
fn cache_base(job: &Job<'_>, extra: &BTreeMap<String, Value>) -> String {
    let opts = job.opts;
    let panel = format!("{:?}", job.template.panel());
    let template = format!("{:?}", job.template);
    let models = format!(
        "{:?} {:?} {}",
        opts.model_override, job.template.model, opts.default_model
    );
    let checks = format!(
        "{:?} {:?} {} {:?} {:?} {:?} {:?}",
        opts.verify,
        job.template.verify,
        opts.verify_model,
        opts.consensus,
        job.template.consensus,
        opts.filter,
        opts.parts.part_bytes
    );
    // The provider and its address: the backend's kind, and the settings
    // (provider, base URL, models) without where each came from.
    let backend = format!(
        "{} {:?} {}",
        job.backend.model.name(),
        job.backend.agent.as_ref().map(|a| a.name().to_string()),
        settings_values(&opts.config_snapshot)
    );
    let project = job
        .env
        .root
        .canonicalize()
        .unwrap_or_else(|_| job.env.root.clone())
        .display()
        .to_string();
    let notes = extra
        .iter()
        .filter(|(k, _)| k.as_str() != "scope")
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("\0");
    let inputs = format!("{:?}", job.inputs.0);
    hunk_cache::base(&[
        ("template", &template),
        ("panel", &panel),
        ("models", &models),
        ("backend", &backend),
        ("prompts", &crate::engine::prompts::prompt_sources()),
        ("preamble", PREAMBLE),
        ("conventions", &job.env.project_context),
        ("context", &notes),
        ("inputs", &inputs),
        ("checks", &checks),
        ("project", &project),
    ])
}

/// `key=value` of each row of a settings snapshot (`crit config`'s rows),
/// leaving out where each value came from.
fn settings_values(snapshot: &serde_json::Value) -> String {
    match snapshot.as_array() {
        Some(rows) => rows
            .iter()
            .map(|r| format!("{}={}", r["key"], r["value"]))
            .collect::<Vec<_>>()
            .join(";"),
        None => snapshot.to_string(),
    }
}
