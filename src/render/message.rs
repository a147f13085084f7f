//! Context messages (pi's message JSON) as document blocks: user and
//! assistant text as markdown, thinking folded, each tool call drawn with
//! the result that answers it (`edit` as a diff, `write` as the new file's
//! head, `bash` as command and output, `read` as path, range and content),
//! bash executions, summaries, custom and system messages, images.

use super::ansi;
use super::diff;
use super::document::{Block, BlockKind, Class, CodeLine, Fold, Line, LineKind, Node, Span};
use super::from_markdown;
use super::highlight::{self, Lang};
use crate::jstext::date as jsdate;
use crate::safe_text;
use crate::session::content::{Block as ContentBlock, Content};
use serde_json::Value;
use std::collections::HashMap;

/// Lines of tool output (and bash output) kept in a block; the rest is
/// counted.
pub const OUTPUT_LINES: usize = 400;

/// Lines of a command the user ran shown while it is folded: its last
/// (pi's count).
pub const USER_BASH_TAIL: usize = 20;

/// Lines of a written file shown while it is folded (pi's count).
pub const WRITE_HEAD: usize = 10;

/// The widest a title's command or path is kept, in characters.
const TITLE_CHARS: usize = 160;

/// One message of the context and the entry it came from.
pub struct Message {
    pub entry: Option<u32>,
    pub value: Value,
}

/// Blocks for a list of messages, in order. A tool result that answers a
/// call in the list is drawn with the call, not on its own.
pub fn blocks(messages: &[Message]) -> Vec<Block> {
    let mut results: HashMap<&str, usize> = HashMap::new();
    for (k, m) in messages.iter().enumerate() {
        if role(&m.value) == "toolResult" {
            if let Some(id) = m.value.get("toolCallId").and_then(Value::as_str) {
                results.entry(id).or_insert(k);
            }
        }
    }
    let mut used = vec![false; messages.len()];
    let mut out = Vec::new();
    for (k, m) in messages.iter().enumerate() {
        if used[k] {
            continue;
        }
        if role(&m.value) == "assistant" {
            assistant(m, messages, &results, &mut used, &mut out);
        } else {
            out.extend(message(m));
        }
    }
    out
}

fn role(m: &Value) -> &str {
    m.get("role").and_then(Value::as_str).unwrap_or("")
}

fn str_field<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn title(parts: &[(&str, Class)]) -> Line {
    parts.iter().map(|(t, c)| Span::new(t, *c)).collect()
}

/// The message's time (its `timestamp`, milliseconds or a date string).
fn time(m: &Value) -> Option<Span> {
    let ms = jsdate::value_ms(m.get("timestamp")?)?;
    let iso = jsdate::format_iso(ms);
    // `2026-01-02T03:04:05.678Z` → `2026-01-02 03:04:05`
    let shown = iso.get(..19).unwrap_or(&iso).replace('T', " ");
    Some(Span::new(&format!("  {shown}"), Class::Time))
}

fn with_time(mut line: Line, m: &Value) -> Line {
    line.extend(time(m));
    line
}

fn cut(s: &str) -> String {
    let first = s.lines().next().unwrap_or("");
    let mut out: String = first.chars().take(TITLE_CHARS).collect();
    if out.len() < first.len() || s.lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

/// Text and images of content, as markdown nodes and image placeholders.
fn content_nodes(content: Option<&Value>) -> Vec<Node> {
    match Content::of(content) {
        Content::Text(s) => from_markdown::parse(s),
        c @ Content::Blocks(_) => {
            let mut out = Vec::new();
            for b in c.blocks() {
                match b {
                    ContentBlock::Text(t) => out.extend(from_markdown::parse(t)),
                    ContentBlock::Image { mime, data } => out.push(image(mime, data)),
                    ContentBlock::Thinking(t) => {
                        out.extend(from_markdown::plain(t, Class::Thinking))
                    }
                    other => out.extend(from_markdown::plain(&other.readable(), Class::Dim)),
                }
            }
            out
        }
        Content::Other(v) => from_markdown::plain(&v.to_string(), Class::Dim),
        Content::None => Vec::new(),
    }
}

/// An image block: its type, its decoded size, and its data when it is a
/// raster image whose base64 is well formed (for drawers that show it).
pub fn image(mime: Option<&str>, data: Option<&str>) -> Node {
    let mime = safe_text::clean_line(mime.unwrap_or("image/?"));
    let data = data.unwrap_or("");
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count();
    let bytes = (data.len() / 4 * 3).saturating_sub(padding.min(2));
    let raster = is_raster(&mime);
    let well_formed = !data.is_empty()
        && data.len().is_multiple_of(4)
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'=');
    Node::Image {
        mime,
        bytes,
        data: (raster && well_formed).then(|| data.to_string()),
    }
}

