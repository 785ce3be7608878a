//! `.crit/config.yaml` (project) and `$XDG_CONFIG_HOME/crit/config.yaml` (user):
//! backend, models, limits and reviewer settings, each remembered with the
//! file and line it came from. Project values override user values; flags and
//! `CRIT_*` environment variables override both ([`crate::settings`] applies
//! those).
//!
//! A project file's settings that run a program, move a credential, take the
//! review out of crit's sandbox, cost money or relax the gate are honoured
//! only when its rules allow them ([`crate::trust`]): `base_url` (where the
//! API key goes), `provider` (a backend of the project's choosing; the Claude
//! Code CLI runs outside crit's sandbox and redaction), `reviewer: command`
//! and `command` (a program crit runs), `cassettes` (recorded answers instead
//! of a model), the limits (`timeout`, `max_turns`, `max_budget_usd`) and a
//! `fail_on` laxer than the default (`p0`, `never`), and `panel_start:
//! together` (every reviewer writes the shared prefix to the prompt cache),
//! and `ignore` (files left out of every review).
//! The rest (models, a stricter gate) is honoured from the project as is.

mod expect;
pub mod mala;
pub mod prompt_review;
pub mod reldo;
pub mod respond;

use std::path::{Path, PathBuf};

use crit_core::FailOn;
use crit_llm::{Provider, Source, Sourced};
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::error::FileError;
use crate::settings::PanelStart;
use crate::trust::{Gated, ProjectRules};

/// The tools a reviewer may be given (templates, Reldo's agents). MCP tools
/// are named `mcp__server__tool`.
pub const KNOWN_TOOLS: [&str; 6] = ["Read", "Glob", "Grep", "Bash", "Task", "TodoWrite"];

/// The project file, from the project root.
pub const PROJECT_FILE: &str = ".crit/config.yaml";

/// Who reviews a code change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewerKind {
    /// crit's own agent reviewer (the default).
    Agent,
    /// An external reviewer program (`command`).
    Command,
}

impl ReviewerKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ReviewerKind::Agent => "agent",
            ReviewerKind::Command => "command",
        }
    }
}

/// The models of a review's roles (`models: {review: …, verify: …}`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Models {
    /// The reviewers' model (the same as `model`, which it overrides).
    pub review: Option<Sourced<String>>,
    /// The model of the second look at findings.
    pub verify: Option<Sourced<String>>,
    /// The model of `crit bench`'s judge.
    pub judge: Option<Sourced<String>>,
}

/// The merged configuration.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    pub provider: Option<Sourced<Provider>>,
    pub model: Option<Sourced<String>>,
    pub models: Models,
    pub base_url: Option<Sourced<String>>,
    pub cassettes: Option<Sourced<PathBuf>>,
    pub reviewer: Option<Sourced<ReviewerKind>>,
    /// The external reviewer's command line, for `reviewer: command`.
    pub command: Option<Sourced<Vec<String>>>,
    /// Review timeout in seconds (`timeout` or `review.timeout`).
    pub timeout: Option<Sourced<u64>>,
    pub fail_on: Option<Sourced<FailOn>>,
    pub max_turns: Option<Sourced<u32>>,
    pub max_budget_usd: Option<Sourced<f64>>,
    /// Above this estimated cost a review asks before it spends (or stops,
    /// with no terminal to ask at).
    pub max_cost_usd: Option<Sourced<f64>>,
    /// A directory of more review templates (the review templates' tool's
    /// "configured directory"), from the user's file: anywhere.
    pub templates_dir: Option<Sourced<PathBuf>>,
    /// The project file's `templates_dir`, from the project root (never
    /// outside the project).
    pub project_templates_dir: Option<Sourced<String>>,
    /// When a panel's later reviewers start (`panel_start`).
    pub panel_start: Option<Sourced<PanelStart>>,
    /// Globs of files no review is shown (`ignore`), from the project root;
    /// each file left out is listed in the review's coverage.
    pub ignore: Option<Sourced<Vec<String>>>,
    /// The project's own commands a reviewer's Bash may run besides the
    /// read-only ones (`project_commands: ["npm run lint"]`), each a command
    /// line it starts with; they run in the tools' sandbox.
    pub project_commands: Option<Sourced<Vec<String>>>,
    /// How crit answers in its threads (`respond:`).
    pub respond: respond::RespondConfig,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    provider: Option<Spanned<String>>,
    model: Option<Spanned<String>>,
    models: Option<RawModels>,
    base_url: Option<Spanned<String>>,
    cassettes: Option<Spanned<String>>,
    reviewer: Option<Spanned<String>>,
    command: Option<Spanned<Vec<String>>>,
    timeout: Option<Spanned<u64>>,
    fail_on: Option<Spanned<String>>,
    max_turns: Option<Spanned<u32>>,
    max_budget_usd: Option<Spanned<f64>>,
    max_cost_usd: Option<Spanned<f64>>,
    templates_dir: Option<Spanned<String>>,
    panel_start: Option<Spanned<String>>,
    ignore: Option<Spanned<Vec<String>>>,
    project_commands: Option<Spanned<Vec<String>>>,
    review: Option<RawReview>,
    respond: Option<respond::RawRespond>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawModels {
    review: Option<Spanned<String>>,
    verify: Option<Spanned<String>>,
    judge: Option<Spanned<String>>,
}

