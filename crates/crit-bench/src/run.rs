//! A benchmark run: for each configuration, every case's code review of
//! `base..head`, then the judge on every (golden comment, finding) pair,
//! one-to-one matching and the scores (and the benchmark's arithmetic when
//! asked). Cases run as a pipeline: reviews, at most `jobs` at once, hand
//! their findings to the judge stage, so one case is judged while the next
//! ones are reviewed. Configurations run one after another, so the judge's
//! cache filled by the first serves the pairs the others share.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use crit_core::{Finding, ReviewResult, Severity, Verdict};
use crit_llm::Backend;
use crit_project::Settings;
use crit_project::scope::Scope;
use crit_project::trust::ProjectRules;
use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::case::{candidate, judge_case};
use crate::config::BenchConfig;
use crate::corpus::{Case, Corpus};
use crate::judge::Judge;
use crate::report::{
    BENCH_SCHEMA_VERSION, BenchReport, CaseReport, CaseStatus, ConfigReport, ConfigSettings,
    JudgeInfo, JudgeSpend, Scoring, ScoringBlock, Spend,
};
use crate::score::{ByLevel, Score};
use crit_review::template::{ReviewOptions, ReviewRequest, Template, run_template};

/// Why a case's own repository decides nothing gated about its review.
const UNTRUSTED: &str = "a benchmark case's repository is someone else's code";

/// One configuration, ready to run.
#[derive(Debug, Clone)]
pub struct Configured {
    pub config: BenchConfig,
    pub template: Template,
    /// The review's options; each case sets its own rules and cancellation.
    pub options: ReviewOptions,
}

impl Configured {
    /// `config` over the code review's `settings` (flags, environment and
    /// config files as `crit review code` would use them).
    pub fn new(
        project: &crit_project::Project,
        config: BenchConfig,
        template: Template,
        settings: &Settings,
    ) -> Configured {
        let mut o = ReviewOptions::from_settings(project, settings);
        if config.model.is_some() {
            o.model_override = config.model.clone();
        }
        o.verify_model = config
            .verify_model
            .clone()
            .unwrap_or_else(|| settings.verify_model.value.clone());
        o.verify = config.verify;
        o.consensus = config.consensus;
        o.filter = config.filter;
        o.max_findings = config.max_findings;
        o.allow_partial = config.allow_partial;
        // A benchmark measures what a review finds now: no findings of an
        // earlier run, no session, no audit line.
        o.hunk_cache = None;
        o.log = false;
        Configured {
            config,
            template,
            options: o,
        }
    }

    /// The reviewers' model as requests name it (empty: the backend's).
    pub fn model(&self) -> String {
        let m = self
            .options
            .model_override
            .clone()
            .unwrap_or_else(|| self.options.default_model.clone());
        crit_llm::pricing::resolve_alias(&m)
    }

    fn settings(&self) -> ConfigSettings {
        let c = &self.config;
        ConfigSettings {
            model: self.model(),
            verify: c.verify.map(|v| v.to_string()),
            verify_model: crit_llm::pricing::resolve_alias(&self.options.verify_model),
            consensus: c.consensus.map(|v| v.to_string()),
            filter: c.filter.map(|v| v.to_string()),
            max_findings: c.max_findings,
            template: self.template.name.clone(),
            allow_partial: c.allow_partial,
        }
    }
}

/// What a benchmark run reports as it goes.
pub trait BenchProgress: Send + Sync {
    fn case_done(&self, config: &str, case: &CaseReport);
}

/// How to run.
#[derive(Clone, Default)]
pub struct BenchOptions {
    /// Cases reviewed at once (at least 1).
    pub jobs: usize,
    /// Where the judge's model choice came from, for the report.
    pub judge_source: String,
    pub cancel: CancellationToken,
    pub progress: Option<Arc<dyn BenchProgress>>,
    /// Also score by the benchmark's leaderboard arithmetic.
    pub martian_scoring: bool,
}

impl std::fmt::Debug for BenchOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BenchOptions")
            .field("jobs", &self.jobs)
            .field("judge_source", &self.judge_source)
            .field("martian_scoring", &self.martian_scoring)
            .finish_non_exhaustive()
    }
}

