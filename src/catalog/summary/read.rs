//! Reading a session file into its summary, line by line with the rules of
//! pi's `/resume` list (through the one line reader), into a state that is
//! resumed with the lines the file gains and that the cache keeps per file.

use crate::catalog::subagents::call_line::CallWindows;
use crate::catalog::summary::{ExactFields, MessageText, SessionSummary};
use crate::jstext::{is_space, trim as js_trim};
use crate::session::line::cursor::{Field, same};
use crate::session::line::entry::scalar_ms;
use crate::session::line::fields::Scalar;
use crate::session::line::jskey::{self, Key};
use crate::session::line::jsvalue::{JsValue, may_differ};
use crate::session::line::{
    Content, KeepText, LineFacts, Message, NameField, SkipText, Slow, TextMode, Want,
    read_fast_into_with, read_fast_line, read_slow,
};
use crate::session::read::blocks::{aligned_pad, keep_rest};
use compact_str::CompactString;
use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;

/// What a read gathers beside the summary.
#[derive(Default)]
pub(crate) struct Beside<'a> {
    /// Where the tool calls of the complete lines read are gathered: into
    /// the windows there, or, where there are none, into new ones when
    /// `calls_wanted` holds once the file's first bytes are in (a header
    /// read meanwhile, on another core, may have named the file).
    pub calls: Option<&'a mut Option<CallWindows>>,
    pub calls_wanted: Option<&'a dyn Fn() -> bool>,
    /// Told the parent a header names (as a person reads it) as soon as
    /// the header is read.
    pub named_parent: Option<&'a dyn Fn(&str)>,
}

/// The header fields a summary needs.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct HeaderFacts {
    /// As a person reads them ([`jskey::display`] of a value that is not a
    /// string; `parent_session` only when it is one).
    pub id: String,
    pub cwd: String,
    pub parent_session: Option<String>,
    /// The keys of `id`, `cwd` and `parentSession` when one of them is not
    /// a plain string (see [`ExactFields`]).
    pub exact: Option<(String, Option<String>, Option<String>)>,
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
    /// The name's key when it holds lone surrogates.
    pub name_exact: Option<String>,
    pub message_count: u64,
    pub user_messages: u64,
    pub assistant_messages: u64,
    pub first_message: Option<String>,
    /// The first message's key when it holds lone surrogates.
    pub first_message_exact: Option<String>,
    pub last_activity: Option<f64>,
    pub entries: u64,
    pub entries_without_id: u64,
    /// Hashes of the ids no entry names as its parent (yet), but for
    /// `last_id`.
    pub childless: FxHashSet<u64>,
    /// The hash of the last id read while no entry names it: one of the
    /// ids above, kept apart because the next entry names it in most files
    /// (then the set is not touched). Put in the set at the end of every
    /// read, so the cache keeps the set alone.
    #[serde(skip)]
    pub last_id: Option<u64>,
    pub labelled: FxHashSet<CompactString>,
    pub compactions: u64,
    pub damaged_lines: u64,
    pub models: Vec<String>,
    pub tokens: f64,
    pub cost: f64,
    pub skipped_by_pi: Option<String>,
    /// Whether `text` is being collected (listing alone does not need it).
    pub with_text: bool,
    /// Kept apart in the cache (see [`crate::catalog::cache`]).
    #[serde(skip)]
    pub text: String,
    /// Tokens and cost are not wanted, and not read (never so in a state
    /// the cache keeps).
    #[serde(skip)]
    pub skip_usage: bool,
}

/// `String.prototype.trim` of UTF-16 text (every white space JavaScript
/// trims is one code unit).
fn trim_units(units: &[u16]) -> &[u16] {
    let space = |u: &u16| char::from_u32(u32::from(*u)).is_some_and(is_space);
    let start = units.iter().position(|u| !space(u)).unwrap_or(units.len());
    let end = units
        .iter()
        .rposition(|u| !space(u))
        .map_or(start, |e| e + 1);
    &units[start..end]
}

/// `new Date(value).getTime()` of a field (rarely needed: messages carry
/// their own times).
fn ms(f: Field<'_>) -> Option<i64> {
    scalar_ms(&f.to_scalar())
}

/// `new Date(line.timestamp).getTime()`: an array reads as its `String()`
/// (rare, so the line is parsed again for it).
fn timestamp_ms(f: Field<'_>, line: &[u8]) -> Option<i64> {
    if !matches!(f, Field::Array) {
        return ms(f);
    }
    let text = String::from_utf8_lossy(line);
    let joined = JsValue::parse(&text).ok()?.member_array_text("timestamp")?;
    scalar_ms(&Scalar::Str(joined.into()))
}