/// mala's reviewer spells the timeout `review.timeout`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReview {
    timeout: Option<Spanned<u64>>,
    reviewer: Option<Spanned<String>>,
    command: Option<Spanned<Vec<String>>>,
    model: Option<Spanned<String>>,
}

const PROVIDERS: [&str; 5] = ["anthropic", "openai", "claude-code", "command", "replay"];
const REVIEWERS: [&str; 2] = ["agent", "command"];
const FAIL_ON: [&str; 6] = ["p0", "p1", "p2", "p3", "concerns", "never"];

impl Config {
    /// The user file, then the project file over it, read from disk. Missing
    /// files are fine; a malformed one is an error naming file, line and
    /// column. Nothing gated is honoured from `project`: a caller that knows
    /// whose rules apply uses [`Config::load_project`].
    pub fn load(user: Option<&Path>, project: Option<&Path>) -> Result<Config, FileError> {
        let mut config = Config::load_user(user)?;
        if let Some(path) = project
            && let Some(text) = read(path)?
        {
            let dir = path.parent().unwrap_or(Path::new("."));
            let rules = ProjectRules::untrusted(
                dir,
                "a project's settings that run programs, move credentials or relax the gate need `Config::load_project` and the project's trust",
            );
            let file = path.display().to_string();
            config.overlay(
                Config::parse(&text, &file)?
                    .gated(&rules, &file)
                    .in_project(),
            );
        }
        Ok(config)
    }

    /// The user file, then the project's `.crit/config.yaml` from wherever
    /// `rules` read the project (the working tree, or the base revision in
    /// CI), with its gated settings honoured only as `rules` allow.
    pub fn load_project(user: Option<&Path>, rules: &ProjectRules) -> Result<Config, FileError> {
        let mut config = Config::load_user(user)?;
        if let Some(file) = rules.read(PROJECT_FILE)? {
            config.overlay(
                Config::parse(&file.text, &file.label)?
                    .gated(rules, PROJECT_FILE)
                    .in_project(),
            );
        }
        Ok(config)
    }

    fn load_user(user: Option<&Path>) -> Result<Config, FileError> {
        match user {
            Some(path) => match read(path)? {
                Some(text) => Config::parse(&text, &path.display().to_string()),
                None => Ok(Config::default()),
            },
            None => Ok(Config::default()),
        }
    }

