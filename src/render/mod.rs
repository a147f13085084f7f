//! The context rendered for reading, for every front end: pi's messages at
//! a leaf as a semantic [`Document`] (blocks of nodes of classed spans:
//! markdown, highlighted code, diffs, program output in its colours, image
//! placeholders, compactions with what they replaced), laid out for a width
//! ([`layout`]), or written as one self-contained HTML page ([`to_html`])
//! or as Markdown ([`to_markdown`]). Every span is sanitised when it is made.
//!
//! ```text
//! from_session.rs    session + leaf → Document (context, compaction,
//!                    branches)
//! message.rs         message JSON → blocks (tools paired with results)
//! from_markdown.rs   markdown text → nodes
//! highlight.rs       code → classed lines
//! diff.rs            edit calls → diffs
//! ansi.rs            program output → styled lines
//! defer.rs           highlighting put off until a block is laid out
//! document.rs        the model: Document, blocks, nodes, spans
//! layout.rs          Document + width → rows
//! to_html.rs         Document → one HTML page
//! to_markdown.rs     Document → Markdown
//! redact.rs          Document → its secrets, found and replaced
//! ```

mod ansi;
pub mod defer;
mod diff;
pub mod document;
mod from_markdown;
pub mod from_session;
pub mod highlight;
pub mod layout;
pub mod message;
pub mod model_windows;
pub mod redact;
pub mod to_html;
pub mod to_markdown;

pub use document::{Block, BlockKind, Class, Document, Fold, Line, Node, Span, Style};
pub use from_session::{
    Branch, Window, branches_document, context_at, context_document, context_window, document_at,
};
pub use layout::{
    ImageRoom, ImageSpot, Laid, foldable, layout, layout_block, layout_own, layout_own_with,
};

use crate::secrets::Scanner;
use crate::session::{Context, Session, SessionError};
use std::sync::Arc;

pub use redact::Finding;

/// What an export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One branch as Markdown.
    Markdown,
    /// One branch as an HTML page.
    Html,
    /// Every branch as one HTML page, navigable.
    HtmlAllBranches,
}

/// An export rendered, to be scanned for secrets (and redacted) before it
/// is written: the document holds every text the file will.
#[derive(Debug, Clone)]
pub struct Export {
    session: Arc<Session>,
    shape: Shape,
    part: Part,
}

#[derive(Debug, Clone)]
enum Part {
    One(Document),
    All {
        meta: document::Meta,
        branches: Vec<Branch>,
        nav: Vec<to_html::NavRow>,
    },
}

impl Export {
    /// The branch to `leaf` (the current leaf when `None`), or every branch,
    /// rendered.
    pub fn new(
        session: Arc<Session>,
        leaf: Option<u32>,
        shape: Shape,
    ) -> Result<Export, SessionError> {
        let part = match shape {
            Shape::Markdown => Part::One(defer::code_left_plain(|| document_at(&session, leaf))?),
            Shape::Html => Part::One(document_at(&session, leaf)?),
            Shape::HtmlAllBranches => {
                let (meta, branches) = branches_document(&session)?;
                let nav = to_html::nav_rows(&session);
                Part::All {
                    meta,
                    branches,
                    nav,
                }
            }
        };
        Ok(Export {
            session,
            shape,
            part,
        })
    }

    /// Scans every text the export writes; the findings numbered (from 0,
    /// in the order written) for which `redact` is true are replaced by
    /// their markers. Every finding is returned, redacted or kept.
    pub fn redact(&mut self, scanner: &Scanner, redact: &dyn Fn(usize) -> bool) -> Vec<Finding> {
        let session = &self.session;
        let id_of = |e: u32| {
            ((e as usize) < session.entries.len())
                .then(|| session.entry(e).id_str().map(crate::safe_text::clean_line))
                .flatten()
        };
        let mut walk = redact::Walk::new(scanner, &id_of, redact);
        match &mut self.part {
            Part::One(doc) => {
                walk.meta(&mut doc.meta);
                for b in &mut doc.blocks {
                    walk.block(b);
                }
            }
            Part::All {
                meta,
                branches,
                nav,
            } => {
                walk.meta(meta);
                walk.nav(nav);
                for b in branches {
                    walk.branch(b);
                }
            }
        }
        walk.findings
    }

    /// The file's text.
    pub fn write(&self) -> String {
        match (&self.part, self.shape) {
            (Part::One(doc), Shape::Markdown) => to_markdown::markdown(doc),
            (Part::One(doc), _) => to_html::page(doc),
            (
                Part::All {
                    meta,
                    branches,
                    nav,
                },
                _,
            ) => to_html::branches_page(&self.session, meta, branches, nav),
        }
    }
}

/// What stopped [`write_markdown`].
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error("could not write the export: {0}")]
    Write(std::io::Error),
}

