//! JSON as pi's JavaScript reads and writes it: `JSON.parse` accepts lone
//! surrogate escapes, numbers out of f64 range (±Infinity), duplicate keys
//! (the last value wins, in the first key's place) and any depth, and
//! `JSON.stringify` writes them back its own way. This is the reader's
//! fallback for the rare lines serde_json refuses, and the echo of values
//! whose text JavaScript would write differently. Everything here is
//! iterative: no line, however deep, can overflow the stack.

use std::fmt::Write as _;

/// One value of a parsed line, in a flat tape: containers are followed by
/// their members (an object's as key, value, key, value…).
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Null,
    Bool(bool),
    Num(f64),
    /// A string as UTF-16 code units (JavaScript's view of it).
    Str(Vec<u16>),
    /// `end` is the index just past the container's last member.
    Array {
        end: usize,
    },
    Object {
        end: usize,
    },
}

/// An id-like value read from a line, as [`crate::session::line::jskey`] keys it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Key {
    Null,
    Bool(bool),
    Num(f64),
    /// UTF-16 text (it may hold lone surrogates).
    Str(Vec<u16>),
    /// An object or array: its JSON text, after something that makes the
    /// key unique (no two parsed objects are the same key).
    Object(String),
}

/// A parsed JSON text.
#[derive(Debug, Clone)]
pub struct JsValue {
    tape: Vec<Node>,
}

/// Why a text is not JSON (as `JSON.parse` would refuse it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} at byte {at}")]
pub struct NotJson {
    pub what: &'static str,
    pub at: usize,
}

struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn err<T>(&self, what: &'static str) -> Result<T, NotJson> {
        Err(NotJson { what, at: self.i })
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// A member's key and its colon, up to the value: `"key" :`.
    fn member_key(&mut self) -> Result<Node, NotJson> {
        if self.b.get(self.i) != Some(&b'"') {
            return self.err("a key that is not a string");
        }
        let key = Node::Str(self.string()?);
        self.ws();
        if self.b.get(self.i) != Some(&b':') {
            return self.err("a missing colon");
        }
        self.i += 1;
        self.ws();
        Ok(key)
    }

    fn string(&mut self) -> Result<Vec<u16>, NotJson> {
        self.i += 1; // the opening quote
        let mut out = Vec::new();
        loop {
            let start = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.i += 1;
            }
            let plain = std::str::from_utf8(&self.b[start..self.i]);
            match plain {
                Ok(s) => out.extend(s.encode_utf16()),
                Err(_) => return self.err("bytes that are not UTF-8"),
            }
            match self.b.get(self.i) {
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    let unit = match self.b.get(self.i + 1) {
                        Some(b'"') => 0x22,
                        Some(b'\\') => 0x5c,
                        Some(b'/') => 0x2f,
                        Some(b'b') => 0x08,
                        Some(b'f') => 0x0c,
                        Some(b'n') => 0x0a,
                        Some(b'r') => 0x0d,
                        Some(b't') => 0x09,
                        Some(b'u') => {
                            let hex = self.b.get(self.i + 2..self.i + 6);
                            let hex = hex.and_then(|h| std::str::from_utf8(h).ok());
                            match hex.and_then(|h| u16::from_str_radix(h, 16).ok()) {
                                Some(u)
                                    if hex.is_some_and(|h| {
                                        h.bytes().all(|c| c.is_ascii_hexdigit())
                                    }) =>
                                {
                                    self.i += 4;
                                    u
                                }
                                _ => return self.err("a bad \\u escape"),
                            }
                        }
                        _ => return self.err("a bad escape"),
                    };
                    self.i += 2;
                    out.push(unit);
                }
                Some(_) => return self.err("a control character in a string"),
                None => return self.err("an unterminated string"),
            }
        }
    }

    fn number(&mut self) -> Result<f64, NotJson> {
        let start = self.i;
        let digits = |p: &mut Self| {
            let s = p.i;
            while let Some(b'0'..=b'9') = p.b.get(p.i) {
                p.i += 1;
            }
            p.i - s
        };
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return self.err("a bad number"),
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if digits(self) == 0 {
                return self.err("a bad number");
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            if digits(self) == 0 {
                return self.err("a bad number");
            }
        }
        // Rust reads an out-of-range number as ±Infinity (or ±0), as JavaScript does.
        let text = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("");
        text.parse::<f64>().or_else(|_| self.err("a bad number"))
    }

    fn literal(&mut self, word: &[u8], node: Node) -> Result<Node, NotJson> {
        if self.b.get(self.i..self.i + word.len()) == Some(word) {
            self.i += word.len();
            Ok(node)
        } else {
            self.err("an unexpected character")
        }
    }
}

