//! One reviewed case judged: the judge on every (golden comment, finding)
//! pair, then crit's strict one-to-one scoring and, when asked, the
//! benchmark's arithmetic, both from the same answers.

use crit_core::Finding;
use crit_llm::Backend;
use crit_review::panel::PanelEnv;

use crate::corpus::Case;
use crate::judge::{Asked, Judge};
use crate::martian::{self, PairAnswer};
use crate::matching::{Candidate, one_to_one};
use crate::report::{CaseCandidate, CaseReport, CaseStatus, Match};
use crate::run::BenchOptions;
use crate::score::{ByLevel, Level, Score};

/// A finding as one of the benchmark's candidates.
pub(crate) fn candidate(f: &Finding) -> CaseCandidate {
    let mut comment = f.title.trim().to_string();
    if let Some(l) = &f.location {
        comment.push_str(&format!("\n{}", l.display()));
    }
    if !f.body.trim().is_empty() {
        comment.push_str(&format!("\n\n{}", f.body.trim()));
    }
    CaseCandidate {
        finding: f.id.clone(),
        text: martian::candidate_text(f),
        path: f.location.as_ref().map(|l| l.path().to_string()),
        line: f
            .location
            .as_ref()
            .and_then(|l| l.start_line())
            .map(u64::from),
        comment,
    }
}

/// Judges a reviewed case (`findings` is `None` when its review did not
/// finish: nothing to judge) and scores it.
pub(crate) async fn judge_case(
    backend: &Backend,
    case: &Case,
    mut report: CaseReport,
    findings: Option<Vec<Finding>>,
    judge: &Judge,
    opts: &BenchOptions,
) -> (CaseReport, ByLevel) {
    let Some(findings) = findings else {
        return (report, ByLevel::default());
    };
    let env = PanelEnv {
        root: case.repo.clone(),
        cancel: opts.cancel.clone(),
        ..PanelEnv::default()
    };
    let asks = case
        .golden
        .comments
        .iter()
        .enumerate()
        .flat_map(|(g, golden)| {
            let (env, findings) = (&env, &findings);
            findings
                .iter()
                .enumerate()
                .map(move |(f, finding)| async move {
                    let asked = judge
                        .ask(backend, env, &case.golden.pr_title, golden, finding)
                        .await;
                    (g, f, asked)
                })
        });
    let answers: Vec<(usize, usize, Asked)> = futures_util::future::join_all(asks).await;
    if opts.martian_scoring {
        report.martian = martian_score(case, &findings, &answers);
    }
    let mut candidates = Vec::new();
    let mut failures = Vec::new();
    for (g, f, a) in &answers {
        report.judge.pairs += 1;
        report.judge.cached += usize::from(a.cached);
        report.judge.usage += a.usage;
        report.judge.cost_usd = crit_core::usage::add_cost(report.judge.cost_usd, a.cost_usd);
        match &a.judgement {
            Ok(j) if j.matched => candidates.push(Candidate {
                golden: *g,
                finding: *f,
                confidence: j.confidence,
            }),
            Ok(_) => {}
            Err(e) => failures.push(e.clone()),
        }
    }
    report.judge.failed = failures.len();
    if let Some(first) = failures.first() {
        report.reason = Some(format!(
            "the judge could not decide {} of {} pairs ({first}); the case counts neither as matched nor as missed",
            failures.len(),
            answers.len()
        ));
        return (report, ByLevel::default());
    }
    let kept = one_to_one(&candidates, case.golden.comments.len(), findings.len());
    let mut levels = ByLevel::default();
    for (g, golden) in case.golden.comments.iter().enumerate() {
        match kept.iter().any(|k| k.golden == g) {
            true => levels.tp(Level::of_golden(&golden.severity)),
            false => levels.fn_(Level::of_golden(&golden.severity)),
        }
    }
    for (f, finding) in findings.iter().enumerate() {
        if !kept.iter().any(|k| k.finding == f) {
            levels.fp(Level::of_finding(finding.severity));
        }
    }
    report.matches = kept
        .iter()
        .map(|k| Match {
            golden: k.golden,
            finding: findings[k.finding].id.clone(),
            confidence: k.confidence,
        })
        .collect();
    report.score = Some(Score::new(
        kept.len(),
        findings.len() - kept.len(),
        case.golden.comments.len() - kept.len(),
    ));
    report.by_severity = levels.scores();
    report.status = CaseStatus::Complete;
    (report, levels)
}

/// The case under the benchmark's rules, from the same answers: a pair the
/// judge could not decide is no match.
fn martian_score(
    case: &Case,
    findings: &[Finding],
    answers: &[(usize, usize, Asked)],
) -> Option<Score> {
    let golden: Vec<&str> = case
        .golden
        .comments
        .iter()
        .map(|c| c.comment.as_str())
        .collect();
    let texts: Vec<String> = findings.iter().map(martian::candidate_text).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    martian::score_review(&golden, &texts, |g, f| {
        answers
            .iter()
            .find(|(ag, af, _)| *ag == g && *af == f)
            .and_then(|(_, _, a)| a.judgement.as_ref().ok())
            .map_or(PairAnswer::Failed, |j| PairAnswer::Answer {
                matched: j.matched,
                confidence: j.confidence,
            })
    })
}
