//! The settings one review kind runs with, each value with where it came
//! from: explicit choices (flags, or a library caller's values) over `CRIT_*`
//! environment variables over the config files (the user's, then the
//! project's as its rules allow) over the files of the tool a kind replaces
//! (mala.yaml for code review) over the kind's defaults.
//!
//! [`crate::Project::settings`] is the one place this is decided: the command
//! line, the Claude Code hooks, the Python package and library callers all
//! ask it, so a project is reviewed the same way whichever door it came in by.

mod resolve;

use std::path::PathBuf;

use crit_core::FailOn;
use crit_llm::{LlmError, Provider, Selection, SelectionRow, Source, Sourced};

pub(crate) use resolve::resolve;
pub use resolve::select as select_backend;

/// A kind of review. Each has its own defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// `crit review code`, the Stop gate, mala's reviewer.
    Code,
    /// `crit review NAME` for any other template.
    Template,
    /// `crit run`: an orchestrator and its sub-agents (Reldo).
    Run,
    /// `crit prompt`: prompt review.
    Prompt,
    /// `crit plan`: the plan's persona panel.
    Plan,
    /// `crit bench`: the judge that compares a benchmark's findings with its
    /// golden comments (its `model` is the judge's).
    Bench,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Code,
        Kind::Template,
        Kind::Run,
        Kind::Prompt,
        Kind::Plan,
        Kind::Bench,
    ];

    /// As `crit config` names it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Code => "code review",
            Kind::Template => "templates",
            Kind::Run => "run",
            Kind::Prompt => "prompt",
            Kind::Plan => "plan",
            Kind::Bench => "bench judge",
        }
    }

    /// The model a review of this kind asks for when nothing sets one: code
    /// review on sonnet (mala's reviewer's and Reldo's model), the rest on
    /// the backend's default.
    fn default_model(self) -> Option<&'static str> {
        match self {
            Kind::Code | Kind::Run => Some("sonnet"),
            Kind::Template | Kind::Prompt | Kind::Plan | Kind::Bench => None,
        }
    }

    /// The deadline of one review of this kind when nothing sets one.
    fn default_timeout(self) -> Option<u64> {
        match self {
            // mala's `agent_sdk_review_timeout` default.
            Kind::Code => Some(600),
            Kind::Template | Kind::Run | Kind::Prompt | Kind::Plan | Kind::Bench => None,
        }
    }
}

/// When a panel's later reviewers start (`panel_start` in config.yaml,
/// `CRIT_PANEL_START`). Reviewers that share a prompt prefix can have the
/// first one write it to the prompt cache and the others read it (cheaper,
/// one model turn slower), or all start at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PanelStart {
    /// The others wait for the first reviewer's first answer only when they
    /// can read what it cached: the same model and provider, and a shared
    /// prefix at or above that model's cacheable minimum.
    #[default]
    Auto,
    /// Every reviewer starts at once.
    Together,
    /// Reviewers sharing the first one's prefix always wait for it.
    WarmFirst,
}

impl PanelStart {
    /// The words config files and `CRIT_PANEL_START` take.
    pub const WORDS: [&'static str; 3] = ["auto", "together", "warm-first"];

    pub fn parse(word: &str) -> Option<PanelStart> {
        match word {
            "auto" => Some(PanelStart::Auto),
            "together" => Some(PanelStart::Together),
            "warm-first" => Some(PanelStart::WarmFirst),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            PanelStart::Auto => "auto",
            PanelStart::Together => "together",
            PanelStart::WarmFirst => "warm-first",
        }
    }
}

/// What `crit config` says of a judge model nothing names: `crit bench`
/// picks the strongest model of the configurations it compares.
const JUDGE_DEFAULT: &str = "(the strongest model the benchmark compares)";

/// Choices made explicitly, each labelled (`--model`, `model=` of a Python
/// call, …). They win over everything else.
#[derive(Debug, Clone, Default)]
pub struct Explicit {
    pub provider: Option<Sourced<Provider>>,
    pub model: Option<Sourced<String>>,
    pub cassettes: Option<Sourced<PathBuf>>,
    pub record: Option<Sourced<PathBuf>>,
    pub timeout: Option<Sourced<u64>>,
    pub max_turns: Option<Sourced<u32>>,
    pub max_budget_usd: Option<Sourced<f64>>,
    /// `--max-cost`: the estimated cost a review may reach without asking.
    pub max_cost_usd: Option<Sourced<f64>>,
    pub fail_on: Option<Sourced<FailOn>>,
    /// `--exit-code`: the caller enforces the gate at the resolved `fail_on`
    /// (a `fail_on` given explicitly asks for the gate too).
    pub exit_code: bool,
    /// `--rules-from REF`: the revision whose project files apply.
    pub rules_from: Option<String>,
    /// `--ignore GLOB`: files left out of the review, added to the config's.
    pub ignore: Vec<Sourced<String>>,
    /// `--max-answers-per-hour`, `--others`: over the config's `respond:`.
    pub respond: crate::config::respond::RespondConfig,
}

/// Who reviews.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reviewer {
    /// crit's own agent reviewer, on the selected backend.
    Agent,
    /// An external reviewer program and its arguments (`reviewer: command`,
    /// or mala.yaml's `reviewer_type: cerberus`).
    Command(Vec<String>),
}

