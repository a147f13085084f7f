//! A session's context rendered as a [`Document`]: the messages pi would
//! send at a leaf, each compaction with what it replaced (the messages the
//! model saw before it, folded and marked compacted away), the session's
//! name, model, tokens and cost; and for the whole tree, one section per
//! branch, each from where it leaves the branches before it.

use super::document::{Block, BlockKind, Class, Document, Fold, Line, Meta, Span, Usage};
use super::message::{self, Message};
use crate::safe_text;
use crate::session::line::entry::Kind;
use crate::session::{Context, LeafSelector, Session, SessionError, line::jskey};
use serde_json::Value;
use std::collections::HashSet;
use std::fs::File;

/// The context at `leaf`, rendered.
pub fn context_document(session: &Session, leaf: &LeafSelector) -> Result<Document, SessionError> {
    render(session, session.context(leaf))
}

/// The context at the entry `leaf` (the current leaf when `None`), rendered.
pub fn document_at(session: &Session, leaf: Option<u32>) -> Result<Document, SessionError> {
    render(session, context_at(session, leaf))
}

fn render(session: &Session, ctx: Context) -> Result<Document, SessionError> {
    let mut file = session.open_file()?;
    let blocks = context_blocks(session, &ctx, &mut file, &HashSet::new(), &Window::ALL)?
        .map_or_else(Vec::new, |(b, _)| b);
    let meta = context_meta(session, &ctx, &mut file)?;
    Ok(Document { meta, blocks })
}

/// The context at `leaf` (the current leaf when `None`).
pub fn context_at(session: &Session, leaf: Option<u32>) -> Context {
    match leaf {
        Some(l) => session.context_for_path(session.tree.path_to(l)),
        None => session.context(&LeafSelector::Last),
    }
}

/// What a document of the context `ctx` says of it: the session's name,
/// the model, tokens and cost, the messages pi would send.
pub fn context_meta(
    session: &Session,
    ctx: &Context,
    file: &mut File,
) -> Result<Meta, SessionError> {
    let mut meta = meta(session, &ctx.path, file)?;
    meta.model = model_name(ctx);
    meta.thinking = ctx
        .thinking_level
        .as_deref()
        .map(|t| safe_text::clean_line(&jskey::display(t)));
    // Counted as the preview counts: the messages pi would send.
    meta.messages = session.context_message_count(ctx, file)?;
    Ok(meta)
}

/// The context's blocks a stretch at a time, each handed to `each` as it
/// is rendered: what [`render`] gives at once, in the memory of one
/// stretch. A stretch ends before a user's message (a tool call and its
/// results stay in one) once it holds `STRETCH` items or items of
/// `STRETCH_BYTES` of lines: rendered blocks can take a hundred times the
/// bytes of their lines (a message of short quoted list items does).
pub fn context_stretches(
    session: &Session,
    ctx: &Context,
    file: &mut File,
    each: &mut dyn FnMut(Vec<Block>) -> std::io::Result<()>,
) -> Result<std::io::Result<()>, SessionError> {
    const STRETCH: usize = 2048;
    const STRETCH_BYTES: u64 = 512 << 10;
    let starts_turn = |k: usize| {
        let e = session.entry(ctx.items.at_entry(k));
        e.kind() == Kind::Message
            && session.role_of(ctx.items.at_entry(k))
                == Some(&crate::session::line::entry::Role::User)
    };
    let mut from = 0;
    while from < ctx.items.len() {
        let (mut to, mut bytes) = (from, 0u64);
        while to < ctx.items.len() && to - from < STRETCH && bytes < STRETCH_BYTES {
            bytes += session.entry(ctx.items.at_entry(to)).span().len;
            to += 1;
        }
        while to < ctx.items.len() && !starts_turn(to) {
            to += 1;
        }
        let window = Window {
            from,
            to,
            ..Window::ALL
        };
        let blocks = context_blocks(session, ctx, file, &HashSet::new(), &window)?
            .map_or_else(Vec::new, |(b, _)| b);
        if let Err(e) = each(blocks) {
            return Ok(Err(e));
        }
        from = to;
    }
    Ok(Ok(()))
}

