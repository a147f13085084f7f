//! Code highlighting put off until a block is laid out: a drawer that lays
//! out only the blocks it shows has the document made with plain code
//! lines, and highlights the code of each block as it lays it out (most of
//! a long context is never looked at, and highlighting is the costly part
//! of rendering).

use super::document::{Class, CodeLine, LineKind, Node, Span};
use super::highlight::{self, Lang};
use std::cell::Cell;

thread_local! {
    /// Set while a document is made for a drawer that lays out only the
    /// blocks it shows: code is then highlighted when its block is laid
    /// out, not when the document is made (most of a long context is
    /// never looked at, and highlighting is the costly part).
    static DEFER_HIGHLIGHTING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `make` (which makes document nodes) with code highlighting left
/// to [`super::layout::layout_own`].
pub fn highlighting_deferred<T>(make: impl FnOnce() -> T) -> T {
    let was = DEFER_HIGHLIGHTING.with(|d| d.replace(true));
    let out = make();
    DEFER_HIGHLIGHTING.with(|d| d.set(was));
    out
}

/// Runs `make` with code left plain, for a Markdown export: it writes
/// code as text, so highlighting it would be work thrown away (most of an
/// export's time), and a note of where highlighting gave up would tell its
/// reader nothing.
pub fn code_left_plain<T>(make: impl FnOnce() -> T) -> T {
    highlighting_deferred(make)
}

/// Clean lines as code in `lang`: highlighted now, or, while highlighting
/// is deferred, as plain lines that [`super::layout::layout_own`] highlights.
/// The note says where highlighting gave up, if it did.
pub(crate) fn code_lines(lines: &[String], lang: Lang<'_>) -> (Vec<CodeLine>, Option<String>) {
    if DEFER_HIGHLIGHTING.with(Cell::get) && highlight::language(lang).is_some() {
        let plain = lines
            .iter()
            .map(|l| CodeLine {
                kind: LineKind::Plain,
                spans: vec![Span::clean(l.clone(), Class::CodeText)],
            })
            .collect();
        return (plain, None);
    }
    highlight::highlight_within(lines, lang)
}

/// Whether a code node's lines are still plain (highlighting deferred).
fn unhighlighted(lines: &[CodeLine]) -> bool {
    lines.iter().all(|l| {
        l.kind == LineKind::Plain
            && l.spans.len() <= 1
            && l.spans.iter().all(|s| s.style.class == Class::CodeText)
    })
}

/// Nodes with the code left plain highlighted.
pub(crate) fn with_code_highlighted(list: &[Node]) -> std::borrow::Cow<'_, [Node]> {
    if list.iter().any(|n| highlighted(n).is_some()) {
        list.iter()
            .map(|n| highlighted(n).unwrap_or_else(|| n.clone()))
            .collect::<Vec<_>>()
            .into()
    } else {
        list.into()
    }
}

/// The first nodes of a body, code cut to at most `lines` lines: enough
/// for that many rows.
pub(crate) fn first_lines(list: &[Node], lines: usize) -> Vec<Node> {
    list.iter()
        .take(lines.max(1))
        .map(|n| match n {
            Node::Code {
                lang,
                lines: l,
                more,
                note,
            } if l.len() > lines => Node::Code {
                lang: lang.clone(),
                lines: l[..lines].to_vec(),
                more: *more + l.len() - lines,
                note: note.clone(),
            },
            Node::Text { text, class } => Node::Text {
                text: text.split('\n').take(lines).collect::<Vec<_>>().join("\n"),
                class: *class,
            },
            other => other.clone(),
        })
        .collect()
}

/// Where the code starts after a line number (`   12\t`, `12  `), if the
/// line starts with one.
fn number_gutter(line: &str) -> Option<usize> {
    let digits_at = line.len() - line.trim_start_matches(' ').len();
    let digits = line[digits_at..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if digits == 0 {
        return None;
    }
    let after = digits_at + digits;
    let rest = &line[after..];
    if rest.is_empty() {
        Some(after)
    } else if rest.starts_with('\t') {
        Some(after + 1)
    } else if rest.starts_with("  ") {
        Some(after + 2)
    } else {
        None
    }
}

/// Nodes with their code highlighted, when any was left plain. Each node
/// is walked once: walking twice (once to ask, once to make) doubled the
/// work at every level of nesting.
fn highlighted_all(list: &[Node]) -> Option<Vec<Node>> {
    let done: Vec<Option<Node>> = list.iter().map(highlighted).collect();
    done.iter().any(Option::is_some).then(|| {
        done.into_iter()
            .zip(list)
            .map(|(d, n)| d.unwrap_or_else(|| n.clone()))
            .collect()
    })
}

/// A node with its code highlighted, when it was left plain.
fn highlighted(n: &Node) -> Option<Node> {
    match n {
        Node::Code {
            lang: Some(lang),
            lines,
            more,
            note: None,
        } if lang != "diff" && unhighlighted(lines) => {
            let text: Vec<String> = lines
                .iter()
                .map(|l| l.spans.iter().map(Span::text).collect())
                .collect();
            // A listing with line numbers (`   12\t…`, as `cat -n` writes
            // it): the numbers are not code, and the grammars read them
            // badly (one of them never finishes on such a line).
            let gutter: Option<Vec<usize>> = text.iter().map(|l| number_gutter(l)).collect();
            let (lines, note) = match gutter {
                Some(cut) if !text.is_empty() => {
                    let code: Vec<String> = text
                        .iter()
                        .zip(&cut)
                        .map(|(l, &c)| l[c..].to_string())
                        .collect();
                    let (lines, note) = highlight::highlight_within(&code, Lang::Fence(lang));
                    let lines = lines
                        .into_iter()
                        .zip(text.iter().zip(&cut))
                        .map(|(mut line, (l, &c))| {
                            line.spans
                                .insert(0, Span::clean(l[..c].to_string(), Class::Dim));
                            line
                        })
                        .collect();
                    (lines, note)
                }
                _ => highlight::highlight_within(&text, Lang::Fence(lang)),
            };
            Some(Node::Code {
                lang: Some(lang.clone()),
                lines,
                more: *more,
                note,
            })
        }
        Node::Quote(inner) => highlighted_all(inner).map(Node::Quote),
        Node::List { start, items } => {
            let done: Vec<Option<Vec<Node>>> = items.iter().map(|i| highlighted_all(i)).collect();
            done.iter().any(Option::is_some).then(|| Node::List {
                start: *start,
                items: done
                    .into_iter()
                    .zip(items)
                    .map(|(d, item)| d.unwrap_or_else(|| item.clone()))
                    .collect(),
            })
        }
        _ => None,
    }
}
