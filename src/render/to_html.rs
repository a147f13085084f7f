//! A rendered document as one self-contained HTML page: inline CSS, no
//! script at all (folding is `<details>`), a Content-Security-Policy that
//! allows nothing but that one style sheet and inline images, every string
//! escaped, links followed only for http, https and mailto. With every
//! branch: a list of branches, the entry tree, and links at each fork.

use super::document::{Block, Class, CodeLine, Document, Fold, Line, LineKind, Meta, Node, Span};
use super::from_session::Branch;
use super::message::{image_label, thousands};
use crate::jstext::date as jsdate;
use crate::safe_text;
use crate::session::Session;
use crate::session::tree::view::{self, Filter, TreeView};
use base64::Engine as _;
use sha2::Digest as _;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// The page for one leaf's context.
pub fn page(doc: &Document) -> String {
    let mut w = Writer::default();
    w.out.push_str("<main>\n");
    for b in &doc.blocks {
        w.block(b);
    }
    w.out.push_str("</main>\n");
    finish(&doc.meta, None, w)
}

/// One leaf's page written a stretch of blocks at a time (see
/// [`crate::render::write_html`]): the blocks' HTML as each stretch comes,
/// then the page's head and tail, which name the colours the blocks used.
#[derive(Default)]
pub struct PageBody(Writer);

impl PageBody {
    /// The HTML of `blocks`, the next on the page.
    pub fn blocks(&mut self, blocks: &[Block]) -> String {
        for b in blocks {
            self.0.block(b);
        }
        std::mem::take(&mut self.0.out)
    }

    /// What comes before the blocks and after them, as [`page`] writes
    /// them.
    pub fn head_and_tail(&self, meta: &Meta) -> (String, String) {
        let (mut head, mut tail) = frame(meta, None, &self.0);
        head.push_str("<main>\n");
        tail.insert_str(0, "</main>\n");
        (head, tail)
    }
}

/// The page for the whole tree: the branches listed, the entry tree, then
/// each branch from where it leaves the ones before it.
pub fn branches_page(
    session: &Session,
    meta: &Meta,
    branches: &[Branch],
    nav_rows: &[NavRow],
) -> String {
    let mut w = Writer::default();
    // Which branch holds each entry as its own, and where each fork goes.
    let mut home: HashMap<u32, usize> = HashMap::new();
    for (k, b) in branches.iter().enumerate() {
        for e in session.tree.path_to(b.leaf) {
            home.entry(e).or_insert(k);
        }
    }
    let mut forks_in: HashMap<usize, Vec<(u32, usize)>> = HashMap::new();
    for (k, b) in branches.iter().enumerate() {
        if let Some(f) = b.fork {
            if let Some(&owner) = home.get(&f) {
                forks_in.entry(owner).or_default().push((f, k));
            }
        }
    }
    // Anchors: every entry that has a block.
    let mut anchored: HashSet<u32> = HashSet::new();
    for b in branches {
        collect_entries(&b.blocks, &mut anchored);
    }
    let entry_id = |e: u32| safe_text::clean_line(session.entry(e).id_str().unwrap_or("?"));
    let link_to = |e: u32| match anchored.contains(&e) {
        true => format!("#e{e}"),
        false => format!("#b{}", home.get(&e).copied().unwrap_or(0) + 1),
    };

    let mut nav = String::from("<nav class=\"branches\"><h2>Branches</h2><ol>\n");
    for (k, b) in branches.iter().enumerate() {
        let _ = write!(nav, "<li><a href=\"#b{}\">", k + 1);
        nav.push_str(&spans(&b.title));
        let _ = write!(
            nav,
            "</a> <span class=\"dim\">· {} entr{}",
            b.entries,
            if b.entries == 1 { "y" } else { "ies" }
        );
        if b.active {
            nav.push_str(" · where pi resumes");
        }
        nav.push_str("</span></li>\n");
    }
    nav.push_str("</ol>\n");
    tree(&mut nav, nav_rows, &anchored);
    nav.push_str("</nav>\n");

    w.out.push_str("<main>\n");
    for (k, b) in branches.iter().enumerate() {
        let _ = write!(
            w.out,
            "<section class=\"branch{}\" id=\"b{}\">\n<h2 class=\"branch-title\">Branch {}: ",
            if b.active { " active" } else { "" },
            k + 1,
            k + 1
        );
        w.out.push_str(&spans(&b.title));
        if b.active {
            w.out
                .push_str(" <span class=\"dim\">(where pi resumes)</span>");
        }
        w.out.push_str("</h2>\n");
        if let Some(f) = b.fork {
            let owner = home.get(&f).copied().unwrap_or(0);
            let _ = writeln!(
                w.out,
                "<p class=\"fork-from\">Continues from <a href=\"{}\">entry {}</a> of <a href=\"#b{}\">branch {}</a>.</p>",
                link_to(f),
                escape(&entry_id(f)),
                owner + 1,
                owner + 1
            );
        }
        // Each fork in this branch's part: a note after the last block at
        // or before it.
        let mut notes: Vec<(usize, String)> = Vec::new();
        for &(f, to) in forks_in.get(&k).map(Vec::as_slice).unwrap_or(&[]) {
            let before: HashSet<u32> = session.tree.path_to(f).into_iter().collect();
            let at = b
                .blocks
                .iter()
                .rposition(|bl| bl.entry.is_some_and(|e| before.contains(&e)))
                .map_or(0, |p| p + 1);
            notes.push((
                at,
                format!(
                    "<nav class=\"fork\">⑂ Another branch leaves here (after entry {}): <a href=\"#b{}\">branch {}</a></nav>\n",
                    escape(&entry_id(f)),
                    to + 1,
                    to + 1
                ),
            ));
        }
        for (n, block) in b.blocks.iter().enumerate() {
            for (_, note) in notes.iter().filter(|(at, _)| *at == n) {
                w.out.push_str(note);
            }
            w.block(block);
        }
        for (_, note) in notes.iter().filter(|(at, _)| *at >= b.blocks.len()) {
            w.out.push_str(note);
        }
        if b.blocks.is_empty() {
            w.out
                .push_str("<p class=\"dim\">(no messages of its own)</p>\n");
        }
        w.out.push_str("</section>\n");
    }
    w.out.push_str("</main>\n");
    finish(meta, Some(nav), w)
}

