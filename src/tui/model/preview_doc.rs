//! The context preview as blocks to draw: what pi would send if the selected
//! entry were the leaf, rendered by `render` (markdown, highlighted code,
//! diffs, output in its own colours, compactions with what they replaced)
//! into blocks the preview folds one by one, and each block laid out for a
//! width (with rows kept for pictures when the terminal draws them). Built,
//! and laid out near where the reader looks, on a worker.

use crate::render::{self, Block, BlockKind, Class, Fold, ImageRoom, Node, Span};
use crate::safe_text as text;
use crate::session::Remembered;
use crate::session::line::entry::Kind;
use crate::session::line::jskey;
use crate::tui::clock::Clock;
use crate::tui::look::format;
use crate::tui::look::theme::Theme;
use crate::tui::model::loaded::LoadedSession;
use crate::tui::work::newest::Stamp;
use ratatui::text::{Line, Span as TuiSpan};
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::Arc;

/// Context entries shown before the selected one, unless expanded: the
/// context of an entry deep in a long session is long to read and to build.
const WINDOW_ITEMS: usize = 400;
/// Rows a folded tool call, tool result or command shows of its output.
pub const PEEK_ROWS: usize = 4;
/// Rows a folded command shows of the end of its output, as pi shows it.
pub const TAIL_ROWS: usize = 5;
/// Columns left of every row for the block cursor's mark.
pub const GUTTER: u16 = 1;
/// Columns a block inside another (what a compaction replaced) is indented.
pub const NEST_INDENT: u16 = 2;

/// How the preview shows the entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PreviewMode {
    /// The entry's line as pretty-printed JSON instead of the context.
    pub raw: bool,
    /// The whole branch, every block open unless folded by hand.
    pub expanded: bool,
    /// Images drawn as pictures, in rows kept for them.
    pub pictures: bool,
}

/// Which preview: of which loaded session, entry, mode and width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewKey {
    /// Tells apart two sessions shown one after the other.
    pub session: u64,
    pub node: u32,
    pub mode: PreviewMode,
    /// Columns available for text.
    pub width: u16,
}

/// A block's name across reloads and selections: its entry's id and its
/// place among the blocks of that entry (of those inside a compaction when
/// `nested`), never a row number.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlockId {
    /// The entry's id; empty for the preview's own notes.
    pub entry: String,
    pub index: u32,
    pub nested: bool,
}

/// What a block of the preview is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockRole {
    /// A part of the context.
    Message,
    /// The note of the entries before the window; opening it shows them.
    Window,
    /// The preview's own words (nothing to show, an error).
    Note,
}

/// One block as the preview shows it.
#[derive(Debug, Clone)]
pub struct PreviewBlock {
    pub id: BlockId,
    pub block: Block,
    /// 0, or 1 and more for the blocks inside a compaction.
    pub depth: u8,
    /// The block whose fold shows this one.
    pub parent: Option<usize>,
    /// Part of the selected entry.
    pub selected: bool,
    pub role: BlockRole,
    /// Changes when what the block shows changes (a tool's result arrives,
    /// a label is set), so a layout made before is not used.
    pub revision: u64,
}

impl PreviewBlock {
    /// Whether `o` folds or unfolds it.
    pub fn foldable(&self) -> bool {
        self.role == BlockRole::Window || render::foldable(&self.block)
    }

    /// Whether it is open until folded by hand: foldable bodies as the
    /// document says, what a compaction replaced closed.
    pub fn opens_at_first(&self, mode: PreviewMode) -> bool {
        if mode.expanded {
            return true;
        }
        match self.block.fold {
            Fold::Open => true,
            Fold::Folded => false,
            Fold::Fixed => self.block.children.is_empty(),
        }
    }
}

/// Folds set by hand, by block.
pub type Folds = HashMap<BlockId, bool>;

/// Whether block `b` is open.
pub fn is_open(b: &PreviewBlock, folds: &Folds, mode: PreviewMode) -> bool {
    folds
        .get(&b.id)
        .copied()
        .unwrap_or_else(|| b.opens_at_first(mode))
}

