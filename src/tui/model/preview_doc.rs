//! The context preview as lines to draw: what pi would send if the selected
//! entry were the leaf, rendered for reading. Built on a worker thread.

use crate::safe_text as text;
use crate::session::content::{Block, Content};
use crate::session::entry::Kind;
use crate::session::jskey;
use crate::tui::clock::Clock;
use crate::tui::look::format;
use crate::tui::look::theme::Theme;
use crate::tui::model::loaded::LoadedSession;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Lines a folded block shows before "… N more lines".
const FOLDED_LINES: usize = 4;
/// Lines a folded tool result or command output shows.
const FOLDED_OUTPUT_LINES: usize = 6;
/// Context entries shown before the selected one, unless expanded: the
/// context of an entry deep in a long session is long to read and to build.
const WINDOW_ITEMS: usize = 400;
/// Body text is indented by this many columns under its heading.
const INDENT: usize = 2;

/// How the preview shows the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PreviewMode {
    /// The entry's line as pretty-printed JSON instead of the context.
    pub raw: bool,
    /// Folded thinking, tool output and collapsed sections shown in full.
    pub expanded: bool,
}

/// Which preview: of which loaded session, entry, mode and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewKey {
    /// Tells apart two sessions shown one after the other.
    pub session: u64,
    pub node: u32,
    pub mode: PreviewMode,
    /// Columns available for text.
    pub width: u16,
}

/// Everything a worker needs to build one preview.
#[derive(Clone)]
pub struct PreviewRequest {
    pub generation: u64,
    pub key: PreviewKey,
    pub loaded: Arc<LoadedSession>,
    pub theme: Theme,
    pub clock: Clock,
    /// The key that expands the preview, as the user's keymap names it
    /// (the notes of what is folded or left out name it).
    pub expand_key: String,
    /// The newest generation asked for; a build that falls behind stops.
    pub latest: Arc<AtomicU64>,
}

/// A built preview.
#[derive(Debug, Clone)]
pub struct PreviewDoc {
    pub generation: u64,
    pub key: PreviewKey,
    /// Model, thinking level, messages, tokens and cost of the branch.
    pub header: Line<'static>,
    pub lines: Vec<Line<'static>>,
    /// First line and line count of the selected entry's own messages.
    pub anchor: Option<(usize, usize)>,
}

/// Builds the preview; `None` when a newer request made it pointless.
pub fn build(req: &PreviewRequest) -> Option<PreviewDoc> {
    let mut doc = Writer {
        lines: Vec::new(),
        width: usize::from(req.key.width).max(8),
        theme: &req.theme,
        highlight: None,
        expanded: req.key.mode.expanded,
        expand_key: &req.expand_key,
    };
    let header = if req.key.mode.raw {
        raw_json(req, &mut doc)
    } else {
        context(req, &mut doc)?
    };
    let anchor = doc.anchor();
    Some(PreviewDoc {
        generation: req.generation,
        key: req.key,
        header,
        lines: doc.lines,
        anchor,
    })
}

