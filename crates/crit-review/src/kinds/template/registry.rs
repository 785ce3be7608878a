//! The template registry: built-in templates embedded in the binary, then the
//! user's (`$XDG_CONFIG_HOME/crit/templates`, a user `templates_dir`), then
//! the project's (`.orchestration/templates`, as the review templates' tool
//! keeps them; `.crit/templates`; a project `templates_dir`); a later one
//! replaces an earlier one of the same name. A project template's `hooks` run
//! commands, so they are honoured only as the project's rules allow
//! ([`crit_project::trust`]); without them the template still loads and runs.
//!
//! A template file that does not load is kept as broken under its name: it
//! fails when it is used (naming file, line and column), `review list` shows
//! it with its error, and it never lets an earlier template of its name stand
//! in for it. Every other template works as usual.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{Origin, Template, TemplateError, parse_template};
use crit_project::trust::{Gated, ProjectRules, Source};

/// Where a project's templates live, from its root, later ones winning.
pub const PROJECT_DIRS: [&str; 2] = [".orchestration/templates", ".crit/templates"];

const BUILT_IN: [(&str, &str); 3] = [
    ("arch.yaml", include_str!("../../../templates/arch.yaml")),
    ("tasks.yaml", include_str!("../../../templates/tasks.yaml")),
    ("code.yaml", include_str!("../../../templates/code.yaml")),
];

pub use crit_project::TemplateDirs;

/// A template file that did not load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// Its `name:` when that much could be read, else its file's stem.
    pub name: String,
    pub origin: Origin,
    pub path: PathBuf,
    /// Why, with file, line and column.
    pub error: String,
}

#[derive(Debug, Clone)]
enum Entry {
    Ok(Box<Template>),
    /// A built-in template, parsed when first asked for: a review uses one
    /// of them, and parsing costs each run a few hundred microseconds. The
    /// tests parse them all.
    BuiltIn {
        file: &'static str,
        text: &'static str,
        parsed: OnceLock<Result<Box<Template>, Broken>>,
    },
    Broken(Broken),
}

impl Entry {
    /// The template, or why it does not load.
    fn template(&self) -> Result<&Template, &Broken> {
        match self {
            Entry::Ok(t) => Ok(t),
            Entry::BuiltIn { file, text, parsed } => parsed
                .get_or_init(|| {
                    let path = PathBuf::from(format!("<built-in>/{file}"));
                    parse_template(text, &path.display().to_string(), Origin::BuiltIn, None)
                        .map(Box::new)
                        .map_err(|e| broken(text, &path, Origin::BuiltIn, &e))
                })
                .as_deref(),
            Entry::Broken(b) => Err(b),
        }
    }
}

/// Every template crit knows, by name.
#[derive(Debug, Clone)]
pub struct Registry {
    entries: BTreeMap<String, Entry>,
}

impl Registry {
    /// The built-in templates only.
    pub fn built_in() -> Result<Self, TemplateError> {
        let entries = BUILT_IN
            .iter()
            .map(|&(file, text)| {
                let name = file.trim_end_matches(".yaml").to_string();
                let parsed = OnceLock::new();
                (name, Entry::BuiltIn { file, text, parsed })
            })
            .collect();
        Ok(Registry { entries })
    }

    /// Built-in, then user, then project templates, from disk. Project
    /// templates' hooks are not honoured: a caller that knows whose rules
    /// apply uses [`Registry::load_with`].
    pub fn load(dirs: &TemplateDirs) -> Result<Self, TemplateError> {
        let mut reg = Registry::with_user(dirs)?;
        if let Some(dir) = &dirs.project {
            let rules = ProjectRules::untrusted(
                dir,
                "a project template's hooks need `Registry::load_with` and the project's trust",
            );
            for loaded in load_dir(dir, Origin::Project)? {
                let loaded = loaded.and_then(|(t, text)| {
                    let file = t.path.as_ref().map(|p| p.display().to_string());
                    let file = file.as_deref().unwrap_or_default();
                    gate_builder(gate_hooks(t, &text, file, &rules), &text, file, &rules)
                });
                // Untrusted rules never let a project template replace a built-in.
                if !reg.shadows_built_in(&loaded) {
                    reg.add(loaded);
                }
            }
        }
        Ok(reg)
    }

