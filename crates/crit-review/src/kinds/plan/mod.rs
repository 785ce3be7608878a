//! The LLM panel of a plan review (expert-review): each persona of the panel
//! reviews the plan as an LLM reviewer with its domain and focus, all of them
//! concurrently, and all must approve. When context.yaml names no panel,
//! AUTO-SELECT asks a cheap model to pick one and falls back to expert-review's
//! default panel on any failure; the pick is completed by the document's panel
//! rules (crit-checks's `panel_rules`: never one reviewer, a physicist and a
//! mathematician on a physics project, Claude always). crit-checks decides
//! when to ask (after the deterministic checks approve, before the marker is
//! written).

mod review;
mod voice;

pub use review::{PanelChoice, PlanOutcome, PlanReview, review_plan};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crit_agent::RunLimits;
use crit_checks::{
    MemberSummary, Panel, PanelRequest, PanelVote, Persona, VoiceRequest, panel_rules,
};
use crit_core::contract::Contract;
use crit_llm::Backend;
use serde_json::{Value, json};

use crate::engine::panel::{self, PanelEnv, Progress, ReviewerPlan};
use crate::engine::prompts::{OutputSpec, PromptError, contract_instructions, render_prompt};
use crit_project::context::{self, ContextOptions, UnderReview};

const PERSONA: &str = include_str!("../../../prompts/plan/persona.md");
const AUTO_SELECT: &str = include_str!("../../../prompts/plan/auto_select.md");
/// The model AUTO-SELECT runs on (expert-review's Haiku).
const SELECT_MODEL: &str = "haiku";
/// How much of the plan AUTO-SELECT sees.
const SELECT_LINES: usize = 200;