impl JsValue {
    /// `JSON.parse(text)`, or why it throws.
    pub fn parse(text: &str) -> Result<JsValue, NotJson> {
        let mut p = Parser {
            b: text.as_bytes(),
            i: 0,
        };
        let mut tape = Vec::new();
        // Open containers: tape index, and whether it is an object.
        let mut open: Vec<(usize, bool)> = Vec::new();
        p.ws();
        loop {
            // A value.
            let node = match p.b.get(p.i) {
                Some(b'{') => {
                    p.i += 1;
                    p.ws();
                    tape.push(Node::Object { end: 0 });
                    if p.b.get(p.i) == Some(&b'}') {
                        p.i += 1;
                        let at = tape.len() - 1;
                        tape[at] = Node::Object { end: tape.len() };
                        None
                    } else {
                        open.push((tape.len() - 1, true));
                        tape.push(p.member_key()?);
                        continue;
                    }
                }
                Some(b'[') => {
                    p.i += 1;
                    p.ws();
                    tape.push(Node::Array { end: 0 });
                    if p.b.get(p.i) == Some(&b']') {
                        p.i += 1;
                        let at = tape.len() - 1;
                        tape[at] = Node::Array { end: tape.len() };
                        None
                    } else {
                        open.push((tape.len() - 1, false));
                        continue;
                    }
                }
                Some(b'"') => Some(Node::Str(p.string()?)),
                Some(b't') => Some(p.literal(b"true", Node::Bool(true))?),
                Some(b'f') => Some(p.literal(b"false", Node::Bool(false))?),
                Some(b'n') => Some(p.literal(b"null", Node::Null)?),
                Some(b'-' | b'0'..=b'9') => Some(Node::Num(p.number()?)),
                Some(_) => return p.err("an unexpected character"),
                None => return p.err("the end of the text"),
            };
            if let Some(node) = node {
                tape.push(node);
            }
            // After a value: close containers, or go on to the next member.
            loop {
                p.ws();
                let Some(&(at, object)) = open.last() else {
                    if p.i != p.b.len() {
                        return p.err("text after the value");
                    }
                    return Ok(JsValue { tape });
                };
                match (p.b.get(p.i), object) {
                    (Some(b','), _) => {
                        p.i += 1;
                        p.ws();
                        if object {
                            tape.push(p.member_key()?);
                        }
                        break;
                    }
                    (Some(b'}'), true) => {
                        p.i += 1;
                        tape[at] = Node::Object { end: tape.len() };
                        open.pop();
                    }
                    (Some(b']'), false) => {
                        p.i += 1;
                        tape[at] = Node::Array { end: tape.len() };
                        open.pop();
                    }
                    _ => return p.err("an unexpected character"),
                }
            }
        }
    }

    /// Whether the value is an object.
    pub fn is_object(&self) -> bool {
        matches!(self.tape.first(), Some(Node::Object { .. }))
    }

    /// JavaScript truthiness of the whole value.
    pub fn is_truthy(&self) -> bool {
        match self.tape.first() {
            Some(Node::Null) | None => false,
            Some(Node::Bool(b)) => *b,
            Some(Node::Num(n)) => *n != 0.0 && !n.is_nan(),
            Some(Node::Str(s)) => !s.is_empty(),
            Some(_) => true,
        }
    }

