//! Markdown (what users and the assistant write) read into document nodes:
//! headings, emphasis, lists, quotes, tables, links with their target,
//! inline code, fenced code highlighted by its language. Raw HTML in the
//! text is kept as text; images in the text are never loaded.

use super::document::{Align, Class, Line, Node, Span, Style};
use super::highlight::{self, Lang};
use crate::safe_text;
use pulldown_cmark::{Alignment, CodeBlockKind, Event, Options, Parser, Tag, TagEnd};
use std::fmt::Write as _;

/// Quotes and lists nested deeper than this are shown as their markers in
/// text. Every walk of the document (layout, the exports, even dropping it)
/// recurses on this nesting, and a few kilobytes of `>` would otherwise
/// overflow the stack, an abort nothing can catch.
pub const MAX_NESTING: usize = 24;

/// Table rows past this many are kept as plain lines, one a row: a
/// laid-out cell costs a hundred times its text, and a table of megabytes
/// took gigabytes.
pub const MAX_TABLE_ROWS: usize = 200;

/// Cells of a row past this many are joined, as text, into its last cell.
pub const MAX_TABLE_COLUMNS: usize = 32;

/// Styled runs (spans, lines of code) one text makes at most: about one
/// for every eight bytes (sixty more for a short text), never more than
/// this. What lies past them is shown as written ([`Node::Text`]). A run
/// costs some sixty bytes, so without a budget a megabyte of `**a** ` held
/// fifty.
pub const MAX_RUNS: usize = 50_000;

/// Markdown is read in pieces of about this many bytes, cut at blank lines
/// outside code fences where it can be: the reader holds fifty times what
/// it reads until its piece is done.
const PIECE: usize = 64 * 1024;

/// Markdown text as nodes.
pub fn parse(text: &str) -> Vec<Node> {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let budget = MAX_RUNS.min(64 + text.len() / 8);
    let mut b = Builder {
        runs_left: budget,
        ..Builder::default()
    };
    b.stack.push(Container::Root(Vec::new()));
    let mut rest = None;
    'pieces: for (at, piece) in pieces(text) {
        for (event, range) in Parser::new_ext(piece, options).into_offset_iter() {
            let leaf = !matches!(event, Event::Start(_) | Event::End(_));
            let code_end = matches!(event, Event::End(TagEnd::CodeBlock));
            b.event(event);
            if leaf || code_end {
                b.shown_to = b.shown_to.max(at + range.end);
            }
            if b.runs_left == 0 {
                rest = Some(b.shown_to);
                break 'pieces;
            }
        }
    }
    b.push_marker();
    if b.table.is_some() {
        // Stopped inside a table: the rows read so far are drawn.
        for end in [TagEnd::TableCell, TagEnd::TableRow, TagEnd::Table] {
            b.end(end);
        }
    }
    b.flush_inline();
    while b.stack.len() > 1 {
        b.close();
    }
    let mut nodes = match b.stack.pop() {
        Some(Container::Root(nodes)) => nodes,
        _ => Vec::new(),
    };
    let rest = rest
        .and_then(|at| text.get(at..))
        .map(|r| r.trim_matches('\n'))
        .filter(|r| !r.is_empty());
    if let Some(rest) = rest {
        let note = format!(
            "Formatting stops here, past {budget} styled runs; the other {} follow as written.",
            crate::safe_text::human_size(rest.len() as u64)
        );
        nodes.push(Node::para(vec![Span::clean(note, Class::Dim)]));
        nodes.push(Node::text(rest, Class::Text));
    }
    nodes
}

/// `text` in pieces of about [`PIECE`] bytes, each with where it starts:
/// cut after a blank line outside a code fence (the last before the size,
/// else the first within four times it, so that a table or a list stays
/// whole), else at a line's end, else (one long line) wherever a character
/// ends.
fn pieces(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    let mut fence: Option<(char, usize)> = None;
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let limit = start + PIECE;
        if text.len() <= limit {
            let piece = (start, &text[start..]);
            start = text.len();
            return Some(piece);
        }
        let (mut blank, mut line_end) = (None, None);
        let (mut at, mut open) = (start, fence);
        while at < text.len() && at < start + 4 * PIECE {
            let end = text[at..].find('\n').map_or(text.len(), |k| at + k + 1);
            if end > limit && blank.is_some() {
                break;
            }
            open = fence_after(open, &text[at..end]);
            let ends_block =
                end <= start + 4 * PIECE && (end == text.len() || text[at..end].trim().is_empty());
            if open.is_none() && ends_block {
                blank = Some((end, None));
            }
            if end <= limit {
                line_end = Some((end, open));
            }
            at = end;
        }
        let (mut cut, open) = blank.or(line_end).unwrap_or((limit, fence));
        if cut <= start {
            cut = limit;
        }
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        fence = open;
        let piece = (start, &text[start..cut]);
        start = cut;
        Some(piece)
    })
}

