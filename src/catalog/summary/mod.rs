//! One session file's summary: the fields pi's `/resume` list computes (with
//! pi's rules, line by line) plus piscope's totals, resumable as a file
//! grows. This file holds the summary itself; beside it:
//!
//! ```text
//! read.rs           a file's lines read into a summary with pi's rules,
//!                   resumed from where it stopped as the file grows
//! message_text.rs   the searchable text, in memory or in the cache's file
//! list_json.rs      one summary as pi's session list JSON (ls --json)
//! ```

pub mod list_json;
pub mod message_text;
pub(crate) mod read;

pub use message_text::MessageText;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// One session as the picker and `piscope ls` show it. The cache keeps it
/// as it is, without its path (the cache's key) and its text (kept apart).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SessionSummary {
    #[serde(skip)]
    pub path: PathBuf,
    pub id: String,
    /// The header's `cwd` ("" when it is not a string).
    pub cwd: String,
    /// The latest `session_info` name, trimmed; `None` when absent or cleared.
    pub name: Option<String>,
    /// The header's `parentSession` (forks and clones).
    pub parent_session_path: Option<String>,
    /// `new Date(header.timestamp)`; `None` when that is an invalid date.
    pub created_ms: Option<i64>,
    /// The latest user/assistant message time, else the header time, else
    /// the file's mtime; `None` when the latest message time is out of range.
    pub modified_ms: Option<i64>,
    /// Every `message` entry.
    pub message_count: u64,
    /// Messages from the user.
    pub user_messages: u64,
    /// Messages from the assistant (answers).
    pub assistant_messages: u64,
    /// The first user message with text, or "(no messages)".
    pub first_message: String,
    /// Entries after the header.
    pub entries: u64,
    /// Branch ends: entries no other entry names as its parent.
    pub leaves: u64,
    /// Entries that carry a label.
    pub labels: u64,
    pub compactions: u64,
    /// Lines that are not valid JSON objects or not valid UTF-8.
    pub damaged_lines: u64,
    /// The last line has no newline yet (being written, or cut off).
    pub unfinished: bool,
    /// File size in bytes.
    pub size: u64,
    /// `provider/model` of assistant messages and model changes, first use first.
    pub models: Vec<String>,
    /// Tokens and cost over assistant messages, `usage` entries and the
    /// usage of compactions and branch summaries.
    pub tokens: f64,
    pub cost: f64,
    /// Why pi's own session list leaves this file out (pi's reader throws on
    /// it), if it does; piscope still lists it.
    pub skipped_by_pi: Option<String>,
    /// The values pi's list holds where they differ from the readable
    /// fields above (an id that is not a string, a `parentSession` that is
    /// not a string, text with lone surrogates); `None` in the common case.
    pub exact: Option<Box<ExactFields>>,
    /// Every user and assistant text, joined by spaces (what pi searches).
    /// `None` until loaded (the cache keeps it apart from the summaries).
    #[serde(skip)]
    pub text: Option<Arc<MessageText>>,
}

impl SessionSummary {
    /// Name when set, else the first message.
    pub fn title(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.first_message)
    }
}

/// pi's age of a session: `now`, `5m`, `3h`, `2d`, `4w`, `6mo`, `1y`.
pub fn age(ms_ago: i64) -> String {
    let mins = ms_ago.div_euclid(60_000);
    let hours = ms_ago.div_euclid(3_600_000);
    let days = ms_ago.div_euclid(86_400_000);
    match () {
        _ if mins < 1 => "now".to_string(),
        _ if mins < 60 => format!("{mins}m"),
        _ if hours < 24 => format!("{hours}h"),
        _ if days < 7 => format!("{days}d"),
        _ if days < 30 => format!("{}w", days / 7),
        _ if days < 365 => format!("{}mo", days / 30),
        _ => format!("{}y", days / 365),
    }
}

/// The fields of pi's session list as pi holds them, each as a JavaScript
/// value key (see [`jskey`](crate::session::line::jskey)): a plain string is itself, anything else is
/// tagged, so `ls --json` echoes what pi's list holds, byte for byte.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExactFields {
    /// The header's `id` ([`jskey::UNDEFINED`](crate::session::line::jskey::UNDEFINED) when absent).
    pub id: String,
    /// The header's `cwd` when it is a string.
    pub cwd: Option<String>,
    /// The header's `parentSession`, whatever it is.
    pub parent_session: Option<String>,
    pub name: Option<String>,
    pub first_message: Option<String>,
}
