//! Exporting one branch of a session as a session file of its own (the text
//! a fork would write). The readable exports (Markdown, HTML) are rendered
//! documents: see `crate::render`.

use super::{Session, SessionError};

/// The branch to `leaf` as a session file of its own (what a fork writes).
pub fn export_jsonl(session: &Session, leaf: Option<&str>) -> Result<String, SessionError> {
    super::fork::fork_text(session, leaf).map(|f| f.text)
}
