//! One settings file at a time: parsed (JSON, or YAML for crit's own files),
//! checked key by key against the settings' shape (so an error names the file
//! and the key), trimmed of what a project file may not set, then deep-merged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::ConfigError;
use super::words::{OpKind, Severity};
use crate::trust::{Gated, ProjectRules, Source};

/// One settings file and where it sits.
#[derive(Debug, Clone)]
pub(super) struct Layer {
    /// For messages and provenance.
    pub file: String,
    pub place: Place,
}

#[derive(Debug, Clone)]
pub(super) enum Place {
    /// The user's file: a prompt file it names may be anywhere.
    User { dir: PathBuf },
    /// A project file, by its path from the project root
    /// (`.claude/prompt-review.json`): read, and its prompt files read,
    /// through the project's rules.
    Project { rel: String },
}

impl Layer {
    pub(super) fn user(path: &Path) -> Layer {
        Layer {
            file: path.display().to_string(),
            place: Place::User {
                dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
            },
        }
    }

    pub(super) fn project(rel: &str, label: &str) -> Layer {
        Layer {
            file: label.to_string(),
            place: Place::Project {
                rel: rel.to_string(),
            },
        }
    }

    fn invalid(&self, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            file: self.file.clone(),
            message: message.into(),
        }
    }
}

/// Parses `text`: `.json` files as JSON, anything else as YAML (which takes
/// JSON too). An empty file is an empty layer. A key the settings do not
/// have is left out with a warning (prompt review fails open: a newer
/// plugin's key, or a typo, must not stop the user's prompt); a value of the
/// wrong shape is an error naming the key.
pub(super) fn parse(
    text: &str,
    layer: &Layer,
    warnings: &mut Vec<String>,
) -> Result<Value, ConfigError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    let mut value: Value = if layer.file.ends_with(".json") {
        serde_json::from_str(text).map_err(|e| layer.invalid(e.to_string()))?
    } else {
        serde_saphyr::from_str(text).map_err(|e| layer.invalid(e.to_string()))?
    };
    let mut errors = Vec::new();
    let mut unknown = Vec::new();
    check(&mut value, &shape(), "", &mut errors, &mut unknown);
    warnings.extend(
        unknown
            .into_iter()
            .map(|u| format!("{}: {u}; it is ignored", layer.file)),
    );
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(layer.invalid(errors.join("; ")))
    }
}

/// Keys that choose who pays and which model runs: from a project file only
/// when its rules allow them (the user trusted them, or they come from the
/// base revision in CI).
const USER_ONLY: [&str; 3] = ["mode", "api_fallback", "models"];

/// What of `value` this layer may set. A project file's user-only keys go
/// unless `rules` allow them (the rules warn about a refusal). Every prompt
/// file is read now into the reviewer's `prompt`: a user file's from disk
/// (unreadable: an error), a project file's through `rules`, inside the
/// project only (else it is ignored, with a warning).
pub(super) fn admit(
    mut value: Value,
    layer: &Layer,
    rules: &ProjectRules,
    warnings: &mut Vec<String>,
) -> Result<Value, ConfigError> {
    let Some(map) = value.as_object_mut() else {
        return Ok(value);
    };
    if let Place::Project { rel } = &layer.place {
        for key in USER_ONLY {
            let Some(v) = map.get(key) else { continue };
            if !rules.allow(Gated::new(rel, 0, key, v.to_string())) {
                map.remove(key);
            }
        }
    }
    let Some(reviewers) = map.get_mut("reviewers").and_then(Value::as_object_mut) else {
        return Ok(value);
    };
    for (name, entry) in reviewers.iter_mut() {
        let Some(entry) = entry.as_object_mut() else {
            continue;
        };
        let Some(file) = entry.get("prompt_file").and_then(Value::as_str) else {
            continue;
        };
        match read_prompt_file(file, layer, rules) {
            Ok(text) => {
                entry.insert("prompt".into(), Value::String(text));
            }
            Err(why) if matches!(layer.place, Place::User { .. }) => {
                return Err(layer.invalid(format!("`reviewers.{name}.prompt_file`: {why}")));
            }
            Err(why) => {
                entry.remove("prompt_file");
                warnings.push(format!(
                    "{}: `reviewers.{name}.prompt_file` is ignored: {why}",
                    layer.file
                ));
            }
        }
    }
    Ok(value)
}

/// Why a reviewer's `prompt_file` was not read.
#[derive(Debug, thiserror::Error)]
enum PromptFileError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{file} is not a file inside the project; a project's files may only name prompt files inside it"
    )]
    Outside { file: String },
    #[error(transparent)]
    Rules(#[from] crate::trust::TrustError),
}

