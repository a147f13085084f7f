//! One session line, reduced to what the tree, the summaries and the context
//! need; full bodies stay in the file and are read again on demand.

use crate::jstext::date as jsdate;
use crate::session::content::BlockKind;
pub(crate) use crate::session::line::LineFields;
pub use crate::session::line::UsageTotals;
use crate::session::line::fallback::{MessageFields, MessageValue, Reading};
use crate::session::line::fields::{
    Cut, Obj, SHORT_TEXT_CHARS, Scalar, Short, StrLen, WHOLE, Whole,
};
use crate::session::line::jsvalue::JsValue;
use crate::session::read::blocks::LineMeta;
use compact_str::CompactString;
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, SeqAccess};
use serde_json::value::RawValue;

/// The entry types pi knows; anything else is kept under `Other`. One
/// byte: the `type` text of an `Other` or `Odd` entry is its info's
/// ([`Info::Type`], read through [`Entry::type_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Kind {
    Message,
    ModelChange,
    ThinkingLevelChange,
    Compaction,
    BranchSummary,
    Custom,
    CustomMessage,
    Label,
    SessionInfo,
    ContextEdit,
    Usage,
    /// A second `session` header inside the file: pi ignores it.
    Header,
    /// A type pi does not know.
    Other,
    /// A `type` that is not a string (or holds a lone surrogate): its
    /// [`crate::session::line::jskey`] key is the info's, and pi's tree echoes it.
    Odd,
    Missing,
}

impl Kind {
    /// Every kind, each at its [`Kind::code`].
    const ALL: [Kind; 15] = [
        Kind::Message,
        Kind::ModelChange,
        Kind::ThinkingLevelChange,
        Kind::Compaction,
        Kind::BranchSummary,
        Kind::Custom,
        Kind::CustomMessage,
        Kind::Label,
        Kind::SessionInfo,
        Kind::ContextEdit,
        Kind::Usage,
        Kind::Header,
        Kind::Other,
        Kind::Odd,
        Kind::Missing,
    ];

    /// The kind as one byte, for a stored column of them.
    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    /// The kind [`Kind::code`] gave `code`.
    pub(crate) fn from_code(code: u8) -> Option<Kind> {
        Kind::ALL.get(usize::from(code)).copied()
    }

    /// The kind a `type` names, and the text an `Other` or `Odd` one keeps.
    fn from_scalar(s: &Scalar) -> (Kind, Option<Text>) {
        let kind = match s.as_str() {
            Some("message") => Kind::Message,
            Some("model_change") => Kind::ModelChange,
            Some("thinking_level_change") => Kind::ThinkingLevelChange,
            Some("compaction") => Kind::Compaction,
            Some("branch_summary") => Kind::BranchSummary,
            Some("custom") => Kind::Custom,
            Some("custom_message") => Kind::CustomMessage,
            Some("label") => Kind::Label,
            Some("session_info") => Kind::SessionInfo,
            Some("context_edit") => Kind::ContextEdit,
            Some("usage") => Kind::Usage,
            Some("session") => Kind::Header,
            Some(other) => return (Kind::Other, Some(other.into())),
            None => match scalar_key(s) {
                Some(k) => return (Kind::Odd, Some(k.into())),
                None => Kind::Missing,
            },
        };
        (kind, None)
    }

    /// The `type` string of a kind pi knows ("" for the others: see
    /// [`Entry::type_str`]).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Message => "message",
            Kind::ModelChange => "model_change",
            Kind::ThinkingLevelChange => "thinking_level_change",
            Kind::Compaction => "compaction",
            Kind::BranchSummary => "branch_summary",
            Kind::Custom => "custom",
            Kind::CustomMessage => "custom_message",
            Kind::Label => "label",
            Kind::SessionInfo => "session_info",
            Kind::ContextEdit => "context_edit",
            Kind::Usage => "usage",
            Kind::Header => "session",
            Kind::Other | Kind::Odd | Kind::Missing => "",
        }
    }
}

/// Message roles; `HookMessage` is the legacy (v2) name of `Custom`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
    BashExecution,
    Custom,
    BranchSummary,
    CompactionSummary,
    System,
    HookMessage,
    Other(CompactString),
    #[default]
    Missing,
}

impl Role {
    fn from_scalar(s: &Scalar) -> Role {
        Role::from_name(s.as_str())
    }

    /// The role a `role` field names; `None` when it is not a string.
    pub(crate) fn from_name(name: Option<&str>) -> Role {
        match name {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("toolResult") => Role::ToolResult,
            Some("bashExecution") => Role::BashExecution,
            Some("custom") => Role::Custom,
            Some("branchSummary") => Role::BranchSummary,
            Some("compactionSummary") => Role::CompactionSummary,
            Some("system") => Role::System,
            Some("hookMessage") => Role::HookMessage,
            Some(other) => Role::Other(other.into()),
            None => Role::Missing,
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::ToolResult => "toolResult",
            Role::BashExecution => "bashExecution",
            Role::Custom => "custom",
            Role::BranchSummary => "branchSummary",
            Role::CompactionSummary => "compactionSummary",
            Role::System => "system",
            Role::HookMessage => "hookMessage",
            Role::Other(s) => s,
            Role::Missing => "",
        }
    }
}

/// How an entry names its parent.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Parent {
    Null,
    Missing,
    Id(Id),
    /// A parentId that is neither a string nor null.
    Invalid,
}

/// A short text few entries have (a custom type, a thinking level, a name,
/// a target), boxed so that it costs an entry eight bytes. Reads as a
/// `&str`.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Text(Box<CompactString>);

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0.as_str(), f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_str())
    }
}

impl From<CompactString> for Text {
    fn from(s: CompactString) -> Text {
        Text(Box::new(s))
    }
}

impl From<&str> for Text {
    fn from(s: &str) -> Text {
        Text(Box::new(s.into()))
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.0.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.0.as_str() == *other
    }
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Text {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        CompactString::deserialize(d).map(Text::from)
    }
}

/// Bytes an [`Id`] keeps in place; longer ones are boxed.
const ID_INLINE: usize = 14;

/// An entry id (or any id-like key, see [`crate::session::line::jskey`]) in 16 bytes: the
/// ids pi writes (eight hex digits) and the keys of numbers sit in place,
/// so an entry's id and parent cost no allocation and no pointer. Reads as
/// a `&str`.
#[derive(Clone, PartialEq, Eq)]
pub struct Id(IdRepr);

#[derive(Clone, PartialEq, Eq)]
enum IdRepr {
    /// Up to [`ID_INLINE`] bytes of UTF-8, then zeros.
    Inline(u8, [u8; ID_INLINE]),
    /// Longer (never [`ID_INLINE`] bytes or fewer, so equal ids have equal
    /// forms).
    Heap(Box<CompactString>),
}

impl Id {
    pub fn new(s: &str) -> Id {
        let b = s.as_bytes();
        if b.len() <= ID_INLINE {
            let mut bytes = [0u8; ID_INLINE];
            bytes[..b.len()].copy_from_slice(b);
            Id(IdRepr::Inline(b.len() as u8, bytes))
        } else {
            Id(IdRepr::Heap(Box::new(s.into())))
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            IdRepr::Inline(len, bytes) => {
                let text = &bytes[..usize::from(*len)];
                // SAFETY: an inline id is made only by `Id::new`, from the
                // bytes of a `&str` of exactly this length, and never
                // changed: whole characters of UTF-8. (Checking them again
                // on each look-up was a tenth of writing a tree's JSON.)
                debug_assert!(std::str::from_utf8(text).is_ok());
                unsafe { std::str::from_utf8_unchecked(text) }
            }
            IdRepr::Heap(s) => s,
        }
    }
}

