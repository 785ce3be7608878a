//! `crit doctor`: the chosen backend and model and where each came from; one
//! tiny request; latency, tokens and cost; a diagnosis when it fails. No retries,
//! so a bad key fails in one round trip. Also whether the kernel sandbox for the
//! reviewer's tools (Landlock) is active on this system.

use std::time::Duration;

use anyhow::anyhow;
use crit_agent::sandbox::{self, SandboxStatus};
use crit_llm::{Env, LlmError, Selection, doctor};
use tokio_util::sync::CancellationToken;

use crate::backend;
use crate::cli::CommonArgs;
use crate::exit::{CliError, Code};

pub fn run(common: &CommonArgs) -> Result<Code, CliError> {
    let env = Env::from_process();
    let selection = backend::select(common, &env)?;
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
        doc["sandbox"] = sandbox_json(&sandbox);
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        print!("{}", describe(&selection, &result, &sandbox));
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
    result: &Result<crit_llm::DoctorReport, LlmError>,
    sandbox: &SandboxStatus,
) -> String {
    let rows = selection.rows();
    let width = rows.iter().map(|r| r.key.len()).max().unwrap_or(0).max(9);
    let mut out = String::new();
    for r in &rows {
        out.push_str(&format!("{:<width$}  {}  ({})\n", r.key, r.value, r.source));
    }
    out.push('\n');
    match result {
        Ok(report) => {
            let u = &report.usage;
            out.push_str(&format!(
                "{:<width$}  ok in {} ms · {} model · {} in / {} out tokens · ${:.6}{}\n",
                "request",
                report.latency.as_millis(),
                if report.model.is_empty() {
                    "?"
                } else {
                    report.model.as_str()
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
            out.push_str(&format!("{:<width$}  {}\n", "reply", report.reply.trim()));
            // Caching only engages past the model's minimum; reviews report
            // their cache reads and writes in every result's usage.
            let model = if report.model.is_empty() {
                selection.request_model()
            } else {
                report.model.clone()
            };
            out.push_str(&format!(
                "{:<width$}  prefixes from {} tokens are cached on {model}; this request read {} and wrote {} cached tokens\n",
                "cache",
                crit_llm::pricing::cache_min_tokens(&model),
                u.cache_read_tokens,
                u.cache_write_tokens,
            ));
        }
        Err(e) => {
            out.push_str(&format!("{:<width$}  failed: {e}\n", "request"));
            out.push_str(&format!("{:<width$}  {}\n", "diagnosis", e.hint()));
        }
    }
    out.push_str(&format!("{:<width$}  {sandbox}\n", "sandbox"));
    out
}
