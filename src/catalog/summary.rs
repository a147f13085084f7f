//! One session file's summary: the fields pi's `/resume` list computes (with
//! pi's rules, line by line) plus piscope's totals, resumable as a file grows.

use crate::jstext::{date as jsdate, trim as js_trim};
use crate::session::entry::{UsageFields, UsageTotals, scalar_ms};
use crate::session::fields::{Lenient, Obj, Scalar, deserialize_lenient, lenient_deserialize};
use compact_str::CompactString;
use rustc_hash::FxHashSet;
use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// A `session_info` name as pi's reader sees it.
pub(crate) enum NameField<'a> {
    Text(&'a str),
    /// Absent or null: the name is cleared.
    Clear,
    /// Any other value: pi's `name.trim()` throws.
    NotText,
}

/// What any entry contributes to a summary, however it was read.
pub(crate) struct EntryFacts<'a> {
    pub kind: &'a [u8],
    pub id: Option<&'a [u8]>,
    pub parent: Option<&'a [u8]>,
    pub name: NameField<'a>,
    pub target: Option<&'a str>,
    pub label_truthy: bool,
    pub provider: Option<&'a str>,
    pub model_id: Option<&'a str>,
    pub usage: Option<UsageTotals>,
}

/// The parts of a user or assistant message a summary uses.
struct Chat<'a> {
    role: Option<&'a str>,
    /// `None` when the message has no `content` key.
    content: Option<&'a ContentText>,
    time: Option<f64>,
    usage: Option<UsageTotals>,
    provider: Option<&'a str>,
    model: Option<&'a str>,
}

/// One session as the picker and `piscope ls` show it.
#[derive(Debug, Clone, Default)]
pub struct SessionSummary {
    pub path: PathBuf,
    pub id: String,
    /// The header's `cwd` ("" when it is not a string).
    pub cwd: String,
    /// The latest `session_info` name, trimmed; `None` when absent or cleared.
    pub name: Option<String>,
    /// The header's `parentSession` (forks and clones).
    pub parent_session_path: Option<String>,
    /// `new Date(header.timestamp)`; `None` when that is an invalid date.
    pub created_ms: Option<i64>,
    /// The latest user/assistant message time, else the header time, else
    /// the file's mtime; `None` when the latest message time is out of range.
    pub modified_ms: Option<i64>,
    /// Every `message` entry.
    pub message_count: u64,
    /// Messages from the user.
    pub user_messages: u64,
    /// The first user message with text, or "(no messages)".
    pub first_message: String,
    /// Entries after the header.
    pub entries: u64,
    /// Branch ends: entries no other entry names as its parent.
    pub leaves: u64,
    /// Entries that carry a label.
    pub labels: u64,
    pub compactions: u64,
    /// Lines that are not valid JSON objects or not valid UTF-8.
    pub damaged_lines: u64,
    /// The last line has no newline yet (being written, or cut off).
    pub unfinished: bool,
    /// File size in bytes.
    pub size: u64,
    /// `provider/model` of assistant messages and model changes, first use first.
    pub models: Vec<String>,
    /// Tokens and cost over assistant messages, `usage` entries and the
    /// usage of compactions and branch summaries.
    pub tokens: f64,
    pub cost: f64,
    /// Why pi's own session list leaves this file out (pi's reader throws on
    /// it), if it does; piscope still lists it.
    pub skipped_by_pi: Option<String>,
    /// Every user and assistant text, joined by spaces (what pi searches).
    /// `None` until loaded (the cache keeps it apart from the summaries).
    pub text: Option<Arc<MessageText>>,
}

impl SessionSummary {
    /// Name when set, else the first message.
    pub fn title(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.first_message)
    }
}