    /// The members of the object at `at` as (key index, value index), each
    /// key once: in the place it first had, with the last value given.
    fn members(&self, at: usize) -> Vec<(usize, usize)> {
        let Some(Node::Object { end }) = self.tape.get(at) else {
            return Vec::new();
        };
        let mut out: Vec<(usize, usize)> = Vec::new();
        let mut places: rustc_hash::FxHashMap<&[u16], usize> = Default::default();
        let mut i = at + 1;
        while i < *end {
            let v = i + 1;
            if let Node::Str(k) = &self.tape[i] {
                match places.get(k.as_slice()) {
                    Some(&p) => out[p].1 = v,
                    None => {
                        places.insert(k, out.len());
                        out.push((i, v));
                    }
                }
            }
            i = self.skip(v);
        }
        out
    }

    /// The indices of the items of the array at `at`, which ends at `end`.
    fn items(&self, at: usize, end: usize) -> Vec<usize> {
        let mut items = Vec::new();
        let mut k = at + 1;
        while k < end {
            items.push(k);
            k = self.skip(k);
        }
        items
    }

    /// The index just past the value at `at`.
    fn skip(&self, at: usize) -> usize {
        match self.tape.get(at) {
            Some(Node::Array { end } | Node::Object { end }) => *end,
            _ => at + 1,
        }
    }

    /// The index of a top-level member's value.
    fn member(&self, key: &str) -> Option<usize> {
        self.member_in(0, key)
    }

    /// The index of the value of member `key` of the object at `at`.
    fn member_in(&self, at: usize, key: &str) -> Option<usize> {
        let key: Vec<u16> = key.encode_utf16().collect();
        self.members(at)
            .into_iter()
            .find(|&(k, _)| matches!(&self.tape[k], Node::Str(s) if *s == key))
            .map(|(_, v)| v)
    }

    /// A top-level member, as a JavaScript value key (see [`crate::session::line::jskey`]);
    /// `None` when absent.
    pub(crate) fn member_key(&self, key: &str, unique: &str) -> Option<Key> {
        self.path_key(&[key], unique)
    }

    /// A member of members (`["message", "model"]`), as a JavaScript value
    /// key; `None` when absent or when a step is not an object.
    pub(crate) fn path_key(&self, path: &[&str], unique: &str) -> Option<Key> {
        let mut v = 0;
        for key in path {
            v = self.member_in(v, key)?;
        }
        Some(match &self.tape[v] {
            Node::Null => Key::Null,
            Node::Bool(b) => Key::Bool(*b),
            Node::Num(n) => Key::Num(*n),
            Node::Str(s) => Key::Str(s.clone()),
            Node::Array { .. } | Node::Object { .. } => {
                Key::Object(format!("{unique}{}", self.stringify_at(v)))
            }
        })
    }