impl serde::Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Id {
    /// Borrowed where the format allows, so an id costs no allocation.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Id;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an id")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Id, E> {
                Ok(Id::new(v))
            }
        }
        d.deserialize_str(Visit)
    }
}

impl std::ops::Deref for Id {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Id {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Id {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl std::hash::Hash for Id {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl std::fmt::Debug for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Id {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Id {
    fn from(s: &str) -> Id {
        Id::new(s)
    }
}

impl From<&String> for Id {
    fn from(s: &String) -> Id {
        Id::new(s)
    }
}

impl From<String> for Id {
    fn from(s: String) -> Id {
        Id::new(&s)
    }
}

impl From<CompactString> for Id {
    fn from(s: CompactString) -> Id {
        Id::new(&s)
    }
}

impl From<&CompactString> for Id {
    fn from(s: &CompactString) -> Id {
        Id::new(s)
    }
}

impl PartialEq<str> for Id {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Id {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<CompactString> for Id {
    fn eq(&self, other: &CompactString) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Id> for str {
    fn eq(&self, other: &Id) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Id> for &str {
    fn eq(&self, other: &Id) -> bool {
        *self == other.as_str()
    }
}

/// Where a line sits in the file, so its body can be read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Span {
    pub offset: u64,
    pub len: u64,
}

/// A tool call inside an assistant message, with the arguments pi's
/// one-line summaries show.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ToolCall {
    pub id: Option<CompactString>,
    pub name: Option<CompactString>,
    pub path: Option<String>,
    pub offset: Option<f64>,
    pub limit: Option<f64>,
    /// A string `command` as pi's tree shows it (see
    /// [`crate::session::line::fields::bash_command`]): its start, and whether it is long.
    #[serde(with = "crate::session::line::fields::short_stored::opt")]
    pub command: Option<Short>,
    pub pattern: Option<String>,
    /// The first 41 characters of the arguments as JSON.
    pub raw_args: String,
}

/// An image block: its type and the size of its base64 data.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ImageRef {
    pub mime: Option<CompactString>,
    pub data_len: usize,
}

/// The content of a message or custom message, reduced.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ContentInfo {
    /// Text blocks joined (or the string content), shortened.
    #[serde(with = "crate::session::line::fields::short_stored")]
    pub text: Short,
    /// The content field was absent or null.
    pub nullish: bool,
    pub tool_calls: Vec<ToolCall>,
    pub images: Vec<ImageRef>,
    pub has_thinking: bool,
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct MessageInfo {
    pub role: Role,
    pub content: ContentInfo,
    pub stop_reason: Option<CompactString>,
    #[serde(with = "crate::session::line::fields::short_stored::opt")]
    pub error: Option<Short>,
    pub tool_call_id: Option<CompactString>,
    pub tool_name: Option<CompactString>,
    pub is_error: bool,
    /// `command` of a bashExecution message.
    #[serde(with = "crate::session::line::fields::short_stored::opt")]
    pub command: Option<Short>,
    /// `summary` of a branchSummary / compactionSummary message.
    #[serde(with = "crate::session::line::fields::short_stored::opt")]
    pub summary: Option<Short>,
    /// `provider` and `model` as [`crate::session::line::jskey`] keys: pi's context echoes
    /// them whatever their type.
    pub provider: Option<CompactString>,
    pub model: Option<CompactString>,
    pub custom_type: Option<CompactString>,
    /// The message's own `timestamp` when it is a number (ms).
    pub time_ms: Option<f64>,
    /// The entry's usage (see [`Entry::usage`]).
    pub usage: Option<UsageTotals>,
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct CompactionInfo {
    #[serde(with = "crate::session::line::fields::short_stored")]
    pub summary: Short,
    pub tokens_before: Option<f64>,
    pub first_kept: Option<CompactString>,
    pub first_kept_index: Option<f64>,
    pub retained_tail: bool,
    pub system_message: bool,
    /// The entry's usage (see [`Entry::usage`]).
    pub usage: Option<UsageTotals>,
}

/// The per-type part of an entry.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub enum Info {
    #[default]
    None,
    Message(Box<MessageInfo>),
    /// Bulky variants are boxed: most entries are messages, and an entry
    /// is as large as its largest variant.
    ModelChange(Box<ModelChangeInfo>),
    /// The level as a [`crate::session::line::jskey`] key; `None` when absent.
    ThinkingLevel(Option<Text>),
    Compaction(Box<CompactionInfo>),
    BranchSummary(Box<BranchSummaryInfo>),
    Custom {
        custom_type: Option<Text>,
    },
    CustomMessage(Box<CustomMessageInfo>),
    Label(Box<LabelChange>),
    /// The name when it is a string, as a [`crate::session::line::jskey`] key (it may
    /// hold lone surrogates); `None` clears.
    SessionInfo {
        name: Option<Text>,
    },
    ContextEdit {
        target: Option<Text>,
        omit: bool,
    },
    Usage(Box<UsageInfo>),
    /// The `type` of an [`Kind::Other`] entry as written, or of a
    /// [`Kind::Odd`] one as its [`crate::session::line::jskey`] key.
    Type(Text),
}

impl Info {
    /// Keeps an entry's usage where pi writes one (a message's, a usage,
    /// compaction or branch summary entry's; the boxed parts of the other
    /// types carry one too): the entry then needs no field of its own.
    /// Other types drop it.
    fn set_usage(&mut self, usage: Option<UsageTotals>, time_ms: Option<i64>) {
        match self {
            Info::Message(m) => m.usage = usage,
            Info::ModelChange(c) => c.usage = usage,
            Info::Compaction(c) => c.usage = usage,
            Info::BranchSummary(b) => b.usage = usage,
            Info::CustomMessage(c) => c.usage = usage,
            Info::Label(l) => l.set_usage(usage, time_ms),
            Info::Usage(u) => u.usage = usage,
            Info::None
            | Info::ThinkingLevel(_)
            | Info::Custom { .. }
            | Info::SessionInfo { .. }
            | Info::ContextEdit { .. }
            | Info::Type(_) => {}
        }
    }

