//! Every schema crit hands to `claude --json-schema` survives the rewrite into
//! the CLI's dialect: no `$schema`, nothing draft-07 lacks, and the same
//! example answers are accepted and refused before and after.

use crit_llm::claude_code::schema::for_cli;
use serde_json::{Value, json};

/// Reldo's documented `output_schema`, as its users have it in `.claude/reldo.json`.
fn reldo_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "passed": { "type": "boolean" },
            "reviewers": { "type": "object", "additionalProperties": { "type": "boolean" } },
            "violations": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "file": { "type": "string" },
                        "line": { "type": "number" },
                        "message": { "type": "string" },
                        "reviewer": { "type": "string" }
                    }
                }
            }
        },
        "required": ["passed"]
    })
}

/// (name, schema, answers it accepts, answers it refuses)
fn cases() -> Vec<(&'static str, Value, Vec<Value>, Vec<Value>)> {
    let finding = json!({"file_path": "src/a.rs", "line_start": 3, "line_end": 4, "priority": 1,
                         "title": "[P1] Unchecked index", "body": "Panics on an empty list."});
    vec![
        (
            "findings contract",
            crit_core::schema::findings_contract(),
            vec![
                json!({"verdict": "PASS", "findings": []}),
                json!({"verdict": "FAIL", "summary": "One bug.", "findings": [finding.clone()]}),
            ],
            vec![
                json!({"verdict": "MAYBE", "findings": []}),
                json!({"findings": []}),
                json!({"verdict": "FAIL", "findings": [{"file_path": "a", "line_start": 0, "line_end": 1, "priority": 1, "title": "t", "body": "b"}]}),
                json!({"verdict": "FAIL", "findings": [{"file_path": "a", "line_start": 1, "line_end": 1, "priority": 9, "title": "t", "body": "b"}]}),
                json!({"verdict": "PASS", "findings": [], "extra": 1}),
            ],
        ),
        (
            "plan panel selection",
            crit_review::plan::selection_schema(),
            vec![
                json!({"panel": [{"name": "Ada", "domain": "security", "focus": ["auth"]}], "reason": "auth change"}),
            ],
            vec![
                json!({"panel": [], "reason": "none"}),
                json!({"panel": [{"name": "Ada"}], "reason": "x"}),
                json!({"reason": "x"}),
            ],
        ),
        (
            "Reldo output_schema",
            reldo_schema(),
            vec![
                json!({"passed": true}),
                json!({"passed": false, "reviewers": {"backend": false}, "violations": [{"file": "a.php", "line": 3, "message": "m", "reviewer": "backend"}]}),
            ],
            vec![
                json!({"reviewers": {}}),
                json!({"passed": "yes"}),
                json!({"passed": true, "reviewers": {"a": 1}}),
            ],
        ),
    ]
}

fn accepts(validator: &jsonschema::Validator, v: &Value) -> bool {
    validator.is_valid(v)
}

#[test]
fn every_schema_crit_sends_is_in_the_cli_dialect_and_judges_the_same() {
    for (name, schema, good, bad) in cases() {
        let cli = for_cli(&schema);
        let text = cli.to_string();
        assert!(!text.contains("$schema"), "{name}: {text}");
        for f in ["uint8", "uint32", "uint64", "int64", "double", "float"] {
            assert!(
                !text.contains(&format!("\"{f}\"")),
                "{name}: format {f} left in {text}"
            );
        }
        for kw in [
            "prefixItems",
            "unevaluatedProperties",
            "dependentRequired",
            "$anchor",
            "$dynamicRef",
        ] {
            assert!(!text.contains(kw), "{name}: {kw} left in {text}");
        }
        // Ajv in the CLI is draft-07; so is this validator for the rewritten schema.
        let original = jsonschema::validator_for(&schema).unwrap();
        let rewritten = jsonschema::draft7::new(&cli)
            .unwrap_or_else(|e| panic!("{name}: not a draft-07 schema: {e}"));
        for v in &good {
            assert!(accepts(&original, v), "{name}: original refuses {v}");
            assert!(accepts(&rewritten, v), "{name}: rewritten refuses {v}");
        }
        for v in &bad {
            assert!(!accepts(&original, v), "{name}: original accepts {v}");
            assert!(!accepts(&rewritten, v), "{name}: rewritten accepts {v}");
        }
    }
}

#[test]
fn model_facing_descriptions_hold_no_internal_words() {
    for (name, schema, ..) in cases() {
        let text = schema.to_string().to_lowercase();
        for word in ["seed", "design.md", "protocols.md", "issue "] {
            assert!(
                !text.contains(word),
                "{name} tells the model about `{word}`: {text}"
            );
        }
    }
}
