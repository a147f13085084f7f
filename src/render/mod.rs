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
pub mod to_html;
pub mod to_markdown;

pub use document::{Block, BlockKind, Class, Document, Fold, Line, Node, Span, Style};
pub use from_session::{
    Branch, Window, branches_document, context_document, context_window, document_at,
};
pub use layout::{
    ImageRoom, ImageSpot, Laid, foldable, layout, layout_block, layout_own, layout_own_with,
};

use crate::session::{Session, SessionError};

/// The branch to `leaf` (the current leaf when `None`) as Markdown.
pub fn export_markdown(session: &Session, leaf: Option<u32>) -> Result<String, SessionError> {
    Ok(to_markdown::markdown(&document_at(session, leaf)?))
}

/// The branch to `leaf` (the current leaf when `None`) as an HTML page.
pub fn export_html(session: &Session, leaf: Option<u32>) -> Result<String, SessionError> {
    Ok(to_html::page(&document_at(session, leaf)?))
}

/// Every branch of the session as an HTML page.
pub fn export_html_all(session: &Session) -> Result<String, SessionError> {
    let (meta, branches) = branches_document(session)?;
    Ok(to_html::branches_page(session, &meta, &branches))
}