    fn usage(&self) -> Option<&UsageTotals> {
        match self {
            Info::Message(m) => m.usage.as_ref(),
            Info::ModelChange(c) => c.usage.as_ref(),
            Info::Compaction(c) => c.usage.as_ref(),
            Info::BranchSummary(b) => b.usage.as_ref(),
            Info::CustomMessage(c) => c.usage.as_ref(),
            Info::Label(l) => l.usage(),
            Info::Usage(u) => u.usage.as_ref(),
            _ => None,
        }
    }
}

/// A model as entries name it (the one selected on a path): `provider` and
/// `modelId` as [`crate::session::line::jskey`] keys (pi echoes them whatever
/// their type).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ModelRef {
    pub provider: Option<CompactString>,
    pub model_id: Option<CompactString>,
}

/// A `model_change`: `provider` and `modelId` as [`crate::session::line::jskey`] keys (pi
/// echoes them whatever their type); `None` when absent.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct ModelChangeInfo {
    pub provider: Option<CompactString>,
    pub model_id: Option<CompactString>,
    /// The entry's usage (see [`Entry::usage`]).
    pub usage: Option<UsageTotals>,
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct BranchSummaryInfo {
    pub from_id: Option<CompactString>,
    #[serde(with = "crate::session::line::fields::short_stored")]
    pub summary: Short,
    /// The entry's usage (see [`Entry::usage`]).
    pub usage: Option<UsageTotals>,
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct CustomMessageInfo {
    pub custom_type: Option<CompactString>,
    pub content: ContentInfo,
    pub display: Option<bool>,
    /// The entry's usage (see [`Entry::usage`]).
    pub usage: Option<UsageTotals>,
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct LabelChange {
    /// The target's id (in place: a label entry costs no allocation for
    /// it), as a [`crate::session::line::jskey`] key.
    pub target: Option<Id>,
    /// The label when it is truthy (pi keeps any truthy value), as a
    /// [`crate::session::line::jskey`] key; `None` clears. A short one is
    /// kept in place, as an id is.
    pub label: Option<Id>,
    /// What few label entries have: a timestamp other than the one the
    /// entry's time gives back (see [`LabelChange::timestamp`]), or a
    /// usage. `None` for what pi writes: forty bytes a label entry in all,
    /// where the timestamp's text in place made seventy-two.
    rare: Option<Box<LabelRare>>,
}

/// See [`LabelChange::rare`].
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
struct LabelRare {
    timestamp: Option<CompactString>,
    usage: Option<UsageTotals>,
}

impl LabelChange {
    /// A label entry's change, its timestamp as written (`None`: not a
    /// string) and the entry's time as read from it (`time_ms`).
    pub fn new(
        target: Option<Id>,
        label: Option<Id>,
        timestamp: Option<&str>,
        time_ms: Option<i64>,
    ) -> LabelChange {
        // pi writes `toISOString()`: that text is made again from the time.
        let given_back =
            |t: &str| time_ms.is_some_and(|ms| crate::jstext::date::format_iso(ms) == t);
        let rare = match timestamp {
            Some(t) if given_back(t) => None,
            t => Some(Box::new(LabelRare {
                timestamp: t.map(CompactString::from),
                usage: None,
            })),
        };
        LabelChange {
            target,
            label,
            rare,
        }
    }

    /// The label entry's timestamp as written (pi's tree shows it), given
    /// the entry's time (see [`Entry::time_ms`]).
    pub fn timestamp(&self, time_ms: Option<i64>) -> Option<CompactString> {
        match &self.rare {
            Some(rare) => rare.timestamp.clone(),
            None => time_ms.map(|ms| crate::jstext::date::format_iso(ms).into()),
        }
    }

    fn usage(&self) -> Option<&UsageTotals> {
        self.rare.as_ref().and_then(|r| r.usage.as_ref())
    }

    fn set_usage(&mut self, usage: Option<UsageTotals>, time_ms: Option<i64>) {
        match (&mut self.rare, usage) {
            (None, None) => {}
            (Some(rare), usage) => rare.usage = usage,
            (None, usage) => {
                self.rare = Some(Box::new(LabelRare {
                    timestamp: self.timestamp(time_ms),
                    usage,
                }))
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct UsageInfo {
    pub kind: Option<CompactString>,
    pub provider: Option<CompactString>,
    pub model: Option<CompactString>,
    /// The entry's usage (see [`Entry::usage`]).
    pub usage: Option<UsageTotals>,
}

/// One parsed line of a session file (not the header), in 72 bytes: ten
/// million of them are a session of 2 GB. The type, two flags and the
/// time share one word, and the line's length takes four bytes (a reader
/// refuses a longer line: see [`Entry::LONGEST`]).
#[derive(Clone, PartialEq)]
pub struct Entry {
    pub id: Option<Id>,
    pub parent: Parent,
    /// The per-type part, which also keeps the usage (see
    /// [`Entry::usage`]).
    pub info: Info,
    /// The time (`new Date(timestamp).getTime()`) above [`Entry::TIME_SHIFT`]
    /// bits, the kind's [`Kind::code`] and the flags [`Entry::LOSSY`] and
    /// [`Entry::ECHO`] below. (The timestamp as written is kept only where
    /// it is shown: a label's.)
    marks: i64,
    /// Where the line starts in the file, and its length.
    offset: u64,
    len: u32,
    /// 1-based physical line number.
    pub line: u32,
}

/// An entry's fields one by one, as a stored index writes and reads an
/// entry (serde's form, and the fixed form of
/// [`crate::session::entry_bytes`]): the form it had before its marks were
/// packed. Written from borrowed parts, read into owned ones (see
/// [`Entry::try_from`]).
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename = "Entry")]
pub(crate) struct EntryFields<I, P, N> {
    pub id: I,
    pub parent: P,
    pub kind: Kind,
    /// [`NAN_MS`] for NaN.
    pub time: i64,
    pub line: u32,
    pub span: Span,
    pub lossy: bool,
    pub js_echo: bool,
    pub info: N,
}

impl Entry {
    fn fields(&self) -> EntryFields<&Option<Id>, &Parent, &Info> {
        EntryFields {
            id: &self.id,
            parent: &self.parent,
            kind: self.kind(),
            time: self.time_ms().unwrap_or(NAN_MS),
            line: self.line,
            span: self.span(),
            lossy: self.lossy(),
            js_echo: self.js_echo(),
            info: &self.info,
        }
    }
}

impl serde::Serialize for Entry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.fields().serialize(s)
    }
}

impl TryFrom<EntryFields<Option<Id>, Parent, Info>> for Entry {
    type Error = &'static str;

    /// Refuses what no reader makes: a line beyond [`Entry::LONGEST`], a
    /// time beyond any date.
    fn try_from(f: EntryFields<Option<Id>, Parent, Info>) -> Result<Entry, &'static str> {
        if f.span.len > Entry::LONGEST {
            return Err("a line of 4 GiB or more");
        }
        let time = (f.time != NAN_MS).then_some(f.time);
        if time.is_some_and(|t| !is_date_ms(t)) {
            return Err("a time beyond any date");
        }
        let mut e = Entry::new(f.kind, f.id, f.parent, f.info, f.line, f.span);
        e.set_time_ms(time);
        e.set_lossy(f.lossy);
        e.set_js_echo(f.js_echo);
        Ok(e)
    }
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        let f = EntryFields::<Option<Id>, Parent, Info>::deserialize(d)?;
        Entry::try_from(f).map_err(serde::de::Error::custom)
    }
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry")
            .field("id", &self.id)
            .field("parent", &self.parent)
            .field("kind", &self.kind())
            .field("time", &self.time_ms())
            .field("line", &self.line)
            .field("span", &self.span())
            .field("lossy", &self.lossy())
            .field("js_echo", &self.js_echo())
            .field("info", &self.info)
            .finish()
    }
}

/// The time of an entry whose time is NaN, as [`Entry::time_ms`]'s callers
/// in the crate write it (no valid time is near it: JavaScript's dates end
/// at ±8.64e15 ms).
pub(crate) const NAN_MS: i64 = i64::MIN;

/// A time a JavaScript date can have (not NaN).
fn is_date_ms(t: i64) -> bool {
    use crate::jstext::date::MAX_TIME_MS;
    (-MAX_TIME_MS..=MAX_TIME_MS).contains(&t)
}

impl Entry {
    /// The longest line an entry can be read from: 4 GiB less a byte. pi
    /// cannot read a line an eighth as long (its runtime's strings end
    /// before), and a reader refuses a longer one as damage.
    pub const LONGEST: u64 = u32::MAX as u64;
    const KIND: i64 = 0x1f;
    /// The line held bytes that are not UTF-8 (decoded as U+FFFD).
    const LOSSY: i64 = 1 << 5;
    /// The line holds a number beyond f64 (JavaScript's ±Infinity): values
    /// echoed from it are written as `JSON.stringify` writes them.
    const ECHO: i64 = 1 << 6;
    const TIME_SHIFT: u32 = 10;
    /// The time part of a NaN time: the least the 54 bits hold, below any
    /// date (2^53 > 8.64e15).
    const NAN_TIME: i64 = i64::MIN >> Entry::TIME_SHIFT;