/// Runs every configuration over `corpus`.
pub async fn run_bench(
    backend: &Backend,
    corpus: &Corpus,
    configs: &[Configured],
    judge: &Judge,
    opts: &BenchOptions,
) -> BenchReport {
    let mut configurations = Vec::new();
    for c in configs {
        configurations.push(run_config(backend, corpus, c, judge, opts).await);
    }
    BenchReport {
        schema_version: BENCH_SCHEMA_VERSION,
        corpus: corpus.dir.display().to_string(),
        cases: corpus.cases.len(),
        judge: JudgeInfo {
            model: crit_llm::pricing::resolve_alias(&judge.model),
            source: opts.judge_source.clone(),
            prompt_version: judge.version.clone(),
            style: judge.style,
        },
        configurations,
    }
}

async fn run_config(
    backend: &Backend,
    corpus: &Corpus,
    c: &Configured,
    judge: &Judge,
    opts: &BenchOptions,
) -> ConfigReport {
    let started = Instant::now();
    let jobs = opts.jobs.max(1);
    // A pipeline: reviews run `jobs` at once and hand their findings on, so
    // one case is judged while the next ones are reviewed.
    let (tx, rx) = tokio::sync::mpsc::channel(jobs);
    let reviews = async move {
        let mut reviewed = futures_util::stream::iter(&corpus.cases)
            .map(|case| async move { (case, review_case(backend, case, c, opts).await) })
            .buffered(jobs);
        while let Some(r) = reviewed.next().await {
            if tx.send(r).await.is_err() {
                break;
            }
        }
    };
    let judged =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|r| (r, rx)) })
            .map(|(case, (report, findings))| async move {
                let done = judge_case(backend, case, report, findings, judge, opts).await;
                if let Some(p) = &opts.progress {
                    p.case_done(&c.config.name, &done.0);
                }
                done
            })
            .buffered(jobs)
            .collect::<Vec<_>>();
    let ((), cases) = futures_util::future::join(reviews, judged).await;
    let mut overall = Score::default();
    let mut levels = ByLevel::default();
    let (mut review, mut judged) = (Spend::default(), JudgeSpend::default());
    let mut martian = (0, 0, 0, 0);
    for (case, lv) in &cases {
        if let Some(s) = case.score {
            overall = overall.plus(s);
            levels.add(lv);
        }
        if let Some(m) = case.martian {
            martian = (
                martian.0 + m.tp,
                martian.1 + m.fp,
                martian.2 + m.fn_,
                martian.3 + 1,
            );
        }
        // A case whose review never ran spent nothing on it.
        if case.verdict.is_some() {
            review = add_spend(review, case.review);
        }
        judged = add_judge(judged, case.judge);
    }
    let complete = cases
        .iter()
        .filter(|(c, _)| c.status == CaseStatus::Complete)
        .count();
    let mut scoring = vec![ScoringBlock {
        scoring: Scoring::Strict,
        label: "crit strict one-to-one".into(),
        overall,
        cases_scored: complete,
    }];
    if opts.martian_scoring {
        scoring.push(ScoringBlock {
            scoring: Scoring::Martian,
            label: "Martian Code Review Bench (leaderboard)".into(),
            overall: crate::martian::leaderboard(martian.0, martian.1, martian.2),
            cases_scored: martian.3,
        });
    }
    ConfigReport {
        name: c.config.name.clone(),
        file: c.config.file.clone(),
        settings: c.settings(),
        overall,
        scoring,
        by_severity: levels.scores(),
        cases_complete: complete,
        cases_incomplete: cases.len() - complete,
        review,
        judge: judged,
        duration_ms: millis(started),
        cases: cases.into_iter().map(|(c, _)| c).collect(),
    }
}

/// A case's review: its report so far, and the findings to judge when the
/// review finished.
async fn review_case(
    backend: &Backend,
    case: &Case,
    c: &Configured,
    opts: &BenchOptions,
) -> (CaseReport, Option<Vec<Finding>>) {
    let mut report = not_yet_run(case);
    let result = match review(backend, case, c, opts).await {
        Ok(r) => r,
        Err(why) => {
            report.reason = Some(why.to_string());
            return (report, None);
        }
    };
    report.verdict = Some(result.verdict);
    report.review = Spend {
        usage: result.usage,
        cost_usd: result.cost_usd,
        duration_ms: result.duration_ms,
    };
    if let Some(why) = unfinished(&result) {
        report.reason = Some(why);
        return (report, None);
    }
    let findings: Vec<Finding> = result.findings.into_iter().filter(judged).collect();
    report.findings = findings.len();
    report.candidates = findings.iter().map(candidate).collect();
    (report, Some(findings))
}