/// Whether a code fence is open after `line`: a line of three or more
/// backticks or tildes (indented at most three spaces) opens one, and one
/// of the same character at least as long closes it.
fn fence_after(open: Option<(char, usize)>, line: &str) -> Option<(char, usize)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return open;
    }
    let Some(c) = t.chars().next().filter(|c| *c == '`' || *c == '~') else {
        return open;
    };
    let n = t.chars().take_while(|x| *x == c).count();
    if n < 3 {
        return open;
    }
    match open {
        None => Some((c, n)),
        Some((o, m)) if o == c && n >= m && t[n..].trim().is_empty() => None,
        other => other,
    }
}

/// Plain text (no markdown), its lines as they are.
pub fn plain(text: &str, class: Class) -> Vec<Node> {
    vec![Node::text(text.trim_end_matches('\n'), class)]
}

enum Container {
    Root(Vec<Node>),
    Quote(Vec<Node>),
    List {
        start: Option<u64>,
        items: Vec<Vec<Node>>,
    },
    Item(Vec<Node>),
    Footnote(Vec<Node>),
}

impl Container {
    fn nodes(&mut self) -> Option<&mut Vec<Node>> {
        match self {
            Container::Root(n)
            | Container::Quote(n)
            | Container::Item(n)
            | Container::Footnote(n) => Some(n),
            Container::List { .. } => None,
        }
    }
}

#[derive(Default)]
struct Table {
    aligns: Vec<Align>,
    head: Vec<Line>,
    rows: Vec<Vec<Line>>,
    in_head: bool,
    /// Rows past [`MAX_TABLE_ROWS`], as text, one a line.
    past: String,
    /// How many rows `past` holds.
    past_rows: usize,
    /// The text of the row's cells past [`MAX_TABLE_COLUMNS`].
    spill: String,
}

impl Table {
    /// The row being read.
    fn row(&mut self) -> Option<&mut Vec<Line>> {
        if self.in_head {
            Some(&mut self.head)
        } else {
            self.rows.last_mut()
        }
    }

    /// Adds a cell to the row; says how many of its spans were kept as
    /// spans (none when it joins the row's last cell as text).
    fn add_cell(&mut self, cell: Line) -> usize {
        let Some(row) = self.row() else { return 0 };
        if row.len() < MAX_TABLE_COLUMNS {
            let kept = cell.len();
            row.push(cell);
            return kept;
        }
        self.spill.push_str(" | ");
        self.spill.push_str(&super::document::line_text(&cell));
        0
    }

    /// Puts the text of the cells past the cap into the row's last cell.
    fn end_row(&mut self) {
        if self.spill.is_empty() {
            return;
        }
        let spill = std::mem::take(&mut self.spill);
        if let Some(last) = self.row().and_then(|r| r.last_mut()) {
            last.push(Span::clean(spill, Class::Text));
        }
    }
}

#[derive(Default)]
struct Builder {
    stack: Vec<Container>,
    inline: Line,
    bold: u32,
    italic: u32,
    strike: u32,
    heading: Option<u8>,
    links: Vec<String>,
    /// Where in `inline` each open link's text starts.
    link_starts: Vec<usize>,
    /// Inside an image: its alt text goes in brackets, the image is never fetched.
    images: Vec<String>,
    code: Option<(String, String)>,
    table: Option<Table>,
    /// Quotes, lists and items opened past [`MAX_NESTING`] and not closed
    /// yet: they make no container, only their markers in `marker`.
    flattened: usize,
    /// Markers of flattened containers, put before the next text.
    marker: String,
    /// The lines of the paragraph being gathered before `inline`.
    lines: Vec<Line>,
    /// Styled runs still to be made (see [`MAX_RUNS`]).
    runs_left: usize,
    /// The end (in the whole text) of the last text read.
    shown_to: usize,
}

impl Builder {
    fn style(&self, class: Class) -> Style {
        let mut s = Style::of(class);
        s.bold = self.bold > 0;
        s.italic = self.italic > 0;
        s.strike = self.strike > 0;
        s
    }

