//! What [`call_windows`] reads of a session line, and the calls
//! it puts together from them. Of a line: its `type`, its `timestamp`,
//! and its message's `role`, `toolCallId` and content blocks' `type` and
//! `id`. Everything else is stepped over as it is read (still
//! checked to be JSON), where a whole [`serde_json::Value`] of the line
//! kept every text of it: a parent's lines are read by the thousand.
//!
//! Each field is the last of its name in its object, as `JSON.parse`
//! keeps it; a field of an unexpected type reads as the tree of values
//! would answer for it (a `role` that is no string is no role, content
//! that is no array holds no call). [`CallLine::of_value`] gives the same
//! from a parsed line, and the tests hold the two to each other.
//!
//! [`CallWindows`] puts the calls of a file's lines together, from each
//! line read here, or from the facts the catalog's fast path read of it.
//!
//! [`CallLine::read`] takes the line in one pass of the session reader's
//! cursor first, which answers only for a line it is sure of (no key
//! twice in an object, no escape in a key or in a string it keeps, nothing
//! nested deeper than the cursor goes), and leaves any other to serde.

use crate::jstext::date::{parse_ms, value_ms};
use crate::session::line::cursor::Cursor;
use crate::session::line::entry::scalar_ms;
use crate::session::line::fast::first;
use crate::session::line::{LineFacts, Message as Read};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The tool calls (see [`call_windows`]) of sessions the catalog read
/// whole after a header read before them had named them as its parent:
/// most parents, so the subagents' search reads them no second time. (The
/// files are read newest first, and a fork is newer than the session it
/// was made of; a parent read before its child's header reads again.)
#[derive(Debug, Default)]
pub struct ReadCalls(HashMap<PathBuf, Vec<(i64, i64)>>);

impl ReadCalls {
    pub(crate) fn insert(&mut self, path: PathBuf, windows: Vec<(i64, i64)>) {
        self.0.insert(path, windows);
    }

    /// The calls of the session at `path`, when they were read.
    pub fn get(&self, path: &Path) -> Option<&[(i64, i64)]> {
        self.0.get(path).map(Vec::as_slice)
    }
}

/// When each tool call of the session at `path` ran, in ms since the
/// epoch: from the assistant message that made it to its result; a call
/// left unanswered runs until the next user message, or on (`i64::MAX`)
/// when none followed. Lines that are not JSON, or carry no time, are
/// passed over (the catalog names damaged lines elsewhere); so is an
/// unfinished last line.
pub fn call_windows(path: &Path) -> std::io::Result<Vec<(i64, i64)>> {
    let file = crate::session::read::file::open_regular(path)?;
    let len = file.metadata()?.len();
    let mut calls = CallWindows::new();
    crate::session::read::blocks::read_lines(&file, 0, len, 0, &mut |_, raw| {
        calls.line(raw);
        true
    })?;
    Ok(calls.finish())
}

/// [`call_windows`] gathered line by line, as a file is read: from its
/// lines as they are ([`CallWindows::line`]), or from what the line
/// reader's fast path read of them ([`CallWindows::facts`]), which the
/// tests hold to the same answer.
pub(crate) struct CallWindows {
    /// The calls made and not answered yet, by id, with when they were
    /// made. (By id, so that a file of a million calls answered one by one
    /// is not read in time that grows with its square.)
    running: rustc_hash::FxHashMap<String, i64>,
    windows: Vec<(i64, i64)>,
    calls: memchr::memmem::Finder<'static>,
    user: memchr::memmem::Finder<'static>,
}

impl CallWindows {
    pub(crate) fn new() -> CallWindows {
        CallWindows {
            running: rustc_hash::FxHashMap::default(),
            windows: Vec::new(),
            calls: memchr::memmem::Finder::new(b"toolCall"),
            user: memchr::memmem::Finder::new(b"\"user\""),
        }
    }

    /// A complete line (with its newline or without).
    pub(crate) fn line(&mut self, raw: &[u8]) {
        // A line with neither a call, an answer nor a user message has
        // nothing to say: most are not read.
        if self.calls.find(raw).is_none() && self.user.find(raw).is_none() {
            return;
        }
        // Only what the calls need is kept of the line (see the module's
        // notes).
        let Some(line) = CallLine::read(raw) else {
            return;
        };
        if let (true, Some(at)) = (line.is_message, line.at) {
            let ids = line.call_ids.iter().map(String::as_str);
            self.message(at, line.role.as_deref(), line.tool_call_id.as_deref(), ids);
        }
    }

