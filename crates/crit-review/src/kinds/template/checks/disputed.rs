//! Findings dismissed on a dispute in their thread, remembered on later
//! runs over the same change. A person disputed the finding, the re-check
//! quoted code that shows it wrong and crit checked the quote was there;
//! the forge's thread keeps that record (crit's own answer). A later run
//! that reports the same finding (its fingerprint) dismisses it again only
//! when the same quote still passes the same proof rules at this revision
//! (in the finding's file, near its lines, not only those lines): code that
//! moved or changed keeps the finding, since could-not-check keeps.

use crit_core::{Dismissed, ReviewResult};

use super::evidence::Sources;
use super::verify::{self, Proven};

/// One finding crit dismissed on a dispute, as its thread records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisputeDismissal {
    /// The finding's fingerprint.
    pub fingerprint: String,
    /// The code the re-check quoted, and its file.
    pub path: String,
    pub quote: String,
    /// The proof as crit gave it then.
    pub proof: String,
    /// The thread it was dismissed in (its address, else an id).
    pub thread: String,
}

/// Moves each finding of `result` that one of `dismissals` names, and
/// whose quote still proves it wrong here, to `dismissed`.
pub(crate) fn apply(dismissals: &[DisputeDismissal], src: &Sources<'_>, result: &mut ReviewResult) {
    if dismissals.is_empty() {
        return;
    }
    let mut kept = Vec::new();
    for f in std::mem::take(&mut result.findings) {
        let Some(d) = dismissals
            .iter()
            .find(|d| !f.id.is_empty() && d.fingerprint.eq_ignore_ascii_case(&f.id))
        else {
            kept.push(f);
            continue;
        };
        let decision = verify::read(Some(&serde_json::json!({
            "outcome": "refuted",
            "reason": "dismissed on a dispute in its thread",
            "disproof": {"file_path": d.path, "quote": d.quote},
        })));
        match decision.map(|d| verify::proven(d, src, &f)) {
            Some(Proven::Refuted(_, now)) => result.dismissed.push(Dismissed {
                reason: format!(
                    "dismissed on a dispute in its thread ({}); the same finding again",
                    d.thread
                ),
                proof: format!("{} (then); {now} (at this revision)", d.proof),
                finding: f,
                cause: "dispute".into(),
            }),
            _ => {
                tracing::info!(
                    "finding {} was dismissed on a dispute, but its proof no longer holds here: kept",
                    f.id
                );
                kept.push(f);
            }
        }
    }
    result.findings = kept;
}

impl DisputeDismissal {
    /// From a re-check's proof (`the verifier quoted `Q` from `P`; crit
    /// found it there …`, as the proof rules write it); `None` for any
    /// other text, which then is not remembered.
    pub fn from_proof(fingerprint: &str, proof: &str, thread: &str) -> Option<DisputeDismissal> {
        let rest = proof.strip_prefix("the verifier quoted `")?;
        let (quote, rest) = rest.rsplit_once("` from `")?;
        let (path, _) = rest.split_once("`; crit found it there")?;
        Some(DisputeDismissal {
            fingerprint: fingerprint.to_string(),
            path: path.to_string(),
            quote: quote.to_string(),
            proof: proof.to_string(),
            thread: thread.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_gives_its_quote_and_file() {
        let d = DisputeDismissal::from_proof(
            "ab",
            "the verifier quoted `let x = a `from` b;` from `src/lib.rs`; crit found it there at lines 3–3",
            "t",
        )
        .unwrap();
        assert_eq!(
            (d.path.as_str(), d.quote.as_str()),
            ("src/lib.rs", "let x = a `from` b;")
        );
        assert!(DisputeDismissal::from_proof("ab", "matched a suppression", "t").is_none());
    }
}