/// pi's age of a session: `now`, `5m`, `3h`, `2d`, `4w`, `6mo`, `1y`.
pub fn age(ms_ago: i64) -> String {
    let mins = ms_ago.div_euclid(60_000);
    let hours = ms_ago.div_euclid(3_600_000);
    let days = ms_ago.div_euclid(86_400_000);
    match () {
        _ if mins < 1 => "now".to_string(),
        _ if mins < 60 => format!("{mins}m"),
        _ if hours < 24 => format!("{hours}h"),
        _ if days < 7 => format!("{days}d"),
        _ if days < 30 => format!("{}w", days / 7),
        _ if days < 365 => format!("{}mo", days / 30),
        _ => format!("{}y", days / 365),
    }
}

/// The searchable text of a session, with its lower-case forms made once.
#[derive(Debug, Default)]
pub struct MessageText {
    pub original: String,
    lower: OnceLock<String>,
    normalized: OnceLock<String>,
}

impl MessageText {
    pub fn new(original: String) -> MessageText {
        MessageText {
            original,
            ..MessageText::default()
        }
    }
    pub fn lower(&self) -> &str {
        self.lower.get_or_init(|| self.original.to_lowercase())
    }
    /// Lower case with white-space runs as one space, trimmed.
    pub fn normalized(&self) -> &str {
        self.normalized
            .get_or_init(|| crate::jstext::normalize_whitespace_lower(self.lower()))
    }
}

/// The header fields a summary needs.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct HeaderFacts {
    pub id: String,
    pub cwd: String,
    pub parent_session: Option<String>,
    pub created_ms: Option<i64>,
    /// The header time when its timestamp is a string that parses.
    pub header_time_ms: Option<i64>,
}

/// What the complete lines of a file have shown so far. It is resumed with
/// the lines a file gains, and it is what the cache keeps per file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct SummaryState {
    pub header: Option<HeaderFacts>,
    /// Where the header line sits (with its newline), and the hash of its
    /// bytes: a changed header means the file was replaced.
    pub header_start: u64,
    pub header_end: u64,
    pub header_hash: u64,
    /// The first parsed line was not a session header.
    pub not_a_session: bool,
    /// Offset just past the last complete line read; the next line number.
    pub offset: u64,
    pub next_line: u64,
    pub name: Option<String>,
    pub message_count: u64,
    pub user_messages: u64,
    pub first_message: Option<String>,
    pub last_activity: Option<f64>,
    pub entries: u64,
    pub entries_without_id: u64,
    /// Hashes of the ids no entry names as its parent (yet).
    pub childless: FxHashSet<u64>,
    pub labelled: FxHashSet<CompactString>,
    pub compactions: u64,
    pub damaged_lines: u64,
    pub models: Vec<String>,
    pub tokens: f64,
    pub cost: f64,
    pub skipped_by_pi: Option<String>,
    /// Whether `text` is being collected (listing alone does not need it).
    pub with_text: bool,
    /// Kept apart in the cache (see [`super::cache`]).
    #[serde(skip)]
    pub text: String,
}

