//! Golden outputs of the three shapes: the exact text a script written
//! against Reldo, the review templates or mala reads, field order included.

use std::collections::BTreeMap;

use super::{Compat, render};
use crate::{Finding, Location, ReviewResult, Severity, Usage, Verdict};

/// One review with every kind of finding a shape must map.
fn sample() -> ReviewResult {
    let mut r = ReviewResult::new("code", Verdict::Fail);
    r.findings = vec![
        Finding::new("[P1] SQL built from user input", Severity::P1, "agent-sdk")
            .with_body("Use a bound parameter.")
            .with_location(Location::lines("src/db.py", 42, 45)),
        Finding::new("[P3] Name could be clearer", Severity::P3, "agent-sdk")
            .with_body("`tmp` says little.")
            .with_location(Location::file("src/util.py")),
        Finding::new("Tests cover the new path", Severity::Info, "agent-sdk")
            .with_body("Nothing to do."),
    ];
    r.usage = Usage {
        input_tokens: 1000,
        output_tokens: 80,
        cache_write_tokens: 200,
        cache_read_tokens: 0,
    };
    r.cost_usd = Some(0.0042);
    r.duration_ms = 1530;
    r.raw_output = "STATUS: FAIL\n- src/db.py:42 SQL built from user input".into();
    r.session_log_path = Some(".reldo/sessions/2026-01-01T12-00-00-ab12cd34".into());
    r.inputs = BTreeMap::from([("diff".to_string(), "main..HEAD".to_string())]);
    r.started_at = Some("2026-01-01T12:00:00Z".into());
    r
}

#[test]
fn reldo() {
    insta::assert_snapshot!(render(&sample(), Compat::Reldo), @r###"
    {
      "text": "STATUS: FAIL\n- src/db.py:42 SQL built from user input",
      "structured_output": null,
      "input_tokens": 1200,
      "output_tokens": 80,
      "total_tokens": 1280,
      "total_cost_usd": 0.0042,
      "duration_ms": 1530
    }
    "###);
    let mut with_schema = sample();
    with_schema.structured_output = Some(serde_json::json!({"passed": false, "issues": 1}));
    with_schema.cost_usd = None;
    insta::assert_snapshot!(render(&with_schema, Compat::Reldo), @r###"
    {
      "text": "STATUS: FAIL\n- src/db.py:42 SQL built from user input",
      "structured_output": {
        "issues": 1,
        "passed": false
      },
      "input_tokens": 1200,
      "output_tokens": 80,
      "total_tokens": 1280,
      "total_cost_usd": null,
      "duration_ms": 1530
    }
    "###);
    let mut error = ReviewResult::new("run", Verdict::Error);
    error.fatal_error = true;
    error.parse_error = Some("config not found: .claude/reldo.json".into());
    insta::assert_snapshot!(render(&error, Compat::Reldo), @r###"
    {
      "error": "config not found: .claude/reldo.json"
    }
    "###);
}

#[test]
fn squadron() {
    insta::assert_snapshot!(render(&sample(), Compat::Squadron), @r###"
    {
      "verdict": "FAIL",
      "findings": [
        {
          "severity": "FAIL",
          "title": "SQL built from user input",
          "description": "Use a bound parameter.",
          "file_ref": "src/db.py:42-45"
        },
        {
          "severity": "CONCERN",
          "title": "Name could be clearer",
          "description": "`tmp` says little.",
          "file_ref": "src/util.py"
        },
        {
          "severity": "PASS",
          "title": "Tests cover the new path",
          "description": "Nothing to do.",
          "file_ref": null
        }
      ],
      "raw_output": "STATUS: FAIL\n- src/db.py:42 SQL built from user input",
      "template_name": "code",
      "input_files": {
        "diff": "main..HEAD"
      },
      "timestamp": "2026-01-01T12:00:00Z"
    }
    "###);
    // A verdict the templates have no word for fails as UNKNOWN.
    let incomplete = ReviewResult::new("arch", Verdict::Incomplete);
    insta::assert_snapshot!(render(&incomplete, Compat::Squadron), @r###"
    {
      "verdict": "UNKNOWN",
      "findings": [],
      "raw_output": "",
      "template_name": "arch",
      "input_files": {},
      "timestamp": null
    }
    "###);
}

#[test]
fn mala() {
    insta::assert_snapshot!(render(&sample(), Compat::Mala), @r###"
    {
      "passed": false,
      "issues": [
        {
          "file": "src/db.py",
          "line_start": 42,
          "line_end": 45,
          "priority": 1,
          "title": "[P1] SQL built from user input",
          "body": "Use a bound parameter.",
          "reviewer": "agent-sdk"
        },
        {
          "file": "src/util.py",
          "line_start": null,
          "line_end": null,
          "priority": 3,
          "title": "[P3] Name could be clearer",
          "body": "`tmp` says little.",
          "reviewer": "agent-sdk"
        },
        {
          "file": null,
          "line_start": null,
          "line_end": null,
          "priority": 3,
          "title": "Tests cover the new path",
          "body": "Nothing to do.",
          "reviewer": "agent-sdk"
        }
      ],
      "parse_error": null,
      "fatal_error": false,
      "review_log_path": ".reldo/sessions/2026-01-01T12-00-00-ab12cd34"
    }
    "###);
    let mut unparsed = ReviewResult::new("code", Verdict::Unknown);
    unparsed.parse_error = Some("invalid verdict: MAYBE".into());
    insta::assert_snapshot!(render(&unparsed, Compat::Mala), @r###"
    {
      "passed": false,
      "issues": [],
      "parse_error": "invalid verdict: MAYBE",
      "fatal_error": false,
      "review_log_path": null
    }
    "###);
}

/// The value saved beside crit's own keys holds the same fields.
#[test]
fn values_hold_the_rendered_fields() {
    for compat in Compat::ALL {
        let rendered: serde_json::Value = serde_json::from_str(&render(&sample(), compat)).unwrap();
        assert_eq!(rendered, compat.value(&sample()), "{}", compat.name());
    }
}
