//! A document laid out for a width: each block as rows of styled spans no
//! wider than the width (text wrapped at spaces, code broken where it must,
//! tables drawn in columns when they fit), ready for any terminal drawer;
//! for a drawer that shows pictures, rows kept free under each image's
//! placeholder line ([`ImageRoom`], [`ImageSpot`]).

use super::defer::{first_lines, with_code_highlighted};
use super::document::{Align, Block, Class, CodeLine, Document, Fold, Line, Node, Span, Style};
use super::message::{image_label, is_raster};
use crate::safe_text::width as text_width;
use unicode_segmentation::UnicodeSegmentation;

/// Columns a block's body is indented under its title.
const INDENT: usize = 2;

/// Every block of the document, laid out for `width` columns, with the
/// index of the block each row belongs to. `open` says whether a foldable
/// block is shown open (blocks that cannot fold always are).
pub fn layout(
    doc: &Document,
    width: usize,
    open: &dyn Fn(usize, &Block) -> bool,
) -> Vec<(usize, Line)> {
    let mut out = Vec::new();
    for (k, b) in doc.blocks.iter().enumerate() {
        for row in layout_block(b, width, open(k, b)) {
            out.push((k, row));
        }
    }
    out
}

/// The row under a folded body that counts the lines it leaves out
/// (`which`: "more", "earlier") and names the key that shows them.
fn left_out(n: usize, which: &str, key: Option<&str>) -> Line {
    indent(
        vec![Span::clean(
            format!(
                "… {n} {which}{}line{}{}",
                if which.is_empty() { "" } else { " " },
                if n == 1 { "" } else { "s" },
                key.map(|k| format!(" ({k} unfolds)")).unwrap_or_default()
            ),
            Class::Dim,
        )],
        INDENT,
    )
}

/// Whether a block starts open.
pub fn opens_at_first(b: &Block) -> bool {
    b.fold != Fold::Folded
}

/// Whether a block folds: a body that folds, or blocks inside it (what a
/// compaction replaced).
pub fn foldable(b: &Block) -> bool {
    b.fold != Fold::Fixed || !b.children.is_empty()
}

/// One block as rows: its title (with `▸` / `▾` when it folds), then, when
/// open, its body indented and the blocks inside it; a blank row after.
pub fn layout_block(b: &Block, width: usize, open: bool) -> Vec<Line> {
    let open = open || b.fold == Fold::Fixed;
    let mut rows = layout_own(b, width, open, 0, None);
    if open && !b.children.is_empty() {
        rows.pop();
        let inner = width.max(8) - INDENT;
        for child in &b.children {
            for line in layout_block(child, inner, opens_at_first(child)) {
                rows.push(indent(line, INDENT));
            }
        }
        rows.push(Vec::new());
    }
    rows
}

/// How a drawer that shows pictures wants images laid out: their
/// placeholder line, then rows kept free for the picture (whether it has
/// arrived or not, so that scrolling positions never move): as many as
/// the picture takes in cells of `cell` pixels, fitted into the width, as
/// its header says, at most `rows`. An image of more than `max_bytes` is
/// not shown, and its line says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageRoom {
    pub rows: usize,
    pub max_bytes: usize,
    /// A cell's width and height in pixels.
    pub cell: (u16, u16),
}