fn collect_entries(blocks: &[Block], into: &mut HashSet<u32>) {
    for b in blocks {
        into.extend(b.entry);
        into.extend(b.also.iter().copied());
        collect_entries(&b.children, into);
    }
}

/// One row of the entry tree a page of every branch shows: its entry,
/// pi's `/tree` connectors and mark, its label and its one-line text
/// (clean, and cut to fit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NavRow {
    pub node: u32,
    pub gutter: String,
    pub mark: String,
    pub label: Option<String>,
    pub text: String,
}

/// pi's `/tree` rows of the session, for the page of every branch.
pub fn nav_rows(session: &Session) -> Vec<NavRow> {
    let view = TreeView::new(session);
    let rows = view.rows(session, Filter::Default, &HashSet::new());
    let texts = view::texts(session, None);
    rows.rows
        .iter()
        .zip(rows.gutter_rows(false))
        .map(|(row, gutter)| {
            let node = row.node;
            let text = texts.get(node as usize).map_or("", String::as_str);
            NavRow {
                node,
                gutter,
                mark: view.mark(node).text().to_string(),
                label: session
                    .label_of(node)
                    .map(|l| safe_text::clean_line(&l.label)),
                text: safe_text::truncate(&safe_text::clean_line(text), 100),
            }
        })
        .collect()
}

/// The entry tree's rows, each linked to its entry's block where it has one.
fn tree(out: &mut String, rows: &[NavRow], anchored: &HashSet<u32>) {
    out.push_str("<details class=\"tree\"><summary>Entry tree</summary><pre>");
    for row in rows {
        out.push_str(&escape(&row.gutter));
        out.push_str(&row.mark);
        if let Some(l) = &row.label {
            let _ = write!(out, "<span class=\"c-label\">[{}]</span> ", escape(l));
        }
        let text = escape(&row.text);
        if anchored.contains(&row.node) {
            let _ = write!(out, "<a href=\"#e{}\">{text}</a>", row.node);
        } else {
            out.push_str(&text);
        }
        out.push('\n');
    }
    out.push_str("</pre></details>\n");
}