    /// Built-in, then the user's (`dirs.user`, `dirs.extra`), then the
    /// project's [`PROJECT_DIRS`] and `dirs.project_extra` from wherever
    /// `rules` read the project (the working tree, or the base revision in
    /// CI), their hooks honoured only as `rules` allow. `dirs.project` is
    /// not used.
    pub fn load_with(dirs: &TemplateDirs, rules: &ProjectRules) -> Result<Self, TemplateError> {
        let mut reg = Registry::with_user(dirs)?;
        let project_dirs = PROJECT_DIRS
            .iter()
            .map(|d| d.to_string())
            .chain(dirs.project_extra.iter().cloned());
        for dir in project_dirs {
            for rel in rules.list(&dir, &["yaml", "yml"])? {
                let Some(file) = rules.read(&rel)? else {
                    continue;
                };
                let path = match rules.source() {
                    Source::WorkTree => rules.root().join(&rel),
                    Source::Revision(_) => PathBuf::from(&file.label),
                };
                let loaded =
                    match parse_template(&file.text, &file.label, Origin::Project, Some(&path)) {
                        Ok(t) => gate_builder(
                            gate_hooks(t, &file.text, &rel, rules),
                            &file.text,
                            &rel,
                            rules,
                        ),
                        Err(e) => Err(broken(&file.text, &path, Origin::Project, &e)),
                    };
                if reg.shadows_built_in(&loaded) && !allow_shadow(&loaded, &file.text, &rel, rules)
                {
                    continue;
                }
                reg.add(loaded);
            }
        }
        Ok(reg)
    }

    fn with_user(dirs: &TemplateDirs) -> Result<Self, TemplateError> {
        let mut reg = Registry::built_in()?;
        for dir in dirs.user.iter().chain(&dirs.extra) {
            for loaded in load_dir(dir, Origin::User)? {
                reg.add(loaded.map(|(t, _)| t));
            }
        }
        Ok(reg)
    }

    /// Whether `loaded` (a project template, or one that did not load) has
    /// the name of a built-in template.
    fn shadows_built_in(&self, loaded: &Result<Template, Broken>) -> bool {
        let name = match loaded {
            Ok(t) => &t.name,
            Err(b) => &b.name,
        };
        BUILT_IN
            .iter()
            .any(|(file, _)| file.strip_suffix(".yaml") == Some(name.as_str()))
    }

    fn add(&mut self, loaded: Result<Template, Broken>) {
        match loaded {
            Ok(t) => {
                self.entries.insert(t.name.clone(), Entry::Ok(Box::new(t)));
            }
            Err(b) => {
                self.entries.insert(b.name.clone(), Entry::Broken(b));
            }
        }
    }

    /// The template `name`; a broken one is its load error.
    pub fn get(&self, name: &str) -> Result<&Template, TemplateError> {
        match self.entries.get(name) {
            Some(e) => e.template().map_err(|b| TemplateError::Broken {
                name: b.name.clone(),
                error: b.error.clone(),
            }),
            None => Err(TemplateError::Unknown {
                name: name.to_string(),
                available: self
                    .entries
                    .iter()
                    .filter(|(_, e)| !matches!(e, Entry::Broken(_)))
                    .map(|(n, _)| n.clone())
                    .collect(),
            }),
        }
    }

    /// Templates that load, sorted by name.
    pub fn list(&self) -> impl Iterator<Item = &Template> {
        self.entries.values().filter_map(|e| e.template().ok())
    }

    /// Template files that did not load, sorted by name.
    pub fn broken(&self) -> impl Iterator<Item = &Broken> {
        self.entries.values().filter_map(|e| match e {
            Entry::Broken(b) => Some(b),
            Entry::Ok(_) | Entry::BuiltIn { .. } => None,
        })
    }
}