    fn text_class(&self) -> Class {
        if !self.links.is_empty() {
            Class::Link
        } else if self.heading.is_some() {
            Class::Heading
        } else {
            Class::Text
        }
    }

    /// How deep the open containers nest (an item counts with its list).
    fn depth(&self) -> usize {
        self.stack
            .iter()
            .filter(|c| matches!(c, Container::Quote(_) | Container::List { .. }))
            .count()
    }

    /// Whether a container starting now is kept as text: past the cap, or
    /// inside one that already is.
    fn flatten(&mut self) -> bool {
        if self.flattened > 0 || self.depth() >= MAX_NESTING {
            self.flattened += 1;
            true
        } else {
            false
        }
    }

    fn spend(&mut self, runs: usize) {
        self.runs_left = self.runs_left.saturating_sub(runs);
    }

    fn push_marker(&mut self) {
        if !self.marker.is_empty() {
            self.spend(1);
            let marker = std::mem::take(&mut self.marker);
            self.inline
                .push(Span::clean(marker, self.style(Class::ListMarker)));
        }
    }

    fn push_text(&mut self, text: &str, class: Class) {
        self.push_marker();
        self.spend(1);
        let mut span = Span::new(&text.replace('\t', "    "), self.style(class));
        span.link = self.links.last().map(|l| l.as_str().into());
        self.inline.push(span);
    }

    fn push_node(&mut self, node: Node) {
        if let Some(nodes) = self.stack.iter_mut().rev().find_map(|c| c.nodes()) {
            nodes.push(node);
        }
    }

    /// Ends the paragraph being gathered (tight list items have no
    /// paragraph events of their own).
    fn flush_inline(&mut self) {
        if !self.inline.is_empty() {
            self.break_line();
        }
        if self.lines.is_empty() {
            return;
        }
        let mut lines = std::mem::take(&mut self.lines);
        lines.shrink_to_fit();
        match self.heading {
            Some(level) => {
                let line = lines.into_iter().flatten().collect();
                self.push_node(Node::Heading(level, line))
            }
            None => self.push_node(Node::Para(lines)),
        }
    }

    /// Ends a line of the paragraph being gathered.
    fn break_line(&mut self) {
        let mut line = std::mem::take(&mut self.inline);
        line.shrink_to_fit();
        self.lines.push(line);
    }

    /// Pops the innermost container into its parent.
    fn close(&mut self) {
        self.flush_inline();
        let Some(top) = self.stack.pop() else { return };
        match top {
            Container::Quote(nodes) => self.push_node(Node::Quote(nodes)),
            Container::Footnote(nodes) => {
                for n in nodes {
                    self.push_node(n);
                }
            }
            Container::Item(nodes) => match self.stack.last_mut() {
                Some(Container::List { items, .. }) => items.push(nodes),
                _ => {
                    for n in nodes {
                        self.push_node(n);
                    }
                }
            },
            Container::List { start, items } => self.push_node(Node::List { start, items }),
            Container::Root(nodes) => self.stack.push(Container::Root(nodes)),
        }
    }

