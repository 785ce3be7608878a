//! A project's prompt-review settings and the options they give a review:
//! the one way every front end (the command line, the agents' hooks, Python)
//! makes them, as `ReviewOptions::from_settings` is for code review.

use crit_llm::LlmError;
use crit_os::Env;
use crit_project::Project;
use crit_project::config::prompt_review::{self as prompt_config, ConfigPaths, LoadedConfig};

use super::backend::{self, Choice};
use super::run::PromptOptions;

pub use prompt_config::ConfigError;

/// What a project's settings say about prompt review.
#[derive(Debug, Clone)]
pub struct PromptSettings {
    /// The prompt-review plugin's settings, with where each came from, and
    /// the warnings for settings that were ignored.
    pub loaded: LoadedConfig,
    /// The backend they choose, or why there is none (a review then fails
    /// open with it).
    pub choice: Result<Choice, LlmError>,
    env: Env,
}

impl PromptSettings {
    /// The settings `project` gives: the user's files, the project's (as its
    /// rules read them), the `PROMPT_REVIEW_*` variables of its environment,
    /// then crit's own `--timeout` over the budget's; and the backend they
    /// choose with crit's flags and configuration.
    pub fn of(project: &Project) -> Result<PromptSettings, ConfigError> {
        let env = project.env();
        let mut loaded = prompt_config::load(&ConfigPaths::standard(env), project.rules(), env)?;
        if let Some(secs) = project.explicit().timeout.as_ref().map(|t| t.value) {
            loaded.config.budget.timeout_ms = secs.saturating_mul(1000).max(1);
        }
        let choice = backend::choose(project.explicit(), project.config(), &loaded, env);
        Ok(PromptSettings {
            loaded,
            choice,
            env: env.clone(),
        })
    }

    /// False when `PROMPT_REVIEW_ENABLED` turns prompt review off.
    pub fn enabled(&self) -> bool {
        self.loaded.enabled
    }

    /// Whether a review writes its audit line (`budget.log_costs`).
    pub fn logs(&self) -> bool {
        self.loaded.config.budget.log_costs
    }
}

impl PromptOptions {
    /// The options `settings` give a review: the backend they chose, built
    /// (or why there is none), its models, the fallbacks taken as notes, and
    /// the user's cache directory (none when `cache` is false). What is left
    /// (a progress display, cancellation) belongs to one invocation.
    pub fn from_settings(settings: &PromptSettings, cache: bool) -> PromptOptions {
        let loaded = &settings.loaded;
        let mut opts = match settings.choice.clone() {
            Ok(mut choice) => {
                // A server asking to wait past the review's budget is not waited
                // for: the review says it was rate limited, not that it timed out.
                let budget = std::time::Duration::from_millis(loaded.config.budget.timeout_ms);
                let retry = &mut choice.selection.retry;
                retry.max_retry_after = retry.max_retry_after.min(budget);
                let built = choice.selection.build();
                let mut o = PromptOptions::new(loaded.config.clone(), built, choice.mode);
                o.backend_label = choice.selection.provider.value.to_string();
                o.reviewer_model = choice.reviewer_model;
                o.editor_model = choice.editor_model;
                o.notes = choice.notes;
                o
            }
            Err(e) => PromptOptions::new(loaded.config.clone(), Err(e), loaded.config.mode),
        };
        if cache {
            opts.cache_dir = super::cache::default_dir(&settings.env);
        }
        opts
    }
}
