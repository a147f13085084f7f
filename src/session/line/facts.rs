//! The facts the one line reader hands back of a line, whichever path read
//! it: entry type, ids, name, label, model, usage and message content and
//! texts, borrowed from the line where they need no unescaping.

use crate::session::line::cursor::Field;
use crate::session::line::fields::{Obj, Scalar};
use serde::Deserialize;
use std::borrow::Cow;

/// Text read from a line: in place when it has no escapes.
pub(crate) type Text<'a> = Cow<'a, str>;

/// Top-level keys the serde reader decodes ([`LineFields`]); a message
/// line with any key here but the five the index's fast path reads goes to
/// that reader.
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

/// Which message texts a read decodes (the others are only checked).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Want {
    pub user_text: bool,
    pub assistant_text: bool,
    /// A message's usage totals (otherwise its usage is only checked).
    pub usage: bool,
}

/// A `session_info` name as pi's reader sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum NameField<'a> {
    Text(Text<'a>),
    /// Absent or null: the name is cleared.
    #[default]
    Clear,
    /// Any other value: pi's `name.trim()` throws.
    NotText,
}

/// What a line's `message` is.
#[derive(Debug, Clone, PartialEq, Default)]
// The facts of one line live on the stack for that line only: boxing the
// message's would cost an allocation per line read.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Message<'a> {
    #[default]
    Missing,
    Null,
    /// A string, number, boolean or array.
    Other,
    Object(MessageFacts<'a>),
}

/// A message's `content`, as pi's `extractTextContent` reads it: a string
/// as it is, the text blocks of a list joined by spaces.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) enum Content<'a> {
    /// No `content` key.
    #[default]
    Missing,
    Null,
    /// A string or a list pi reads, whose text was not wanted.
    Unread,
    Text(Text<'a>),
    /// A shape pi's text extraction throws on (not a string or a list, or
    /// a list holding `null`).
    Throws,
}

impl Content<'_> {
    /// Absent or null (the index's `nullish`).
    pub(crate) fn is_nullish(&self) -> bool {
        matches!(self, Content::Missing | Content::Null)
    }
}

/// The fields of a message object the index and the summaries read.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct MessageFacts<'a> {
    /// The role when it is a string.
    pub role: Option<&'a str>,
    pub content: Content<'a>,
    /// `message.timestamp` when it is a number.
    pub time: Option<f64>,
    pub provider: Option<&'a str>,
    pub model: Option<&'a str>,
    pub usage: Option<UsageTotals>,
    /// The token counts of `usage` (zeros when it has none).
    pub usage_parts: UsageParts,
    pub stop_reason: Option<&'a str>,
    pub tool_call_id: Option<&'a str>,
    pub tool_name: Option<&'a str>,
    pub custom_type: Option<&'a str>,
    /// `isError` is `true`.
    pub is_error: bool,
    /// The content's text joins two or more text blocks (with spaces, as
    /// pi's list does; pi's tree joins them without).
    pub joined: bool,
}

/// The facts of one line.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct LineFacts<'a> {
    /// `type` when it is a string ("" otherwise).
    pub kind: &'a str,
    pub id: Field<'a>,
    pub parent: Field<'a>,
    pub timestamp: Field<'a>,
    pub message: Message<'a>,
    pub name: NameField<'a>,
    pub target: Option<&'a str>,
    /// `label` is truthy, as pi tests it.
    pub label_truthy: bool,
    pub provider: Option<&'a str>,
    pub model_id: Option<&'a str>,
    /// The entry's own `usage` (not its message's).
    pub usage: Option<UsageTotals>,
    pub usage_parts: UsageParts,
    /// The entry's own `model` when it is a string (usage entries).
    pub model: Option<&'a str>,
    /// A header's `cwd` and `parentSession` when they are strings (read by
    /// [`read_slow`] only: headers never take the fast path).
    pub cwd: Option<&'a str>,
    pub parent_session: Option<&'a str>,
    /// The line has a top-level key from [`LINE_KEYS`] beyond `type`, `id`,
    /// `parentId`, `timestamp` and `message`.
    pub other_keys: bool,
}

// ---------------------------------------------------------------------------
// Usage: pi's totals (`totalTokens`, else the sum of the parts; `cost.total`).

/// Token and cost totals one entry adds to the session.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct UsageTotals {
    pub tokens: f64,
    pub cost: f64,
}

/// The four token counts of a usage object, each 0 when absent or not a
/// number (what the usage statistics add up; the totals above are pi's).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct UsageParts {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(crate) struct UsageFields {
    #[serde(rename = "totalTokens")]
    total_tokens: Scalar,
    input: Scalar,
    output: Scalar,
    #[serde(rename = "cacheRead")]
    cache_read: Scalar,
    #[serde(rename = "cacheWrite")]
    cache_write: Scalar,
    cost: Obj<CostFields>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CostFields {
    total: Scalar,
}

impl UsageFields {
    pub(crate) fn totals(&self) -> UsageTotals {
        let tokens = self.total_tokens.as_f64().unwrap_or_else(|| {
            [
                &self.input,
                &self.output,
                &self.cache_read,
                &self.cache_write,
            ]
            .iter()
            .filter_map(|s| s.as_f64())
            .sum()
        });
        let cost = self
            .cost
            .0
            .as_ref()
            .and_then(|c| c.total.as_f64())
            .unwrap_or(0.0);
        UsageTotals { tokens, cost }
    }

    pub(crate) fn parts(&self) -> UsageParts {
        let n = |s: &Scalar| s.as_f64().unwrap_or(0.0);
        UsageParts {
            input: n(&self.input),
            output: n(&self.output),
            cache_read: n(&self.cache_read),
            cache_write: n(&self.cache_write),
        }
    }
}
