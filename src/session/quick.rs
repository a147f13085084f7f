//! The index pass's fast path at structure depth: one validating pass over a
//! plain message line that picks out what the tree and the context need.
//!
//! It reads the same fields as the serde structs in `entry` and hands every
//! line it is not sure about (another entry type, an escaped key or id, a
//! duplicate key, an unusual number, damage) to them, so answers cannot
//! differ; a test holds the two paths equal over the test corpora.

use super::cursor::Cursor;
use super::entry::{Brief, Entry, Head, Info, Kind, MessageInfo, Role, Span, scalar_key};
use super::fields::Scalar;
use super::read::LineMeta;
use compact_str::CompactString;

/// Top-level keys the serde reader decodes (`LineFields`); a line with any
/// key here but the five read below goes to it.
pub(crate) const LINE_KEYS: &[&str] = &[
    "type",
    "id",
    "parentId",
    "timestamp",
    "message",
    "version",
    "cwd",
    "parentSession",
    "summary",
    "tokensBefore",
    "firstKeptEntryId",
    "firstKeptEntryIndex",
    "retainedTail",
    "systemMessage",
    "fromId",
    "usage",
    "customType",
    "content",
    "display",
    "targetId",
    "label",
    "replacement",
    "name",
    "provider",
    "modelId",
    "thinkingLevel",
    "model",
    "kind",
];

/// Sets bit `bit` in `seen`; `None` when it was set (a duplicate key, whose
/// rules the serde reader knows).
#[inline]
fn first(seen: &mut u32, bit: u32) -> Option<()> {
    let was = *seen & (1 << bit) != 0;
    *seen |= 1 << bit;
    (!was).then_some(())
}

/// A `message` entry read at structure depth from the bytes of its line,
/// or `None` to use serde. A line read here is valid UTF-8.
pub(crate) fn structure_entry(line: &[u8], meta: LineMeta) -> Option<Entry> {
    let (head, message) = read_line::<Box<MessageInfo>>(line)?;
    // Usage is not read at structure depth.
    let info = Info::Message(message.unwrap_or_default());
    Some(head.into_entry(
        Kind::Message,
        None,
        info,
        meta.number,
        span(meta),
        meta.lossy,
    ))
}

/// Like [`structure_entry`], at outline depth: the message's brief instead
/// of its info (as `parse_line_outline` makes it from a whole info).
pub(crate) fn outline_entry(line: &[u8], meta: LineMeta) -> Option<(Entry, Brief)> {
    let (head, message) = read_line::<Brief>(line)?;
    let entry = head.into_entry(
        Kind::Message,
        None,
        Info::None,
        meta.number,
        span(meta),
        meta.lossy,
    );
    Some((entry, message.unwrap_or_default()))
}

fn span(meta: LineMeta) -> Span {
    Span {
        offset: meta.offset,
        len: meta.len,
    }
}

/// The shared fields and the message of a plain message line.
fn read_line<O: MessageOut>(line: &[u8]) -> Option<(Head, Option<O>)> {
    let mut c = Cursor::new(line);
    c.ws();
    let mut seen = 0;
    let mut head = Head {
        id: Scalar::Missing,
        parent_id: Scalar::Missing,
        timestamp: Scalar::Missing,
    };
    let mut message = None;
    let mut more = c.open_object()?;
    while more {
        match c.key()? {
            b"type" => {
                first(&mut seen, 0)?;
                if c.plain_bytes()? != b"message" {
                    return None;
                }
            }
            b"id" => {
                first(&mut seen, 1)?;
                head.id = c.scalar()?;
            }
            b"parentId" => {
                first(&mut seen, 2)?;
                head.parent_id = c.scalar()?;
            }
            b"timestamp" => {
                first(&mut seen, 3)?;
                head.timestamp = c.scalar()?;
            }
            b"message" => {
                first(&mut seen, 4)?;
                message = Some(read_message::<O>(&mut c)?);
            }
            key if LINE_KEYS.iter().any(|k| k.as_bytes() == key) => return None,
            _ => c.skip_value()?,
        }
        more = c.member_end()?;
    }
    c.ws();
    // Only message entries: other types read other fields.
    if !c.at_end() || seen & 1 == 0 {
        return None;
    }
    Some((head, message))
}

