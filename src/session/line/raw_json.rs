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

/// Appends a JSON string literal, escaped as `serde_json` escapes it (and
/// `JSON.stringify`, but for lone surrogates, which a `str` cannot hold):
/// runs of plain bytes are copied whole, eight bytes checked at a time. It
/// sits on the hot paths of the tree's, the list's and deep search's output.
pub fn push_json_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Whether any byte of `w` is below `n` (at most 0x80): exact for the
    // word as a whole, which is all that is asked.
    let below = |w: u64, n: u8| w.wrapping_sub(ONES * u64::from(n)) & !w & HIGH != 0;
    let holds = |w: u64, b: u8| below(w ^ (ONES * u64::from(b)), 1);
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let (mut from, mut i) = (0, 0);
    while i < bytes.len() {
        // Eight bytes at a time past those that need no escape.
        if let Some(w) = bytes.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(w);
            let w = u64::from_le_bytes(word);
            if !below(w, 0x20) && !holds(w, b'"') && !holds(w, b'\\') {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        i += 1;
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.extend_from_slice(&bytes[from..i - 1]);
        from = i;
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 15)],
            ]),
        }
    }
    out.extend_from_slice(&bytes[from..]);
    out.push(b'"');
}

/// JSON text for a millisecond time, `null` for JavaScript's NaN.
pub fn ms_json(ms: Option<i64>) -> String {
    ms.map_or_else(|| "null".to_string(), |m| m.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut texts: Vec<String> = (0u32..0x80)
            .chain([0xe9, 0x7ff, 0x2028, 0x2029, 0xfeff, 0x1f600])
            .filter_map(char::from_u32)
            .flat_map(|c| [c.to_string(), format!("ab{c}"), format!("{c}cd{c}{c}e")])
            .collect();
        // Each byte that needs an escape at every place in a word of eight.
        for c in ['"', '\\', '\n', '\u{1f}', '\u{0}'] {
            for at in 0..20 {
                let mut t: Vec<char> = "abcdefghijklmnopqrstuvwxyzé".chars().collect();
                t.insert(at, c);
                texts.push(t.into_iter().collect());
            }
        }
        texts.push(String::new());
        texts.push("a \"quoted\" \\path\\ and\ttab\r\n".into());
        for t in &texts {
            let mut got = Vec::new();
            push_json_string(&mut got, t);
            let want = serde_json::to_string(t).expect("json");
            assert_eq!(String::from_utf8(got).expect("utf-8"), want, "{t:?}");
        }
    }

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