impl ImageRoom {
    /// Rows the picture of an image's base64 `data` takes at `width`
    /// columns: its pixel size, read from its header (from the first bytes
    /// only), fitted; one (for the reason there is none) when the data is
    /// no image at all; `rows` when its size cannot be read.
    pub fn rows_for(&self, data: &str, width: usize) -> usize {
        // Enough for any header, a JPEG's after its metadata too.
        const HEADER_BASE64: usize = 256 * 1024;
        use base64::Engine as _;
        let mut head = &data[..data.len().min(HEADER_BASE64)];
        head = &head[..head.len() / 4 * 4];
        let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(head) else {
            return 1;
        };
        if image::guess_format(&bytes).is_err() {
            return 1;
        }
        let dims = image::ImageReader::new(std::io::Cursor::new(bytes))
            .with_guessed_format()
            .ok()
            .and_then(|r| r.into_dimensions().ok());
        let Some((w, h)) = dims.filter(|&(w, h)| w > 0 && h > 0) else {
            return self.rows;
        };
        let (cw, ch) = (f64::from(self.cell.0.max(1)), f64::from(self.cell.1.max(1)));
        let (w, h) = (f64::from(w), f64::from(h));
        let scale = (width as f64 * cw / w)
            .min(self.rows as f64 * ch / h)
            .min(1.0);
        ((h * scale / ch).ceil() as usize).clamp(1, self.rows)
    }
}

/// Where a picture goes among a block's rows: from row `row`, `rows` rows
/// high, from column `col`, at most `cols` wide; `node` is the image's
/// index in the block's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageSpot {
    pub node: usize,
    pub row: usize,
    pub rows: usize,
    pub col: usize,
    pub cols: usize,
}

/// A block's rows, and where pictures go among them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Laid {
    pub rows: Vec<Line>,
    pub images: Vec<ImageSpot>,
}

/// A block's own rows, without the blocks inside it (a drawer that folds
/// each of those on its own lays them out itself): the title, then the
/// body when `open` (or when it cannot fold), else its first `peek` rows
/// and how many more there are; when it holds blocks and is not open, how
/// many; a blank row after. Every row is dimmed when the block is
/// compacted away. `key` names the key that opens a block, for the notes
/// of what a folded block leaves out.
pub fn layout_own(
    b: &Block,
    width: usize,
    open: bool,
    peek: usize,
    key: Option<&str>,
) -> Vec<Line> {
    layout_own_with(b, width, open, peek, key, None).rows
}

/// [`layout_own`], with room kept for the pictures of the images of an
/// open body when `room` says how much (a folded body's first rows show
/// their placeholder lines only).
pub fn layout_own_with(
    b: &Block,
    width: usize,
    open: bool,
    peek: usize,
    key: Option<&str>,
    room: Option<ImageRoom>,
) -> Laid {
    let width = width.max(8);
    let mut images = Vec::new();
    let body_open = open || b.fold == Fold::Fixed;
    let mut rows = Vec::new();
    let mut title: Line = Vec::new();
    if foldable(b) {
        title.push(Span::clean(
            if open { "▾ " } else { "▸ " }.to_string(),
            Class::Dim,
        ));
    }
    if b.hidden {
        title.push(Span::clean(
            "compacted away · ".to_string(),
            Class::Compaction,
        ));
    }
    title.extend(b.title.iter().cloned());
    rows.extend(wrap(&title, width));
    for line in &b.lead {
        for row in wrap(line, width - INDENT) {
            rows.push(indent(row, INDENT));
        }
    }
    if body_open {
        let start = rows.len();
        let body = with_code_highlighted(&b.body);
        let (lines, spots) = top_nodes(&body, width - INDENT, room);
        for line in lines {
            rows.push(indent(line, INDENT));
        }
        images.extend(spots.into_iter().map(|s| ImageSpot {
            row: s.row + start,
            col: s.col + INDENT,
            ..s
        }));
    } else if peek > 0 && b.tail && !b.body.is_empty() {
        // The last rows, as pi shows a command's output folded.
        let all = nodes(&b.body, width - INDENT);
        let end = all.len() - all.iter().rev().take_while(|l| l.is_empty()).count();
        let start = all.iter().take_while(|l| l.is_empty()).count().min(end);
        let shown = (end - start).min(peek);
        let earlier = end - start - shown;
        if earlier > 0 {
            rows.push(left_out(earlier, "earlier", key));
        }
        for line in &all[end - shown..end] {
            rows.push(indent(line.clone(), INDENT));
        }
    } else if (peek > 0 || b.peek == Some(0)) && !b.body.is_empty() {
        // Only the rows shown are highlighted; the rest are counted.
        let all = nodes(&b.body, width - INDENT);
        let start = all.iter().take_while(|l| l.is_empty()).count();
        let shown = all.len().saturating_sub(start).min(peek);
        let first = first_lines(&b.body, start + shown);
        let head = nodes(&with_code_highlighted(&first), width - INDENT);
        for line in head.iter().skip(start).take(shown) {
            rows.push(indent(line.clone(), INDENT));
        }
        let more = all.len() - start - shown;
        if more > 0 {
            rows.push(left_out(more, if shown == 0 { "" } else { "more" }, key));
        }
    }
    if let Some(after) = &b.after {
        for line in wrap(after, width - INDENT) {
            rows.push(indent(line, INDENT));
        }
    }
    if !open && !b.children.is_empty() {
        // How many is the title's to say: its count is of messages, these
        // are blocks (a tool call holds its result).
        rows.push(indent(
            vec![Span::clean(
                format!(
                    "What it replaced, compacted away ({})",
                    key.map_or("open to read".to_string(), |k| format!("{k} shows it"))
                ),
                Class::Dim,
            )],
            INDENT,
        ));
    }
    if b.hidden {
        for row in &mut rows {
            for s in row.iter_mut() {
                s.style.dim = true;
            }
        }
    }
    rows.push(Vec::new());
    Laid { rows, images }
}

