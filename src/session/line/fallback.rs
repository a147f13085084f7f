//! The one line reader's serde fallback: one struct, [`LineFields`], reads
//! every line the fast path hands over, for the session index and the
//! catalog alike (a [`Reading`] says what each keeps of a message);
//! [`read_slow`] reads with it any line `JSON.parse` takes, through
//! [`JsValue`] where serde_json refuses a line JavaScript reads (lone
//! surrogates, numbers beyond f64, repeated struct keys), so those rules live
//! in one place.

use crate::session::line::cursor::Field;
use crate::session::line::facts::{
    Content, LineFacts, Message, MessageFacts, NameField, UsageFields,
};
use crate::session::line::fields::{
    Lenient, Obj, Scalar, Short, Whole, deserialize_lenient, lenient_deserialize,
};
use crate::session::line::jsvalue::{JsValue, js_number};
use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess};
use std::borrow::Cow;

// ---------------------------------------------------------------------------
// The fallback.

/// What became of a line [`read_slow`] read.
pub(crate) enum Slow<M: TextMode> {
    Object(Box<LineFields<M>>),
    /// `null`, `false`, `0`, `""`: pi skips these lines.
    Falsy,
    /// Any other value that is not an object.
    Truthy,
    /// Not JSON (or blank).
    Invalid,
}

/// Reads any line `JSON.parse` reads. serde_json refuses some that
/// JavaScript takes (lone surrogate escapes, numbers beyond f64, a repeated
/// key of a struct): those are parsed exactly and read again as serde
/// reads them (the last of repeated keys wins, as in JavaScript).
pub(crate) fn read_slow<M: TextMode>(text: &str) -> Slow<M> {
    // serde would also read a struct from an array: objects only.
    if text.trim_start().starts_with('{') {
        if let Ok(line) = serde_json::from_str::<LineFields<M>>(text) {
            return Slow::Object(Box::new(line));
        }
    }
    let Ok(value) = JsValue::parse(text.trim_matches([' ', '\t', '\n', '\r'])) else {
        return Slow::Invalid;
    };
    if value.is_object() {
        match value.read_serde::<LineFields<M>>() {
            Ok(line) => Slow::Object(Box::new(line)),
            Err(_) => Slow::Invalid,
        }
    } else if value.is_truthy() {
        Slow::Truthy
    } else {
        Slow::Falsy
    }
}

/// What a reading of a line keeps of its messages: the session index reads
/// at its depths (`entry::Full`, `entry::Structure`), the catalog's
/// summaries with or without assistant texts ([`KeepText`], [`SkipText`]).
/// Everything else about a line is read the same way for all.
pub(crate) trait Reading: Default + Send {
    /// A message's `errorMessage`, `command` and `summary` are read.
    const DETAIL: bool;
    /// A message's `usage` is read.
    const USAGE: bool;
    /// A message's content as this reading keeps it.
    type Content: Default + Send;
    /// A custom message's (top-level) content.
    type Body: serde::de::DeserializeOwned + Default + Send;
    /// Reads the value of a message's `content`, its role read so far.
    fn content<'de, A: MapAccess<'de>>(
        a: &mut A,
        role: Option<&str>,
    ) -> Result<Self::Content, A::Error>;
}

/// Whether assistant texts are decoded by the catalog's reading (user texts
/// always are), or only checked.
pub(crate) trait TextMode: Reading<Content = ContentText> {
    const KEEP: bool;
}

#[derive(Default)]
pub(crate) struct KeepText;
impl TextMode for KeepText {
    const KEEP: bool = true;
}

#[derive(Default)]
pub(crate) struct SkipText;
impl TextMode for SkipText {
    const KEEP: bool = false;
}

/// A value read and dropped.
#[derive(Default)]
pub(crate) struct Skipped;
impl Lenient<'_> for Skipped {}
lenient_deserialize!(Skipped);