/// Bytes read at a time; a longer line grows the buffer.
const READ_BLOCK: usize = 1 << 20;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(FNV_OFFSET, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

impl SummaryState {
    /// Reads `file` from where this state stopped. Complete lines go into
    /// the state; an unfinished last line is read into the returned copy
    /// only, so the state can be resumed when the rest arrives.
    pub fn read_on(&mut self, file: &mut File) -> io::Result<SummaryState> {
        thread_local! {
            // One read buffer per thread, not one per file.
            static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        BUF.with(|b| {
            let mut buf = b.take();
            if buf.len() < READ_BLOCK {
                buf.resize(READ_BLOCK, 0);
            }
            let r = self.read_on_with(file, &mut buf);
            if buf.len() > 4 * READ_BLOCK {
                buf = Vec::new();
            }
            b.replace(buf);
            r
        })
    }

    fn read_on_with(&mut self, file: &mut File, buf: &mut Vec<u8>) -> io::Result<SummaryState> {
        file.seek(SeekFrom::Start(self.offset))?;
        let (mut start, mut end) = (0, 0);
        loop {
            if let Some(i) = memchr::memchr(b'\n', &buf[start..end]) {
                let line_start = self.offset;
                self.offset += i as u64 + 1;
                self.line(&buf[start..start + i], line_start);
                start += i + 1;
                if self.not_a_session {
                    return Ok(self.clone());
                }
                continue;
            }
            // No complete line left in the buffer: keep the rest, read more.
            buf.copy_within(start..end, 0);
            end -= start;
            start = 0;
            if end == buf.len() {
                buf.resize(buf.len() * 2, 0);
            }
            let n = match file.read(&mut buf[end..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                let mut done = self.clone();
                if end > 0 {
                    done.line(&buf[..end], self.offset);
                }
                return Ok(done);
            }
            end += n;
        }
    }

    fn line(&mut self, raw: &[u8], start: u64) {
        if self.with_text {
            self.line_as::<KeepText>(raw, start)
        } else {
            self.line_as::<SkipText>(raw, start)
        }
    }

    fn line_as<M: TextMode>(&mut self, raw: &[u8], start: u64) {
        self.next_line += 1;
        let bytes = if start == 0 {
            raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw)
        } else {
            raw
        };
        // Tool output, most of the bytes, is only checked (its strings may
        // hold any bytes: as U+FFFD they would be valid JSON all the same).
        if self.header.is_some() {
            // Turns are read here only when their text is not needed.
            let turns = super::quick::ChatTurns {
                user: !M::KEEP && self.first_message.is_some(),
                assistant: !M::KEEP,
            };
            if let Some(q) = super::quick::quick_message(bytes, turns) {
                self.take_quick(q);
                return;
            }
            if let Some(e) = super::quick::quick_entry(bytes) {
                self.take_facts(e);
                return;
            }
        }
        // Bytes that are not UTF-8 read as U+FFFD, as pi's reader does.
        // (Checking the line once is cheaper than serde checking each key.)
        let text = match std::str::from_utf8(bytes) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => {
                self.damaged_lines += 1;
                String::from_utf8_lossy(bytes)
            }
        };
        let Some(line) = parse::<M>(&text) else {
            if !js_trim(&text).is_empty() {
                self.damaged_lines += 1;
            }
            return;
        };
        let Parsed::Object(line) = line else {
            if matches!(line, Parsed::Truthy) {
                if self.header.is_none() {
                    self.not_a_session = true;
                } else {
                    self.damaged_lines += 1;
                }
            }
            return;
        };
        match &self.header {
            None => self.take_header(&line, raw, start),
            Some(_) => self.take_entry(*line),
        }
    }

    fn take_header<M: TextMode>(&mut self, line: &Line<M>, raw: &[u8], start: u64) {
        let (Some("session"), Scalar::Str(id)) = (line.kind.as_str(), &line.id) else {
            self.not_a_session = true;
            return;
        };
        self.header = Some(HeaderFacts {
            id: id.to_string(),
            cwd: line.cwd.as_str().unwrap_or_default().to_string(),
            parent_session: line.parent_session.as_str().map(str::to_string),
            created_ms: scalar_ms(&line.timestamp),
            header_time_ms: line
                .timestamp
                .as_str()
                .and_then(|_| scalar_ms(&line.timestamp)),
        });
        self.header_start = start;
        self.header_end = start + raw.len() as u64 + 1;
        self.header_hash = fnv1a(raw);
    }

    fn take_entry<M: TextMode>(&mut self, line: Line<M>) {
        let name = match &line.name {
            Scalar::Str(s) => NameField::Text(s),
            Scalar::Missing | Scalar::Null => NameField::Clear,
            _ => NameField::NotText,
        };
        self.take_facts(EntryFacts {
            kind: line.kind.as_str().unwrap_or("").as_bytes(),
            id: line.id.as_str().map(str::as_bytes),
            parent: line.parent_id.as_str().map(str::as_bytes),
            name,
            target: line.target_id.as_str(),
            label_truthy: line.label.is_truthy(),
            provider: line.provider.as_str(),
            model_id: line.model_id.as_str(),
            usage: line.usage.0.as_ref().map(|u| u.totals()),
        });
        if line.kind.as_str() == Some("message") {
            self.take_message(&line);
        }
    }

    /// What every entry contributes, read by either path.
    fn take_facts(&mut self, e: EntryFacts<'_>) {
        self.entries += 1;
        match e.kind {
            b"session_info" => match e.name {
                NameField::Text(s) => {
                    let name = js_trim(s);
                    self.name = (!name.is_empty()).then(|| name.to_string());
                }
                NameField::Clear => self.name = None,
                NameField::NotText => self.pi_throws("a session name that is not text"),
            },
            b"label" => {
                if let Some(target) = e.target {
                    if e.label_truthy {
                        self.labelled.insert(target.into());
                    } else {
                        self.labelled.remove(target);
                    }
                }
            }
            b"compaction" => self.compactions += 1,
            b"model_change" => self.note_model(e.provider, e.model_id),
            _ => {}
        }
        match e.id {
            Some(id) => {
                if let Some(p) = e.parent {
                    self.childless.remove(&fnv1a(p));
                }
                self.childless.insert(fnv1a(id));
            }
            None => self.entries_without_id += 1,
        }
        if let Some(u) = e.usage {
            self.tokens += u.tokens;
            self.cost += u.cost;
        }
    }

    fn take_message<M: TextMode>(&mut self, line: &Line<M>) {
        self.message_count += 1;
        let message = match &line.message {
            MessageValue::Object(m) => m,
            MessageValue::Missing(_) | MessageValue::Null => {
                return self.pi_throws("a message entry without a message");
            }
            MessageValue::Other => return,
        };
        let time = match &message.timestamp {
            Scalar::Num(n) => Some(*n),
            _ => scalar_ms(&line.timestamp).map(|t| t as f64),
        };
        self.take_chat(Chat {
            role: message.role.as_str(),
            content: message.has_content.then_some(&message.content),
            time,
            usage: message.usage.0.as_ref().map(|u| u.totals()),
            provider: message.provider.as_str(),
            model: message.model.as_str(),
        });
    }

    /// A message line read by the fast path.
    fn take_quick(&mut self, q: super::quick::QuickMessage<'_>) {
        self.entries += 1;
        self.message_count += 1;
        if let Some(p) = q.parent {
            self.childless.remove(&fnv1a(p));
        }
        self.childless.insert(fnv1a(q.id));
        if let Some(a) = q.chat {
            let time = a.time.or_else(|| {
                let text = std::str::from_utf8(q.timestamp).ok()?;
                jsdate::parse_ms(text).map(|t| t as f64)
            });
            self.take_chat(Chat {
                role: Some(if a.user { "user" } else { "assistant" }),
                content: a.has_content.then_some(&ContentText::Unread),
                time,
                usage: a.usage.map(|(tokens, cost)| UsageTotals { tokens, cost }),
                provider: a.provider,
                model: a.model,
            });
        }
    }

    fn take_chat(&mut self, m: Chat<'_>) {
        if m.role == Some("user") {
            self.user_messages += 1;
        }
        if m.role == Some("assistant") {
            if let Some(u) = m.usage {
                self.tokens += u.tokens;
                self.cost += u.cost;
            }
            self.note_model(m.provider, m.model);
        }
        let Some(content) = m
            .content
            .filter(|_| matches!(m.role, Some("user" | "assistant")))
        else {
            return;
        };
        if let Some(t) = m.time {
            self.last_activity = Some(self.last_activity.unwrap_or(0.0).max(t));
        }
        let text = match content {
            ContentText::Text(t) => t.as_str(),
            ContentText::Unread => return,
            ContentText::Throws => return self.pi_throws("message content that is not a list"),
        };
        if text.is_empty() {
            return;
        }
        if self.with_text {
            if !self.text.is_empty() {
                self.text.push(' ');
            }
            self.text.push_str(text);
        }
        if self.first_message.is_none() && m.role == Some("user") {
            self.first_message = Some(text.to_string());
        }
    }

    fn note_model(&mut self, provider: Option<&str>, model: Option<&str>) {
        let Some(model) = model.filter(|m| !m.is_empty()) else {
            return;
        };
        let full = match provider.filter(|p| !p.is_empty()) {
            Some(p) => format!("{p}/{model}"),
            None => model.to_string(),
        };
        if !self.models.contains(&full) {
            self.models.push(full);
        }
    }

    fn pi_throws(&mut self, why: &str) {
        if self.skipped_by_pi.is_none() {
            self.skipped_by_pi = Some(format!("line {}: {why}", self.next_line));
        }
    }

    /// The summary of a finished read; `None` when the file is not a session.
    pub fn summary(
        &self,
        path: PathBuf,
        size: u64,
        mtime_ms: i64,
        text: Option<Arc<MessageText>>,
    ) -> Option<SessionSummary> {
        let header = self.header.as_ref().filter(|_| !self.not_a_session)?;
        let modified_ms = match self.last_activity {
            Some(t) if t > 0.0 => (t <= 8.64e15).then_some(t.trunc() as i64),
            _ => Some(header.header_time_ms.unwrap_or(mtime_ms)),
        };
        let leaves = if self.entries_without_id > 0 && self.childless.is_empty() {
            1
        } else {
            self.childless.len() as u64
        };
        Some(SessionSummary {
            path,
            id: header.id.clone(),
            cwd: header.cwd.clone(),
            name: self.name.clone(),
            parent_session_path: header.parent_session.clone(),
            created_ms: header.created_ms,
            modified_ms,
            message_count: self.message_count,
            user_messages: self.user_messages,
            first_message: self
                .first_message
                .clone()
                .unwrap_or_else(|| "(no messages)".to_string()),
            entries: self.entries,
            leaves,
            labels: self.labelled.len() as u64,
            compactions: self.compactions,
            damaged_lines: self.damaged_lines,
            unfinished: self.offset < size,
            size,
            models: self.models.clone(),
            tokens: self.tokens,
            cost: self.cost,
            skipped_by_pi: self.skipped_by_pi.clone(),
            text,
        })
    }

    /// Whether the file still has the header line this state was read from.
    pub fn same_header(&self, file: &mut File) -> io::Result<bool> {
        if self.header.is_none() {
            return Ok(false);
        }
        let len = self.header_end.saturating_sub(self.header_start);
        let mut line = vec![0u8; usize::try_from(len).unwrap_or(0)];
        file.seek(SeekFrom::Start(self.header_start))?;
        match file.read_exact(&mut line) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
            Err(e) => return Err(e),
        }
        Ok(line.pop() == Some(b'\n') && fnv1a(&line) == self.header_hash)
    }
}

