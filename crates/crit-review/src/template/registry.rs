//! The template registry: built-in templates embedded in the binary, then the
//! user's, then the project's; a later one replaces an earlier one of the same
//! name. A project template's `hooks` run commands, so they are honoured only
//! as the project's rules allow ([`crate::trust`]); without them the template
//! still loads and runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Origin, Template, TemplateError, parse_template};
use crate::trust::{Gated, ProjectRules, Source};

/// Where a project's templates live, from its root.
pub const PROJECT_DIR: &str = ".crit/templates";

const BUILT_IN: [(&str, &str); 3] = [
    ("arch.yaml", include_str!("../../templates/arch.yaml")),
    ("tasks.yaml", include_str!("../../templates/tasks.yaml")),
    ("code.yaml", include_str!("../../templates/code.yaml")),
];

/// Where user and project templates live.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TemplateDirs {
    /// `$XDG_CONFIG_HOME/crit/templates` (or `~/.config/crit/templates`).
    pub user: Option<PathBuf>,
    /// `<project>/.crit/templates`.
    pub project: Option<PathBuf>,
}

impl TemplateDirs {
    /// The standard locations for a project root, reading `XDG_CONFIG_HOME` and
    /// `HOME` through `env` (injected, so tests stay hermetic).
    pub fn standard(project_root: &Path, env: impl Fn(&str) -> Option<String>) -> Self {
        let config = crate::paths::user_config_dir(env);
        TemplateDirs {
            user: config.map(|c| c.join("templates")),
            project: Some(project_root.join(".crit").join("templates")),
        }
    }
}

/// Every template crit knows, by name.
#[derive(Debug, Clone)]
pub struct Registry {
    templates: BTreeMap<String, Template>,
}

impl Registry {
    /// The built-in templates only.
    pub fn built_in() -> Result<Self, TemplateError> {
        let mut templates = BTreeMap::new();
        for (file, text) in BUILT_IN {
            let t = parse_template(text, &format!("<built-in>/{file}"), Origin::BuiltIn, None)?;
            templates.insert(t.name.clone(), t);
        }
        Ok(Registry { templates })
    }

    /// Built-in, then user, then project templates, from disk. A template
    /// file that does not load is an error naming file, line and column: a
    /// broken template never silently falls back to another. Project
    /// templates' hooks are not honoured: a caller that knows whose rules
    /// apply uses [`Registry::load_with`].
    pub fn load(dirs: &TemplateDirs) -> Result<Self, TemplateError> {
        let mut reg = Registry::with_user(dirs)?;
        if let Some(dir) = &dirs.project {
            let rules = ProjectRules::untrusted(
                dir,
                "a project template's hooks need `Registry::load_with` and the project's trust",
            );
            for (t, text) in load_dir(dir, Origin::Project)? {
                let file = t.path.as_ref().map(|p| p.display().to_string());
                let t = gate_hooks(t, &text, file.as_deref().unwrap_or_default(), &rules);
                reg.templates.insert(t.name.clone(), t);
            }
        }
        Ok(reg)
    }

    /// Built-in, then the user's (`dirs.user`), then the project's
    /// `.crit/templates` from wherever `rules` read the project (the working
    /// tree, or the base revision in CI), their hooks honoured only as
    /// `rules` allow. `dirs.project` is not used.
    pub fn load_with(dirs: &TemplateDirs, rules: &ProjectRules) -> Result<Self, TemplateError> {
        let mut reg = Registry::with_user(dirs)?;
        for rel in rules.list(PROJECT_DIR, &["yaml", "yml"])? {
            let Some(file) = rules.read(&rel)? else {
                continue;
            };
            let path = match rules.source() {
                Source::WorkTree => rules.root().join(&rel),
                Source::Revision(_) => PathBuf::from(&file.label),
            };
            let t = parse_template(&file.text, &file.label, Origin::Project, Some(&path))?;
            let t = gate_hooks(t, &file.text, &rel, rules);
            reg.templates.insert(t.name.clone(), t);
        }
        Ok(reg)
    }

    fn with_user(dirs: &TemplateDirs) -> Result<Self, TemplateError> {
        let mut reg = Registry::built_in()?;
        if let Some(dir) = &dirs.user {
            for (t, _) in load_dir(dir, Origin::User)? {
                reg.templates.insert(t.name.clone(), t);
            }
        }
        Ok(reg)
    }

    pub fn get(&self, name: &str) -> Result<&Template, TemplateError> {
        self.templates
            .get(name)
            .ok_or_else(|| TemplateError::Unknown {
                name: name.to_string(),
                available: self.templates.keys().cloned().collect(),
            })
    }

    /// Templates sorted by name.
    pub fn list(&self) -> impl Iterator<Item = &Template> {
        self.templates.values()
    }
}

/// `t` without its hooks unless `rules` allow them; `file` is its path from
/// the project root.
fn gate_hooks(mut t: Template, text: &str, file: &str, rules: &ProjectRules) -> Template {
    if let Some(hooks) = &t.hooks {
        let line = text
            .lines()
            .position(|l| l.starts_with("hooks:") || l.starts_with("\"hooks\""))
            .map_or(0, |i| i as u64 + 1);
        let value = serde_json::to_string(hooks).unwrap_or_default();
        if !rules.allow(Gated::new(file, line, "hooks", value)) {
            t.hooks = None;
        }
    }
    t
}

/// Every `*.yaml` / `*.yml` file of `dir` with its text, sorted by file name.
/// A missing directory has no templates.
fn load_dir(dir: &Path, origin: Origin) -> Result<Vec<(Template, String)>, TemplateError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(TemplateError::Io {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file() && matches!(p.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"))
        })
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text =
                crit_core::files::read_to_string(&path).map_err(|source| TemplateError::Io {
                    path: path.clone(),
                    source,
                })?;
            parse_template(&text, &path.display().to_string(), origin, Some(&path))
                .map(|t| (t, text))
        })
        .collect()
}