fn indent(mut line: Line, n: usize) -> Line {
    line.insert(0, Span::clean(" ".repeat(n), Class::Text));
    line
}

fn prefixed(lines: Vec<Line>, first: &str, rest: &str, class: Class) -> Vec<Line> {
    lines
        .into_iter()
        .enumerate()
        .map(|(k, mut l)| {
            let p = if k == 0 { first } else { rest };
            l.insert(0, Span::clean(p.to_string(), class));
            l
        })
        .collect()
}

/// Nodes as rows of at most `width` columns.
pub fn nodes(list: &[Node], width: usize) -> Vec<Line> {
    top_nodes(list, width, None).0
}

/// Nodes as rows of at most `width` columns, with room kept under each
/// image that can be shown when `room` asks for it, and where those
/// pictures go. (Images are top-level nodes of a body: inside
/// a list or quote they keep their placeholder line.)
fn top_nodes(list: &[Node], width: usize, room: Option<ImageRoom>) -> (Vec<Line>, Vec<ImageSpot>) {
    let width = width.max(4);
    let mut out = Vec::new();
    let mut spots = Vec::new();
    for (k, n) in list.iter().enumerate() {
        // Blocks are set apart by a blank row; a list right under its
        // paragraph (a list item's nested list) is not.
        let apart = !matches!(
            (k.checked_sub(1).map(|p| &list[p]), n),
            (None, _) | (Some(Node::Para(_)), Node::List { .. })
        );
        if apart {
            out.push(Vec::new());
        }
        match (n, room) {
            (Node::Image { mime, bytes, data }, Some(room)) => {
                let (label, shown) = image_line(mime, *bytes, data.is_some(), room);
                out.extend(wrap(&label, width));
                if let (true, Some(data)) = (shown, data) {
                    let rows = room.rows_for(data, width);
                    spots.push(ImageSpot {
                        node: k,
                        row: out.len(),
                        rows,
                        col: 0,
                        cols: width,
                    });
                    out.extend(std::iter::repeat_n(Vec::new(), rows));
                }
            }
            (other, _) => out.extend(node(other, width)),
        }
    }
    (out, spots)
}