#[derive(Default)]
struct Writer {
    out: String,
    /// Entries whose anchor is already on the page (a flag an entry: a
    /// branch of ten million entries' set of them took a hundred MB).
    ids: crate::session::tree::Bits,
    /// ANSI colours used (foreground, background), for the style sheet.
    fg: HashSet<u8>,
    bg: HashSet<u8>,
}

impl Writer {
    fn anchor(&mut self, entry: Option<u32>) -> String {
        match entry {
            Some(e) if self.ids.insert(e) => format!(" id=\"e{e}\""),
            _ => String::new(),
        }
    }

    fn block(&mut self, b: &Block) {
        let id = self.anchor(b.entry);
        let class = format!(
            "block k-{}{}",
            b.kind.css(),
            if b.hidden { " hidden" } else { "" }
        );
        let mut title = String::new();
        if b.hidden {
            title.push_str("<span class=\"c-compaction\">compacted away · </span>");
        }
        title.push_str(&self.spans(&b.title));
        match b.fold {
            Fold::Fixed => {
                let _ = write!(
                    self.out,
                    "<section class=\"{class}\"{id}>\n<div class=\"title\">{title}</div>\n"
                );
            }
            Fold::Folded | Fold::Open => {
                let open = if b.fold == Fold::Open { " open" } else { "" };
                let _ = write!(
                    self.out,
                    "<details class=\"{class}\"{id}{open}>\n<summary class=\"title\">{title}</summary>\n"
                );
            }
        }
        for e in &b.also {
            let also = self.anchor(Some(*e));
            if !also.is_empty() {
                let _ = write!(self.out, "<span{also}></span>");
            }
        }
        self.out.push_str("<div class=\"body\">\n");
        if !b.lead.is_empty() {
            self.node(&Node::Para(b.lead.clone()));
        }
        for n in &b.body {
            self.node(n);
        }
        if let Some(after) = &b.after {
            self.node(&Node::para(after.clone()));
        }
        if !b.children.is_empty() {
            let _ = writeln!(
                self.out,
                "<details class=\"replaced\"><summary>{} message{} compacted away: what the model saw before this compaction</summary>",
                b.children.len(),
                if b.children.len() == 1 { "" } else { "s" }
            );
            for c in &b.children {
                self.block(c);
            }
            self.out.push_str("</details>\n");
        }
        self.out.push_str("</div>\n");
        self.out.push_str(match b.fold {
            Fold::Fixed => "</section>\n",
            _ => "</details>\n",
        });
    }