    /// This (project) config without the gated settings `rules` do not
    /// allow; `file` is its path from the project root.
    fn gated(mut self, rules: &ProjectRules, file: &str) -> Config {
        fn ask<T>(
            slot: &mut Option<Sourced<T>>,
            rules: &ProjectRules,
            file: &str,
            key: &str,
            gated: impl Fn(&T) -> Option<String>,
        ) {
            let Some(s) = slot.as_ref() else { return };
            let Some(value) = gated(&s.value) else { return };
            if !rules.allow(Gated::new(file, line_of(&s.source), key, value)) {
                *slot = None;
            }
        }
        ask(&mut self.base_url, rules, file, "base_url", |v| {
            Some(v.clone())
        });
        ask(&mut self.provider, rules, file, "provider", |v| {
            Some(v.as_str().to_string())
        });
        ask(&mut self.reviewer, rules, file, "reviewer", |v| {
            (*v == ReviewerKind::Command).then(|| v.as_str().to_string())
        });
        ask(&mut self.command, rules, file, "command", |v| {
            Some(serde_json::to_string(v).unwrap_or_default())
        });
        ask(&mut self.cassettes, rules, file, "cassettes", |v| {
            Some(v.display().to_string())
        });
        ask(&mut self.timeout, rules, file, "timeout", |v| {
            Some(v.to_string())
        });
        ask(&mut self.max_turns, rules, file, "max_turns", |v| {
            Some(v.to_string())
        });
        ask(
            &mut self.max_budget_usd,
            rules,
            file,
            "max_budget_usd",
            |v| Some(v.to_string()),
        );
        // A change under review must not raise the bar it is asked at.
        ask(&mut self.max_cost_usd, rules, file, "max_cost_usd", |v| {
            Some(v.to_string())
        });
        ask(&mut self.fail_on, rules, file, "fail_on", |v| {
            matches!(v, FailOn::P0 | FailOn::Never).then(|| fail_on_word(*v).to_string())
        });
        ask(&mut self.panel_start, rules, file, "panel_start", |v| {
            (*v == PanelStart::Together).then(|| v.word().to_string())
        });
        // Leaving files out of a review relaxes the gate: the change under
        // review must never decide what is not reviewed.
        ask(&mut self.ignore, rules, file, "ignore", |v| {
            Some(v.join(", "))
        });
        // They run programs: only as the user trusted them.
        ask(
            &mut self.project_commands,
            rules,
            file,
            "project_commands",
            |v| Some(serde_json::to_string(v).unwrap_or_default()),
        );
        self
    }

    /// A project file's `templates_dir` is the project's (from its root).
    fn in_project(mut self) -> Config {
        self.project_templates_dir = self.templates_dir.take().map(|s| Sourced {
            value: s.value.to_string_lossy().into_owned(),
            source: s.source,
        });
        self
    }

    /// The standard locations: `$XDG_CONFIG_HOME/crit/config.yaml` (or
    /// `~/.config/…`) and `<project>/.crit/config.yaml`.
    pub fn standard_paths(project_root: &Path, env: &crit_os::Env) -> (Option<PathBuf>, PathBuf) {
        let user = crit_os::dirs::config_dir(env).map(|c| c.join("config.yaml"));
        (user, project_root.join(".crit").join("config.yaml"))
    }