// ---------------------------------------------------------------------------
// Line parsing: only the fields a summary needs.

lenient_deserialize!(ContentShape, BlockShape, ContentText, Block, JsText);

enum Parsed<M: TextMode> {
    Object(Box<Line<M>>),
    /// `null`, `false`, `0`, `""`: pi skips these lines.
    Falsy,
    /// Any other value that is not an object.
    Truthy,
}

/// `None` when the line is not JSON (or blank).
fn parse<M: TextMode>(text: &str) -> Option<Parsed<M>> {
    if text.trim_start().starts_with('{') {
        if let Ok(line) = serde_json::from_str::<Line<M>>(text) {
            return Some(Parsed::Object(Box::new(line)));
        }
    }
    match serde_json::from_str::<serde_json::Value>(text).ok()? {
        serde_json::Value::Object(map) => {
            // Duplicate keys: serde_json keeps the last, as JSON.parse does.
            let again = serde_json::Value::Object(map).to_string();
            serde_json::from_str::<Line<M>>(&again)
                .ok()
                .map(|l| Parsed::Object(Box::new(l)))
        }
        serde_json::Value::Null => Some(Parsed::Falsy),
        serde_json::Value::Bool(b) => Some(if b { Parsed::Truthy } else { Parsed::Falsy }),
        serde_json::Value::Number(n) if n.as_f64() == Some(0.0) => Some(Parsed::Falsy),
        serde_json::Value::String(s) if s.is_empty() => Some(Parsed::Falsy),
        _ => Some(Parsed::Truthy),
    }
}