/// An image's placeholder line for a drawer that shows pictures, and
/// whether its picture is to be shown: not when it is too large, not a
/// raster image, or its data is not well-formed base64 (the line says why).
fn image_line(mime: &str, bytes: usize, has_data: bool, room: ImageRoom) -> (Line, bool) {
    let mut line = vec![Span::new(&image_label(mime, bytes), Class::Image)];
    let why = if !has_data {
        Some(if is_raster(mime) {
            "not shown: its base64 is broken".to_string()
        } else {
            "not shown: not PNG, JPEG, GIF or WebP".to_string()
        })
    } else if bytes > room.max_bytes {
        Some(format!(
            "not shown: larger than {} MB",
            room.max_bytes / (1024 * 1024)
        ))
    } else {
        None
    };
    if let Some(why) = &why {
        line.push(Span::clean(format!(" · {why}"), Class::Dim));
    }
    (line, why.is_none())
}

fn node(n: &Node, width: usize) -> Vec<Line> {
    match n {
        Node::Para(lines) => lines.iter().flat_map(|l| wrap(l, width)).collect(),
        Node::Text { text, class } => plain_text(text, *class, width),
        Node::Heading(level, line) => {
            // As pi shows them: the first two levels by their style alone
            // (the first underlined too), the others after their marks.
            let mut l = Vec::new();
            if *level >= 3 {
                l.push(Span::clean(
                    format!("{} ", "#".repeat(*level as usize)),
                    Style {
                        bold: true,
                        ..Style::of(Class::Heading)
                    },
                ));
            }
            l.extend(line.iter().cloned().map(|mut s| {
                s.style.bold = true;
                s.style.underline |= *level == 1;
                if s.style.class == Class::Text {
                    s.style.class = Class::Heading;
                }
                s
            }));
            wrap(&l, width)
        }
        Node::Code {
            lines, more, note, ..
        } => code(lines, *more, note.as_deref(), width),
        Node::Quote(inner) => prefixed(nodes(inner, width - 2), "│ ", "│ ", Class::QuoteMarker),
        Node::List { start, items } => {
            let mut out = Vec::new();
            for (k, item) in items.iter().enumerate() {
                let marker = match start {
                    Some(s) => format!("{}. ", s + k as u64),
                    None => "• ".to_string(),
                };
                let pad = " ".repeat(text_width(&marker));
                let w = width.saturating_sub(pad.len()).max(4);
                out.extend(prefixed(nodes(item, w), &marker, &pad, Class::ListMarker));
            }
            out
        }
        Node::Table { aligns, head, rows } => table(aligns, head, rows, width),
        Node::Rule => vec![vec![Span::clean("─".repeat(width), Class::Rule)]],
        Node::Image { mime, bytes, .. } => {
            vec![vec![Span::new(&image_label(mime, *bytes), Class::Image)]]
        }
    }
}

/// Rows a [`Node::Text`] is laid out in at most: a terminal shows a few
/// screens of a long text, and the rows of megabytes of it would take
/// hundreds of megabytes. An export has every line.
pub const MAX_TEXT_ROWS: usize = 5_000;

fn plain_text(text: &str, class: Class, width: usize) -> Vec<Line> {
    let mut rows = Vec::new();
    let mut lines = text.split('\n');
    for line in lines.by_ref() {
        rows.extend(wrap(&[Span::clean(line.to_string(), class)], width));
        if rows.len() >= MAX_TEXT_ROWS {
            break;
        }
    }
    let more = lines.count();
    if more > 0 {
        let note = format!(
            "… {more} more line{} (an export of the session has them all)",
            if more == 1 { "" } else { "s" }
        );
        rows.extend(wrap(&[Span::clean(note, Class::Dim)], width));
    }
    rows
}