    /// Parse one file; `file` names it in errors and provenance.
    pub fn parse(text: &str, file: &str) -> Result<Config, FileError> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let raw: RawConfig = serde_saphyr::from_str(text)
            .map_err(|e| expect::explained(FileError::from_yaml(file, &e), text))?;
        let word = |s: &Spanned<String>, allowed: &[&str], what: &str| -> Result<(), FileError> {
            if allowed.contains(&s.value.as_str()) {
                Ok(())
            } else {
                Err(FileError::at(
                    file,
                    s.referenced.line(),
                    s.referenced.column(),
                    format!(
                        "unknown {what} `{}`; expected one of {}",
                        s.value,
                        allowed.join(", ")
                    ),
                ))
            }
        };
        let review = raw.review.unwrap_or_default();
        let command = raw.command.or(review.command);
        if let Some(c) = &command
            && c.value.is_empty()
        {
            return Err(FileError::at(
                file,
                c.referenced.line(),
                c.referenced.column(),
                "command must name a program, e.g. [review-gate, --json]",
            ));
        }
        for (key, amount) in [
            ("max_budget_usd", &raw.max_budget_usd),
            ("max_cost_usd", &raw.max_cost_usd),
        ] {
            // `.nan` or `.inf` would turn a limit off without saying so.
            if let Some(a) = amount
                && !(a.value.is_finite() && a.value >= 0.0)
            {
                return Err(FileError::at(
                    file,
                    a.referenced.line(),
                    a.referenced.column(),
                    format!("{key} takes a dollar amount of 0 or more, e.g. 2.5"),
                ));
            }
        }
        // `provider: command` is the older spelling of `reviewer: command`:
        // an external reviewer program, not a model backend.
        let mut provider = None;
        let mut reviewer = None;
        if let Some(p) = &raw.provider {
            word(p, &PROVIDERS, "provider")?;
            match p.value.parse::<Provider>() {
                Ok(v) => provider = Some(setting(file, p, v)),
                Err(_) => reviewer = Some(setting(file, p, ReviewerKind::Command)),
            }
        }
        if let Some(r) = raw.reviewer.as_ref().or(review.reviewer.as_ref()) {
            word(r, &REVIEWERS, "reviewer")?;
            let kind = match r.value.as_str() {
                "command" => ReviewerKind::Command,
                _ => ReviewerKind::Agent,
            };
            reviewer = Some(setting(file, r, kind));
        }
        let fail_on = match &raw.fail_on {
            Some(f) => {
                word(f, &FAIL_ON, "fail_on")?;
                FailOn::parse(&f.value).map(|v| setting(file, f, v))
            }
            None => None,
        };
        let panel_start = match &raw.panel_start {
            Some(p) => {
                word(p, &PanelStart::WORDS, "panel_start")?;
                PanelStart::parse(&p.value).map(|v| setting(file, p, v))
            }
            None => None,
        };
        if let Some(globs) = &raw.ignore
            && let Err(e) = crate::scope::check_ignore_globs(&globs.value)
        {
            return Err(FileError::at(
                file,
                globs.referenced.line(),
                globs.referenced.column(),
                format!("ignore: {e}"),
            ));
        }
        for line in raw.project_commands.iter().flat_map(|c| &c.value) {
            if let Err(why) = crate::project_command::words(line)
                && let Some(c) = &raw.project_commands
            {
                return Err(FileError::at(
                    file,
                    c.referenced.line(),
                    c.referenced.column(),
                    format!("project_commands: `{line}`: {why}"),
                ));
            }
        }
        let models = raw.models.unwrap_or_default();
        let respond = raw.respond.unwrap_or_default().parse(file)?;
        Ok(Config {
            respond,
            provider,
            model: raw
                .model
                .or(review.model)
                .map(|s| setting(file, &s, s.value.clone())),
            models: Models {
                review: models.review.map(|s| setting(file, &s, s.value.clone())),
                verify: models.verify.map(|s| setting(file, &s, s.value.clone())),
                judge: models.judge.map(|s| setting(file, &s, s.value.clone())),
            },
            base_url: raw.base_url.map(|s| setting(file, &s, s.value.clone())),
            cassettes: raw
                .cassettes
                .map(|s| setting(file, &s, PathBuf::from(&s.value))),
            reviewer,
            command: command.map(|s| setting(file, &s, s.value.clone())),
            timeout: raw
                .timeout
                .or(review.timeout)
                .map(|s| setting(file, &s, s.value)),
            fail_on,
            max_turns: raw.max_turns.map(|s| setting(file, &s, s.value)),
            max_budget_usd: raw.max_budget_usd.map(|s| setting(file, &s, s.value)),
            max_cost_usd: raw.max_cost_usd.map(|s| setting(file, &s, s.value)),
            templates_dir: raw
                .templates_dir
                .map(|s| setting(file, &s, PathBuf::from(&s.value))),
            project_templates_dir: None,
            panel_start,
            ignore: raw.ignore.map(|s| setting(file, &s, s.value.clone())),
            project_commands: raw
                .project_commands
                .map(|s| setting(file, &s, s.value.clone())),
        })
    }

    /// Values set in `later` replace these.
    fn overlay(&mut self, later: Config) {
        macro_rules! take {
            ($($f:ident),*) => { $( if later.$f.is_some() { self.$f = later.$f; } )* };
        }
        take!(
            provider,
            model,
            base_url,
            cassettes,
            reviewer,
            command,
            timeout,
            fail_on,
            max_turns,
            max_budget_usd,
            max_cost_usd,
            templates_dir,
            project_templates_dir,
            panel_start,
            ignore,
            project_commands
        );
        if later.models.review.is_some() {
            self.models.review = later.models.review;
        }
        if later.models.verify.is_some() {
            self.models.verify = later.models.verify;
        }
        if later.models.judge.is_some() {
            self.models.judge = later.models.judge;
        }
        self.respond.overlay(later.respond);
    }
}