/// The blocks shown (those whose enclosing blocks are open), in order.
pub fn visible(blocks: &[PreviewBlock], folds: &Folds, mode: PreviewMode) -> Vec<usize> {
    let mut shown = vec![false; blocks.len()];
    let mut out = Vec::new();
    for (k, b) in blocks.iter().enumerate() {
        let ok = match b.parent {
            None => true,
            Some(p) => shown[p] && is_open(&blocks[p], folds, mode),
        };
        if ok {
            shown[k] = true;
            out.push(k);
        }
    }
    out
}

/// A laid-out block's name in the cache: which block, as it is, at which
/// width, folded or open.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LayoutKey {
    pub id: BlockId,
    pub revision: u64,
    pub width: u16,
    pub open: bool,
}

impl LayoutKey {
    pub fn of(b: &PreviewBlock, width: u16, open: bool) -> LayoutKey {
        LayoutKey {
            id: b.id.clone(),
            revision: b.revision,
            width,
            open,
        }
    }
}

/// A block's rows, each a line of classed spans (sanitised when made), and
/// where pictures go among them.
pub type Rows = Arc<render::Laid>;

/// About how many bytes a block's rows hold (what a cache of them is
/// bounded by: a block's rows run from a few bytes to megabytes).
pub fn rows_bytes(rows: &render::Laid) -> usize {
    let span = std::mem::size_of::<render::Span>();
    let line = std::mem::size_of::<render::Line>();
    let spans: usize = rows
        .rows
        .iter()
        .flatten()
        .map(|s| span + s.text().len() + s.link.as_ref().map_or(0, |l| l.len()))
        .sum();
    std::mem::size_of::<render::Laid>()
        + rows.rows.len() * line
        + spans
        + rows.images.len() * std::mem::size_of::<render::ImageSpot>()
}

/// One block laid out for the preview's `width` (its gutter and nesting
/// taken off), with `images` rows kept for pictures; the notes of what a
/// folded block leaves out name `key`.
pub fn lay_out(
    b: &PreviewBlock,
    width: u16,
    open: bool,
    key: &str,
    images: Option<ImageRoom>,
) -> Rows {
    let cols = width.saturating_sub(GUTTER + NEST_INDENT * u16::from(b.depth));
    let peek = match b.block.kind {
        _ if b.block.peek.is_some() => b.block.peek.unwrap_or(0),
        _ if b.block.tail => TAIL_ROWS,
        BlockKind::ToolCall | BlockKind::ToolResult | BlockKind::Bash => PEEK_ROWS,
        _ => 0,
    };
    Arc::new(render::layout_own_with(
        &b.block,
        usize::from(cols),
        open,
        peek,
        Some(key),
        images,
    ))
}

/// Everything a worker needs to build one preview.
#[derive(Clone)]
pub struct PreviewRequest {
    /// Overtaken once a newer preview is asked for: the build stops.
    pub stamp: Stamp,
    pub key: PreviewKey,
    pub loaded: Arc<LoadedSession>,
    pub theme: Theme,
    pub clock: Clock,
    /// The key that folds and unfolds, as the user's keymap names it (the
    /// notes of what is folded or left out name it).
    pub expand_key: String,
    /// The folds set by hand, to lay out the blocks in view as they show.
    pub folds: Arc<Folds>,
    /// Rows the pane shows: the blocks around the selected entry laid out
    /// are about three times this.
    pub height: usize,
    /// Room kept for pictures, when the terminal draws them.
    pub images: Option<ImageRoom>,
}