    /// The value's UTF-16 code units when it is a string.
    pub fn string_units(&self) -> Option<&[u16]> {
        match self.tape.first() {
            Some(Node::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// The value's text when it is a string, with lone surrogates as U+FFFD.
    pub fn lossy_string(&self) -> Option<String> {
        match self.tape.first() {
            Some(Node::Str(s)) => Some(String::from_utf16_lossy(s)),
            _ => None,
        }
    }

    /// Whether any number in the value is beyond f64 (±Infinity).
    pub fn has_non_finite(&self) -> bool {
        self.tape
            .iter()
            .any(|n| matches!(n, Node::Num(x) if !x.is_finite()))
    }

    /// The version pi migrates a header with this value from: `version ?? 1`
    /// compared with 2 and 3 as JavaScript compares (a string is read as a
    /// number, an array as its joined text; what is not a number is NaN,
    /// which no comparison holds, so no migration).
    pub fn header_version(&self) -> u32 {
        let v = match self.member("version") {
            None => 1.0,
            Some(at) => match &self.tape[at] {
                Node::Null => 1.0,
                Node::Array { .. } => string_to_number(&self.to_js_string(at)),
                node => self.number_of(node),
            },
        };
        version_from(v)
    }

    /// `Number(value)` for a scalar node.
    fn number_of(&self, node: &Node) -> f64 {
        match node {
            Node::Null => 0.0,
            Node::Bool(b) => f64::from(u8::from(*b)),
            Node::Num(n) => *n,
            Node::Str(s) => string_to_number(&String::from_utf16_lossy(s)),
            _ => f64::NAN,
        }
    }

    /// `String(value)`: arrays joined with commas (null inside as empty,
    /// nested arrays joined too), objects as `[object Object]`. Iterative,
    /// so an array nested thousands deep costs no stack.
    fn to_js_string(&self, at: usize) -> String {
        String::from_utf16_lossy(&self.to_js_units(at))
    }

    /// `String(value)` as UTF-16, lone surrogates kept.
    fn to_js_units(&self, at: usize) -> Vec<u16> {
        enum Job {
            Value(usize),
            Comma,
        }
        let mut out: Vec<u16> = Vec::new();
        let push = |out: &mut Vec<u16>, s: &str| out.extend(s.encode_utf16());
        let mut jobs = vec![Job::Value(at)];
        while let Some(job) = jobs.pop() {
            let i = match job {
                Job::Comma => {
                    out.push(u16::from(b','));
                    continue;
                }
                Job::Value(i) => i,
            };
            match &self.tape[i] {
                // `String(null)` is "null"; inside an array it joins as "".
                Node::Null if i == at => push(&mut out, "null"),
                Node::Null => {}
                Node::Bool(b) => push(&mut out, if *b { "true" } else { "false" }),
                Node::Num(n) => push(&mut out, &js_number(*n)),
                Node::Str(s) => out.extend_from_slice(s),
                Node::Object { .. } => push(&mut out, "[object Object]"),
                Node::Array { end } => {
                    for (n, item) in self.items(i, *end).into_iter().enumerate().rev() {
                        jobs.push(Job::Value(item));
                        if n > 0 {
                            jobs.push(Job::Comma);
                        }
                    }
                }
            }
        }
        out
    }

    /// `String(value)` of a top-level member that is an array; `None` when
    /// absent or not an array.
    pub fn member_array_text(&self, key: &str) -> Option<String> {
        let at = self.member(key)?;
        matches!(self.tape[at], Node::Array { .. }).then(|| self.to_js_string(at))
    }

    /// The text pi's session list takes from `message.content`, as UTF-16
    /// (lone surrogates kept): the string itself, or the `text` of each
    /// block whose `type` is "text", joined by spaces as `Array.join` joins
    /// (`null` and absent as nothing, anything else as `String(value)`).
    /// `None` when the content is neither a string nor an array.
    pub(crate) fn message_text_units(&self) -> Option<Vec<u16>> {
        let message = self.member("message")?;
        let content = self.member_in(message, "content")?;
        let end = match &self.tape[content] {
            Node::Str(s) => return Some(s.clone()),
            Node::Array { end } => *end,
            _ => return None,
        };
        let text: Vec<u16> = "text".encode_utf16().collect();
        let mut out = Vec::new();
        let mut first = true;
        for i in self.items(content, end) {
            let is_text = self
                .member_in(i, "type")
                .is_some_and(|t| matches!(&self.tape[t], Node::Str(s) if *s == text));
            if is_text {
                if !first {
                    out.push(u16::from(b' '));
                }
                first = false;
                match self.member_in(i, "text").map(|t| (t, &self.tape[t])) {
                    None | Some((_, Node::Null)) => {}
                    Some((_, Node::Str(s))) => out.extend_from_slice(s),
                    Some((t, _)) => out.extend(self.to_js_units(t)),
                }
            }
        }
        Some(out)
    }

    /// JSON text serde_json reads with the same meaning for every field the
    /// reader decodes: duplicate keys resolved, lone surrogates as U+FFFD and
    /// numbers beyond f64 as ±f64::MAX (which compare, add and fail as dates
    /// as ±Infinity does; the fields where the difference shows are taken
    /// from the value itself).
    pub fn to_serde_text(&self) -> String {
        self.write(0, Style::Serde)
    }

    /// Reads `T` with serde from [`Self::to_serde_text`], however deep the
    /// value nests: `JSON.parse` has no depth limit, serde_json stops at 128
    /// levels unless told otherwise, and then the stack grows on the heap as
    /// a deep value needs it, so no line can overflow it.
    pub fn read_serde<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        let text = self.to_serde_text();
        let mut de = serde_json::Deserializer::from_str(&text);
        de.disable_recursion_limit();
        T::deserialize(serde_stacker::Deserializer::new(&mut de))
    }

    /// `JSON.stringify` of the value.
    pub fn stringify(&self) -> String {
        self.write(0, Style::Js)
    }

    fn stringify_at(&self, at: usize) -> String {
        self.write(at, Style::Js)
    }

    fn write(&self, at: usize, style: Style) -> String {
        let mut out = String::new();
        // Pending work: a value to write, or text to close with.
        enum Job {
            Value(usize),
            Text(&'static str),
        }
        let mut jobs = vec![Job::Value(at)];
        while let Some(job) = jobs.pop() {
            let i = match job {
                Job::Text(t) => {
                    out.push_str(t);
                    continue;
                }
                Job::Value(i) => i,
            };
            match &self.tape[i] {
                Node::Null => out.push_str("null"),
                Node::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Node::Num(n) => push_number(&mut out, *n, style),
                Node::Str(s) => push_string(&mut out, s, style),
                Node::Array { end } => {
                    out.push('[');
                    jobs.push(Job::Text("]"));
                    for (n, item) in self.items(i, *end).into_iter().enumerate().rev() {
                        jobs.push(Job::Value(item));
                        if n > 0 {
                            jobs.push(Job::Text(","));
                        }
                    }
                }
                Node::Object { .. } => {
                    out.push('{');
                    jobs.push(Job::Text("}"));
                    let members = self.members(i);
                    for (n, (k, v)) in members.into_iter().enumerate().rev() {
                        jobs.push(Job::Value(v));
                        jobs.push(Job::Text(":"));
                        jobs.push(Job::Value(k));
                        if n > 0 {
                            jobs.push(Job::Text(","));
                        }
                    }
                }
            }
        }
        out
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Style {
    /// What serde_json reads.
    Serde,
    /// What `JSON.stringify` writes.
    Js,
}

fn push_number(out: &mut String, n: f64, style: Style) {
    match style {
        Style::Js if !n.is_finite() => out.push_str("null"),
        Style::Serde if n.is_infinite() => out.push_str(if n > 0.0 {
            "1.7976931348623157e308"
        } else {
            "-1.7976931348623157e308"
        }),
        _ => out.push_str(&js_number(n)),
    }
}

/// The version a header's `version` number stands for (see
/// [`JsValue::header_version`]).
pub fn version_from(v: f64) -> u32 {
    if v >= 3.0 || v.is_nan() {
        3
    } else if v >= 2.0 {
        2
    } else {
        1
    }
}

/// `Number(text)` in JavaScript: white space trimmed, empty is 0, decimal,
/// `Infinity`, or `0x` / `0o` / `0b` integers; anything else NaN.
pub fn string_to_number(text: &str) -> f64 {
    let t = crate::jstext::trim(text);
    if t.is_empty() {
        return 0.0;
    }
    let radix = |digits: &str, r: u32| {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(r)) {
            return f64::NAN;
        }
        digits.chars().fold(0.0, |acc, c| {
            acc * f64::from(r) + f64::from(c.to_digit(r).unwrap_or(0))
        })
    };
    let lower = t.get(..2).map(str::to_ascii_lowercase);
    match lower.as_deref() {
        Some("0x") => return radix(&t[2..], 16),
        Some("0o") => return radix(&t[2..], 8),
        Some("0b") => return radix(&t[2..], 2),
        _ => {}
    }
    let (sign, body) = match t.as_bytes()[0] {
        b'-' => (-1.0, &t[1..]),
        b'+' => (1.0, &t[1..]),
        _ => (1.0, t),
    };
    if body == "Infinity" {
        return sign * f64::INFINITY;
    }
    // A decimal literal: digits with an optional point (".5" and "5." too)
    // and an optional exponent; Rust's parser takes exactly these once
    // its own words (inf, nan) are kept out.
    let ok = !body.is_empty()
        && body
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
        && body
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == b'.');
    match body.parse::<f64>() {
        Ok(v) if ok => sign * v,
        _ => f64::NAN,
    }
}

/// `String(n)` in JavaScript (`Number.prototype.toString`).
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n == 0.0 {
        return "0".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    // The shortest digits that read back as n, and where the point goes.
    let sci = format!("{:e}", n.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let k = digits.len() as i32;
    let point = exp + 1; // digits before the decimal point
    let mut out = String::new();
    if n < 0.0 {
        out.push('-');
    }
    if k <= point && point <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (point - k) as usize));
    } else if 0 < point && point <= 21 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = point - 1;
        let _ = write!(out, "e{}{}", if e < 0 { '-' } else { '+' }, e.abs());
    }
    out
}

