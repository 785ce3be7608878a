//! The precedence, in one place: explicit > `CRIT_*` env > config files >
//! the replaced tool's file (mala.yaml) > the kind's default.

use crit_core::FailOn;
use crit_llm::{BackendConfig, Env, LlmError, Provider, Selection, Source, Sourced};

use super::{Explicit, Kind, PanelStart, Reviewer, Settings, TemplateDirs};
use crate::config::mala::{MalaConfig, ReviewerType};
use crate::config::{Config, ReviewerKind};

/// The verifier's model when nothing names one (on Anthropic's API and the
/// Claude Code CLI; an OpenAI-compatible server uses the review's own model,
/// since it may serve no other).
const VERIFY_MODEL: &str = "haiku";

/// The estimated cost (USD) a review spends without asking.
pub(super) const MAX_COST_USD: f64 = 1.0;

pub(crate) fn resolve(
    kind: Kind,
    explicit: &Explicit,
    file: &Config,
    mala: Option<&MalaConfig>,
    templates: TemplateDirs,
    rules: (String, String),
    env: &Env,
) -> Settings {
    let mala = mala.filter(|_| kind == Kind::Code);
    let backend = select(explicit, file, env);
    let model = match kind {
        Kind::Bench => judge_model(file, env),
        _ => review_model(kind, explicit, file, mala, backend.as_ref().ok(), env),
    };
    let backend = backend.map(|mut s| {
        // The request, the rows and the session all name the kind's model.
        if !model.value.is_empty() {
            s.model = Some(model.clone());
        }
        s
    });
    // A model typed on the command line and misspelt is refused before
    // anything runs, never priced at $0. (A config file's model is left to
    // the backend: it may name a model this table has not met.)
    let typed = matches!(&model.source, Source::Explicit(label) if label.starts_with("--"));
    let backend = backend.and_then(|s| {
        let claude = matches!(s.provider.value, Provider::Anthropic | Provider::ClaudeCode);
        match claude && typed {
            true => crit_llm::pricing::check_claude_model(&model.value)
                .map(|()| s)
                .map_err(|why| LlmError::Config {
                    message: format!("{why} ({})", model.source),
                }),
            false => Ok(s),
        }
    });
    let verify_model = match (&file.models.verify, &backend) {
        (Some(v), _) => v.clone(),
        (None, Ok(s)) if s.provider.value == Provider::OpenAi => Sourced::new(
            model.value.clone(),
            Source::Auto("an OpenAI-compatible server: the review's own model".into()),
        ),
        _ => Sourced::new(VERIFY_MODEL.to_string(), Source::Default),
    };
    let timeout = explicit
        .timeout
        .clone()
        .or_else(|| file.timeout.clone())
        .or_else(|| mala.and_then(|m| m.timeout_secs.clone()))
        .or_else(|| {
            kind.default_timeout()
                .map(|t| Sourced::new(t, Source::Default))
        });
    let fail_on = explicit
        .fail_on
        .clone()
        .or_else(|| file.fail_on.clone())
        .unwrap_or_else(|| Sourced::new(FailOn::default(), Source::Default));
    Settings {
        kind,
        backend,
        model,
        verify_model,
        reviewer: reviewer(file, mala),
        timeout,
        max_turns: explicit
            .max_turns
            .clone()
            .or_else(|| file.max_turns.clone()),
        max_budget_usd: explicit
            .max_budget_usd
            .clone()
            .or_else(|| file.max_budget_usd.clone()),
        max_cost_usd: explicit
            .max_cost_usd
            .clone()
            .or_else(|| file.max_cost_usd.clone())
            .unwrap_or_else(|| Sourced::new(MAX_COST_USD, Source::Default)),
        fail_on: fail_on.clone(),
        gate: (explicit.exit_code || explicit.fail_on.is_some()).then_some(fail_on.value),
        model_override: explicit.model.as_ref().map(|m| m.value.clone()),
        templates,
        rules,
        panel_start: panel_start(file, env),
        ignore: ignore(explicit, file),
        respond: respond(explicit, file),
        project_commands: file
            .project_commands
            .iter()
            .flat_map(|s| {
                s.value
                    .iter()
                    .map(|c| Sourced::new(c.clone(), s.source.clone()))
            })
            .collect(),
    }
}

/// `respond:`: the flags, then the config, then the defaults.
fn respond(explicit: &Explicit, file: &Config) -> super::Respond {
    use crate::config::respond::{DEFAULT_MAX_ANSWERS_PER_HOUR, Others};
    let (flags, config) = (&explicit.respond, &file.respond);
    super::Respond {
        max_answers_per_hour: flags
            .max_answers_per_hour
            .clone()
            .or_else(|| config.max_answers_per_hour.clone())
            .unwrap_or_else(|| Sourced::new(DEFAULT_MAX_ANSWERS_PER_HOUR, Source::Default)),
        others: flags
            .others
            .clone()
            .or_else(|| config.others.clone())
            .unwrap_or_else(|| Sourced::new(Others::Reply, Source::Default)),
    }
}