/// Where a message's fields go: a whole info, written in place, or a brief.
trait MessageOut {
    /// A message as read from an object without fields (content missing
    /// reads as null).
    fn empty() -> Self;
    fn role(&mut self) -> &mut Role;
    fn nullish(&mut self) -> &mut bool;
    fn provider(&mut self) -> &mut Option<CompactString>;
    fn model(&mut self) -> &mut Option<CompactString>;
    /// The fields only a whole info keeps.
    fn rest(&mut self) -> Option<&mut MessageInfo>;
}

impl MessageOut for Box<MessageInfo> {
    fn empty() -> Self {
        let mut m = Box::<MessageInfo>::default();
        m.content.nullish = true;
        m
    }
    fn role(&mut self) -> &mut Role {
        &mut self.role
    }
    fn nullish(&mut self) -> &mut bool {
        &mut self.content.nullish
    }
    fn provider(&mut self) -> &mut Option<CompactString> {
        &mut self.provider
    }
    fn model(&mut self) -> &mut Option<CompactString> {
        &mut self.model
    }
    fn rest(&mut self) -> Option<&mut MessageInfo> {
        Some(self)
    }
}

impl MessageOut for Brief {
    fn empty() -> Self {
        Brief {
            nullish: true,
            ..Brief::default()
        }
    }
    fn role(&mut self) -> &mut Role {
        &mut self.role
    }
    fn nullish(&mut self) -> &mut bool {
        &mut self.nullish
    }
    fn provider(&mut self) -> &mut Option<CompactString> {
        &mut self.provider
    }
    fn model(&mut self) -> &mut Option<CompactString> {
        &mut self.model
    }
    fn rest(&mut self) -> Option<&mut MessageInfo> {
        None
    }
}