fn code(lines: &[CodeLine], more: usize, note: Option<&str>, width: usize) -> Vec<Line> {
    let mut out = Vec::new();
    let bar = Span::clean("│ ".to_string(), Class::Dim);
    for l in lines {
        for row in break_anywhere(&l.spans, width - 2) {
            let mut r = vec![bar.clone()];
            r.extend(row);
            out.push(r);
        }
    }
    let notes = note.map(str::to_string).into_iter().chain(
        (more > 0).then(|| format!("… {more} more line{}", if more == 1 { "" } else { "s" })),
    );
    for note in notes {
        let note = vec![Span::clean(note, Class::Dim)];
        for row in wrap(&note, width - 2) {
            let mut r = vec![bar.clone()];
            r.extend(row);
            out.push(r);
        }
    }
    out
}

/// Adds `text` in `style` to a row, joining the last span when alike.
fn push(row: &mut Line, text: &str, from: &Span) {
    if let Some(last) = row.last_mut() {
        if last.style == from.style && last.link == from.link {
            last.push_clean(text);
            return;
        }
    }
    let mut s = Span::clean(text.to_string(), from.style);
    s.link = from.link.clone();
    row.push(s);
}

/// Styled text wrapped to `width` as pi wraps it: at spaces (a space at
/// the break is dropped), a word kept whole even where its style changes,
/// and broken inside only when it is longer than a row.
pub fn wrap(line: &[Span], width: usize) -> Vec<Line> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row: Line = Vec::new();
    let mut used = 0;
    for (space, parts) in words(line) {
        let w: usize = parts.iter().map(|(_, t)| text_width(t)).sum();
        if used + w <= width {
            for (k, t) in &parts {
                push(&mut row, t, &line[*k]);
            }
            used += w;
            continue;
        }
        if space {
            end_row(&mut rows, &mut row);
            used = 0;
            continue;
        }
        if w <= width && used > 0 {
            end_row(&mut rows, &mut row);
            for (k, t) in &parts {
                push(&mut row, t, &line[*k]);
            }
            used = w;
            continue;
        }
        // Longer than a row: it starts one, and is broken where rows end.
        if used > 0 {
            end_row(&mut rows, &mut row);
            used = 0;
        }
        for (k, t) in &parts {
            for g in t.graphemes(true) {
                let gw = text_width(g);
                if used + gw > width && used > 0 {
                    end_row(&mut rows, &mut row);
                    used = 0;
                }
                push(&mut row, g, &line[*k]);
                used += gw;
            }
        }
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row);
    }
    rows
}

/// A line's runs of spaces and of other characters (words), in order,
/// each as its pieces in the spans it runs through (span index, text), and
/// whether it is spaces.
fn words(line: &[Span]) -> Vec<(bool, Vec<(usize, &str)>)> {
    let mut out: Vec<(bool, Vec<(usize, &str)>)> = Vec::new();
    for (k, span) in line.iter().enumerate() {
        let text = span.text();
        let mut start = 0;
        while start < text.len() {
            let space = text[start..].starts_with(' ');
            let len = text[start..]
                .find(|c: char| (c == ' ') != space)
                .unwrap_or(text.len() - start);
            let piece = (k, &text[start..start + len]);
            match out.last_mut() {
                Some((s, parts)) if *s == space => parts.push(piece),
                _ => out.push((space, vec![piece])),
            }
            start += len;
        }
    }
    out
}

/// Ends a wrapped row: the spaces before the break are not kept.
fn end_row(rows: &mut Vec<Line>, row: &mut Line) {
    let n = row.len();
    while let Some(last) = row.last() {
        let text = last.text();
        let trimmed = text.trim_end_matches(' ');
        if trimmed.is_empty() && n > 1 && row.len() > 1 {
            row.pop();
            continue;
        }
        if trimmed.len() != text.len() {
            let mut s = Span::clean(trimmed.to_string(), last.style);
            s.link = last.link.clone();
            if let Some(slot) = row.last_mut() {
                *slot = s;
            }
        }
        break;
    }
    rows.push(std::mem::take(row));
}

