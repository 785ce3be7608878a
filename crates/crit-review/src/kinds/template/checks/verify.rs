//! The verification pass: before a finding can block, a second, cheap
//! reviewer (haiku by default) with read-only tools looks at it where it
//! points and confirms it, lowers its priority, or refutes it with a reason.
//! Refuted findings move to `dismissed` (cause `not_confirmed`); the others
//! keep their fingerprint and carry the verifier's note. A verifier that
//! fails leaves its finding as it was: a blocker is never dropped because a
//! check could not run.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crit_agent::RunLimits;
use crit_core::{
    Dismissed, Finding, ReviewerOutcome, ReviewerStatus, Severity, Usage, Verdict, Verification,
    VerificationOutcome,
};
use crit_llm::Backend;
use serde_json::{Value, json};

use crate::engine::panel::{self, PanelEnv, ReviewerPlan, SharedPrompt};
use crate::engine::prompts::{OutputSpec, render_prompt};

const PROMPT: &str = include_str!("../../../../prompts/verify.md");
/// The verifier's name in transcripts and in `reviewers`.
pub(crate) const VERIFIER: &str = "verifier";
/// The model verifiers use unless told otherwise.
pub(crate) const DEFAULT_MODEL: &str = "haiku";

/// Which findings get a second look (`verify:` / `--verify`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VerifyMode {
    Off,
    /// P0 and P1 findings: the ones that can block.
    #[default]
    Blocking,
    /// Every finding but `info` notes.
    All,
}

impl VerifyMode {
    pub const NAMES: [&'static str; 3] = ["off", "blocking", "all"];

    fn wants(self, f: &Finding) -> bool {
        // crit's own findings are facts, and a cached one was checked when found.
        if f.reviewer == "crit" || f.cached {
            return false;
        }
        match self {
            VerifyMode::Off => false,
            VerifyMode::Blocking => f.severity.at_least(Severity::P1),
            VerifyMode::All => f.severity != Severity::Info,
        }
    }
}

impl fmt::Display for VerifyMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VerifyMode::Off => "off",
            VerifyMode::Blocking => "blocking",
            VerifyMode::All => "all",
        })
    }
}

impl FromStr for VerifyMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "none" | "false" => Ok(VerifyMode::Off),
            "blocking" | "on" | "true" => Ok(VerifyMode::Blocking),
            "all" => Ok(VerifyMode::All),
            other => Err(format!(
                "unknown verification mode `{other}`: use off, blocking or all"
            )),
        }
    }
}

/// The verification settings of a review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifySettings {
    pub mode: VerifyMode,
    /// The verifier's model (default: haiku).
    pub model: String,
}

impl Default for VerifySettings {
    fn default() -> Self {
        VerifySettings {
            mode: VerifyMode::Blocking,
            model: DEFAULT_MODEL.to_string(),
        }
    }
}

/// Runs the pass over `findings`; refuted ones move to `dismissed`. Returns
/// the verifiers' part of the review (usage, cost), or `None` when nothing
/// was verified.
pub(crate) async fn run(
    findings: &mut Vec<Finding>,
    dismissed: &mut Vec<Dismissed>,
    settings: &VerifySettings,
    backend: &Backend,
    env: &PanelEnv,
) -> Option<ReviewerOutcome> {
    let picked: Vec<usize> = (0..findings.len())
        .filter(|i| settings.mode.wants(&findings[*i]))
        .collect();
    if picked.is_empty() {
        return None;
    }
    let system = match render_prompt(PROMPT, minijinja::context! {}) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!("the verification prompt does not render: {e}");
            return None;
        }
    };
    let plans: Vec<ReviewerPlan> = picked
        .iter()
        .map(|i| plan(&findings[*i], &system, settings))
        .collect();
    let runs = panel::run_panel(backend, &plans, env).await;
    let mut outcome = ReviewerOutcome {
        name: VERIFIER.into(),
        status: ReviewerStatus::Completed,
        verdict: Verdict::Pass,
        model: Some(crit_llm::pricing::resolve_alias(&settings.model)),
        findings: 0,
        usage: Usage::default(),
        cost_usd: Some(0.0),
        duration_ms: 0,
        error: None,
    };
    let mut refuted = Vec::new();
    let mut failed = 0;
    for (i, run) in picked.iter().zip(&runs) {
        outcome.usage += run.outcome.usage;
        outcome.cost_usd = crit_core::usage::add_cost(outcome.cost_usd, run.outcome.cost_usd);
        outcome.duration_ms = outcome.duration_ms.max(run.outcome.duration_ms);
        let by = format!(
            "{VERIFIER} ({})",
            run.outcome
                .model
                .clone()
                .unwrap_or_else(|| settings.model.clone())
        );
        match read(run.structured.as_ref()) {
            Some(Decision::Refuted(reason)) => refuted.push((*i, reason, by)),
            Some(d) => apply(&mut findings[*i], d, by),
            None => failed += 1,
        }
    }
    if failed > 0 {
        outcome.error = Some(format!(
            "{failed} of {} checks did not answer; their findings stay as reported",
            picked.len()
        ));
    }
    for (i, reason, by) in refuted.iter().rev() {
        let finding = findings.remove(*i);
        dismissed.push(Dismissed {
            finding,
            cause: "not_confirmed".into(),
            reason: format!("refuted on a second look by {by}: {reason}"),
        });
    }
    Some(outcome)
}

