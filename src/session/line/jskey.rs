//! Entry ids as pi's `Map` sees them: any JSON value is a key, `1` and
//! `"1"` are different keys, and every object is a key of its own. A key is
//! kept as a string: a plain string id is itself (the common case, free);
//! anything else is a tagged string starting with NUL, which no plain id
//! read by the fast path can (a NUL in a JSON string is always escaped).

use crate::session::line::jsvalue::{JsValue, js_number, js_string_literal};
use crate::session::line::raw_json::push_json_string;
use compact_str::{CompactString, format_compact};

/// Starts every key that is not a plain string.
const TAG: char = '\0';

/// The key of entries that have no id (`undefined`); only the tree uses it.
pub(crate) const UNDEFINED: &str = "\0u";

pub(crate) use crate::session::line::jsvalue::Key;

impl Key {
    pub(crate) fn encode(&self) -> CompactString {
        match self {
            Key::Null => CompactString::const_new("\0z"),
            Key::Bool(true) => CompactString::const_new("\0t"),
            Key::Bool(false) => CompactString::const_new("\0f"),
            Key::Num(n) => format_compact!("{TAG}n{}", js_number(*n)),
            Key::Str(units) => match String::from_utf16(units) {
                Ok(s) => of_str(&s),
                Err(_) => format_compact!("{TAG}w{}", js_string_literal(units)),
            },
            Key::Object(json) => format_compact!("{TAG}o{json}"),
        }
    }
}

/// The key of a string id.
pub(crate) fn of_str(s: &str) -> CompactString {
    if s.starts_with(TAG) {
        format_compact!("{TAG}s{s}")
    } else {
        CompactString::from(s)
    }
}

/// The key of a number id.
pub(crate) fn of_num(n: f64) -> CompactString {
    Key::Num(n).encode()
}

/// The key of a boolean or null id.
pub(crate) fn of_bool(b: bool) -> CompactString {
    Key::Bool(b).encode()
}

pub(crate) fn null() -> CompactString {
    Key::Null.encode()
}

/// An object or array id, unique to `unique` (say, the line and field);
/// its JSON text is read again from the line when it is echoed.
pub(crate) fn of_object(unique: &str, json: &str) -> CompactString {
    Key::Object(format!("{unique}:{json}")).encode()
}

/// Whether a key is a plain string (what most ids are).
pub fn is_plain(key: &str) -> bool {
    !key.starts_with(TAG)
}

/// JavaScript truthiness of the value a key stands for: pi follows a
/// `parentId` only when it is truthy.
pub fn is_truthy(key: &str) -> bool {
    !matches!(key, "" | "\0f" | "\0z" | "\0n0" | "\0nNaN")
}

/// Appends the value a key stands for as `JSON.stringify` writes it.
pub fn push_json(out: &mut Vec<u8>, key: &str) {
    match key.strip_prefix(TAG) {
        None => push_json_string(out, key),
        Some(rest) => out.extend_from_slice(json(rest).as_bytes()),
    }
}

/// The value a key stands for, as JSON text.
pub fn to_json(key: &str) -> String {
    let mut out = Vec::new();
    push_json(&mut out, key);
    String::from_utf8(out).unwrap_or_default()
}

fn json(tagged: &str) -> String {
    let (tag, rest) = tagged.split_at(tagged.len().min(1));
    match tag {
        "z" => "null".into(),
        "t" => "true".into(),
        "f" => "false".into(),
        "n" if rest.ends_with("Infinity") => "null".into(),
        "n" | "w" => rest.into(),
        "s" => crate::session::line::raw_json::json_string(rest),
        "o" => rest.split_once(':').map_or("null", |(_, j)| j).into(),
        _ => "null".into(),
    }
}

/// The key as a person reads it: a string as itself, anything else as the
/// JSON that stands for it.
pub fn display(key: &str) -> std::borrow::Cow<'_, str> {
    match key.strip_prefix(TAG) {
        None => key.into(),
        Some(rest) if rest.starts_with('s') => rest[1..].into(),
        // A lone surrogate shows as U+FFFD.
        Some(rest) if rest.starts_with('w') => lone_text(&rest[1..]).into(),
        Some(rest) => json(rest).into(),
    }
}

/// The text of a string literal that holds lone surrogates, each as U+FFFD.
fn lone_text(literal: &str) -> String {
    JsValue::parse(literal)
        .ok()
        .and_then(|v| v.lossy_string())
        .unwrap_or_default()
}

/// The UTF-16 text of a string key (lone surrogates kept); `None` for a
/// key that is not a string.
pub fn string_units(key: &str) -> Option<Vec<u16>> {
    match key.strip_prefix(TAG) {
        None => Some(key.encode_utf16().collect()),
        Some(rest) if rest.starts_with('s') => Some(rest[1..].encode_utf16().collect()),
        Some(rest) if rest.starts_with('w') => JsValue::parse(&rest[1..])
            .ok()
            .and_then(|v| v.string_units().map(<[u16]>::to_vec)),
        Some(_) => None,
    }
}

/// `String(value)` as a JSON string literal: the property name JavaScript
/// gives a key, as `JSON.stringify` writes it (lone surrogates escaped).
pub fn property_json(key: &str) -> String {
    match key.strip_prefix(TAG) {
        Some(rest) if rest.starts_with('w') => rest[1..].to_string(),
        _ => crate::session::line::raw_json::json_string(&property_name(key)),
    }
}

/// `String(value)`, as JavaScript names an object property after a key
/// (pi's labels object in `info`).
pub fn property_name(key: &str) -> String {
    match key.strip_prefix(TAG) {
        None => key.to_string(),
        Some(rest) => {
            let (tag, body) = rest.split_at(rest.len().min(1));
            match tag {
                "z" => "null".into(),
                "t" => "true".into(),
                "f" => "false".into(),
                "n" | "s" => body.to_string(),
                "w" => lone_text(body),
                _ => "[object Object]".into(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_javascript_map_keys() {
        assert_ne!(of_str("1"), of_num(1.0));
        assert_eq!(of_num(-0.0), of_num(0.0));
        assert_eq!(of_num(f64::INFINITY), Key::Num(1e300 * 1e300).encode());
        assert_eq!(of_str("abc"), "abc");
        assert_ne!(of_str("\0n1"), of_num(1.0));
        assert_ne!(of_object("5i", "{}"), of_object("5p", "{}"));
        let lone = Key::Str(vec![0x61, 0xd83d]).encode();
        assert_eq!(to_json(&lone), "\"a\\ud83d\"");
        assert_eq!(to_json(&of_num(1e21)), "1e+21");
        assert_eq!(to_json(&of_num(f64::INFINITY)), "null");
        assert_eq!(to_json(&of_object("5i", "[1,{\"a\":2}]")), "[1,{\"a\":2}]");
        assert_eq!(to_json(&of_str("\0x")), "\"\\u0000x\"");
        for falsy in [
            of_str(""),
            of_bool(false),
            null(),
            of_num(0.0),
            of_num(-0.0),
        ] {
            assert!(!is_truthy(&falsy), "{falsy:?}");
        }
        for truthy in [
            of_str("0"),
            of_bool(true),
            of_num(1.0),
            of_object("1i", "{}"),
        ] {
            assert!(is_truthy(&truthy), "{truthy:?}");
        }
    }
}
