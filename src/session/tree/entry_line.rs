//! One line per entry, in the words of pi's `/tree`: `user: …`,
//! `[read: path]`, `[compaction: 12k tokens]`, and so on.

use crate::jstext;
use crate::session::Session;
use crate::session::line::entry::{Entry, Info, Role, ToolCall};
use std::borrow::Cow;
use std::collections::HashMap;

/// Tool calls by id, so a tool result can be shown as the call it answers.
pub struct ToolCalls<'a>(HashMap<Cow<'a, str>, Cow<'a, ToolCall>>);

impl<'a> ToolCalls<'a> {
    pub fn collect(session: &'a Session) -> ToolCalls<'a> {
        let mut calls = ToolCalls(HashMap::new());
        for e in &session.entries {
            if let Some(m) = e.message() {
                for call in &m.content.tool_calls {
                    if let Some(id) = &call.id {
                        calls
                            .0
                            .insert(Cow::Borrowed(id.as_str()), Cow::Borrowed(call));
                    }
                }
            }
        }
        calls
    }
}

impl ToolCalls<'static> {
    /// No calls yet: owned ones are added with [`ToolCalls::add_from`].
    pub fn owned() -> ToolCalls<'static> {
        ToolCalls(HashMap::new())
    }

    /// Keeps the tool calls of `e` (a message read at full depth), as
    /// [`ToolCalls::collect`] does: a later call with the same id wins.
    pub fn add_from(&mut self, e: &Entry) {
        for call in e.message().map_or(&[][..], |m| &m.content.tool_calls) {
            self.keep(call.clone());
        }
    }

    /// Keeps one call under its id (a call without one names nothing).
    fn keep(&mut self, call: ToolCall) {
        if let Some(id) = &call.id {
            self.0.insert(Cow::Owned(id.to_string()), Cow::Owned(call));
        }
    }

    /// The calls, for a stored index (in no particular order).
    pub fn to_pairs(&self) -> Vec<(&str, &ToolCall)> {
        self.0
            .iter()
            .map(|(k, v)| (k.as_ref(), v.as_ref()))
            .collect()
    }

    /// The calls a stored index kept.
    pub fn from_pairs(pairs: Vec<(String, ToolCall)>) -> ToolCalls<'static> {
        ToolCalls(
            pairs
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k), Cow::Owned(v)))
                .collect(),
        )
    }
}

impl std::fmt::Debug for ToolCalls<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ToolCalls({} calls)", self.0.len())
    }
}

impl Clone for ToolCalls<'static> {
    fn clone(&self) -> Self {
        ToolCalls(self.0.clone())
    }
}

/// The one-line texts of a session read at outline depth (whose messages
/// keep no texts), each read from its line when it is asked for: a listing
/// of a million entries keeps no million texts. One pass over the file
/// first collects what the texts and pi's filter need of other entries.
pub struct LazyTexts {
    calls: ToolCalls<'static>,
    /// By entry: an assistant turn pi's tree hides (see
    /// [`bare_turn`]).
    bare: crate::session::tree::Bits,
    lines: crate::session::read::blocks::SpanReader,
}

impl LazyTexts {
    /// Reads what the texts need from `s`'s file (a session at outline
    /// depth: not a legacy one, whose messages migrate).
    pub fn read(s: &Session) -> Result<LazyTexts, crate::session::SessionError> {
        let mut calls = ToolCalls::owned();
        let mut bare = crate::session::tree::Bits::default();
        let mut same = true;
        let file = s.open_file()?;
        let scanned = file
            .try_clone()
            .map_err(|e| crate::session::SessionError::io(&s.path, e))?;
        // Lines are matched to the session's entries by where they start:
        // the header, blank and damaged lines are no entry, and lines
        // appended since the session was read are not in it.
        crate::session::read::blocks::scan(scanned, 0, 1, turn_of, |meta, turn| {
            let Some(known) = s.entries.get(bare.len()) else {
                return std::ops::ControlFlow::Break(());
            };
            if known.span().offset != meta.offset {
                same &= known.span().offset > meta.offset;
                return std::ops::ControlFlow::Continue(());
            }
            same &= known.span().len == meta.len;
            bare.push(turn.bare);
            for call in turn.calls {
                calls.keep(call);
            }
            std::ops::ControlFlow::Continue(())
        })
        .map_err(|e| crate::session::SessionError::io(&s.path, e))?;
        if !same || bare.len() != s.entries.len() {
            return Err(crate::session::SessionError::changed_while_read(&s.path));
        }
        Ok(LazyTexts {
            calls,
            bare,
            lines: crate::session::read::blocks::SpanReader::new(file),
        })
    }