/// A case's report before its review ran: nothing scored, its cost unknown.
pub(crate) fn not_yet_run(case: &Case) -> CaseReport {
    CaseReport {
        name: case.name.clone(),
        url: case
            .spec
            .url
            .clone()
            .or_else(|| Some(case.golden.url.clone()).filter(|u| !u.is_empty())),
        language: case.spec.language.clone(),
        status: CaseStatus::Incomplete,
        reason: None,
        verdict: None,
        golden: case.golden.comments.len(),
        findings: 0,
        score: None,
        by_severity: Vec::new(),
        matches: Vec::new(),
        martian: None,
        candidates: Vec::new(),
        // Unknown until the review runs.
        review: Spend {
            cost_usd: None,
            ..Spend::default()
        },
        judge: JudgeSpend::default(),
    }
}

/// The code review of the case's change, with nothing of the case's own
/// repository trusted.
async fn review(
    backend: &Backend,
    case: &Case,
    c: &Configured,
    opts: &BenchOptions,
) -> Result<ReviewResult, CaseFailed> {
    let root = case
        .repo
        .canonicalize()
        .map_err(|source| CaseFailed::Repo {
            path: case.repo.clone(),
            source,
        })?;
    let scope = Scope::from_options(Some(&case.range()), &[], false, &[])?;
    let req = ReviewRequest {
        template: c.template.clone(),
        inputs: BTreeMap::new(),
        scope: Some(scope),
        change: None,
        context_file: None,
        root: root.clone(),
        cwd: root.clone(),
    };
    let mut o = c.options.clone();
    o.rules = Some(Arc::new(ProjectRules::untrusted(&root, UNTRUSTED)));
    o.cancel = opts.cancel.clone();
    Ok(run_template(backend, &req, &o).await?)
}

/// Why a case's review did not run (the case is INCOMPLETE).
#[derive(Debug, thiserror::Error)]
enum CaseFailed {
    #[error("{}: {source}", path.display())]
    Repo {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Scope(#[from] crit_project::scope::ScopeError),
    #[error("the review could not start: {0}")]
    Review(#[from] crit_review::review::ReviewError),
}

/// Why a review's findings cannot be scored: it did not finish.
fn unfinished(r: &ReviewResult) -> Option<String> {
    let done = !matches!(
        r.verdict,
        Verdict::Unknown | Verdict::Error | Verdict::Incomplete
    ) && !r.fatal_error
        && r.parse_error.is_none();
    if done {
        return None;
    }
    let detail = r
        .parse_error
        .clone()
        .or_else(|| r.summary.lines().next().map(str::to_string))
        .unwrap_or_default();
    Some(format!(
        "the review ended {}{}",
        r.verdict.as_str(),
        match detail.trim() {
            "" => String::new(),
            d => format!(": {d}"),
        }
    ))
}

/// A finding the judge compares: a comment on the change, not one of crit's
/// own notes (a secret it hid) or a positive `info` note.
fn judged(f: &Finding) -> bool {
    f.reviewer != "crit" && f.severity != Severity::Info
}

pub(crate) fn add_spend(a: Spend, b: Spend) -> Spend {
    Spend {
        usage: a.usage + b.usage,
        cost_usd: crit_core::usage::add_cost(a.cost_usd, b.cost_usd),
        duration_ms: a.duration_ms + b.duration_ms,
    }
}

pub(crate) fn add_judge(a: JudgeSpend, b: JudgeSpend) -> JudgeSpend {
    JudgeSpend {
        usage: a.usage + b.usage,
        cost_usd: crit_core::usage::add_cost(a.cost_usd, b.cost_usd),
        pairs: a.pairs + b.pairs,
        cached: a.cached + b.cached,
        failed: a.failed + b.failed,
    }
}

fn millis(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{CaseSpec, Golden};

    #[test]
    fn a_case_that_never_ran_shows_its_cost_as_unknown() {
        let case = Case {
            name: "gone".into(),
            repo: "/nonexistent/repo".into(),
            spec: CaseSpec {
                base: "a".into(),
                head: "b".into(),
                language: None,
                url: None,
            },
            golden: Golden {
                pr_title: String::new(),
                url: String::new(),
                comments: Vec::new(),
                other: Default::default(),
            },
        };
        let r = not_yet_run(&case);
        assert_eq!(r.review.cost_usd, None);
        assert_eq!(crate::render::case_cost(&r), "unknown");
        // Once it ran, its own cost.
        let mut ran = r.clone();
        ran.review.cost_usd = Some(0.0);
        assert_eq!(crate::render::case_cost(&ran), "$0.0000");
    }
}
