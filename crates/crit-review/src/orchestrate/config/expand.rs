//! `${cwd}` and `${env:NAME}` in a `crit run` config's string values. A
//! variable the project's rules do not let it read stays as written.

use std::path::Path;

use serde_json::Value;

/// What `${env:NAME}` becomes: the variable's value (`None`: unset), or the
/// text as written when the project's rules do not allow reading it.
pub(super) enum Lookup {
    Value(Option<String>),
    Keep,
}

/// Expands every string in `v`; the error names the key path.
pub(super) fn expand_all(
    v: &mut Value,
    path: &str,
    cwd: &Path,
    env: &dyn Fn(&str) -> Lookup,
) -> Result<(), (String, String)> {
    match v {
        Value::String(s) => {
            *s = expand_with(s, cwd, env).map_err(|m| (path.to_string(), m))?;
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                expand_all(item, &format!("{path}[{i}]"), cwd, env)?;
            }
        }
        Value::Object(map) => {
            for (k, item) in map.iter_mut() {
                // A JSON Schema is data for the model, not config: left as written.
                if path.is_empty() && k == "output_schema" {
                    continue;
                }
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                expand_all(item, &p, cwd, env)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// `${cwd}` and `${env:NAME}`; an unset variable is an error, not an empty
/// string (a missing token would otherwise fail much later, far from here).
pub fn expand(s: &str, cwd: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    expand_with(s, cwd, &|name: &str| Lookup::Value(env(name)))
}

pub(super) fn expand_with(
    s: &str,
    cwd: &Path,
    env: &dyn Fn(&str) -> Lookup,
) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 2..];
        let Some(end) = tail.find('}') else {
            return Err(format!("`${{` without a closing `}}` in `{s}`"));
        };
        let name = &tail[..end];
        match name.strip_prefix("env:") {
            Some(var) => match env(var) {
                Lookup::Value(Some(v)) => out.push_str(&v),
                Lookup::Keep => out.push_str(&rest[i..i + 2 + end + 1]),
                Lookup::Value(None) => {
                    return Err(format!("`${{env:{var}}}` is used but {var} is not set"));
                }
            },
            None if name == "cwd" => out.push_str(&cwd.display().to_string()),
            None => {
                return Err(format!(
                    "unknown variable `${{{name}}}`; use ${{cwd}} or ${{env:NAME}}"
                ));
            }
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
