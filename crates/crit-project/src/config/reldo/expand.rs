//! `${cwd}` and `${env:NAME}` in a `crit run` config's string values, as
//! Reldo expands them: those two and nothing else. Any other `${…}` stays as
//! written (a shell snippet or a template of some other tool); so does an
//! unset variable, with a warning; so does a variable the project's rules do
//! not let the config read.

use std::path::Path;

use serde_json::Value;

/// What `${env:NAME}` becomes: the variable's value (`None`: unset), or the
/// text as written when the project's rules do not allow reading it.
pub(super) enum Lookup {
    Value(Option<String>),
    Keep,
}

/// Expands every string in `v`; warnings name the key path.
pub(super) fn expand_all(
    v: &mut Value,
    path: &str,
    cwd: &Path,
    env: &dyn Fn(&str) -> Lookup,
    warnings: &mut Vec<String>,
) {
    match v {
        Value::String(s) => {
            let mut unset = Vec::new();
            *s = expand_with(s, cwd, env, &mut unset);
            warnings.extend(unset.into_iter().map(|name| unset_warning(path, &name)));
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                expand_all(item, &format!("{path}[{i}]"), cwd, env, warnings);
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
                expand_all(item, &p, cwd, env, warnings);
            }
        }
        _ => {}
    }
}

/// The warning for an unset `${env:NAME}` at `key`.
pub(super) fn unset_warning(key: &str, name: &str) -> String {
    format!("{key}: `${{env:{name}}}` is used but {name} is not set; left as written")
}

/// `${cwd}` and `${env:NAME}` in `s`; every other `${…}`, and an unset
/// variable, stays as written. Returns the text and the unset names.
pub fn expand(s: &str, cwd: &Path, env: &crit_os::Env) -> (String, Vec<String>) {
    let mut unset = Vec::new();
    let lookup = |name: &str| Lookup::Value(env.get(name).map(str::to_string));
    let out = expand_with(s, cwd, &lookup, &mut unset);
    (out, unset)
}

pub(super) fn expand_with(
    s: &str,
    cwd: &Path,
    env: &dyn Fn(&str) -> Lookup,
    unset: &mut Vec<String>,
) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 2..];
        let Some(end) = tail.find('}') else {
            // `${` without a closing brace: text, as written.
            out.push_str(&rest[i..]);
            return out;
        };
        let written = &rest[i..i + 2 + end + 1];
        let name = &tail[..end];
        match name.strip_prefix("env:") {
            Some(var) => match env(var) {
                Lookup::Value(Some(v)) => out.push_str(&v),
                Lookup::Keep => out.push_str(written),
                Lookup::Value(None) => {
                    if !unset.iter().any(|u| u == var) {
                        unset.push(var.to_string());
                    }
                    out.push_str(written);
                }
            },
            None if name == "cwd" => out.push_str(&cwd.display().to_string()),
            None => out.push_str(written),
        }
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(s: &str) -> (String, Vec<String>) {
        expand(s, Path::new("/p"), &crit_os::Env::new().with("SET", "v"))
    }

    #[test]
    fn only_cwd_and_env_expand() {
        assert_eq!(run("${cwd}/x ${env:SET}").0, "/p/x v");
        for kept in [
            "${HOME}",
            "${workspaceFolder}",
            "${ env:SET }",
            "${",
            "a ${b",
            "$${cwd}x",
        ] {
            let (out, unset) = run(kept);
            if kept == "$${cwd}x" {
                assert_eq!(out, "$/px");
            } else {
                assert_eq!(out, kept);
            }
            assert!(unset.is_empty(), "{kept}");
        }
    }

    #[test]
    fn an_unset_variable_stays_as_written_and_is_reported_once() {
        let (out, unset) = run("${env:NOPE}-${env:NOPE}-${env:SET}");
        assert_eq!(out, "${env:NOPE}-${env:NOPE}-v");
        assert_eq!(unset, ["NOPE"]);
    }
}
