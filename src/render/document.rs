//! The rendered document: blocks (one per thing a reader tells apart: a
//! user turn, a thinking block, a tool call and its result, a compaction)
//! of semantic nodes (paragraphs, headings, code, lists, tables) of spans
//! with a style class. Every span's text is sanitised when it is made, so
//! no document can hold a control character, whoever draws it.

use crate::safe_text;

/// What a span is, for whoever draws it: a terminal maps it to a colour, the
/// HTML export to a CSS class (see [`Class::css`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Text,
    Dim,
    Heading,
    InlineCode,
    Link,
    LinkTarget,
    ListMarker,
    QuoteMarker,
    TableBorder,
    Rule,
    CodeText,
    CodeKeyword,
    CodeString,
    CodeComment,
    CodeNumber,
    CodeConstant,
    CodeFunction,
    CodeType,
    CodeOperator,
    CodeVariable,
    CodePunctuation,
    CodeTag,
    CodeAttribute,
    DiffAdd,
    DiffDel,
    DiffHunk,
    DiffHeader,
    DiffContext,
    ToolName,
    Path,
    Prompt,
    Command,
    Error,
    Warning,
    RoleUser,
    RoleAssistant,
    RoleTool,
    RoleSystem,
    RoleCustom,
    RoleSummary,
    Thinking,
    Compaction,
    Image,
    Label,
    Time,
    /// Program output whose colours come from its own escape sequences
    /// (see [`Style::fg`]).
    Output,
}

impl Class {
    /// The class's name: a CSS class, and a theme key.
    pub fn css(self) -> &'static str {
        match self {
            Class::Text => "text",
            Class::Dim => "dim",
            Class::Heading => "heading",
            Class::InlineCode => "inline-code",
            Class::Link => "link",
            Class::LinkTarget => "link-target",
            Class::ListMarker => "list-marker",
            Class::QuoteMarker => "quote-marker",
            Class::TableBorder => "table-border",
            Class::Rule => "rule",
            Class::CodeText => "code-text",
            Class::CodeKeyword => "code-keyword",
            Class::CodeString => "code-string",
            Class::CodeComment => "code-comment",
            Class::CodeNumber => "code-number",
            Class::CodeConstant => "code-constant",
            Class::CodeFunction => "code-function",
            Class::CodeType => "code-type",
            Class::CodeOperator => "code-operator",
            Class::CodeVariable => "code-variable",
            Class::CodePunctuation => "code-punctuation",
            Class::CodeTag => "code-tag",
            Class::CodeAttribute => "code-attribute",
            Class::DiffAdd => "diff-add",
            Class::DiffDel => "diff-del",
            Class::DiffHunk => "diff-hunk",
            Class::DiffHeader => "diff-header",
            Class::DiffContext => "diff-context",
            Class::ToolName => "tool-name",
            Class::Path => "path",
            Class::Prompt => "prompt",
            Class::Command => "command",
            Class::Error => "error",
            Class::Warning => "warning",
            Class::RoleUser => "role-user",
            Class::RoleAssistant => "role-assistant",
            Class::RoleTool => "role-tool",
            Class::RoleSystem => "role-system",
            Class::RoleCustom => "role-custom",
            Class::RoleSummary => "role-summary",
            Class::Thinking => "thinking",
            Class::Compaction => "compaction",
            Class::Image => "image",
            Class::Label => "label",
            Class::Time => "time",
            Class::Output => "output",
        }
    }
}

/// A span's look: its class, emphasis, and (for program output) the colours
/// its escape sequences chose, as xterm's 256 colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Style {
    pub class: Class,
    pub bold: bool,
    pub italic: bool,
    pub underline: bool,
    pub strike: bool,
    pub dim: bool,
    /// Colours swapped: the words a diff's line changed, as pi marks them.
    pub inverse: bool,
    pub fg: Option<u8>,
    pub bg: Option<u8>,
}

impl Style {
    pub const fn of(class: Class) -> Style {
        Style {
            class,
            bold: false,
            italic: false,
            underline: false,
            strike: false,
            dim: false,
            inverse: false,
            fg: None,
            bg: None,
        }
    }
}

impl From<Class> for Style {
    fn from(class: Class) -> Style {
        Style::of(class)
    }
}

/// A run of text in one style, on one line. `link` is the target of a
/// markdown link (whether it is safe to follow is the drawer's question,
/// see [`super::to_html::safe_href`]).
///
/// A span is small (56 bytes, with text of up to 24 bytes inline) because a
/// document holds one for every styled run its text has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    text: compact_str::CompactString,
    pub style: Style,
    pub link: Option<Box<str>>,
}

impl Span {
    /// A span of untrusted text: control characters, escape sequences and
    /// line breaks become visible symbols here, so nothing made of spans can
    /// let one through.
    pub fn new(text: &str, style: impl Into<Style>) -> Span {
        Span {
            text: safe_text::clean_line(text).into(),
            style: style.into(),
            link: None,
        }
    }

