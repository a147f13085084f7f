//! pi's message content, read once: a string or a list of blocks (text,
//! thinking, tool calls, images, anything else), the other text-bearing
//! fields of messages and entries, and the text renderings every consumer
//! uses (export, `piscope context`, copy, deep search, the preview).

use serde_json::{Map, Value};

/// What a block's `type` says it is. The line reader sorts blocks by this
/// too, so a block counts as text (or thinking, ...) in one place only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    Text,
    Thinking,
    ToolCall,
    Image,
    /// Another type, no type, or not a string.
    Other,
}

impl BlockKind {
    /// The kind a block's `type` names (`None`: absent or not a string).
    pub fn of(kind: Option<&str>) -> BlockKind {
        match kind {
            Some("text") => BlockKind::Text,
            Some("thinking") => BlockKind::Thinking,
            Some("toolCall") => BlockKind::ToolCall,
            Some("image") => BlockKind::Image,
            _ => BlockKind::Other,
        }
    }
}

/// A message's (or custom message's) `content`, as pi writes it.
#[derive(Debug, Clone, Copy)]
pub enum Content<'a> {
    /// Absent or `null`.
    None,
    Text(&'a str),
    Blocks(&'a [Value]),
    /// Anything else (a number, an object): not a shape pi writes.
    Other(&'a Value),
}

impl<'a> Content<'a> {
    pub fn of(v: Option<&'a Value>) -> Content<'a> {
        match v {
            None | Some(Value::Null) => Content::None,
            Some(Value::String(s)) => Content::Text(s),
            Some(Value::Array(blocks)) => Content::Blocks(blocks),
            Some(other) => Content::Other(other),
        }
    }

    /// The blocks of a list (none for the other shapes).
    pub fn blocks(self) -> impl Iterator<Item = Block<'a>> {
        let list: &[Value] = match self {
            Content::Blocks(b) => b,
            _ => &[],
        };
        list.iter().map(Block::of)
    }
}

/// One block of a content list. A field that is not a string reads as
/// absent (text and thinking as empty).
#[derive(Debug, Clone, Copy)]
pub enum Block<'a> {
    Text(&'a str),
    Thinking(&'a str),
    ToolCall {
        name: Option<&'a str>,
        arguments: Option<&'a Value>,
    },
    Image {
        mime: Option<&'a str>,
        /// The base64 data.
        data: Option<&'a str>,
    },
    /// A block of another type, or not an object at all.
    Other(&'a Value),
}

impl<'a> Block<'a> {
    pub fn of(b: &'a Value) -> Block<'a> {
        let field = |key: &str| b.get(key).and_then(Value::as_str);
        match BlockKind::of(field("type")) {
            BlockKind::Text => Block::Text(field("text").unwrap_or("")),
            BlockKind::Thinking => Block::Thinking(field("thinking").unwrap_or("")),
            BlockKind::ToolCall => Block::ToolCall {
                name: field("name"),
                arguments: b.get("arguments"),
            },
            BlockKind::Image => Block::Image {
                mime: field("mimeType"),
                data: field("data"),
            },
            BlockKind::Other => Block::Other(b),
        }
    }

    /// The block with its kind marked, as `piscope context` and copy show it:
    /// `[thinking] …`, `[call name] {args}`, `[image mime]`, other blocks as JSON.
    pub fn readable(&self) -> String {
        match *self {
            Block::Text(t) => t.to_string(),
            Block::Thinking(t) => format!("[thinking] {t}"),
            Block::ToolCall { name, arguments } => format!(
                "[call {}] {}",
                name.unwrap_or("?"),
                arguments.map(Value::to_string).unwrap_or_default()
            ),
            Block::Image { mime, .. } => format!("[image {}]", mime.unwrap_or("?")),
            Block::Other(v) => v.to_string(),
        }
    }

    /// The pieces of the block worth searching: its text, thinking or
    /// arguments; of a block of another type whichever of those it has,
    /// and a bare string itself.
    fn search_parts(&self, push: &mut impl FnMut(&str)) {
        match *self {
            Block::Text(t) | Block::Thinking(t) => push(t),
            Block::ToolCall { arguments, .. } => {
                if let Some(args) = arguments {
                    push(&args.to_string());
                }
            }
            Block::Image { .. } => {}
            Block::Other(Value::String(s)) => push(s),
            Block::Other(Value::Object(o)) => {
                for key in ["text", "thinking"] {
                    if let Some(Value::String(s)) = o.get(key) {
                        push(s);
                    }
                }
                if let Some(args) = o.get("arguments") {
                    push(&args.to_string());
                }
            }
            Block::Other(_) => {}
        }
    }
}

/// The plain text of content: the string, or the text blocks joined by line
/// breaks (what an export shows).
pub fn plain_text(content: Option<&Value>) -> String {
    match Content::of(content) {
        Content::Text(s) => s.to_string(),
        c @ Content::Blocks(_) => c
            .blocks()
            .filter_map(|b| match b {
                Block::Text(t) => Some(t),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Content::None | Content::Other(_) => String::new(),
    }
}

/// Content with every block shown, kinds marked (see [`Block::readable`]),
/// one block a line.
pub fn readable_content(content: Option<&Value>) -> String {
    match Content::of(content) {
        Content::Text(s) => s.to_string(),
        c @ Content::Blocks(_) => c
            .blocks()
            .map(|b| b.readable())
            .collect::<Vec<_>>()
            .join("\n"),
        Content::None | Content::Other(_) => String::new(),
    }
}

/// The readable text of a context message (what `piscope context` prints
/// under its role): a summary's text, a bash command and its output, else
/// the content (see [`readable_content`]).
pub fn readable_message(message: &Value) -> String {
    let field = |key: &str| message.get(key).and_then(Value::as_str).unwrap_or("");
    match message.get("role").and_then(Value::as_str) {
        Some("compactionSummary" | "branchSummary") => field("summary").to_string(),
        Some("bashExecution") => format!("$ {}\n{}", field("command"), field("output")),
        _ => readable_content(message.get("content")),
    }
}

/// The readable text of an entry (what copying it takes), when it has one:
/// a message's (see [`readable_message`]), a summary's, a custom message's
/// content.
pub fn readable_entry(entry: &Value) -> Option<String> {
    match entry.get("type").and_then(Value::as_str) {
        Some("message") => entry.get("message").map(readable_message),
        Some("compaction" | "branch_summary") => entry
            .get("summary")
            .and_then(Value::as_str)
            .map(str::to_string),
        Some("custom_message") => Some(readable_content(entry.get("content"))),
        _ => None,
    }
}

/// The texts of an entry worth searching, each with what it is (the role of
/// a message, else the entry type): a message's content, command, output,
/// summary and error; a summary; a custom message's content. Pieces are
/// joined by line breaks, empty ones left out.
pub fn search_texts(entry: &Map<String, Value>) -> Vec<(String, String)> {
    let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
    let texts = |source: &Map<String, Value>, keys: &[&str]| {
        let mut text = String::new();
        let mut push = |s: &str| {
            if !s.is_empty() {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(s);
            }
        };
        for key in keys {
            // Each field is read as content: a string, or blocks.
            match Content::of(source.get(*key)) {
                Content::Text(s) => push(s),
                c => c.blocks().for_each(|b| b.search_parts(&mut push)),
            }
        }
        text
    };
    match kind {
        "message" => {
            let Some(m) = entry.get("message").and_then(Value::as_object) else {
                return Vec::new();
            };
            let role = m.get("role").and_then(Value::as_str).unwrap_or("message");
            let keys = ["content", "command", "output", "summary", "errorMessage"];
            vec![(role.to_string(), texts(m, &keys))]
        }
        "compaction" | "branch_summary" if entry.contains_key("summary") => {
            vec![(kind.to_string(), texts(entry, &["summary"]))]
        }
        "custom_message" if entry.contains_key("content") => {
            vec![(kind.to_string(), texts(entry, &["content"]))]
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn odd_blocks() -> Value {
        json!([
            {"type": "thinking", "thinking": "hm"},
            {"type": "text", "text": "answer"},
            {"type": "toolCall", "name": "read", "arguments": {"path": "x.rs"}},
            {"type": "toolCall"},
            {"type": "image", "mimeType": "image/png", "data": "AAAA"},
            {"type": "image"},
            "bare",
            {"type": "weird", "text": "w", "arguments": [1]},
            {"type": "text", "text": 7},
        ])
    }

    #[test]
    fn plain_text_is_the_text_blocks() {
        assert_eq!(plain_text(Some(&odd_blocks())), "answer\n");
        assert_eq!(plain_text(Some(&json!("s"))), "s");
        assert_eq!(plain_text(Some(&json!(3))), "");
        assert_eq!(plain_text(None), "");
    }

    #[test]
    fn readable_content_marks_every_block() {
        assert_eq!(
            readable_content(Some(&odd_blocks())),
            "[thinking] hm\nanswer\n[call read] {\"path\":\"x.rs\"}\n[call ?] \n\
             [image image/png]\n[image ?]\n\"bare\"\n\
             {\"type\":\"weird\",\"text\":\"w\",\"arguments\":[1]}\n"
        );
    }

    #[test]
    fn readable_messages_and_entries() {
        let bash = json!({"role": "bashExecution", "command": "ls", "output": "a\n"});
        assert_eq!(readable_message(&bash), "$ ls\na\n");
        let sum = json!({"role": "branchSummary", "summary": "gone"});
        assert_eq!(readable_message(&sum), "gone");
        let custom = json!({"type": "custom_message", "content": [{"type": "text", "text": "c"}]});
        assert_eq!(readable_entry(&custom).as_deref(), Some("c"));
        let label = json!({"type": "label", "label": "x"});
        assert_eq!(readable_entry(&label), None);
    }

    #[test]
    fn search_texts_take_every_text_bearing_field() {
        let entry = json!({"type": "message", "message": {
            "role": "assistant", "content": odd_blocks(), "errorMessage": "boom"}});
        let texts = search_texts(entry.as_object().expect("object"));
        assert_eq!(
            texts,
            vec![(
                "assistant".to_string(),
                "hm\nanswer\n{\"path\":\"x.rs\"}\nbare\nw\n[1]\nboom".to_string()
            )]
        );
        let entry = json!({"type": "compaction", "summary": "s"});
        let texts = search_texts(entry.as_object().expect("object"));
        assert_eq!(texts, vec![("compaction".to_string(), "s".to_string())]);
        let entry = json!({"type": "custom_message"});
        assert!(search_texts(entry.as_object().expect("object")).is_empty());
    }
}
