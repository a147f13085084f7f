//! A JSON object whose values stay as written: edit a few keys of an entry
//! and write it back without touching the numbers and key order of the rest.

use indexmap::IndexMap;
use serde_json::value::RawValue;

/// Keys in file order, values as their original JSON text. Setting a key
/// that exists keeps its place; a new key goes last (as in JavaScript).
#[derive(Debug, Clone, Default)]
pub struct RawObject(IndexMap<String, Box<RawValue>>);

impl RawObject {
    pub fn new() -> RawObject {
        RawObject::default()
    }

    /// Parses an object; duplicate keys keep their first place and last value.
    pub fn parse(text: &str) -> Result<RawObject, serde_json::Error> {
        serde_json::from_str(text).map(RawObject)
    }

    pub fn get(&self, key: &str) -> Option<&RawValue> {
        self.0.get(key).map(AsRef::as_ref)
    }

    /// The value of `key` when it is a JSON string.
    pub fn get_str(&self, key: &str) -> Option<String> {
        self.get(key)
            .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
    }

    pub fn contains(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// Sets `key` to a value given as JSON text (must be valid JSON).
    pub fn set_json(&mut self, key: &str, json: String) {
        if let Ok(raw) = RawValue::from_string(json) {
            self.0.insert(key.to_string(), raw);
        }
    }

    /// Sets `key` to an existing raw value.
    pub fn set_raw(&mut self, key: &str, raw: &RawValue) {
        self.0.insert(key.to_string(), raw.to_owned());
    }

    /// Sets `key` to any serialisable value.
    pub fn set<T: serde::Serialize + ?Sized>(&mut self, key: &str, value: &T) {
        if let Ok(json) = serde_json::to_string(value) {
            self.set_json(key, json);
        }
    }

    pub fn remove(&mut self, key: &str) {
        self.0.shift_remove(key);
    }

    /// Compact JSON text, values exactly as they were read.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.0).unwrap_or_else(|_| "{}".to_string())
    }
}

/// A JSON string literal, as `JSON.stringify` writes it.
pub fn json_string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    push_json_string(&mut out, s);
    String::from_utf8(out).unwrap_or_default()
}

/// Appends a JSON string literal. Plain text (ids, types) skips the general
/// encoder: it sits on the tree output's hot path.
pub fn push_json_string(out: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        // Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    }
}

/// JSON text for a millisecond time, `null` for JavaScript's NaN.
pub fn ms_json(ms: Option<i64>) -> String {
    ms.map_or_else(|| "null".to_string(), |m| m.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_numbers_and_order() {
        let mut o = RawObject::parse(r#"{"b":1.50,"a":{"z":1e3,"y":2},"c":3}"#).unwrap();
        o.set("a", "x");
        o.set("d", &true);
        o.remove("c");
        assert_eq!(o.to_json(), r#"{"b":1.50,"a":"x","d":true}"#);
    }

    #[test]
    fn duplicate_keys_like_javascript() {
        let o = RawObject::parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(o.to_json(), r#"{"a":3,"b":2}"#);
    }
}
