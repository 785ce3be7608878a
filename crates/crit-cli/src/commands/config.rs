//! `crit config`: the effective configuration and where each value came from
//! (flag, environment, which file and line, auto-detection, default).

use crit_llm::{Env, SelectionRow};

use crate::backend;
use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};

pub fn run(common: &CommonArgs) -> Result<Code, CliError> {
    let env = Env::from_process();
    let file = backend::load_config(common, &env)?;
    let mut rows: Vec<SelectionRow> = match backend::select(common, &env) {
        Ok(selection) => selection.rows(),
        Err(e) if e.code() == crate::exit::Code::CouldNotRun => vec![row(
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

fn row(key: &str, value: &str, source: &str) -> SelectionRow {
    SelectionRow {
        key: key.to_string(),
        value: value.to_string(),
        source: source.to_string(),
    }
}