/// Whether a drawer can show an image of this type (PNG, JPEG, GIF, WebP).
pub fn is_raster(mime: &str) -> bool {
    matches!(
        mime,
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    )
}

/// The placeholder text of an image: `[image png 12 KB]`.
pub fn image_label(mime: &str, bytes: usize) -> String {
    let kind = mime.strip_prefix("image/").unwrap_or(mime);
    format!("[image {kind} {}]", size(bytes))
}

fn size(bytes: usize) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{} KB", b.div_ceil(1024)),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// The first `keep` lines of `text` (only those are read: output can
/// have millions), and how many lines follow them.
fn head_lines(text: &str, keep: usize) -> (&str, usize) {
    match text.match_indices('\n').nth(keep.saturating_sub(1)) {
        Some((k, _)) if keep > 0 => (&text[..k], text[k + 1..].split('\n').count()),
        _ if keep == 0 => ("", text.split('\n').count()),
        _ => (text, 0),
    }
}

/// The last `keep` lines of `text` (only those are read), and how many
/// lines come before them.
fn tail_lines(text: &str, keep: usize) -> (usize, &str) {
    if keep == 0 {
        return (text.split('\n').count(), "");
    }
    match text.rmatch_indices('\n').nth(keep - 1) {
        Some((k, _)) => (text[..k].split('\n').count(), &text[k + 1..]),
        None => (0, text),
    }
}

/// Output text as code lines, escape sequences read as colours, its last
/// [`OUTPUT_LINES`] (the end is what matters: the error, the summary).
fn output(text: &str) -> Vec<Node> {
    let (earlier, tail) = tail_lines(text.trim_end_matches('\n'), OUTPUT_LINES);
    let lines = ansi::parse(tail);
    let mut out = Vec::new();
    if earlier > 0 {
        let note = format!(
            "… {earlier} earlier line{} not shown",
            if earlier == 1 { "" } else { "s" }
        );
        out.push(Node::para(vec![Span::clean(note, Class::Dim)]));
    }
    out.push(Node::Code {
        lang: None,
        lines: lines
            .into_iter()
            .take(OUTPUT_LINES)
            .map(|spans| CodeLine {
                kind: LineKind::Plain,
                spans,
            })
            .collect(),
        more: 0,
        note: None,
    });
    out
}

/// Text as code highlighted by `lang`, cut at `keep` lines.
fn code(text: &str, lang: Lang<'_>, keep: usize) -> Node {
    let (head, more) = head_lines(text.trim_end_matches('\n'), keep);
    let lines = safe_text::clean_block(head);
    let (lines, note) = super::defer::code_lines(&lines, lang);
    Node::Code {
        lang: highlight::language(lang),
        lines,
        more,
        note,
    }
}

