//! The verification pass: before a finding can block, a second reviewer
//! with read-only tools looks at it where it points and confirms it, lowers
//! its priority, or refutes it. It runs on the review's own provider, with
//! the model settings give it (`models: {verify: …}`; haiku on Anthropic's
//! API, the review's own model on an OpenAI-compatible server).
//!
//! Its word alone removes nothing. A refutation or a lower priority counts
//! only with the code that shows it (`disproof`: a file and the quoted
//! lines), which crit finds in the file exactly as written (a look-alike
//! letter, an invisible character or a slip is other code, though the
//! evidence check forgives them in a reviewer's quote, where they can only
//! keep a finding); a
//! refuted finding then moves to `dismissed` (cause `not_confirmed`, the
//! quote and where it was found as the proof). Without that the finding is
//! kept as reported, marked `disputed`, and still counts. A verifier that
//! fails leaves its finding as it was: a blocker is never dropped because a
//! check could not run. Each decision is a progress line saying what it did.

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

use super::evidence::{self, Found, Sources};
use crate::engine::panel::{self, PanelEnv, ProgressEvent, ReviewerPlan, SharedPrompt};
use crate::engine::prompts::{OutputSpec, render_prompt};

pub(super) const PROMPT: &str = include_str!("../../../../prompts/verify.md");
/// The verifier's name in transcripts and in `reviewers`.
pub(crate) const VERIFIER: &str = "verifier";
/// The model verifiers use on Anthropic's API unless told otherwise.
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

/// A verification mode crit does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown verification mode `{given}`: use off, blocking or all")]
pub struct UnknownVerifyMode {
    pub given: String,
}

impl FromStr for VerifyMode {
    type Err = UnknownVerifyMode;
    fn from_str(s: &str) -> Result<Self, UnknownVerifyMode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "none" | "false" => Ok(VerifyMode::Off),
            "blocking" | "on" | "true" => Ok(VerifyMode::Blocking),
            "all" => Ok(VerifyMode::All),
            other => Err(UnknownVerifyMode {
                given: other.to_string(),
            }),
        }
    }
}

/// The verification settings of a review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifySettings {
    pub mode: VerifyMode,
    /// The verifier's model; empty: the backend's default ([`model_for`]).
    pub model: String,
}

/// The verifier's model: the one given, else haiku on a backend that serves
/// Anthropic's models, else (an OpenAI-compatible server, which has no
/// haiku) the review's own model.
pub(crate) fn model_for(given: &str, backend: &Backend, review_model: &str) -> String {
    match (given.trim(), backend.model.name()) {
        ("", "openai") => review_model.to_string(),
        ("", _) => DEFAULT_MODEL.to_string(),
        (m, _) => m.to_string(),
    }
}

impl Default for VerifySettings {
    fn default() -> Self {
        VerifySettings {
            mode: VerifyMode::Blocking,
            model: DEFAULT_MODEL.to_string(),
        }
    }
}