    /// An entry of `kind` on line `line`, lying at `span` (a length beyond
    /// [`Entry::LONGEST`] is kept as that: see there), time NaN, no flags.
    pub fn new(
        kind: Kind,
        id: Option<Id>,
        parent: Parent,
        info: Info,
        line: u32,
        span: Span,
    ) -> Entry {
        Entry {
            id,
            parent,
            info,
            marks: (Entry::NAN_TIME << Entry::TIME_SHIFT) | i64::from(kind.code()),
            offset: span.offset,
            len: u32::try_from(span.len).unwrap_or(u32::MAX),
            line,
        }
    }

    pub fn kind(&self) -> Kind {
        // Only `new` and `set_kind` write these bits, each from a kind.
        Kind::from_code((self.marks & Entry::KIND) as u8).unwrap_or(Kind::Missing)
    }

    pub fn set_kind(&mut self, kind: Kind) {
        self.marks = (self.marks & !Entry::KIND) | i64::from(kind.code());
    }

    /// Where the line lies in the file.
    pub fn span(&self) -> Span {
        Span {
            offset: self.offset,
            len: u64::from(self.len),
        }
    }

    /// The line held bytes that are not UTF-8 (decoded as U+FFFD).
    pub fn lossy(&self) -> bool {
        self.marks & Entry::LOSSY != 0
    }

    pub fn set_lossy(&mut self, lossy: bool) {
        self.set_flag(Entry::LOSSY, lossy);
    }

    /// The line holds a number beyond f64 (JavaScript's ±Infinity): values
    /// echoed from it are written as `JSON.stringify` writes them.
    pub fn js_echo(&self) -> bool {
        self.marks & Entry::ECHO != 0
    }

    pub fn set_js_echo(&mut self, echo: bool) {
        self.set_flag(Entry::ECHO, echo);
    }

    fn set_flag(&mut self, flag: i64, on: bool) {
        self.marks = if on {
            self.marks | flag
        } else {
            self.marks & !flag
        };
    }

    /// `new Date(timestamp).getTime()`; `None` is NaN.
    pub fn time_ms(&self) -> Option<i64> {
        let t = self.marks >> Entry::TIME_SHIFT;
        (t != Entry::NAN_TIME).then_some(t)
    }

    /// Sets the time; one beyond JavaScript's dates (±8.64e15 ms) is NaN,
    /// as a `Date` clips it.
    pub(crate) fn set_time_ms(&mut self, ms: Option<i64>) {
        let t = ms.filter(|t| is_date_ms(*t)).unwrap_or(Entry::NAN_TIME);
        let low = (1 << Entry::TIME_SHIFT) - 1;
        self.marks = (t << Entry::TIME_SHIFT) | (self.marks & low);
    }

    pub fn id_str(&self) -> Option<&str> {
        self.id.as_deref()
    }

    /// The entry's usage totals (read at full depth only): a message's own,
    /// or a usage, compaction or branch summary entry's.
    pub fn usage(&self) -> Option<&UsageTotals> {
        self.info.usage()
    }

    /// The `type` as pi's tree shows it: the text of a type pi does not
    /// know, the key of one that is not a string.
    pub fn type_str(&self) -> &str {
        match (self.kind(), &self.info) {
            (Kind::Other | Kind::Odd, Info::Type(t)) => t,
            (kind, _) => kind.as_str(),
        }
    }

    pub fn parent_id(&self) -> Option<&str> {
        match &self.parent {
            Parent::Id(p) => Some(p.as_str()),
            _ => None,
        }
    }

    pub fn message(&self) -> Option<&MessageInfo> {
        match &self.info {
            Info::Message(m) => Some(m),
            _ => None,
        }
    }

    pub fn role(&self) -> Option<&Role> {
        self.message().map(|m| &m.role)
    }

    pub fn is_role(&self, role: Role) -> bool {
        self.role() == Some(&role)
    }
}

// ---------------------------------------------------------------------------
// The index pass: serde structs that read only what the index keeps.

/// A content block; `T` reads its text (a [`Cut`]).
#[derive(Deserialize, Default)]
#[serde(default, bound(deserialize = "'de: 'a, T: Deserialize<'de> + Default"))]
struct BlockFields<'a, T> {
    #[serde(rename = "type")]
    kind: Scalar,
    text: T,
    id: Scalar,
    name: Scalar,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "mimeType")]
    mime_type: Scalar,
    data: StrLen,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ArgFields {
    path: Scalar,
    file_path: Scalar,
    offset: Scalar,
    limit: Scalar,
    command: Whole,
    pattern: Scalar,
}

/// Message content: a string, or a list of blocks; its text cut at `N`
/// characters (a message's, whose start pi's tree shows) or read whole (a
/// custom message's, which pi's tree shows whole).
#[derive(Default)]
pub(crate) struct ContentFields<const N: usize>(ContentInfo);

impl<'de, const N: usize> crate::session::line::fields::Lenient<'de> for ContentFields<N> {
    fn from_str(v: &str) -> Self {
        ContentFields(ContentInfo {
            text: Short::cut(v, N),
            ..ContentInfo::default()
        })
    }
    fn from_null() -> Self {
        ContentFields(ContentInfo {
            nullish: true,
            ..ContentInfo::default()
        })
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        let mut info = ContentInfo::default();
        while let Some(Obj(block)) = a.next_element::<Obj<BlockFields<'de, Cut<N>>>>()? {
            let Some(block) = block else { continue };
            match BlockKind::of(block.kind.as_str()) {
                BlockKind::Text => info.text.push_cut(&block.text.0, N),
                BlockKind::Thinking => info.has_thinking = true,
                BlockKind::Image => info.images.push(ImageRef {
                    mime: block.mime_type.into_compact(),
                    data_len: block.data.0,
                }),
                BlockKind::ToolCall => info.tool_calls.push(tool_call(block)),
                BlockKind::Other => {}
            }
        }
        Ok(ContentFields(info))
    }
}

impl<'de, const N: usize> Deserialize<'de> for ContentFields<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::session::line::fields::deserialize_lenient(d)
    }
}