/// A built preview.
#[derive(Debug, Clone)]
pub struct PreviewDoc {
    pub key: PreviewKey,
    /// The session file (folds set by hand belong to one session).
    pub path: PathBuf,
    /// Model, thinking level, messages, tokens and cost of the branch.
    pub header: Line<'static>,
    /// The header's parts when the context's size is still to be worked
    /// out (see [`sized_header`]).
    pub size_later: Option<HeaderParts>,
    pub blocks: Arc<Vec<PreviewBlock>>,
    /// The blocks around the selected entry, laid out.
    pub laid: Vec<(LayoutKey, Rows)>,
    /// What the model remembers with the previewed entry as the leaf, for
    /// the tree's rows: worked out here for a session of
    /// [`REMEMBERED_WITH_PREVIEW`] entries or more.
    pub remembered: Option<Remembered>,
}

/// Sessions of this many entries or more have what the model remembers
/// at the previewed entry worked out with the preview, off the screen's
/// thread: it is a pass over the whole branch, and the tree pane works it
/// out itself, at each move of the selection, only for smaller ones.
pub const REMEMBERED_WITH_PREVIEW: usize = 100_000;

impl PreviewDoc {
    /// The first block of the selected entry.
    pub fn anchor(&self) -> Option<usize> {
        self.blocks.iter().position(|b| b.selected)
    }
}

/// Blocks to lay out for a drawer (the ones near what it shows).
#[derive(Clone)]
pub struct LayoutRequest {
    pub key: PreviewKey,
    pub blocks: Arc<Vec<PreviewBlock>>,
    /// Block indices and whether each is open.
    pub wanted: Vec<(usize, bool)>,
    /// The fold key, as the keymap names it.
    pub fold_key: String,
    /// Room kept for pictures, when the terminal draws them.
    pub images: Option<ImageRoom>,
}

/// Blocks laid out for a [`LayoutRequest`].
#[derive(Debug, Clone)]
pub struct LaidOut {
    pub key: PreviewKey,
    pub rows: Vec<(LayoutKey, Rows)>,
}

/// Lays out the blocks a drawer asked for.
pub fn lay_out_wanted(req: &LayoutRequest) -> LaidOut {
    let rows = req
        .wanted
        .iter()
        .filter_map(|&(k, open)| req.blocks.get(k).map(|b| (b, open)))
        .map(|(b, open)| {
            (
                LayoutKey::of(b, req.key.width, open),
                lay_out(b, req.key.width, open, &req.fold_key, req.images),
            )
        })
        .collect();
    LaidOut { key: req.key, rows }
}

/// Builds the preview; `None` when a newer request made it pointless.
pub fn build(req: &PreviewRequest) -> Option<PreviewDoc> {
    let mut out = Builder::default();
    let s = &req.loaded.session;
    let remember = s.entries.len() >= REMEMBERED_WITH_PREVIEW;
    let (header, size_later, remembered) = if req.key.mode.raw {
        let remembered = remember.then(|| s.remembered_at(Some(req.key.node)));
        (raw_json(req, &mut out), None, remembered)
    } else {
        context(req, &mut out, remember)?
    };
    let blocks = Arc::new(out.blocks);
    let laid = lay_out_near_anchor(&blocks, req);
    Some(PreviewDoc {
        key: req.key,
        path: req.loaded.session.path.clone(),
        header,
        size_later,
        blocks,
        laid,
        remembered,
    })
}

/// The selected entry's blocks and enough before and after them to fill
/// the pane three times, laid out as the folds show them.
fn lay_out_near_anchor(blocks: &[PreviewBlock], req: &PreviewRequest) -> Vec<(LayoutKey, Rows)> {
    let mode = req.key.mode;
    let shown = visible(blocks, &req.folds, mode);
    let anchor = shown
        .iter()
        .position(|&k| blocks[k].selected)
        .unwrap_or(shown.len().saturating_sub(1));
    let height = req.height.max(1);
    let mut out = Vec::new();
    let mut one = |k: usize| {
        let b = &blocks[k];
        let open = is_open(b, &req.folds, mode);
        let rows = lay_out(b, req.key.width, open, &req.expand_key, req.images);
        let n = rows.rows.len();
        out.push((LayoutKey::of(b, req.key.width, open), rows));
        n
    };
    let mut after = 0;
    for &k in shown.iter().skip(anchor) {
        if after >= 2 * height {
            break;
        }
        after += one(k);
    }
    let mut before = 0;
    for &k in shown[..anchor.min(shown.len())].iter().rev() {
        if before >= height {
            break;
        }
        before += one(k);
    }
    out
}