    /// Text already clean (from [`safe_text::clean_block`] or made here).
    pub(crate) fn clean(text: String, style: impl Into<Style>) -> Span {
        debug_assert!(!text.chars().any(char::is_control));
        Span {
            text: text.into(),
            style: style.into(),
            link: None,
        }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// Adds text as clean at the end, in place: joining runs of one style
    /// copies each piece once, however many there are.
    pub(crate) fn push_clean(&mut self, text: &str) {
        debug_assert!(!text.chars().any(char::is_control));
        self.text.push_str(text);
    }

    /// Replaces the text with text as clean (a secret's marker in place).
    pub(crate) fn set_text(&mut self, text: String) {
        debug_assert!(!text.chars().any(char::is_control));
        self.text = text.into();
    }
}

/// One line of spans.
pub type Line = Vec<Span>;

/// What a line of a code block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Plain,
    Add,
    Del,
    Hunk,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeLine {
    pub kind: LineKind,
    pub spans: Line,
}

/// How a table column is aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

/// The parts of a block's body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Wrapped text: its lines (a line break in the text starts one, as
    /// pi keeps them), each wrapped.
    Para(Vec<Line>),
    /// Plain text in one class (thinking, a system prompt, raw HTML, rows
    /// of a table past its cap, what a message holds past its budget of
    /// formatting): its own lines, each wrapped, none set apart. Kept as
    /// one string of clean lines joined by `\n`, since a span a line costs
    /// a hundred bytes for each line of two. Made by [`Node::text`] only.
    Text {
        text: String,
        class: Class,
    },
    Heading(u8, Line),
    /// Lines kept as they are (cut, not wrapped, by a narrow drawer):
    /// fenced code, file contents, tool output, diffs. `lang` is what the
    /// highlighter used; `more` counts lines left out; `note` says where
    /// highlighting gave up (past its budget) and why.
    Code {
        lang: Option<String>,
        lines: Vec<CodeLine>,
        more: usize,
        note: Option<String>,
    },
    Quote(Vec<Node>),
    List {
        /// The first number of an ordered list.
        start: Option<u64>,
        items: Vec<Vec<Node>>,
    },
    Table {
        aligns: Vec<Align>,
        head: Vec<Line>,
        rows: Vec<Vec<Line>>,
    },
    Rule,
    /// An image: a placeholder with its type and size; `data` is the base64
    /// of a raster image (for drawers that can show one).
    Image {
        mime: String,
        bytes: usize,
        data: Option<String>,
    },
}

impl Node {
    /// A paragraph of one line.
    pub fn para(line: Line) -> Node {
        Node::Para(vec![line])
    }

    /// Untrusted text as a [`Node::Text`]: each line cleaned as a span's
    /// text is (tabs expanded, a `\r` before the line break dropped).
    pub fn text(raw: &str, class: Class) -> Node {
        let mut text = String::with_capacity(raw.len());
        for (k, line) in raw.split('\n').enumerate() {
            if k > 0 {
                text.push('\n');
            }
            text.push_str(&safe_text::clean_block_line(line));
        }
        Node::Text { text, class }
    }
}

/// What a block shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    User,
    Assistant,
    Thinking,
    ToolCall,
    ToolResult,
    Bash,
    Compaction,
    BranchSummary,
    Custom,
    System,
    /// Anything else a message list holds.
    Other,
}

impl BlockKind {
    pub fn css(self) -> &'static str {
        match self {
            BlockKind::User => "user",
            BlockKind::Assistant => "assistant",
            BlockKind::Thinking => "thinking",
            BlockKind::ToolCall => "tool-call",
            BlockKind::ToolResult => "tool-result",
            BlockKind::Bash => "bash",
            BlockKind::Compaction => "compaction",
            BlockKind::BranchSummary => "branch-summary",
            BlockKind::Custom => "custom",
            BlockKind::System => "system",
            BlockKind::Other => "other",
        }
    }
}

/// Whether a block can be folded, and how it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fold {
    /// Always shown whole.
    Fixed,
    /// Foldable, shown folded at first (thinking, tool output, extension
    /// messages, what a compaction replaced).
    Folded,
    /// Foldable, shown open at first.
    Open,
}

/// One block of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub kind: BlockKind,
    /// The entry (index in the session) the block comes from; `also` holds
    /// other entries it shows (the tool result a call is drawn with).
    pub entry: Option<u32>,
    pub also: Vec<u32>,
    /// The block's heading line (role, tool and path, counts); its
    /// one-line stand-in when folded.
    pub title: Line,
    pub fold: Fold,
    pub body: Vec<Node>,
    /// Blocks inside this one: the messages a compaction replaced.
    pub children: Vec<Block>,
    /// Not part of what the model sees (compacted away).
    pub hidden: bool,
    /// Folded, it shows the last rows of its body, not the first (program
    /// output ends with what matters: the error, the summary).
    pub tail: bool,
    /// Folded, the rows of its body it still shows (pi's own counts for
    /// its tools: none of a file read, 15 of a grep, 10 of a write); the
    /// drawer's own when `None`.
    pub peek: Option<usize>,
    /// A line under the body, shown folded or open: pi's warning that a
    /// tool cut its output short (`[Truncated: 30 matches limit]`).
    pub after: Option<Line>,
    /// Lines that go on from the title, shown folded or open: the rest of
    /// a command of several lines, as pi shows a command whole.
    pub lead: Vec<Line>,
}

impl Block {
    pub fn new(kind: BlockKind, entry: Option<u32>, title: Line) -> Block {
        Block {
            kind,
            entry,
            also: Vec::new(),
            title,
            fold: Fold::Fixed,
            body: Vec::new(),
            children: Vec::new(),
            hidden: false,
            tail: false,
            peek: None,
            after: None,
            lead: Vec::new(),
        }
    }
}

/// Token and cost totals of assistant messages.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub cost: f64,
}

/// What a document says about its session (all text sanitised).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    pub title: String,
    pub session_id: String,
    pub cwd: String,
    pub created: String,
    /// `provider/model` at the leaf.
    pub model: Option<String>,
    pub thinking: Option<String>,
    /// Every model the assistant messages name, in order of first use.
    pub models: Vec<String>,
    pub messages: usize,
    pub usage: Usage,
}

/// A rendered context.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub meta: Meta,
    pub blocks: Vec<Block>,
}

/// Text of one line, without styles (for tests and plain output).
pub fn line_text(line: &[Span]) -> String {
    line.iter().map(Span::text).collect()
}
