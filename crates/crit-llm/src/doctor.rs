//! One tiny request through the selected backend, for `crit doctor`.

use std::time::{Duration, Instant};

use crit_core::Usage;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::error::LlmError;
use crate::protocol::{Cost, ModelRequest};
use crate::retry::RetryPolicy;
use crate::select::{Selection, SelectionRow};

/// What `crit doctor` shows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DoctorReport {
    pub selection: Vec<SelectionRow>,
    pub backend: String,
    /// The model id the backend answered with.
    pub model: String,
    pub latency: Duration,
    pub usage: Usage,
    pub cost: Cost,
    pub reply: String,
}

/// The probe's prompt: a few tokens in, a few out.
pub const PROBE_PROMPT: &str = "Reply with the single word OK.";

/// Sends one tiny request with no retries at all (a 401 fails at once) and at
/// most `deadline` overall.
pub async fn doctor(
    selection: &Selection,
    deadline: Duration,
    cancel: CancellationToken,
) -> Result<DoctorReport, LlmError> {
    let mut sel = selection.clone();
    sel.retry = RetryPolicy::none();
    sel.record = None;
    sel.timeouts.deadline = Some(deadline);
    sel.timeouts.request = sel.timeouts.request.min(deadline);
    let backend = sel.build()?;
    let req = ModelRequest::new(sel.request_model(), 16).user(PROBE_PROMPT);
    let started = Instant::now();
    let resp = backend.model.complete(&req, cancel).await?;
    Ok(DoctorReport {
        selection: selection.rows(),
        backend: backend.model.name().to_string(),
        model: resp.model.clone(),
        latency: started.elapsed(),
        usage: resp.usage,
        cost: resp.cost,
        reply: resp.text().chars().take(200).collect(),
    })
}