fn model_name(ctx: &Context) -> Option<String> {
    ctx.model.as_ref().map(|m| {
        let part = |p: Option<&str>| p.map_or("?".into(), |p| jskey::display(p).to_string());
        safe_text::clean_line(&format!(
            "{}/{}",
            part(m.provider.as_deref()),
            part(m.model_id.as_deref())
        ))
    })
}

fn count_messages(blocks: &[Block]) -> usize {
    let mut seen = HashSet::new();
    blocks
        .iter()
        .filter(|b| b.entry.is_some_and(|e| seen.insert(e)))
        .count()
}

/// Which part of a context to render, for a drawer that shows a window of
/// a long one.
pub struct Window<'a> {
    /// The first context item rendered (those before it are left out).
    pub from: usize,
    /// The item after the last one rendered (`usize::MAX`: to the end).
    pub to: usize,
    /// At most this many of the entries a compaction replaced are rendered
    /// inside it (the last ones).
    pub replaced: usize,
    /// Asked between items: true stops the work (its result is not wanted).
    pub stop: &'a dyn Fn() -> bool,
}

impl Window<'static> {
    /// The whole context.
    pub const ALL: Window<'static> = Window {
        from: 0,
        to: usize::MAX,
        replaced: usize::MAX,
        stop: &|| false,
    };
}

/// The blocks of the context's items from `window.from` on (a compaction
/// among them holding what it replaced), with the number of messages they
/// hold; `None` when `window.stop` said to stop.
pub fn context_window(
    session: &Session,
    ctx: &Context,
    window: &Window<'_>,
) -> Result<Option<(Vec<Block>, usize)>, SessionError> {
    let mut file = session.open_file()?;
    context_blocks(session, ctx, &mut file, &HashSet::new(), window)
}

/// The messages of the context's items in `span`, except items of
/// entries in `skip`; `None` when `stop` said to stop.
fn messages(
    session: &Session,
    ctx: &Context,
    file: &mut File,
    skip: &HashSet<u32>,
    span: std::ops::Range<usize>,
    stop: &dyn Fn() -> bool,
) -> Result<Option<Vec<Message>>, SessionError> {
    let mut out = Vec::new();
    let items = ctx.items.iter().enumerate();
    for (k, item) in items.skip(span.start).take(span.len()) {
        if k % 64 == 0 && stop() {
            return Ok(None);
        }
        if skip.contains(&item.entry()) {
            continue;
        }
        for m in session.context_messages(item, file)? {
            // pi's own JSON, built by the session layer: it parses.
            let value = serde_json::from_str(&m).unwrap_or(Value::Null);
            out.push(Message {
                entry: Some(item.entry()),
                value,
            });
        }
    }
    Ok(Some(out))
}