    fn node(&mut self, n: &Node) {
        match n {
            Node::Para(lines) => {
                let s: Vec<String> = lines.iter().map(|l| self.spans(l)).collect();
                let _ = writeln!(self.out, "<p>{}</p>", s.join("<br>\n"));
            }
            Node::Text { text, class } => {
                let _ = write!(self.out, "<div class=\"lines");
                if *class != Class::Text {
                    let _ = write!(self.out, " c-{}", class.css());
                }
                self.out.push_str("\">");
                for l in text.split('\n') {
                    let _ = writeln!(self.out, "<div>{}</div>", escape(l));
                }
                self.out.push_str("</div>\n");
            }
            Node::Heading(level, l) => {
                let h = (*level as usize + 1).min(6);
                let s = self.spans(l);
                let _ = writeln!(self.out, "<h{h}>{s}</h{h}>");
            }
            Node::Code {
                lang,
                lines,
                more,
                note,
            } => self.code(lang.as_deref(), lines, *more, note.as_deref()),
            Node::Quote(inner) => {
                self.out.push_str("<blockquote>\n");
                for n in inner {
                    self.node(n);
                }
                self.out.push_str("</blockquote>\n");
            }
            Node::List { start, items } => {
                match start {
                    Some(1) => self.out.push_str("<ol>\n"),
                    Some(s) => {
                        let _ = writeln!(self.out, "<ol start=\"{s}\">");
                    }
                    None => self.out.push_str("<ul>\n"),
                }
                for item in items {
                    self.out.push_str("<li>");
                    for n in item {
                        self.node(n);
                    }
                    self.out.push_str("</li>\n");
                }
                self.out.push_str(if start.is_some() {
                    "</ol>\n"
                } else {
                    "</ul>\n"
                });
            }
            Node::Table { aligns, head, rows } => {
                let align = |k: usize| match aligns.get(k) {
                    Some(super::document::Align::Right) => " class=\"right\"",
                    Some(super::document::Align::Center) => " class=\"center\"",
                    _ => "",
                };
                self.out.push_str("<table>\n<thead><tr>");
                for (k, c) in head.iter().enumerate() {
                    let s = self.spans(c);
                    let _ = write!(self.out, "<th{}>{s}</th>", align(k));
                }
                self.out.push_str("</tr></thead>\n<tbody>\n");
                for row in rows {
                    self.out.push_str("<tr>");
                    for (k, c) in row.iter().enumerate() {
                        let s = self.spans(c);
                        let _ = write!(self.out, "<td{}>{s}</td>", align(k));
                    }
                    self.out.push_str("</tr>\n");
                }
                self.out.push_str("</tbody></table>\n");
            }
            Node::Rule => self.out.push_str("<hr>\n"),
            Node::Image { mime, bytes, data } => {
                let label = escape(&image_label(mime, *bytes));
                match data {
                    // Only a raster type with well-formed base64 gets here
                    // (see message::image): nothing in it can end the attribute.
                    Some(d) => {
                        let _ = writeln!(
                            self.out,
                            "<figure class=\"image\"><img src=\"data:{};base64,{d}\" alt=\"{label}\"><figcaption class=\"c-image\">{label}</figcaption></figure>",
                            escape(mime)
                        );
                    }
                    None => {
                        let _ = writeln!(self.out, "<p class=\"c-image\">{label}</p>");
                    }
                }
            }
        }
    }

    fn code(&mut self, lang: Option<&str>, lines: &[CodeLine], more: usize, note: Option<&str>) {
        let diff = lines.iter().any(|l| l.kind != LineKind::Plain);
        let _ = write!(
            self.out,
            "<pre class=\"code{}\"",
            if diff { " diff" } else { "" }
        );
        if let Some(l) = lang {
            let _ = write!(self.out, " data-lang=\"{}\"", escape(l));
        }
        self.out.push_str("><code>");
        for l in lines {
            let kind = match l.kind {
                LineKind::Plain => "",
                LineKind::Add => " add",
                LineKind::Del => " del",
                LineKind::Hunk => " hunk",
            };
            let s = self.spans(&l.spans);
            let _ = writeln!(self.out, "<span class=\"line{kind}\">{s}</span>");
        }
        self.out.push_str("</code></pre>\n");
        if let Some(note) = note {
            let _ = writeln!(self.out, "<p class=\"more\">{}</p>", escape(note));
        }
        if more > 0 {
            let _ = writeln!(
                self.out,
                "<p class=\"more\">… {more} more line{}</p>",
                if more == 1 { "" } else { "s" }
            );
        }
    }

    fn spans(&mut self, line: &Line) -> String {
        for s in line {
            self.fg.extend(s.style.fg);
            self.bg.extend(s.style.bg);
        }
        spans(line)
    }
}

/// Spans as HTML: escaped text in classed `<span>`s, links as `<a>` only
/// when their target is safe to follow.
fn spans(line: &[Span]) -> String {
    let mut out = String::new();
    for s in line {
        let st = &s.style;
        let mut classes = Vec::new();
        if st.class != Class::Text {
            classes.push(format!("c-{}", st.class.css()));
        }
        for (on, name) in [
            (st.bold, "b"),
            (st.italic, "i"),
            (st.underline, "u"),
            (st.strike, "s"),
            (st.dim, "dim"),
            (st.inverse, "inv"),
        ] {
            if on {
                classes.push(name.to_string());
            }
        }
        if let Some(c) = st.fg {
            classes.push(format!("fg{c}"));
        }
        if let Some(c) = st.bg {
            classes.push(format!("bg{c}"));
        }
        let text = escape(s.text());
        let class = if classes.is_empty() {
            String::new()
        } else {
            format!(" class=\"{}\"", classes.join(" "))
        };
        match s.link.as_deref().and_then(safe_href) {
            Some(href) => {
                let _ = write!(
                    out,
                    "<a href=\"{}\"{class} rel=\"noopener noreferrer nofollow\">{text}</a>",
                    escape(href)
                );
            }
            None if class.is_empty() => out.push_str(&text),
            None => {
                let _ = write!(out, "<span{class}>{text}</span>");
            }
        }
    }
    out
}