/// Collects the preview's blocks, naming each.
#[derive(Default)]
struct Builder {
    blocks: Vec<PreviewBlock>,
    /// Blocks so far per (entry, nested).
    counts: HashMap<(String, bool), u32>,
}

impl Builder {
    fn next_id(&mut self, entry: &str, nested: bool) -> BlockId {
        let n = self.counts.entry((entry.to_string(), nested)).or_insert(0);
        let id = BlockId {
            entry: entry.to_string(),
            index: *n,
            nested,
        };
        *n += 1;
        id
    }

    /// The preview's own words.
    fn note(&mut self, words: &str, class: Class, role: BlockRole, selected: bool) {
        let mut b = Block::new(BlockKind::Other, None, vec![Span::new(words, class)]);
        b.fold = Fold::Fixed;
        let id = self.next_id("", false);
        self.push(b, id, 0, None, selected, role);
    }

    fn push(
        &mut self,
        block: Block,
        id: BlockId,
        depth: u8,
        parent: Option<usize>,
        selected: bool,
        role: BlockRole,
    ) -> usize {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        render::document::line_text(&block.title).hash(&mut h);
        block.also.hash(&mut h);
        block.children.len().hash(&mut h);
        self.blocks.push(PreviewBlock {
            id,
            block,
            depth,
            parent,
            selected,
            role,
            revision: h.finish(),
        });
        self.blocks.len() - 1
    }

    /// A rendered block, and the blocks inside it after it.
    fn message(
        &mut self,
        s: &crate::session::Session,
        block: Block,
        node: u32,
        depth: u8,
        parent: Option<usize>,
    ) {
        let entry = block
            .entry
            .and_then(|e| s.entry(e).id_str().map(str::to_string))
            .unwrap_or_default();
        let id = self.next_id(&entry, depth > 0);
        let selected = depth == 0 && (block.entry == Some(node) || block.also.contains(&node));
        let children = block.children.clone();
        let me = self.push(block, id, depth, parent, selected, BlockRole::Message);
        for c in children {
            self.message(s, c, node, depth.saturating_add(1), Some(me));
        }
    }
}

fn raw_json(req: &PreviewRequest, out: &mut Builder) -> Line<'static> {
    let s = &req.loaded.session;
    let e = s.entry(req.key.node);
    let header = Line::from(vec![
        TuiSpan::styled("raw JSON", req.theme.title),
        TuiSpan::styled(
            format!(
                " · entry {} · line {}",
                text::clean_line(e.id_str().unwrap_or("(no id)")),
                e.line
            ),
            req.theme.muted,
        ),
    ]);
    let (body, class) = match s.line_text(req.key.node) {
        Ok(line) => {
            let pretty = serde_json::from_str::<Value>(&line)
                .ok()
                .and_then(|v| serde_json::to_string_pretty(&v).ok())
                .unwrap_or(line);
            (visible_json(&pretty), Class::Text)
        }
        Err(e) => (e.to_string(), Class::Error),
    };
    let mut b = Block::new(BlockKind::Other, None, Vec::new());
    b.body = vec![Node::text(&body, class)];
    let id = out.next_id("", false);
    // Selected: the view starts at its top.
    out.push(b, id, 0, None, true, BlockRole::Note);
    header
}

