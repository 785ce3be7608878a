//! The approval marker, `{dir}/{plan stem}.approved`. The original tool's
//! marker was an empty file checked by its age, so `touch` approved any plan.
//! crit's holds the SHA-256 of the plan, a fingerprint of the checks and user
//! approvals that passed it, and a seal over both under the user's key
//! ([`crit_os::seal`]). `crit plan verify` and the PreToolUse hook recompute all
//! three: a touched, copied or hand-written marker, a plan edited after the
//! approval, or changed checks, do not pass.

use std::path::Path;

use serde_json::json;

use crate::check::Check;
use crate::error::CheckError;
use crate::session::SessionPaths;
use crate::state::State;
use crit_os::seal::{SealKey, sha256_hex};

const PURPOSE: &str = "crit plan approval v1";

/// Whether an approval still covers the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// crit approved exactly this plan under exactly these checks.
    Fresh,
    /// The plan changed after the approval.
    Stale,
    /// The checks (or the approvals in state.yaml) changed after the approval.
    ChecksChanged,
    /// Never approved.
    Missing,
    /// A marker crit did not write (touched, copied from another plan, edited).
    Unsealed,
    /// state.yaml was changed outside crit.
    StateEdited,
}

/// What approved a plan: every check in force (not where it was read from)
/// and the check ids the user approved, as one SHA-256.
pub fn checks_fingerprint(checks: &[Check], state: &State) -> String {
    let checks: Vec<_> = checks
        .iter()
        .map(|c| {
            json!([
                c.id,
                c.pattern,
                c.match_rule,
                c.fix,
                c.reason,
                c.reject_if_persists,
                c.source
            ])
        })
        .collect();
    let mut approved = state.approved.clone();
    approved.sort();
    approved.dedup();
    let doc = json!({"checks": checks, "approved": approved});
    sha256_hex(doc.to_string().as_bytes())
}

/// Writes the marker for `plan` (as it is on disk now) under `fingerprint`.
pub fn write_marker(
    paths: &SessionPaths,
    key: &SealKey,
    plan: &str,
    fingerprint: &str,
) -> Result<(), CheckError> {
    let plan_sha = sha256_hex(plan.as_bytes());
    let who = identity(&paths.plan);
    let seal = key.seal(
        PURPOSE,
        &[who.as_bytes(), plan_sha.as_bytes(), fingerprint.as_bytes()],
    );
    let name = paths
        .plan
        .file_name()
        .map_or_else(|| "the plan".into(), |n| n.to_string_lossy().into_owned());
    let text = format!(
        "# Written by `crit plan` when it approved {name}. Editing the plan, its checks or\n\
         # state.yaml voids it, and so does editing this file: `crit plan verify` checks it.\n\
         plan_sha256: {plan_sha}\n\
         checks_sha256: {fingerprint}\n\
         seal: {seal}\n"
    );
    crate::session::write_in(&paths.dir, &paths.marker, &text)
}

/// How the marker on disk stands against `plan` and `fingerprint` now.
pub fn check_marker(
    paths: &SessionPaths,
    key: Option<&SealKey>,
    plan: &str,
    fingerprint: &str,
) -> Result<Freshness, CheckError> {
    let Some(text) = crate::sources::read_confined(&paths.dir, &paths.marker)? else {
        return Ok(Freshness::Missing);
    };
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .map(str::trim)
    };
    let (Some(plan_sha), Some(checks_sha), Some(seal), Some(key)) = (
        field("plan_sha256"),
        field("checks_sha256"),
        field("seal"),
        key,
    ) else {
        return Ok(Freshness::Unsealed);
    };
    let who = identity(&paths.plan);
    let parts: [&[u8]; 3] = [who.as_bytes(), plan_sha.as_bytes(), checks_sha.as_bytes()];
    if !key.verify(PURPOSE, &parts, seal) {
        return Ok(Freshness::Unsealed);
    }
    Ok(if plan_sha != sha256_hex(plan.as_bytes()) {
        Freshness::Stale
    } else if checks_sha != fingerprint {
        Freshness::ChecksChanged
    } else {
        Freshness::Fresh
    })
}

/// The plan's canonical path: a marker copied next to another plan does not verify.
fn identity(plan: &Path) -> String {
    std::fs::canonicalize(plan)
        .unwrap_or_else(|_| plan.to_path_buf())
        .to_string_lossy()
        .into_owned()
}