    fn event(&mut self, event: Event<'_>) {
        if let Some((_, code)) = &mut self.code {
            match event {
                Event::Text(t) => code.push_str(&t),
                Event::End(TagEnd::CodeBlock) => self.end_code(),
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => {
                let class = self.text_class();
                self.push_text(&t, class);
            }
            Event::Code(t) | Event::InlineMath(t) => self.push_text(&t, Class::InlineCode),
            Event::DisplayMath(t) => {
                self.flush_inline();
                self.push_code(None, &t);
            }
            Event::InlineHtml(t) => self.push_text(&t, Class::Dim),
            Event::Html(t) => {
                // A raw HTML block: shown as the text it is.
                self.spend(t.lines().count());
                for node in plain(&t, Class::Dim) {
                    self.push_node(node);
                }
            }
            Event::FootnoteReference(r) => self.push_text(&format!("[^{r}]"), Class::LinkTarget),
            // A line break is kept as pi keeps it; a heading and a table
            // cell are one line each, where it is a space.
            Event::SoftBreak | Event::HardBreak
                if self.table.is_some() || self.heading.is_some() =>
            {
                self.push_text(" ", self.text_class())
            }
            Event::SoftBreak | Event::HardBreak => self.break_line(),
            Event::Rule => {
                self.flush_inline();
                self.push_node(Node::Rule);
            }
            Event::TaskListMarker(done) => {
                self.push_text(if done { "[x] " } else { "[ ] " }, Class::ListMarker)
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.flush_inline(),
            Tag::Heading { level, .. } => {
                self.flush_inline();
                self.heading = Some(level as u8);
            }
            Tag::BlockQuote(_) if self.flatten() => self.marker.push_str("> "),
            Tag::BlockQuote(_) => {
                self.flush_inline();
                self.stack.push(Container::Quote(Vec::new()));
            }
            Tag::CodeBlock(kind) => {
                self.flush_inline();
                let info = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((info, String::new()));
            }
            Tag::List(_) if self.flatten() => {}
            Tag::Item if self.flattened > 0 => {
                self.flattened += 1;
                self.marker.push_str("- ");
            }
            Tag::List(start) => {
                self.flush_inline();
                self.stack.push(Container::List {
                    start,
                    items: Vec::new(),
                });
            }
            Tag::Item => {
                self.flush_inline();
                self.stack.push(Container::Item(Vec::new()));
            }
            Tag::FootnoteDefinition(name) => {
                self.flush_inline();
                self.stack.push(Container::Footnote(Vec::new()));
                self.push_text(&format!("[^{name}]: "), Class::LinkTarget);
            }
            Tag::Table(aligns) => {
                self.flush_inline();
                self.table = Some(Table {
                    aligns: aligns
                        .into_iter()
                        .map(|a| match a {
                            Alignment::Center => Align::Center,
                            Alignment::Right => Align::Right,
                            Alignment::Left | Alignment::None => Align::Left,
                        })
                        .collect(),
                    ..Table::default()
                });
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = true;
                }
            }
            Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self.italic += 1,
            Tag::Strong => self.bold += 1,
            Tag::Strikethrough => self.strike += 1,
            Tag::Link { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.link_starts.push(self.inline.len());
            }
            Tag::Image { dest_url, .. } => {
                self.images.push(dest_url.to_string());
                self.push_text("[image: ", Class::Dim);
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.flush_inline(),
            TagEnd::Heading(_) => {
                self.flush_inline();
                self.heading = None;
            }
            TagEnd::BlockQuote(_) | TagEnd::Item | TagEnd::List(_) if self.flattened > 0 => {
                self.flattened -= 1;
            }
            TagEnd::BlockQuote(_) | TagEnd::Item | TagEnd::List(_) | TagEnd::FootnoteDefinition => {
                self.close()
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                let made = cell.len();
                let kept = self.table.as_mut().map_or(0, |t| t.add_cell(cell));
                // Only the spans kept count against the budget.
                self.runs_left += made - kept;
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.end_row();
                    t.in_head = false;
                }
            }
            TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    t.end_row();
                    if t.rows.len() > MAX_TABLE_ROWS {
                        let cells = t.rows.pop().unwrap_or_default();
                        self.runs_left += cells.iter().map(Vec::len).sum::<usize>();
                        let text: Vec<String> = cells
                            .iter()
                            .map(|c| super::document::line_text(c))
                            .collect();
                        if t.past_rows > 0 {
                            t.past.push('\n');
                        }
                        let _ = write!(t.past, "| {} |", text.join(" | "));
                        t.past_rows += 1;
                    }
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.push_node(Node::Table {
                        aligns: t.aligns,
                        head: t.head,
                        rows: t.rows,
                    });
                    if !t.past.is_empty() {
                        let note = format!(
                            "The table is drawn to its first {MAX_TABLE_ROWS} rows; \
                             its other {} follow as text.",
                            t.past_rows
                        );
                        self.push_node(Node::para(vec![Span::clean(note, Class::Dim)]));
                        self.push_node(Node::text(&t.past, Class::Text));
                    }
                }
            }
            TagEnd::Emphasis => self.italic = self.italic.saturating_sub(1),
            TagEnd::Strong => self.bold = self.bold.saturating_sub(1),
            TagEnd::Strikethrough => self.strike = self.strike.saturating_sub(1),
            TagEnd::Link => {
                if let Some(url) = self.links.pop() {
                    // The target is shown unless the link's text already
                    // says it (its own text only: the whole paragraph each
                    // time made a paragraph of links quadratic).
                    let start = self.link_starts.pop().unwrap_or(0);
                    let text =
                        super::document::line_text(self.inline.get(start..).unwrap_or_default());
                    if !url.is_empty() && !text.ends_with(&safe_text::clean_line(&url)) {
                        self.push_text(&format!(" ({url})"), Class::LinkTarget);
                    }
                }
            }
            TagEnd::Image => {
                if let Some(url) = self.images.pop() {
                    self.push_text(&format!("] ({url})"), Class::Dim);
                }
            }
            _ => {}
        }
    }

    fn end_code(&mut self) {
        if let Some((info, code)) = self.code.take() {
            let lang = info.split_whitespace().next().map(str::to_string);
            self.push_code(lang.as_deref(), &code);
        }
    }

    fn push_code(&mut self, lang: Option<&str>, code: &str) {
        let code = code.strip_suffix('\n').unwrap_or(code);
        // Lines past the budget follow the block as written.
        let (code, past) = match code.match_indices('\n').nth(self.runs_left) {
            Some((k, _)) => (&code[..k], Some(&code[k + 1..])),
            None => (code, None),
        };
        let lines = safe_text::clean_block(code);
        self.spend(lines.len());
        let lang = lang.unwrap_or("");
        let (code_lines, note) = super::defer::code_lines(&lines, Lang::Fence(lang));
        let node = Node::Code {
            lang: highlight::language(Lang::Fence(lang)).or_else(|| {
                // A fence language without a grammar is still said.
                (!lang.is_empty()).then(|| safe_text::clean_line(lang))
            }),
            lines: code_lines,
            more: 0,
            note,
        };
        self.push_node(node);
        if let Some(past) = past {
            self.push_node(Node::text(past, Class::CodeText));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::document::line_text;

    fn texts(nodes: &[Node]) -> Vec<String> {
        nodes
            .iter()
            .map(|n| match n {
                Node::Para(ls) => format!(
                    "p:{}",
                    ls.iter()
                        .map(|l| line_text(l))
                        .collect::<Vec<_>>()
                        .join("/")
                ),
                Node::Text { text, .. } => format!("lines:{}", text.replace('\n', "|")),
                Node::Heading(k, l) => format!("h{k}:{}", line_text(l)),
                Node::Code { lang, lines, .. } => format!(
                    "code({}):{}",
                    lang.clone().unwrap_or_default(),
                    lines
                        .iter()
                        .map(|l| line_text(&l.spans))
                        .collect::<Vec<_>>()
                        .join("|")
                ),
                Node::Quote(inner) => format!("quote[{}]", texts(inner).join(",")),
                Node::List { start, items } => format!(
                    "list({start:?})[{}]",
                    items
                        .iter()
                        .map(|i| texts(i).join(","))
                        .collect::<Vec<_>>()
                        .join(";")
                ),
                Node::Table { head, rows, .. } => format!(
                    "table[{}|{}]",
                    head.iter()
                        .map(|c| line_text(c))
                        .collect::<Vec<_>>()
                        .join(","),
                    rows.len()
                ),
                Node::Rule => "rule".into(),
                Node::Image { .. } => "image".into(),
            })
            .collect()
    }

    #[test]
    fn blocks_of_every_kind() {
        let md = "# Title\n\nSome *em* and **strong** `code`.\n\n> quoted\n\n\
                  1. one\n2. two\n   - nested\n\n| a | b |\n|---|--:|\n| 1 | 2 |\n\n\
                  ```rust\nfn x() {}\n```\n\n---\n[site](https://e.org) <b>raw</b>";
        let nodes = parse(md);
        assert_eq!(
            texts(&nodes),
            vec![
                "h1:Title",
                "p:Some em and strong code.",
                "quote[p:quoted]",
                "list(Some(1))[p:one;p:two,list(None)[p:nested]]",
                "table[a,b|1]",
                "code(rust):fn x() {}",
                "rule",
                "p:site (https://e.org) <b>raw</b>",
            ]
        );
        let Node::Para(lines) = &nodes[1] else {
            panic!()
        };
        let styles: Vec<(bool, bool, Class)> = lines[0]
            .iter()
            .map(|s| (s.style.bold, s.style.italic, s.style.class))
            .collect();
        assert!(styles.contains(&(false, true, Class::Text)));
        assert!(styles.contains(&(true, false, Class::Text)));
        assert!(styles.contains(&(false, false, Class::InlineCode)));
        let Node::Para(lines) = &nodes[7] else {
            panic!()
        };
        let link = &lines[0];
        assert_eq!(link[0].link.as_deref(), Some("https://e.org"));
        assert_eq!(link[1].style.class, Class::LinkTarget);
    }

    #[test]
    fn escapes_in_markdown_stay_visible_text() {
        let md = "a\u{1b}[31m **b\u{7}** `\u{1b}]0;t\u{7}`\n\n```\u{1b}[2J\nx\u{9b}y\n```";
        for node in parse(md) {
            let lines: Vec<String> = match &node {
                Node::Para(ls) => ls.iter().map(|l| line_text(l)).collect(),
                Node::Text { text, .. } => text.split('\n').map(str::to_string).collect(),
                Node::Code { lines, lang, .. } => {
                    assert!(lang.as_deref().is_none_or(|l| !l.contains('\u{1b}')));
                    lines.iter().map(|l| line_text(&l.spans)).collect()
                }
                other => panic!("{other:?}"),
            };
            for l in lines {
                assert!(!l.chars().any(char::is_control), "{l:?}");
            }
        }
    }

    fn depth(nodes: &[Node]) -> usize {
        // A loop, not recursion: the test must not overflow on what it checks.
        let mut deepest = 0;
        let mut todo: Vec<(&Node, usize)> = nodes.iter().map(|n| (n, 1)).collect();
        while let Some((n, d)) = todo.pop() {
            deepest = deepest.max(d);
            match n {
                Node::Quote(inner) => todo.extend(inner.iter().map(|n| (n, d + 1))),
                Node::List { items, .. } => todo.extend(items.iter().flatten().map(|n| (n, d + 1))),
                _ => {}
            }
        }
        deepest
    }

    #[test]
    fn nesting_past_the_cap_is_text_and_every_walk_stays_shallow() {
        for md in [
            format!("{}deep", "> ".repeat(3000)),
            format!("{}deep", "- ".repeat(3000)),
            format!("{}deep", ">".repeat(20_000)),
            format!("{}deep", "1. > ".repeat(2000)),
        ] {
            // A small stack, as a worker thread has: deep recursion anywhere
            // in parsing or dropping overflows it (laying out: layout.rs's
            // test of the same inputs).
            let walked = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    let nodes = parse(&md);
                    let d = depth(&nodes);
                    let text: String = texts(&nodes).concat();
                    let markers = text.matches("> ").count() + text.matches("- ").count();
                    (d, text.contains("deep"), markers > 1000)
                })
                .expect("thread")
                .join()
                .expect("no overflow");
            assert!(
                walked.0 <= MAX_NESTING.saturating_add(1),
                "nested {} deep",
                walked.0
            );
            assert!(walked.1, "the text below the cap is kept");
            assert!(walked.2, "the markers below the cap are shown as text");
        }
    }

    #[test]
    fn a_long_table_is_drawn_to_its_cap_and_the_rest_kept_as_text() {
        let mut md = String::from("| a | b |\n|---|---|\n");
        for k in 0..5000 {
            md.push_str(&format!("| r{k} | **x{k}** |\n"));
        }
        let nodes = parse(&md);
        let got = texts(&nodes);
        assert_eq!(got.len(), 3, "{:?}", &got[..got.len().min(4)]);
        assert_eq!(got[0], format!("table[a,b|{MAX_TABLE_ROWS}]"));
        assert!(got[1].contains("first 200 rows") && got[1].contains("other 4800"));
        assert!(
            got[2].starts_with("lines:| r200 | x200 |"),
            "{}",
            &got[2][..40]
        );
        assert!(got[2].ends_with("| r4999 | x4999 |"));

        // A row of many cells: those past the cap join its last cell.
        let wide = format!(
            "|{}\n|{}\n|{}\n",
            "h|".repeat(5000),
            "-|".repeat(5000),
            "c|".repeat(5000)
        );
        let nodes = parse(&wide);
        let Some(Node::Table { head, rows, .. }) = nodes.first() else {
            panic!("{:?}", texts(&nodes));
        };
        assert_eq!(head.len(), MAX_TABLE_COLUMNS);
        assert_eq!(rows[0].len(), MAX_TABLE_COLUMNS);
        let last = line_text(&rows[0][MAX_TABLE_COLUMNS - 1]);
        assert_eq!(last.matches('c').count(), 5000 - MAX_TABLE_COLUMNS + 1);
    }

    #[test]
    fn images_in_text_are_not_fetched_but_named() {
        let nodes = parse("![alt](http://x/y.png)");
        assert_eq!(texts(&nodes), vec!["p:[image: alt] (http://x/y.png)"]);
    }
}
