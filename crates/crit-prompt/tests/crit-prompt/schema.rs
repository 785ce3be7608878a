//! The critique schema: well-formed critiques pass with every severity and
//! every op, `no_issues` works, and malformed answers are caught with a reason.

use crit_prompt::critique::{self, OpKind, Rules, Severity};
use crit_prompt::reviewers;
use serde_json::{Value, json};

fn all_rules(name: &str) -> Rules {
    Rules {
        reviewer: name.into(),
        ops: OpKind::ALL.to_vec(),
        severities: Severity::ALL.to_vec(),
    }
}

fn rules_of(name: &str) -> Rules {
    reviewers::builtin_rules()
        .into_iter()
        .find(|r| r.reviewer == name)
        .unwrap()
}

fn answer(role: &str, severity: &str, op: &str) -> Value {
    json!({
        "reviewer_role": role, "severity_max": severity, "confidence": 0.7, "no_issues": false,
        "findings": [{"id": "X-001", "severity": severity, "confidence": 0.6, "issue": "i", "evidence": "e",
                      "suggested_ops": [{"op": op, "target": "constraints", "value": "v"}]}]
    })
}

#[test]
fn every_severity_and_every_op_is_accepted() {
    for s in Severity::ALL {
        for o in OpKind::ALL {
            let c = critique::check(
                &answer("custom", s.as_str(), o.as_str()),
                &all_rules("custom"),
            )
            .unwrap_or_else(|e| panic!("{s} {o}: {e}"));
            assert_eq!(c.findings[0].severity, s);
            assert_eq!(c.findings[0].suggested_ops[0].op, o);
            assert_eq!(c.worst(), Some(s));
        }
    }
    for t in ["constraints", "context", "output", "structure", "examples"] {
        let mut a = answer("custom", "minor", "AddContext");
        a["findings"][0]["suggested_ops"][0]["target"] = json!(t);
        critique::check(&a, &all_rules("custom")).unwrap();
    }
}

#[test]
fn no_issues() {
    let v = json!({"reviewer_role": "clarity", "severity_max": "nit", "confidence": 1.0, "findings": [], "no_issues": true});
    let c = critique::check(&v, &rules_of("clarity")).unwrap();
    assert!(c.no_issues && c.findings.is_empty() && c.worst().is_none());
}

#[test]
fn malformed_answers_are_caught() {
    let base = answer("security", "major", "AddGuardrail");
    let security = rules_of("security");
    assert!(critique::check(&base, &security).is_ok());
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "security may not give minor",
            answer("security", "minor", "AddGuardrail"),
            "findings/0/severity",
        ),
        (
            "security may not replace",
            answer("security", "major", "ReplaceVague"),
            "suggested_ops/0/op",
        ),
        (
            "wrong role",
            answer("clarity", "major", "AddGuardrail"),
            "reviewer_role",
        ),
        ("unknown op", answer("security", "major", "Rewrite"), "op"),
        (
            "no_issues with findings",
            {
                let mut v = base.clone();
                v["no_issues"] = json!(true);
                v
            },
            "no_issues",
        ),
        (
            "missing field",
            {
                let mut v = base.clone();
                v.as_object_mut().unwrap().remove("confidence");
                v
            },
            "confidence",
        ),
        (
            "confidence above 1",
            {
                let mut v = base.clone();
                v["findings"][0]["confidence"] = json!(1.5);
                v
            },
            "confidence",
        ),
        (
            "empty value",
            {
                let mut v = base.clone();
                v["findings"][0]["suggested_ops"][0]["value"] = json!("");
                v
            },
            "value",
        ),
        (
            "bad target",
            {
                let mut v = base.clone();
                v["findings"][0]["suggested_ops"][0]["target"] = json!("everything");
                v
            },
            "target",
        ),
        (
            "findings not a list",
            {
                let mut v = base.clone();
                v["findings"] = json!({});
                v
            },
            "findings",
        ),
        (
            "too many findings",
            {
                let mut v = base.clone();
                v["findings"] = json!(vec![base["findings"][0].clone(); 21]);
                v
            },
            "findings",
        ),
        ("not an object", json!(["a"]), "object"),
        (
            "a string",
            json!("{\"reviewer_role\": \"security\"}"),
            "object",
        ),
        ("null", Value::Null, "object"),
    ];
    for (what, v, mention) in cases {
        let e = critique::check(&v, &security).expect_err(what);
        assert!(e.to_string().contains(mention), "{what}: {e}");
    }
}

#[test]
fn builtin_rules_match_the_plugin() {
    let r = rules_of("security");
    assert_eq!(r.severities, [Severity::Blocker, Severity::Major]);
    assert!(r.ops.contains(&OpKind::AddGuardrail) && r.ops.contains(&OpKind::AddConstraint));
    let t = rules_of("testing");
    assert_eq!(
        t.ops,
        [OpKind::AddAcceptanceCriteria, OpKind::AddConstraint]
    );
    let c = rules_of("clarity");
    assert!(c.ops.contains(&OpKind::ReplaceVague) && c.ops.contains(&OpKind::RefactorStructure));
    let d = rules_of("domain_sme");
    assert!(d.ops.contains(&OpKind::AddContext) && d.ops.contains(&OpKind::ReplaceVague));
    assert_eq!(reviewers::builtin_rules().len(), 6);
}

/// The prompt-review plugin's own fixture critiques carry fields its schema
/// does not define (`score`, and `original` on a ReplaceVague op): they are
/// read, the extra fields ignored and `original` kept as the op's target.
#[test]
fn the_plugins_fixture_critiques_are_read_leniently() {
    let clarity = json!({
        "reviewer_role": "clarity", "severity_max": "minor", "confidence": 0.8, "score": 6,
        "findings": [{
            "id": "CLR-001", "severity": "minor", "confidence": 0.85, "score": 0.7,
            "issue": "Vague verb", "evidence": "optimize the settings",
            "suggested_ops": [{"op": "ReplaceVague", "target": "constraints",
                "original": "optimize the settings",
                "value": "Reduce settings.ts render time by extracting the browser config section into a separate component"}]
        }],
        "no_issues": false
    });
    let c = critique::check(&clarity, &rules_of("clarity")).unwrap();
    assert_eq!(
        c.findings[0].suggested_ops[0].original.as_deref(),
        Some("optimize the settings")
    );
    let security = json!({
        "reviewer_role": "security", "severity_max": "major", "confidence": 0.9, "score": 8,
        "findings": [], "no_issues": true
    });
    assert!(
        critique::check(&security, &rules_of("security"))
            .unwrap()
            .no_issues
    );
    // The schema each reviewer is given says so too: no field is refused.
    let schema = critique::schema(&rules_of("clarity"));
    assert!(
        !schema.to_string().contains("additionalProperties"),
        "{schema}"
    );
}