/// JSON text with every character a terminal would not show (zero-width
/// and format characters, combining marks, odd spaces, controls) written as
/// its JSON escape, so the raw view shows what the line holds.
fn visible_json(json: &str) -> String {
    use unicode_width::UnicodeWidthChar;
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let hidden = match c {
            '\n' | ' ' => false,
            c if c.is_control() || (c.is_whitespace()) => true,
            // Bidi controls and the like draw nothing (or reorder the line).
            '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' => true,
            '\u{feff}' | '\u{00ad}' | '\u{034f}' | '\u{061c}' | '\u{180e}' => true,
            c => c.width().is_none_or(|w| w == 0),
        };
        if hidden {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The messages the preview reads to tell the context's size before it is
/// shown; a longer read is left for after (see [`sized_header`]).
const SIZE_NOW: usize = 4_000;

/// Items before a preview's window counted at a time, on one core.
const COUNT_RUN: usize = 65_536;

fn context(
    req: &PreviewRequest,
    out: &mut Builder,
    remember: bool,
) -> Option<(Line<'static>, Option<HeaderParts>, Option<Remembered>)> {
    let s = &req.loaded.session;
    let ctx = match req.loaded.take_leaf_context(req.key.node) {
        Some(ctx) => ctx,
        None => s.context_for_path(s.tree.path_to(req.key.node)),
    };
    if !remember {
        let (line, later) = context_blocks(req, out, &ctx)?;
        return Some((line, later, None));
    }
    // What the model remembers (for the tree) beside the blocks: each
    // walks a long branch.
    let (remembered, blocks) = crate::par::beside(
        "piscope-remembered",
        || s.remembered(&ctx),
        || context_blocks(req, out, &ctx),
    );
    let (line, later) = blocks?;
    let remembered = remembered.unwrap_or_else(|| s.remembered(&ctx));
    Some((line, later, Some(remembered)))
}

/// The context's blocks at the request's node, into `out`, and the
/// preview's header: its line, and its parts when the context's size is
/// to be read later. `None` when the request was overtaken.
fn context_blocks(
    req: &PreviewRequest,
    out: &mut Builder,
    ctx: &crate::session::Context,
) -> Option<(Line<'static>, Option<HeaderParts>)> {
    let s = &req.loaded.session;
    let theme = &req.theme;
    let (mut tokens, mut cost) = (0.0, 0.0);
    for &i in &ctx.path {
        if let Some(&u) = req.loaded.usage(i) {
            tokens += u.tokens;
            cost += u.cost;
        }
    }
    let stopped = || req.stamp.is_overtaken();
    let mut file = match crate::session::read::file::open_regular(&s.path) {
        Ok(f) => f,
        Err(e) => {
            out.note(
                &format!("cannot read {}: {e}", s.path.display()),
                Class::Error,
                BlockRole::Note,
                false,
            );
            let line = Line::styled("context unavailable", theme.error);
            return Some((line, None));
        }
    };
    let mut messages = 0usize;
    // A long branch shows its last entries; the expanded view shows all.
    let skip = if req.key.mode.expanded {
        0
    } else {
        ctx.items.len().saturating_sub(WINDOW_ITEMS)
    };
    // The header counts every message pi would send, shown or not.
    messages += count_before(s, ctx, skip, COUNT_RUN, &stopped)?;
    if skip > 0 {
        out.note(
            &format!(
                "… {} before these are in the context too ({} shows everything)",
                format::count(skip, "entry", "entries"),
                req.expand_key
            ),
            Class::Dim,
            BlockRole::Window,
            false,
        );
    }
    let window = render::Window {
        from: skip,
        to: usize::MAX,
        replaced: WINDOW_ITEMS,
        stop: &stopped,
    };
    // Code is highlighted as its block is laid out (near the view only).
    match render::defer::highlighting_deferred(|| render::context_window(s, ctx, &window)) {
        Ok(None) => return None,
        Ok(Some((blocks, shown))) => {
            messages += shown;
            for b in blocks {
                out.message(s, b, req.key.node, 0, None);
            }
        }
        Err(e) => out.note(&e.to_string(), Class::Error, BlockRole::Note, false),
    }
    if !out.blocks.iter().any(|b| b.selected) {
        let e = s.entry(req.key.node);
        let what = match e.kind() {
            Kind::Usage => "a usage record".to_string(),
            _ => format!("a {} entry", e.type_str().replace('_', " ")),
        };
        out.note(
            &format!("The selected entry is {what}: it adds nothing to the context."),
            Class::Dim,
            BlockRole::Note,
            true,
        );
    }
    if messages == 0 && ctx.items.is_empty() {
        out.note("(the context is empty)", Class::Dim, BlockRole::Note, false);
    }
    let model = ctx.model.as_ref().map_or("no model".to_string(), |m| {
        text::clean_line(&m.model_id.as_deref().map_or("?".into(), jskey::display))
    });
    let thinking = ctx
        .thinking_level
        .as_deref()
        .map_or("thinking unset".to_string(), |l| {
            format!("thinking {}", text::clean_line(&jskey::display(l)))
        });
    // The context's size as pi's footer gives it (when a long read is
    // needed, after the preview is shown); the tokens and cost the branch
    // used so far, labelled as such (they are not the context).
    let give_up = |n: usize| n > SIZE_NOW || stopped();
    let (size, later) = match s.context_tokens_within(ctx, &mut file, &give_up) {
        Ok(Some(t)) => (size_text(t, ctx), false),
        Ok(None) if stopped() => return None,
        Ok(None) => ("context …".to_string(), true),
        Err(_) => ("context ?".to_string(), false),
    };
    let parts = HeaderParts {
        model,
        thinking,
        size,
        messages: format::count(messages, "message", "messages"),
        used: format!("{} tokens used", format::tokens(tokens)),
        cost: format::cost(cost),
    };
    let line = parts.line(usize::from(req.key.width), theme);
    Some((line, later.then_some(parts)))
}

/// The messages of the context's first `skip` items, as
/// [`crate::session::Session::context_message_count_of`] counts each: in
/// runs of `run` items on every core (a branch of millions), each run
/// opening the file again only if one of its items needs a line read.
/// `None` once `stopped`.
fn count_before(
    s: &crate::session::Session,
    ctx: &crate::session::Context,
    skip: usize,
    run: usize,
    stopped: &(dyn Fn() -> bool + Sync),
) -> Option<usize> {
    let run = run.max(1);
    let counted = crate::par::map(skip.div_ceil(run), 1, |r| {
        let mut again: Option<std::fs::File> = None;
        let mut n = 0;
        for k in r * run..((r + 1) * run).min(skip) {
            if k % 4096 == 0 && stopped() {
                return None;
            }
            let item = ctx.items.get(k)?;
            n += match s.context_message_count_unread(item) {
                Some(c) => c,
                None => {
                    if again.is_none() {
                        again = crate::session::read::file::open_regular(&s.path).ok();
                    }
                    again
                        .as_mut()
                        .map_or(0, |f| s.context_message_count_of(item, f).unwrap_or(0))
                }
            };
        }
        Some(n)
    });
    counted.into_iter().sum()
}

/// The context's size as pi's footer gives it: its tokens, and their share
/// of the model's window when the window is known.
fn size_text(tokens: Option<f64>, ctx: &crate::session::Context) -> String {
    let window = ctx.model.as_ref().and_then(|m| {
        render::model_windows::context_window(m.provider.as_deref(), m.model_id.as_deref()?)
    });
    match (tokens, window) {
        (Some(t), Some(w)) => format!(
            "context {} ({:.1}%/{})",
            format::tokens(t),
            t / w as f64 * 100.0,
            format::tokens(w as f64)
        ),
        (Some(t), None) => format!("context {}", format::tokens(t)),
        (None, _) => "context ? (until the next answer)".to_string(),
    }
}

/// The header of a preview built with its context's size left for later
/// (`parts`, from [`PreviewDoc::size_later`]), the size read whole now;
/// `None` once a newer request overtook this one.
pub fn sized_header(req: &PreviewRequest, mut parts: HeaderParts) -> Option<Line<'static>> {
    let s = &req.loaded.session;
    let ctx = s.context_for_path(s.tree.path_to(req.key.node));
    let stopped = |_: usize| req.stamp.is_overtaken();
    parts.size = match crate::session::read::file::open_regular(&s.path) {
        Ok(mut file) => match s.context_tokens_within(&ctx, &mut file, &stopped) {
            Ok(Some(t)) => size_text(t, &ctx),
            Ok(None) => return None,
            Err(_) => "context ?".to_string(),
        },
        Err(_) => "context ?".to_string(),
    };
    Some(parts.line(usize::from(req.key.width), &req.theme))
}

/// The parts of the context's header.
#[derive(Debug, Clone)]
pub struct HeaderParts {
    model: String,
    thinking: String,
    size: String,
    messages: String,
    used: String,
    cost: String,
}

impl HeaderParts {
    /// The header in `width` columns: the model, its thinking level, the
    /// context's size, then what the branch used. Until the model's name
    /// fits whole, the message count goes first, then the thinking level,
    /// then the tokens used; then the name is cut, never below a few
    /// columns.
    fn line(&self, width: usize, theme: &Theme) -> Line<'static> {
        /// Narrower than this, a model's name says nothing.
        const MODEL_MIN: usize = 8;
        let mut keep = [true; 3];
        let rest = |keep: &[bool; 3]| {
            let mut parts = Vec::new();
            if keep[1] {
                parts.push(self.thinking.as_str());
            }
            parts.push(self.size.as_str());
            if keep[0] {
                parts.push(self.messages.as_str());
            }
            if keep[2] {
                parts.push(self.used.as_str());
            }
            parts.push(self.cost.as_str());
            format!(" · {}", parts.join(" · "))
        };
        let fits = |rest: &str| text::width(rest) + text::width(&self.model) <= width;
        for drop in 0..3 {
            if fits(&rest(&keep)) {
                break;
            }
            keep[drop] = false;
        }
        let rest = rest(&keep);
        let room = width.saturating_sub(text::width(&rest));
        if room < MODEL_MIN.min(text::width(&self.model)) {
            let bare = rest.trim_start_matches(" · ");
            return Line::styled(text::truncate(bare, width), theme.muted);
        }
        Line::from(vec![
            TuiSpan::styled(text::truncate(&self.model, room), theme.title),
            TuiSpan::styled(rest, theme.muted),
        ])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::read::file::{open_regular, test_session_files};

    /// The messages before a window, counted in runs on every core, are
    /// those counted one item after another, wherever the window starts,
    /// over every test session's leaf (compactions, edits, custom and
    /// summarised messages among them); and a count that is overtaken
    /// gives none.
    #[test]
    fn messages_counted_in_runs_are_those_counted_in_turn() {
        let (mut checked, mut read) = (0, 0);
        for path in test_session_files() {
            let Ok(s) = crate::session::Session::open(&path) else {
                continue;
            };
            let Some(leaf) = s.leaf() else { continue };
            let ctx = s.context_for_path(s.tree.path_to(leaf));
            let mut file = open_regular(&s.path).unwrap();
            let n = ctx.items.len();
            let mut each = vec![0];
            for k in 0..n {
                let item = ctx.items.get(k).unwrap();
                read += usize::from(s.context_message_count_unread(item).is_none());
                let c = s.context_message_count_of(item, &mut file).unwrap_or(0);
                each.push(each[k] + c);
            }
            let step = (n / 7).max(1);
            for skip in (0..=n).step_by(step).chain([n.saturating_sub(1), n]) {
                for run in [1, 3, 64] {
                    let counted = count_before(&s, &ctx, skip, run, &|| false);
                    assert_eq!(counted, Some(each[skip]), "{} {skip} {run}", path.display());
                }
                checked += 1;
            }
            if n > 0 {
                assert_eq!(count_before(&s, &ctx, n, 3, &|| true), None);
            }
        }
        assert!(
            checked > 100 && read > 10,
            "{checked} counts, {read} items read"
        );
    }
}