/// Lines kept as they are, broken only where they reach `width`.
fn break_anywhere(line: &[Span], width: usize) -> Vec<Line> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row: Line = Vec::new();
    let mut used = 0;
    for span in line {
        for g in span.text().graphemes(true) {
            let gw = text_width(g);
            if used + gw > width && used > 0 {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            push(&mut row, g, span);
            used += gw;
        }
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row);
    }
    rows
}

fn table(aligns: &[Align], head: &[Line], rows: &[Vec<Line>], width: usize) -> Vec<Line> {
    let cols = head.len().max(rows.iter().map(Vec::len).max().unwrap_or(0));
    let cell_width = |c: &Line| text_width(&super::document::line_text(c));
    let mut widths = vec![0usize; cols];
    for row in std::iter::once(head).chain(rows.iter().map(Vec::as_slice)) {
        for (k, c) in row.iter().enumerate() {
            widths[k] = widths[k].max(cell_width(c));
        }
    }
    // The cells, the bars between them and the border round them.
    let total: usize = widths.iter().sum::<usize>() + 3 * cols.saturating_sub(1) + 4;
    let sep = || Span::clean(" │ ".to_string(), Class::TableBorder);
    if total > width || cols == 0 {
        // Too wide for columns: each row on its own, cells separated.
        let mut out = Vec::new();
        for row in std::iter::once(head).chain(rows.iter().map(Vec::as_slice)) {
            let mut line: Line = Vec::new();
            for (k, c) in row.iter().enumerate() {
                if k > 0 {
                    line.push(sep());
                }
                line.extend(c.iter().cloned());
            }
            out.extend(wrap(&line, width));
        }
        return out;
    }
    let draw = |row: &[Line], bold: bool| {
        let mut line: Line = vec![Span::clean("│ ".to_string(), Class::TableBorder)];
        for (k, w) in widths.iter().enumerate() {
            if k > 0 {
                line.push(sep());
            }
            let cell = row.get(k).cloned().unwrap_or_default();
            let pad = w - cell_width(&cell);
            let (left, right) = match aligns.get(k).copied().unwrap_or(Align::Left) {
                Align::Left => (0, pad),
                Align::Right => (pad, 0),
                Align::Center => (pad / 2, pad - pad / 2),
            };
            if left > 0 {
                line.push(Span::clean(" ".repeat(left), Class::Text));
            }
            line.extend(cell.into_iter().map(|mut s| {
                s.style.bold |= bold;
                s
            }));
            if right > 0 {
                line.push(Span::clean(" ".repeat(right), Class::Text));
            }
        }
        line.push(Span::clean(" │".to_string(), Class::TableBorder));
        line
    };
    // Drawn as pi draws a table: a border round it, a rule under the head
    // and between the rows.
    let rule = |left: &str, mid: &str, right: &str| {
        let cells: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        vec![Span::clean(
            format!("{left}─{}─{right}", cells.join(&format!("─{mid}─"))),
            Class::TableBorder,
        )]
    };
    let mut out = vec![rule("┌", "┬", "┐"), draw(head, true), rule("├", "┼", "┤")];
    for (k, row) in rows.iter().enumerate() {
        if k > 0 {
            out.push(rule("├", "┼", "┤"));
        }
        out.push(draw(row, false));
    }
    out.push(rule("└", "┴", "┘"));
    out
}

