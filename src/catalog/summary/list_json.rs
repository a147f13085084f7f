//! One session as pi's session list holds it, written as `JSON.stringify`
//! writes it (`piscope ls --json`): from a loaded summary, or from a cache
//! record's listing where it lies (a warm list decodes no summary).

use crate::catalog::cache::records::Listed;
use crate::catalog::summary::{ExactFields, SessionSummary};
use crate::jstext::date::push_iso;
use crate::session::line::jskey;
use crate::session::line::raw_json::push_json_string;
use std::path::Path;

/// The fields pi's list shows of a session, borrowed.
pub(crate) struct ListRow<'a> {
    pub path: &'a Path,
    pub id: &'a str,
    pub cwd: &'a str,
    pub name: Option<&'a str>,
    pub parent_session_path: Option<&'a str>,
    pub created_ms: Option<i64>,
    pub modified_ms: Option<i64>,
    pub message_count: u64,
    pub first_message: &'a str,
    pub exact: Option<&'a ExactFields>,
}

impl<'a> ListRow<'a> {
    pub(crate) fn of_summary(s: &'a SessionSummary) -> ListRow<'a> {
        ListRow {
            path: &s.path,
            id: &s.id,
            cwd: &s.cwd,
            name: s.name.as_deref(),
            parent_session_path: s.parent_session_path.as_deref(),
            created_ms: s.created_ms,
            modified_ms: s.modified_ms,
            message_count: s.message_count,
            first_message: &s.first_message,
            exact: s.exact.as_deref(),
        }
    }

    pub(crate) fn of_listed(path: &'a Path, l: &'a Listed<'a>) -> ListRow<'a> {
        ListRow {
            path,
            id: l.id,
            cwd: l.cwd,
            name: l.name,
            parent_session_path: l.parent_session_path,
            created_ms: l.created_ms,
            modified_ms: l.modified_ms,
            message_count: l.message_count,
            first_message: l.first_message,
            exact: l.exact.as_deref(),
        }
    }
}

/// Appends `s` as pi's list holds it, as `JSON.stringify` writes it: an
/// id pi's list does not have is left out, absent values are `null`.
pub fn push_session(s: &SessionSummary, o: &mut Vec<u8>) {
    push_row(&ListRow::of_summary(s), o);
}

pub(crate) fn push_row(s: &ListRow, o: &mut Vec<u8>) {
    let key = |o: &mut Vec<u8>, k: Option<&str>| match k {
        Some(k) => jskey::push_json(o, k),
        None => o.extend_from_slice(b"null"),
    };
    let date = |o: &mut Vec<u8>, t: Option<i64>| match t {
        // Never anything to escape.
        Some(t) => {
            o.push(b'"');
            push_iso(o, t);
            o.push(b'"');
        }
        None => o.extend_from_slice(b"null"),
    };
    let plain = |k: &str| jskey::of_str(k);
    o.extend_from_slice(b"{\"path\":");
    match s.path.to_str() {
        Some(p) => push_json_string(o, p),
        None => push_json_string(o, &s.path.to_string_lossy()),
    }
    let exact = s.exact;
    let id = exact.map_or_else(|| plain(s.id), |e| e.id.as_str().into());
    if id != jskey::UNDEFINED {
        o.extend_from_slice(b",\"id\":");
        jskey::push_json(o, &id);
    }
    o.extend_from_slice(b",\"cwd\":");
    match exact {
        Some(e) => key(o, Some(e.cwd.as_deref().unwrap_or(""))),
        None => push_json_string(o, s.cwd),
    }
    o.extend_from_slice(b",\"name\":");
    match exact {
        Some(e) => key(o, e.name.as_deref()),
        None => key(o, s.name.map(plain).as_deref()),
    }
    o.extend_from_slice(b",\"parentSessionPath\":");
    match exact {
        Some(e) => key(o, e.parent_session.as_deref().filter(|k| *k != "\0z")),
        None => key(o, s.parent_session_path.map(plain).as_deref()),
    }
    o.extend_from_slice(b",\"created\":");
    date(o, s.created_ms);
    o.extend_from_slice(b",\"modified\":");
    date(o, s.modified_ms);
    o.extend_from_slice(b",\"messageCount\":");
    let (digits, from) = crate::jstext::date::decimal(s.message_count, 1);
    o.extend_from_slice(&digits[from..]);
    o.extend_from_slice(b",\"firstMessage\":");
    match exact.and_then(|e| e.first_message.as_deref()) {
        Some(k) => jskey::push_json(o, k),
        None => push_json_string(o, s.first_message),
    }
    o.push(b'}');
}
