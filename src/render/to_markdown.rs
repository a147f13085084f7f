//! A rendered document written back as Markdown for sharing: each block
//! under a heading, code fenced with its language, diffs as ```diff blocks,
//! what a compaction replaced under its own headings. All text comes from
//! the document, so none of it holds a control character.

use super::document::{Block, Class, Document, Line, LineKind, Node, Span, line_text};
use super::message::image_label;
use super::to_html::safe_href;
use crate::jstext::date as jsdate;
use std::fmt::Write as _;

/// The document as Markdown.
pub fn markdown(doc: &Document) -> String {
    let mut out = head(&doc.meta);
    out.push_str(&blocks(&doc.blocks));
    out
}

/// The document's title and what it says of the session, as
/// [`markdown`] begins.
pub fn head(m: &super::document::Meta) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", escape(&m.title));
    let _ = writeln!(
        out,
        "_Session `{}` in `{}`, exported {}._\n",
        tick_free(&m.session_id),
        tick_free(&m.cwd),
        jsdate::format_iso(jsdate::now_ms())
    );
    let u = &m.usage;
    let mut facts = Vec::new();
    if let Some(model) = &m.model {
        facts.push(format!("model `{}`", tick_free(model)));
    }
    if let Some(t) = &m.thinking {
        facts.push(format!("thinking {}", escape(t)));
    }
    facts.push(format!("{} messages", m.messages));
    facts.push(format!(
        "tokens {} in, {} out, {} cache read, {} cache write",
        u.input, u.output, u.cache_read, u.cache_write
    ));
    facts.push(format!("cost ${:.3}", u.cost));
    let _ = writeln!(out, "_{}._\n", facts.join(" · "));
    out
}

/// Blocks as [`markdown`] writes them after its head.
pub fn blocks(list: &[Block]) -> String {
    let mut out = String::new();
    for b in list {
        block(&mut out, b, 3);
    }
    out
}

fn block(out: &mut String, b: &Block, level: usize) {
    let hashes = "#".repeat(level.min(6));
    let gone = if b.hidden { "(compacted away) " } else { "" };
    let _ = writeln!(out, "{hashes} {gone}{}\n", escape(&line_text(&b.title)));
    if !b.lead.is_empty() {
        nodes(out, &[Node::Para(b.lead.clone())], level);
    }
    nodes(out, &b.body, level);
    if let Some(after) = &b.after {
        let _ = writeln!(out, "{}\n", escape(&line_text(after)));
    }
    if !b.children.is_empty() {
        let _ = writeln!(
            out,
            "{} What the model saw before this compaction ({} messages, compacted away)\n",
            "#".repeat((level + 1).min(6)),
            b.children.len()
        );
        for c in &b.children {
            block(out, c, level + 2);
        }
    }
}

fn nodes(out: &mut String, list: &[Node], level: usize) {
    for n in list {
        node(out, n, level);
        out.push('\n');
    }
}

