//! Secrets out of an export: every text a Markdown or HTML export writes
//! (each block's title, lines, code, tool output, file contents, thinking,
//! link targets, tables, the session's name and folder, and the entry tree
//! of the page of every branch) is scanned as the text it is, before any
//! escaping, one piece at a time (a paragraph, a code block, a table cell:
//! a key over several lines is found whole), and each secret found is
//! replaced by its marker unless the caller keeps it.
//!
//! The walk names every field of every part of the document (no `..`), so
//! a new field cannot be written unscanned without the compiler noticing.
//! Two things are written unscanned, neither text from a message: entry ids
//! (pi's own, in anchors and "continues from entry …") and the base64 of an
//! image.
//!
//! A finding's place is its entry (id and role, the block's kind) and its
//! line in that entry's block as exported, the title being line 1.

use super::document::{Block, CodeLine, Line, Meta, Node};
use super::from_session::Branch;
use super::to_html::NavRow;
use crate::secrets::{self, Hit, Scanner};

/// A secret an export holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Its rule's kind (`aws-access-key`).
    pub kind: String,
    /// The id of the entry it is in (none in the session's own header).
    pub entry: Option<String>,
    /// What holds it: a block's kind (`user`, `bash`, `tool-result`,
    /// `thinking`…), `session` for the header, `entry-tree` for the tree.
    pub role: String,
    /// Its line in the entry's block as exported (the title is line 1).
    pub line: usize,
    /// A few of its characters (see [`secrets::mask`]).
    pub preview: String,
    /// Replaced by its marker in what is written.
    pub redacted: bool,
}

impl Finding {
    /// The finding as one line: kind, place, preview.
    pub fn describe(&self) -> String {
        let place = match &self.entry {
            Some(id) => format!("entry {id} ({}), line {}", self.role, self.line),
            None => format!("{}, line {}", self.role, self.line),
        };
        format!("{}  {place}  {}", self.kind, self.preview)
    }
}

/// The secrets in a text written as it is (an entry's text for the
/// clipboard): the hits, and each as a finding of `entry` and `role`, its
/// line that of the text.
pub fn text_findings(
    scanner: &Scanner,
    text: &str,
    entry: Option<&str>,
    role: &str,
) -> (Vec<Hit>, Vec<Finding>) {
    let hits = scanner.find(text);
    let findings = hits
        .iter()
        .map(|h| Finding {
            kind: scanner.kind(h).to_string(),
            entry: entry.map(crate::safe_text::clean_line),
            role: crate::safe_text::clean_line(role),
            line: 1 + text[..h.start].matches('\n').count(),
            preview: secrets::mask(&text[h.start..h.end]),
            redacted: true,
        })
        .collect();
    (hits, findings)
}

/// Walks a document, scanning each piece, redacting the findings
/// `redact` picks (by their number in the walk's order, from 0).
pub(super) struct Walk<'a> {
    scanner: &'a Scanner,
    id_of: &'a dyn Fn(u32) -> Option<String>,
    redact: &'a dyn Fn(usize) -> bool,
    pub(super) findings: Vec<Finding>,
    entry: Option<String>,
    role: &'static str,
    line: usize,
}