/// A JSON string literal of UTF-16 text, as `JSON.stringify` writes it (a
/// lone surrogate as `\udXXX`), or as serde reads it (a lone one as U+FFFD).
fn push_string(out: &mut String, s: &[u16], style: Style) {
    out.push('"');
    for c in char::decode_utf16(s.iter().copied()) {
        match c {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\t') => out.push_str("\\t"),
            Ok(c) if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            Ok(c) => out.push(c),
            Err(e) if style == Style::Js => {
                let _ = write!(out, "\\u{:04x}", e.unpaired_surrogate());
            }
            Err(_) => out.push('\u{FFFD}'),
        }
    }
    out.push('"');
}

/// A JSON string literal of UTF-16 text, as `JSON.stringify` writes it.
pub(crate) fn js_string_literal(s: &[u16]) -> String {
    let mut out = String::new();
    push_string(&mut out, s, Style::Js);
    out
}

/// `JSON.stringify(JSON.parse(text))`, or the text itself when it is not
/// JSON.
pub fn normalize(text: &str) -> String {
    JsValue::parse(text).map_or_else(|_| text.to_string(), |v| v.stringify())
}

/// Whether JavaScript would read `text` differently from serde_json or write
/// it back differently from how it stands: a number with an exponent or a
/// very long one (perhaps beyond f64), a `\u` escape of a surrogate
/// (perhaps a lone one). Numbers are looked for outside strings only (an id
/// like `"06e4"` is no number), strings are skipped to their next quote or
/// backslash at once. Cheap, and true more often than needed (always for
/// a string that does not end); the caller then asks [`JsValue`].
pub fn may_differ(text: &[u8]) -> bool {
    let mut run = DigitRun::default();
    let mut i = 0;
    while let Some(&c) = text.get(i) {
        i += 1;
        if run.differs_at(c) {
            return true;
        }
        if c != b'"' {
            continue;
        }
        // A string: on to its closing quote, through its escapes.
        loop {
            let Some(k) = memchr::memchr2(b'"', b'\\', text.get(i..).unwrap_or_default()) else {
                return true;
            };
            i += k + 1;
            if text[i - 1] == b'"' {
                break;
            }
            if surrogate_escape(text, i - 1) {
                return true;
            }
            match text.get(i) {
                Some(_) => i += 1,
                None => return true,
            }
        }
    }
    false
}