fn tool_call<T>(block: BlockFields<'_, T>) -> ToolCall {
    let raw = block.arguments.map_or("", RawValue::get);
    let args: ArgFields = serde_json::from_str(raw).unwrap_or_default();
    let path = match (args.path, args.file_path) {
        (Scalar::Str(p), _) if !p.is_empty() => Some(p.to_string()),
        (_, Scalar::Str(p)) => Some(p.to_string()),
        _ => None,
    };
    ToolCall {
        id: block.id.into_compact(),
        name: block.name.into_compact(),
        path,
        offset: args.offset.as_f64(),
        limit: args.limit.as_f64(),
        command: args
            .command
            .0
            .is_string
            .then(|| crate::session::line::fields::bash_command(&args.command.0.text)),
        pattern: args.pattern.as_str().map(str::to_string),
        raw_args: raw.chars().take(41).collect(),
    }
}

/// How much of a line the index pass reads.
pub(crate) trait Depth:
    Reading<Content = ContentFields<SHORT_TEXT_CHARS>, Body = ContentFields<WHOLE>>
{
    const FULL: bool;
}

/// Everything (see [`crate::session::Detail::Full`]).
#[derive(Default)]
pub(crate) struct Full;

/// Structure only (see [`crate::session::Detail::Structure`]).
#[derive(Default)]
pub(crate) struct Structure;

impl Depth for Full {
    const FULL: bool = true;
}

impl Depth for Structure {
    const FULL: bool = false;
}

macro_rules! index_reading {
    ($($ty:ident),*) => {$(
        /// At [`Structure`] depth only what the tree and the context need
        /// (content, texts and usage are skipped unread).
        impl Reading for $ty {
            const DETAIL: bool = <$ty as Depth>::FULL;
            const USAGE: bool = <$ty as Depth>::FULL;
            type Content = ContentFields<SHORT_TEXT_CHARS>;
            type Body = ContentFields<WHOLE>;
            fn content<'de, A: MapAccess<'de>>(
                a: &mut A,
                role: Option<&str>,
            ) -> Result<ContentFields<SHORT_TEXT_CHARS>, A::Error> {
                index_content::<$ty, A>(a, role)
            }
        }
    )*};
}
index_reading!(Full, Structure);

fn index_content<'de, M: Depth, A: MapAccess<'de>>(
    a: &mut A,
    role: Option<&str>,
) -> Result<ContentFields<SHORT_TEXT_CHARS>, A::Error> {
    // Tool output is most of a session's bytes and no summary needs it:
    // when the role came first, only note a null.
    if !M::FULL || role == Some("toolResult") {
        Ok(ContentFields(ContentInfo {
            nullish: a.next_value::<IsNull>()?.0,
            ..ContentInfo::default()
        }))
    } else {
        a.next_value()
    }
}

/// Whether a value is `null`, read without decoding it.
#[derive(Default)]
struct IsNull(bool);

impl crate::session::line::fields::Lenient<'_> for IsNull {
    fn from_null() -> Self {
        IsNull(true)
    }
}

impl<'de> Deserialize<'de> for IsNull {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        crate::session::line::fields::deserialize_lenient(d)
    }
}

/// What became of one non-blank line.
pub(crate) enum LineParse {
    Entry(Entry),
    /// A message entry read at outline depth: its info is `Info::None`, and
    /// what the context needs of it is beside it.
    Outlined(Entry, Brief),
    /// A `session` header line, also as an entry (a second header is one).
    Header(Box<Header>, Entry),
    /// Nothing but white space.
    Blank,
    /// Valid JSON that pi skips (`null`, `0`, `false`, `""`).
    Falsy,
    /// Valid JSON that is truthy but not an object (`1`, `true`, `[]`):
    /// pi keeps it as an entry without id, parent or type.
    NotObject(Entry),
    Invalid(String),
}

/// What the context needs of a message: kept for each message at outline
/// depth, where messages carry no [`MessageInfo`].
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Brief {
    pub(crate) role: Role,
    pub(crate) nullish: bool,
    pub(crate) provider: Option<CompactString>,
    pub(crate) model: Option<CompactString>,
}

impl Brief {
    pub(crate) fn of(m: MessageInfo) -> Brief {
        Brief {
            role: m.role,
            nullish: m.content.nullish,
            provider: m.provider,
            model: m.model,
        }
    }
}

/// A line by serde alone: any line JavaScript's `JSON.parse`
/// accepts, read as pi reads it. serde_json refuses some (lone surrogate
/// escapes, numbers beyond f64, duplicate keys in a struct) and reads ids of
/// other types without their value; those lines go through [`JsValue`].
pub(crate) fn parse_line_serde<M: Depth>(text: &str, meta: LineMeta) -> LineParse {
    // serde would also read a struct from an array: objects only.
    let object = text.trim_start().starts_with('{');
    let first = if object {
        serde_json::from_str::<LineFields<M>>(text).map_err(|e| e.to_string())
    } else {
        Err(String::new())
    };
    let span = Span {
        offset: meta.offset,
        len: meta.len,
    };
    let exact = match &first {
        Ok(f) => f.has_odd_keys() || crate::session::line::jsvalue::may_differ(text.as_bytes()),
        Err(_) => true,
    };
    let value = if exact {
        match JsValue::parse(text.trim_matches(is_js_json_space)) {
            Ok(v) => Some(v),
            Err(e) => {
                // serde words the error with line and column.
                let serde = match first {
                    Err(serde) if !serde.is_empty() => Some(serde),
                    _ => serde_json::from_str::<serde::de::IgnoredAny>(text)
                        .err()
                        .map(|e| e.to_string()),
                };
                return LineParse::Invalid(serde.unwrap_or_else(|| e.to_string()));
            }
        }
    } else {
        None
    };
    let fields = match (first, &value) {
        (Ok(fields), _) => fields,
        (Err(_), Some(v)) if v.is_object() => match v.read_serde::<LineFields<M>>() {
            Ok(fields) => fields,
            Err(e) => return LineParse::Invalid(e.to_string()),
        },
        (Err(_), Some(v)) if v.is_truthy() => {
            let head = Head {
                id: Scalar::Missing,
                parent_id: Scalar::Missing,
                timestamp: Scalar::Missing,
            };
            let e = head.into_entry(
                Kind::Missing,
                None,
                Info::None,
                meta.number,
                span,
                meta.lossy,
            );
            return LineParse::NotObject(e);
        }
        (Err(_), _) => return LineParse::Falsy,
    };
    let header = fields.is_header().then(|| {
        let mut h = Header::from_fields(&fields, meta);
        if let Some(v) = &value {
            h.version = v.header_version();
        }
        Box::new(h)
    });
    let mut e = fields.into_entry(meta.number, span, meta.lossy);
    if let Some(v) = &value {
        exact_keys(&mut e, v);
    }
    match header {
        Some(h) => LineParse::Header(h, e),
        None => LineParse::Entry(e),
    }
}