/// Runs the pass over `findings`; those refuted with a disproof crit found
/// move to `dismissed`. Returns the verifiers' part of the review (usage,
/// cost), or `None` when nothing was verified. `budget_usd`: what the whole
/// review may spend; the checks get what is left of it, and with nothing
/// left none is sent and the findings stay as reported.
pub(crate) async fn run(
    findings: &mut Vec<Finding>,
    dismissed: &mut Vec<Dismissed>,
    settings: &VerifySettings,
    backend: &Backend,
    env: &PanelEnv,
    src: &Sources<'_>,
    budget_usd: Option<f64>,
) -> Option<ReviewerOutcome> {
    let picked: Vec<usize> = (0..findings.len())
        .filter(|i| settings.mode.wants(&findings[*i]))
        .collect();
    if picked.is_empty() {
        return None;
    }
    if let Some(max) = budget_usd.filter(|max| env.spend.usd() >= *max) {
        return Some(not_checked(settings, env, picked.len(), max));
    }
    let system = match render_prompt(PROMPT, minijinja::context! {}) {
        Ok(s) => s,
        Err(e) => {
            tracing::error!("the verification prompt does not render: {e}");
            return None;
        }
    };
    // The checks share the review's meter: each stops once the review's
    // budget is spent.
    let plans: Vec<ReviewerPlan> = picked
        .iter()
        .map(|i| {
            let mut p = plan(&findings[*i], &system, settings);
            p.limits.max_budget_usd = budget_usd;
            p
        })
        .collect();
    // The generic "done" line cannot say what a decision did: each gets its own.
    let mut quiet = env.clone();
    quiet.progress = None;
    if let Some(p) = &env.progress {
        p.event(&ProgressEvent::Started {
            reviewer: VERIFIER.into(),
            model: settings.model.clone(),
        });
    }
    let runs = panel::run_panel(backend, &plans, &quiet).await;
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
        let title = findings[*i].title.clone();
        let did = match read(run.structured.as_ref()) {
            Some(d) => match proven(d, src, &findings[*i]) {
                Proven::Refuted(reason, proof) => {
                    refuted.push((*i, reason, proof, by));
                    "refuted with the code that disproves it: dismissed".to_string()
                }
                other => {
                    let before = findings[*i].clone();
                    let proof = match &other {
                        Proven::Downgraded(_, _, proof) => proof.clone(),
                        _ => String::new(),
                    };
                    let did = apply(&mut findings[*i], other, by.clone());
                    // A lowered finding is listed in `dismissed` as reported,
                    // with its proof: every finding a check took from the
                    // gate is there.
                    if findings[*i].severity != before.severity {
                        dismissed.push(Dismissed {
                            reason: format!(
                                "lowered from {} to {} on a second look by {by}",
                                before.severity.code(),
                                findings[*i].severity.code()
                            ),
                            finding: before,
                            cause: "lowered".into(),
                            proof,
                        });
                    }
                    did
                }
            },
            None => {
                failed += 1;
                "no decision crit could read: kept as reported".to_string()
            }
        };
        if let Some(p) = &env.progress {
            p.event(&ProgressEvent::Note {
                reviewer: VERIFIER.into(),
                text: format!("“{}”: {did}", short_title(&title)),
            });
        }
    }
    if failed > 0 {
        outcome.error = Some(format!(
            "{failed} of {} checks did not answer; their findings stay as reported",
            picked.len()
        ));
    }
    for (i, reason, proof, by) in refuted.iter().rev() {
        let finding = findings.remove(*i);
        dismissed.push(Dismissed {
            finding,
            cause: "not_confirmed".into(),
            reason: format!("refuted on a second look by {by}: {reason}"),
            proof: proof.clone(),
        });
    }
    Some(outcome)
}

/// No check sent: the review's budget was spent before the second look.
/// The findings stay as reported, and the review says why.
fn not_checked(settings: &VerifySettings, env: &PanelEnv, n: usize, max: f64) -> ReviewerOutcome {
    let why = format!(
        "the review's budget of ${max:.2} was spent (${:.2}) before the second look: {n} finding{} not checked, kept as reported",
        env.spend.usd(),
        if n == 1 { "" } else { "s" }
    );
    if let Some(p) = &env.progress {
        p.event(&ProgressEvent::Note {
            reviewer: VERIFIER.into(),
            text: why.clone(),
        });
    }
    ReviewerOutcome {
        name: VERIFIER.into(),
        status: ReviewerStatus::Skipped,
        verdict: Verdict::Pass,
        model: Some(crit_llm::pricing::resolve_alias(&settings.model)),
        findings: 0,
        usage: Usage::default(),
        cost_usd: Some(0.0),
        duration_ms: 0,
        error: Some(why),
    }
}