impl<'a> Walk<'a> {
    pub(super) fn new(
        scanner: &'a Scanner,
        id_of: &'a dyn Fn(u32) -> Option<String>,
        redact: &'a dyn Fn(usize) -> bool,
    ) -> Walk<'a> {
        Walk {
            scanner,
            id_of,
            redact,
            findings: Vec::new(),
            entry: None,
            role: "session",
            line: 1,
        }
    }

    fn at(&mut self, entry: Option<u32>, role: &'static str) {
        self.entry = entry.and_then(|e| (self.id_of)(e));
        self.role = role;
        self.line = 1;
    }

    /// Scans `text` (its first line at the walk's line), records the
    /// findings, and answers which to replace.
    fn scan(&mut self, text: &str) -> Vec<(Hit, bool)> {
        let hits = self.scanner.find(text);
        let mut out = Vec::with_capacity(hits.len());
        for h in hits {
            let n = self.findings.len();
            let redacted = (self.redact)(n);
            self.findings.push(Finding {
                kind: self.scanner.kind(&h).to_string(),
                entry: self.entry.clone(),
                role: self.role.to_string(),
                line: self.line + text[..h.start].matches('\n').count(),
                preview: secrets::mask(&text[h.start..h.end]),
                redacted,
            });
            out.push((h, redacted));
        }
        out
    }

    /// One string of one or more lines.
    fn string(&mut self, s: &mut String) {
        let hits = self.scan(s);
        if hits.iter().any(|(_, r)| *r) {
            let hits: Vec<Hit> = hits.iter().filter(|(_, r)| *r).map(|(h, _)| *h).collect();
            *s = secrets::redact(self.scanner, s, &hits, |_| true);
        }
        self.line += s.matches('\n').count() + 1;
    }

    /// A piece of several lines of spans, scanned as one text (the lines
    /// joined by line breaks); then each span's link target on its own.
    fn lines(&mut self, lines: &mut [&mut Line]) {
        let mut joined = String::new();
        for (k, l) in lines.iter().enumerate() {
            if k > 0 {
                joined.push('\n');
            }
            for s in l.iter() {
                joined.push_str(s.text());
            }
        }
        let hits = self.scan(&joined);
        let cuts: Vec<(usize, usize, String)> = hits
            .iter()
            .filter(|(_, r)| *r)
            .map(|(h, _)| (h.start, h.end, secrets::marker(self.scanner.kind(h))))
            .collect();
        if !cuts.is_empty() {
            cut_spans(lines, &cuts);
        }
        let first = self.line;
        for (k, l) in lines.iter_mut().enumerate() {
            for s in l.iter_mut() {
                if let Some(link) = s.link.as_mut() {
                    self.line = first + k;
                    let mut text = link.to_string();
                    self.string(&mut text);
                    *link = text.into();
                }
            }
        }
        self.line = first + lines.len().max(1);
    }

    fn line(&mut self, line: &mut Line) {
        self.lines(&mut [line]);
    }

    pub(super) fn meta(&mut self, meta: &mut Meta) {
        let Meta {
            title,
            session_id,
            cwd,
            created,
            model,
            thinking,
            models,
            messages: _,
            usage: _,
        } = meta;
        self.at(None, "session");
        for s in [title, session_id, cwd, created] {
            self.string(s);
        }
        for s in model.iter_mut().chain(thinking.iter_mut()).chain(models) {
            self.string(s);
        }
    }

    pub(super) fn block(&mut self, b: &mut Block) {
        let Block {
            kind,
            entry,
            also: _,
            title,
            fold: _,
            body,
            children,
            hidden: _,
            tail: _,
            peek: _,
            after,
            lead,
        } = b;
        self.at(*entry, kind.css());
        // The lead goes on from the title (a command of several lines).
        let mut head: Vec<&mut Line> = std::iter::once(title).chain(lead.iter_mut()).collect();
        self.lines(&mut head);
        for n in body {
            self.node(n);
        }
        if let Some(a) = after {
            self.line(a);
        }
        for c in children {
            self.block(c);
        }
    }

    fn node(&mut self, n: &mut Node) {
        match n {
            Node::Para(lines) => self.lines(&mut lines.iter_mut().collect::<Vec<_>>()),
            Node::Text { text, class: _ } => self.string(text),
            Node::Heading(_, l) => self.line(l),
            Node::Code {
                lang,
                lines,
                more: _,
                note,
            } => {
                if let Some(l) = lang {
                    let at = self.line;
                    self.string(l);
                    self.line = at;
                }
                let mut spans: Vec<&mut Line> = lines
                    .iter_mut()
                    .map(|CodeLine { kind: _, spans }| spans)
                    .collect();
                self.lines(&mut spans);
                if let Some(n) = note {
                    self.string(n);
                }
            }
            Node::Quote(inner) => {
                for n in inner {
                    self.node(n);
                }
            }
            Node::List { start: _, items } => {
                for n in items.iter_mut().flatten() {
                    self.node(n);
                }
            }
            Node::Table {
                aligns: _,
                head,
                rows,
            } => {
                for row in std::iter::once(head).chain(rows.iter_mut()) {
                    let at = self.line;
                    for cell in row.iter_mut() {
                        self.line = at;
                        self.line(cell);
                    }
                }
            }
            Node::Rule => {}
            // The picture's bytes are no text; its type is.
            Node::Image {
                mime,
                bytes: _,
                data: _,
            } => self.string(mime),
        }
    }

    pub(super) fn branch(&mut self, b: &mut Branch) {
        let Branch {
            leaf,
            fork: _,
            active: _,
            title,
            blocks,
            entries: _,
        } = b;
        self.at(Some(*leaf), "branch-title");
        self.line(title);
        for bl in blocks {
            self.block(bl);
        }
    }

    pub(super) fn nav(&mut self, rows: &mut [NavRow]) {
        for r in rows {
            let NavRow {
                node,
                gutter: _,
                mark: _,
                label,
                text,
            } = r;
            self.at(Some(*node), "entry-tree");
            if let Some(l) = label {
                self.string(l);
                self.line = 1;
            }
            self.string(text);
        }
    }
}

/// Cuts the ranges `cuts` (of the lines joined by line breaks) out of the
/// spans, each range's marker where it starts.
fn cut_spans(lines: &mut [&mut Line], cuts: &[(usize, usize, String)]) {
    let mut pos = 0;
    for (k, line) in lines.iter_mut().enumerate() {
        if k > 0 {
            pos += 1;
        }
        for span in line.iter_mut() {
            let (s0, s1) = (pos, pos + span.text().len());
            pos = s1;
            let touching: Vec<&(usize, usize, String)> =
                cuts.iter().filter(|(a, b, _)| *a < s1 && *b > s0).collect();
            if touching.is_empty() {
                continue;
            }
            let text = span.text();
            let mut out = String::with_capacity(text.len());
            let mut at = s0;
            for (a, b, marker) in touching {
                let from = (*a).max(s0);
                out.push_str(&text[at - s0..from - s0]);
                if *a >= s0 {
                    out.push_str(marker);
                }
                at = (*b).min(s1);
            }
            out.push_str(&text[at - s0..]);
            span.set_text(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::document::{Class, Span};

    #[test]
    fn a_secret_split_across_spans_and_lines_is_cut_out_whole() {
        let key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
        let mut first = vec![
            Span::new("token ", Class::Text),
            Span::new(&key[..10], Class::CodeString),
            Span::new(&key[10..], Class::CodeString),
            Span::new(" end", Class::Text),
        ];
        let mut second = vec![Span::new("next", Class::Text)];
        let id_of = |_: u32| None;
        let all = |_: usize| true;
        let mut w = Walk::new(Scanner::builtin(), &id_of, &all);
        w.lines(&mut [&mut first, &mut second]);
        let text: Vec<&str> = first.iter().map(Span::text).collect();
        assert_eq!(text, ["token ", "[redacted: github-token]", "", " end"]);
        assert_eq!(w.findings.len(), 1);
        assert_eq!(w.findings[0].preview, "ghp…789");
    }
}