macro_rules! catalog_reading {
    ($($ty:ident),*) => {$(
        impl Reading for $ty {
            const DETAIL: bool = false;
            const USAGE: bool = true;
            type Content = ContentText;
            type Body = Skipped;
            fn content<'de, A: MapAccess<'de>>(
                a: &mut A,
                role: Option<&str>,
            ) -> Result<ContentText, A::Error> {
                catalog_content::<$ty, A>(a, role)
            }
        }
    )*};
}
catalog_reading!(KeepText, SkipText);

/// The catalog's reading of a content: the text of turns as pi's list
/// extracts it; an assistant's only checked unless its texts are kept.
fn catalog_content<'de, M: TextMode, A: MapAccess<'de>>(
    a: &mut A,
    role: Option<&str>,
) -> Result<ContentText, A::Error> {
    Ok(match role {
        Some("user") => a.next_value()?,
        Some("assistant") if !M::KEEP => a.next_value::<ContentShape>()?.0,
        Some("assistant") | None => a.next_value()?,
        // Not a turn: its content is not read.
        Some(_) => {
            a.next_value::<IgnoredAny>()?;
            ContentText::Unread
        }
    })
}

/// Every field of every entry type pi reads, as serde reads a line when
/// the fast path declines it: the one fallback of the session index and of
/// the catalog's summaries. Unknown fields are skipped without being
/// decoded; [`LINE_KEYS`] are its keys.
#[derive(Deserialize, Default)]
#[serde(default, bound(deserialize = "R: Reading"))]
pub(crate) struct LineFields<R: Reading> {
    #[serde(rename = "type")]
    pub(crate) kind: Scalar,
    pub(crate) id: Scalar,
    #[serde(rename = "parentId")]
    pub(crate) parent_id: Scalar,
    pub(crate) timestamp: Scalar,
    pub(crate) message: MessageValue<R>,
    // header
    pub(crate) version: Scalar,
    pub(crate) cwd: Scalar,
    #[serde(rename = "parentSession")]
    pub(crate) parent_session: Scalar,
    // compaction / branch summary (pi's tree shows a branch summary whole)
    pub(crate) summary: Whole,
    #[serde(rename = "tokensBefore")]
    pub(crate) tokens_before: Scalar,
    #[serde(rename = "firstKeptEntryId")]
    pub(crate) first_kept_entry_id: Scalar,
    #[serde(rename = "firstKeptEntryIndex")]
    pub(crate) first_kept_entry_index: Scalar,
    #[serde(rename = "retainedTail")]
    pub(crate) retained_tail: Scalar,
    #[serde(rename = "systemMessage")]
    pub(crate) system_message: Scalar,
    #[serde(rename = "fromId")]
    pub(crate) from_id: Scalar,
    pub(crate) usage: Obj<Box<UsageFields>>,
    // custom / custom_message
    #[serde(rename = "customType")]
    pub(crate) custom_type: Scalar,
    pub(crate) content: Option<Box<R::Body>>,
    pub(crate) display: Scalar,
    // label / context_edit
    #[serde(rename = "targetId")]
    pub(crate) target_id: Scalar,
    pub(crate) label: Scalar,
    pub(crate) replacement: Scalar,
    // session_info
    pub(crate) name: Scalar,
    // model_change / thinking_level_change / usage
    pub(crate) provider: Scalar,
    #[serde(rename = "modelId")]
    pub(crate) model_id: Scalar,
    #[serde(rename = "thinkingLevel")]
    pub(crate) thinking_level: Scalar,
    pub(crate) model: Scalar,
    #[serde(rename = "kind")]
    pub(crate) usage_kind: Scalar,
}

