//! Review results used by the renderer tests.

use crit_core::{
    Finding, Location, ReviewResult, ReviewerOutcome, ReviewerStatus, Severity, Usage, Verdict,
};

/// A panel review with findings of every severity and kind of location.
pub fn rich() -> ReviewResult {
    let mut r = ReviewResult::new("code", Verdict::Fail);
    r.summary = "Two blocking problems in the request path; the rest is polish.".into();
    r.findings = vec![
        Finding::new(
            "[P0] SQL injection in search handler",
            Severity::P0,
            "security",
        )
        .with_body("`q` is interpolated into the query string.\nUse a bound parameter.")
        .with_location(Location::lines("api/search.go", 88, 95))
        .with_confidence(0.92),
        Finding::new(
            "[P1] Connection leak on error path",
            Severity::P1,
            "correctness",
        )
        .with_body("The early return skips `conn.Close()`.")
        .with_location(Location::lines("db/pool.go", 41, 41))
        .with_suggestion("\tdefer conn.Close()"),
        Finding::new(
            "[P2] Retry policy | unspecified",
            Severity::P2,
            "architecture",
        )
        .with_body("No backoff is defined for the webhook client.")
        .with_location(Location::Document {
            path: "docs/design.md".into(),
            heading: Some("Webhooks".into()),
            line: None,
        }),
        Finding::new("Avoid double negation", Severity::P3, "style")
            .with_body("`!notEmpty` reads better as `isEmpty`.")
            .with_location(Location::lines("web/a b/ü.ts", 7, 7))
            .with_rule("style/no-double-negation"),
        Finding::new(
            "Good test coverage of the parser",
            Severity::Info,
            "correctness",
        ),
    ];
    for f in &mut r.findings {
        if f.reviewer == "style" {
            f.in_change = Some(false);
        }
    }
    let usage = Usage {
        input_tokens: 1200,
        output_tokens: 800,
        cache_write_tokens: 5000,
        cache_read_tokens: 15000,
    };
    r.reviewers = ["security", "correctness", "architecture", "style"]
        .iter()
        .map(|n| ReviewerOutcome {
            name: (*n).into(),
            status: ReviewerStatus::Completed,
            verdict: Verdict::Fail,
            model: Some("claude-sonnet-5-5".into()),
            findings: 1,
            usage,
            cost_usd: Some(0.0123),
            duration_ms: 4200,
            error: None,
        })
        .collect();
    r.usage = r.reviewers.iter().map(|o| o.usage).sum();
    r.cost_usd = Some(0.0492);
    r.duration_ms = 5100;
    r.raw_output = "(four answers)".into();
    r.inputs.insert("diff".into(), "main..HEAD".into());
    r.started_at = Some("2026-11-21T13:05:09Z".into());
    r.apply_gate(crit_core::FailOn::default());
    r
}

/// A clean pass.
pub fn clean() -> ReviewResult {
    let mut r = ReviewResult::new("arch", Verdict::Pass);
    r.summary = "The slice follows the HLD.".into();
    r
}

/// An answer that could not be parsed.
pub fn unparseable() -> ReviewResult {
    ReviewResult::parse_failure(
        "tasks",
        "invalid json: EOF while parsing an object at line 1 column 20",
        "{\"verdict\": \"FAIL\",",
    )
}

/// Findings with suggestions: several lines, a deletion, and a replacement
/// holding code fences of its own.
pub fn suggestions() -> ReviewResult {
    let mut r = ReviewResult::new("code", Verdict::Concerns);
    r.findings = vec![
        Finding::new("Unchecked unwrap", Severity::P1, "correctness")
            .with_body("A missing key panics.")
            .with_location(Location::lines("src/config.rs", 12, 13))
            .with_suggestion("let port = cfg.get(\"port\")\n    .ok_or(Error::MissingPort)?;\n"),
        Finding::new("Dead debug print", Severity::P3, "style")
            .with_location(Location::lines("src/main.rs", 5, 5))
            .with_suggestion(""),
        Finding::new(
            "Example in the doc comment does not compile",
            Severity::P2,
            "docs",
        )
        .with_location(Location::lines("README.md", 3, 5))
        .with_suggestion("```rust\nlet x = 1;\n```"),
    ];
    // As crit records them once it checked the suggestion against the file.
    r.findings[0].suggestion_replaces = Some("let port = cfg.get(\"port\")\n    .unwrap();".into());
    r.apply_gate(crit_core::FailOn::default());
    r
}