/// A row's spans as `(text, style)` pairs (what a terminal drawer needs).
pub fn pairs(line: &Line) -> Vec<(&str, Style)> {
    line.iter().map(|s| (s.text(), s.style)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::document::line_text;

    /// Markdown nested past the parser's cap is laid out on a small stack,
    /// as a worker thread has, with the text below the cap kept.
    #[test]
    fn deep_nesting_lays_out_on_a_small_stack() {
        for md in [
            format!("{}deep", "> ".repeat(3000)),
            format!("{}deep", "- ".repeat(3000)),
            format!("{}deep", ">".repeat(20_000)),
            format!("{}deep", "1. > ".repeat(2000)),
        ] {
            let text = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    let nodes = crate::render::from_markdown::parse(&md);
                    let rows = super::nodes(&nodes, 80);
                    rows.iter().map(|r| line_text(r)).collect::<String>()
                })
                .expect("thread")
                .join()
                .expect("no overflow");
            assert!(text.contains("deep"), "the text below the cap is kept");
            let markers = text.matches("> ").count() + text.matches("- ").count();
            assert!(
                markers > 1000,
                "the markers below the cap are shown as text"
            );
        }
    }

    #[test]
    fn wrapping_keeps_styles_and_width() {
        let line = vec![
            Span::new("hello big ", Class::Text),
            Span::new("wide world", Class::Link),
        ];
        let rows = wrap(&line, 9);
        let texts: Vec<String> = rows.iter().map(|r| line_text(r)).collect();
        assert_eq!(texts, vec!["hello big", "wide", "world"]);
        assert_eq!(rows[1][0].style.class, Class::Link);
        for w in 1..20 {
            for r in wrap(&line, w) {
                assert!(text_width(&line_text(&r)) <= w, "{w}: {r:?}");
            }
        }
    }

    /// As pi wraps: at spaces only, a word whole across a change of style,
    /// broken inside only when longer than a row.
    #[test]
    fn wrapping_breaks_at_spaces_only() {
        let line = vec![
            Span::new("User 2026-01-11 17:39:04 see the docs (", Class::Text),
            Span::new("https://e.org/a", Class::LinkTarget),
            Span::new(")", Class::Text),
        ];
        let texts: Vec<String> = wrap(&line, 20).iter().map(|r| line_text(r)).collect();
        assert_eq!(
            texts,
            vec![
                "User 2026-01-11",
                "17:39:04 see the",
                "docs",
                "(https://e.org/a)"
            ]
        );
        let long = vec![Span::new("ab abcdefghij", Class::Text)];
        let texts: Vec<String> = wrap(&long, 4).iter().map(|r| line_text(r)).collect();
        assert_eq!(texts, vec!["ab", "abcd", "efgh", "ij"]);
    }

    /// Line breaks in markdown are kept; headings read as pi shows them.
    #[test]
    fn line_breaks_are_kept_and_headings_lose_their_first_marks() {
        let nodes = crate::render::from_markdown::parse(
            "Index 0: hdr\nIndex 1: cmp\n\n# One\n\n## Two\n\n### Three",
        );
        let rows: Vec<String> = super::nodes(&nodes, 80)
            .iter()
            .map(|r| line_text(r))
            .collect();
        let rows: Vec<&str> = rows
            .iter()
            .map(String::as_str)
            .filter(|r| !r.is_empty())
            .collect();
        assert_eq!(
            rows,
            vec!["Index 0: hdr", "Index 1: cmp", "One", "Two", "### Three"]
        );
    }

    #[test]
    fn images_get_rows_kept_for_their_pictures_when_asked() {
        use crate::render::document::{Block, BlockKind};
        let para = |t: &str| Node::para(vec![Span::new(t, Class::Text)]);
        let image = |mime: &str, bytes: usize, data: bool| Node::Image {
            mime: mime.to_string(),
            bytes,
            data: data.then(|| "AAAA".to_string()),
        };
        let mut b = Block::new(
            BlockKind::User,
            None,
            vec![Span::new("User", Class::RoleUser)],
        );
        b.body = vec![
            para("before"),
            image("image/png", 300, true),
            image("image/png", 40 << 20, true),
            image("image/svg+xml", 10, false),
            image("image/png", 10, false),
            para("after"),
        ];
        let room = ImageRoom {
            rows: 3,
            max_bytes: 1 << 20,
            cell: (10, 20),
        };
        let texts = |rows: &[Line]| rows.iter().map(|r| line_text(r)).collect::<Vec<_>>();
        let plain = layout_own(&b, 80, true, 0, None);
        let none = layout_own_with(&b, 80, true, 0, None, None);
        assert_eq!(none.rows, plain);
        assert!(none.images.is_empty());
        let laid = layout_own_with(&b, 80, true, 0, None, Some(room));
        assert_eq!(
            texts(&laid.rows),
            vec![
                "User",
                "  before",
                "  ",
                "  [image png 300 B]",
                "  ",
                "  ",
                "  [image png 40.0 MB] · not shown: larger than 1 MB",
                "  ",
                "  [image svg+xml 10 B] · not shown: not PNG, JPEG, GIF or WebP",
                "  ",
                "  [image png 10 B] · not shown: its base64 is broken",
                "  ",
                "  after",
                "",
            ]
        );
        // No image in its data ("AAAA"): one row, for the reason.
        assert_eq!(
            laid.images,
            vec![ImageSpot {
                node: 1,
                row: 4,
                rows: 1,
                col: 2,
                cols: 78,
            }]
        );
        // Folded to its first rows, an image keeps its line only.
        b.fold = Fold::Folded;
        let peek = layout_own_with(&b, 80, false, 4, None, Some(room));
        assert!(peek.images.is_empty());
        assert!(
            texts(&peek.rows).contains(&"  [image png 300 B]".to_string()),
            "{:?}",
            texts(&peek.rows)
        );
    }

    #[test]
    fn a_picture_gets_the_rows_its_header_says_it_needs() {
        use base64::Engine as _;
        let png = |w: u32, h: u32| {
            let mut out = std::io::Cursor::new(Vec::new());
            image::RgbImage::new(w, h)
                .write_to(&mut out, image::ImageFormat::Png)
                .expect("png");
            base64::engine::general_purpose::STANDARD.encode(out.into_inner())
        };
        let room = ImageRoom {
            rows: 12,
            max_bytes: 1 << 20,
            cell: (10, 20),
        };
        // One pixel: one row. 100 pixels high: 5 rows of 20.
        assert_eq!(room.rows_for(&png(1, 1), 80), 1);
        assert_eq!(room.rows_for(&png(50, 100), 80), 5);
        // Too high: the most rows. Too wide: shrunk to the width first
        // (2000×400 into 80 columns of 10 pixels: 800×160, 8 rows).
        assert_eq!(room.rows_for(&png(100, 5000), 80), 12);
        assert_eq!(room.rows_for(&png(2000, 400), 80), 8);
        // No image at all: a row for the reason. A PNG whose size cannot
        // be read (cut inside its header): the most rows.
        assert_eq!(room.rows_for("AAAA", 80), 1);
        assert_eq!(room.rows_for("not base64!", 80), 1);
        assert_eq!(room.rows_for(&png(50, 100)[..16], 80), 12);
    }

    #[test]
    fn tables_in_columns_or_rows() {
        let cell = |s: &str| vec![Span::new(s, Class::Text)];
        let head = vec![cell("name"), cell("n")];
        let rows = vec![vec![cell("a"), cell("10")], vec![cell("bbbbbb"), cell("2")]];
        let aligns = [Align::Left, Align::Right];
        let got: Vec<String> = table(&aligns, &head, &rows, 40)
            .iter()
            .map(|r| line_text(r))
            .collect();
        // As pi draws a table: a border round it, a rule under the head
        // and between the rows.
        assert_eq!(
            got,
            vec![
                "┌────────┬────┐",
                "│ name   │  n │",
                "├────────┼────┤",
                "│ a      │ 10 │",
                "├────────┼────┤",
                "│ bbbbbb │  2 │",
                "└────────┴────┘"
            ]
        );
        let narrow: Vec<String> = table(&aligns, &head, &rows, 6)
            .iter()
            .map(|r| line_text(r))
            .collect();
        assert!(narrow.iter().all(|r| text_width(r) <= 6), "{narrow:?}");
    }
}
