//! A JSON document that keeps its keys in the order the file has them, so
//! editing a user's `settings.json` changes only what the edit is about.
//! (`serde_json::Value` sorts object keys; its `preserve_order` feature would
//! change the key order of every JSON document crit writes.)

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};

/// One JSON value; objects are key/value pairs in file order.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    pub fn object() -> Json {
        Json::Object(Vec::new())
    }

    pub fn str(s: impl Into<String>) -> Json {
        Json::String(s.into())
    }

    /// The value of `key` (the last one, as JSON parsers take duplicates).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(pairs) => pairs.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Object(pairs) => pairs
                .iter_mut()
                .rev()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key`, in place when present, else at the end.
    pub fn set(&mut self, key: &str, value: Json) {
        if let Some(slot) = self.get_mut(key) {
            *slot = value;
        } else if let Json::Object(pairs) = self {
            pairs.push((key.to_string(), value));
        }
    }

    /// Removes every `key`; true when there was one.
    pub fn remove(&mut self, key: &str) -> bool {
        match self {
            Json::Object(pairs) => {
                let before = pairs.len();
                pairs.retain(|(k, _)| k != key);
                pairs.len() != before
            }
            _ => false,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Json>> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Json>> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    pub fn is_empty_container(&self) -> bool {
        match self {
            Json::Object(p) => p.is_empty(),
            Json::Array(a) => a.is_empty(),
            _ => false,
        }
    }

    /// Pretty text indented with `indent`, ending in a newline.
    pub fn to_text(&self, indent: &str) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Writing to a Vec cannot fail, and every value here is serializable.
        if self.serialize(&mut ser).is_err() {
            return String::new();
        }
        let mut text = String::from_utf8_lossy(&out).into_owned();
        text.push('\n');
        text
    }
}

/// Parses `text`; errors carry line and column.
pub fn parse(text: &str) -> Result<Json, serde_json::Error> {
    serde_json::from_str(text)
}

/// The indentation the file uses (the first indented line's), else two spaces.
pub fn indent_of(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|l| {
            l.chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect::<String>()
        })
        .find(|i| !i.is_empty())
        .unwrap_or_else(|| "  ".to_string())
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(t) => s.serialize_str(t),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in items {
                    seq.serialize_element(i)?;
                }
                seq.end()
            }
            Json::Object(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(n)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut pairs = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Json>()? {
            pairs.push((k, v));
        }
        Ok(Json::Object(pairs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_keeping_key_order_and_indent() {
        let text = "{\n    \"zeta\": 1,\n    \"alpha\": [true, null, 2.5, \"x\"],\n    \"mid\": {\"b\": 1, \"a\": 2}\n}\n";
        let doc = parse(text).unwrap();
        let again = doc.to_text(&indent_of(text));
        assert_eq!(
            again,
            "{\n    \"zeta\": 1,\n    \"alpha\": [\n        true,\n        null,\n        2.5,\n        \"x\"\n    ],\n    \"mid\": {\n        \"b\": 1,\n        \"a\": 2\n    }\n}\n"
        );
        assert_eq!(parse(&again).unwrap(), doc);
    }

    #[test]
    fn set_replaces_in_place_and_appends_new_keys() {
        let mut doc = parse(r#"{"a": 1, "b": 2}"#).unwrap();
        doc.set("a", Json::str("x"));
        doc.set("c", Json::Null);
        assert_eq!(
            serde_json::to_string(&doc).unwrap(),
            r#"{"a":"x","b":2,"c":null}"#
        );
        assert!(doc.remove("b"));
        assert!(!doc.remove("b"));
    }

    #[test]
    fn big_integers_stay_exact() {
        let doc = parse(r#"{"n": 18446744073709551615, "m": -9223372036854775808}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&doc).unwrap(),
            r#"{"n":18446744073709551615,"m":-9223372036854775808}"#
        );
    }
}
