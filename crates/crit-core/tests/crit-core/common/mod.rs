//! Shared by the integration tests.

#![allow(dead_code)]

pub mod fixtures;

use crit_core::ReviewResult;

/// Verdict, gate, parse error, then one line per finding:
/// `severity location "title" reviewer (body length)`.
pub fn show(r: &ReviewResult) -> String {
    let mut s = format!(
        "{} passed={} parse_error={:?}",
        r.verdict, r.passed, r.parse_error
    );
    for f in &r.findings {
        let loc = f
            .location
            .as_ref()
            .map(|l| l.display())
            .unwrap_or_else(|| "-".into());
        s.push_str(&format!(
            "\n{} {} {:?} {} ({})",
            f.severity,
            loc,
            f.title,
            f.reviewer,
            f.body.chars().count()
        ));
    }
    s
}