/// Where review templates are found, later ones winning.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TemplateDirs {
    /// `$XDG_CONFIG_HOME/crit/templates` (or `~/.config/crit/templates`).
    pub user: Option<PathBuf>,
    /// `<project>/.crit/templates`, for a registry loaded without rules.
    pub project: Option<PathBuf>,
    /// More directories of the user's own (`templates_dir` in the user's
    /// config, `~` expanded), after `user`.
    pub extra: Vec<PathBuf>,
    /// More project directories, from the project root (`templates_dir` in
    /// `.crit/config.yaml`), after `.crit/templates`; read as the project's
    /// rules read the project, never outside it.
    pub project_extra: Vec<String>,
}

impl TemplateDirs {
    /// The standard locations for a project root, reading `XDG_CONFIG_HOME`
    /// and `HOME` through `env`.
    pub fn standard(project_root: &std::path::Path, env: &crit_os::Env) -> Self {
        TemplateDirs {
            user: crit_os::dirs::config_dir(env).map(|c| c.join("templates")),
            project: Some(project_root.join(".crit").join("templates")),
            extra: Vec::new(),
            project_extra: Vec::new(),
        }
    }
}

/// The resolved settings of one review kind.
#[derive(Debug, Clone)]
pub struct Settings {
    pub kind: Kind,
    /// The model backend, or why there is none (a review that needs no model
    /// still runs; one that does is ERROR, saying this).
    pub backend: Result<Selection, LlmError>,
    /// What reviewers ask for (empty: the backend's own default).
    pub model: Sourced<String>,
    /// The model of the second look at findings.
    pub verify_model: Sourced<String>,
    pub reviewer: Sourced<Reviewer>,
    /// Seconds one review may take (`None`: the template's or reviewer's own).
    pub timeout: Option<Sourced<u64>>,
    pub max_turns: Option<Sourced<u32>>,
    pub max_budget_usd: Option<Sourced<f64>>,
    /// Above this estimated cost (USD) a review asks before spending, or
    /// stops where there is no one to ask.
    pub max_cost_usd: Sourced<f64>,
    /// The level `passed` is decided at: explicit > the project's config (a
    /// laxer one only when trusted) > the default. The library decides
    /// `passed` with it, once.
    pub fail_on: Sourced<FailOn>,
    /// The gate the caller enforces (an exit code, a hook's answer): `Some`
    /// when one was asked for (`--fail-on`, `--exit-code`), at `fail_on`.
    /// Front ends read `result.passed` for it and never decide again.
    pub gate: Option<FailOn>,
    /// A model every reviewer uses, whatever its template names (`--model`,
    /// `model=` of a Python call).
    pub model_override: Option<String>,
    pub templates: TemplateDirs,
    /// Whose rules judged the project files these came from, and why
    /// (`working tree` / trusted with `crit trust`, `main` / the pull
    /// request's base, `HEAD` / the last commit).
    pub rules: (String, String),
    /// When a panel's later reviewers start.
    pub panel_start: Sourced<PanelStart>,
    /// Globs of files left out of a code review (listed in its coverage):
    /// the trusted config's `ignore`, then `--ignore`.
    pub ignore: Vec<Sourced<String>>,
    /// The project's commands a reviewer's Bash may run (trusted config's
    /// `project_commands`), each a command line it starts with.
    pub project_commands: Vec<Sourced<String>>,
    /// How crit answers in its threads on a pull or merge request.
    pub respond: Respond,
}

/// How crit answers in its threads: flags over the trusted config's
/// `respond:` over the defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct Respond {
    /// Most answers in one thread in an hour.
    pub max_answers_per_hour: Sourced<u32>,
    /// What a command from someone without write access gets.
    pub others: Sourced<crate::config::respond::Others>,
}