/// A project template that replaces a built-in one changes what every review
/// of that name sends (its prompt, tools, limits and answer): honoured only
/// as `rules` allow, like hooks, for this exact text. `file` is its path from
/// the project root.
fn allow_shadow(
    loaded: &Result<Template, Broken>,
    text: &str,
    file: &str,
    rules: &ProjectRules,
) -> bool {
    let name = match loaded {
        Ok(t) => &t.name,
        Err(b) => &b.name,
    };
    let value = format!(
        "replaces the built-in `{name}` template (sha256 {})",
        &crit_os::seal::sha256_hex(text.as_bytes())[..16]
    );
    rules.allow(Gated::new(file, 1, "template", value))
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

/// `t` when its prompt builder is no program or `rules` allow it: a
/// project's template that runs a program is the checkout's to write, so the
/// program runs only once the user trusts it. Otherwise the template does
/// not load, and says why and what to run.
fn gate_builder(
    t: Template,
    text: &str,
    file: &str,
    rules: &ProjectRules,
) -> Result<Template, Broken> {
    let super::PromptSource::Command(argv) = &t.prompt else {
        return Ok(t);
    };
    let line = text
        .lines()
        .position(|l| l.starts_with("prompt_builder:") || l.starts_with("\"prompt_builder\""))
        .map_or(0, |i| i as u64 + 1);
    let value = serde_json::to_string(argv).unwrap_or_default();
    if rules.allow(Gated::new(file, line, "prompt_builder", value)) {
        return Ok(t);
    }
    let path = t.path.clone().unwrap_or_else(|| PathBuf::from(file));
    Err(Broken {
        name: t.name.clone(),
        origin: t.origin,
        error: format!(
            "{}:{line}: its prompt_builder runs a program ({}); a project's template runs one only once you trust it: run `crit trust` in the project",
            path.display(),
            argv.join(" ")
        ),
        path,
    })
}

/// A template that did not load, under the name it meant to have.
fn broken(text: &str, path: &Path, origin: Origin, e: &TemplateError) -> Broken {
    let declared = text.lines().find_map(|l| {
        let v = l.strip_prefix("name:")?.trim().trim_matches(['"', '\'']);
        (!v.is_empty()).then(|| v.to_string())
    });
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Broken {
        name: declared.unwrap_or(stem),
        origin,
        path: path.to_path_buf(),
        error: e.to_string(),
    }
}

/// One file of a template directory: loaded with its text, or broken.
type Loaded = Result<(Template, String), Broken>;

/// Every `*.yaml` / `*.yml` file of `dir`, loaded (or broken, with its text),
/// sorted by file name. A missing directory has no templates.
fn load_dir(dir: &Path, origin: Origin) -> Result<Vec<Loaded>, TemplateError> {
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
    Ok(paths
        .into_iter()
        .map(|path| {
            let text = crit_core::files::read_to_string(&path).map_err(|source| {
                let e = TemplateError::Io {
                    path: path.clone(),
                    source,
                };
                broken("", &path, origin, &e)
            })?;
            parse_template(&text, &path.display().to_string(), origin, Some(&path))
                .map(|t| (t, text.clone()))
                .map_err(|e| broken(&text, &path, origin, &e))
        })
        .collect())
}

/// What `crit trust` is about to trust: every exec-capable setting of the
/// project at `root`, its review templates included.
pub fn trust_survey(root: &Path) -> crit_project::trust::Survey {
    crit_project::trust::survey_with(root, &|rules, config| {
        let mut dirs = TemplateDirs::default();
        dirs.project_extra.extend(
            config
                .project_templates_dir
                .as_ref()
                .map(|d| d.value.clone()),
        );
        match Registry::load_with(&dirs, rules) {
            Ok(reg) => reg.broken().map(|b| b.error.clone()).collect(),
            Err(e) => vec![e.to_string()],
        }
    })
}