fn short_title(t: &str) -> String {
    let one = t.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

pub(super) enum Decision {
    Confirmed(String),
    Downgraded(Severity, String, Option<Disproof>),
    Refuted(String, Option<Disproof>),
}

/// The code a verifier quoted to show a finding wrong.
pub(super) struct Disproof {
    path: String,
    quote: String,
}

/// A decision once its disproof was checked.
pub(super) enum Proven {
    Confirmed(String),
    /// Lowered, with the proof.
    Downgraded(Severity, String, String),
    Refuted(String, String),
    /// Refuted or lowered without code crit found: kept, marked.
    Disputed(String, String),
}

pub(super) fn read(answer: Option<&Value>) -> Option<Decision> {
    let v = answer?;
    let reason = v.get("reason")?.as_str()?.trim().to_string();
    let disproof = v.get("disproof").and_then(|d| {
        Some(Disproof {
            path: d.get("file_path")?.as_str()?.to_string(),
            quote: d.get("quote")?.as_str()?.to_string(),
        })
    });
    match v.get("outcome")?.as_str()? {
        "confirmed" => Some(Decision::Confirmed(reason)),
        "refuted" => Some(Decision::Refuted(reason, disproof)),
        "downgraded" => {
            let p = v.get("priority").and_then(Value::as_u64)?;
            Some(Decision::Downgraded(
                Severity::from_priority(p)?,
                reason,
                disproof,
            ))
        }
        _ => None,
    }
}

/// Lines around a finding a disproof may come from.
const NEAR: u32 = 30;

/// A refutation or a lower priority stands only with code crit finds where
/// the finding points: in its own file, within [`NEAR`] lines of its lines
/// and not only those lines themselves, and code rather than a comment, a
/// brace or a lone keyword. A quote from anywhere else in the project shows
/// only that the verifier can quote; the finding is then kept, disputed.
pub(super) fn proven(d: Decision, src: &Sources<'_>, f: &Finding) -> Proven {
    let check = |d: &Option<Disproof>| -> Result<String, Unproven> {
        let Some(d) = d else {
            return Err(Unproven("it quoted no code that shows it".into()));
        };
        if !substantive(&d.quote) {
            return Err(Unproven(format!(
                "it quoted `{}`, which is no code that could show it (a comment, a brace or a lone word)",
                d.quote.trim()
            )));
        }
        let theirs = f.location.as_ref().map(|l| l.path().to_string());
        let same_file = match (&theirs, evidence::resolve(src, &d.path)) {
            (Some(t), Some(q)) => evidence::resolve(src, t).as_deref() == Some(q.as_str()),
            _ => false,
        };
        if !same_file {
            return Err(Unproven(format!(
                "it quoted `{}`, not the finding's own file",
                d.path
            )));
        }
        let lines = f
            .location
            .as_ref()
            .and_then(|l| Some((l.start_line()?, l.end_line().or(l.start_line())?)));
        match evidence::locate(src, &d.path, &d.quote) {
            Found::There(at) => {
                let fits = |(s, e): &(u32, u32)| match lines {
                    Some((start, end)) => {
                        let near = *e + NEAR >= start && *s <= end.saturating_add(NEAR);
                        let only_its_own = *s >= start && *e <= end;
                        near && !only_its_own
                    }
                    None => true,
                };
                match at.iter().find(|r| fits(r)) {
                    Some((s, e)) => Ok(format!(
                        "the verifier quoted `{}` from `{}`; crit found it there at lines {s}–{e}",
                        d.quote.trim(),
                        d.path
                    )),
                    None => Err(Unproven(match lines {
                        Some((start, end)) => format!(
                            "the code it quoted is not within {NEAR} lines of the finding's lines {start}–{end}, or is only those lines"
                        ),
                        None => "crit could not find the code it quoted on lines of its own".into(),
                    })),
                }
            }
            Found::NotThere(why) => {
                Err(Unproven(format!("the code it quoted is not there ({why})")))
            }
            Found::Unchecked(why) => Err(Unproven(format!(
                "the code it quoted could not be checked ({why})"
            ))),
        }
    };
    match d {
        Decision::Confirmed(r) => Proven::Confirmed(r),
        Decision::Refuted(r, proof) => match check(&proof) {
            Ok(p) => Proven::Refuted(r, p),
            Err(Unproven(why)) => Proven::Disputed(r, why),
        },
        Decision::Downgraded(s, r, proof) => match check(&proof) {
            Ok(p) => Proven::Downgraded(s, r, p),
            Err(Unproven(why)) => Proven::Disputed(r, why),
        },
    }
}

/// Why a verifier's quote does not prove what it claims.
struct Unproven(String);

/// Whether a quote holds a line of code: not a comment, with at least two
/// words or numbers (`x < 10`, not `}` or `return`).
fn substantive(quote: &str) -> bool {
    quote.lines().any(|line| {
        let t = line.trim();
        let comment = ["//", "#", "/*", "* ", "*/", "--", "<!--"]
            .iter()
            .any(|m| t.starts_with(m));
        let words = t
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .filter(|w| !w.is_empty())
            .count();
        !comment && words >= 2
    })
}

/// Marks `f` with the decision; returns what it did, for the progress line.
fn apply(f: &mut Finding, d: Proven, by: String) -> String {
    let (outcome, reason, reported, did) = match d {
        // Only ever lower: a verifier does not make a finding more severe.
        Proven::Downgraded(s, reason, _) if s > f.severity => {
            let was = f.severity;
            f.severity = s;
            let did = format!("lowered from {} to {}", was.code(), s.code());
            (VerificationOutcome::Downgraded, reason, Some(was), did)
        }
        Proven::Downgraded(_, reason, _) | Proven::Confirmed(reason) => (
            VerificationOutcome::Confirmed,
            reason,
            None,
            format!("confirmed ({} stays)", f.severity.code()),
        ),
        Proven::Disputed(reason, why) => (
            VerificationOutcome::Disputed,
            format!("{reason} (not applied: {why})"),
            None,
            format!("disputed, but {why}: kept as {}", f.severity.code()),
        ),
        Proven::Refuted(..) => return "refuted".into(),
    };
    f.verification = Some(Verification {
        outcome,
        reason,
        reported_severity: reported,
        by,
    });
    did
}

pub(super) fn plan(f: &Finding, system: &str, settings: &VerifySettings) -> ReviewerPlan {
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
            "reason": {"type": "string"},
            "disproof": {
                "type": "object",
                "properties": {
                    "file_path": {"type": "string"},
                    "quote": {"type": "string"}
                },
                "required": ["file_path", "quote"],
                "additionalProperties": false
            }
        },
        "required": ["outcome", "reason"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crit_core::Location;

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
            Proven::Downgraded(Severity::P0, "worse".into(), "proof".into()),
            "v".into(),
        );
        assert_eq!(f.severity, Severity::P1);
        assert_eq!(
            f.verification.as_ref().unwrap().outcome,
            VerificationOutcome::Confirmed
        );
        apply(
            &mut f,
            Proven::Downgraded(Severity::P3, "minor".into(), "proof".into()),
            "v".into(),
        );
        assert_eq!(f.severity, Severity::P3);
        assert_eq!(
            f.verification.as_ref().unwrap().reported_severity,
            Some(Severity::P1)
        );
        assert_eq!(f.id, id);
    }

    #[test]
    fn a_refutation_without_code_crit_finds_is_a_dispute() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("a.rs"),
            "fn check(x: u8) -> bool {\n    x < 10\n}\n// x < 10 as a comment\nfn other() { let y = 1; }\n",
        )
        .unwrap();
        let files = vec!["a.rs".to_string()];
        let src = Sources {
            root: d.path(),
            patch: "",
            files: &files,
            conventions: "",
        };
        // The finding points at the signature, line 1.
        let at =
            Finding::new("x", Severity::P0, "code").with_location(Location::lines("a.rs", 1, 1));
        let answer = |extra: Value| {
            let mut v = json!({"outcome": "refuted", "reason": "it is checked"});
            if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
                o.extend(e.clone());
            }
            read(Some(&v)).unwrap()
        };
        assert!(matches!(
            proven(answer(json!({})), &src, &at),
            Proven::Disputed(..)
        ));
        let fake =
            json!({"disproof": {"file_path": "a.rs", "quote": "if x > 200 { return false; }"}});
        assert!(matches!(
            proven(answer(fake), &src, &at),
            Proven::Disputed(..)
        ));
        let outside = json!({"disproof": {"file_path": "../etc/passwd", "quote": "root"}});
        assert!(matches!(
            proven(answer(outside), &src, &at),
            Proven::Disputed(..)
        ));
        let real = json!({"disproof": {"file_path": "b/a.rs", "quote": "x < 10"}});
        match proven(answer(real), &src, &at) {
            Proven::Refuted(_, proof) => assert!(
                proof.contains("crit found it there at lines 2–2"),
                "{proof}"
            ),
            _ => panic!("a quote that is there proves it"),
        }
        // No code, a comment, a lone word, another file, or the finding's
        // own line: none of them shows it wrong.
        for (path, quote) in [
            ("a.rs", "}"),
            ("a.rs", "// x < 10 as a comment"),
            ("a.rs", "  return  "),
            ("a.rs", "fn check(x: u8) -> bool {"),
            // Read as a person would, or a slip away: other code to a compiler.
            ("a.rs", "\u{0445} < 10"),
            ("a.rs", "x\u{200B} < 10"),
            ("a.rs", "x < 100"),
            ("a.rs", "x <= 10"),
        ] {
            let d = json!({"disproof": {"file_path": path, "quote": quote}});
            assert!(
                matches!(proven(answer(d), &src, &at), Proven::Disputed(..)),
                "{quote}"
            );
        }
        std::fs::write(d.path().join("b.rs"), "let z = x < 10;\n").unwrap();
        let elsewhere = json!({"disproof": {"file_path": "b.rs", "quote": "let z = x < 10;"}});
        assert!(matches!(
            proven(answer(elsewhere), &src, &at),
            Proven::Disputed(..)
        ));
        // Far from the finding: a finding at line 40 of a longer file.
        let far =
            Finding::new("x", Severity::P0, "code").with_location(Location::lines("a.rs", 40, 40));
        let real = json!({"disproof": {"file_path": "a.rs", "quote": "x < 10"}});
        assert!(matches!(
            proven(answer(real), &src, &far),
            Proven::Disputed(..)
        ));
        let mut f = Finding::new("x", Severity::P0, "code");
        let did = apply(&mut f, proven(answer(json!({})), &src, &at), "v".into());
        assert_eq!(f.severity, Severity::P0);
        assert_eq!(
            f.verification.as_ref().unwrap().outcome,
            VerificationOutcome::Disputed
        );
        assert!(did.starts_with("disputed"), "{did}");
    }
}