impl<M: TextMode> LineFields<M> {
    /// The facts the catalog's summaries read.
    pub(crate) fn facts(&self) -> LineFacts<'_> {
        let message = match &self.message {
            MessageValue::Missing => Message::Missing,
            MessageValue::Null => Message::Null,
            MessageValue::Other => Message::Other,
            MessageValue::Object(m) => Message::Object(MessageFacts {
                role: m.role.as_str(),
                content: match (&m.content, m.has_content) {
                    (_, false) => Content::Missing,
                    (ContentText::Text(t, _), true) => Content::Text(Cow::Borrowed(t)),
                    (ContentText::Unread, true) => Content::Unread,
                    (ContentText::Null, true) => Content::Null,
                    (ContentText::Throws, true) => Content::Throws,
                },
                time: m.timestamp.as_f64(),
                provider: m.provider.as_str(),
                model: m.model.as_str(),
                usage: m.usage.0.as_ref().map(|u| u.totals()),
                usage_parts: m.usage.0.as_ref().map(|u| u.parts()).unwrap_or_default(),
                stop_reason: m.stop_reason.as_str(),
                tool_call_id: m.tool_call_id.as_str(),
                tool_name: m.tool_name.as_str(),
                custom_type: m.custom_type.as_str(),
                is_error: m.is_error == Scalar::Bool(true),
                joined: matches!(
                    (&m.content, m.has_content),
                    (ContentText::Text(_, true), true)
                ),
            }),
        };
        LineFacts {
            kind: self.kind.as_str().unwrap_or(""),
            id: Field::of(&self.id),
            parent: Field::of(&self.parent_id),
            timestamp: Field::of(&self.timestamp),
            message,
            name: match &self.name {
                Scalar::Str(s) => NameField::Text(Cow::Borrowed(s)),
                Scalar::Missing | Scalar::Null => NameField::Clear,
                _ => NameField::NotText,
            },
            target: self.target_id.as_str(),
            label_truthy: self.label.is_truthy(),
            provider: self.provider.as_str(),
            model_id: self.model_id.as_str(),
            usage: self.usage.0.as_ref().map(|u| u.totals()),
            usage_parts: self.usage.0.as_ref().map(|u| u.parts()).unwrap_or_default(),
            model: self.model.as_str(),
            cwd: self.cwd.as_str(),
            parent_session: self.parent_session.as_str(),
            other_keys: false,
        }
    }
}

lenient_deserialize!(ContentShape, BlockShape, ContentText, Block, JsText);

/// A line's `message`, whatever its shape.
#[derive(Default)]
pub(crate) enum MessageValue<R: Reading> {
    #[default]
    Missing,
    Null,
    /// A string, number, boolean or array.
    Other,
    Object(Box<MessageFields<R>>),
}

impl<R: Reading> MessageValue<R> {
    /// The message when it is an object.
    pub(crate) fn object(&self) -> Option<&MessageFields<R>> {
        match self {
            MessageValue::Object(m) => Some(m),
            _ => None,
        }
    }
}

impl<'de, R: Reading> Lenient<'de> for MessageValue<R> {
    fn from_str(_: &str) -> Self {
        MessageValue::Other
    }
    fn from_num(_: f64) -> Self {
        MessageValue::Other
    }
    fn from_bool(_: bool) -> Self {
        MessageValue::Other
    }
    fn from_null() -> Self {
        MessageValue::Null
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        while a.next_element::<IgnoredAny>()?.is_some() {}
        Ok(MessageValue::Other)
    }
    fn from_map<A: MapAccess<'de>>(a: A) -> Result<Self, A::Error> {
        read_message::<R, A>(a).map(|m| MessageValue::Object(Box::new(m)))
    }
}

impl<'de, R: Reading> Deserialize<'de> for MessageValue<R> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_lenient(d)
    }
}