fn assistant(
    m: &Message,
    all: &[Message],
    results: &HashMap<&str, usize>,
    used: &mut [bool],
    out: &mut Vec<Block>,
) {
    let v = &m.value;
    let model = str_field(v, "model")
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    let heading = || {
        with_time(
            title(&[("Assistant", Class::RoleAssistant), (&model, Class::Dim)]),
            v,
        )
    };
    let mut text: Option<Block> = None;
    let mut first = true;
    let mut calls = 0usize;
    let flush = |text: &mut Option<Block>, out: &mut Vec<Block>| {
        if let Some(b) = text.take() {
            out.push(b);
        }
    };
    match Content::of(v.get("content")) {
        Content::Text(s) => {
            let mut b = Block::new(BlockKind::Assistant, m.entry, heading());
            b.body = from_markdown::parse(s);
            text = Some(b);
        }
        Content::Blocks(list) => {
            for raw in list {
                match ContentBlock::of(raw) {
                    ContentBlock::Text(t) => {
                        if t.trim().is_empty() {
                            continue;
                        }
                        let b = text.get_or_insert_with(|| {
                            let t = if std::mem::take(&mut first) {
                                heading()
                            } else {
                                title(&[("Assistant", Class::RoleAssistant)])
                            };
                            Block::new(BlockKind::Assistant, m.entry, t)
                        });
                        b.body.extend(from_markdown::parse(t));
                    }
                    ContentBlock::Thinking(t) => {
                        if t.trim().is_empty() {
                            continue;
                        }
                        flush(&mut text, out);
                        let mut b = Block::new(
                            BlockKind::Thinking,
                            m.entry,
                            title(&[("Thinking", Class::Thinking)]),
                        );
                        // Open, as pi shows it (its "hide thinking" is off
                        // by default); it folds on its own.
                        b.fold = Fold::Open;
                        b.body = from_markdown::parse(t);
                        as_thinking(&mut b.body);
                        out.push(b);
                    }
                    ContentBlock::ToolCall { name, arguments } => {
                        flush(&mut text, out);
                        let id = raw.get("id").and_then(Value::as_str);
                        let result = id
                            .and_then(|id| results.get(id))
                            .copied()
                            .filter(|&k| !used[k]);
                        if let Some(k) = result {
                            used[k] = true;
                        }
                        calls += 1;
                        // A call of a turn that was stopped never ran: pi
                        // shows the turn's error as its result.
                        let stopped = match str_field(v, "stopReason") {
                            Some("aborted") => Some("Operation aborted".to_string()),
                            Some("error") => {
                                Some(str_field(v, "errorMessage").unwrap_or("Error").to_string())
                            }
                            _ => None,
                        }
                        .map(|text| {
                            serde_json::json!({
                                "content": [{"type": "text", "text": text}],
                                "isError": true,
                            })
                        });
                        let mut b = tool_call(
                            name.unwrap_or("?"),
                            arguments.unwrap_or(&Value::Null),
                            stopped.as_ref().or(result.map(|k| &all[k].value)),
                        );
                        b.entry = m.entry;
                        if let Some(k) = result {
                            b.also.extend(all[k].entry);
                        }
                        out.push(b);
                    }
                    ContentBlock::Image { mime, data } => {
                        let b = text.get_or_insert_with(|| {
                            Block::new(BlockKind::Assistant, m.entry, heading())
                        });
                        b.body.push(image(mime, data));
                    }
                    ContentBlock::Other(o) => {
                        let b = text.get_or_insert_with(|| {
                            Block::new(BlockKind::Assistant, m.entry, heading())
                        });
                        b.body
                            .extend(from_markdown::plain(&o.to_string(), Class::Dim));
                    }
                }
            }
        }
        Content::Other(o) => {
            let mut b = Block::new(BlockKind::Assistant, m.entry, heading());
            b.body = from_markdown::plain(&o.to_string(), Class::Dim);
            text = Some(b);
        }
        Content::None => {}
    }
    let stop = str_field(v, "stopReason");
    let error = if calls > 0 && matches!(stop, Some("aborted" | "error")) {
        // Its tool calls carry the error, as pi shows them.
        None
    } else {
        match stop {
            Some("aborted") => Some(aborted_text(v)),
            Some("error") => Some(format!(
                "Error: {}",
                str_field(v, "errorMessage").unwrap_or("Unknown error")
            )),
            Some("length") => Some("Response was truncated before completion.".to_string()),
            _ => str_field(v, "errorMessage").map(|e| format!("Error: {e}")),
        }
    };
    if let Some(e) = error {
        let b = text.get_or_insert_with(|| Block::new(BlockKind::Assistant, m.entry, heading()));
        b.body.extend(from_markdown::plain(&e, Class::Error));
    }
    flush(&mut text, out);
}

