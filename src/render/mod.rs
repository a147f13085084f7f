//! The context rendered for reading, for every front end: pi's messages at
//! a leaf as a semantic [`Document`] (blocks of nodes of classed spans:
//! markdown, highlighted code, diffs, program output in its colours, image
//! placeholders, compactions with what they replaced), laid out for a width
//! ([`layout`]), or written as one self-contained HTML page ([`html`]) or
//! as Markdown ([`md`]). Every span is sanitised when it is made.
//!
//! ```text
//! document.rs  session + leaf → Document (context, compaction, branches)
//! message.rs   message JSON → blocks (tools paired with their results)
//! markdown.rs  markdown → nodes      highlight.rs  code → classed lines
//! diff.rs      edit calls → diffs    ansi.rs       output → styled lines
//! defer.rs     highlighting put off until a block is laid out
//! doc.rs       the model             layout.rs     Document + width → rows
//! html.rs      the HTML page         md.rs         the Markdown export
//! ```

mod ansi;
pub mod defer;
mod diff;
pub mod doc;
pub mod document;
pub mod highlight;
pub mod html;
pub mod layout;
mod markdown;
pub mod md;
pub mod message;

pub use doc::{Block, BlockKind, Class, Document, Fold, Line, Node, Span, Style};
pub use document::{
    Branch, Window, branches_document, context_document, context_window, document_at,
};
pub use layout::{
    ImageRoom, ImageSpot, Laid, foldable, layout, layout_block, layout_own, layout_own_with,
};

use crate::session::{Session, SessionError};

/// The branch to `leaf` (the current leaf when `None`) as Markdown.
pub fn export_markdown(session: &Session, leaf: Option<u32>) -> Result<String, SessionError> {
    Ok(md::markdown(&document_at(session, leaf)?))
}

/// The branch to `leaf` (the current leaf when `None`) as an HTML page.
pub fn export_html(session: &Session, leaf: Option<u32>) -> Result<String, SessionError> {
    Ok(html::page(&document_at(session, leaf)?))
}

/// Every branch of the session as an HTML page.
pub fn export_html_all(session: &Session) -> Result<String, SessionError> {
    let (meta, branches) = branches_document(session)?;
    Ok(html::branches_page(session, &meta, &branches))
}
