//! The JSON Schema dialect `claude --json-schema` accepts.
//!
//! The CLI compiles the schema with Ajv in its default (draft-07) mode, strict,
//! with format validation off. Ajv refuses a `$schema` it has no meta-schema
//! for (draft 2020-12, which crit's generated schemas declare) and, in strict
//! mode, any keyword draft-07 does not know. [`for_cli`] rewrites a schema into
//! that dialect once, for every schema crit sends (its own contracts and a
//! user's `output_schema` alike):
//!
//! - `$schema` goes (the dialect is the CLI's, whatever the schema says);
//! - `prefixItems` becomes draft-07's array form of `items`, and a following
//!   `items` becomes `additionalItems`;
//! - `dependentRequired` and `dependentSchemas` become `dependencies`;
//! - keywords draft-07 has no equivalent for (`unevaluatedProperties`,
//!   `unevaluatedItems`, `minContains`, `maxContains`, `$anchor`, `$dynamicRef`,
//!   `$dynamicAnchor`, `$vocabulary`, `$recursiveRef`, `$recursiveAnchor`) are
//!   dropped;
//! - `format` values that are not JSON Schema formats (`uint32`, `int64`, …,
//!   which schema generators emit for Rust and C types) are dropped: the CLI
//!   ignores formats anyway, and the model reads them as noise.
//!
//! Dropping a keyword can only loosen what the CLI checks, never reject a
//! valid answer; the caller validates the answer against the original schema
//! (the panel does), so the schema the user wrote still decides.
//!
//! Only schema positions are rewritten: a property *named* `prefixItems` in
//! `properties` is a name, not a keyword, and stays.

use serde_json::{Map, Value};

/// Keywords whose value is one schema.
const SCHEMA_VALUED: &[&str] = &[
    "additionalProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "items",
];

/// Keywords whose value is an array of schemas.
const SCHEMA_ARRAYS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to schemas.
const SCHEMA_MAPS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Draft 2019/2020 keywords with no draft-07 equivalent.
const DROPPED: &[&str] = &[
    "$schema",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minContains",
    "maxContains",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$recursiveRef",
    "$recursiveAnchor",
];

/// The formats JSON Schema defines (draft-07 and later).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// `schema` in the dialect the Claude Code CLI accepts (see the module docs).
pub fn for_cli(schema: &Value) -> Value {
    let mut out = schema.clone();
    rewrite(&mut out);
    out
}

fn rewrite(schema: &mut Value) {
    let Value::Object(map) = schema else {
        // `true`/`false` schemas and anything malformed pass through as is:
        // the CLI says what is wrong with them.
        return;
    };
    for key in DROPPED {
        map.remove(*key);
    }
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
    {
        map.remove("format");
    }
    tuple_items(map);
    dependencies(map);
    for (key, value) in map.iter_mut() {
        let key = key.as_str();
        if SCHEMA_VALUED.contains(&key) {
            match value {
                // Draft-07's tuple form (also what `prefixItems` became).
                Value::Array(items) if key == "items" => items.iter_mut().for_each(rewrite),
                _ => rewrite(value),
            }
        } else if SCHEMA_ARRAYS.contains(&key)
            && let Value::Array(items) = value
        {
            items.iter_mut().for_each(rewrite);
        } else if (SCHEMA_MAPS.contains(&key) || key == "dependencies")
            && let Value::Object(named) = value
        {
            // `dependencies` mixes schemas and name lists; lists are left alone.
            named.values_mut().for_each(rewrite);
        }
    }
}

/// `prefixItems: [A, B], items: C` → `items: [A, B], additionalItems: C`.
fn tuple_items(map: &mut Map<String, Value>) {
    let Some(prefix) = map.remove("prefixItems") else {
        return;
    };
    if let Some(rest) = map.remove("items") {
        map.insert("additionalItems".into(), rest);
    }
    map.insert("items".into(), prefix);
}

/// `dependentRequired` and `dependentSchemas` → draft-07's `dependencies`.
fn dependencies(map: &mut Map<String, Value>) {
    let mut merged = match map.remove("dependencies") {
        Some(Value::Object(m)) => m,
        Some(other) => {
            // Not an object: leave it for the CLI to report.
            map.insert("dependencies".into(), other);
            return;
        }
        None => Map::new(),
    };
    for key in ["dependentRequired", "dependentSchemas"] {
        if let Some(Value::Object(m)) = map.remove(key) {
            for (name, dep) in m {
                merged.entry(name).or_insert(dep);
            }
        }
    }
    if !merged.is_empty() {
        map.insert("dependencies".into(), Value::Object(merged));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn drops_the_meta_schema_and_unknown_formats_keeps_refs() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {"N": {"type": "integer", "format": "uint32", "minimum": 1}},
            "type": "object",
            "properties": {
                "n": {"$ref": "#/$defs/N"},
                "at": {"type": "string", "format": "date-time"}
            }
        });
        assert_eq!(
            for_cli(&s),
            json!({
                "$defs": {"N": {"type": "integer", "minimum": 1}},
                "type": "object",
                "properties": {
                    "n": {"$ref": "#/$defs/N"},
                    "at": {"type": "string", "format": "date-time"}
                }
            })
        );
    }

    #[test]
    fn rewrites_draft_2020_keywords_at_every_depth() {
        let s = json!({
            "type": "object",
            "properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer", "format": "int64"}], "items": false},
                "list": {"type": "array", "items": {"type": "object", "unevaluatedProperties": false}},
                "prefixItems": {"type": "string"}
            },
            "dependentRequired": {"a": ["b"]},
            "dependentSchemas": {"c": {"required": ["d"], "$anchor": "x"}},
            "anyOf": [{"minContains": 1, "contains": {"const": 1}}]
        });
        assert_eq!(
            for_cli(&s),
            json!({
                "type": "object",
                "properties": {
                    "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false},
                    "list": {"type": "array", "items": {"type": "object"}},
                    "prefixItems": {"type": "string"}
                },
                "dependencies": {"a": ["b"], "c": {"required": ["d"]}},
                "anyOf": [{"contains": {"const": 1}}]
            })
        );
    }

    #[test]
    fn leaves_a_draft_07_schema_alone() {
        let s = json!({
            "type": "object",
            "definitions": {"x": {"type": "string"}},
            "properties": {"x": {"$ref": "#/definitions/x"}, "t": {"items": [{"type": "string"}], "additionalItems": false}},
            "dependencies": {"x": ["t"]},
            "required": ["x"],
            "additionalProperties": false
        });
        assert_eq!(for_cli(&s), s);
        assert_eq!(for_cli(&json!(true)), json!(true));
    }
}