/// The text of the prompt file `file` names in `layer`.
fn read_prompt_file(
    file: &str,
    layer: &Layer,
    rules: &ProjectRules,
) -> Result<String, PromptFileError> {
    match &layer.place {
        Place::User { dir } => {
            let path = dir.join(file);
            std::fs::read_to_string(&path).map_err(|source| PromptFileError::Io { path, source })
        }
        Place::Project { rel: config_file } => {
            let dir = config_file.rsplit_once('/').map_or("", |(d, _)| d);
            let outside = || PromptFileError::Outside { file: file.into() };
            let rel = inside(dir, file).ok_or_else(outside)?;
            // In the working tree a symlink could still lead out.
            if matches!(rules.source(), Source::WorkTree) {
                let root =
                    std::fs::canonicalize(rules.root()).map_err(|source| PromptFileError::Io {
                        path: rules.root().to_path_buf(),
                        source,
                    })?;
                let real = std::fs::canonicalize(root.join(&rel)).map_err(|_| outside())?;
                if !real.starts_with(&root) || !real.is_file() {
                    return Err(outside());
                }
            }
            match rules.read(&rel) {
                Ok(Some(f)) => Ok(f.text),
                Ok(None) => Err(outside()),
                Err(e) => Err(e.into()),
            }
        }
    }
}

