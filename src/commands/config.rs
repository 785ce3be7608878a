//! `crit config`: the effective configuration and where each value came from
//! (flag, environment, which file and line, auto-detection, default), whose
//! rules apply (and in CI, the base of the change), and the project settings
//! ignored because they are not trusted.

use crit_llm::{Env, SelectionRow};
use crit_project::trust::{ProjectRules, ci};

use crate::backend;
use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};

pub fn run(common: &CommonArgs) -> Result<Code, CliError> {
    let env = Env::from_process();
    let rules = backend::rules(common, &env)?;
    let file = backend::load_config(&env, &rules)?;
    let mut rows: Vec<SelectionRow> = match backend::select_if_any(common, &env, &file) {
        Ok(Some(selection)) => selection.rows(),
        Ok(None) => vec![row(
            "provider",
            "(none)",
            "no backend found; `crit doctor` lists the ways to configure one",
        )],
        Err(e) => return Err(e),
    };
    let reviewer = file
        .reviewer
        .as_ref()
        .map_or(("agent".to_string(), "default".to_string()), |s| {
            (s.value.clone(), s.source.clone())
        });
    rows.push(row("reviewer", &reviewer.0, &reviewer.1));
    if let Some(c) = &file.command {
        rows.push(row("command", &c.value.join(" "), &c.source));
    }
    let timeout = match (common.timeout, &file.timeout) {
        (Some(t), _) => (t, "--timeout".to_string()),
        (None, Some(s)) => (s.value, s.source.clone()),
        (None, None) => (600, "default".to_string()),
    };
    rows.push(row("timeout", &format!("{}s", timeout.0), &timeout.1));
    let fail_on = match (common.fail_on, &file.fail_on) {
        (Some(f), _) => (format!("{f:?}").to_lowercase(), "--fail-on".to_string()),
        (None, Some(s)) => (s.value.clone(), s.source.clone()),
        (None, None) => ("p1".to_string(), "default".to_string()),
    };
    rows.push(row("fail_on", &fail_on.0, &fail_on.1));
    if let Some(n) = common
        .max_turns
        .map(|n| (n, "--max-turns".to_string()))
        .or_else(|| file.max_turns.as_ref().map(|s| (s.value, s.source.clone())))
    {
        rows.push(row("max_turns", &n.0.to_string(), &n.1));
    }
    if let Some(b) = common
        .max_budget_usd
        .map(|b| (b, "--max-budget-usd".to_string()))
        .or_else(|| {
            file.max_budget_usd
                .as_ref()
                .map(|s| (s.value, s.source.clone()))
        })
    {
        rows.push(row("max_budget_usd", &format!("{:.2}", b.0), &b.1));
    }
    rows.extend(rules_rows(&rules));
    if common.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).unwrap_or_default()
        );
    } else {
        let width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
        let vwidth = rows
            .iter()
            .map(|r| r.value.chars().count())
            .max()
            .unwrap_or(0)
            .min(40);
        for r in &rows {
            println!("{:<width$}  {:<vwidth$}  ({})", r.key, r.value, r.source);
        }
    }
    Ok(Code::Ok)
}

/// Where the project's rules come from, the base of the change in CI, and
/// each setting ignored.
fn rules_rows(rules: &ProjectRules) -> Vec<SelectionRow> {
    let (value, source) = rules.describe();
    let mut rows = vec![row("rules", &value, &source)];
    if let Some(c) = rules.ci() {
        rows.push(match ci::review_base(rules.root(), c) {
            Ok(Some(b)) => row(
                "base",
                &b.label(),
                &format!("{}: {}", c.ci.name(), b.from),
            ),
            Ok(None) => row(
                "base",
                "(none)",
                &format!(
                    "{}: no pull or merge request and no upstream; `crit review code` surveys the project",
                    c.ci.name()
                ),
            ),
            Err(why) => row("base", "(not found)", &why),
        });
    }
    for asked in rules.asked().into_iter().filter(|a| !a.allowed) {
        let s = &asked.setting;
        rows.push(row(
            &s.key,
            &format!("{} (ignored)", s.value),
            &format!("{}: {}", s.at(), rules.why_ignored()),
        ));
    }
    rows
}

fn row(key: &str, value: &str, source: &str) -> SelectionRow {
    SelectionRow {
        key: key.to_string(),
        value: value.to_string(),
        source: source.to_string(),
    }
}