/// A link target safe to follow: http, https or mailto, with nothing a
/// browser would strip or reinterpret (white space, control characters).
/// Anything else (`javascript:`, `data:`, `file:`, relative paths) is shown
/// as text only.
pub fn safe_href(url: &str) -> Option<&str> {
    if url.is_empty() || url.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return None;
    }
    let lower = url.to_ascii_lowercase();
    ["https://", "http://", "mailto:"]
        .iter()
        .any(|p| lower.starts_with(p))
        .then_some(url)
}

/// Text for HTML, in content and in attribute values alike.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn tokens(n: u64) -> String {
    match n {
        n if n < 1000 => n.to_string(),
        n if n < 1_000_000 => format!("{:.1}k", n as f64 / 1000.0),
        n => format!("{:.1}M", n as f64 / 1_000_000.0),
    }
}

fn finish(meta: &Meta, nav: Option<String>, w: Writer) -> String {
    let (mut out, tail) = frame(meta, nav, &w);
    out.push_str(&w.out);
    out.push_str(&tail);
    out
}

/// The page around what `w` wrote: its head (the style sheet with the
/// colours `w` used, the title, the session's facts, `nav`), and its tail.
fn frame(meta: &Meta, nav: Option<String>, w: &Writer) -> (String, String) {
    let mut css = String::from(CSS);
    for c in sorted(&w.fg) {
        let _ = writeln!(css, ".fg{c}{{color:{}}}", xterm(c));
    }
    for c in sorted(&w.bg) {
        let _ = writeln!(css, ".bg{c}{{background:{}}}", xterm(c));
    }
    let hash =
        base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(css.as_bytes()));
    let mut out = String::with_capacity(css.len() + 4096);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'sha256-{hash}'; img-src data:; base-uri 'none'; form-action 'none'\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{css}</style>\n</head>\n<body>\n",
        escape(&meta.title)
    );
    out.push_str("<header>\n");
    let _ = writeln!(out, "<h1>{}</h1>", escape(&meta.title));
    out.push_str("<dl class=\"meta\">\n");
    let mut item = |k: &str, v: &str| {
        if !v.is_empty() {
            let _ = writeln!(out, "<div><dt>{k}</dt><dd>{}</dd></div>", escape(v));
        }
    };
    item("Session", &meta.session_id);
    item("Directory", &meta.cwd);
    item("Created", &meta.created);
    item("Model", meta.model.as_deref().unwrap_or(""));
    item("Thinking", meta.thinking.as_deref().unwrap_or(""));
    item("Models used", &meta.models.join(", "));
    item("Messages", &meta.messages.to_string());
    let u = &meta.usage;
    let mut t = vec![
        format!("↑{}", tokens(u.input)),
        format!("↓{}", tokens(u.output)),
    ];
    if u.cache_read > 0 {
        t.push(format!("R{}", tokens(u.cache_read)));
    }
    if u.cache_write > 0 {
        t.push(format!("W{}", tokens(u.cache_write)));
    }
    let total = u.input + u.output + u.cache_read + u.cache_write;
    item(
        "Tokens",
        &format!("{} ({} in all)", t.join(" "), thousands(total)),
    );
    item("Cost", &format!("${:.3}", u.cost));
    out.push_str("</dl>\n</header>\n");
    if let Some(nav) = nav {
        out.push_str(&nav);
    }
    let mut tail = String::new();
    let _ = writeln!(
        tail,
        "<footer>Exported by piscope on {}. Folded parts open with a click; nothing on this page runs a script or loads anything.</footer>\n</body>\n</html>",
        escape(&jsdate::format_iso(jsdate::now_ms()))
    );
    (out, tail)
}

fn sorted(set: &HashSet<u8>) -> Vec<u8> {
    let mut v: Vec<u8> = set.iter().copied().collect();
    v.sort_unstable();
    v
}

