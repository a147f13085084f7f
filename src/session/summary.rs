//! One line per entry, in the words of pi's `/tree`: `user: …`,
//! `[read: path]`, `[compaction: 12k tokens]`, and so on.

use super::Session;
use super::entry::{Entry, Info, Role, ToolCall};
use crate::jstext;
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

/// The one-line texts of a session read at outline depth (whose messages
/// keep no texts), each read from its line when it is asked for: a listing
/// of a million entries keeps no million texts. One pass over the file
/// first collects what the texts and pi's filter need of other entries.
pub struct LazyTexts {
    calls: ToolCalls<'static>,
    /// By entry: an assistant turn pi's tree hides (see
    /// [`bare_turn`]).
    bare: Vec<bool>,
    lines: super::read::SpanReader,
}

impl LazyTexts {
    /// Reads what the texts need from `s`'s file (a session at outline
    /// depth: not a legacy one, whose messages migrate).
    pub fn read(s: &Session) -> Result<LazyTexts, super::SessionError> {
        let mut calls = ToolCalls(HashMap::new());
        let mut bare = Vec::with_capacity(s.entries.len());
        let mut same = true;
        super::scan_entries(&s.path, super::Detail::Full, |e, _| {
            // Lines appended since the session was read are not in it.
            let Some(known) = s.entries.get(bare.len()) else {
                return;
            };
            same &= known.span == e.span;
            let m = e.message();
            bare.push(m.is_some_and(bare_turn));
            if let Some(m) = m {
                for call in &m.content.tool_calls {
                    if let Some(id) = &call.id {
                        calls
                            .0
                            .insert(Cow::Owned(id.to_string()), Cow::Owned(call.clone()));
                    }
                }
            }
        })?;
        if !same || bare.len() != s.entries.len() {
            return Err(super::SessionError::Invalid {
                path: s.path.clone(),
                message: "the file changed while it was read; try again".to_string(),
            });
        }
        Ok(LazyTexts {
            calls,
            bare,
            lines: super::read::SpanReader::new(s.open_file()?),
        })
    }

    /// Whether entry `i` is an assistant turn pi's tree hides.
    pub fn bare(&self, i: u32) -> bool {
        self.bare.get(i as usize).copied().unwrap_or(false)
    }

    /// The text of entry `i`'s row (see [`entry_line`]).
    pub fn text(
        &mut self,
        s: &Session,
        i: u32,
        home: Option<&str>,
    ) -> Result<String, super::SessionError> {
        let e = s.entry(i);
        let io = |err| super::SessionError::io(&s.path, err);
        let bytes = self.lines.bytes(e.span.offset, e.span.len).map_err(io)?;
        let mut meta = super::read::LineMeta {
            offset: e.span.offset,
            len: e.span.len,
            number: e.line,
            terminated: true,
            lossy: false,
        };
        use super::entry::LineParse;
        match super::quick::parse_line_bytes::<super::entry::Full>(bytes, &mut meta) {
            LineParse::Entry(full) | LineParse::Header(_, full) | LineParse::NotObject(full) => {
                Ok(entry_line(&full, &self.calls, home))
            }
            _ => Ok(entry_line(e, &self.calls, home)),
        }
    }
}

/// An assistant turn with no text that neither failed nor was aborted (one
/// that only calls tools): pi's tree hides it unless it is the leaf.
pub fn bare_turn(m: &super::entry::MessageInfo) -> bool {
    let failed = m
        .stop_reason
        .as_deref()
        .is_some_and(|r| r != "stop" && r != "toolUse");
    m.role == Role::Assistant && !m.content.text.has_text && !failed
}

pub use super::fields::normalize;

/// The first `units` UTF-16 units of a text, as pi's `slice(0, units)`.
fn head(s: &str, units: i64) -> Cow<'_, str> {
    jstext::slice(s, 0, Some(units))
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
            let id = c.model_id.as_deref().map(super::jskey::display);
            format!("[model: {}]", id.as_deref().unwrap_or("undefined"))
        }
        Info::ThinkingLevel(level) => {
            let level = level.as_deref().map(super::jskey::display);
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
            let label = l.label.as_deref().map(super::jskey::display);
            format!("[label: {}]", label.as_deref().unwrap_or("(cleared)"))
        }
        Info::SessionInfo { name } => match name
            .as_deref()
            .map(super::jskey::display)
            .filter(|n| !n.is_empty())
        {
            Some(n) => format!("[title: {n}]"),
            None => "[title: empty]".to_string(),
        },
        Info::Usage(u) => format!("[usage: {}]", u.kind.as_deref().unwrap_or("")),
        Info::None => format!("[{}]", entry.kind.as_str()),
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
                .unwrap_or_else(|| super::fields::bash_command(""));
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
        let outline = Session::open_with(f.path(), super::super::Detail::Outline).unwrap();
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