/// Why AUTO-SELECT picked no panel (the default panel reviews instead).
#[derive(Debug, thiserror::Error)]
enum SelectError {
    #[error("its prompt did not render: {0}")]
    Prompt(#[from] PromptError),
    #[error("no answer")]
    NoAnswer,
    #[error("{0}")]
    Unreadable(String),
    #[error("the answer's panel: {0}")]
    Panel(#[source] serde_json::Error),
    #[error("it picked nobody")]
    Nobody,
}

/// A panel on a model backend.
pub struct LlmPanel {
    backend: Backend,
    default_model: String,
    home: Option<PathBuf>,
    timeout: Duration,
    progress: Option<Arc<dyn Progress>>,
    cancel: tokio_util::sync::CancellationToken,
    max_budget_usd: Option<f64>,
    /// The caller's runtime: the panel's reviewers run on it while
    /// [`Panel::review`] (synchronous, as crit-checks calls it) waits.
    runtime: tokio::runtime::Handle,
}

impl std::fmt::Debug for LlmPanel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmPanel")
            .field("backend", &self.backend)
            .field("default_model", &self.default_model)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl LlmPanel {
    /// `home` locates `~/.claude/reviewers.yaml`, AUTO-SELECT's catalogue.
    /// `runtime` is the caller's (a multi-threaded one: the panel waits on it
    /// from a thread outside it, such as a `spawn_blocking` one).
    pub fn new(
        backend: Backend,
        default_model: impl Into<String>,
        home: Option<PathBuf>,
        runtime: tokio::runtime::Handle,
    ) -> Self {
        LlmPanel {
            backend,
            default_model: default_model.into(),
            home,
            timeout: crate::engine::panel::DEFAULT_TIMEOUT,
            progress: None,
            cancel: Default::default(),
            max_budget_usd: None,
            runtime,
        }
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    pub fn with_progress(mut self, progress: Arc<dyn Progress>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// `--max-budget-usd`: what the whole panel (AUTO-SELECT included) may spend.
    pub fn with_max_budget_usd(mut self, usd: Option<f64>) -> Self {
        self.max_budget_usd = usd;
        self
    }

    /// Stops the panel's reviewers (and kills their processes) when cancelled;
    /// a stopped panel does not approve.
    pub fn with_cancel(mut self, cancel: tokio_util::sync::CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    async fn vote(&self, req: &PanelRequest<'_>) -> PanelVote {
        let mut notes = Vec::new();
        let mut auto_selected = false;
        // One budget for AUTO-SELECT and the personas together.
        let spend = Arc::new(crit_agent::SpendMeter::default());
        let personas = if req.reviewers.defaulted {
            // The document's panel rules decide who must sit on the panel:
            // the plan's words and paths pick the table row.
            let physics =
                panel_rules::is_physics(self.home.as_deref(), &[req.plan_path, req.project_root]);
            let context = format!(
                "{}\n{}\n{}",
                req.plan_path.display(),
                req.project_root.display(),
                req.plan
            );
            match self.auto_select(req, &spend).await {
                Ok((picked, why)) => {
                    notes.push(format!("AUTO-SELECT picked the panel: {why}"));
                    let (panel, added) = panel_rules::complete(picked, &context, physics);
                    if !added.is_empty() {
                        notes.push(format!(
                            "AUTO-SELECT's pick was completed by the panel rules: {} joined",
                            added.join(", ")
                        ));
                    }
                    auto_selected = true;
                    panel
                }
                Err(e) => {
                    notes.push(format!(
                        "AUTO-SELECT failed ({e}); the default panel reviewed"
                    ));
                    panel_rules::fallback(req.reviewers.panel.clone(), &context, physics)
                }
            }
        } else if req.reviewers.single {
            req.reviewers.panel.clone()
        } else {
            // A hand-written panel meets the same rules on a physics
            // project: a physicist and a mathematician.
            let physics =
                panel_rules::is_physics(self.home.as_deref(), &[req.plan_path, req.project_root])
                    || panel_rules::is_physics_panel(&req.reviewers.panel);
            let context = format!(
                "{}\n{}\n{}",
                req.plan_path.display(),
                req.project_root.display(),
                req.plan
            );
            let (panel, added) =
                panel_rules::complete_hand_written(req.reviewers.panel.clone(), &context, physics);
            if !added.is_empty() {
                notes.push(format!(
                    "context.yaml's panel was completed by the panel rules: {} joined",
                    added.join(", ")
                ));
            }
            panel
        };
        let plans: Result<Vec<ReviewerPlan>, PromptError> =
            personas.iter().map(|p| self.persona_plan(p, req)).collect();
        let plans = match plans {
            Ok(p) => p,
            Err(e) => return PanelVote::NotRun(format!("the persona prompt did not render: {e}")),
        };
        let env = self.env(req, spend);
        let runs = panel::run_panel(&self.backend, &plans, &env).await;
        let mut result = panel::aggregate("plan", &runs);
        offer_plan_suggestions(&mut result.findings, req.plan_path, req.plan);
        let summaries = personas
            .iter()
            .zip(&runs)
            .map(|(p, r)| MemberSummary {
                name: p.name.clone(),
                verdict: panel::effective_verdict(r),
                summary: r.summary.trim().to_string(),
            })
            .collect();
        // All must approve, and a member that could not answer is no approval.
        PanelVote::Ran {
            panel: personas,
            approved: result.passed,
            result: Box::new(result),
            notes,
            auto_selected,
            summaries,
        }
    }

    /// Reviewers read the plan's directory and the project.
    fn env(&self, req: &PanelRequest<'_>, spend: Arc<crit_agent::SpendMeter>) -> PanelEnv {
        // `crit plan plan.md`: the plan's directory as the OS finds it, not
        // the empty parent of a bare file name.
        let plan = std::path::absolute(req.plan_path).unwrap_or_else(|_| req.plan_path.into());
        let root = plan
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let add_dirs = [req.project_root.to_path_buf()]
            .into_iter()
            .filter(|p| p.is_dir() && *p != root)
            .collect();
        let project_context = context::discover(
            req.project_root,
            req.project_root,
            UnderReview::Everything,
            &ContextOptions::default(),
        )
        .map(|c| c.render())
        .unwrap_or_default();
        PanelEnv {
            root,
            add_dirs,
            project_context,
            progress: self.progress.clone(),
            cancel: self.cancel.clone(),
            spend,
            redaction: crate::engine::redaction::tools_redactor(),
            ..PanelEnv::default()
        }
    }

    fn persona_plan(
        &self,
        p: &Persona,
        req: &PanelRequest<'_>,
    ) -> Result<ReviewerPlan, PromptError> {
        let output = OutputSpec::Contract(Contract::FindingsJson);
        let system = render_prompt(
            PERSONA,
            minijinja::context! { name => &p.name, domain => &p.domain, focus => &p.focus },
        )?;
        let contract = contract_instructions(&output)?;
        let file = req
            .plan_path
            .file_name()
            .map_or_else(|| "plan.md".into(), |n| n.to_string_lossy().into_owned());
        Ok(ReviewerPlan {
            name: p.name.clone(),
            model: self.default_model.clone(),
            system: format!("{}\n\n{}", system.trim_end(), contract.trim_end()),
            user: format!(
                "Review the plan in `{file}`. Its text, with line numbers:\n<plan>\n{}</plan>",
                numbered(req.plan)
            ),
            shared: None,
            tools: ["Read", "Glob", "Grep"].map(String::from).to_vec(),
            output,
            limits: self.limits(),
            max_output_tokens: 8192,
            sub_agents: Vec::new(),
        })
    }

    fn limits(&self) -> RunLimits {
        RunLimits {
            max_turns: Some(20),
            timeout: Some(self.timeout),
            max_budget_usd: self.max_budget_usd,
            ..RunLimits::default()
        }
    }

    /// AUTO-SELECT: a cheap model picks the panel from the user's catalogue.
    async fn auto_select(
        &self,
        req: &PanelRequest<'_>,
        spend: &Arc<crit_agent::SpendMeter>,
    ) -> Result<(Vec<Persona>, String), SelectError> {
        let catalogue = self
            .home
            .as_ref()
            .and_then(|h| crit_core::files::read_to_string(h.join(".claude/reviewers.yaml")).ok())
            .unwrap_or_default();
        let plan_head: String = req
            .plan
            .lines()
            .take(SELECT_LINES)
            .collect::<Vec<_>>()
            .join("\n");
        let user = render_prompt(
            AUTO_SELECT,
            minijinja::context! {
                catalogue => catalogue.trim(),
                plan_head => plan_head,
                project_path => project_path(req.project_root),
            },
        )?;
        let plan = ReviewerPlan {
            name: "auto-select".into(),
            model: SELECT_MODEL.into(),
            system: "You choose expert review panels for implementation plans.".into(),
            user,
            shared: None,
            tools: Vec::new(),
            output: OutputSpec::Schema(selection_schema()),
            limits: RunLimits {
                max_turns: Some(3),
                timeout: Some(Duration::from_secs(60)),
                max_budget_usd: self.max_budget_usd,
                ..RunLimits::default()
            },
            max_output_tokens: 2048,
            sub_agents: Vec::new(),
        };
        let env = PanelEnv {
            root: req.project_root.to_path_buf(),
            cancel: self.cancel.clone(),
            spend: spend.clone(),
            redaction: crate::engine::redaction::tools_redactor(),
            ..PanelEnv::default()
        };
        let run = panel::run_panel(&self.backend, std::slice::from_ref(&plan), &env)
            .await
            .into_iter()
            .next()
            .ok_or(SelectError::NoAnswer)?;
        let answer = run.structured.ok_or(match run.parse_error {
            Some(why) => SelectError::Unreadable(why),
            None => SelectError::NoAnswer,
        })?;
        let mut panel: Vec<Persona> =
            serde_json::from_value(answer["panel"].clone()).map_err(SelectError::Panel)?;
        panel.retain(|p| !p.name.trim().is_empty());
        if panel.is_empty() {
            return Err(SelectError::Nobody);
        }
        let why = answer["reason"].as_str().unwrap_or("").trim().to_string();
        Ok((panel, why))
    }
}

impl Panel for LlmPanel {
    fn review(&mut self, request: &PanelRequest<'_>) -> PanelVote {
        self.runtime.block_on(self.vote(request))
    }

    fn voice(
        &mut self,
        request: &VoiceRequest<'_>,
    ) -> Option<Result<String, crit_checks::VoiceError>> {
        Some(self.runtime.block_on(self.word(request)))
    }
}

/// The answer shape of AUTO-SELECT (the panel the cheap model picks).
pub fn selection_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "panel": {
                "type": "array", "minItems": 1, "maxItems": 5,
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "domain": {"type": "string"},
                        "focus": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["name", "domain", "focus"]
                }
            },
            "reason": {"type": "string"}
        },
        "required": ["panel", "reason"]
    })
}