/// The fields of a message object any reading uses.
#[derive(Default)]
pub(crate) struct MessageFields<R: Reading> {
    pub(crate) role: Scalar,
    /// The message has a `content` key.
    pub(crate) has_content: bool,
    pub(crate) content: R::Content,
    pub(crate) stop_reason: Scalar,
    pub(crate) error_message: Option<Whole>,
    pub(crate) tool_call_id: Scalar,
    pub(crate) tool_name: Scalar,
    pub(crate) is_error: Scalar,
    pub(crate) command: Option<Whole>,
    pub(crate) summary: Option<Short>,
    pub(crate) provider: Scalar,
    pub(crate) model: Scalar,
    pub(crate) custom_type: Scalar,
    pub(crate) timestamp: Scalar,
    pub(crate) usage: Obj<Box<UsageFields>>,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum MessageKey {
    Role,
    Content,
    StopReason,
    ErrorMessage,
    ToolCallId,
    ToolName,
    IsError,
    Command,
    Summary,
    Provider,
    Model,
    CustomType,
    Timestamp,
    Usage,
    #[serde(other)]
    Other,
}

/// Reads a message object; the last of repeated keys wins. A content is
/// read as the role before it asks (tool output, most of a file, skipped).
fn read_message<'de, R: Reading, A: MapAccess<'de>>(
    mut a: A,
) -> Result<MessageFields<R>, A::Error> {
    let mut m = MessageFields::<R>::default();
    fn skip<'de, A: MapAccess<'de>>(a: &mut A) -> Result<(), A::Error> {
        a.next_value::<IgnoredAny>().map(|_| ())
    }
    while let Some(key) = a.next_key::<MessageKey>()? {
        match key {
            // A role repeated after the content: the content was read for
            // the role before it. The exact reader resolves the repeat.
            MessageKey::Role if m.has_content && m.role != Scalar::Missing => {
                return Err(serde::de::Error::custom(
                    "a role repeated after the content",
                ));
            }
            MessageKey::Role => m.role = a.next_value()?,
            MessageKey::Content => {
                m.has_content = true;
                m.content = R::content(&mut a, m.role.as_str())?;
            }
            MessageKey::ErrorMessage | MessageKey::Command | MessageKey::Summary if !R::DETAIL => {
                skip(&mut a)?
            }
            MessageKey::Usage if !R::USAGE => skip(&mut a)?,
            MessageKey::StopReason => m.stop_reason = a.next_value()?,
            MessageKey::ErrorMessage => m.error_message = Some(a.next_value()?),
            MessageKey::ToolCallId => m.tool_call_id = a.next_value()?,
            MessageKey::ToolName => m.tool_name = a.next_value()?,
            MessageKey::IsError => m.is_error = a.next_value()?,
            MessageKey::Command => m.command = Some(a.next_value()?),
            MessageKey::Summary => m.summary = Some(a.next_value()?),
            MessageKey::Provider => m.provider = a.next_value()?,
            MessageKey::Model => m.model = a.next_value()?,
            MessageKey::CustomType => m.custom_type = a.next_value()?,
            MessageKey::Timestamp => m.timestamp = a.next_value()?,
            MessageKey::Usage => m.usage = a.next_value()?,
            MessageKey::Other => skip(&mut a)?,
        }
    }
    Ok(m)
}

/// pi's `extractTextContent`: a string as it is, the text blocks of a list
/// joined by spaces; any other value makes pi's reader throw.
#[derive(Default)]
pub(crate) enum ContentText {
    /// The text, and whether it joins two or more blocks.
    Text(String, bool),
    /// A valid shape whose text was not needed.
    Unread,
    Null,
    #[default]
    Throws,
}

/// Content checked for the shapes pi's reader throws on, text skipped unread.
#[derive(Default)]
struct ContentShape(ContentText);

impl<'de> Lenient<'de> for ContentShape {
    fn from_str(_: &str) -> Self {
        ContentShape(ContentText::Unread)
    }
    fn from_null() -> Self {
        ContentShape(ContentText::Null)
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        let mut throws = false;
        while let Some(block) = a.next_element::<BlockShape>()? {
            throws |= block.0;
        }
        Ok(ContentShape(if throws {
            ContentText::Throws
        } else {
            ContentText::Unread
        }))
    }
}

/// Whether a content block is null (`block.type` throws on it).
#[derive(Default)]
struct BlockShape(bool);

impl<'de> Lenient<'de> for BlockShape {
    fn from_null() -> Self {
        BlockShape(true)
    }
}

impl<'de> Lenient<'de> for ContentText {
    fn from_str(v: &str) -> Self {
        ContentText::Text(v.to_string(), false)
    }
    fn from_null() -> Self {
        ContentText::Null
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        let mut out = String::new();
        let mut first = true;
        let mut joined = false;
        let mut throws = false;
        while let Some(block) = a.next_element::<Block>()? {
            match block {
                Block::Null => throws = true,
                Block::Other => {}
                Block::Text(t) => {
                    if !first {
                        joined = true;
                        out.push(' ');
                    }
                    first = false;
                    out.push_str(&t);
                }
            }
        }
        Ok(if throws {
            ContentText::Throws
        } else {
            ContentText::Text(out, !first && joined)
        })
    }
}

#[derive(Default)]
enum Block {
    #[default]
    Other,
    /// `block.type` on null throws.
    Null,
    Text(String),
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum BlockKey {
    Type,
    Text,
    #[serde(other)]
    Other,
}

impl<'de> Lenient<'de> for Block {
    fn from_null() -> Self {
        Block::Null
    }
    fn from_map<A: MapAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        let mut kind = Scalar::Missing;
        let mut text = JsText::default();
        while let Some(key) = a.next_key::<BlockKey>()? {
            match key {
                BlockKey::Type => kind = a.next_value()?,
                BlockKey::Text => text = a.next_value()?,
                BlockKey::Other => {
                    a.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(if kind.as_str() == Some("text") {
            Block::Text(text.0)
        } else {
            Block::Other
        })
    }
}

/// A value as JavaScript's `Array.prototype.join` turns it into text
/// (`null` and a missing value are "").
#[derive(Default)]
struct JsText(String);

impl<'de> Lenient<'de> for JsText {
    fn from_str(v: &str) -> Self {
        JsText(v.to_string())
    }
    fn from_num(n: f64) -> Self {
        JsText(js_number(n))
    }
    fn from_bool(b: bool) -> Self {
        JsText(b.to_string())
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        let mut parts = Vec::new();
        while let Some(part) = a.next_element::<JsText>()? {
            parts.push(part.0);
        }
        Ok(JsText(parts.join(",")))
    }
    fn from_map<A: MapAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(JsText("[object Object]".to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_reads_what_json_parse_reads() {
        let facts = |text: &str| match read_slow::<KeepText>(text) {
            Slow::Object(line) => {
                let f = line.facts();
                let text = match &f.message {
                    Message::Object(m) => match &m.content {
                        Content::Text(t) => Some(t.to_string()),
                        _ => None,
                    },
                    _ => None,
                };
                Some((f.kind.to_string(), text))
            }
            _ => None,
        };
        // A lone surrogate (serde_json refuses it) reads as U+FFFD.
        assert_eq!(
            facts(r#"{"type":"message","message":{"role":"user","content":"a\udc00"}}"#),
            Some(("message".into(), Some("a\u{fffd}".into())))
        );
        // A number beyond f64, and a repeated key: the last wins.
        assert_eq!(
            facts(
                r#"{"type":"label","type":"message","x":1e400,"message":{"role":"user","content":[{"type":"text","text":[1,[2,null],{}]}]}}"#
            ),
            Some(("message".into(), Some("1,2,,[object Object]".into())))
        );
        assert!(matches!(read_slow::<SkipText>("null"), Slow::Falsy));
        assert!(matches!(read_slow::<SkipText>("\"\""), Slow::Falsy));
        assert!(matches!(read_slow::<SkipText>("[]"), Slow::Truthy));
        assert!(matches!(read_slow::<SkipText>("{\"a\":"), Slow::Invalid));
    }
}