    /// An entry line as the fast path read it into `f`, with its tool
    /// call ids `calls` ([`read_fast_into_with`]).
    ///
    /// [`read_fast_into_with`]: crate::session::line::read_fast_into_with
    pub(crate) fn facts(&mut self, f: &LineFacts<'_>, calls: &[&str]) {
        let Read::Object(m) = &f.message else {
            return;
        };
        if f.kind != "message" {
            return;
        }
        // The fast path reads a time only where it is a plain string or a
        // scalar: as a parsed line's.
        if let Some(at) = scalar_ms(&f.timestamp.to_scalar()) {
            self.message(at, m.role, m.tool_call_id, calls.iter().copied());
        }
    }

    /// A message at `at`, of `role`, answering `answered`, making `calls`.
    /// A call made with the id of one still running ends that one's
    /// window there.
    fn message<'s>(
        &mut self,
        at: i64,
        role: Option<&str>,
        answered: Option<&str>,
        calls: impl Iterator<Item = &'s str>,
    ) {
        match role {
            Some("assistant") => {
                for id in calls {
                    if let Some(from) = self.running.insert(id.to_string(), at) {
                        self.windows.push((from, at));
                    }
                }
            }
            Some("toolResult") => {
                if let Some(from) = answered.and_then(|id| self.running.remove(id)) {
                    self.windows.push((from, at));
                }
            }
            Some("user") => self
                .windows
                .extend(self.running.drain().map(|(_, from)| (from, at))),
            _ => {}
        }
    }

    /// The windows of the lines read (see [`call_windows`]), in order.
    pub(crate) fn finish(mut self) -> Vec<(i64, i64)> {
        let open = self.running.drain().map(|(_, from)| (from, i64::MAX));
        self.windows.extend(open);
        self.windows.sort_unstable();
        self.windows
    }
}

/// A line as far as calls go (see the module's notes).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct CallLine {
    /// Its `type` is the string `message`.
    pub is_message: bool,
    /// Its `timestamp` as `new Date(timestamp).getTime()` reads it, when
    /// that is a time (none when absent).
    pub at: Option<i64>,
    /// Its message's `role` when that is a string.
    pub role: Option<String>,
    /// Its message's `toolCallId` when that is a string.
    pub tool_call_id: Option<String>,
    /// The string ids of its message's content blocks of type `toolCall`,
    /// in their order.
    pub call_ids: Vec<String>,
}

#[cfg(test)]
impl CallLine {
    /// The same fields from a line parsed whole.
    pub fn of_value(v: &Value) -> CallLine {
        let message = &v["message"];
        let calls = message["content"].as_array().into_iter().flatten();
        CallLine {
            is_message: v["type"] == "message",
            at: v.get("timestamp").and_then(value_ms),
            role: message["role"].as_str().map(str::to_string),
            tool_call_id: message["toolCallId"].as_str().map(str::to_string),
            call_ids: calls
                .filter(|c| c["type"] == "toolCall")
                .filter_map(|c| c["id"].as_str().map(str::to_string))
                .collect(),
        }
    }
}

impl CallLine {
    /// The line `raw` (with its newline or without), or `None` when it is
    /// no JSON. (The cursor reads a line up to its newline.)
    pub fn read(raw: &[u8]) -> Option<CallLine> {
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        match fast::line(raw) {
            Some(line) => Some(line),
            None => serde_json::from_slice(raw).ok(),
        }
    }
}

/// The one pass over a line with the session reader's cursor: `None`
/// wherever serde is to decide (see the module's notes).
mod fast {
    use super::*;