/// `dir/file` as a path from the project root, `..` resolved; `None` when it
/// is absolute or leaves the root.
fn inside(dir: &str, file: &str) -> Option<String> {
    if Path::new(file).is_absolute() {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in dir.split('/').chain(file.split(['/', '\\'])) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Every leaf key `value` sets, as a dotted path, attributed to `file`.
pub(super) fn record_sources(
    value: &Value,
    prefix: &str,
    file: &str,
    sources: &mut BTreeMap<String, String>,
) {
    match value.as_object() {
        Some(map) => {
            for (k, v) in map {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                record_sources(v, &path, file, sources);
            }
        }
        None if !prefix.is_empty() => {
            sources.insert(prefix.to_string(), file.to_string());
        }
        None => {}
    }
}

/// Deep merge: objects key by key, everything else (arrays too) replaced.
pub(super) fn merge(base: &mut Value, layer: Value) {
    match (base, layer) {
        (Value::Object(b), Value::Object(l)) => {
            for (k, v) in l {
                match b.get_mut(&k) {
                    Some(existing) if existing.is_object() && v.is_object() => merge(existing, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (b, l) => *b = l,
    }
}

/// Sets the dotted `path` in `value`, creating objects on the way.
pub(super) fn set_path(value: &mut Value, path: &str, to: Value) {
    let mut at = value;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, part) in parts.iter().enumerate() {
        if !at.is_object() {
            *at = Value::Object(Map::new());
        }
        let Some(map) = at.as_object_mut() else {
            return;
        };
        if i + 1 == parts.len() {
            map.insert((*part).to_string(), to);
            return;
        }
        at = map
            .entry((*part).to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
}

/// The settings' shape, for errors that name the key.
enum Shape {
    Bool,
    Number,
    Whole,
    Text,
    OneOf(Vec<&'static str>),
    List(Box<Shape>),
    Object(Vec<(&'static str, Shape)>),
    /// Any key (a reviewer's name), each value of this shape.
    Map(Box<Shape>),
}

fn shape() -> Shape {
    use Shape::*;
    let texts = || List(Box::new(Text));
    let reviewer = Object(vec![
        ("enabled", Bool),
        ("conditional", Bool),
        (
            "triggers",
            Object(vec![
                ("prompt_keywords", texts()),
                ("file_patterns", texts()),
                ("stack_markers", texts()),
                ("project_markers", texts()),
                ("skip_keywords", texts()),
            ]),
        ),
        ("prompt_file", Text),
        ("prompt", Text),
        ("label", Text),
        (
            "ops",
            List(Box::new(OneOf(
                OpKind::ALL.iter().map(|o| o.as_str()).collect(),
            ))),
        ),
        (
            "severities",
            List(Box::new(OneOf(
                Severity::ALL.iter().map(|s| s.as_str()).collect(),
            ))),
        ),
    ]);
    Object(vec![
        ("mode", OneOf(vec!["subscription", "api"])),
        ("api_fallback", Bool),
        ("models", Object(vec![("reviewer", Text), ("editor", Text)])),
        ("reviewers", Map(Box::new(reviewer))),
        (
            "editor",
            Object(vec![
                ("priority_order", texts()),
                ("temperature", Number),
                ("max_retries", Whole),
                ("mode", OneOf(vec!["deterministic", "model"])),
            ]),
        ),
        (
            "context",
            Object(vec![
                ("max_tokens", Whole),
                ("include_claude_md", Bool),
                ("include_package_json", Bool),
                ("include_structure", Bool),
                ("structure_depth", Whole),
                ("extra_files", texts()),
            ]),
        ),
        (
            "budget",
            Object(vec![
                ("max_reviewers_per_call", Whole),
                ("timeout_ms", Whole),
                ("log_costs", Bool),
            ]),
        ),
    ])
}

fn check(
    value: &mut Value,
    shape: &Shape,
    path: &str,
    errors: &mut Vec<String>,
    unknown: &mut Vec<String>,
) {
    let at = |p: &str| {
        if p.is_empty() {
            "the file".to_string()
        } else {
            format!("`{p}`")
        }
    };
    let found = |v: &Value| match v {
        Value::Null => "null".to_string(),
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    };
    let shown = found(value);
    let mut wrong = |expected: &str| {
        errors.push(format!("{}: expected {expected}, found {shown}", at(path)));
    };
    match shape {
        Shape::Bool if !value.is_boolean() => wrong("true or false"),
        Shape::Number if !value.is_number() => wrong("a number"),
        Shape::Whole if !value.is_u64() => wrong("a whole number"),
        Shape::Text if !value.is_string() => wrong("a string"),
        Shape::OneOf(words) if !value.as_str().is_some_and(|s| words.contains(&s)) => {
            wrong(&format!("one of {}", words.join(", ")));
        }
        Shape::List(item) => match value.as_array_mut() {
            None => wrong("a list"),
            Some(items) => {
                for (i, v) in items.iter_mut().enumerate() {
                    check(v, item, &format!("{path}[{i}]"), errors, unknown);
                }
            }
        },
        Shape::Object(fields) => match value.as_object_mut() {
            None => wrong("an object"),
            Some(map) => {
                let names = || {
                    fields
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                map.retain(|k, _| {
                    let known = fields.iter().any(|(name, _)| name == k);
                    if !known {
                        unknown.push(format!(
                            "unknown key `{}` (expected one of {})",
                            join(path, k),
                            names()
                        ));
                    }
                    known
                });
                for (k, v) in map.iter_mut() {
                    if let Some((_, s)) = fields.iter().find(|(name, _)| name == k) {
                        check(v, s, &join(path, k), errors, unknown);
                    }
                }
            }
        },
        Shape::Map(item) => match value.as_object_mut() {
            None => wrong("an object"),
            Some(map) => {
                for (k, v) in map.iter_mut() {
                    check(v, item, &join(path, k), errors, unknown);
                }
            }
        },
        _ => {}
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn layer(file: &str) -> Layer {
        Layer::user(Path::new(file))
    }

    #[test]
    fn paths_inside_the_project() {
        assert_eq!(
            inside(".claude", "perf.md").as_deref(),
            Some(".claude/perf.md")
        );
        assert_eq!(
            inside(".claude", "../reviewers/perf.md").as_deref(),
            Some("reviewers/perf.md")
        );
        assert_eq!(inside(".claude", "../../etc/passwd"), None);
        assert_eq!(inside(".claude", "/etc/passwd"), None);
        assert_eq!(inside(".claude", ".."), None);
        assert_eq!(
            inside(".crit", "./a/./b.md").as_deref(),
            Some(".crit/a/b.md")
        );
    }

    #[test]
    fn merge_is_deep_and_arrays_replace() {
        let mut base = json!({"a": {"b": 1, "c": [1, 2]}, "d": true});
        merge(&mut base, json!({"a": {"c": [3]}, "e": "x"}));
        assert_eq!(base, json!({"a": {"b": 1, "c": [3]}, "d": true, "e": "x"}));
        set_path(&mut base, "a.f.g", json!(5));
        assert_eq!(base["a"]["f"]["g"], json!(5));
    }

    #[test]
    fn errors_name_the_key() {
        let mut w = Vec::new();
        let e = parse(
            r#"{"budget": {"timeout_ms": "8000"}, "mode": "cloud", "modle": 1}"#,
            &layer("c.json"),
            &mut w,
        )
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("c.json: "), "{e}");
        assert!(
            e.contains("`budget.timeout_ms`: expected a whole number, found \"8000\""),
            "{e}"
        );
        assert!(
            e.contains("`mode`: expected one of subscription, api"),
            "{e}"
        );
        // An unknown key is a warning, not an error.
        assert!(!e.contains("modle"), "{e}");
        assert!(
            w[0].contains("unknown key `modle`") && w[0].ends_with("ignored"),
            "{w:?}"
        );
        let e = parse(
            "{\"reviewers\": {\"x\": {\"ops\": [\"Rewrite\"]}}}",
            &layer("c.json"),
            &mut w,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`reviewers.x.ops[0]`: expected one of AddConstraint"),
            "{e}"
        );
        let e = parse("{\n  \"mode\": \n", &layer("c.json"), &mut w)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line"), "{e}");
        assert!(
            parse(
                "mode: api\nbudget:\n  timeout_ms: 5000\n",
                &layer("c.yaml"),
                &mut w
            )
            .is_ok()
        );
    }

    #[test]
    fn unknown_keys_are_left_out_with_a_warning() {
        let mut w = Vec::new();
        let v = parse(
            r#"{"theme": "dark", "budget": {"timeout_ms": 5000, "max_cost": 1},
                "reviewers": {"security": {"enabled": true, "weight": 2}}}"#,
            &layer("config.json"),
            &mut w,
        )
        .unwrap();
        assert_eq!(
            v,
            serde_json::json!({"budget": {"timeout_ms": 5000}, "reviewers": {"security": {"enabled": true}}})
        );
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(
            w.iter().any(|x| x.contains("`reviewers.security.weight`")),
            "{w:?}"
        );
    }
}