/// The config's `ignore` globs (each labelled with its file and line), then
/// `--ignore`'s.
fn ignore(explicit: &Explicit, file: &Config) -> Vec<Sourced<String>> {
    let from_file = file.ignore.iter().flat_map(|s| {
        s.value
            .iter()
            .map(|g| Sourced::new(g.clone(), s.source.clone()))
    });
    from_file.chain(explicit.ignore.iter().cloned()).collect()
}

/// `CRIT_PANEL_START`, else `panel_start`, else `auto`. A variable set to
/// something else is said once and ignored.
fn panel_start(file: &Config, env: &Env) -> Sourced<PanelStart> {
    if let Some(word) = env.non_empty("CRIT_PANEL_START") {
        match PanelStart::parse(word) {
            Some(v) => return Sourced::new(v, Source::Env("CRIT_PANEL_START".into())),
            None => tracing::warn!(
                "CRIT_PANEL_START={word} is not one of {}; ignored",
                PanelStart::WORDS.join(", ")
            ),
        }
    }
    file.panel_start
        .clone()
        .unwrap_or_else(|| Sourced::new(PanelStart::Auto, Source::Default))
}

/// The model backend: explicit choices, then `CRIT_*` variables (crit-llm
/// reads those), then the config files, then auto-detection.
pub fn select(explicit: &Explicit, file: &Config, env: &Env) -> Result<Selection, LlmError> {
    let unset = |var: &str| env.non_empty(var).is_none();
    let config = BackendConfig {
        provider: explicit
            .provider
            .clone()
            .or_else(|| file.provider.clone().filter(|_| unset("CRIT_PROVIDER"))),
        model: explicit.model.clone().or_else(|| {
            file.models
                .review
                .clone()
                .or_else(|| file.model.clone())
                .filter(|_| unset("CRIT_MODEL"))
        }),
        base_url: file.base_url.clone(),
        cassettes: explicit
            .cassettes
            .clone()
            .or_else(|| file.cassettes.clone().filter(|_| unset("CRIT_CASSETTES"))),
        record: explicit.record.clone(),
        ..BackendConfig::default()
    };
    Selection::resolve(&config, env)
}

/// The model reviewers of `kind` ask for: whatever the backend selection
/// chose on purpose (flag, env, config), else mala.yaml's for code review,
/// else the kind's default, else the backend's.
fn review_model(
    kind: Kind,
    explicit: &Explicit,
    file: &Config,
    mala: Option<&MalaConfig>,
    selection: Option<&Selection>,
    env: &Env,
) -> Sourced<String> {
    let chosen = explicit
        .model
        .clone()
        .or_else(|| {
            env.non_empty("CRIT_MODEL")
                .map(|m| Sourced::new(m.to_string(), Source::Env("CRIT_MODEL".into())))
        })
        .or_else(|| file.models.review.clone())
        .or_else(|| file.model.clone());
    if let Some(m) = chosen {
        return m;
    }
    let backend_default = selection.and_then(|s| s.model.clone());
    // An OpenAI-compatible server always has a model named by the user; on
    // Anthropic's API and the Claude Code CLI the kind's default applies.
    let crit_picks = backend_default
        .as_ref()
        .is_none_or(|m| m.source == Source::Default);
    if crit_picks {
        if let Some(m) = mala.and_then(|m| m.model.clone()) {
            return m;
        }
        if let Some(d) = kind.default_model() {
            return Sourced::new(d.to_string(), Source::Default);
        }
    }
    backend_default.unwrap_or_else(|| Sourced::new(String::new(), Source::Default))
}

/// `crit bench`'s judge: `CRIT_JUDGE_MODEL`, else `models.judge`, else
/// empty (the benchmark picks the strongest model it compares; its
/// `--judge-model` flag is applied by the command). `--model` is the
/// reviewers', never the judge's.
fn judge_model(file: &Config, env: &Env) -> Sourced<String> {
    env.non_empty("CRIT_JUDGE_MODEL")
        .map(|m| Sourced::new(m.to_string(), Source::Env("CRIT_JUDGE_MODEL".into())))
        .or_else(|| file.models.judge.clone())
        .unwrap_or_else(|| Sourced::new(String::new(), Source::Default))
}

fn reviewer(file: &Config, mala: Option<&MalaConfig>) -> Sourced<Reviewer> {
    let command = || {
        file.command
            .as_ref()
            .map(|c| c.value.clone())
            .unwrap_or_default()
    };
    match &file.reviewer {
        Some(r) if r.value == ReviewerKind::Command => {
            Sourced::new(Reviewer::Command(command()), r.source.clone())
        }
        Some(r) => Sourced::new(Reviewer::Agent, r.source.clone()),
        None => match mala.and_then(|m| m.reviewer_type.as_ref()) {
            Some(t) if t.value == ReviewerType::Cerberus => {
                Sourced::new(Reviewer::Command(command()), t.source.clone())
            }
            Some(t) => Sourced::new(Reviewer::Agent, t.source.clone()),
            None => Sourced::new(Reviewer::Agent, Source::Default),
        },
    }
}