/// Whether assistant texts are kept (for search) or only checked.
trait TextMode: Default {
    const KEEP: bool;
}

#[derive(Default)]
struct KeepText;
impl TextMode for KeepText {
    const KEEP: bool = true;
}

#[derive(Default)]
struct SkipText;
impl TextMode for SkipText {
    const KEEP: bool = false;
}

#[derive(Deserialize, Default)]
#[serde(default, bound(deserialize = "M: TextMode"))]
struct Line<M: TextMode> {
    #[serde(rename = "type")]
    kind: Scalar,
    id: Scalar,
    #[serde(rename = "parentId")]
    parent_id: Scalar,
    timestamp: Scalar,
    cwd: Scalar,
    #[serde(rename = "parentSession")]
    parent_session: Scalar,
    message: MessageValue<M>,
    name: Scalar,
    #[serde(rename = "targetId")]
    target_id: Scalar,
    label: Scalar,
    provider: Scalar,
    #[serde(rename = "modelId")]
    model_id: Scalar,
    usage: Obj<Box<UsageFields>>,
}

enum MessageValue<M> {
    Missing(std::marker::PhantomData<M>),
    Null,
    Other,
    Object(Box<MessageFields>),
}

impl<M> Default for MessageValue<M> {
    fn default() -> Self {
        MessageValue::Missing(std::marker::PhantomData)
    }
}

