//! The index pass's fast path at structure depth: one validating pass over a
//! plain message line that picks out what the tree and the context need.
//!
//! It reads the same fields as the serde structs in `entry` and hands every
//! line it is not sure about (another entry type, an escaped key or id, a
//! duplicate key, an unusual number, damage) to them, so answers cannot
//! differ; a test holds the two paths equal over the test corpora.

use super::cursor::Cursor;
use super::entry::{Entry, Head, Info, Kind, MessageInfo, Role, Span};
use super::fields::Scalar;
use super::read::LineMeta;

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
                message = Some(message_info(&mut c)?);
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
    // Usage is not read at structure depth.
    let info = Info::Message(message.unwrap_or_default());
    let span = Span {
        offset: meta.offset,
        len: meta.len,
    };
    Some(head.into_entry(Kind::Message, None, info, meta.number, span, meta.lossy))
}

/// The `message` object, read as `MessageFields<Structure>` reads it and
/// turned into its info as `message_info` does, written in place.
fn message_info(c: &mut Cursor<'_>) -> Option<Box<MessageInfo>> {
    let mut m = Box::<MessageInfo>::default();
    // No content field reads as null content.
    m.content.nullish = true;
    let mut seen = 0;
    let mut more = c.open_object()?;
    while more {
        match c.key()? {
            b"role" => {
                first(&mut seen, 0)?;
                m.role = match c.peek()? {
                    b'"' => Role::from_name(Some(c.plain_str()?)),
                    _ => Role::from_name(c.scalar()?.as_str()),
                };
            }
            b"content" => {
                first(&mut seen, 1)?;
                m.content.nullish = c.is_null()?;
            }
            b"stopReason" => {
                first(&mut seen, 2)?;
                m.stop_reason = c.scalar()?.into_compact();
            }
            b"toolCallId" => {
                first(&mut seen, 3)?;
                m.tool_call_id = c.scalar()?.into_compact();
            }
            b"toolName" => {
                first(&mut seen, 4)?;
                m.tool_name = c.scalar()?.into_compact();
            }
            b"isError" => {
                first(&mut seen, 5)?;
                m.is_error = c.scalar()? == Scalar::Bool(true);
            }
            b"provider" => {
                first(&mut seen, 6)?;
                m.provider = c.scalar()?.into_compact();
            }
            b"model" => {
                first(&mut seen, 7)?;
                m.model = c.scalar()?.into_compact();
            }
            b"customType" => {
                first(&mut seen, 8)?;
                m.custom_type = c.scalar()?.into_compact();
            }
            b"timestamp" => {
                first(&mut seen, 9)?;
                m.time_ms = c.scalar()?.as_f64();
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

    /// The fast path either declines or agrees with serde.
    fn check(text: &str) -> bool {
        let Some(fast) = structure_entry(text.as_bytes(), meta(text)) else {
            return false;
        };
        match parse_line_serde::<Structure>(text, meta(text)) {
            LineParse::Entry(e) => assert_eq!(fast, e, "{text}"),
            _ => panic!("fast path accepted a line serde does not read as an entry: {text}"),
        }
        true
    }

    #[test]
    fn agrees_with_serde_on_the_test_corpora() {
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from("tests")];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let path = e.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|x| x == "jsonl") {
                    files.push(path);
                }
            }
        }
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
