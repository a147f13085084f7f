//! A session prepared for the tree pane: the engine's session plus each
//! entry's clean one-line text, row colour and pi's `/tree` view of it.

use crate::safe_text as text;
use crate::session::Session;
use crate::session::line::entry::{Entry, Info, Role};
use crate::session::tree::entry_line;
use crate::session::tree::view::{self, TreeView};
use std::sync::Arc;

/// How a row's text is coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    User,
    Assistant,
    /// `(aborted)` or `(no content)`.
    AssistantQuiet,
    AssistantError,
    Tool,
    Bash,
    Custom,
    Compaction,
    BranchSummary,
    /// Model, thinking level, label, title, custom and context-edit entries.
    Setting,
}

impl RowKind {
    /// Columns of the row text that name the role (`user: `), coloured apart.
    pub fn prefix_len(self, text: &str) -> usize {
        let prefix = match self {
            RowKind::User => "user: ",
            RowKind::Assistant | RowKind::AssistantQuiet | RowKind::AssistantError => "assistant: ",
            _ => return 0,
        };
        if text.starts_with(prefix) {
            prefix.len()
        } else {
            0
        }
    }
}

/// Why a session could not be shown: a type, so the app tells a deleted
/// session from an unreadable one without comparing texts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    /// The open session's file is gone (noticed when reading on).
    Deleted,
    /// The file could not be read: the reader's one-line error.
    Unreadable(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Deleted => f.write_str(crate::tui::look::strings::SESSION_DELETED),
            OpenError::Unreadable(e) => f.write_str(e),
        }
    }
}

/// A session read for the tree pane: the engine's session plus, per entry,
/// the clean one-line text and pi's display order. Built off the UI thread.
#[derive(Debug)]
pub struct LoadedSession {
    pub session: Arc<Session>,
    /// Per entry index: pi's one-line summary, made safe for the terminal.
    pub texts: Vec<Box<str>>,
    pub kinds: Vec<RowKind>,
    /// pi's `/tree` order, leaf and path.
    pub view: TreeView,
    /// The session's name, made safe (read once: finding it walks the file's entries).
    pub name: Option<String>,
    /// Entries in the tree (later header lines not counted).
    pub entry_count: usize,
}

impl LoadedSession {
    /// Prepares a session for display. `home` shortens paths in tool rows to `~`.
    pub fn new(session: Session, home: Option<&str>) -> LoadedSession {
        LoadedSession::grown(None, session, home)
    }

    /// Prepares a session that was read on from where `before` stopped: the
    /// texts of the entries `before` had are kept, only new ones are made.
    pub fn grown(
        before: Option<&LoadedSession>,
        session: Session,
        home: Option<&str>,
    ) -> LoadedSession {
        let n = session.entries.len();
        let kept = before.map_or(0, |b| b.texts.len().min(n));
        let mut texts: Vec<Box<str>> = Vec::with_capacity(n);
        let mut kinds: Vec<RowKind> = Vec::with_capacity(n);
        if let Some(b) = before {
            texts.extend_from_slice(&b.texts[..kept]);
            kinds.extend_from_slice(&b.kinds[..kept]);
        }
        for (e, line) in session.entries[kept..]
            .iter()
            .zip(view::texts_from(&session, kept, home))
        {
            texts.push(text::clean_line(&line).into_boxed_str());
            kinds.push(row_kind(e));
        }
        let view = TreeView::new(&session);
        let name = session.name().map(|n| text::clean_line(&n));
        let entry_count = session.live_entries().count();
        LoadedSession {
            name,
            entry_count,
            session: Arc::new(session),
            texts,
            kinds,
            view,
        }
    }

    pub fn entry(&self, node: u32) -> &Entry {
        self.session.entry(node)
    }

    pub fn text(&self, node: u32) -> &str {
        self.texts.get(node as usize).map_or("", |t| t)
    }

    /// The entry's label, made safe.
    pub fn label(&self, node: u32) -> Option<String> {
        self.session
            .label_of(node)
            .map(|l| text::clean_line(&l.label))
    }
}

fn row_kind(e: &Entry) -> RowKind {
    match &e.info {
        Info::Message(m) => match m.role {
            Role::User => RowKind::User,
            Role::Assistant => {
                if m.content.text.has_text
                    && !entry_line::normalize(&m.content.text.text).is_empty()
                {
                    RowKind::Assistant
                } else if m.stop_reason.as_deref() != Some("aborted")
                    && m.error.as_ref().is_some_and(|e| !e.text.is_empty())
                {
                    RowKind::AssistantError
                } else {
                    RowKind::AssistantQuiet
                }
            }
            Role::ToolResult => RowKind::Tool,
            Role::BashExecution => RowKind::Bash,
            Role::BranchSummary => RowKind::BranchSummary,
            Role::CompactionSummary => RowKind::Compaction,
            _ => RowKind::Custom,
        },
        Info::CustomMessage { .. } => RowKind::Custom,
        Info::Compaction(_) => RowKind::Compaction,
        Info::BranchSummary { .. } => RowKind::BranchSummary,
        _ => RowKind::Setting,
    }
}