fn raw_json(req: &PreviewRequest, doc: &mut Writer<'_>) -> Line<'static> {
    let s = &req.loaded.session;
    let e = s.entry(req.key.node);
    let header = Line::from(vec![
        Span::styled("raw JSON", req.theme.title),
        Span::styled(
            format!(
                " · entry {} · line {}",
                text::clean_line(e.id_str().unwrap_or("(no id)")),
                e.line
            ),
            req.theme.muted,
        ),
    ]);
    match s.line_text(req.key.node) {
        Ok(line) => {
            let pretty = serde_json::from_str::<Value>(&line)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or(line);
            doc.block(&visible_json(&pretty), req.theme.text, 0, usize::MAX);
        }
        Err(e) => doc.para(&e.to_string(), req.theme.error, 0),
    }
    header
}

/// JSON text with every character a terminal would not show (zero-width
/// and format characters, combining marks, odd spaces, controls) written as
/// its JSON escape, so the raw view shows what the line holds.
fn visible_json(json: &str) -> String {
    use unicode_width::UnicodeWidthChar;
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let hidden = match c {
            '\n' | ' ' => false,
            c if c.is_control() || (c.is_whitespace()) => true,
            // Bidi controls and the like draw nothing (or reorder the line).
            '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' => true,
            '\u{feff}' | '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{180e}' => true,
            c => c.width().is_none_or(|w| w == 0),
        };
        if hidden {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn context(req: &PreviewRequest, doc: &mut Writer<'_>) -> Option<Line<'static>> {
    let t = &req.loaded;
    let s = &t.session;
    let theme = &req.theme;
    let path = s.tree.path_to(req.key.node);
    let ctx = s.context_for_path(path);
    let (mut tokens, mut cost) = (0.0, 0.0);
    for &i in &ctx.path {
        if let Some(&u) = s.entry(i).usage.as_deref() {
            tokens += u.tokens;
            cost += u.cost;
        }
    }
    let mut file = match crate::session::file::open_regular(&s.path) {
        Ok(f) => f,
        Err(e) => {
            doc.para(
                &format!("cannot read {}: {e}", s.path.display()),
                theme.error,
                0,
            );
            return Some(Line::styled("context unavailable", theme.error));
        }
    };
    let mut messages = 0usize;
    // A long branch shows its last entries; the expanded view shows all.
    let skip = if req.key.mode.expanded {
        0
    } else {
        ctx.items.len().saturating_sub(WINDOW_ITEMS)
    };
    // The header counts every message pi would send, shown or not.
    for (k, item) in ctx.items.iter().enumerate().take(skip) {
        if k % 256 == 0 && req.latest.load(Ordering::Relaxed) != req.generation {
            return None;
        }
        messages += s.context_messages(item, &mut file).map_or(0, |l| l.len());
    }
    if skip > 0 {
        doc.para(
            &format!(
                "… {} before these are in the context too ({} shows everything)",
                format::count(skip, "entry", "entries"),
                req.expand_key
            ),
            theme.muted,
            0,
        );
        doc.blank();
    }
    for (k, item) in ctx.items.iter().enumerate().skip(skip) {
        if k % 256 == 0 && req.latest.load(Ordering::Relaxed) != req.generation {
            return None;
        }
        let list = match s.context_messages(item, &mut file) {
            Ok(list) => list,
            Err(e) => {
                doc.para(&e.to_string(), theme.error, 0);
                continue;
            }
        };
        let selected = item.entry == req.key.node;
        if selected {
            doc.start_highlight();
        }
        let replaced = (ctx.compaction == Some(item.entry)).then(|| {
            let pos = ctx.path.iter().position(|&p| p == item.entry).unwrap_or(0);
            let kept = ctx.items[1..]
                .iter()
                .filter(|it| ctx.path[..pos].contains(&it.entry))
                .count();
            pos.saturating_sub(kept)
        });
        for m in &list {
            let v: Value = serde_json::from_str(m).unwrap_or(Value::Null);
            message(doc, &v, replaced, req);
            messages += 1;
        }
        if selected {
            doc.end_highlight();
        }
    }
    if doc.anchor().is_none() {
        let e = s.entry(req.key.node);
        let what = match e.kind {
            Kind::Usage => "a usage record".to_string(),
            _ => format!("a {} entry", e.kind.as_str().replace('_', " ")),
        };
        doc.blank();
        doc.start_highlight();
        doc.para(
            &format!("The selected entry is {what}: it adds nothing to the context."),
            theme.muted,
            0,
        );
        doc.end_highlight();
    }
    if messages == 0 && ctx.items.is_empty() {
        doc.para("(the context is empty)", theme.muted, 0);
    }
    let model = ctx.model.as_ref().map_or("no model".to_string(), |m| {
        text::clean_line(&m.model_id.as_deref().map_or("?".into(), jskey::display))
    });
    let thinking = ctx
        .thinking_level
        .as_deref()
        .map_or("thinking unset".to_string(), |l| {
            format!("thinking {}", text::clean_line(&jskey::display(l)))
        });
    let numbers = format!(
        "{} · {} tokens · {}",
        format::count(messages, "message", "messages"),
        format::tokens(tokens),
        format::cost(cost)
    );
    Some(header_line(
        &model,
        &thinking,
        &numbers,
        usize::from(req.key.width),
        theme,
    ))
}

/// The context's header in `width` columns: the numbers whole, the model's
/// name cut first, then the thinking level left out.
fn header_line(
    model: &str,
    thinking: &str,
    numbers: &str,
    width: usize,
    theme: &Theme,
) -> Line<'static> {
    /// Narrower than this, a model's name says nothing.
    const MODEL_MIN: usize = 8;
    let with_thinking = format!(" · {thinking} · {numbers}");
    let rest = if text::width(model) + text::width(&with_thinking) <= width
        || width.saturating_sub(text::width(&with_thinking)) >= MODEL_MIN
    {
        with_thinking
    } else {
        format!(" · {numbers}")
    };
    let room = width.saturating_sub(text::width(&rest));
    if room < MODEL_MIN.min(text::width(model)) {
        return Line::styled(text::truncate(numbers, width), theme.muted);
    }
    Line::from(vec![
        Span::styled(text::truncate(model, room), theme.title),
        Span::styled(rest, theme.muted),
    ])
}

/// One context message.
fn message(doc: &mut Writer<'_>, v: &Value, replaced: Option<usize>, req: &PreviewRequest) {
    let theme = &req.theme;
    let role = str_field(v, "role").unwrap_or("?");
    let time = v
        .get("timestamp")
        .and_then(Value::as_f64)
        .filter(|t| t.is_finite())
        .map(|t| req.clock.short_time(t as i64));
    let mut heading: Vec<(String, Style)> = Vec::new();
    let role_style = match role {
        "user" => theme.user,
        "assistant" => theme.assistant,
        "toolResult" | "bashExecution" => theme.tool,
        "compactionSummary" => theme.compaction,
        "branchSummary" => theme.branch_summary,
        _ => theme.custom,
    };
    let role_word = match role {
        "toolResult" => "tool result".to_string(),
        "bashExecution" => "bash".to_string(),
        "compactionSummary" => "compaction".to_string(),
        "branchSummary" => "branch summary".to_string(),
        other => text::clean_line(other),
    };
    heading.push((role_word, role_style));
    match role {
        "assistant" => {
            if let Some(m) = str_field(v, "model") {
                heading.push((text::clean_line(m), theme.muted));
            }
        }
        "toolResult" => {
            if let Some(name) = str_field(v, "toolName") {
                heading.push((text::clean_line(name), theme.muted));
            }
            if v.get("isError").and_then(Value::as_bool) == Some(true) {
                heading.push(("error".into(), theme.error));
            }
        }
        "custom" => {
            if let Some(t) = str_field(v, "customType") {
                heading.push((text::clean_line(t), theme.muted));
            }
        }
        "compactionSummary" => {
            if let Some(n) = replaced {
                heading.push((
                    format!("replaced {}", format::count(n, "entry", "entries")),
                    theme.muted,
                ));
            }
            if let Some(t) = v.get("tokensBefore").and_then(Value::as_f64) {
                heading.push((format!("{} tokens before", format::tokens(t)), theme.muted));
            }
        }
        _ => {}
    }
    if let Some(t) = time {
        heading.push((t, theme.muted));
    }
    doc.heading(heading, role_style);
    let expanded = doc.expanded;
    match role {
        "user" | "assistant" | "toolResult" => {
            let limit = if role == "toolResult" {
                FOLDED_OUTPUT_LINES
            } else {
                usize::MAX
            };
            content(doc, v.get("content"), limit, req);
            if role == "assistant" {
                if let Some(err) = str_field(v, "errorMessage").filter(|e| !e.is_empty()) {
                    doc.para(&format!("error: {err}"), theme.error, INDENT);
                }
                if str_field(v, "stopReason") == Some("aborted") {
                    doc.para("(aborted)", theme.muted, INDENT);
                }
            }
        }
        "bashExecution" => {
            let cmd = str_field(v, "command").unwrap_or("");
            doc.para(&format!("$ {cmd}"), theme.accent, INDENT);
            let output = str_field(v, "output").unwrap_or("");
            doc.folded(output, theme.text, FOLDED_OUTPUT_LINES);
            if let Some(code) = v.get("exitCode").and_then(Value::as_i64) {
                if code != 0 {
                    doc.para(&format!("exit code {code}"), theme.error, INDENT);
                }
            }
        }
        "compactionSummary" | "branchSummary" => {
            let summary = str_field(v, "summary").unwrap_or("");
            doc.block(summary, theme.text, INDENT, usize::MAX);
        }
        "custom" | "system" | "hookMessage" => {
            // Extension and system messages are rarely what one reads: one line.
            let limit = if expanded { usize::MAX } else { 1 };
            content(doc, v.get("content"), limit, req);
        }
        _ => {
            let json = serde_json::to_string_pretty(v).unwrap_or_default();
            doc.folded(&json, theme.muted, FOLDED_LINES);
        }
    }
    doc.blank();
}

/// Message content: a string, or text / thinking / tool-call / image blocks,
/// each styled its own way.
fn content(doc: &mut Writer<'_>, c: Option<&Value>, limit: usize, req: &PreviewRequest) {
    let theme = &req.theme;
    match Content::of(c) {
        Content::Text(s) => doc.folded(s, theme.text, limit),
        blocks @ Content::Blocks(_) => {
            for b in blocks.blocks() {
                match b {
                    Block::Text(t) => doc.folded(t, theme.text, limit),
                    Block::Thinking(t) => {
                        doc.para("thinking", theme.muted, INDENT);
                        doc.folded(t, theme.muted, FOLDED_LINES);
                    }
                    Block::ToolCall { name, arguments } => tool_call(doc, name, arguments, theme),
                    Block::Image { mime, data } => {
                        let mime = mime.unwrap_or("image/?");
                        let kind = mime.strip_prefix("image/").unwrap_or(mime);
                        let size = data.map_or(0, |d| d.len() as u64 * 3 / 4);
                        doc.para(
                            &format!("[image {kind} {}]", format::bytes(size)),
                            theme.accent,
                            INDENT,
                        );
                    }
                    Block::Other(b) => doc.folded(&b.to_string(), theme.muted, 1),
                }
            }
        }
        Content::None => {}
        Content::Other(other) => doc.para(&other.to_string(), theme.muted, INDENT),
    }
}

fn tool_call(doc: &mut Writer<'_>, name: Option<&str>, arguments: Option<&Value>, theme: &Theme) {
    doc.para(&format!("→ {}", name.unwrap_or("?")), theme.accent, INDENT);
    match arguments {
        Some(Value::Object(args)) => {
            for (k, v) in args {
                let shown = match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let lines = shown.lines().count().max(1);
                if lines == 1 {
                    doc.para(&format!("{k}: {shown}"), theme.text, INDENT * 2);
                } else {
                    doc.para(&format!("{k}:"), theme.text, INDENT * 2);
                    doc.folded_at(&shown, theme.text, FOLDED_LINES, INDENT * 3);
                }
            }
        }
        Some(other) => doc.para(&other.to_string(), theme.text, INDENT * 2),
        None => {}
    }
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Appends clean, wrapped lines, and remembers where the selected entry's
/// lines are.
struct Writer<'a> {
    lines: Vec<Line<'static>>,
    width: usize,
    theme: &'a Theme,
    /// Where the highlighted lines start, and end once closed.
    highlight: Option<(usize, Option<usize>)>,
    expanded: bool,
    expand_key: &'a str,
}

impl Writer<'_> {
    fn push(&mut self, line: Line<'static>) {
        let line = match self.highlight {
            Some((_, None)) => line.patch_style(self.theme.preview_selected),
            _ => line,
        };
        self.lines.push(line);
    }

    /// Lines pushed from now on belong to the selected entry.
    fn start_highlight(&mut self) {
        self.highlight = Some((self.lines.len(), None));
    }

    fn end_highlight(&mut self) {
        if let Some((start, None)) = self.highlight {
            self.highlight = Some((start, Some(self.lines.len())));
        }
    }

    /// The selected entry's lines, when there are any.
    fn anchor(&self) -> Option<(usize, usize)> {
        let (start, end) = self.highlight?;
        let end = end.unwrap_or(self.lines.len());
        (end > start).then_some((start, end - start))
    }

    fn blank(&mut self) {
        self.push(Line::default());
    }

    fn heading(&mut self, parts: Vec<(String, Style)>, style: Style) {
        let mut spans = vec![Span::styled("▍", style)];
        for (k, (text, st)) in parts.into_iter().enumerate() {
            if k > 0 {
                spans.push(Span::styled(" · ", self.theme.muted));
            } else {
                spans.push(Span::raw(" "));
            }
            spans.push(Span::styled(text, st));
        }
        let line = Line::from(spans);
        // A heading longer than the pane is cut rather than wrapped.
        self.push(line);
    }

    /// A paragraph: each source line wrapped, indented.
    fn para(&mut self, s: &str, style: Style, indent: usize) {
        self.block(s, style, indent, usize::MAX);
    }

    /// Up to `limit` source lines of a block, then a note of how many were left out.
    fn block(&mut self, s: &str, style: Style, indent: usize, limit: usize) {
        let lines = text::clean_block(s.trim_end_matches('\n'));
        let total = lines.len();
        let pad = " ".repeat(indent);
        let cols = self.width.saturating_sub(indent).max(4);
        for line in lines.into_iter().take(limit) {
            for row in text::wrap(&line, cols) {
                self.push(Line::from(vec![
                    Span::raw(pad.clone()),
                    Span::styled(row, style),
                ]));
            }
        }
        if total > limit {
            let hidden = total - limit;
            self.push(Line::from(vec![
                Span::raw(pad),
                Span::styled(
                    format!(
                        "… {} more ({} expands)",
                        format::count(hidden, "line", "lines"),
                        self.expand_key
                    ),
                    self.theme.muted,
                ),
            ]));
        }
    }

    /// A block folded to `limit` lines unless the preview is expanded.
    fn folded(&mut self, s: &str, style: Style, limit: usize) {
        self.folded_at(s, style, limit, INDENT);
    }

    fn folded_at(&mut self, s: &str, style: Style, limit: usize, indent: usize) {
        let limit = if self.expanded { usize::MAX } else { limit };
        self.block(s, style, indent, limit);
    }
}