/// Bytes read at a time; a longer line grows the buffer. Small enough that
/// what the kernel just copied is still in the core's cache when it is
/// parsed: 128 KB took 7 to 9% less CPU than 1 MB for the whole catalog.
const READ_BLOCK: usize = 1 << 17;

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
        self.read_on_beside(file, Beside::default())
    }

    /// [`Self::read_on`], gathering `beside` too.
    pub(crate) fn read_on_beside(
        &mut self,
        file: &mut File,
        beside: Beside<'_>,
    ) -> io::Result<SummaryState> {
        thread_local! {
            // One read buffer per thread, not one per file.
            static BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        BUF.with(|b| {
            let mut buf = b.take();
            if buf.len() < READ_BLOCK {
                buf.resize(READ_BLOCK, 0);
            }
            let r = self.read_on_with(file, &mut buf, beside);
            if buf.len() > 4 * READ_BLOCK {
                buf = Vec::new();
            }
            b.replace(buf);
            r
        })
    }

    fn read_on_with(
        &mut self,
        file: &mut File,
        buf: &mut Vec<u8>,
        beside: Beside<'_>,
    ) -> io::Result<SummaryState> {
        let Beside {
            calls: mut slot,
            calls_wanted: mut wanted,
            named_parent,
        } = beside;
        // Where the calls go: decided here, or at the first bytes read.
        let mut calls = match wanted {
            Some(_) => None,
            None => slot.take().and_then(Option::as_mut),
        };
        file.seek(SeekFrom::Start(self.offset))?;
        // The bytes sit in `buf` where they sit within a 64-byte line in
        // the file, which the kernel copies fastest (see `aligned_pad`).
        let mut start = aligned_pad(buf, self.offset);
        let mut end = start;
        loop {
            // Most lines find their own end as they are read.
            if let Some(len) = self.fast_line(&buf[start..end], calls.as_deref_mut()) {
                self.offset += len as u64 + 1;
                start += len + 1;
                continue;
            }
            if let Some(i) = memchr::memchr(b'\n', &buf[start..end]) {
                let line_start = self.offset;
                self.offset += i as u64 + 1;
                let had_header = self.header.is_some();
                let raw = &buf[start..start + i];
                self.line(raw, line_start, calls.as_deref_mut());
                start += i + 1;
                if self.not_a_session {
                    self.settle_last_id();
                    return Ok(self.clone());
                }
                if let (false, Some(h), Some(told)) = (had_header, &self.header, named_parent) {
                    if let Some(p) = &h.parent_session {
                        told(p);
                    }
                }
                continue;
            }
            // No complete line left in the buffer: keep the rest, read more.
            (start, end) = keep_rest(buf, start, end, self.offset);
            let n = match file.read(&mut buf[end..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                self.settle_last_id();
                let mut done = self.clone();
                if end > start {
                    // An unfinished line has no say in the calls.
                    done.line(&buf[start..end], self.offset, None);
                    done.settle_last_id();
                }
                return Ok(done);
            }
            end += n;
            if let (Some(slot), Some(wanted)) = (slot.take(), wanted.take()) {
                if slot.is_none() && wanted() {
                    *slot = Some(CallWindows::new());
                }
                calls = slot.as_mut();
            }
        }
    }

    /// Puts `last_id` in the set of childless ids.
    fn settle_last_id(&mut self) {
        if let Some(h) = self.last_id.take() {
            self.childless.insert(h);
        }
    }

    /// The entry line `rest` starts with, read by the fast path, which
    /// finds its newline (see [`read_fast_line`]): its length; `None` for
    /// a line to be cut at its newline and read by [`Self::line`].
    #[inline]
    fn fast_line(&mut self, rest: &[u8], calls: Option<&mut CallWindows>) -> Option<usize> {
        if self.header.is_none() || self.offset == 0 {
            return None;
        }
        let mut facts = LineFacts::default();
        let mut ids = Vec::new();
        let sink = calls.is_some().then_some(&mut ids);
        let len = read_fast_line(rest, self.want(), &mut facts, sink)?;
        self.next_line += 1;
        self.take_fast(&facts, &rest[..len], calls, &ids);
        Some(len)
    }

    /// An entry the fast path read, with its calls (`ids`) where they are
    /// gathered.
    #[inline]
    fn take_fast(
        &mut self,
        facts: &LineFacts<'_>,
        raw: &[u8],
        calls: Option<&mut CallWindows>,
        ids: &[&str],
    ) {
        self.take_entry(facts, raw);
        if let Some(calls) = calls {
            calls.facts(facts, ids);
        }
    }

    /// What the fast path reads of an entry: texts where they are kept
    /// (the first user message's always), usage unless it is skipped.
    fn want(&self) -> Want {
        Want {
            user_text: self.with_text || self.first_message.is_none(),
            assistant_text: self.with_text,
            usage: !self.skip_usage,
        }
    }

    fn line(&mut self, raw: &[u8], start: u64, calls: Option<&mut CallWindows>) {
        if self.with_text {
            self.line_as::<KeepText>(raw, start, calls)
        } else {
            self.line_as::<SkipText>(raw, start, calls)
        }
    }

    fn line_as<M: TextMode>(&mut self, raw: &[u8], start: u64, calls: Option<&mut CallWindows>) {
        self.next_line += 1;
        let bytes = if start == 0 {
            raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw)
        } else {
            raw
        };
        // Headers (and anything unusual) are read by the fallback.
        if self.header.is_some() {
            debug_assert_eq!(M::KEEP, self.with_text);
            let mut facts = LineFacts::default();
            let mut ids = Vec::new();
            let sink = calls.is_some().then_some(&mut ids);
            if read_fast_into_with(bytes, self.want(), &mut facts, sink).is_some() {
                return self.take_fast(&facts, bytes, calls, &ids);
            }
        }
        if let Some(calls) = calls {
            calls.line(raw);
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
        match read_slow::<M>(&text) {
            Slow::Object(line) => {
                let facts = line.facts();
                match &self.header {
                    None => self.take_header(&facts, &text, raw, start),
                    Some(_) => {
                        let had_first = self.first_message.is_some();
                        self.take_entry(&facts, bytes);
                        if may_differ(bytes) {
                            self.take_exact_texts(&text, facts.kind, had_first);
                        }
                    }
                }
            }
            Slow::Falsy => {}
            Slow::Truthy if self.header.is_none() => self.not_a_session = true,
            Slow::Truthy => self.damaged_lines += 1,
            Slow::Invalid => {
                if !js_trim(&text).is_empty() {
                    self.damaged_lines += 1;
                }
            }
        }
    }

    fn take_header(&mut self, line: &LineFacts<'_>, text: &str, raw: &[u8], start: u64) {
        if line.kind != "session" {
            self.not_a_session = true;
            return;
        }
        // pi's list holds the header's values as they are. One line per
        // file: reading it exactly costs nothing worth a fast path.
        let value = JsValue::parse(text).ok();
        let key = |name: &str| {
            value
                .as_ref()
                .and_then(|v| v.member_key(name, "h:"))
                .map(|k| k.encode().to_string())
        };
        let id = key("id").unwrap_or_else(|| jskey::UNDEFINED.to_string());
        let cwd = key("cwd").filter(|k| jskey::string_units(k).is_some());
        let parent = key("parentSession");
        let plain = |k: &Option<String>| k.as_deref().is_none_or(jskey::is_plain);
        let exact = (!jskey::is_plain(&id) || !plain(&cwd) || !plain(&parent))
            .then(|| (id.clone(), cwd.clone(), parent.clone()));
        self.header = Some(HeaderFacts {
            id: jskey::display(&id).into_owned(),
            cwd: cwd
                .as_deref()
                .map(jskey::display)
                .unwrap_or_default()
                .into_owned(),
            parent_session: parent
                .as_deref()
                .filter(|k| jskey::string_units(k).is_some())
                .map(|k| jskey::display(k).into_owned()),
            exact,
            created_ms: timestamp_ms(line.timestamp, text.as_bytes()),
            header_time_ms: line.timestamp.as_str().and_then(|_| ms(line.timestamp)),
        });
        self.header_start = start;
        self.header_end = start + raw.len() as u64 + 1;
        self.header_hash = fnv1a(raw);
    }

    /// What an entry after the header contributes, with pi's list rules.
    fn take_entry(&mut self, e: &LineFacts<'_>, raw: &[u8]) {
        self.entries += 1;
        match e.kind {
            "session_info" => match &e.name {
                NameField::Text(s) => {
                    let name = js_trim(s);
                    self.name = (!name.is_empty()).then(|| name.to_string());
                    self.name_exact = None;
                }
                NameField::Clear => (self.name, self.name_exact) = (None, None),
                NameField::NotText => self.pi_throws("a session name that is not text"),
            },
            "label" => {
                if let Some(target) = e.target {
                    if e.label_truthy {
                        self.labelled.insert(target.into());
                    } else {
                        self.labelled.remove(target);
                    }
                }
            }
            "compaction" => self.compactions += 1,
            "model_change" => self.note_model(e.provider, e.model_id),
            "message" => self.take_message(e, raw),
            _ => {}
        }
        match e.id.as_str() {
            Some(id) => {
                if let Some(p) = e.parent.as_str() {
                    let p = fnv1a(p.as_bytes());
                    if self.last_id == Some(p) {
                        self.last_id = None;
                    }
                    if !self.childless.is_empty() {
                        self.childless.remove(&p);
                    }
                }
                if let Some(before) = self.last_id.replace(fnv1a(id.as_bytes())) {
                    self.childless.insert(before);
                }
            }
            None => self.entries_without_id += 1,
        }
        if let Some(u) = e.usage.filter(|_| !self.skip_usage) {
            self.tokens += u.tokens;
            self.cost += u.cost;
        }
    }

    /// pi's list rules for a message: every one counts; user and assistant
    /// turns with content are its activity, and its texts.
    fn take_message(&mut self, e: &LineFacts<'_>, raw: &[u8]) {
        self.message_count += 1;
        let m = match &e.message {
            Message::Object(m) => m,
            Message::Missing | Message::Null => {
                return self.pi_throws("a message entry without a message");
            }
            Message::Other => return,
        };
        let role = m.role;
        if role == Some("user") {
            self.user_messages += 1;
        }
        if role == Some("assistant") {
            self.assistant_messages += 1;
            if let Some(u) = m.usage.filter(|_| !self.skip_usage) {
                self.tokens += u.tokens;
                self.cost += u.cost;
            }
            self.note_model(m.provider, m.model);
        }
        if !matches!(role, Some("user" | "assistant")) || m.content == Content::Missing {
            return;
        }
        let time = m
            .time
            .or_else(|| timestamp_ms(e.timestamp, raw).map(|t| t as f64));
        if let Some(t) = time {
            self.last_activity = Some(self.last_activity.unwrap_or(0.0).max(t));
        }
        let text = match &m.content {
            Content::Text(t) => &**t,
            Content::Missing | Content::Unread => return,
            Content::Null | Content::Throws => {
                return self.pi_throws("message content that is not a list");
            }
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
        if self.first_message.is_none() && role == Some("user") {
            self.first_message = Some(text.to_string());
        }
    }

    /// A line JavaScript may read differently from serde (lone surrogates,
    /// which the readable fields show as U+FFFD; numbers beyond f64): the
    /// name or first message it set, as pi holds it.
    fn take_exact_texts(&mut self, text: &str, kind: &str, had_first: bool) {
        let sets_name = kind == "session_info" && self.name.is_some();
        let sets_first = !had_first && self.first_message.is_some();
        if !sets_name && !sets_first {
            return;
        }
        let Ok(v) = JsValue::parse(text) else {
            return;
        };
        let lone = |units: &[u16]| {
            let key = Key::Str(units.to_vec()).encode();
            (!jskey::is_plain(&key)).then(|| key.to_string())
        };
        if sets_name {
            if let Some(Key::Str(units)) = v.member_key("name", "") {
                self.name_exact = lone(trim_units(&units));
            }
        }
        if sets_first {
            if let Some(units) = v.message_text_units() {
                // The exact text also corrects the readable one where serde
                // read a number JavaScript reads as Infinity.
                self.first_message = Some(String::from_utf16_lossy(&units));
                self.first_message_exact = lone(&units);
            }
        }
    }

    fn note_model(&mut self, provider: Option<&str>, model: Option<&str>) {
        let Some(model) = model.filter(|m| !m.is_empty()) else {
            return;
        };
        let provider = provider.filter(|p| !p.is_empty());
        // Most turns name a model already noted: compare before making text.
        let is = |m: &String| {
            let m = m.as_bytes();
            match provider.map(str::as_bytes) {
                Some(p) => {
                    m.len() == p.len() + 1 + model.len()
                        && same(&m[..p.len()], p)
                        && m[p.len()] == b'/'
                        && same(&m[p.len() + 1..], model.as_bytes())
                }
                None => same(m, model.as_bytes()),
            }
        };
        if !self.models.iter().any(is) {
            self.models.push(match provider {
                Some(p) => format!("{p}/{model}"),
                None => model.to_string(),
            });
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
        let mut childless = self.childless.len() as u64;
        if self.last_id.is_some_and(|h| !self.childless.contains(&h)) {
            childless += 1;
        }
        let leaves = if self.entries_without_id > 0 && childless == 0 {
            1
        } else {
            childless
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
            assistant_messages: self.assistant_messages,
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
            exact: self.exact_fields(header),
            text,
        })
    }

    fn exact_fields(&self, header: &HeaderFacts) -> Option<Box<ExactFields>> {
        if header.exact.is_none() && self.name_exact.is_none() && self.first_message_exact.is_none()
        {
            return None;
        }
        let (id, cwd, parent_session) = header.exact.clone().unwrap_or_else(|| {
            let parent = header.parent_session.as_deref().map(jskey::of_str);
            (
                jskey::of_str(&header.id).to_string(),
                Some(jskey::of_str(&header.cwd).to_string()),
                parent.map(|p| p.to_string()),
            )
        });
        let own = |exact: &Option<String>, readable: &Option<String>| {
            exact
                .clone()
                .or_else(|| readable.as_deref().map(|s| jskey::of_str(s).to_string()))
        };
        Some(Box::new(ExactFields {
            id,
            cwd,
            parent_session,
            name: own(&self.name_exact, &self.name),
            first_message: own(&self.first_message_exact, &self.first_message),
        }))
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

    /// Lines shorter and longer than the read block, ending anywhere in it
    /// (and the buffer laid out again for each read): every message is
    /// counted and the long first message is kept whole, read at once or
    /// resumed at any point.
    #[test]
    fn lines_of_any_length_across_reads() {
        let mut text = format!("{HEAD}\n");
        let lens = [
            READ_BLOCK - 200,
            3,
            READ_BLOCK * 2 + 77,
            1,
            63,
            64,
            65,
            READ_BLOCK + 1,
        ];
        for (k, n) in lens.iter().enumerate() {
            let parent = if k == 0 {
                "null".to_string()
            } else {
                format!("\"m{}\"", k - 1)
            };
            let body = char::from(b'a' + k as u8).to_string().repeat(*n);
            text.push_str(&format!(
                r#"{{"type":"message","id":"m{k}","parentId":{parent},"message":{{"role":"user","content":"{body}"}}}}"#
            ));
            text.push('\n');
        }
        let whole = summarise(&text).expect("a session");
        assert_eq!(whole.message_count, lens.len() as u64);
        assert_eq!(whole.first_message.len(), lens[0]);
        assert_eq!((whole.entries, whole.leaves), (lens.len() as u64, 1));
        let mut f = tempfile::tempfile().expect("temp file");
        let mut state = SummaryState::default();
        for line in text.split_inclusive('\n') {
            // Half a line first: read into the copy only, then again whole.
            let (a, b) = line.as_bytes().split_at(line.len() / 2);
            for piece in [a, b] {
                f.write_all(piece).expect("write");
                state.read_on(&mut f).expect("read");
            }
        }
        // An unfinished last line counts in the summary of the read.
        let last = r#"{"type":"message","id":"z","parentId":"m7","message":{"role":"user","content":"z"}}"#;
        f.write_all(last.as_bytes()).expect("write");
        let done = state.read_on(&mut f).expect("read");
        assert_eq!(done.message_count, lens.len() as u64 + 1);
        let resumed = state
            .summary(PathBuf::from("x.jsonl"), text.len() as u64, 7, None)
            .expect("a session");
        assert_eq!(format!("{resumed:?}"), format!("{whole:?}"));
    }

    /// The leaves are the ids no entry names as its parent, counted as
    /// one set of them counts them (each entry takes its parent out and
    /// puts its own id in), whatever the shape: chains, forks, repeated
    /// ids, parents named before or after their entry, entries without an
    /// id or a parent; the same whether the file is read at once or as it
    /// grows, line by line (the last id read kept apart between reads).
    #[test]
    fn leaves_are_the_ids_no_entry_names() {
        let mut x = 0x1eaf_u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        for round in 0..300 {
            let n = 1 + next(30);
            let ids = 1 + next(n + 2);
            let mut model: std::collections::HashSet<String> = Default::default();
            let mut without_id = 0;
            let mut text = format!("{HEAD}\n");
            let mut before: Option<String> = None;
            for _ in 0..n {
                let id = (next(8) > 0).then(|| format!("e{}", next(ids)));
                let parent = match next(6) {
                    0 => None,
                    1 | 2 => Some(format!("e{}", next(ids))),
                    _ => before.clone(),
                };
                let mut line = String::from(r#"{"type":"custom""#);
                if let Some(id) = &id {
                    line.push_str(&format!(r#","id":"{id}""#));
                }
                match &parent {
                    Some(p) => line.push_str(&format!(r#","parentId":"{p}""#)),
                    None => line.push_str(r#","parentId":null"#),
                }
                line.push_str("}\n");
                text.push_str(&line);
                match &id {
                    Some(id) => {
                        if let Some(p) = &parent {
                            model.remove(p);
                        }
                        model.insert(id.clone());
                    }
                    None => without_id += 1,
                }
                before = id.or(before);
            }
            let want = if without_id > 0 && model.is_empty() {
                1
            } else {
                model.len() as u64
            };
            let whole = summarise(&text).expect("a session");
            assert_eq!(whole.leaves, want, "round {round}:\n{text}");
            let mut f = tempfile::tempfile().expect("temp file");
            let mut state = SummaryState::default();
            for line in text.split_inclusive('\n') {
                f.write_all(line.as_bytes()).expect("write");
                state.read_on(&mut f).expect("read");
            }
            let grown = state
                .summary(PathBuf::from("x.jsonl"), text.len() as u64, 7, None)
                .expect("a session");
            assert_eq!(grown.leaves, want, "round {round}, grown:\n{text}");
        }
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
    fn counts_lines_only_javascript_reads() {
        // serde_json refuses a lone surrogate and a number beyond f64; pi
        // reads both lines and counts their messages.
        let text = format!(
            "{HEAD}\n{}\n{}\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T03:05:00.000Z","message":{"role":"user","content":"\udc00 hi","timestamp":1735787100000}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2025-01-02T03:06:00.000Z","message":{"role":"toolResult","content":[],"details":{"n":1e400}}}"#,
        );
        let s = summarise(&text).expect("a session");
        assert_eq!(s.message_count, 2);
        assert_eq!(s.damaged_lines, 0);
        assert_eq!(s.first_message, "\u{fffd} hi");
        assert_eq!(s.modified_ms, Some(1_735_787_100_000));
    }

    /// pi's list holds a header's values as they are: an id or a
    /// `parentSession` of any type, text with lone surrogates. The readable
    /// fields show them, and `exact` keeps what `ls --json` echoes.
    #[test]
    fn keeps_the_values_pi_lists() {
        let text = concat!(
            r#"{"type":"session","version":3,"id":[1,{"a":1e21}],"timestamp":"2025-01-02T03:04:05.000Z","cwd":"/p\ud800","parentSession":false}"#,
            "\n",
            r#"{"type":"session_info","id":"i","parentId":null,"name":"  x\udc00  "}"#,
            "\n",
            r#"{"type":"message","id":"a","parentId":"i","timestamp":["2025-01-02T03:05:00.000Z"],"message":{"role":"user","content":[{"type":"text","text":["\ud83d",1]},{"type":"text","text":"b"},{"type":"text","text":-1e400}]}}"#,
            "\n",
        );
        let s = summarise(text).expect("a header of any id is a session");
        assert_eq!(s.id, "[1,{\"a\":1e+21}]");
        assert_eq!(s.cwd, "/p\u{fffd}");
        assert_eq!(s.parent_session_path, None);
        assert_eq!(s.name.as_deref(), Some("x\u{fffd}"));
        assert_eq!(s.first_message, "\u{fffd},1 b -Infinity");
        // `new Date(["…"])` reads the array's text.
        assert_eq!(s.modified_ms, Some(1_735_787_100_000));
        let e = s.exact.expect("exact values");
        let json = |k: &Option<String>| k.as_deref().map(jskey::to_json);
        assert_eq!(jskey::to_json(&e.id), "[1,{\"a\":1e+21}]");
        assert_eq!(json(&e.cwd).as_deref(), Some("\"/p\\ud800\""));
        assert_eq!(json(&e.parent_session).as_deref(), Some("false"));
        assert_eq!(json(&e.name).as_deref(), Some("\"x\\udc00\""));
        assert_eq!(
            json(&e.first_message).as_deref(),
            Some("\"\\ud83d,1 b -Infinity\"")
        );
        // The common case carries nothing extra.
        assert!(
            summarise(&format!("{HEAD}\n"))
                .expect("a session")
                .exact
                .is_none()
        );
    }

    /// `JSON.parse` reads any depth; serde_json stops at 128 levels unless
    /// told otherwise. A line nested 100,000 deep is read, not damaged.
    #[test]
    fn reads_lines_nested_deeper_than_serde_allows() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let line = format!(
            r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T03:05:00.000Z","message":{{"role":"user","content":"hi","extra":{deep}}}}}"#
        );
        let s = summarise(&format!("{HEAD}\n{line}\n")).expect("a session");
        assert_eq!((s.message_count, s.damaged_lines), (1, 0));
        assert_eq!(s.first_message, "hi");
    }

    /// A role repeated after the content: the last role decides how pi
    /// reads the content (here a list whose `null` block makes it throw).
    #[test]
    fn a_repeated_role_decides_as_the_last() {
        let line = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-02T03:05:00.000Z","message":{"role":"custom","content":[null],"role":"user"}}"#;
        let s = summarise(&format!("{HEAD}\n{line}\n")).expect("a session");
        assert!(s.skipped_by_pi.is_some(), "{s:?}");
    }

    #[test]
    fn fast_path_reads_as_the_fallback_does() {
        use crate::session::line::entry::UsageTotals;
        use crate::session::line::{Content, LineFields, Message, Want};
        // What the fallback leaves unread, and a content the fallback reads
        // whole where the fast path was not asked for its text.
        // serde_json's float reading is not always correctly rounded (the
        // fast path's and JavaScript's are): totals agree to 1e-12.
        fn round(u: &mut Option<UsageTotals>) {
            if let Some(u) = u {
                u.cost = (u.cost * 1e12).round() / 1e12;
                u.tokens = (u.tokens * 1e12).round() / 1e12;
            }
        }
        fn summary_part<'a>(mut f: LineFacts<'a>, want: Want) -> LineFacts<'a> {
            f.other_keys = false;
            round(&mut f.usage);
            if !want.usage {
                (f.usage, f.usage_parts) = (None, Default::default());
                if let Message::Object(m) = &mut f.message {
                    (m.usage, m.usage_parts) = (None, Default::default());
                }
            }
            (f.cwd, f.parent_session) = (None, None);
            if let Message::Object(m) = &mut f.message {
                let wanted = match m.role {
                    Some("user") => want.user_text,
                    Some("assistant") => want.assistant_text,
                    _ => false,
                };
                let turn = matches!(m.role, Some("user" | "assistant"));
                if !wanted && matches!(m.content, Content::Text(_))
                    || !turn && m.content != Content::Missing
                {
                    // The fallback reads the content of turns only.
                    m.content = Content::Unread;
                    m.joined = false;
                }
                (m.stop_reason, m.tool_call_id, m.tool_name, m.custom_type) =
                    (None, None, None, None);
                round(&mut m.usage);
                m.is_error = false;
            }
            f
        }
        fn slow<M: TextMode>(text: &str, want: Want, fast: &LineFacts<'_>) {
            let Slow::Object(line) = read_slow::<M>(text) else {
                panic!("the fallback does not read what the fast path read: {text}");
            };
            let slow: &LineFields<M> = &line;
            assert_eq!(
                summary_part(fast.clone(), want),
                summary_part(slow.facts(), want),
                "{text}"
            );
        }
        let files = crate::session::read::file::test_session_files();
        assert!(files.len() > 20);
        let (mut lines, mut fast) = (0, 0);
        for path in files {
            let bytes = std::fs::read(&path).expect("read");
            for line in bytes.split(|&b| b == b'\n') {
                lines += 1;
                // Usage skipped too, as a list without tokens skips it.
                // And with the calls read, which changes no other fact.
                for (user_text, assistant_text, usage, calls) in [
                    (false, false, true, false),
                    (true, false, true, false),
                    (true, true, true, false),
                    (false, false, false, false),
                    (false, false, false, true),
                    (true, true, true, true),
                ] {
                    let want = Want {
                        user_text,
                        assistant_text,
                        usage,
                    };
                    let mut f = LineFacts::default();
                    let mut ids = Vec::new();
                    let sink = calls.then_some(&mut ids);
                    if read_fast_into_with(line, want, &mut f, sink).is_none() {
                        continue;
                    }
                    fast += 1;
                    let text = std::str::from_utf8(line).expect("the fast path reads UTF-8 only");
                    if want.assistant_text {
                        slow::<KeepText>(text, want, &f);
                    } else {
                        slow::<SkipText>(text, want, &f);
                    }
                }
            }
        }
        // Most lines take the fast path.
        assert!(fast > lines * 2, "{fast} of {lines} (six reads each)");
    }

    /// The calls gathered as the catalog reads a file (the fast path's
    /// facts for the lines it takes, the lines themselves for the rest)
    /// are the calls read alone: over every test session, and a session
    /// of every shape a line can take (escaped ids, keys twice, the role
    /// after the content, damage, bytes that are no UTF-8, a call answered
    /// only on an unfinished last line).
    #[test]
    fn calls_gathered_in_the_catalog_read_are_the_calls_read_alone() {
        use crate::catalog::subagents::call_line::{CallWindows, call_windows};
        let dir = tempfile::tempdir().expect("dir");
        let mut made: Vec<Vec<u8>> = Vec::new();
        for path in crate::session::read::file::test_session_files() {
            made.push(std::fs::read(path).expect("test data"));
        }
        let t = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
        let mut odd = vec![
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#.to_string(),
            format!(r#"{{"type":"message","id":"1","parentId":null,"timestamp":"{}","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"a","name":"read","arguments":{{"id":"no"}}}},{{"type":"text","text":"x"}},{{"type":"toolCall","id":"b","name":"bash","arguments":{{}}}}]}}}}"#, t(1)),
            format!(r#"{{"type":"message","id":"2","parentId":"1","timestamp":"{}","message":{{"role":"toolResult","toolCallId":"a","toolName":"read","content":[{{"type":"text","text":"ok"}}],"isError":false,"timestamp":2}}}}"#, t(2)),
            format!(r#"{{"type":"message","id":"3","parentId":"2","timestamp":"{}","message":{{"role":"user","content":"stop","timestamp":3}}}}"#, t(3)),
            format!(r#"{{"type":"message","id":"4","parentId":"3","timestamp":"{}","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"c\u0031","name":"x"}},{{"type":"toolCall","id":7}},{{"type":"toolCall","id":"d","id":"e"}}]}}}}"#, t(4)),
            format!(r#"{{"type":"message","id":"5","parentId":"4","timestamp":"{}","message":{{"toolCallId":"c1","role":"toolResult","content":[]}}}}"#, t(5)),
            format!(r#"{{"type":"message","id":"6","parentId":"5","timestamp":"{}","message":{{"content":[{{"type":"toolCall","id":"f"}}],"role":"assistant"}}}}"#, t(6)),
            format!(r#"{{"type":"message","id":"7","parentId":"6","timestamp":"{}","message":{{"role":"toolResult","toolCallId":"e"}}}}"#, t(7)),
            format!(r#"{{"type":"message","id":"8","parentId":"7","timestamp":["{}"],"message":{{"role":"assistant","content":[{{"type":"toolCall","id":"g"}}]}}}}"#, t(8)),
            format!(r#"{{"type":"message","id":"9","parentId":"8","timestamp":1767225609000,"message":{{"role":"assistant","content":[{{"type":"toolCall","id":"h"}},{{"type":"tool\u0043all","id":"i"}},{{"id":"j","type":"toolCall"}}]}}}}"#),
            format!(r#"{{"type":"message","id":"10","parentId":"9","timestamp":"{}","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"k"}}]"#, t(10)),
            format!(r#"{{"type":"message","id":"11","parentId":"9","timestamp":"{}","message":{{"role":"toolResult","toolCallId":"h"}},"message":{{"role":"user"}}}}"#, t(11)),
            format!(r#"{{"type":"message","id":"12","parentId":"11","timestamp":"{}","message":{{"role":"assistant","content":[{{"type":"toolCall","id":"l"}}]}}}}"#, t(12)),
        ]
        .join("\n")
        .into_bytes();
        // A line that is no UTF-8, then a call answered only on an
        // unfinished last line.
        odd.extend(
            b"\n{\"type\":\"message\",\"timestamp\":\"x\xff\",\"message\":{\"role\":\"user\"}}\n",
        );
        odd.extend(format!(r#"{{"type":"message","id":"14","parentId":"12","timestamp":"{}","message":{{"role":"toolResult","toolCallId":"l"}}}}"#, t(14)).as_bytes());
        made.push(odd);
        let mut with_calls = 0;
        for (n, bytes) in made.iter().enumerate() {
            let path = dir.path().join(format!("{n}.jsonl"));
            std::fs::write(&path, bytes).expect("write");
            let alone = call_windows(&path).expect("read");
            let mut gathered = Some(CallWindows::new());
            let beside = Beside {
                calls: Some(&mut gathered),
                ..Beside::default()
            };
            let mut file = std::fs::File::open(&path).expect("open");
            SummaryState::default()
                .read_on_beside(&mut file, beside)
                .expect("read");
            assert_eq!(
                gathered.map(CallWindows::finish).as_ref(),
                Some(&alone),
                "file {n}"
            );
            with_calls += usize::from(!alone.is_empty());
        }
        assert!(with_calls > 10, "{with_calls} files with calls");
        // The last one's, as it must read: the calls answered by their
        // results and by the user (the last `message` of a line is its
        // message; an escaped type names a call), the unanswered running
        // on; a damaged line and one whose time is a list say nothing.
        let max = i64::MAX;
        let s = |n: i64| 1_767_225_600_000 + 1000 * n;
        let odd = call_windows(&dir.path().join(format!("{}.jsonl", made.len() - 1)));
        assert_eq!(
            odd.expect("read"),
            [
                (s(1), s(2)),
                (s(1), s(3)),
                (s(4), s(5)),
                (s(4), s(7)),
                (s(6), s(11)),
                (s(9), s(11)),
                (s(9), s(11)),
                (s(9), s(11)),
                (s(12), max)
            ]
        );
    }
}