/// The context's blocks from `window.from` on (items of entries in `skip`
/// left out), the compaction's block holding what it replaced, and the
/// number of messages shown; `None` when stopped.
fn context_blocks(
    session: &Session,
    ctx: &Context,
    file: &mut File,
    skip: &HashSet<u32>,
    window: &Window<'_>,
) -> Result<Option<(Vec<Block>, usize)>, SessionError> {
    let span = window.from..window.to;
    let Some(list) = messages(session, ctx, file, skip, span, window.stop)? else {
        return Ok(None);
    };
    let mut blocks = message::blocks(&list);
    label(session, &mut blocks);
    let shown = list.len();
    let Some(comp) = ctx.compaction.filter(|c| !skip.contains(c)) else {
        return Ok(Some((blocks, shown)));
    };
    let Some(pos) = ctx.path.iter().position(|&e| e == comp) else {
        return Ok(Some((blocks, shown)));
    };
    if !blocks
        .iter()
        .any(|b| b.kind == BlockKind::Compaction && b.entry == Some(comp))
    {
        return Ok(Some((blocks, shown)));
    }
    // What the model saw right before the compaction, less what it kept.
    let kept: HashSet<u32> = ctx.items.iter().map(|i| i.entry()).collect();
    let before = session.context_for_path(ctx.path[..pos].to_vec());
    let mut gone = before.clone();
    gone.items.retain(|i| !kept.contains(&i.entry()));
    // Counted as the tree counts it, so both say the same number.
    let replaced = session.replaced_by(comp);
    let left_out = gone.items.len().saturating_sub(window.replaced);
    gone.items.drop_first(left_out);
    let all = 0..usize::MAX;
    let Some(hidden_list) = messages(session, &gone, file, &HashSet::new(), all, window.stop)?
    else {
        return Ok(None);
    };
    let mut hidden = message::blocks(&hidden_list);
    label(session, &mut hidden);
    for b in &mut hidden {
        mark_hidden(b);
    }
    let carried_over = |m: &Message| {
        m.entry == Some(comp)
            && !matches!(
                m.value.get("role").and_then(Value::as_str),
                Some("compactionSummary" | "system")
            )
    };
    let carried = list.iter().filter(|m| carried_over(m)).count();
    let kept_before = before.items.len() - gone.items.len() - left_out;
    for b in blocks.iter_mut().filter(|b| {
        b.entry == Some(comp) && !matches!(b.kind, BlockKind::Compaction | BlockKind::System)
    }) {
        // The compaction's retained tail: messages from before it, kept.
        b.title.push(Span::new(
            "  · carried over by the compaction",
            Class::Compaction,
        ));
    }
    if let Some(b) = blocks
        .iter_mut()
        .find(|b| b.kind == BlockKind::Compaction && b.entry == Some(comp))
    {
        let messages = if left_out > 0 {
            format!("the last {} shown", gone.items.len())
        } else {
            format!(
                "{} message{}",
                hidden_list.len(),
                if hidden_list.len() == 1 { "" } else { "s" }
            )
        };
        b.title.push(Span::new(
            &format!(
                " · replaced {replaced} entr{} ({messages})",
                if replaced == 1 { "y" } else { "ies" },
            ),
            Class::Dim,
        ));
        if kept_before > 0 {
            b.title
                .push(Span::new(&format!(" · kept {kept_before}"), Class::Dim));
        }
        if carried > 0 {
            b.title
                .push(Span::new(&format!(" · {carried} carried over"), Class::Dim));
        }
        b.children = hidden;
    }
    Ok(Some((blocks, shown)))
}

/// The label of each block's entry, after its first block's title.
fn label(session: &Session, blocks: &mut [Block]) {
    let mut seen = HashSet::new();
    let firsts: Vec<usize> = (0..blocks.len())
        .filter(|&k| blocks[k].entry.is_some_and(|e| seen.insert(e)))
        .collect();
    let entries: Vec<u32> = firsts.iter().filter_map(|&k| blocks[k].entry).collect();
    for (k, l) in firsts.into_iter().zip(session.labels_of(&entries)) {
        if let Some(l) = l {
            blocks[k]
                .title
                .push(Span::new(&format!("  [{}]", l.label), Class::Label));
        }
    }
}

fn mark_hidden(b: &mut Block) {
    b.hidden = true;
    for c in &mut b.children {
        mark_hidden(c);
    }
}

/// The session's name and header, and the models, tokens and cost of the
/// assistant messages on `entries`.
fn meta(session: &Session, entries: &[u32], file: &mut File) -> Result<Meta, SessionError> {
    let h = &session.header;
    let mut meta = Meta {
        title: safe_text::clean_line(
            &session
                .name()
                .unwrap_or_else(|| format!("Session {}", h.id)),
        ),
        session_id: safe_text::clean_line(&h.id),
        cwd: safe_text::clean_line(h.cwd.as_deref().unwrap_or("")),
        created: safe_text::clean_line(h.timestamp.as_deref().unwrap_or("")),
        ..Meta::default()
    };
    for &i in entries {
        if session.entry(i).kind() != Kind::Message {
            continue;
        }
        let line = session.line_text_in(file, i)?;
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let m = &v["message"];
        if m["role"] != "assistant" {
            continue;
        }
        if let Some(model) = m["model"].as_str() {
            let name = match m["provider"].as_str() {
                Some(p) => format!("{p}/{model}"),
                None => model.to_string(),
            };
            let name = safe_text::clean_line(&name);
            if !meta.models.contains(&name) {
                meta.models.push(name);
            }
        }
        add_usage(&mut meta.usage, &m["usage"]);
    }
    Ok(meta)
}

