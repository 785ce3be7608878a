//! The template registry: built-in templates embedded in the binary, then the
//! user's, then the project's; a later one replaces an earlier one of the same
//! name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Origin, Template, TemplateError, parse_template};

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

    /// Built-in, then user, then project templates. A template file that does not
    /// load is an error naming file, line and column: a broken template never
    /// silently falls back to another.
    pub fn load(dirs: &TemplateDirs) -> Result<Self, TemplateError> {
        let mut reg = Registry::built_in()?;
        for (dir, origin) in [(&dirs.user, Origin::User), (&dirs.project, Origin::Project)] {
            if let Some(dir) = dir {
                for t in load_dir(dir, origin)? {
                    reg.templates.insert(t.name.clone(), t);
                }
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

/// Every `*.yaml` / `*.yml` file of `dir`, sorted by file name. A missing
/// directory has no templates.
fn load_dir(dir: &Path, origin: Origin) -> Result<Vec<Template>, TemplateError> {
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
            let text = std::fs::read_to_string(&path).map_err(|source| TemplateError::Io {
                path: path.clone(),
                source,
            })?;
            parse_template(&text, &path.display().to_string(), origin, Some(&path))
        })
        .collect()
}