/// The white space `JSON.parse` allows around a value.
pub(crate) fn is_js_json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Sets the entry's ids (and the keys it links to) from the value itself:
/// exact where serde saw a lone surrogate, a number beyond f64, an object.
fn exact_keys(e: &mut Entry, v: &JsValue) {
    // Every object is a key of its own: its line's byte offset tells one
    // from another. The line number cannot: the parallel scan parses lines
    // before the sink numbers them.
    let at = e.span().offset;
    let key = |name: &str, tag: char| {
        v.member_key(name, &format!("{at}{tag}:"))
            .map(|k| k.encode())
    };
    e.id = key("id", 'i').map(Id::from);
    e.parent = match key("parentId", 'p') {
        None => Parent::Missing,
        Some(k) if k == crate::session::line::jskey::null() => Parent::Null,
        Some(k) => Parent::Id(k.into()),
    };
    // `new Date(array)` parses the array's joined text.
    if let Some(text) = v.member_array_text("timestamp") {
        e.set_time_ms(jsdate::parse_ms(&text));
    }
    // Echoed values: exact where a lone surrogate or an object hides in them.
    let echo = |path: &[&str]| v.path_key(path, &format!("{at}e:")).map(|k| k.encode());
    if let Some(k) = v.member_key("type", &format!("{at}y:")) {
        if !matches!(&k, crate::session::line::jskey::Key::Str(u) if String::from_utf16(u).is_ok())
        {
            e.set_kind(Kind::Odd);
            e.info = Info::Type(k.encode().into());
        }
    }
    match &mut e.info {
        Info::Label(l) => {
            l.target = key("targetId", 't').map(|k| Id::new(&k));
            l.label = echo(&["label"])
                .filter(|l| crate::session::line::jskey::is_truthy(l))
                .map(|l| Id::new(&l));
        }
        Info::ContextEdit { target, .. } => *target = key("targetId", 't').map(Text::from),
        Info::Compaction(c) => c.first_kept = key("firstKeptEntryId", 'k'),
        Info::ThinkingLevel(level) => *level = echo(&["thinkingLevel"]).map(Text::from),
        Info::ModelChange(c) => {
            c.provider = echo(&["provider"]);
            c.model_id = echo(&["modelId"]);
        }
        Info::Message(m) => {
            m.provider = echo(&["message", "provider"]);
            m.model = echo(&["message", "model"]);
        }
        Info::SessionInfo { name } => {
            *name = match v.member_key("name", "") {
                Some(k @ crate::session::line::jskey::Key::Str(_)) => Some(k.encode().into()),
                _ => None,
            }
        }
        _ => {}
    }
    e.set_js_echo(v.has_non_finite());
}

impl<M: Depth> LineFields<M> {
    pub(crate) fn is_header(&self) -> bool {
        self.kind.as_str() == Some("session") && matches!(self.id, Scalar::Str(_))
    }

    /// Whether an id-like or echoed field is an object or array, whose key
    /// the value itself must give.
    fn has_odd_keys(&self) -> bool {
        let message = self.message.object();
        [
            &self.id,
            &self.parent_id,
            &self.target_id,
            &self.first_kept_entry_id,
            &self.version,
            &self.kind,
            &self.thinking_level,
            &self.provider,
            &self.model_id,
            &self.label,
            &self.timestamp,
        ]
        .into_iter()
        .chain(message.map(|m| &m.provider))
        .chain(message.map(|m| &m.model))
        .any(|s| matches!(s, Scalar::Array | Scalar::Object))
    }

    pub(crate) fn header_id(&self) -> Option<&str> {
        self.id.as_str()
    }

    pub(crate) fn timestamp_str(&self) -> Option<&str> {
        self.timestamp.as_str()
    }

    /// Turns the fields into an entry at `line` / `span`.
    pub(crate) fn into_entry(self, line: u32, span: Span, lossy: bool) -> Entry {
        let (kind, type_text) = Kind::from_scalar(&self.kind);
        let mut usage = self.usage.0.as_ref().map(|u| u.totals());
        let info = match kind {
            Kind::Message => match self.message {
                MessageValue::Object(m) => {
                    let (info, message_usage) = message_info(*m);
                    usage = message_usage;
                    info
                }
                _ => Info::Message(Box::default()),
            },
            Kind::ModelChange => Info::ModelChange(Box::new(ModelChangeInfo {
                provider: scalar_key(&self.provider),
                model_id: scalar_key(&self.model_id),
                usage: None,
            })),
            Kind::ThinkingLevelChange => {
                Info::ThinkingLevel(scalar_key(&self.thinking_level).map(Text::from))
            }
            Kind::Compaction => Info::Compaction(Box::new(CompactionInfo {
                summary: self.summary.0,
                tokens_before: self.tokens_before.as_f64(),
                first_kept: scalar_key(&self.first_kept_entry_id),
                first_kept_index: self.first_kept_entry_index.as_f64(),
                retained_tail: self.retained_tail == Scalar::Array,
                system_message: self.system_message.is_truthy(),
                usage: None,
            })),
            Kind::BranchSummary => Info::BranchSummary(Box::new(BranchSummaryInfo {
                from_id: self.from_id.into_compact(),
                summary: self.summary.0,
                usage: None,
            })),
            Kind::Custom => Info::Custom {
                custom_type: self.custom_type.into_compact().map(Text::from),
            },
            Kind::CustomMessage => Info::CustomMessage(Box::new(CustomMessageInfo {
                custom_type: self.custom_type.into_compact(),
                content: self.content.map(|c| c.0).unwrap_or(ContentInfo {
                    nullish: true,
                    ..ContentInfo::default()
                }),
                display: match self.display {
                    Scalar::Bool(b) => Some(b),
                    _ => None,
                },
                usage: None,
            })),
            Kind::Label => Info::Label(Box::new(LabelChange::new(
                scalar_key(&self.target_id).map(|k| Id::new(&k)),
                self.label
                    .is_truthy()
                    .then(|| scalar_key(&self.label))
                    .flatten()
                    .map(|k| Id::new(&k)),
                self.timestamp.as_str(),
                scalar_ms(&self.timestamp),
            ))),
            Kind::SessionInfo => Info::SessionInfo {
                name: self
                    .name
                    .as_str()
                    .map(|n| crate::session::line::jskey::of_str(n).into()),
            },
            Kind::ContextEdit => Info::ContextEdit {
                target: scalar_key(&self.target_id).map(Text::from),
                omit: self.replacement == Scalar::Null,
            },
            Kind::Usage => Info::Usage(Box::new(UsageInfo {
                kind: self.usage_kind.into_compact(),
                provider: self.provider.into_compact(),
                model: self.model.into_compact(),
                usage: None,
            })),
            _ => type_text.map_or(Info::None, Info::Type),
        };
        let head = Head {
            id: self.id,
            parent_id: self.parent_id,
            timestamp: self.timestamp,
        };
        head.into_entry(kind, usage, info, line, span, lossy)
    }
}

/// The fields every entry type shares.
pub(crate) struct Head {
    pub(crate) id: Scalar,
    pub(crate) parent_id: Scalar,
    pub(crate) timestamp: Scalar,
}

impl Head {
    pub(crate) fn into_entry(
        self,
        kind: Kind,
        usage: Option<UsageTotals>,
        info: Info,
        line: u32,
        span: Span,
        lossy: bool,
    ) -> Entry {
        let time = scalar_ms(&self.timestamp);
        let parent = match &self.parent_id {
            Scalar::Null => Parent::Null,
            Scalar::Missing => Parent::Missing,
            other => scalar_key(other).map_or(Parent::Invalid, |k| Parent::Id(k.into())),
        };
        let mut info = info;
        info.set_usage(usage, time);
        let id = scalar_key(&self.id).map(Id::from);
        let mut e = Entry::new(kind, id, parent, info, line, span);
        e.set_time_ms(time);
        e.set_lossy(lossy);
        e
    }
}