impl<'de, M: TextMode> Lenient<'de> for MessageValue<M> {
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
        read_message::<M, A>(a).map(|m| MessageValue::Object(Box::new(m)))
    }
}

impl<'de, M: TextMode> Deserialize<'de> for MessageValue<M> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize_lenient(d)
    }
}

#[derive(Default)]
struct MessageFields {
    role: Scalar,
    has_content: bool,
    content: ContentText,
    timestamp: Scalar,
    usage: Obj<Box<UsageFields>>,
    provider: Scalar,
    model: Scalar,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "camelCase")]
enum MessageKey {
    Role,
    Content,
    Timestamp,
    Usage,
    Provider,
    Model,
    #[serde(other)]
    Other,
}

/// Reads a message object; the last of duplicate keys wins. Tool output
/// (most of a file) is skipped unread when the role came first.
fn read_message<'de, M: TextMode, A: MapAccess<'de>>(mut a: A) -> Result<MessageFields, A::Error> {
    let mut m = MessageFields::default();
    while let Some(key) = a.next_key::<MessageKey>()? {
        match key {
            MessageKey::Role => m.role = a.next_value()?,
            MessageKey::Content => {
                m.has_content = true;
                match m.role.as_str() {
                    Some("user") => m.content = a.next_value()?,
                    Some("assistant") if !M::KEEP => {
                        m.content = a.next_value::<ContentShape>()?.0;
                    }
                    Some("assistant") | None => m.content = a.next_value()?,
                    Some(_) => {
                        a.next_value::<IgnoredAny>()?;
                    }
                }
            }
            MessageKey::Timestamp => m.timestamp = a.next_value()?,
            MessageKey::Usage => m.usage = a.next_value()?,
            MessageKey::Provider => m.provider = a.next_value()?,
            MessageKey::Model => m.model = a.next_value()?,
            MessageKey::Other => {
                a.next_value::<IgnoredAny>()?;
            }
        }
    }
    Ok(m)
}