/// The `message` object, read as `MessageFields<Structure>` reads it and
/// turned into its info as `message_info` does. Fields a brief drops are
/// still read, so both accept exactly the same lines.
fn read_message<O: MessageOut>(c: &mut Cursor<'_>) -> Option<O> {
    let mut m = O::empty();
    let mut seen = 0;
    let mut more = c.open_object()?;
    while more {
        match c.key()? {
            b"role" => {
                first(&mut seen, 0)?;
                *m.role() = match c.peek()? {
                    b'"' => Role::from_name(Some(c.plain_str()?)),
                    _ => Role::from_name(c.scalar()?.as_str()),
                };
            }
            b"content" => {
                first(&mut seen, 1)?;
                *m.nullish() = c.is_null()?;
            }
            b"provider" => {
                first(&mut seen, 6)?;
                *m.provider() = scalar_key(&c.scalar()?);
            }
            b"model" => {
                first(&mut seen, 7)?;
                *m.model() = scalar_key(&c.scalar()?);
            }
            key @ (b"stopReason" | b"toolCallId" | b"toolName" | b"isError" | b"customType"
            | b"timestamp") => {
                let bit = match key {
                    b"stopReason" => 2,
                    b"toolCallId" => 3,
                    b"toolName" => 4,
                    b"isError" => 5,
                    b"customType" => 8,
                    _ => 9,
                };
                first(&mut seen, bit)?;
                let value = c.scalar()?;
                if let Some(info) = m.rest() {
                    match bit {
                        2 => info.stop_reason = value.into_compact(),
                        3 => info.tool_call_id = value.into_compact(),
                        4 => info.tool_name = value.into_compact(),
                        5 => info.is_error = value == Scalar::Bool(true),
                        8 => info.custom_type = value.into_compact(),
                        _ => info.time_ms = value.as_f64(),
                    }
                }
            }
            // Skipped at structure depth (errorMessage, command, summary,
            // usage) or unknown.
            _ => c.skip_value()?,
        }
        more = c.member_end()?;
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::entry::{LineFields, LineParse, Structure, parse_line_serde};
    use serde::de::{self, Deserialize, Visitor};

    /// Captures the field names serde's derive gives `deserialize_struct`.
    struct FieldNames(Vec<&'static str>);

    impl<'de> de::Deserializer<'de> for &mut FieldNames {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("only structs"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            self.0 = fields.to_vec();
            Err(de::Error::custom("captured"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }

    #[test]
    fn line_keys_are_the_serde_fields() {
        let mut names = FieldNames(Vec::new());
        let _ = LineFields::<Structure>::deserialize(&mut names);
        let mut serde = names.0;
        let mut ours = LINE_KEYS.to_vec();
        serde.sort_unstable();
        ours.sort_unstable();
        assert_eq!(serde, ours);
    }

    fn meta(text: &str) -> LineMeta {
        LineMeta {
            offset: 7,
            len: text.len() as u64,
            number: 3,
            terminated: true,
            lossy: false,
        }
    }

    /// The fast path either declines or agrees with serde, at structure and
    /// at outline depth alike.
    fn check(text: &str) -> bool {
        let fast = structure_entry(text.as_bytes(), meta(text));
        let outlined = outline_entry(text.as_bytes(), meta(text));
        assert_eq!(fast.is_some(), outlined.is_some(), "{text}");
        let (Some(fast), Some((entry, brief))) = (fast, outlined) else {
            return false;
        };
        match parse_line_serde::<Structure>(text, meta(text)) {
            LineParse::Entry(mut e) => {
                assert_eq!(fast, e, "{text}");
                let Info::Message(m) = std::mem::take(&mut e.info) else {
                    panic!("not a message: {text}");
                };
                assert_eq!((entry, brief), (e, Brief::of(*m)), "{text}");
            }
            _ => panic!("fast path accepted a line serde does not read as an entry: {text}"),
        }
        true
    }

    #[test]
    fn agrees_with_serde_on_the_test_corpora() {
        let files = crate::session::test_session_files();
        assert!(files.len() > 20);
        let (mut lines, mut fast) = (0, 0);
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            // Raw lines, cut anywhere (even inside a character): what the
            // fast path accepts must be UTF-8.
            for line in bytes.split(|&b| b == b'\n') {
                for cut in (0..line.len()).step_by(line.len() / 30 + 1) {
                    let part = &line[..cut];
                    if structure_entry(part, meta("")).is_some() {
                        check(std::str::from_utf8(part).unwrap());
                    }
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            for line in text.lines() {
                lines += 1;
                fast += usize::from(check(line));
                // Cut short: the fast path must decline (or agree, where a
                // cut leaves valid JSON).
                let cuts: Vec<usize> = line.char_indices().map(|(i, _)| i).collect();
                for &cut in cuts.iter().step_by(cuts.len() / 40 + 1) {
                    check(&line[..cut]);
                }
            }
        }
        // Most lines are plain messages and take the fast path.
        assert!(fast * 2 > lines, "{fast} of {lines}");
    }

    #[test]
    fn agrees_with_serde_on_odd_lines() {
        let base = r#"{"type":"message","id":"a","parentId":"p","timestamp":"2024-01-01T00:00:00.000Z","message":{"role":"user","content":"hi","timestamp":5}}"#;
        assert!(check(base));
        for odd in [
            r#"{"type":"message","id":"a","id":"b"}"#,
            r#"{"type":"message","message":{"role":"user","role":"assistant"}}"#,
            r#"{"type":"message","message":{"content":null}}"#,
            r#"{"type":"message","message":{"content":1e999}}"#,
            r#"{"type":"message","message":{"content":"\ud800"}}"#,
            r#"{"type":"message","message":{"content":[1e999,"\ud800"]}}"#,
            r#"{"type":"message","message":[]}"#,
            r#"{"type":"message","message":null}"#,
            r#"{"type":"message"}"#,
            r#"{"type":"message","usage":{"totalTokens":3}}"#,
            r#"{"type":"message","id":7,"parentId":[1]}"#,
            r#"{"type":"label","id":"a","targetId":"b","label":"x"}"#,
            r#"{"type":"session","id":"s"}"#,
            r#"{"type":"message","message":{"timestamp":-0,"isError":true}}"#,
            r#"{"type":"message","message":{"timestamp":1.5,"isError":1}}"#,
            r#"{"type":"message","x":{"y":[{"z":"\u00e9\n"}]},"message":{}}"#,
            r#"{"type":"mess\u0061ge"}"#,
            r#"{"typ\u0065":"message"}"#,
            "{\"type\":\"message\"}\r",
            "{\"type\":\"message\"} x",
            "\t{\"type\":\"message\" }",
        ] {
            check(odd);
        }
    }
}