    /// A string without escapes as itself, any other value stepped over
    /// as `None`.
    fn plain_or_skip<'a>(c: &mut Cursor<'a>) -> Option<Option<&'a str>> {
        match c.peek()? {
            b'"' => c.plain_str().map(Some),
            _ => c.skip_value().map(|()| None),
        }
    }

    /// The members of the object at `c`, each key given to `member` with
    /// the cursor on its value.
    fn object<'a>(
        c: &mut Cursor<'a>,
        mut member: impl FnMut(&mut Cursor<'a>, &'a [u8]) -> Option<()>,
    ) -> Option<()> {
        let mut more = c.open_object()?;
        while more {
            let key = c.key()?;
            member(c, key)?;
            more = c.member_end()?;
        }
        Some(())
    }

    pub(super) fn line(raw: &[u8]) -> Option<CallLine> {
        let mut c = Cursor::new(raw);
        c.ws();
        let mut line = CallLine::default();
        if c.peek()? != b'{' {
            // No object: none of the fields, if it is JSON at all.
            c.skip_value()?;
        } else {
            let mut seen = 0;
            object(&mut c, |c, key| match key {
                b"type" => {
                    first(&mut seen, 0)?;
                    line.is_message = plain_or_skip(c)? == Some("message");
                    Some(())
                }
                b"timestamp" => {
                    first(&mut seen, 1)?;
                    line.at = match c.peek()? {
                        b'"' => parse_ms(c.plain_str()?),
                        b'[' | b'{' => {
                            c.skip_value()?;
                            None
                        }
                        _ => scalar_ms(&c.field()?.to_scalar()),
                    };
                    Some(())
                }
                b"message" => {
                    first(&mut seen, 2)?;
                    if c.peek()? == b'{' {
                        message(c, &mut line)
                    } else {
                        c.skip_value()
                    }
                }
                _ => c.skip_value(),
            })?;
        }
        c.ws();
        c.at_end().then_some(line)
    }

    fn message<'a>(c: &mut Cursor<'a>, line: &mut CallLine) -> Option<()> {
        let mut seen = 0;
        object(c, |c, key| match key {
            b"role" => {
                first(&mut seen, 0)?;
                line.role = plain_or_skip(c)?.map(str::to_string);
                Some(())
            }
            b"toolCallId" => {
                first(&mut seen, 1)?;
                line.tool_call_id = plain_or_skip(c)?.map(str::to_string);
                Some(())
            }
            b"content" => {
                first(&mut seen, 2)?;
                if c.peek()? == b'[' {
                    calls(c, &mut line.call_ids)
                } else {
                    c.skip_value()
                }
            }
            _ => c.skip_value(),
        })
    }

    /// The ids of the calls among the content blocks of the array at `c`.
    fn calls(c: &mut Cursor<'_>, ids: &mut Vec<String>) -> Option<()> {
        c.elements(|c| {
            if c.peek()? == b'{' {
                let (mut seen, mut is_call, mut id) = (0, false, None);
                object(c, |c, key| match key {
                    b"type" => {
                        first(&mut seen, 0)?;
                        is_call = plain_or_skip(c)? == Some("toolCall");
                        Some(())
                    }
                    b"id" => {
                        first(&mut seen, 1)?;
                        id = plain_or_skip(c)?;
                        Some(())
                    }
                    _ => c.skip_value(),
                })?;
                if let (true, Some(id)) = (is_call, id) {
                    ids.push(id.to_string());
                }
                Some(())
            } else {
                c.skip_value()
            }
        })
    }
}