    /// Whether entry `i` is an assistant turn pi's tree hides.
    pub fn bare(&self, i: u32) -> bool {
        self.bare.get(i)
    }

    /// The text of entry `i`'s row (see [`entry_line`]).
    pub fn text(
        &mut self,
        s: &Session,
        i: u32,
        home: Option<&str>,
    ) -> Result<String, crate::session::SessionError> {
        let e = s.entry(i);
        let io = |err| crate::session::SessionError::io(&s.path, err);
        let bytes = self
            .lines
            .bytes(e.span().offset, e.span().len)
            .map_err(io)?;
        if let Some(text) = plain_row_text(bytes, &self.calls, home) {
            return Ok(text);
        }
        let mut meta = crate::session::read::blocks::LineMeta {
            offset: e.span().offset,
            len: e.span().len,
            number: e.line,
            terminated: true,
            lossy: false,
        };
        use crate::session::line::entry::LineParse;
        match crate::session::line::to_entry::parse_line_bytes::<crate::session::line::entry::Full>(
            bytes, &mut meta,
        ) {
            LineParse::Entry(full) | LineParse::Header(_, full) | LineParse::NotObject(full) => {
                Ok(entry_line(&full, &self.calls, home))
            }
            _ => Ok(entry_line(e, &self.calls, home)),
        }
    }
}

/// What the tree's texts and filter need of one line: whether it is a
/// bare assistant turn, and the tool calls (with ids) it makes.
#[derive(Default)]
struct Turn {
    bare: bool,
    calls: Vec<ToolCall>,
}

/// [`Turn`] of a line: plain message lines by the one line reader's fast
/// path, any other through the index's full read.
fn turn_of(line: &[u8], meta: &mut crate::session::read::blocks::LineMeta) -> Turn {
    if let Some(turn) = plain_turn(line) {
        return turn;
    }
    use crate::session::line::entry::LineParse;
    match crate::session::line::to_entry::parse_line_bytes::<crate::session::line::entry::Full>(
        line, meta,
    ) {
        LineParse::Entry(e) | LineParse::Header(_, e) | LineParse::NotObject(e) => match e.info {
            Info::Message(m) => Turn {
                bare: bare_turn(&m),
                calls: m.content.tool_calls,
            },
            _ => Turn::default(),
        },
        _ => Turn::default(),
    }
}

/// The read of a plain message line's [`Turn`] without serde, or `None`
/// where the full read must decide: another entry type or key, a message
/// that is not an object, content the fast path does not read as pi's
/// tree does, or a tool call anywhere a content is read (any line holding
/// `"toolCall"`, where the fast path reads block types only unescaped).
fn plain_turn(line: &[u8]) -> Option<Turn> {
    use crate::session::line::{Content, LineFacts, Message, Want, read_fast_into};
    let want = Want {
        assistant_text: true,
        ..Want::default()
    };
    let mut f = LineFacts::default();
    read_fast_into(line, want, &mut f)?;
    if f.kind != "message" || f.other_keys {
        return None;
    }
    let Message::Object(m) = &f.message else {
        return None;
    };
    // Tool results' content is never read for calls.
    if m.role != Some("toolResult") && memchr::memmem::find(line, b"\"toolCall\"").is_some() {
        return None;
    }
    let bare = m.role == Some("assistant") && {
        let has_text = match &m.content {
            // Blocks join with white space: the whole is blank when
            // every block is.
            Content::Text(t) => !t.trim_start().is_empty(),
            Content::Missing | Content::Null => false,
            _ => return None,
        };
        let failed = m.stop_reason.is_some_and(|r| r != "stop" && r != "toolUse");
        !has_text && !failed
    };
    Some(Turn {
        bare,
        calls: Vec::new(),
    })
}