/// A message entry's info, and the usage it adds.
fn message_info<M: Depth>(m: MessageFields<M>) -> (Info, Option<UsageTotals>) {
    let usage = m.usage.0.as_ref().map(|u| u.totals());
    let content = if m.has_content {
        m.content.0
    } else {
        ContentInfo {
            nullish: true,
            ..ContentInfo::default()
        }
    };
    let info = Info::Message(Box::new(MessageInfo {
        role: Role::from_scalar(&m.role),
        content,
        stop_reason: m.stop_reason.into_compact(),
        error: m.error_message.map(|e| e.0).filter(|e| e.is_string),
        tool_call_id: m.tool_call_id.into_compact(),
        tool_name: m.tool_name.into_compact(),
        is_error: m.is_error == Scalar::Bool(true),
        command: m.command.map(|c| c.0).filter(|c| c.is_string),
        summary: m.summary.filter(|s| s.is_string),
        provider: scalar_key(&m.provider),
        model: scalar_key(&m.model),
        custom_type: m.custom_type.into_compact(),
        time_ms: m.timestamp.as_f64(),
        usage,
    }));
    (info, usage)
}

/// The `Map` key pi files an id-like field under (see [`crate::session::line::jskey`]);
/// `None` when the field is absent (`undefined`). Objects and arrays are
/// made exact from the line by [`exact_keys`].
pub(crate) fn scalar_key(s: &Scalar) -> Option<CompactString> {
    use crate::session::line::jskey;
    match s {
        Scalar::Missing => None,
        Scalar::Null => Some(jskey::null()),
        Scalar::Str(s) => Some(jskey::of_str(s)),
        Scalar::Num(n) => Some(jskey::of_num(*n)),
        Scalar::Bool(b) => Some(jskey::of_bool(*b)),
        Scalar::Array | Scalar::Object => Some(jskey::of_object("?", "{}")),
    }
}