/// The keys looked for, each read as it comes (escapes taken out first).
enum Key {
    Type,
    Timestamp,
    Message,
    Role,
    ToolCallId,
    Content,
    Id,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E>(self, s: &str) -> Result<Key, E> {
                Ok(match s {
                    "type" => Key::Type,
                    "timestamp" => Key::Timestamp,
                    "message" => Key::Message,
                    "role" => Key::Role,
                    "toolCallId" => Key::ToolCallId,
                    "content" => Key::Content,
                    "id" => Key::Id,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// `T`, read from a value of any JSON type by `Visitor`'s `map` when it is
/// an object and its `seq` when an array; any other gives `T::default()`.
macro_rules! any_value_visitor {
    ($visitor:ident, $t:ty, $what:literal) => {
        impl<'de> Visitor<'de> for $visitor {
            type Value = $t;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str($what)
            }
            fn visit_bool<E>(self, _: bool) -> Result<$t, E> {
                Ok(<$t>::default())
            }
            fn visit_i64<E>(self, _: i64) -> Result<$t, E> {
                Ok(<$t>::default())
            }
            fn visit_u64<E>(self, _: u64) -> Result<$t, E> {
                Ok(<$t>::default())
            }
            fn visit_f64<E>(self, _: f64) -> Result<$t, E> {
                Ok(<$t>::default())
            }
            fn visit_str<E>(self, _: &str) -> Result<$t, E> {
                Ok(<$t>::default())
            }
            fn visit_unit<E>(self) -> Result<$t, E> {
                Ok(<$t>::default())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<$t, A::Error> {
                self.seq(seq)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<$t, A::Error> {
                self.map(map)
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                d.deserialize_any($visitor)
            }
        }
    };
}

/// Steps over every element of `seq`.
fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A string value as a string, any other as `None`.
fn string_or_none<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<String>, A::Error> {
    Ok(match map.next_value::<Value>()? {
        Value::String(s) => Some(s),
        _ => None,
    })
}

/// The line (a line that is no object has none of the fields).
struct LineVisitor;

impl LineVisitor {
    fn seq<'de, A: SeqAccess<'de>>(self, seq: A) -> Result<CallLine, A::Error> {
        skip_seq(seq).map(|()| CallLine::default())
    }

    fn map<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<CallLine, A::Error> {
        let mut line = CallLine::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Type => line.is_message = map.next_value::<Value>()? == "message",
                Key::Timestamp => line.at = value_ms(&map.next_value::<Value>()?),
                Key::Message => {
                    let m = map.next_value::<Message>()?;
                    (line.role, line.tool_call_id, line.call_ids) =
                        (m.role, m.tool_call_id, m.calls.0);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(line)
    }
}

any_value_visitor!(LineVisitor, CallLine, "a session line");

/// A line's message (one that is no object has none of the fields).
#[derive(Default)]
struct Message {
    role: Option<String>,
    tool_call_id: Option<String>,
    calls: Calls,
}

struct MessageVisitor;

impl MessageVisitor {
    fn seq<'de, A: SeqAccess<'de>>(self, seq: A) -> Result<Message, A::Error> {
        skip_seq(seq).map(|()| Message::default())
    }

    fn map<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<Message, A::Error> {
        let mut m = Message::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Role => m.role = string_or_none(&mut map)?,
                Key::ToolCallId => m.tool_call_id = string_or_none(&mut map)?,
                Key::Content => m.calls = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(m)
    }
}

any_value_visitor!(MessageVisitor, Message, "a message");

/// The call ids of a message's content (none unless it is an array).
#[derive(Default)]
struct Calls(Vec<String>);

struct CallsVisitor;

impl CallsVisitor {
    fn seq<'de, A: SeqAccess<'de>>(self, mut seq: A) -> Result<Calls, A::Error> {
        let mut ids = Vec::new();
        while let Some(block) = seq.next_element::<Block>()? {
            if let Block {
                is_call: true,
                id: Some(id),
            } = block
            {
                ids.push(id);
            }
        }
        Ok(Calls(ids))
    }

    fn map<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<Calls, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Calls::default())
    }
}

any_value_visitor!(CallsVisitor, Calls, "a message's content");

/// A content block: whether its `type` is `toolCall`, and its string id.
#[derive(Default)]
struct Block {
    is_call: bool,
    id: Option<String>,
}

struct BlockVisitor;

impl BlockVisitor {
    fn seq<'de, A: SeqAccess<'de>>(self, seq: A) -> Result<Block, A::Error> {
        skip_seq(seq).map(|()| Block::default())
    }

    fn map<'de, A: MapAccess<'de>>(self, mut map: A) -> Result<Block, A::Error> {
        let mut b = Block::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Type => b.is_call = map.next_value::<Value>()? == "toolCall",
                Key::Id => b.id = string_or_none(&mut map)?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(b)
    }
}

any_value_visitor!(BlockVisitor, Block, "a content block");

#[cfg(test)]
mod tests {
    use super::CallLine;

    /// Read field by field, a line gives what the same line parsed whole
    /// gives: duplicated keys (the last kept), escaped keys, fields of
    /// every type, lines and messages that are no objects, nesting.
    #[test]
    fn a_line_read_for_its_calls_is_the_line_parsed_whole() {
        let lines = [
            r#"{"type":"message","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"a","arguments":{"x":[1,{"id":"no"}]}},{"type":"text","text":"hi"},{"type":"toolCall","id":"b"}]}}"#,
            r#"{"type":"message","timestamp":5,"message":{"role":"toolResult","toolCallId":"a","content":"done"}}"#,
            r#"{"type":"message","message":{"role":"user","content":"stop"}}"#,
            r#"{"type":"message","timestamp":null,"message":{"role":"user","content":[{"type":"text","text":"x"}]}}"#,
            r#"{"type":"mess\u0061ge","t\u0069mestamp":true,"message":{"r\u006fle":"assistant","content":[{"typ\u0065":"toolCall","\u0069d":"c"}]}}"#,
            r#"{"type":"message","type":"custom","message":{"role":"assistant","content":[{"type":"toolCall","id":"d"}]}}"#,
            r#"{"type":"custom","type":"message","message":{"role":"user"},"message":{"role":"assistant","content":[{"type":"toolCall","id":"e","id":7}]}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","id":"f","type":"text"},{"type":"text","type":"toolCall","id":"g"},1,null,"s",[{"type":"toolCall","id":"h"}]]}}"#,
            r#"{"type":"message","message":{"role":7,"toolCallId":["a"],"content":{"type":"toolCall","id":"i"}}}"#,
            r#"{"type":"message","message":{"role":"toolResult","toolCallId":"j","toolCallId":null}}"#,
            r#"{"type":"message","message":"assistant"}"#,
            r#"{"type":"message","message":[{"role":"assistant"}]}"#,
            r#"{"type":"message","message":null,"timestamp":"x"}"#,
            r#"{"type":["message"],"timestamp":{"a":1}}"#,
            r#"["type","message"]"#,
            r#""a string""#,
            r#"42"#,
            r#"null"#,
            r#"{}"#,
            r#"{"type":"message","timestamp":1e300,"message":{"role":"assistant","content":[]}}"#,
        ];
        for line in lines {
            let whole: serde_json::Value = serde_json::from_str(line).expect(line);
            let read: CallLine = serde_json::from_str(line).expect(line);
            assert_eq!(read, CallLine::of_value(&whole), "{line}");
            assert_eq!(CallLine::read(line.as_bytes()), Some(read), "{line}");
        }
        // The cursor's pass answers for the plain lines itself, and for
        // none with a key twice or escaped (nor for an exponent).
        for line in lines[..4].iter().chain(&lines[8..9]).chain(&lines[10..19]) {
            assert!(super::fast::line(line.as_bytes()).is_some(), "{line}");
        }
        for line in lines[4..8].iter().chain(&lines[9..10]) {
            assert_eq!(super::fast::line(line.as_bytes()), None, "{line}");
        }
        // What is no JSON is no line either way.
        for bad in [
            r#"{"type":"message""#,
            r#"{"type":"message"} x"#,
            "",
            "{'a':1}",
        ] {
            assert!(serde_json::from_str::<serde_json::Value>(bad).is_err());
            assert!(serde_json::from_str::<CallLine>(bad).is_err(), "{bad}");
            assert_eq!(CallLine::read(bad.as_bytes()), None, "{bad}");
        }
    }

    /// Every line of two sessions pi wrote (tool calls, results, prompts,
    /// compactions) reads the same by the cursor's pass as parsed whole,
    /// and the pass answers for nearly all of them itself.
    #[test]
    fn a_pi_written_line_reads_the_same_either_way() {
        let (mut lines, mut fast, mut calls) = (0, 0, 0);
        for raw in crate::session::read::file::pi_written_lines() {
            let raw = &raw[..];
            lines += 1;
            let whole: serde_json::Value = serde_json::from_slice(raw).expect("pi's JSON");
            let want = CallLine::of_value(&whole);
            calls += want.call_ids.len();
            if let Some(read) = super::fast::line(raw) {
                fast += 1;
                assert_eq!(read, want, "{}", String::from_utf8_lossy(raw));
            }
            // As a file's lines are handed over too, newline and all.
            let with_newline = [raw, b"\n"].concat();
            assert_eq!(
                CallLine::read(&with_newline),
                Some(CallLine::of_value(&whole))
            );
            assert_eq!(CallLine::read(raw), Some(want));
        }
        assert!(calls > 100, "{calls} calls");
        assert!(fast * 100 >= lines * 99, "{fast} of {lines} lines");
    }

    /// The catalog's fast path, asked for the calls, reads the ids a line
    /// parsed whole has, for every pi-written line it takes (nearly all).
    #[test]
    fn the_fast_path_reads_a_line_calls_as_parsed_whole() {
        use crate::session::line::{LineFacts, Want, read_fast_into_with};
        let (mut lines, mut fast, mut calls) = (0, 0, 0);
        for raw in crate::session::read::file::pi_written_lines() {
            let whole: serde_json::Value = serde_json::from_slice(&raw).expect("pi's JSON");
            let want = CallLine::of_value(&whole);
            lines += 1;
            let mut ids = Vec::new();
            let mut f = LineFacts::default();
            if read_fast_into_with(&raw, Want::default(), &mut f, Some(&mut ids)).is_none() {
                continue;
            }
            fast += 1;
            let of_assistant = match want.role.as_deref() {
                Some("assistant") => want.call_ids,
                _ => Vec::new(),
            };
            calls += ids.len();
            assert_eq!(ids, of_assistant, "{}", String::from_utf8_lossy(&raw));
        }
        assert!(calls > 100, "{calls} calls");
        assert!(fast * 100 >= lines * 99, "{fast} of {lines} lines");
    }
}