/// How one branch is exported as it is rendered: [`write_markdown`] or
/// [`write_html`].
pub type WriteExport = fn(
    &Session,
    &Context,
    &Scanner,
    bool,
    &mut dyn std::io::Write,
) -> Result<Vec<Finding>, StreamError>;

/// The context `ctx` (see [`from_session::context_at`]) rendered a stretch
/// at a time: what the document says of it, and then each stretch's
/// blocks, scanned for secrets and (with `redact`) every finding replaced,
/// handed to `each`. The document's meta, scanned, and the findings.
fn stream_branch(
    session: &Session,
    ctx: &Context,
    scanner: &Scanner,
    redact: bool,
    start: &mut dyn FnMut(&document::Meta) -> std::io::Result<()>,
    each: &mut dyn FnMut(&[Block]) -> std::io::Result<()>,
) -> Result<(document::Meta, Vec<Finding>), StreamError> {
    let mut file = session.open_file()?;
    let id_of = |e: u32| {
        ((e as usize) < session.entries.len())
            .then(|| session.entry(e).id_str().map(crate::safe_text::clean_line))
            .flatten()
    };
    let pick = |_: usize| redact;
    let mut walk = redact::Walk::new(scanner, &id_of, &pick);
    let mut meta = from_session::context_meta(session, ctx, &mut file)?;
    walk.meta(&mut meta);
    start(&meta).map_err(StreamError::Write)?;
    let written = from_session::context_stretches(session, ctx, &mut file, &mut |mut blocks| {
        for b in &mut blocks {
            walk.block(b);
        }
        each(&blocks)
    })?;
    written.map_err(StreamError::Write)?;
    Ok((meta, walk.findings))
}

/// The branch of `ctx` (see [`context_at`]) as Markdown, written
/// to `out` a stretch of the context at a time, each scanned for secrets
/// and (with `redact`) every finding replaced before it is written: what
/// [`Export`] writes for [`Shape::Markdown`] redacting all or none, in the
/// memory of one stretch where the whole document took gigabytes on a
/// branch of a million entries. The findings, in the order written.
pub fn write_markdown(
    session: &Session,
    ctx: &Context,
    scanner: &Scanner,
    redact: bool,
    out: &mut dyn std::io::Write,
) -> Result<Vec<Finding>, StreamError> {
    let out = std::cell::RefCell::new(out);
    let (_, findings) = defer::code_left_plain(|| {
        stream_branch(
            session,
            ctx,
            scanner,
            redact,
            &mut |meta| {
                out.borrow_mut()
                    .write_all(to_markdown::head(meta).as_bytes())
            },
            &mut |blocks| {
                out.borrow_mut()
                    .write_all(to_markdown::blocks(blocks).as_bytes())
            },
        )
    })?;
    Ok(findings)
}

/// The branch of `ctx` (see [`context_at`]) as an HTML page,
/// written as [`write_markdown`] writes Markdown: the page's blocks go to a
/// temporary file a stretch at a time (its head names the colours they
/// use, known at the end), then the head, the blocks and the tail to `out`.
pub fn write_html(
    session: &Session,
    ctx: &Context,
    scanner: &Scanner,
    redact: bool,
    out: &mut dyn std::io::Write,
) -> Result<Vec<Finding>, StreamError> {
    use std::io::{Seek, Write};
    let mut body = to_html::PageBody::default();
    let mut held = std::io::BufWriter::new(tempfile::tempfile().map_err(StreamError::Write)?);
    let (meta, findings) = stream_branch(
        session,
        ctx,
        scanner,
        redact,
        &mut |_| Ok(()),
        &mut |blocks| held.write_all(body.blocks(blocks).as_bytes()),
    )?;
    let mut held = held
        .into_inner()
        .map_err(|e| StreamError::Write(e.into_error()))?;
    let (head, tail) = body.head_and_tail(&meta);
    let copied = out
        .write_all(head.as_bytes())
        .and_then(|()| held.rewind())
        .and_then(|()| std::io::copy(&mut held, out).map(|_| ()))
        .and_then(|()| out.write_all(tail.as_bytes()));
    copied.map_err(StreamError::Write)?;
    Ok(findings)
}

/// The branch to `leaf` (the current leaf when `None`) as Markdown, nothing
/// redacted.
pub fn export_markdown(session: &Session, leaf: Option<u32>) -> Result<String, SessionError> {
    Ok(to_markdown::markdown(&defer::code_left_plain(|| {
        document_at(session, leaf)
    })?))
}

/// The branch to `leaf` (the current leaf when `None`) as an HTML page,
/// nothing redacted.
pub fn export_html(session: &Session, leaf: Option<u32>) -> Result<String, SessionError> {
    Ok(to_html::page(&document_at(session, leaf)?))
}