/// The digits in a row outside strings, watched as [`may_differ`] watches
/// them, for a reader that walks a line byte by byte.
#[derive(Default)]
pub(crate) struct DigitRun(usize);

impl DigitRun {
    /// Takes the next byte outside strings: true when the number it ends
    /// or continues may read otherwise (an exponent, over 300 digits).
    #[inline]
    pub(crate) fn differs_at(&mut self, c: u8) -> bool {
        if c.is_ascii_digit() {
            self.0 += 1;
            return self.0 > 300;
        }
        let exponent = self.0 > 0 && (c == b'e' || c == b'E');
        self.0 = 0;
        exponent
    }

    /// A string or bracket came: no number goes on across it.
    pub(crate) fn reset(&mut self) {
        self.0 = 0;
    }
}

/// Whether the escape whose backslash is at `text[at]` is a `\u` escape of
/// a surrogate (perhaps a lone one, which only `JSON.parse` keeps).
#[inline]
pub(crate) fn surrogate_escape(text: &[u8], at: usize) -> bool {
    text.get(at + 1) == Some(&b'u') && matches!(text.get(at + 2), Some(b'd' | b'D'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// True for every number and escape JavaScript may read otherwise,
    /// wherever it stands; digits and letters inside strings are no number.
    #[test]
    fn may_differ_finds_numbers_outside_strings() {
        for yes in [
            r#"{"n":1e5}"#,
            r#"{"n":-2.5E-3}"#,
            r#"[1,2,3e0]"#,
            r#"{"a":"\ud83d"}"#,
            r#"{"a":"x\\","b":"\uDC00"}"#,
            r#"{"\ud800":1}"#,
            r#"{"a":"never ends"#,
            r#"{"a":"ends in \"#,
        ] {
            assert!(may_differ(yes.as_bytes()), "{yes}");
        }
        let long = format!("[{}]", "9".repeat(301));
        assert!(may_differ(long.as_bytes()));
        for no in [
            r#"{"id":"8706c4eb","parentId":"06e4","n":12,"x":-0.5}"#,
            r#"{"a":"1e5 \" 2E3","b":"\\ud83d","c":"\u00e9"}"#,
            r#"{"t":"\\","u":"\""}"#,
            r#"[]"#,
        ] {
            assert!(!may_differ(no.as_bytes()), "{no}");
        }
        let digits = format!("{{\"a\":\"{}\"}}", "9".repeat(400));
        assert!(!may_differ(digits.as_bytes()));
    }

    #[test]
    fn reads_what_json_parse_reads() {
        let v = JsValue::parse(r#"{"a":"\ud83d","n":1e400,"m":-1e400,"a":2,"z":-0}"#).unwrap();
        assert_eq!(v.stringify(), r#"{"a":2,"n":null,"m":null,"z":0}"#);
        let v = JsValue::parse(r#"["x\ud83dy","\ud83d\ude00"]"#).unwrap();
        assert_eq!(v.stringify(), "[\"x\\ud83dy\",\"\u{1f600}\"]");
        assert_eq!(v.to_serde_text(), "[\"x\u{FFFD}y\",\"\u{1f600}\"]");
        for bad in [
            "{",
            "[1,]",
            "{\"a\" 1}",
            "01",
            "1.",
            "\"\\x\"",
            "\"a\u{1}\"",
            "[1] 2",
            "",
        ] {
            assert!(JsValue::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn any_depth_without_recursion() {
        let n = 200_000;
        let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
        let v = JsValue::parse(&text).unwrap();
        assert_eq!(v.stringify(), text);
        let text = format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        assert_eq!(JsValue::parse(&text).unwrap().stringify(), text);
    }

    #[test]
    fn versions_compare_as_in_javascript() {
        for (text, version) in [
            (r#"{"version":3}"#, 3),
            (r#"{"version":"2"}"#, 2),
            (r#"{"version":" 2 "}"#, 2),
            (r#"{"version":"abc"}"#, 3),
            (r#"{"version":true}"#, 1),
            (r#"{"version":false}"#, 1),
            (r#"{"version":[]}"#, 1),
            (r#"{"version":[2]}"#, 2),
            (r#"{"version":[3]}"#, 3),
            (r#"{"version":[1,2]}"#, 3),
            (r#"{"version":{}}"#, 3),
            (r#"{"version":null}"#, 1),
            (r#"{}"#, 1),
            (r#"{"version":""}"#, 1),
            (r#"{"version":"0x3"}"#, 3),
            (r#"{"version":"0x2"}"#, 2),
            (r#"{"version":2.5}"#, 2),
            (r#"{"version":-1e400}"#, 1),
            (r#"{"version":"Infinity"}"#, 3),
            (r#"{"version":"1e0"}"#, 1),
            (r#"{"version":".2e1"}"#, 2),
            (r#"{"version":"inf"}"#, 3),
        ] {
            assert_eq!(
                JsValue::parse(text).unwrap().header_version(),
                version,
                "{text}"
            );
        }
    }

    #[test]
    fn numbers_print_as_in_javascript() {
        for (n, js) in [
            (1.0, "1"),
            (1.5, "1.5"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (-2.25, "-2.25"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (123456789012345680000.0, "123456789012345680000"),
            (0.1, "0.1"),
        ] {
            assert_eq!(js_number(n), js, "{n}");
        }
    }
}