/// The word users write for a gate (`fail_on: p1`).
pub fn fail_on_word(f: FailOn) -> &'static str {
    match f {
        FailOn::P0 => "p0",
        FailOn::P1 => "p1",
        FailOn::P2 => "p2",
        FailOn::P3 => "p3",
        FailOn::Concerns => "concerns",
        FailOn::Never => "never",
    }
}

fn read(path: &Path) -> Result<Option<String>, FileError> {
    match crit_core::files::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(FileError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The line of a `file:line` provenance label (0 when there is none).
pub fn line_of(source: &Source) -> u64 {
    match source {
        Source::Explicit(label) => label
            .rsplit_once(':')
            .and_then(|(_, l)| l.parse().ok())
            .unwrap_or(0),
        _ => 0,
    }
}

/// A value set at `at` in `file`: labelled `file:line`.
pub(crate) fn setting<S, T>(file: &str, at: &Spanned<S>, value: T) -> Sourced<T> {
    Sourced::explicit(value, format!("{file}:{}", at.referenced.line()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_provenance_and_seed_spelling() {
        let c = Config::parse("provider: anthropic\nmodel: sonnet\nreview:\n  timeout: 300\nreviewer: command\ncommand: [review-gate, --json]\n", "c.yaml").unwrap();
        assert_eq!(
            c.provider,
            Some(Sourced::explicit(Provider::Anthropic, "c.yaml:1"))
        );
        assert_eq!(c.timeout, Some(Sourced::explicit(300, "c.yaml:4")));
        assert_eq!(c.reviewer.unwrap().value, ReviewerKind::Command);
        assert_eq!(c.command.unwrap().value, ["review-gate", "--json"]);
    }

    #[test]
    fn errors_name_line_and_column() {
        assert_eq!(
            Config::parse("provider: gemini\n", "c.yaml")
                .unwrap_err()
                .to_string(),
            "c.yaml:1:11: unknown provider `gemini`; expected one of anthropic, openai, claude-code, command, replay"
        );
        let e = Config::parse("model: x\nmodle: y\n", "c.yaml")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c.yaml:2:1: ") && e.contains("modle"), "{e}");
        assert!(
            Config::parse("timeout: soon\n", "c.yaml")
                .unwrap_err()
                .to_string()
                .starts_with("c.yaml:1:")
        );
        assert_eq!(
            Config::parse("command: []\n", "c.yaml")
                .unwrap_err()
                .to_string(),
            "c.yaml:1:10: command must name a program, e.g. [review-gate, --json]"
        );
        for bad in [".nan", ".inf", "-1"] {
            for key in ["max_cost_usd", "max_budget_usd"] {
                let e = Config::parse(&format!("{key}: {bad}\n"), "c.yaml")
                    .unwrap_err()
                    .to_string();
                assert!(
                    e.starts_with("c.yaml:1:") && e.contains("a dollar amount of 0 or more"),
                    "{key}: {bad}: {e}"
                );
            }
        }
        assert!(Config::parse("max_cost_usd: 2.5\n", "c.yaml").is_ok());
    }

    #[test]
    fn project_overrides_user() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.yaml");
        let project = dir.path().join("project.yaml");
        std::fs::write(
            &user,
            "provider: openai\nmodel: qwen3:8b\nbase_url: http://localhost:11434/v1\n",
        )
        .unwrap();
        std::fs::write(&project, "model: llama3\n").unwrap();
        let c = Config::load(Some(&user), Some(&project)).unwrap();
        assert_eq!(c.provider.unwrap().value, Provider::OpenAi);
        let model = c.model.unwrap();
        assert_eq!(model.value, "llama3");
        assert!(model.source.to_string().ends_with("project.yaml:1"));
        assert_eq!(
            Config::load(Some(&dir.path().join("missing.yaml")), None).unwrap(),
            Config::default()
        );
    }
}