/// [`entry_line`] of a plain user, assistant or tool result line, read
/// without serde; `None` where the full read must decide (another entry
/// type or key, several text blocks, which pi's tree joins otherwise than
/// the fast path, an assistant turn without text).
fn plain_row_text(line: &[u8], calls: &ToolCalls<'_>, home: Option<&str>) -> Option<String> {
    use crate::session::line::{Content, LineFacts, Message, Want, read_fast_into};
    let want = Want {
        user_text: true,
        assistant_text: true,
        usage: false,
    };
    let mut f = LineFacts::default();
    read_fast_into(line, want, &mut f)?;
    if f.kind != "message" || f.other_keys {
        return None;
    }
    let Message::Object(m) = &f.message else {
        return None;
    };
    if m.joined {
        return None;
    }
    // The first 200 units are the same whether the text was cut at
    // `SHORT_TEXT_CHARS` characters (as the full read cuts it) or not.
    match (m.role?, &m.content) {
        ("user", Content::Text(t)) => Some(format!("user: {}", normalize(&head(t, 200)))),
        ("assistant", Content::Text(t)) => {
            let text = normalize(&head(t, 200));
            (!text.is_empty()).then(|| format!("assistant: {text}"))
        }
        ("toolResult", _) => Some(match m.tool_call_id.and_then(|id| calls.0.get(id)) {
            Some(call) => format_tool_call(call, home),
            None => format!("[{}]", m.tool_name.unwrap_or("tool")),
        }),
        _ => None,
    }
}

/// An assistant turn with no text that neither failed nor was aborted (one
/// that only calls tools): pi's tree hides it unless it is the leaf.
pub fn bare_turn(m: &crate::session::line::entry::MessageInfo) -> bool {
    let failed = m
        .stop_reason
        .as_deref()
        .is_some_and(|r| r != "stop" && r != "toolUse");
    m.role == Role::Assistant && !m.content.text.has_text && !failed
}

pub use crate::session::line::fields::normalize;

/// The first `units` UTF-16 units of a text, as pi's `slice(0, units)`.
fn head(s: &str, units: i64) -> Cow<'_, str> {
    jstext::slice(s, 0, Some(units))
}

/// The id of the tool call whose summary `entry`'s row shows: a tool
/// result's (see [`entry_line`]).
pub fn call_named(entry: &Entry) -> Option<&str> {
    let m = entry.message().filter(|m| m.role == Role::ToolResult)?;
    m.tool_call_id.as_deref()
}

/// The ids of the tool calls `entry` (read at full depth) makes.
pub fn call_ids(entry: &Entry) -> impl Iterator<Item = &str> {
    let calls = entry.message().map_or(&[][..], |m| &m.content.tool_calls);
    calls.iter().filter_map(|c| c.id.as_deref())
}

/// The text of an entry's row in the tree. `home` shortens paths to `~`.
pub fn entry_line(entry: &Entry, calls: &ToolCalls<'_>, home: Option<&str>) -> String {
    match &entry.info {
        Info::Message(m) => match &m.role {
            Role::User => format!("user: {}", normalize(&head(&m.content.text.text, 200))),
            Role::Assistant => {
                let text = normalize(&head(&m.content.text.text, 200));
                if !text.is_empty() {
                    format!("assistant: {text}")
                } else if m.stop_reason.as_deref() == Some("aborted") {
                    "assistant: (aborted)".to_string()
                } else if let Some(err) = m.error.as_ref().filter(|e| !e.text.is_empty()) {
                    format!("assistant: {}", head(&normalize(&err.text), 80))
                } else {
                    "assistant: (no content)".to_string()
                }
            }
            Role::ToolResult => {
                let call = m.tool_call_id.as_deref().and_then(|id| calls.0.get(id));
                match call {
                    Some(call) => format_tool_call(call, home),
                    None => format!("[{}]", m.tool_name.as_deref().unwrap_or("tool")),
                }
            }
            Role::BashExecution => format!(
                "[bash]: {}",
                normalize(m.command.as_ref().map_or("", |c| c.text.as_str()))
            ),
            other => format!("[{}]", other.as_str()),
        },
        Info::CustomMessage(c) => format!(
            "[{}]: {}",
            c.custom_type.as_deref().unwrap_or("undefined"),
            normalize(&c.content.text.text)
        ),
        Info::Compaction(c) => {
            let tokens = c.tokens_before.map_or("NaN".to_string(), |t| {
                format!("{}", (t / 1000.0 + 0.5).floor())
            });
            format!("[compaction: {tokens}k tokens]")
        }
        Info::BranchSummary(b) => {
            format!("[branch summary]: {}", normalize(&b.summary.text))
        }
        Info::ModelChange(c) => {
            let id = c
                .model_id
                .as_deref()
                .map(crate::session::line::jskey::display);
            format!("[model: {}]", id.as_deref().unwrap_or("undefined"))
        }
        Info::ThinkingLevel(level) => {
            let level = level.as_deref().map(crate::session::line::jskey::display);
            format!("[thinking: {}]", level.as_deref().unwrap_or("undefined"))
        }
        Info::Custom { custom_type } => {
            format!(
                "[custom: {}]",
                custom_type.as_deref().unwrap_or("undefined")
            )
        }
        Info::ContextEdit { target, omit } => format!(
            "[context {}: {}]",
            if *omit { "omit" } else { "replace" },
            target.as_deref().unwrap_or("undefined")
        ),
        Info::Label(l) => {
            let label = l.label.as_deref().map(crate::session::line::jskey::display);
            format!("[label: {}]", label.as_deref().unwrap_or("(cleared)"))
        }
        Info::SessionInfo { name } => match name
            .as_deref()
            .map(crate::session::line::jskey::display)
            .filter(|n| !n.is_empty())
        {
            Some(n) => format!("[title: {n}]"),
            None => "[title: empty]".to_string(),
        },
        Info::Usage(u) => format!("[usage: {}]", u.kind.as_deref().unwrap_or("")),
        Info::None | Info::Type(_) => format!("[{}]", entry.type_str()),
    }
}