/// xterm's colour `n` as CSS.
fn xterm(n: u8) -> String {
    const BASIC: [&str; 16] = [
        "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
        "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
    ];
    match n {
        0..=15 => BASIC[n as usize].to_string(),
        16..=231 => {
            let k = n - 16;
            let level = |v: u8| if v == 0 { 0 } else { 55 + v as u32 * 40 };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(k / 36),
                level(k / 6 % 6),
                level(k % 6)
            )
        }
        _ => {
            let v = 8 + (n as u32 - 232) * 10;
            format!("#{v:02x}{v:02x}{v:02x}")
        }
    }
}

const CSS: &str = r#"
:root{--bg:#fafafa;--fg:#1f2328;--dim:#6e7781;--panel:#ffffff;--border:#d0d7de;--code:#f6f8fa;
--user:#0969da;--assistant:#8250df;--tool:#9a6700;--error:#cf222e;--warn:#9a6700;--add:#1a7f37;--del:#cf222e;
--add-bg:#dafbe1;--del-bg:#ffebe9;--kw:#cf222e;--str:#0a3069;--com:#6e7781;--num:#0550ae;--fn:#8250df;--ty:#953800;}
@media (prefers-color-scheme: dark){:root{--bg:#0d1117;--fg:#e6edf3;--dim:#8b949e;--panel:#161b22;--border:#30363d;--code:#0d1117;
--user:#58a6ff;--assistant:#d2a8ff;--tool:#d29922;--error:#ff7b72;--warn:#d29922;--add:#3fb950;--del:#f85149;
--add-bg:#12261e;--del-bg:#25171c;--kw:#ff7b72;--str:#a5d6ff;--com:#8b949e;--num:#79c0ff;--fn:#d2a8ff;--ty:#ffa657;}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:980px;padding:16px;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
pre,code,.c-inline-code,.tree pre{font-family:ui-monospace,"Cascadia Code",Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12.5px}
h1{font-size:20px;margin:0 0 8px}
header{border-bottom:1px solid var(--border);margin-bottom:16px;padding-bottom:8px}
dl.meta{display:flex;flex-wrap:wrap;gap:4px 20px;margin:0}
dl.meta div{display:flex;gap:6px}dt{color:var(--dim)}dd{margin:0}
nav.branches{background:var(--panel);border:1px solid var(--border);border-radius:6px;padding:8px 16px;margin-bottom:16px}
nav.branches h2{font-size:15px;margin:4px 0}
.tree pre{overflow-x:auto;margin:8px 0;line-height:1.35}
a{color:var(--user)}
.branch{margin-bottom:28px}.branch-title{font-size:16px;border-bottom:1px solid var(--border);padding-bottom:4px}
.fork-from,nav.fork{color:var(--dim);font-size:13px;margin:6px 0}
nav.fork{border-left:3px solid var(--tool);padding-left:8px}
.block{background:var(--panel);border:1px solid var(--border);border-radius:6px;margin:10px 0;padding:6px 12px}
.block>.title{font-weight:600;cursor:default}
details.block>summary{font-weight:600;cursor:pointer}
.block .body{overflow-wrap:anywhere}
.lines>div{white-space:pre-wrap;min-height:1.2em}
.k-user{border-left:3px solid var(--user)}.k-assistant{border-left:3px solid var(--assistant)}
.k-tool-call,.k-tool-result,.k-bash{border-left:3px solid var(--tool)}
.k-thinking{color:var(--dim);font-style:italic}
.k-compaction{border-left:3px solid var(--warn)}.k-branch-summary{border-left:3px solid var(--add)}
.k-custom,.k-system{border-left:3px solid var(--dim)}
.hidden{opacity:.6;border-style:dashed}
details.replaced{margin:8px 0;border-top:1px dashed var(--border);padding-top:6px}
details.replaced>summary{cursor:pointer;color:var(--dim)}
pre.code{background:var(--code);border:1px solid var(--border);border-radius:4px;padding:6px 8px;overflow-x:auto;margin:6px 0}
pre.code .line{display:block;white-space:pre;min-height:1.2em}
pre.diff .add{background:var(--add-bg)}pre.diff .del{background:var(--del-bg)}
pre.diff .hunk{color:var(--dim)}
.more{color:var(--dim);font-size:12px;margin:0}
blockquote{margin:6px 0;padding-left:10px;border-left:3px solid var(--border);color:var(--dim)}
table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid var(--border);padding:2px 8px}
th.right,td.right{text-align:right}th.center,td.center{text-align:center}
figure.image{margin:6px 0}figure.image img{max-width:100%;max-height:480px;border:1px solid var(--border)}
footer{color:var(--dim);font-size:12px;border-top:1px solid var(--border);margin-top:24px;padding-top:8px}
.b{font-weight:700}.i{font-style:italic}.u{text-decoration:underline}.s{text-decoration:line-through}.dim{color:var(--dim)}.inv{filter:invert(1);background:currentColor}
.c-dim,.c-time,.c-link-target,.c-list-marker,.c-quote-marker,.c-table-border{color:var(--dim)}
.c-heading{font-weight:700}
.c-inline-code{background:var(--code);border:1px solid var(--border);border-radius:3px;padding:0 3px}
.c-link{color:var(--user)}
.c-code-keyword{color:var(--kw)}.c-code-string{color:var(--str)}.c-code-comment{color:var(--com);font-style:italic}
.c-code-number,.c-code-constant{color:var(--num)}.c-code-function{color:var(--fn)}.c-code-type,.c-code-tag{color:var(--ty)}
.c-code-attribute,.c-code-variable{color:var(--num)}.c-code-operator,.c-code-punctuation{color:var(--fg)}
.c-diff-add{color:var(--add)}.c-diff-del{color:var(--del)}.c-diff-hunk{color:var(--dim)}.c-diff-header{font-weight:700}
.c-tool-name{color:var(--tool);font-weight:700}.c-path{color:var(--user)}.c-prompt{color:var(--dim)}.c-command{font-family:ui-monospace,Menlo,Consolas,monospace}
.c-error{color:var(--error)}.c-warning{color:var(--warn)}
.c-role-user{color:var(--user)}.c-role-assistant{color:var(--assistant)}.c-role-tool{color:var(--tool)}
.c-role-system,.c-role-custom{color:var(--dim)}.c-role-summary{color:var(--add)}
.c-thinking{color:var(--dim);font-style:italic}.c-compaction{color:var(--warn);font-weight:600}
.c-image{color:var(--dim);font-style:italic}.c-label{color:var(--assistant)}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_safe_links_are_followed() {
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " javascript:alert(1)",
            "java\nscript:alert(1)",
            "java\tscript:x",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:x",
            "file:///etc/passwd",
            "//evil.example/x",
            "relative/path",
            "\u{1}https://x",
        ] {
            assert_eq!(safe_href(bad), None, "{bad:?}");
        }
        for good in ["https://e.org/a?b=1&c=2", "HTTP://X", "mailto:a@b.c"] {
            assert_eq!(safe_href(good), Some(good));
        }
    }

    #[test]
    fn spans_escape_everything() {
        let mut link = Span::new("<img src=x onerror=alert(1)>", Class::Link);
        link.link = Some("javascript:alert(1)".into());
        let mut ok = Span::new("site", Class::Link);
        ok.link = Some("https://e.org/\"onmouseover=\"x".into());
        let html = spans(&[link, ok, Span::new("'\"&</script>", Class::Text)]);
        assert_eq!(
            html,
            "<span class=\"c-link\">&lt;img src=x onerror=alert(1)&gt;</span>\
             <a href=\"https://e.org/&quot;onmouseover=&quot;x\" class=\"c-link\" rel=\"noopener noreferrer nofollow\">site</a>\
             &#39;&quot;&amp;&lt;/script&gt;"
        );
    }

    #[test]
    fn the_policy_hash_is_the_style_sheets() {
        let doc = Document {
            meta: Meta::default(),
            blocks: Vec::new(),
        };
        let html = page(&doc);
        let css = html
            .split("<style>")
            .nth(1)
            .and_then(|s| s.split("</style>").next())
            .expect("a style sheet");
        let hash =
            base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(css.as_bytes()));
        assert!(html.contains(&format!("style-src 'sha256-{hash}'")));
        assert!(!html.contains("<script"));
    }
}
