//! One-to-one matching: a finding matches at most one golden comment, and a
//! golden comment at most one finding.
//!
//! The judge may call several pairs a match (two findings of one problem,
//! one broad finding covering two comments). Of those pairs crit keeps the
//! most it can at once (a maximum matching): a pair is never lost because a
//! more confident pair took its finding while another finding could have
//! served. Which pairs, when there is a choice, is deterministic: golden
//! comments are taken in corpus order, each trying its findings from the
//! judge's highest confidence down (then in report order), and an earlier
//! comment gives up its finding only when it can take another.

/// A pair the judge called a match.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    pub golden: usize,
    pub finding: usize,
    pub confidence: f64,
}

/// The pairs kept, sorted by golden comment.
pub fn one_to_one(candidates: &[Candidate], goldens: usize, findings: usize) -> Vec<Candidate> {
    // Each golden comment's findings, most confident first.
    let mut options: Vec<Vec<Candidate>> = vec![Vec::new(); goldens];
    for c in candidates
        .iter()
        .filter(|c| c.golden < goldens && c.finding < findings)
    {
        options[c.golden].push(*c);
    }
    for o in &mut options {
        o.sort_by(|a, b| {
            b.confidence
                .total_cmp(&a.confidence)
                .then(a.finding.cmp(&b.finding))
        });
        o.dedup_by_key(|c| c.finding);
    }
    // taken[f] = the golden comment finding f serves.
    let mut taken: Vec<Option<usize>> = vec![None; findings];
    for g in 0..goldens {
        let mut seen = vec![false; findings];
        augment(g, &options, &mut taken, &mut seen);
    }
    let mut kept: Vec<Candidate> = taken
        .iter()
        .enumerate()
        .filter_map(|(f, g)| {
            let g = (*g)?;
            options[g].iter().find(|c| c.finding == f).copied()
        })
        .collect();
    kept.sort_by_key(|c| c.golden);
    kept
}

/// Kuhn's augmenting path from golden comment `g`: take a free finding, or
/// one whose comment can move to another.
fn augment(
    g: usize,
    options: &[Vec<Candidate>],
    taken: &mut [Option<usize>],
    seen: &mut [bool],
) -> bool {
    for c in &options[g] {
        if seen[c.finding] {
            continue;
        }
        seen[c.finding] = true;
        let free = match taken[c.finding] {
            None => true,
            Some(other) => augment(other, options, taken, seen),
        };
        if free {
            taken[c.finding] = Some(g);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(golden: usize, finding: usize, confidence: f64) -> Candidate {
        Candidate {
            golden,
            finding,
            confidence,
        }
    }

    fn pairs(kept: &[Candidate]) -> Vec<(usize, usize)> {
        kept.iter().map(|c| (c.golden, c.finding)).collect()
    }

    #[test]
    fn a_finding_serves_one_comment_and_the_most_pairs_are_kept() {
        // F0 matches both comments (most confidently G0); F1 only G0. The
        // greedy choice G0–F0 would leave G1 unmatched.
        let kept = one_to_one(&[c(0, 0, 0.9), c(1, 0, 0.7), c(0, 1, 0.8)], 2, 2);
        assert_eq!(pairs(&kept), vec![(0, 1), (1, 0)]);
    }

    #[test]
    fn a_comment_takes_its_most_confident_finding() {
        let kept = one_to_one(&[c(0, 0, 0.6), c(0, 1, 0.9), c(0, 2, 0.9)], 1, 3);
        assert_eq!(pairs(&kept), vec![(0, 1)]);
        // Two comments for one finding: one pair.
        let kept = one_to_one(&[c(0, 0, 0.5), c(1, 0, 0.9)], 2, 1);
        assert_eq!(kept.len(), 1);
        assert_eq!(one_to_one(&[], 3, 3), vec![]);
        // Out of range indexes are ignored, never a panic.
        assert_eq!(one_to_one(&[c(5, 0, 1.0), c(0, 9, 1.0)], 1, 1), vec![]);
    }
}