fn node(out: &mut String, n: &Node, level: usize) {
    match n {
        Node::Para(lines) => {
            // Each line its own: a backslash at the end breaks the line.
            let texts: Vec<String> = lines.iter().map(|l| line_start(inline(l))).collect();
            let _ = writeln!(out, "{}", texts.join("\\\n"));
        }
        Node::Text { text, class } => {
            for (k, l) in text.split('\n').enumerate() {
                if k > 0 {
                    out.push_str("\\\n");
                }
                out.push_str(&line_start(inline(&vec![Span::clean(
                    l.to_string(),
                    *class,
                )])));
            }
            out.push('\n');
        }
        Node::Heading(h, l) => {
            let _ = writeln!(
                out,
                "{} {}",
                "#".repeat((*h as usize + level).min(6)),
                inline(l)
            );
        }
        Node::Code {
            lang,
            lines,
            more,
            note,
        } => {
            let texts: Vec<String> = lines.iter().map(|l| line_text(&l.spans)).collect();
            let longest = texts
                .iter()
                .flat_map(|t| t.split(|c| c != '`'))
                .map(str::len)
                .max()
                .unwrap_or(0);
            let fence = "`".repeat(longest.max(2) + 1);
            let diff = lines.iter().any(|l| l.kind != LineKind::Plain);
            let lang = if diff {
                "diff".to_string()
            } else {
                lang.as_deref().map(tick_free).unwrap_or_default()
            };
            let _ = writeln!(out, "{fence}{lang}");
            for t in texts {
                let _ = writeln!(out, "{t}");
            }
            let _ = writeln!(out, "{fence}");
            if let Some(note) = note {
                let _ = writeln!(out, "_{note}_");
            }
            if *more > 0 {
                let _ = writeln!(out, "_… {more} more lines_");
            }
        }
        Node::Quote(inner) => {
            let mut text = String::new();
            nodes(&mut text, inner, level);
            for l in text.trim_end().lines() {
                let _ = writeln!(out, "> {l}");
            }
        }
        Node::List { start, items } => {
            for (k, item) in items.iter().enumerate() {
                let marker = match start {
                    Some(s) => format!("{}. ", s + k as u64),
                    None => "- ".to_string(),
                };
                let pad = " ".repeat(marker.len());
                let mut text = String::new();
                for n in item {
                    node(&mut text, n, level);
                }
                for (j, l) in text.trim_end().lines().enumerate() {
                    let p = if j == 0 {
                        marker.as_str()
                    } else {
                        pad.as_str()
                    };
                    let _ = writeln!(out, "{p}{l}");
                }
            }
        }
        Node::Table { head, rows, .. } => {
            let cell = |l: &Line| inline(l).replace('|', "\\|");
            let _ = writeln!(
                out,
                "| {} |",
                head.iter().map(cell).collect::<Vec<_>>().join(" | ")
            );
            let _ = writeln!(out, "|{}", " --- |".repeat(head.len().max(1)));
            for r in rows {
                let _ = writeln!(
                    out,
                    "| {} |",
                    r.iter().map(cell).collect::<Vec<_>>().join(" | ")
                );
            }
        }
        Node::Rule => out.push_str("---\n"),
        Node::Image { mime, bytes, .. } => {
            let _ = writeln!(out, "_{}_", escape(&image_label(mime, *bytes)));
        }
    }
}

/// Spans as inline Markdown: emphasis kept, code in backticks, a link whose
/// target is safe as a link (its shown target then left out).
fn inline(line: &Line) -> String {
    let mut out = String::new();
    let mut linked = false;
    for s in line {
        let text = s.text();
        if s.style.class == Class::LinkTarget && linked {
            continue;
        }
        linked = false;
        let mut piece = match s.style.class {
            Class::InlineCode => {
                let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
                let ticks = "`".repeat(longest + 1);
                let pad = if text.starts_with('`') || text.ends_with('`') {
                    " "
                } else {
                    ""
                };
                format!("{ticks}{pad}{text}{pad}{ticks}")
            }
            _ => escape(text),
        };
        if text.trim().is_empty() {
            out.push_str(&piece);
            continue;
        }
        if let Some(href) = s.link.as_deref().and_then(safe_href) {
            piece = format!("[{piece}](<{}>)", href.replace(['<', '>'], ""));
            linked = true;
        }
        if s.style.strike {
            piece = format!("~~{piece}~~");
        }
        if s.style.italic {
            piece = format!("_{piece}_");
        }
        if s.style.bold {
            piece = format!("**{piece}**");
        }
        out.push_str(&piece);
    }
    out
}

/// A line that would start a heading, a list or a quote, made to read as
/// text.
fn line_start(line: String) -> String {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let numbered = digits > 0 && matches!(line[digits..].chars().next(), Some('.' | ')'));
    if numbered || line.starts_with(['#', '-', '+', '=']) {
        let at = if numbered { digits } else { 0 };
        format!("{}\\{}", &line[..at], &line[at..])
    } else {
        line
    }
}

/// Text with Markdown's special characters escaped, so it reads as
/// written (and raw HTML in it stays text). A `[` alone is left: with its
/// `]` escaped no link can form.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | ']' | '<' | '>' | '|' | '~') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Text for inside backticks: backticks become `'`.
fn tick_free(s: &str) -> String {
    s.replace('`', "'")
}