/// pi's `extractTextContent`: a string as it is, the text blocks of a list
/// joined by spaces; any other value makes pi's reader throw.
#[derive(Default)]
enum ContentText {
    Text(String),
    /// A valid shape whose text was not needed.
    Unread,
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
        ContentText::Text(v.to_string())
    }
    fn from_seq<A: SeqAccess<'de>>(mut a: A) -> Result<Self, A::Error> {
        let mut out = String::new();
        let mut first = true;
        let mut throws = false;
        while let Some(block) = a.next_element::<Block>()? {
            match block {
                Block::Null => throws = true,
                Block::Other => {}
                Block::Text(t) => {
                    if !first {
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
            ContentText::Text(out)
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

/// A value as JavaScript's `Array.prototype.join` turns it into text.
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

/// `String(n)` in JavaScript.
fn js_number(n: f64) -> String {
    if n == n.trunc() && n.abs() < 1e21 {
        return format!("{n:.0}");
    }
    let a = n.abs();
    if (1e-6..1e21).contains(&a) {
        return format!("{n}");
    }
    let e = format!("{n:e}");
    match e.split_once('e') {
        Some((m, x)) if !x.starts_with('-') => format!("{m}e+{x}"),
        _ => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn summarise(text: &str) -> Option<SessionSummary> {
        let mut f = tempfile::tempfile().expect("temp file");
        f.write_all(text.as_bytes()).expect("write");
        let mut state = SummaryState::default();
        let done = state.read_on(&mut f).expect("read");
        done.summary(PathBuf::from("x.jsonl"), text.len() as u64, 7, None)
    }

    const HEAD: &str = r#"{"type":"session","version":3,"id":"s1","timestamp":"2025-01-02T03:04:05.000Z","cwd":"/p"}"#;

    #[test]
    fn reads_pi_fields() {
        let text = format!(
            "{HEAD}\n{}\n{}\n{}\n{}\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T03:05:00.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image"},{"type":"text","text":"there"}],"timestamp":1735787100000}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-02T03:06:00.000Z","message":{"role":"assistant","content":"yes","provider":"p","model":"m","usage":{"totalTokens":10,"cost":{"total":0.5}}}}"#,
            r#"{"type":"session_info","id":"c","parentId":"b","name":"  My run  "}"#,
            r#"{"type":"label","id":"d","parentId":"c","targetId":"a","label":"x"}"#,
        );
        let s = summarise(&text).expect("a session");
        assert_eq!(s.id, "s1");
        assert_eq!(s.first_message, "hi there");
        assert_eq!(s.name.as_deref(), Some("My run"));
        assert_eq!(s.message_count, 2);
        assert_eq!(s.modified_ms, Some(1_735_787_160_000));
        assert_eq!(s.entries, 4);
        assert_eq!(s.leaves, 1);
        assert_eq!(s.labels, 1);
        assert_eq!(s.models, ["p/m"]);
        assert_eq!((s.tokens, s.cost), (10.0, 0.5));
        assert!(s.skipped_by_pi.is_none());
    }

    #[test]
    fn not_a_session_and_pi_throws() {
        assert!(summarise("{\"type\":\"message\"}\n").is_none());
        assert!(summarise("5\n").is_none());
        let s = summarise(&format!("{HEAD}\n{{\"type\":\"message\",\"id\":\"a\"}}\n"))
            .expect("a session");
        assert!(s.skipped_by_pi.is_some());
        assert_eq!(s.message_count, 1);
        assert_eq!(s.modified_ms, Some(1_735_787_045_000));
        assert_eq!(s.first_message, "(no messages)");
    }

    #[test]
    fn js_numbers() {
        assert_eq!(js_number(5.0), "5");
        assert_eq!(js_number(0.5), "0.5");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1.5e-7), "1.5e-7");
    }
}