impl Settings {
    /// One row per setting, for `crit config` and `session.json`. Never
    /// holds a secret.
    pub fn rows(&self) -> Vec<SelectionRow> {
        let mut rows = match &self.backend {
            Ok(s) => s.rows(),
            Err(LlmError::NoBackend) => vec![row(
                "provider",
                "(none)",
                "no backend found; `crit doctor` lists the ways to configure one".into(),
            )],
            Err(e) => vec![row("provider", "(unusable)", e.to_string())],
        };
        let model = if self.model.value.is_empty() && self.kind == Kind::Bench {
            JUDGE_DEFAULT.to_string()
        } else if self.model.value.is_empty() {
            "(the backend's default)".to_string()
        } else {
            let id = crit_llm::pricing::resolve_alias(&self.model.value);
            match id == self.model.value {
                true => id,
                false => format!("{} → {id}", self.model.value),
            }
        };
        match rows.iter_mut().find(|r| r.key == "model") {
            Some(r) => {
                r.value = model;
                r.source = self.model.source.to_string();
            }
            None => rows.insert(
                1.min(rows.len()),
                row("model", &model, self.model.source.to_string()),
            ),
        }
        if self.kind == Kind::Code || self.kind == Kind::Template {
            rows.push(row(
                "verify_model",
                &self.verify_model.value,
                self.verify_model.source.to_string(),
            ));
        }
        let reviewer = match &self.reviewer.value {
            Reviewer::Agent => "agent".to_string(),
            Reviewer::Command(argv) => format!("command: {}", argv.join(" ")),
        };
        rows.push(row("reviewer", &reviewer, self.reviewer.source.to_string()));
        if let Some(t) = &self.timeout {
            rows.push(row(
                "timeout",
                &format!("{}s", t.value),
                t.source.to_string(),
            ));
        }
        rows.push(row(
            "fail_on",
            crate::config::fail_on_word(self.fail_on.value),
            self.fail_on.source.to_string(),
        ));
        if let Some(n) = &self.max_turns {
            rows.push(row("max_turns", &n.value.to_string(), n.source.to_string()));
        }
        if let Some(b) = &self.max_budget_usd {
            rows.push(row(
                "max_budget_usd",
                &format!("{:.2}", b.value),
                b.source.to_string(),
            ));
        }
        if self.kind == Kind::Code || self.kind == Kind::Template {
            rows.push(row(
                "max_cost_usd",
                &format!("{:.2}", self.max_cost_usd.value),
                self.max_cost_usd.source.to_string(),
            ));
        }
        if self.kind != Kind::Bench {
            rows.push(row(
                "panel_start",
                self.panel_start.value.word(),
                self.panel_start.source.to_string(),
            ));
        }
        for g in &self.ignore {
            rows.push(row("ignore", &g.value, g.source.to_string()));
        }
        for c in &self.project_commands {
            rows.push(row("project_commands", &c.value, c.source.to_string()));
        }
        if self.kind == Kind::Code {
            let r = &self.respond;
            rows.push(row(
                "respond.max_answers_per_hour",
                &r.max_answers_per_hour.value.to_string(),
                r.max_answers_per_hour.source.to_string(),
            ));
            rows.push(row(
                "respond.others",
                r.others.value.word(),
                r.others.source.to_string(),
            ));
        }
        rows.push(row("rules", &self.rules.0, self.rules.1.clone()));
        if self.kind == Kind::Template || self.kind == Kind::Code {
            for d in &self.templates.extra {
                rows.push(row(
                    "templates_dir",
                    &d.display().to_string(),
                    "user config".into(),
                ));
            }
            for d in &self.templates.project_extra {
                rows.push(row("templates_dir", d, "project config".into()));
            }
        }
        rows
    }

    /// The `ignore` globs, without their provenance.
    pub fn ignore_globs(&self) -> Vec<String> {
        self.ignore.iter().map(|g| g.value.clone()).collect()
    }

    /// The `project_commands`, each as its words.
    pub fn project_command_words(&self) -> Vec<Vec<String>> {
        self.project_commands
            .iter()
            .filter_map(|c| crate::project_command::words(&c.value).ok())
            .collect()
    }

    /// The model to put in requests: the kind's model.
    pub fn request_model(&self) -> String {
        self.model.value.clone()
    }

    /// The built backend, or why there is none.
    pub fn build_backend(&self) -> Result<crit_llm::Backend, LlmError> {
        match &self.backend {
            Ok(s) => s.build(),
            Err(e) => Err(e.clone()),
        }
    }

    /// A setting whose value came from a default.
    pub fn is_default<T>(s: &Sourced<T>) -> bool {
        s.source == Source::Default
    }
}

fn row(key: &str, value: &str, source: String) -> SelectionRow {
    SelectionRow {
        key: key.to_string(),
        value: value.to_string(),
        source,
    }
}
