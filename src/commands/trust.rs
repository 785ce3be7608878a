//! `crit trust [--show | --revoke]`: like direnv's `allow` or mise's `trust`,
//! the user allows this project's settings that run programs, move
//! credentials or relax the gate. What is trusted is each setting's exact
//! value; a changed or new one is ignored (with a warning) until trusted again.

use anyhow::anyhow;
use crit_llm::Env;
use crit_project::trust::{self, Gated, TrustStore};

use crate::cli::{CommonArgs, TrustArgs};
use crate::exit::{CliError, Code};
use crate::output::{json_printable, printable, printable_line, printable_value};

pub fn run(common: &CommonArgs, args: &TrustArgs) -> Result<Code, CliError> {
    let env = common.env.clone();
    let dir = common.cwd.clone().unwrap_or_else(|| ".".into());
    let root =
        crit_project::paths::project_root_in(&dir, env.get("HOME").map(std::path::Path::new));
    let store = TrustStore::standard(&env).ok_or_else(|| {
        CliError::usage(anyhow!(
            "there is nowhere to keep the trust store: set HOME or XDG_STATE_HOME"
        ))
    })?;
    if args.revoke {
        let had = store.revoke(&root).map_err(CliError::usage)?;
        println!(
            "{} {}",
            if had {
                "No longer trusting"
            } else {
                "Nothing was trusted in"
            },
            printable_line(&root.display().to_string())
        );
        return Ok(Code::Ok);
    }
    let mut survey = crit_review::template::trust_survey(&root);
    if let Some(config) = &args.config {
        add_run_config(&mut survey, &root, common.cwd.as_deref(), config)?;
    }
    for problem in &survey.unreadable {
        eprintln!(
            "crit: warning: {}; its settings cannot be listed, so they stay untrusted",
            printable(problem)
        );
    }
    let trusted = store.get(&root).map_err(CliError::usage)?;
    let is_trusted = |s: &Gated| {
        trusted
            .as_ref()
            .is_some_and(|t| t.settings.contains_key(&s.id()))
    };
    if args.show {
        print_settings(common, &survey.settings, &is_trusted);
        if !common.json {
            println!(
                "Trust store: {}",
                printable_line(&store.path().display().to_string())
            );
        }
        return Ok(Code::Ok);
    }
    // Configs only `crit run --config` loads, whose settings were ignored:
    // plain `crit trust` does not read them; say which and what to run.
    let pending = match &args.config {
        Some(_) => Vec::new(),
        None => super::trust_hints::pending(&root, &env),
    };
    let name_pending = || {
        for file in &pending {
            println!(
                "{} is loaded only with `crit run --config`, so plain `crit trust` does not read it; to trust its settings, run: crit trust --config {}",
                printable_line(file),
                printable_line(file)
            );
        }
    };
    if survey.settings.is_empty() {
        println!(
            "{} has no settings that run programs, move credentials or relax the gate; nothing to trust.",
            printable_line(&root.display().to_string())
        );
        name_pending();
        return Ok(Code::Ok);
    }
    if !common.json {
        println!(
            "Trusting these settings of {}:",
            printable_line(&root.display().to_string())
        );
    }
    print_settings(common, &survey.settings, &|_| true);
    super::trust_confirm::confirm(&env, args.yes)?;
    store
        .trust(&root, &survey.settings, std::time::SystemTime::now())
        .map_err(CliError::usage)?;
    if !common.json {
        println!(
            "Recorded in {}. A changed or new setting is ignored until you run `crit trust` again.",
            printable_line(&store.path().display().to_string())
        );
        name_pending();
    }
    if let Some(ci) = trust::ci::detect(&env) {
        eprintln!(
            "crit: note: in CI ({}), project rules come from the base revision, not from this trust",
            ci.ci.name()
        );
    }
    Ok(Code::Ok)
}

/// The settings of a `crit run` config given with `--config`, resolved as
/// `crit run --config` resolves it (relative to `--cwd` when given): a
/// file the survey does not find by itself.
fn add_run_config(
    survey: &mut trust::Survey,
    root: &std::path::Path,
    cwd: Option<&std::path::Path>,
    config: &std::path::Path,
) -> Result<(), CliError> {
    let path = match cwd {
        Some(c) if config.is_relative() => c.join(config),
        _ => config.to_path_buf(),
    };
    let inside = path
        .canonicalize()
        .ok()
        .zip(root.canonicalize().ok())
        .is_some_and(|(p, r)| p.starts_with(r));
    if !inside {
        // Loaded as the user's own file: every setting is honoured already.
        let _ = crit_review::orchestrate::RunConfig::load(&path, root, &Env::new())
            .map_err(|e| CliError::usage(anyhow!("{e}")))?;
        eprintln!(
            "crit: {} is outside {}: it is your own file and `crit run --config` honours it without trust",
            printable_line(&path.display().to_string()),
            printable_line(&root.display().to_string())
        );
        return Ok(());
    }
    let rules = trust::ProjectRules::trusting(root);
    crit_review::orchestrate::RunConfig::survey_with(&path, root, &rules)
        .map_err(|e| CliError::usage(anyhow!("{e}")))?;
    for asked in rules.asked() {
        if !survey.settings.iter().any(|s| s.id() == asked.setting.id()) {
            survey.settings.push(asked.setting);
        }
    }
    Ok(())
}

fn print_settings(common: &CommonArgs, settings: &[Gated], trusted: &dyn Fn(&Gated) -> bool) {
    if common.json {
        let items: Vec<serde_json::Value> = settings
            .iter()
            .map(|s| {
                serde_json::json!({
                    "file": s.file, "line": s.line, "key": s.key, "value": s.value,
                    "trusted": trusted(s),
                })
            })
            .collect();
        println!("{}", json_printable(&serde_json::Value::from(items)));
        return;
    }
    // The user decides on what they see: a value's escape sequences and
    // reordering characters are shown, never obeyed, and each setting stays
    // on its own line.
    let rows: Vec<(String, &str, String, String)> = settings
        .iter()
        .map(|s| {
            let mark = if trusted(s) { "trusted" } else { "not trusted" };
            (
                printable_line(&s.at()),
                mark,
                printable_value(&s.key),
                printable_value(&s.value),
            )
        })
        .collect();
    let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
    for (at, mark, key, value) in rows {
        println!("  {at:<width$}  {mark:<11}  {key}: {value}");
    }
}
