//! `crit doctor`: the chosen backend and model and where each came from; one
//! tiny request; latency, tokens and cost; a diagnosis when it fails. No retries,
//! so a bad key fails in one round trip. Also whether the kernel sandbox for the
//! reviewer's tools (Landlock) is active on this system.

use std::time::Duration;

use anyhow::anyhow;
use crit_agent::sandbox::{self, SandboxStatus};
use crit_llm::{LlmError, Selection, Sourced, doctor};
use crit_project::Kind;
use tokio_util::sync::CancellationToken;

use crate::backend;
use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};
use crate::output::{json_printable, printable, printable_line, printable_value};

pub fn run(common: &CommonArgs) -> Result<Code, CliError> {
    crate::runner::init_logging(common);
    let env = common.env.clone();
    let project = backend::project(common, &env)?;
    project.rules().release_warnings();
    let code = backend::settings(&project, Kind::Code)?;
    let selection = backend::selection(&code)?;
    // The model of each kind, as its reviews will ask for it.
    let mut models = Vec::new();
    for kind in Kind::ALL {
        let s = backend::settings(&project, kind)?;
        models.push((kind, s.model));
    }
    let deadline = Duration::from_secs(common.timeout.unwrap_or(30));
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::could_not_run(anyhow!("starting the async runtime: {e}")))?;
    let result = runtime.block_on(doctor(&selection, deadline, CancellationToken::new()));
    let sandbox = sandbox::probe();
    if common.json {
        let mut doc = match &result {
            Ok(report) => serde_json::json!({"ok": true, "report": report}),
            Err(e) => serde_json::json!({
                "ok": false, "selection": selection.rows(), "error": e.to_string(), "hint": e.hint(),
            }),
        };
        doc["models"] = models
            .iter()
            .map(|(k, m)| {
                (
                    k.name().to_string(),
                    serde_json::json!({"model": m.value, "source": m.source.to_string()}),
                )
            })
            .collect::<serde_json::Map<_, _>>()
            .into();
        doc["sandbox"] = sandbox_json(&sandbox);
        println!("{}", json_printable(&doc));
    } else {
        print!("{}", describe(&selection, &models, &result, &sandbox));
    }
    Ok(if result.is_ok() {
        Code::Ok
    } else {
        Code::CouldNotRun
    })
}

fn sandbox_json(status: &SandboxStatus) -> serde_json::Value {
    let abi = match status {
        SandboxStatus::Active { abi } => Some(*abi),
        SandboxStatus::Unavailable { .. } => None,
    };
    serde_json::json!({
        "active": status.is_active(),
        "landlock_abi": abi,
        "detail": status.to_string(),
    })
}

fn describe(
    selection: &Selection,
    models: &[(Kind, Sourced<String>)],
    result: &Result<crit_llm::DoctorReport, LlmError>,
    sandbox: &SandboxStatus,
) -> String {
    let rows = selection.rows();
    let width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0).max(9);
    let mut out = String::new();
    for r in rows.iter().filter(|r| r.key != "model") {
        out.push_str(&format!(
            "{:<width$}  {}  ({})\n",
            r.key,
            printable_value(&r.value),
            printable_line(&r.source)
        ));
    }
    for (kind, m) in models {
        let model = match m.value.as_str() {
            "" => "the backend's default model".to_string(),
            v => crit_llm::pricing::resolve_alias(v),
        };
        out.push_str(&format!(
            "{:<width$}  {} for {}  ({})\n",
            "model",
            printable_line(&model),
            kind.name(),
            printable_line(&m.source.to_string())
        ));
    }
    out.push('\n');
    match result {
        Ok(report) => {
            let u = &report.usage;
            out.push_str(&format!(
                "{:<width$}  ok in {} ms · {} model · {} in / {} out tokens · ${:.6}{}\n",
                "request",
                report.latency.as_millis(),
                // The server names its model: as much the endpoint's text
                // as the reply.
                if report.model.is_empty() {
                    "?".to_string()
                } else {
                    printable_line(&report.model)
                },
                u.total_input(),
                u.output_tokens,
                report.cost.usd,
                if report.cost.priced {
                    ""
                } else {
                    " (no price known for this model)"
                },
            ));
            out.push_str(&format!(
                "{:<width$}  {}\n",
                "reply",
                printable_line(&report.reply)
            ));
            // Caching only engages past the model's minimum; reviews report
            // their cache reads and writes in every result's usage.
            let model = if report.model.is_empty() {
                selection.request_model()
            } else {
                report.model.clone()
            };
            out.push_str(&format!(
                "{:<width$}  prefixes from {} tokens are cached on {}; this request read {} and wrote {} cached tokens\n",
                "cache",
                crit_llm::pricing::cache_min_tokens(&model),
                printable_line(&model),
                u.cache_read_tokens,
                u.cache_write_tokens,
            ));
        }
        Err(e) => {
            // The error may quote the endpoint's answer.
            out.push_str(&format!(
                "{:<width$}  failed: {}\n",
                "request",
                printable(&e.to_string())
            ));
            out.push_str(&format!("{:<width$}  {}\n", "diagnosis", e.hint()));
        }
    }
    out.push_str(&format!("{:<width$}  {sandbox}\n", "sandbox"));
    out
}
