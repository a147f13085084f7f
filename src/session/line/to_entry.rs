//! The index pass's reading of one line: plain message lines through the
//! one line reader's fast path ([`crate::session::line::fast`]), everything else through
//! the one serde fallback ([`crate::session::line::LineFields`]).
//!
//! The fast path reads the same fields as that struct and hands every
//! line it is not sure about (another entry type, an escaped key or id, a
//! repeated key, an unusual number, damage) to it, so answers cannot
//! differ; a test holds the two paths equal over the test corpora.

use crate::session::line::entry::{
    Brief, Depth, Entry, Head, Info, Kind, LineParse, MessageInfo, Role, Span, Structure,
    parse_line_serde,
};
use crate::session::line::{LineFacts, Message, MessageFacts, Want, read_fast_into};
use crate::session::read::blocks::LineMeta;
use compact_str::CompactString;

/// Parses one line for the index, from its bytes, which need not be UTF-8:
/// the fast path checks them as it goes, and otherwise they are decoded
/// first (noted in `meta.lossy`). Objects with repeated keys (valid JSON;
/// the last value wins, as in JavaScript) take a slower path.
pub(crate) fn parse_line_bytes<M: Depth>(line: &[u8], meta: &mut LineMeta) -> LineParse {
    if !M::FULL {
        if let Some(entry) = structure_entry(line, *meta) {
            return LineParse::Entry(entry);
        }
    }
    let (text, lossy) = crate::session::read::blocks::line_text(line, meta.offset);
    meta.lossy = lossy;
    parse_text::<M>(&text, *meta)
}

/// [`parse_line_bytes`] at outline depth (`Detail::Outline`): read
/// as at structure depth, then a message's info is cut down to its brief.
pub(crate) fn parse_line_outline(line: &[u8], meta: &mut LineMeta) -> LineParse {
    if let Some((entry, brief)) = outline_entry(line, *meta) {
        return LineParse::Outlined(entry, brief);
    }
    let (text, lossy) = crate::session::read::blocks::line_text(line, meta.offset);
    meta.lossy = lossy;
    match parse_text::<Structure>(&text, *meta) {
        LineParse::Entry(mut e) => match std::mem::take(&mut e.info) {
            Info::Message(m) => LineParse::Outlined(e, Brief::of(*m)),
            info => {
                e.info = info;
                LineParse::Entry(e)
            }
        },
        other => other,
    }
}

fn parse_text<M: Depth>(text: &str, meta: LineMeta) -> LineParse {
    if text.trim().is_empty() {
        return LineParse::Blank;
    }
    parse_line_serde::<M>(text, meta)
}

/// A `message` entry read at structure depth from the bytes of its line,
/// or `None` to use serde. A line read here is valid UTF-8.
pub(crate) fn structure_entry(line: &[u8], meta: LineMeta) -> Option<Entry> {
    let mut facts = LineFacts::default();
    let head = plain_message(line, &mut facts)?;
    // Usage is not read at structure depth.
    let info = Info::Message(Box::new(match &facts.message {
        Message::Object(m) => info_of(m),
        _ => MessageInfo::default(),
    }));
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
    let mut facts = LineFacts::default();
    let head = plain_message(line, &mut facts)?;
    let brief = match &facts.message {
        Message::Object(m) => Brief {
            role: Role::from_name(m.role),
            nullish: m.content.is_nullish(),
            provider: m.provider.map(CompactString::from),
            model: m.model.map(CompactString::from),
        },
        _ => Brief::default(),
    };
    let entry = head.into_entry(
        Kind::Message,
        None,
        Info::None,
        meta.number,
        span(meta),
        meta.lossy,
    );
    Some((entry, brief))
}

fn span(meta: LineMeta) -> Span {
    Span {
        offset: meta.offset,
        len: meta.len,
    }
}

/// The shared fields of a plain message line, read into `facts` (whose
/// message is then the line's; a message that is not an object reads as
/// an empty one, as serde reads it).
fn plain_message<'a>(line: &'a [u8], facts: &mut LineFacts<'a>) -> Option<Head> {
    read_fast_into(line, Want::default(), facts)?;
    // Only message entries without other fields serde reads: other types
    // read other fields.
    if facts.kind != "message" || facts.other_keys {
        return None;
    }
    Some(Head {
        id: facts.id.to_scalar(),
        parent_id: facts.parent.to_scalar(),
        timestamp: facts.timestamp.to_scalar(),
    })
}

/// A message's info as `message_info` makes it (content read as null or
/// not only, as at structure depth).
fn info_of(m: &MessageFacts<'_>) -> MessageInfo {
    let compact = |t: Option<&str>| t.map(CompactString::from);
    let mut info = MessageInfo {
        role: Role::from_name(m.role),
        stop_reason: compact(m.stop_reason),
        tool_call_id: compact(m.tool_call_id),
        tool_name: compact(m.tool_name),
        is_error: m.is_error,
        provider: compact(m.provider),
        model: compact(m.model),
        custom_type: compact(m.custom_type),
        time_ms: m.time,
        ..MessageInfo::default()
    };
    info.content.nullish = m.content.is_nullish();
    info
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::line::entry::LineFields;
    use crate::session::line::facts::LINE_KEYS;
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
        let files = crate::session::read::file::test_session_files();
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