/// `new Date(value).getTime()` for a scalar field.
pub(crate) fn scalar_ms(s: &Scalar) -> Option<i64> {
    match s {
        Scalar::Str(t) => jsdate::parse_ms(t),
        Scalar::Num(n) if n.is_finite() && n.abs() <= 8.64e15 => Some(n.trunc() as i64),
        Scalar::Null => Some(0),
        Scalar::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// The session header (first line).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    /// The header line as written.
    pub raw: String,
    pub id: String,
    /// The version written in the file (1 when absent).
    pub version: u32,
    pub cwd: Option<String>,
    pub timestamp: Option<CompactString>,
    pub parent_session: Option<String>,
    pub line: u32,
    pub span: Span,
}

impl Header {
    pub(crate) fn from_fields<M: Depth>(f: &LineFields<M>, meta: LineMeta) -> Header {
        Header {
            raw: String::new(),
            id: f.header_id().unwrap_or_default().to_string(),
            // `version ?? 1`, compared with 2 and 3 as JavaScript compares;
            // arrays are read from the value itself (see `JsValue`).
            version: crate::session::line::jsvalue::version_from(match &f.version {
                Scalar::Num(v) => *v,
                Scalar::Str(s) => crate::session::line::jsvalue::string_to_number(s),
                Scalar::Bool(b) => f64::from(u8::from(*b)),
                Scalar::Missing | Scalar::Null => 1.0,
                Scalar::Array | Scalar::Object => f64::NAN,
            }),
            cwd: f.cwd.as_str().map(str::to_string),
            timestamp: f.timestamp_str().map(CompactString::from),
            parent_session: f.parent_session.as_str().map(str::to_string),
            line: meta.number,
            span: Span {
                offset: meta.offset,
                len: meta.len,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What an entry costs in place.
    #[test]
    fn entries_are_small() {
        use std::mem::size_of;
        assert_eq!(size_of::<Id>(), 16);
        assert_eq!(size_of::<Option<Id>>(), 16);
        assert_eq!(size_of::<Parent>(), 16);
        assert_eq!(size_of::<Info>(), 16);
        assert_eq!(size_of::<Kind>(), 1);
        assert_eq!(size_of::<Entry>(), 72);
        assert_eq!(size_of::<LabelChange>(), 40);
    }

    /// The kind, both flags and the time share a word: each reads back as
    /// set, whatever the others are and in whichever order they were set;
    /// a time beyond any date reads as NaN, as a `Date` clips it. The
    /// line's place reads back to the longest line an entry keeps.
    #[test]
    fn an_entry_keeps_its_kind_flags_and_time_apart() {
        use crate::jstext::date::MAX_TIME_MS;
        let times = [
            (None, None),
            (Some(0), Some(0)),
            (Some(-1), Some(-1)),
            (Some(1_733_234_401_000), Some(1_733_234_401_000)),
            (Some(MAX_TIME_MS), Some(MAX_TIME_MS)),
            (Some(-MAX_TIME_MS), Some(-MAX_TIME_MS)),
            (Some(MAX_TIME_MS + 1), None),
            (Some(-MAX_TIME_MS - 1), None),
            (Some(NAN_MS), None),
            (Some(i64::MAX), None),
        ];
        for kind in Kind::ALL {
            for (time, read) in times {
                for flags in 0..4 {
                    let (lossy, echo) = (flags & 1 != 0, flags & 2 != 0);
                    let span = Span {
                        offset: u64::MAX - 1,
                        len: Entry::LONGEST,
                    };
                    let mut e = Entry::new(Kind::Odd, None, Parent::Null, Info::None, 9, span);
                    // Flags first, then the time, then the kind; and the
                    // other way round on a second entry.
                    e.set_lossy(lossy);
                    e.set_js_echo(echo);
                    e.set_time_ms(time);
                    e.set_kind(kind);
                    let mut f = Entry::new(kind, None, Parent::Null, Info::None, 9, span);
                    f.set_time_ms(Some(5));
                    f.set_time_ms(time);
                    f.set_js_echo(!echo);
                    f.set_js_echo(echo);
                    f.set_lossy(lossy);
                    for e in [&e, &f] {
                        assert_eq!(e.kind(), kind);
                        assert_eq!(e.time_ms(), read, "{time:?}");
                        assert_eq!((e.lossy(), e.js_echo()), (lossy, echo));
                        assert_eq!(e.span(), span);
                        assert_eq!(e.line, 9);
                    }
                    assert_eq!(e, f);
                }
            }
        }
    }

    /// Serde writes an entry's fields as they were before they were
    /// packed, and reads them back; it refuses what no reader makes: a
    /// line of 4 GiB or more, a time beyond any date.
    #[test]
    fn serde_refuses_an_entry_no_reader_makes() {
        let mut e = entry(
            r#"{"type":"label","id":"b","parentId":"a","timestamp":"2024-12-03T14:00:01.000Z","targetId":"a","label":"x"}"#,
        );
        e.set_lossy(true);
        let bytes = postcard::to_allocvec(&e).unwrap();
        assert_eq!(postcard::from_bytes::<Entry>(&bytes).unwrap(), e);
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["kind"], "Label");
        assert_eq!(json["time"], 1_733_234_401_000_i64);
        assert_eq!(json["lossy"], true);
        assert_eq!(json["js_echo"], false);
        assert_eq!(serde_json::from_value::<Entry>(json.clone()).unwrap(), e);
        let with = |key: &str, value: serde_json::Value| {
            let mut j = json.clone();
            j[key] = value;
            serde_json::from_value::<Entry>(j)
        };
        let span = |len: u64| serde_json::json!({"offset": 0, "len": len});
        assert_eq!(
            with("span", span(Entry::LONGEST)).unwrap().span().len,
            Entry::LONGEST
        );
        assert!(with("span", span(Entry::LONGEST + 1)).is_err());
        assert_eq!(with("time", NAN_MS.into()).unwrap().time_ms(), None);
        assert!(with("time", 8_640_000_000_000_001_i64.into()).is_err());
        assert!(with("time", (-8_640_000_000_000_001_i64).into()).is_err());
    }

    /// Each kind's one-byte code reads back as the kind.
    #[test]
    fn kinds_read_back_from_their_codes() {
        for (i, k) in Kind::ALL.iter().enumerate() {
            assert_eq!(k.code() as usize, i);
            assert_eq!(Kind::from_code(k.code()), Some(*k));
        }
        assert_eq!(Kind::from_code(Kind::ALL.len() as u8), None);
    }

    fn parse_line<M: Depth>(text: &str, meta: LineMeta) -> LineParse {
        if text.trim().is_empty() {
            return LineParse::Blank;
        }
        parse_line_serde::<M>(text, meta)
    }

    fn entry(line: &str) -> Entry {
        let meta = LineMeta {
            offset: 0,
            len: line.len() as u64,
            number: 1,
            terminated: true,
            lossy: false,
        };
        match parse_line::<Full>(line, meta) {
            LineParse::Entry(e) => e,
            _ => panic!("not parsed: {line}"),
        }
    }

    #[test]
    fn reads_a_user_message() {
        let e = entry(
            r#"{"type":"message","id":"a1b2c3d4","parentId":null,"timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello"}}"#,
        );
        assert_eq!(e.kind(), Kind::Message);
        assert_eq!(e.id_str(), Some("a1b2c3d4"));
        assert_eq!(e.parent, Parent::Null);
        let m = e.message().unwrap();
        assert_eq!(m.role, Role::User);
        assert_eq!(m.content.text.text, "Hello");
    }

    #[test]
    fn reads_tool_calls_and_usage() {
        let e = entry(
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"x","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Hi"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"src/a.rs","offset":10}}],"provider":"p","model":"m","usage":{"totalTokens":12,"cost":{"total":0.5}},"stopReason":"toolUse"}}"#,
        );
        let m = e.message().unwrap();
        assert!(m.content.has_thinking);
        assert_eq!(m.content.tool_calls[0].path.as_deref(), Some("src/a.rs"));
        assert_eq!(m.content.tool_calls[0].offset, Some(10.0));
        assert_eq!(
            e.usage(),
            Some(&UsageTotals {
                tokens: 12.0,
                cost: 0.5
            })
        );
        assert_eq!(e.time_ms(), None);
    }

    /// A label entry keeps no timestamp text where its time gives it
    /// back (what pi writes), and gives the text as written either way.
    #[test]
    fn a_label_entry_gives_back_its_timestamp_as_written() {
        let label = |timestamp: &str, rest: &str| {
            let e = entry(&format!(
                r#"{{"type":"label","id":"l","parentId":"a","targetId":"a","label":"a label of more than fourteen bytes"{timestamp}{rest}}}"#
            ));
            let Info::Label(change) = &e.info else {
                panic!("not a label: {timestamp}");
            };
            assert_eq!(
                change.label.as_deref(),
                Some("a label of more than fourteen bytes")
            );
            (
                change.rare.is_none(),
                change.timestamp(e.time_ms()),
                e.usage().cloned(),
            )
        };
        let usage = r#","usage":{"totalTokens":3,"cost":{"total":0.25}}"#;
        let totals = UsageTotals {
            tokens: 3.0,
            cost: 0.25,
        };
        for (timestamp, rest, kept, given) in [
            (
                r#","timestamp":"2026-01-05T09:00:01.234Z""#,
                "",
                true,
                Some("2026-01-05T09:00:01.234Z"),
            ),
            (
                r#","timestamp":"1969-12-31T23:59:59.999Z""#,
                "",
                true,
                Some("1969-12-31T23:59:59.999Z"),
            ),
            // Read as the same time, written otherwise.
            (
                r#","timestamp":"2026-01-05T09:00:01Z""#,
                "",
                false,
                Some("2026-01-05T09:00:01Z"),
            ),
            (
                r#","timestamp":"2026-01-05T09:00:01.234+00:00""#,
                "",
                false,
                Some("2026-01-05T09:00:01.234+00:00"),
            ),
            (
                r#","timestamp":"not a date""#,
                "",
                false,
                Some("not a date"),
            ),
            (r#","timestamp":1767603601234"#, "", false, None),
            ("", "", false, None),
            (
                r#","timestamp":"2026-01-05T09:00:01.234Z""#,
                usage,
                false,
                Some("2026-01-05T09:00:01.234Z"),
            ),
            (
                r#","timestamp":"2026-01-05T09:00:01Z""#,
                usage,
                false,
                Some("2026-01-05T09:00:01Z"),
            ),
        ] {
            let (none_rare, text, used) = label(timestamp, rest);
            assert_eq!(none_rare, kept, "{timestamp}{rest}");
            assert_eq!(text.as_deref(), given, "{timestamp}{rest}");
            assert_eq!(
                used,
                (!rest.is_empty()).then_some(totals),
                "{timestamp}{rest}"
            );
        }
    }

    #[test]
    fn wrong_types_do_not_lose_the_entry() {
        let e = entry(r#"{"type":"label","id":7,"parentId":[1],"label":{"x":1},"targetId":"a"}"#);
        assert_eq!(e.kind(), Kind::Label);
        // Keys as pi's Map has them: the number 7, and an array of its own.
        assert_eq!(
            e.id,
            Some(Id::from(crate::session::line::jskey::of_num(7.0)))
        );
        let Parent::Id(p) = &e.parent else {
            panic!("{:?}", e.parent)
        };
        assert_eq!(crate::session::line::jskey::to_json(p), "[1]");
    }

    /// A role repeated after the content: pi reads the content for the
    /// last role (here a user's text, not tool output left unread).
    #[test]
    fn a_role_repeated_after_the_content_reads_as_the_last() {
        let e = entry(
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"toolResult","content":"Hello","role":"user"}}"#,
        );
        let m = e.message().expect("a message");
        assert_eq!(m.role, Role::User);
        assert_eq!(m.content.text.text, "Hello");
    }

    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let e = entry(r#"{"type":"label","id":"a","id":"b","parentId":null}"#);
        assert_eq!(e.id_str(), Some("b"));
    }

    #[test]
    fn classifies_non_entries() {
        let meta = LineMeta {
            offset: 0,
            len: 0,
            number: 1,
            terminated: true,
            lossy: false,
        };
        assert!(matches!(parse_line::<Full>("null", meta), LineParse::Falsy));
        assert!(matches!(parse_line::<Full>(" ", meta), LineParse::Blank));
        assert!(matches!(
            parse_line::<Full>("[1]", meta),
            LineParse::NotObject(_)
        ));
        assert!(matches!(
            parse_line::<Full>("{\"a\":", meta),
            LineParse::Invalid(_)
        ));
    }
}