fn add_usage(total: &mut Usage, u: &Value) {
    let n = |v: &Value| {
        v.as_f64()
            .filter(|x| x.is_finite() && *x > 0.0)
            .unwrap_or(0.0) as u64
    };
    total.input += n(&u["input"]);
    total.output += n(&u["output"]);
    total.cache_read += n(&u["cacheRead"]);
    total.cache_write += n(&u["cacheWrite"]);
    let cost = &u["cost"];
    let f = |v: &Value| v.as_f64().filter(|x| x.is_finite()).unwrap_or(0.0);
    total.cost += match cost.get("total").and_then(Value::as_f64) {
        Some(t) if t.is_finite() => t,
        _ => {
            f(&cost["input"]) + f(&cost["output"]) + f(&cost["cacheRead"]) + f(&cost["cacheWrite"])
        }
    };
}

/// One branch of the tree: the entries from where it leaves the branches
/// before it to its last entry.
#[derive(Debug, Clone)]
pub struct Branch {
    /// The branch's last entry.
    pub leaf: u32,
    /// The entry of an earlier branch it continues from (none for the
    /// first branch, or a second root).
    pub fork: Option<u32>,
    /// Where pi resumes.
    pub active: bool,
    /// Its heading: the first user message of its own part, or its leaf.
    pub title: Line,
    pub blocks: Vec<Block>,
    /// How many entries are its own.
    pub entries: usize,
}

/// Every branch of the session, the one pi resumes first, then the others
/// in the tree's order; each entry's messages appear once, in the first
/// branch that holds it. The meta covers the whole tree.
pub fn branches_document(session: &Session) -> Result<(Meta, Vec<Branch>), SessionError> {
    let mut file = session.open_file()?;
    let order = session.tree.preorder();
    let mut leaves: Vec<u32> = order
        .iter()
        .copied()
        .filter(|&n| session.tree.children(n).is_empty())
        .collect();
    let active = session.leaf();
    if let Some(a) = active {
        leaves.retain(|&l| l != a);
        leaves.insert(0, a);
    }
    let mut done: HashSet<u32> = HashSet::new();
    let mut branches = Vec::new();
    for leaf in leaves {
        let path = session.tree.path_to(leaf);
        let fork = path.iter().rev().find(|e| done.contains(e)).copied();
        let ctx = session.context_for_path(path.clone());
        let blocks = context_blocks(session, &ctx, &mut file, &done, &Window::ALL)?
            .map_or_else(Vec::new, |(b, _)| b);
        let own = path.iter().filter(|e| !done.contains(e)).count();
        let title = blocks
            .iter()
            .find(|b| b.kind == BlockKind::User)
            .and_then(|b| b.body.first())
            .and_then(|n| match n {
                super::document::Node::Para(l) => l.first().cloned(),
                _ => None,
            })
            .map(|l| {
                let text = super::document::line_text(&l);
                vec![Span::clean(safe_text::truncate(&text, 80), Class::Text)]
            })
            .unwrap_or_else(|| {
                let id = session.entry(leaf).id_str().unwrap_or("?");
                vec![Span::new(&format!("ends at {id}"), Class::Dim)]
            });
        done.extend(path.iter().copied());
        branches.push(Branch {
            leaf,
            fork,
            active: Some(leaf) == active,
            title,
            blocks,
            entries: own,
        });
    }
    let all: Vec<u32> = order;
    let mut meta = meta(session, &all, &mut file)?;
    let ctx = session.context(&LeafSelector::Last);
    meta.model = model_name(&ctx);
    meta.thinking = ctx
        .thinking_level
        .as_deref()
        .map(|t| safe_text::clean_line(&jskey::display(t)));
    meta.messages = branches.iter().map(|b| count_messages(&b.blocks)).sum();
    Ok((meta, branches))
}

/// Whether a block starts folded, for drawers that keep no fold state.
pub fn starts_folded(b: &Block) -> bool {
    b.fold == Fold::Folded
}