/// A tool call, with the result that answers it when there is one.
pub fn tool_call(name: &str, args: &Value, result: Option<&Value>) -> Block {
    let arg = |key: &str| args.get(key).and_then(Value::as_str);
    let path = arg("path").or_else(|| arg("file_path"));
    let is_error = result.is_some_and(|r| r.get("isError") == Some(&Value::Bool(true)));
    let result_text = result
        .map(|r| crate::session::content::plain_text(r.get("content")))
        .unwrap_or_default();
    let result_images: Vec<Node> = result
        .map(|r| {
            Content::of(r.get("content"))
                .blocks()
                .filter_map(|b| match b {
                    ContentBlock::Image { mime, data } => Some(image(mime, data)),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let mut head = vec![Span::new(name, Class::ToolName)];
    let mut block = Block::new(BlockKind::ToolCall, None, Vec::new());
    block.fold = Fold::Folded;
    let mut body = Vec::new();
    let mut show_result = true;
    match name {
        "bash" => {
            // pi's title: the prompt and the command, no tool name.
            head.clear();
            let command = arg("command").unwrap_or("");
            head.push(Span::new("$ ", Class::Prompt));
            let (first, lead) = command_lines(command);
            head.push(Span::new(&first, Class::Command));
            block.lead = lead;
            if let Some(t) = args.get("timeout").filter(|t| t.is_number()) {
                let line = block.lead.last_mut().unwrap_or(&mut head);
                line.push(Span::new(&format!(" (timeout {t}s)"), Class::Dim));
            }
            // The command once, as pi shows it: in the body only when the
            // title and the lines under it cannot hold it whole.
            if command_shown_whole(command).is_none() {
                body.push(code(command, Lang::Fence("bash"), usize::MAX));
            }
            block.tail = true;
            let details = result.and_then(|r| r.get("details"));
            let full = details
                .and_then(|d| d.get("fullOutputPath"))
                .and_then(Value::as_str);
            let truncation = details.and_then(|d| d.get("truncation"));
            let truncated = truncation.and_then(|t| t.get("truncated")) == Some(&Value::Bool(true));
            let mut text = result_text.trim();
            // The notice the tool ends a cut output with says what the
            // warning below says: pi leaves it out.
            if let (true, Some(full)) = (truncated, full) {
                if let Some(k) = text.rfind("\n\n[") {
                    if text.ends_with(']') && text[k..].contains(full) {
                        text = text[..k].trim_end();
                    }
                }
            }
            if result.is_some() && !text.is_empty() {
                body.extend(output(text));
            }
            let mut warnings = Vec::new();
            if let Some(full) = full {
                warnings.push(format!("Full output: {full}"));
            }
            if truncated {
                let n = |k: &str| {
                    truncation
                        .and_then(|t| t.get(k))
                        .and_then(Value::as_u64)
                        .unwrap_or(0)
                };
                if truncation
                    .and_then(|t| t.get("truncatedBy"))
                    .and_then(Value::as_str)
                    == Some("lines")
                {
                    warnings.push(format!(
                        "Truncated: showing {} of {} lines",
                        n("outputLines"),
                        n("totalLines")
                    ));
                } else {
                    warnings.push(format!("Truncated: {} lines shown", n("outputLines")));
                }
            }
            if !warnings.is_empty() {
                block.after = Some(vec![Span::new(
                    &format!("[{}]", warnings.join(". ")),
                    Class::Warning,
                )]);
            }
            show_result = false;
        }
        "read" => {
            let p = path.unwrap_or("?");
            match compact_read(p) {
                Some(("skill", name)) => {
                    head = vec![
                        Span::new("[skill] ", Class::RoleCustom),
                        Span::new(&cut(&name), Class::Text),
                    ];
                }
                Some((kind, _)) => {
                    head.push(Span::new(&format!(" {kind} "), Class::ToolName));
                    head.push(Span::new(&cut(p), Class::Path));
                }
                None => {
                    head.push(Span::new(" ", Class::Text));
                    head.push(Span::new(&cut(p), Class::Path));
                }
            }
            let offset = args.get("offset").and_then(Value::as_f64);
            let limit = args.get("limit").and_then(Value::as_f64);
            let range = match (offset, limit) {
                (Some(o), Some(l)) => format!(":{}-{}", o as i64, (o + l) as i64 - 1),
                (Some(o), None) => format!(":{}-", o as i64),
                (None, Some(l)) => format!(":1-{}", l as i64),
                (None, None) => String::new(),
            };
            head.push(Span::new(&range, Class::Dim));
            if !result_images.is_empty() && !is_error {
                // An image read is shown, as pi shows it (its text only
                // names the image's type).
                body.extend(result_images.iter().cloned());
                block.fold = Fold::Open;
            } else {
                if !result_text.is_empty() && !is_error {
                    body.push(code(&result_text, Lang::File(p), OUTPUT_LINES));
                }
                // Folded as pi folds a read: the file's lines all left
                // out, an error's first ten shown.
                block.peek = Some(if is_error { 10 } else { 0 });
            }
            show_result = is_error;
        }
        "grep" | "find" | "ls" => {
            head = listing_title(name, args);
            let warning = listing_warning(name, result.and_then(|r| r.get("details")));
            block.after = warning.map(|w| vec![Span::new(&w, Class::Warning)]);
            let text = result_text.trim();
            if !text.is_empty() {
                body.extend(output(text));
            }
            body.extend(result_images.iter().cloned());
            // pi's counts of the lines a folded listing shows.
            block.peek = Some(if name == "grep" { 15 } else { 20 });
            show_result = false;
        }
        "write" => {
            let p = path.unwrap_or("?");
            let content = arg("content").unwrap_or("");
            head.push(Span::new(" ", Class::Text));
            head.push(Span::new(&cut(p), Class::Path));
            body.push(code(content, Lang::File(p), OUTPUT_LINES));
            // pi shows a written file's first ten lines, and counts the rest.
            block.peek = Some(WRITE_HEAD);
            show_result = is_error;
        }
        "edit" => {
            let p = path.unwrap_or("?");
            head.push(Span::new(" ", Class::Text));
            head.push(Span::new(&cut(p), Class::Path));
            // The tool's own diff (the file's line numbers, its context)
            // when its result has one, as pi draws it; else one made from
            // the arguments.
            let told = result
                .and_then(|r| r.get("details"))
                .and_then(|d| d.get("diff"))
                .and_then(Value::as_str)
                .filter(|d| !d.trim().is_empty());
            // A failed edit changed nothing: pi shows its error alone.
            if !is_error {
                let (lines, more) = match told {
                    Some(d) => diff::told_diff(d),
                    None => diff::edit_diff(&diff::edit_pairs(args)),
                };
                body.push(Node::Code {
                    lang: Some("diff".into()),
                    lines,
                    more,
                    note: None,
                });
            }
            block.fold = Fold::Open;
            show_result = is_error;
        }
        _ => {
            let pretty = serde_json::to_string_pretty(args).unwrap_or_default();
            body.push(code(&pretty, Lang::Fence("json"), OUTPUT_LINES));
            body.extend(result_images.iter().cloned());
        }
    }
    if result.is_none() {
        head.push(Span::new("  (no result)", Class::Dim));
    }
    if is_error {
        head.push(Span::new("  error", Class::Error));
    }
    if show_result && !result_text.trim().is_empty() {
        body.extend(output(&result_text));
    }
    block.title = head;
    block.body = body;
    block
}

/// Lines of a command shown under its title at most, and the widest.
const COMMAND_LINES: usize = 100;
const COMMAND_LINE_CHARS: usize = 1000;

/// A command's lines when they are few and short enough to show whole
/// under its title, as pi shows a command.
fn command_shown_whole(command: &str) -> Option<Vec<&str>> {
    let lines: Vec<&str> = command
        .trim_end_matches('\n')
        .split('\n')
        .take(COMMAND_LINES + 1)
        .collect();
    (lines.len() <= COMMAND_LINES && lines.iter().all(|l| l.len() <= COMMAND_LINE_CHARS))
        .then_some(lines)
}

/// A command's first line for its title and its other lines to go under
/// it; a command too long for that: its first line cut, and no more.
fn command_lines(command: &str) -> (String, Vec<Line>) {
    match command_shown_whole(command) {
        Some(lines) => {
            let first = lines.first().copied().unwrap_or("").to_string();
            let rest = lines
                .iter()
                .skip(1)
                .map(|l| vec![Span::new(l, Class::Command)])
                .collect();
            (first, rest)
        }
        None => (cut(command), Vec::new()),
    }
}

/// What pi says of a turn that was stopped: its error, unless that is the
/// plain "Request was aborted".
fn aborted_text(v: &Value) -> String {
    match str_field(v, "errorMessage") {
        Some(e) if e != "Request was aborted" => e.to_string(),
        _ => "Operation aborted".to_string(),
    }
}

/// Markdown drawn as thinking: its plain text in the thinking class (its
/// emphasis, code and links keep theirs). Walks the nodes with a stack of
/// its own: their nesting is bounded by the parser, not by the stack.
fn as_thinking(nodes: &mut [Node]) {
    fn recolour(line: &mut Line) {
        for span in line.iter_mut() {
            if span.style.class == Class::Text {
                span.style.class = Class::Thinking;
            }
        }
    }
    let mut stack: Vec<&mut Node> = nodes.iter_mut().collect();
    while let Some(node) = stack.pop() {
        match node {
            Node::Para(lines) => lines.iter_mut().for_each(recolour),
            Node::Text { class, .. } if *class == Class::Text => *class = Class::Thinking,
            Node::Heading(_, line) => recolour(line),
            Node::Quote(inner) => stack.extend(inner.iter_mut()),
            Node::List { items, .. } => {
                stack.extend(items.iter_mut().flat_map(|item| item.iter_mut()));
            }
            Node::Table { head, rows, .. } => {
                head.iter_mut().for_each(recolour);
                rows.iter_mut().flatten().for_each(recolour);
            }
            _ => {}
        }
    }
}

/// The files pi shows a read of in a short form while folded: instructions
/// it loads itself (`read resource AGENTS.md`), and a skill's own file
/// (`[skill] NAME`, the skill's folder).
fn compact_read(path: &str) -> Option<(&'static str, String)> {
    let clean = path.trim_end_matches('/');
    let (dir, file) = match clean.rsplit_once('/') {
        Some((d, f)) => (d, f),
        None => ("", clean),
    };
    if file == "SKILL.md" {
        let name = dir
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or(file);
        return Some(("skill", name.to_string()));
    }
    const RESOURCES: [&str; 5] = [
        "AGENTS.override.md",
        "AGENTS.md",
        "AGENTS.MD",
        "CLAUDE.md",
        "CLAUDE.MD",
    ];
    RESOURCES
        .contains(&file)
        .then(|| ("resource", path.to_string()))
}

/// A user message that invokes a skill, as pi reads one: the whole text
/// `<skill name="N" location="L">\nTEXT\n</skill>`, then optionally a
/// blank line and the user's own words. The name, the skill's text and
/// the words.
fn skill(v: &Value) -> Option<(String, String, Option<String>)> {
    let text = match v.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(list)) => list
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => return None,
    };
    let rest = text.strip_prefix("<skill name=\"")?;
    let (name, rest) = rest.split_once('"')?;
    let rest = rest.strip_prefix(" location=\"")?;
    let (location, rest) = rest.split_once('"')?;
    let rest = rest.strip_prefix(">\n")?;
    if name.is_empty() || location.is_empty() {
        return None;
    }
    for (k, _) in rest.match_indices("\n</skill>") {
        let after = &rest[k + "\n</skill>".len()..];
        if after.is_empty() {
            return Some((name.to_string(), rest[..k].to_string(), None));
        }
        if let Some(words) = after.strip_prefix("\n\n").filter(|w| !w.is_empty()) {
            let words = words.trim();
            return Some((
                name.to_string(),
                rest[..k].to_string(),
                (!words.is_empty()).then(|| words.to_string()),
            ));
        }
    }
    None
}

/// The title pi gives a grep, find or ls call: `grep /pattern/ in path
/// (glob) limit N`, `find pattern in path (limit N)`, `ls path (limit N)`.
fn listing_title(name: &str, args: &Value) -> Line {
    let arg = |key: &str| args.get(key).and_then(Value::as_str);
    let path = arg("path").filter(|p| !p.is_empty()).unwrap_or(".");
    let limit = args.get("limit").filter(|l| !l.is_null()).map(|l| match l {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    let mut head = vec![Span::new(name, Class::ToolName)];
    match name {
        "grep" => {
            let pattern = arg("pattern").unwrap_or("");
            head.push(Span::new(&format!(" /{}/", cut(pattern)), Class::Command));
            head.push(Span::new(&format!(" in {}", cut(path)), Class::Path));
            if let Some(glob) = arg("glob").filter(|g| !g.is_empty()) {
                head.push(Span::new(&format!(" ({})", cut(glob)), Class::Dim));
            }
            if let Some(l) = limit {
                head.push(Span::new(&format!(" limit {}", cut(&l)), Class::Dim));
            }
        }
        "find" => {
            let pattern = arg("pattern").unwrap_or("");
            head.push(Span::new(&format!(" {}", cut(pattern)), Class::Command));
            head.push(Span::new(&format!(" in {}", cut(path)), Class::Path));
            if let Some(l) = limit {
                head.push(Span::new(&format!(" (limit {})", cut(&l)), Class::Dim));
            }
        }
        _ => {
            head.push(Span::new(&format!(" {}", cut(path)), Class::Path));
            if let Some(l) = limit {
                head.push(Span::new(&format!(" (limit {})", cut(&l)), Class::Dim));
            }
        }
    }
    head
}

/// pi's warning under a grep, find or ls result its tool cut short:
/// `[Truncated: 30 matches limit, 50.0KB limit, some lines truncated]`.
fn listing_warning(name: &str, details: Option<&Value>) -> Option<String> {
    let details = details?;
    let mut warnings = Vec::new();
    let (key, what) = match name {
        "grep" => ("matchLimitReached", "matches"),
        "find" => ("resultLimitReached", "results"),
        _ => ("entryLimitReached", "entries"),
    };
    match details.get(key) {
        Some(Value::Number(n)) => warnings.push(format!("{n} {what} limit")),
        Some(Value::Bool(true)) => warnings.push(format!("{what} limit")),
        _ => {}
    }
    let truncation = details.get("truncation");
    if truncation.and_then(|t| t.get("truncated")) == Some(&Value::Bool(true)) {
        let bytes = truncation
            .and_then(|t| t.get("maxBytes"))
            .and_then(Value::as_f64)
            .unwrap_or(50.0 * 1024.0);
        warnings.push(format!("{} limit", byte_size(bytes)));
    }
    if name == "grep" && details.get("linesTruncated") == Some(&Value::Bool(true)) {
        warnings.push("some lines truncated".to_string());
    }
    (!warnings.is_empty()).then(|| format!("[Truncated: {}]", warnings.join(", ")))
}

/// A byte count as pi writes one: `512B`, `50.0KB`, `1.2MB`.
fn byte_size(bytes: f64) -> String {
    if bytes < 1024.0 {
        format!("{bytes}B")
    } else if bytes < 1024.0 * 1024.0 {
        format!("{:.1}KB", bytes / 1024.0)
    } else {
        format!("{:.1}MB", bytes / (1024.0 * 1024.0))
    }
}

/// Blocks of a message that is not an assistant's.
fn message(m: &Message) -> Vec<Block> {
    let v = &m.value;
    let r = role(v);
    let mut b = match r {
        "user" if skill(v).is_some() => {
            // pi draws a skill's text folded under its name, and the
            // user's own words after it as a message of their own.
            let Some((name, body, words)) = skill(v) else {
                return Vec::new();
            };
            let mut b = Block::new(
                BlockKind::Custom,
                m.entry,
                title(&[("[skill] ", Class::RoleCustom), (&cut(&name), Class::Text)]),
            );
            b.fold = Fold::Folded;
            b.peek = Some(0);
            b.body = from_markdown::parse(&body);
            let mut out = vec![b];
            if let Some(words) = words {
                let mut u = Block::new(
                    BlockKind::User,
                    m.entry,
                    with_time(title(&[("User", Class::RoleUser)]), v),
                );
                u.body = from_markdown::parse(&words);
                out.push(u);
            }
            return out;
        }
        "user" => {
            let mut b = Block::new(
                BlockKind::User,
                m.entry,
                with_time(title(&[("User", Class::RoleUser)]), v),
            );
            b.body = content_nodes(v.get("content"));
            b
        }
        "toolResult" => {
            let name = str_field(v, "toolName").unwrap_or("tool");
            let mut b = Block::new(
                BlockKind::ToolResult,
                m.entry,
                title(&[("Result of ", Class::RoleTool), (name, Class::ToolName)]),
            );
            if v.get("isError") == Some(&Value::Bool(true)) {
                b.title.push(Span::new("  error", Class::Error));
            }
            b.fold = Fold::Folded;
            let text = crate::session::content::plain_text(v.get("content"));
            b.body.extend(output(&text));
            for cb in Content::of(v.get("content")).blocks() {
                if let ContentBlock::Image { mime, data } = cb {
                    b.body.push(image(mime, data));
                }
            }
            b
        }
        "bashExecution" => {
            let command = str_field(v, "command").unwrap_or("");
            let mut b = Block::new(
                BlockKind::Bash,
                m.entry,
                with_time(
                    title(&[
                        ("$ ", Class::Prompt),
                        (&command_lines(command).0, Class::Command),
                    ]),
                    v,
                ),
            );
            b.lead = command_lines(command).1;
            b.fold = Fold::Folded;
            b.tail = true;
            // pi shows the last twenty lines of a command the user ran.
            b.peek = Some(USER_BASH_TAIL);
            if command_shown_whole(command).is_none() {
                b.body.push(code(command, Lang::Fence("bash"), usize::MAX));
            }
            let out = str_field(v, "output").unwrap_or("");
            if !out.is_empty() {
                b.body.extend(output(out));
            }
            // How it ended, under the output, as pi says it.
            let exit = v.get("exitCode").and_then(Value::as_i64);
            let mut status = Vec::new();
            if v.get("cancelled") == Some(&Value::Bool(true)) {
                status.push(Span::new("(cancelled)", Class::Warning));
            } else if let Some(code) = exit.filter(|&c| c != 0) {
                status.push(Span::new(&format!("(exit {code})"), Class::Error));
            }
            if v.get("truncated") == Some(&Value::Bool(true)) {
                if !status.is_empty() {
                    status.push(Span::new(" ", Class::Text));
                }
                let full = str_field(v, "fullOutputPath")
                    .map(|p| format!(" Full output: {p}"))
                    .unwrap_or_default();
                status.push(Span::new(
                    &format!("Output truncated.{full}"),
                    Class::Warning,
                ));
            }
            if !status.is_empty() {
                b.after = Some(status);
            }
            b
        }
        "compactionSummary" => {
            let mut b = Block::new(
                BlockKind::Compaction,
                m.entry,
                title(&[("Compaction", Class::Compaction)]),
            );
            if let Some(t) = v.get("tokensBefore").and_then(Value::as_f64) {
                b.title.push(Span::new(
                    &format!(" · {} tokens before", thousands(t as u64)),
                    Class::Dim,
                ));
            }
            b.body = from_markdown::parse(str_field(v, "summary").unwrap_or(""));
            // Folded, as pi shows a summary: its title only.
            b.fold = Fold::Folded;
            b.peek = Some(0);
            b
        }
        "branchSummary" => {
            let mut b = Block::new(
                BlockKind::BranchSummary,
                m.entry,
                title(&[("Branch summary", Class::RoleSummary)]),
            );
            b.body = from_markdown::parse(str_field(v, "summary").unwrap_or(""));
            b.fold = Fold::Folded;
            b.peek = Some(0);
            b
        }
        "custom" => {
            let kind = str_field(v, "customType").unwrap_or("custom");
            let mut b = Block::new(
                BlockKind::Custom,
                m.entry,
                title(&[
                    ("[", Class::RoleCustom),
                    (kind, Class::RoleCustom),
                    ("]", Class::RoleCustom),
                ]),
            );
            if v.get("display") == Some(&Value::Bool(false)) {
                b.title.push(Span::new("  hidden in pi", Class::Dim));
                b.fold = Fold::Folded;
            } else {
                // Shown as pi shows it: its text in full.
                b.fold = Fold::Open;
            }
            b.body = content_nodes(v.get("content"));
            b
        }
        "system" => {
            let mut b = Block::new(
                BlockKind::System,
                m.entry,
                title(&[("System prompt", Class::RoleSystem)]),
            );
            b.fold = Fold::Folded;
            let text = match v.get("content") {
                Some(Value::String(s)) => s.clone(),
                other => crate::session::content::plain_text(other),
            };
            b.body = from_markdown::plain(&text, Class::Text);
            if let Some(tools) = v.get("toolsAdded").and_then(Value::as_array) {
                let names: Vec<&str> = tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .collect();
                if !names.is_empty() {
                    b.body.extend(from_markdown::plain(
                        &format!("Tools: {}", names.join(", ")),
                        Class::Dim,
                    ));
                }
            }
            b
        }
        other => {
            let mut b = Block::new(
                BlockKind::Other,
                m.entry,
                title(&[(if other.is_empty() { "message" } else { other }, Class::Dim)]),
            );
            b.body =
                from_markdown::plain(&crate::session::content::readable_message(v), Class::Text);
            b
        }
    };
    b.entry = m.entry;
    vec![b]
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
