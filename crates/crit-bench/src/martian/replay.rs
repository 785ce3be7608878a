//! Recorded benchmark data scored by both arithmetics: golden comments (the
//! `golden_comments/*.json` files), one tool's candidates (`candidates.json`)
//! and the judge's answer for each (golden comment, candidate) pair, with
//! no model and no review. This is how crit's numbers are checked against
//! the benchmark's own.
//!
//! The benchmark publishes no per-pair answers (its `evaluations.json`
//! keeps only each golden comment's best match), so they are read in the
//! shape its judge step holds them while scoring:
//! `{PR URL: {TOOL: [{"golden", "candidate", "result"}]}}`, `result` being the
//! judge's parsed JSON (`{reasoning, match, confidence}`) or `{"error": …}`
//! for a pair that failed after its retries. A pair with no recorded answer
//! failed.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::export::Candidates;
use super::{PairAnswer, leaderboard, parse_judge_answer, score_review};
use crate::corpus::Golden;
use crate::matching::{Candidate, one_to_one};
use crate::score::Score;

/// One recorded judge answer.
#[derive(Debug, Clone, Deserialize)]
pub struct Decision {
    pub golden: String,
    pub candidate: String,
    pub result: Value,
}

/// Recorded answers: PR URL → tool → answers.
pub type Decisions = BTreeMap<String, BTreeMap<String, Vec<Decision>>>;

/// Both arithmetics' totals for one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Replayed {
    /// The benchmark's leaderboard arithmetic.
    pub martian: Score,
    /// Reviews in it (those with golden comments).
    pub martian_reviews: usize,
    /// crit's strict one-to-one scoring.
    pub strict: Score,
    /// Reviews in it (those whose every pair was decided).
    pub strict_reviews: usize,
}

/// Scores `tool` over every pull request of `golden` it has candidates for.
pub fn replay(
    golden: &[Golden],
    candidates: &Candidates,
    decisions: &Decisions,
    tool: &str,
) -> Replayed {
    let mut m = (0, 0, 0, 0);
    let mut strict = Score::default();
    let mut strict_reviews = 0;
    for pr in golden {
        let Some(cands) = candidates.get(&pr.url).and_then(|t| t.get(tool)) else {
            continue;
        };
        let texts: Vec<&str> = cands.iter().map(|c| c.text.as_str()).collect();
        let goldens: Vec<&str> = pr.comments.iter().map(|c| c.comment.as_str()).collect();
        let recorded = decisions.get(&pr.url).and_then(|t| t.get(tool));
        let answer = |g: usize, c: usize| -> PairAnswer {
            recorded
                .and_then(|d| {
                    d.iter()
                        .find(|x| x.golden == goldens[g] && x.candidate == texts[c])
                })
                .and_then(|d| parse_judge_answer(&d.result.to_string()))
                .map_or(PairAnswer::Failed, |(a, _)| a)
        };
        if let Some(s) = score_review(&goldens, &texts, answer) {
            m = (m.0 + s.tp, m.1 + s.fp, m.2 + s.fn_, m.3 + 1);
        }
        // crit's: a pair the judge could not decide leaves the review out.
        let mut pairs = Vec::new();
        let mut undecided = false;
        for g in 0..goldens.len() {
            for c in 0..texts.len() {
                match answer(g, c) {
                    PairAnswer::Answer {
                        matched: true,
                        confidence,
                    } => pairs.push(Candidate {
                        golden: g,
                        finding: c,
                        confidence,
                    }),
                    PairAnswer::Answer { .. } => {}
                    PairAnswer::Failed => undecided = true,
                }
            }
        }
        if undecided {
            continue;
        }
        let kept = one_to_one(&pairs, goldens.len(), texts.len()).len();
        strict = strict.plus(Score::new(kept, texts.len() - kept, goldens.len() - kept));
        strict_reviews += 1;
    }
    Replayed {
        martian: leaderboard(m.0, m.1, m.2),
        martian_reviews: m.3,
        strict,
        strict_reviews,
    }
}