/// A path with the home folder written as `~`.
pub fn shorten_home(p: &str, home: Option<&str>) -> String {
    match home.filter(|h| !h.is_empty()) {
        Some(h) if p == h => "~".to_string(),
        Some(h) if p.starts_with(h) && p[h.len()..].starts_with('/') => {
            format!("~{}", &p[h.len()..])
        }
        _ => p.to_string(),
    }
}

/// pi's `formatToolCall`.
pub fn format_tool_call(call: &ToolCall, home: Option<&str>) -> String {
    let path = || shorten_home(call.path.as_deref().unwrap_or(""), home);
    let name = call.name.as_deref().unwrap_or("undefined");
    match name {
        "read" => {
            let range = match (call.offset, call.limit) {
                (None, None) => String::new(),
                (offset, limit) => {
                    let start = offset.unwrap_or(1.0);
                    match limit {
                        Some(l) => format!(":{}-{}", start, start + l - 1.0),
                        None => format!(":{start}"),
                    }
                }
            };
            format!("[read: {}{range}]", path())
        }
        "write" => format!("[write: {}]", path()),
        "edit" => format!("[edit: {}]", path()),
        "bash" => {
            let cmd = call
                .command
                .clone()
                .unwrap_or_else(|| crate::session::line::fields::bash_command(""));
            format!(
                "[bash: {}{}]",
                cmd.text,
                if cmd.truncated { "..." } else { "" }
            )
        }
        "grep" => format!(
            "[grep: /{}/ in {}]",
            call.pattern.as_deref().unwrap_or(""),
            shorten_home(call.path.as_deref().unwrap_or("."), home)
        ),
        "find" => format!(
            "[find: {} in {}]",
            call.pattern.as_deref().unwrap_or(""),
            shorten_home(call.path.as_deref().unwrap_or("."), home)
        ),
        "ls" => format!(
            "[ls: {}]",
            shorten_home(call.path.as_deref().unwrap_or("."), home)
        ),
        _ => {
            let long = jstext::len_utf16(&call.raw_args) > 40;
            let args = head(&call.raw_args, 40);
            format!("[{name}: {args}{}]", if long { "..." } else { "" })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts read row by row from a session at outline depth are the texts
    /// a whole read gives, tool rows and bare turns included; a line pi
    /// appends meanwhile is not in the session and changes nothing.
    #[test]
    fn lazy_texts_are_the_whole_reads_texts() {
        use std::io::Write;
        let mut f = tempfile::NamedTempFile::new().unwrap();
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"read it"}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"t1","name":"read","arguments":{"path":"/w/src/a.rs"}}],"stopReason":"toolUse"}}"#,
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"t1","toolName":"read","content":[{"type":"text","text":"fn main"}]}}"#,
            r#"{"type":"thinking_level_change","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:04.000Z","thinkingLevel":"high"}"#,
            r#"{"type":"message","id":"e","parentId":"d","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"stopReason":"stop"}}"#,
        ];
        for l in lines {
            writeln!(f, "{l}").unwrap();
        }
        let whole = Session::open(f.path()).unwrap();
        let outline = Session::open_with(f.path(), crate::session::Detail::Outline).unwrap();
        writeln!(f, r#"{{"type":"message","id":"z","parentId":"e","message":{{"role":"user","content":"later"}}}}"#).unwrap();
        let mut lazy = LazyTexts::read(&outline).unwrap();
        let calls = ToolCalls::collect(&whole);
        for i in 0..whole.entries.len() as u32 {
            let want = entry_line(whole.entry(i), &calls, Some("/w"));
            assert_eq!(
                lazy.text(&outline, i, Some("/w")).unwrap(),
                want,
                "entry {i}"
            );
            let m = whole.entry(i).message();
            assert_eq!(lazy.bare(i), m.is_some_and(super::bare_turn));
        }
        assert!(lazy.bare(1));
        assert_eq!(
            lazy.text(&outline, 2, Some("/w")).unwrap(),
            entry_line(whole.entry(2), &calls, Some("/w"))
        );
        assert!(
            lazy.text(&outline, 2, Some("/w"))
                .unwrap()
                .contains("~/src/a.rs")
        );
    }

    /// The fast reads of a row's text and of a turn agree with the full
    /// read on every line of the test corpora (and on lines made to trip
    /// them), or decline.
    #[test]
    fn fast_row_texts_agree_with_the_full_read() {
        use crate::session::line::entry::{Full, LineParse};
        use crate::session::read::blocks::LineMeta;
        let full = |line: &[u8]| {
            let mut meta = LineMeta {
                offset: 0,
                len: line.len() as u64,
                number: 1,
                terminated: true,
                lossy: false,
            };
            match crate::session::line::to_entry::parse_line_bytes::<Full>(line, &mut meta) {
                LineParse::Entry(e) | LineParse::Header(_, e) | LineParse::NotObject(e) => Some(e),
                _ => None,
            }
        };
        let odd = [
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":" "},{"type":"text","text":"\n"}]}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[{"type":"text","text":"  "}],"stopReason":"error","errorMessage":"boom"}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":[],"stopReason":"aborted"}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant","content":null}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"assistant"}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":[{"type":"toolCall","id":"u1","name":"ls","arguments":{}}]}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"\u00e9t\u00e9 \n\tx"}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":[null,{"type":"text","text":"x"}]}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":[{"type":"text","text":null},{"type":"text"}]}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":"u1","toolName":"ls","content":[{"type":"toolCall","id":"u2"}]}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"toolResult","toolCallId":7,"content":"x"}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"content":"x","role":"user"}}"#,
            r#"{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"},"name":"n"}"#,
        ];
        let mut corpora: Vec<Vec<Vec<u8>>> = crate::session::read::file::test_session_files()
            .into_iter()
            .map(|path| {
                let bytes = std::fs::read(&path).unwrap();
                bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect()
            })
            .collect();
        corpora.push(odd.iter().map(|l| l.as_bytes().to_vec()).collect());
        let (mut lines, mut rows, mut turns) = (0, 0, 0);
        for file in corpora {
            let entries: Vec<_> = file.iter().map(|l| full(l)).collect();
            let mut calls = ToolCalls::owned();
            for e in entries.iter().flatten() {
                calls.add_from(e);
            }
            for (line, e) in file.iter().zip(&entries) {
                lines += 1;
                let text = String::from_utf8_lossy(line);
                if let Some(fast) = plain_row_text(line, &calls, Some("/home/ada")) {
                    rows += 1;
                    let e = e
                        .as_ref()
                        .expect("the fast path read a line that is no entry");
                    assert_eq!(fast, entry_line(e, &calls, Some("/home/ada")), "{text}");
                }
                if let Some(turn) = plain_turn(line) {
                    turns += 1;
                    let m = e.as_ref().and_then(|e| e.message());
                    assert_eq!(turn.bare, m.is_some_and(bare_turn), "{text}");
                    assert!(m.is_some_and(|m| m.content.tool_calls.is_empty()), "{text}");
                }
            }
        }
        // Most lines take the fast paths.
        assert!(
            rows * 2 > lines && turns * 5 > lines * 2,
            "{rows}, {turns} of {lines}"
        );
    }

    /// pi's `trim()` removes U+FEFF and keeps U+0085; `slice(0, n)` counts
    /// UTF-16 units and may keep half a pair, which pi prints as U+FFFD.
    #[test]
    fn one_line_texts_cut_and_trim_like_pi() {
        assert_eq!(normalize("\u{feff}ls\t-la\n\u{feff}"), "ls -la");
        assert_eq!(normalize("ls\u{85}"), "ls\u{85}");
        let text = format!("{}😀tail", "a".repeat(199));
        assert_eq!(head(&text, 200), format!("{}\u{FFFD}", "a".repeat(199)));
        assert_eq!(head("😀😀😀", 4), "😀😀");
    }
}