enum Decision {
    Confirmed(String),
    Downgraded(Severity, String),
    Refuted(String),
}

fn read(answer: Option<&Value>) -> Option<Decision> {
    let v = answer?;
    let reason = v.get("reason")?.as_str()?.trim().to_string();
    match v.get("outcome")?.as_str()? {
        "confirmed" => Some(Decision::Confirmed(reason)),
        "refuted" => Some(Decision::Refuted(reason)),
        "downgraded" => {
            let p = v.get("priority").and_then(Value::as_u64)?;
            Some(Decision::Downgraded(Severity::from_priority(p)?, reason))
        }
        _ => None,
    }
}

fn apply(f: &mut Finding, d: Decision, by: String) {
    let (outcome, reason, reported) = match d {
        // Only ever lower: a verifier does not make a finding more severe.
        Decision::Downgraded(s, reason) if s > f.severity => {
            let was = f.severity;
            f.severity = s;
            (VerificationOutcome::Downgraded, reason, Some(was))
        }
        Decision::Downgraded(_, reason) | Decision::Confirmed(reason) => {
            (VerificationOutcome::Confirmed, reason, None)
        }
        Decision::Refuted(_) => return,
    };
    f.verification = Some(Verification {
        outcome,
        reason,
        reported_severity: reported,
        by,
    });
}

fn plan(f: &Finding, system: &str, settings: &VerifySettings) -> ReviewerPlan {
    let location = f
        .location
        .as_ref()
        .map(|l| l.display())
        .unwrap_or_else(|| "(no location)".into());
    let mut text = format!(
        "location: {location}\npriority: {}\ntitle: {}\n\n{}",
        f.severity.code(),
        f.title.trim(),
        f.body.trim()
    );
    if let Some(e) = &f.evidence {
        text.push_str(&format!("\n\nquoted as evidence:\n{}", e.trim()));
    }
    let user = format!(
        "The finding to check (reported by `{}`):\n<finding>\n{}\n</finding>\n\nCheck it in the code and give your decision.",
        f.reviewer,
        text.replace("</finding", "<\\/finding")
    );
    ReviewerPlan {
        name: VERIFIER.into(),
        model: settings.model.clone(),
        system: String::new(),
        user,
        shared: Some(SharedPrompt {
            system: system.to_string(),
            work: String::new(),
        }),
        tools: vec!["Read".into(), "Glob".into(), "Grep".into()],
        output: OutputSpec::Schema(schema()),
        limits: RunLimits {
            max_turns: Some(8),
            timeout: Some(Duration::from_secs(180)),
            max_tokens: None,
            max_budget_usd: None,
        },
        max_output_tokens: 2_048,
        sub_agents: Vec::new(),
    }
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "outcome": {"type": "string", "enum": ["confirmed", "downgraded", "refuted"]},
            "priority": {"type": "integer", "minimum": 0, "maximum": 3},
            "reason": {"type": "string"}
        },
        "required": ["outcome", "reason"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_pick_their_findings() {
        let f = |s| Finding::new("x", s, "code");
        assert!(VerifyMode::Blocking.wants(&f(Severity::P1)));
        assert!(!VerifyMode::Blocking.wants(&f(Severity::P2)));
        assert!(VerifyMode::All.wants(&f(Severity::P3)));
        assert!(!VerifyMode::All.wants(&f(Severity::Info)));
        assert!(!VerifyMode::Off.wants(&f(Severity::P0)));
        assert!(!VerifyMode::Blocking.wants(&Finding::new("x", Severity::P1, "crit")));
        assert_eq!("ALL".parse::<VerifyMode>(), Ok(VerifyMode::All));
        assert!("maybe".parse::<VerifyMode>().is_err());
    }

    #[test]
    fn the_verifier_prompts() {
        let system = render_prompt(PROMPT, minijinja::context! {}).unwrap();
        let mut f = Finding::new(
            "Connection leaks when the query fails",
            Severity::P1,
            "code",
        );
        f.location = Some(crit_core::Location::lines("src/db/pool.go", 41, 44));
        f.body = "The connection is never returned on the error path.".into();
        f.evidence = Some("conn := pool.Get()\nrows, err := conn.Query(q)".into());
        let p = plan(&f, &system, &VerifySettings::default());
        insta::assert_snapshot!("verify_system", system);
        insta::assert_snapshot!("verify_user", p.user);
    }

    #[test]
    fn a_verifier_only_ever_lowers() {
        let mut f = Finding::new("x", Severity::P1, "code");
        let id = f.id.clone();
        apply(
            &mut f,
            Decision::Downgraded(Severity::P0, "worse".into()),
            "v".into(),
        );
        assert_eq!(f.severity, Severity::P1);
        assert_eq!(
            f.verification.as_ref().unwrap().outcome,
            VerificationOutcome::Confirmed
        );
        apply(
            &mut f,
            Decision::Downgraded(Severity::P3, "minor".into()),
            "v".into(),
        );
        assert_eq!(f.severity, Severity::P3);
        assert_eq!(
            f.verification.as_ref().unwrap().reported_severity,
            Some(Severity::P1)
        );
        assert_eq!(f.id, id);
    }
}
