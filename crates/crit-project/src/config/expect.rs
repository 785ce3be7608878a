//! What each key of `config.yaml` takes, said after a YAML error: the YAML
//! library knows only the Rust type it wanted ("expected string scalar"), a
//! person needs the values the key accepts.

use crate::error::FileError;

/// `(key, parent key or "", what it takes)`.
const EXPECTED: &[(&str, &str, &str)] = &[
    (
        "provider",
        "",
        "one of anthropic, openai, claude-code, command, replay",
    ),
    (
        "model",
        "",
        "a model name or alias, e.g. sonnet or claude-sonnet-5-5",
    ),
    ("model", "review", "a model name or alias, e.g. sonnet"),
    (
        "models",
        "",
        "a map of review, verify and judge to model names",
    ),
    ("review", "models", "a model name or alias, e.g. sonnet"),
    ("verify", "models", "a model name or alias, e.g. haiku"),
    ("judge", "models", "a model name or alias, e.g. opus"),
    ("base_url", "", "a URL, e.g. http://localhost:11434/v1"),
    ("cassettes", "", "a directory"),
    ("reviewer", "", "agent or command"),
    ("reviewer", "review", "agent or command"),
    (
        "command",
        "",
        "a list: the program and its arguments, e.g. [review-gate, --json]",
    ),
    (
        "command",
        "review",
        "a list: the program and its arguments, e.g. [review-gate, --json]",
    ),
    ("timeout", "", "a whole number of seconds, e.g. 600"),
    ("timeout", "review", "a whole number of seconds, e.g. 600"),
    (
        "review",
        "",
        "a map of timeout, reviewer, command and model",
    ),
    ("fail_on", "", "one of p0, p1, p2, p3, concerns, never"),
    ("max_turns", "", "a whole number, e.g. 30"),
    ("max_budget_usd", "", "a number of US dollars, e.g. 2.5"),
    ("templates_dir", "", "a directory"),
    ("panel_start", "", "one of auto, together, warm-first"),
    (
        "ignore",
        "",
        "a list of path globs from the project root, e.g. [Cargo.lock, \"vendor/**\"]",
    ),
];

/// Keys of a benchmark configuration that a review takes as flags.
const BENCH_ONLY: [&str; 4] = ["verify", "consensus", "filter", "max_findings"];

/// `error` with what the key at its line takes, when the message does not
/// already say which values are allowed.
pub(super) fn explained(error: FileError, text: &str) -> FileError {
    let FileError::Invalid {
        file,
        line,
        column,
        message,
    } = error
    else {
        return error;
    };
    if let Some(key) = BENCH_ONLY
        .iter()
        .find(|k| message.contains(&format!("unknown field `{k}`")))
    {
        let flag = key.replace('_', "-");
        return FileError::Invalid {
            file,
            line,
            column,
            message: format!(
                "{message}; `{key}` belongs in a `crit bench --config` file, which compares \
                 review settings; a review takes `--{flag}` on its command line"
            ),
        };
    }
    let says_already = message.contains("expected one of") || message.contains("unknown field");
    let hint = (!says_already)
        .then(|| key_at(text, line))
        .flatten()
        .and_then(|(key, parent)| {
            EXPECTED
                .iter()
                .find(|(k, p, _)| *k == key && *p == parent)
                .map(|(k, _, what)| format!("; `{k}` takes {what}"))
        })
        .unwrap_or_default();
    FileError::Invalid {
        file,
        line,
        column,
        message: format!("{message}{hint}"),
    }
}

/// The key whose value holds line `line` (1-based), and its parent key:
/// the nearest `key:` at or above it, then the nearest less indented one.
fn key_at(text: &str, line: u64) -> Option<(String, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let at = usize::try_from(line).ok()?.min(lines.len());
    let mut found: Option<(usize, String)> = None;
    for l in lines[..at].iter().rev() {
        if let Some((indent, key)) = key_of(l) {
            match &found {
                None => found = Some((indent, key)),
                Some((i, k)) if indent < *i => return Some((k.clone(), key)),
                Some(_) => {}
            }
            if found.as_ref().is_some_and(|(i, _)| *i == 0) {
                break;
            }
        }
    }
    found.map(|(_, k)| (k, String::new()))
}

/// `(indent, key)` of a `key: …` line.
fn key_of(line: &str) -> Option<(usize, String)> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let (key, _) = trimmed.split_once(':')?;
    let ok = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| (indent, key.to_string()))
}

#[cfg(test)]
mod tests {
    use crate::config::Config;

    fn error(text: &str) -> String {
        Config::parse(text, "c.yaml").unwrap_err().to_string()
    }

    #[test]
    fn a_yaml_error_says_what_the_key_takes() {
        let e = error("fail_on: [p1\n");
        assert!(e.starts_with("c.yaml:1:"), "{e}");
        assert!(
            e.contains("`fail_on` takes one of p0, p1, p2, p3, concerns, never"),
            "{e}"
        );
        let e = error("model: x\ntimeout: soon\n");
        assert!(e.starts_with("c.yaml:2:"), "{e}");
        assert!(
            e.contains("`timeout` takes a whole number of seconds"),
            "{e}"
        );
        let e = error("models:\n  verify: [a]\n");
        assert!(e.contains("`verify` takes a model name"), "{e}");
        let e = error("review:\n  timeout: [1]\n");
        assert!(e.contains("`timeout` takes a whole number"), "{e}");
        let e = error("ignore: Cargo.lock\n");
        assert!(e.contains("`ignore` takes a list of path globs"), "{e}");
    }

    #[test]
    fn a_benchmark_key_says_where_it_belongs() {
        let e = error("model: haiku\nverify: off\n");
        assert!(e.starts_with("c.yaml:2:1: "), "{e}");
        assert!(
            e.contains("`verify` belongs in a `crit bench --config` file")
                && e.contains("`--verify`"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_key_is_not_explained_twice() {
        let e = error("modle: y\n");
        assert!(e.contains("modle") && !e.contains("takes"), "{e}");
    }
}