/// A member's proposed edit is offered as a code review's suggestion is:
/// checked against the plan it read (the lines exist, the text differs,
/// keeps their indentation, is small). One for another file, or that fails,
/// is not offered, and the finding says why; the finding stays.
fn offer_plan_suggestions(findings: &mut [crit_core::Finding], plan_path: &Path, plan: &str) {
    let plan_name = plan_path.file_name().map(|n| n.to_string_lossy());
    for f in findings.iter_mut().filter(|f| f.suggestion.is_some()) {
        let in_plan = f.path().is_none_or(|p| {
            p.is_empty() || Path::new(p).file_name().map(|n| n.to_string_lossy()) == plan_name
        });
        if in_plan {
            crit_core::suggestion::settle(f, Ok(plan));
        } else {
            f.suggestion = None;
            f.suggestion_replaces = None;
            f.suggestion_refused =
                Some("a panel member proposes edits to the plan's own lines only".into());
        }
    }
}

/// The project's root as AUTO-SELECT is told it: absolute, without `.`
/// (context.yaml's `project_root: .`).
fn project_path(root: &Path) -> String {
    let abs = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
    abs.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect::<PathBuf>()
        .display()
        .to_string()
}

/// `   12 | text` lines, so findings can cite them.
fn numbered(text: &str) -> String {
    let width = text.lines().count().to_string().len();
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("{:>width$} | {l}\n", i + 1))
        .collect()
}
