//! Forking: a new session file beside the original holding one branch (the
//! path from the root to a leaf), as pi's `createBranchedSession` writes it;
//! and the same text as an export of one branch (`piscope export --format
//! jsonl`). The readable exports (Markdown, HTML) are rendered documents:
//! see `crate::render`.

use crate::jstext::date as jsdate;
use crate::session::line::entry::{Info, Kind};
use crate::session::line::jskey;
use crate::session::line::jsvalue::JsValue;
use crate::session::line::raw_json::RawObject;
use crate::session::tree::{Bits, LabelTargets};
use crate::session::write::{ids, migrate};
use crate::session::{Detail, Session, SessionError};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes the path to `leaf` (the current leaf when `None`) of the session
/// at `path` into a new session file in the same folder and returns its
/// path. Labels on the path are carried over, `parentSession` names the
/// original; the original is not changed. The session is read at outline
/// depth and the kept lines are streamed from the original to the new file,
/// so a fork costs the tree's memory, not the session's.
pub fn fork_session(path: &Path, leaf: Option<&str>) -> Result<PathBuf, SessionError> {
    let mut session = Session::open_once(path, Detail::Outline)?;
    let leaf = resolve_leaf(&session, leaf)?;
    // The branch is walked up from the leaf, and no children are asked.
    session.tree.forget_children();
    let head = ForkHead::new();
    let name = format!(
        "{}_{}.jsonl",
        head.timestamp.replace([':', '.'], "-"),
        head.id
    );
    let new_path = path.with_file_name(name);
    let owner = std::fs::metadata(path).ok();
    crate::session::write::append::write_new_file_with(&new_path, owner.as_ref(), |out| {
        write_fork(&session, leaf, &head, out)
    })?;
    Ok(new_path)
}

/// A new session's text.
pub(crate) struct ForkText {
    pub text: String,
}

/// A new session's id and creation time.
pub(crate) struct ForkHead {
    pub id: String,
    pub timestamp: String,
}

impl ForkHead {
    fn new() -> ForkHead {
        ForkHead {
            id: uuid::Uuid::now_v7().to_string(),
            timestamp: jsdate::format_iso(jsdate::now_ms()),
        }
    }
}

/// The branch to `leaf` as a session file of its own (what a fork writes).
pub fn export_jsonl(session: &Session, leaf: Option<&str>) -> Result<String, SessionError> {
    fork_text(session, leaf).map(|f| f.text)
}

/// Writes what [`export_jsonl`] returns to `out` as it goes, line by line:
/// a branch of millions of entries is never held whole.
/// `leaf` is the entry [`resolve_leaf`] found.
pub fn write_export_jsonl(
    session: &Session,
    leaf: u32,
    out: &mut dyn Write,
) -> Result<(), SessionError> {
    write_fork(session, leaf, &ForkHead::new(), out)
}

/// The text of a new session holding the branch to `leaf`.
pub(crate) fn fork_text(session: &Session, leaf: Option<&str>) -> Result<ForkText, SessionError> {
    let leaf = resolve_leaf(session, leaf)?;
    let head = ForkHead::new();
    let mut out = Vec::new();
    write_fork(session, leaf, &head, &mut out)?;
    Ok(ForkText {
        // Every line is JSON this module wrote.
        text: String::from_utf8_lossy(&out).into_owned(),
    })
}

/// The entry a fork ends at: `leaf`'s, or the session's leaf.
pub fn resolve_leaf(session: &Session, leaf: Option<&str>) -> Result<u32, SessionError> {
    let path = session.path.as_path();
    match leaf {
        Some(id) => session.find(id).ok_or_else(|| SessionError::NoSuchEntry {
            path: path.to_path_buf(),
            id: id.to_string(),
        }),
        None => session.leaf().ok_or_else(|| SessionError::NoSuchEntry {
            path: path.to_path_buf(),
            id: "(the leaf of an empty session)".to_string(),
        }),
    }
}

/// Writes the new session holding the path to entry `leaf` to `out`: its
/// header, the path's entries re-linked without labels, then the labels of
/// the kept entries.
fn write_fork(
    session: &Session,
    leaf: u32,
    head: &ForkHead,
    out: &mut dyn Write,
) -> Result<(), SessionError> {
    let path = session.path.as_path();
    let io = |e| SessionError::io(path, e);
    let mut lines = crate::session::read::blocks::SpanReader::new(session.open_file()?);
    let line = |lines: &mut crate::session::read::blocks::SpanReader,
                idx: u32|
     -> Result<RawObject, SessionError> {
        let span = session.entry(idx).span();
        let text = lines.text(span.offset, span.len).map_err(io)?;
        let parsed = if session.is_legacy() {
            RawObject::parse(&migrate::migrated_line(
                &session.entries[idx as usize],
                session.header.version,
                &text,
            ))
        } else {
            RawObject::parse(&text)
        };
        parsed.map_err(|e| SessionError::Invalid {
            path: path.to_path_buf(),
            message: format!("line {}: {e}", session.entry(idx).line),
        })
    };

    let source = std::path::absolute(path).map_err(io)?;
    let mut header = RawObject::new();
    header.set("type", "session");
    header.set("version", &3);
    header.set("id", head.id.as_str());
    header.set("timestamp", head.timestamp.as_str());
    // pi's own folder for the session: the header's cwd when it is text,
    // else the process's, resolved as pi resolves a path.
    let original = RawObject::parse(&session.header.raw).ok();
    let given = original
        .as_ref()
        .and_then(|o| o.get("cwd"))
        .and_then(|raw| JsValue::parse(raw.get()).ok())
        .and_then(|v| v.string_units().map(<[u16]>::to_vec))
        .unwrap_or_default();
    let here = std::env::current_dir().map_err(io)?;
    let home = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
    let cwd =
        resolve_path(&given, &here, home.as_deref()).map_err(|why| SessionError::Invalid {
            path: path.to_path_buf(),
            message: format!("line {}: the session's cwd: {why}", session.header.line),
        })?;
    header.set_json(
        "cwd",
        crate::session::line::jsvalue::js_string_literal(&cwd),
    );
    header.set("parentSession", &source);
    let mut text = header.to_json();
    text.push('\n');
    out.write_all(text.as_bytes()).map_err(io)?;

    // The path without its labels; entries after a label hang on the entry
    // before it, and a compaction kept from a label keeps from the next entry.
    // What is kept is marked by entry (the path holds nodes, each the entry
    // its id names), not collected as ids. The path is walked a stretch at a
    // time, never held whole.
    let mut kept = Bits::new(session.entries.len());
    let mut kept_without_id = false;
    // Only labels some compaction keeps from need the entry after them: a
    // session of millions of labels names a few, if any.
    let named: HashSet<&str> = session
        .live_entries()
        .filter_map(|(_, e)| match &e.info {
            Info::Compaction(c) => c.first_kept.as_deref(),
            _ => None,
        })
        .collect();
    let mut pending_labels: Vec<&str> = Vec::new();
    let mut replaced: HashMap<&str, &str> = HashMap::default();
    let mut parent = Link::Null;
    // Lines gather here and go out 64 KB at a time.
    let mut buf: Vec<u8> = Vec::with_capacity(1 << 17);
    session.tree.path_in_stretches(leaf, |stretch| {
        for &idx in stretch {
            let entry = session.entry(idx);
            let id = entry.id_str().unwrap_or_default();
            if entry.kind() == Kind::Label {
                if named.contains(id) {
                    pending_labels.push(id);
                }
                continue;
            }
            for label in pending_labels.drain(..) {
                replaced.insert(label, id);
            }
            kept.set(idx);
            kept_without_id |= entry.id.is_none();
            if buf.len() >= 1 << 16 {
                out.write_all(&buf).map_err(io)?;
                buf.clear();
            }
            // Most lines are written as they are but for the parent: spliced.
            if !session.is_legacy() && entry.kind() != Kind::Compaction {
                let raw = lines
                    .bytes(entry.span().offset, entry.span().len)
                    .map_err(io)?;
                if simdutf8::basic::from_utf8(raw).is_ok() && splice_parent(raw, parent, &mut buf) {
                    parent = Link::of(entry);
                    continue;
                }
            }
            let mut o = line(&mut lines, idx)?;
            match parent.json() {
                Some(json) => o.set_json("parentId", json),
                None => o.remove("parentId"),
            }
            // pi keeps from the entry after a label it dropped, by the
            // value (`Map` keys: a number is not its text).
            if let Info::Compaction(c) = &entry.info {
                let next = c
                    .first_kept
                    .as_deref()
                    .filter(|first| *first != id || entry.id.is_none())
                    .and_then(|first| replaced.get(first));
                if let Some(next) = next {
                    o.set_json("firstKeptEntryId", jskey::to_json(next));
                }
            }
            // As `JSON.stringify` writes what `JSON.parse` read: numbers beyond
            // f64 as null, a repeated key once.
            buf.extend_from_slice(
                crate::session::line::jsvalue::normalize(&o.to_json()).as_bytes(),
            );
            buf.push(b'\n');
            parent = Link::of(entry);
        }
        Ok::<(), SessionError>(())
    })?;
    out.write_all(&buf).map_err(io)?;
    // The labels hang on the last kept entry when its id is truthy.
    let mut parent = match parent {
        Link::Id(id) if crate::session::line::jskey::is_truthy(id) => {
            crate::session::line::jskey::to_json(id)
        }
        _ => "null".to_string(),
    };
    drop((replaced, named));
    // The kept entry an id (as a label's targetId reads it) names:
    // `Some(NO_TARGET)` for `undefined` when an entry without one is kept.
    // The labels' targets, found without a table of every id.
    const NO_TARGET: u32 = u32::MAX;
    let targets = LabelTargets::of(&session.entries);
    let kept_target = |t: &str| {
        if t == jskey::UNDEFINED {
            return kept_without_id.then_some(NO_TARGET);
        }
        targets
            .get(t, &session.entries)
            .filter(|&n| kept.get(n) && session.entry(n).id.is_some())
    };

    // pi's label map: file order, re-labelling keeps the first place, a
    // clear removes (labelling again later comes last). Only kept targets
    // are written, so only they are kept, each by its entry with its place
    // and the label entry that set it last.
    let mut labels: HashMap<u32, (u32, u32)> = HashMap::default();
    let mut places = 0u32;
    for (at, entry) in session.live_entries() {
        let (Kind::Label, Info::Label(change)) = (entry.kind(), &entry.info) else {
            continue;
        };
        let target = change.target.as_deref().unwrap_or(jskey::UNDEFINED);
        let Some(target) = kept_target(target) else {
            continue;
        };
        match change.label {
            Some(_) => {
                labels
                    .entry(target)
                    .and_modify(|set| set.1 = at)
                    .or_insert_with(|| {
                        places += 1;
                        (places, at)
                    });
            }
            None => {
                labels.remove(&target);
            }
        }
    }
    let mut labels: Vec<(u32, (u32, u32))> = labels.into_iter().collect();
    labels.sort_unstable_by_key(|(_, (place, _))| *place);

    // The labels' new ids, as the numbers they write (a million labels'
    // texts would be 80 MB).
    let mut new_ids: HashSet<u32> = HashSet::default();
    for (target, (_, at)) in labels {
        let entry = session.entry(at);
        let Info::Label(change) = &entry.info else {
            continue;
        };
        let Some(label) = change.label.as_deref() else {
            continue;
        };
        let target = match target {
            NO_TARGET => jskey::UNDEFINED,
            n => session.entry(n).id_str().unwrap_or(jskey::UNDEFINED),
        };
        // The label entry's time as JSON: read from its line unless it is
        // plain text.
        let time = change
            .timestamp(entry.time_ms())
            .filter(|t| !t.contains('\u{FFFD}'));
        let time = match time {
            Some(t) => Some(crate::session::line::raw_json::json_string(&t)),
            None => {
                let text = lines
                    .text(entry.span().offset, entry.span().len)
                    .map_err(io)?;
                JsValue::parse(text.trim_matches(crate::session::line::entry::is_js_json_space))
                    .ok()
                    .and_then(|v| v.member_key("timestamp", "t:"))
                    .map(|k| jskey::to_json(&k.encode()))
            }
        };
        let label = jskey::to_json(label);
        let label_id = loop {
            let n = ids::random_id();
            let candidate = ids::hex_id(n);
            if kept_target(&candidate).is_none() && new_ids.insert(n) {
                break candidate;
            }
        };
        let mut o = RawObject::new();
        o.set("type", "label");
        o.set("id", label_id.as_str());
        o.set_json("parentId", parent);
        if let Some(t) = time {
            o.set_json("timestamp", t);
        }
        if target != jskey::UNDEFINED {
            o.set_json("targetId", jskey::to_json(target));
        }
        o.set_json("label", label);
        let mut text = o.to_json();
        text.push('\n');
        out.write_all(text.as_bytes()).map_err(io)?;
        parent = crate::session::line::raw_json::json_string(&label_id);
    }
    Ok(())
}

/// What a kept entry's `parentId` becomes: `null` for the first, then the
/// id of the entry kept before it, as the value it is (a number stays a
/// number); after an entry without an id, `undefined`, which
/// `JSON.stringify` leaves out.
#[derive(Clone, Copy)]
enum Link<'a> {
    Null,
    Undefined,
    /// An id's key (see [`crate::session::line::jskey`]).
    Id(&'a str),
}

impl<'a> Link<'a> {
    fn of(entry: &'a crate::session::Entry) -> Link<'a> {
        entry.id_str().map_or(Link::Undefined, Link::Id)
    }

    /// The member's JSON; `None` when it is left out.
    fn json(self) -> Option<String> {
        match self {
            Link::Null => Some("null".to_string()),
            Link::Undefined => None,
            Link::Id(id) => Some(crate::session::line::jskey::to_json(id)),
        }
    }
}

/// pi's `resolvePath` of a session's cwd, on its UTF-16 text (lone
/// surrogates kept): `~` and `~/…` from `home`, a `file://` URL as its
/// path, then absolute against `here` and lexically normalised (no `.`,
/// `..` taken back, no empty parts or trailing slash). Empty text is
/// `here`. Fails where pi throws: a `file://` URL with a host, an encoded
/// `/` or bad percent-encoding.
fn resolve_path(given: &[u16], here: &Path, home: Option<&Path>) -> Result<Vec<u16>, String> {
    let units = |p: &Path| p.to_string_lossy().encode_utf16().collect::<Vec<u16>>();
    let slash = u16::from(b'/');
    let tilde = u16::from(b'~');
    let mut p: Vec<u16> = given.to_vec();
    if let Some(home) = home {
        if p == [tilde] {
            p = units(home);
        } else if p.len() >= 2 && p[0] == tilde && p[1] == slash {
            let mut joined = units(home);
            joined.push(slash);
            joined.extend_from_slice(&p[2..]);
            p = joined;
        }
    }
    let text = String::from_utf16_lossy(&p);
    if let Some(url) = text.strip_prefix("file://") {
        p = file_url_path(url)?.encode_utf16().collect();
    }
    if p.first() != Some(&slash) {
        let mut joined = units(here);
        joined.push(slash);
        joined.extend_from_slice(&p);
        p = joined;
    }
    let mut parts: Vec<&[u16]> = Vec::new();
    for part in p.split(|&u| u == slash) {
        match part {
            [] => {}
            [dot] if *dot == u16::from(b'.') => {}
            [a, b] if *a == u16::from(b'.') && *b == u16::from(b'.') => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    let mut out = Vec::with_capacity(p.len());
    for part in &parts {
        out.push(slash);
        out.extend_from_slice(part);
    }
    if out.is_empty() {
        out.push(slash);
    }
    Ok(out)
}

/// The path of a `file://` URL (the part after `file://`), as node's
/// `fileURLToPath` gives it on Linux.
fn file_url_path(url: &str) -> Result<String, String> {
    let (host, path) = url.split_at(url.find('/').unwrap_or(url.len()));
    if !host.is_empty() && host != "localhost" {
        return Err(format!(
            "a file URL's host must be \"localhost\" or empty, not {host:?}"
        ));
    }
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let mut bytes = Vec::with_capacity(path.len());
    let mut rest = path.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b != b'%' {
            bytes.push(b);
            continue;
        }
        let hex = rest
            .get(..2)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match hex {
            Some(b'/') => return Err("a file URL's path must not hold an encoded /".to_string()),
            Some(v) => {
                bytes.push(v);
                rest = &rest[2..];
            }
            None => return Err("a file URL's path holds a % that encodes nothing".to_string()),
        }
    }
    String::from_utf8(bytes).map_err(|_| "a file URL's path is not UTF-8 once decoded".to_string())
}

/// Appends `line` with its `parentId` set to `parent` to `out` (with its
/// line end), exactly as [`RawObject`] would write it (`to_json` of the
/// parsed line after `set`), when the line is in the form that writes back
/// unchanged: a UTF-8 object with no white space between its members, keys
/// without escapes, each key once, nothing that reads otherwise (see
/// [`value_end`]). Returns false, leaving `out` as it was, for any other
/// line. One pass over the line.
fn splice_parent(line: &[u8], parent: Link<'_>, out: &mut Vec<u8>) -> bool {
    let b = line;
    if matches!(parent, Link::Undefined) || b.first() != Some(&b'{') || b.last() != Some(&b'}') {
        return false;
    }
    let mut keys: [&[u8]; 64] = [&[]; 64];
    let mut key_count = 0;
    let mut value_at = None;
    let mut at = 1;
    if b.get(1) != Some(&b'}') {
        loop {
            // A key: a plain string.
            if b.get(at) != Some(&b'"') {
                return false;
            }
            let Some(len) = b[at + 1..]
                .iter()
                .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
            else {
                return false;
            };
            let key = &b[at + 1..at + 1 + len];
            if b[at + 1 + len] != b'"'
                || key_count == keys.len()
                || keys[..key_count].contains(&key)
            {
                return false;
            }
            keys[key_count] = key;
            key_count += 1;
            at += len + 2;
            if b.get(at) != Some(&b':') {
                return false;
            }
            at += 1;
            let Some(end) = value_end(b, at) else {
                return false;
            };
            if key == b"parentId" {
                value_at = Some((at, end));
            }
            at = end;
            match b.get(at) {
                Some(b',') => at += 1,
                Some(b'}') if at + 1 == b.len() => break,
                _ => return false,
            }
        }
    }
    let push_parent = |out: &mut Vec<u8>| match parent {
        Link::Id(id) => crate::session::line::jskey::push_json(out, id),
        Link::Null | Link::Undefined => out.extend_from_slice(b"null"),
    };
    match value_at {
        Some((from, to)) => {
            out.extend_from_slice(&b[..from]);
            push_parent(out);
            out.extend_from_slice(&b[to..]);
        }
        None => {
            out.extend_from_slice(&b[..b.len() - 1]);
            if key_count > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"\"parentId\":");
            push_parent(out);
            out.push(b'}');
        }
    }
    out.push(b'\n');
    true
}

/// Where the JSON value starting at `at` ends (strings and brackets
/// matched; the line was read as JSON already), or `None` when it does not
/// look like one value without white space, or when JavaScript may read
/// it otherwise than it stands (what [`crate::session::line::jsvalue::may_differ`] looks
/// for: a number with an exponent or of over 300 digits, a `\u` escape of
/// a surrogate).
fn value_end(b: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    // Digits in a row, outside strings.
    let mut run = crate::session::line::jsvalue::DigitRun::default();
    loop {
        let c = *b.get(i)?;
        match c {
            b'"' => {
                i += 1;
                loop {
                    let next = i + memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
                    if b[next] == b'\\' {
                        if crate::session::line::jsvalue::surrogate_escape(b, next) {
                            return None;
                        }
                        i = next + 2;
                    } else {
                        i = next + 1;
                        break;
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                i += 1;
            }
            // Inside a value, any other byte (white space in a nested value
            // is kept as written).
            _ if depth > 0 => {
                if run.differs_at(c) {
                    return None;
                }
                i += 1;
                continue;
            }
            // A number or a literal, up to what follows it.
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' if i == at => {
                let len = b[i..]
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.')))
                    .unwrap_or(b.len() - i);
                let token = &b[i..i + len];
                let literal = matches!(token, b"true" | b"false" | b"null");
                if !literal
                    && (len > 300
                        || !token
                            .iter()
                            .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'.')))
                {
                    return None;
                }
                return Some(i + len);
            }
            _ => return None,
        }
        run.reset();
        if depth == 0 {
            return Some(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_raw_object(line: &str, parent: Link<'_>) -> Option<String> {
        let mut o = RawObject::parse(line).ok()?;
        match parent.json() {
            Some(json) => o.set_json("parentId", json),
            None => o.remove("parentId"),
        }
        Some(o.to_json() + "\n")
    }

    /// Splicing the parent in writes what re-writing the parsed line writes,
    /// on every line of the test corpora and on odd ones; and it declines
    /// lines that do not write back as they are.
    #[test]
    fn splicing_writes_what_the_raw_object_writes() {
        let mut lines: Vec<String> = Vec::new();
        for path in crate::session::read::file::test_session_files() {
            let bytes = std::fs::read(&path).unwrap();
            lines.extend(String::from_utf8_lossy(&bytes).lines().map(str::to_string));
        }
        let odd = [
            r#"{}"#,
            r#"{"a":1}"#,
            r#"{"parentId":null}"#,
            r#"{"id":"a","parentId":"b","x":{"y": [1, 2]},"s":"q\"\\"}"#,
            r#"{"id":"a", "parentId":"b"}"#,
            r#"{"id":"a","parentId":"b","id":"c"}"#,
            r#"{"i\u0064":"a","parentId":"b"}"#,
            r#"{"id":"a","parentId":"b","n":1.50,"m":-0,"t":true,"f":false}"#,
            r#"{"id":"a","parentId":"b","n":1e5}"#,
            r#"{"id":"a","parentId":"b","s":"\ud800"}"#,
            r#"{"id":"a","parentId":"b"} "#,
            r#"{"id":"a","parentId":{"x":[{"}":"]"}]},"z":[]}"#,
            r#"{"id":"a","parentId":"b","x":{"n":[2,1E5]}}"#,
            r#"{"id":"a","x":{"s":"ok \\uD83D","t":"\uD83D"}}"#,
            r#"{"id":"06e4","parentId":"1e5","x":{"e":"9e9"}}"#,
            r#"{"id":"a","x":{"s":"ok \\uD83D \\\" 1e5"}}"#,
        ];
        lines.extend(odd.iter().map(|s| s.to_string()));
        let (mut spliced, mut declined) = (0, 0);
        let long = format!(r#"{{"id":"a","x":[{}]}}"#, "7".repeat(301));
        lines.push(long);
        let mut out = Vec::new();
        for line in &lines {
            for parent in [
                Link::Null,
                Link::Id("p1"),
                Link::Id("q\"\\\u{1}é"),
                Link::Id("\0n1.5"),
                Link::Id("\0w\"a\\ud83d\""),
            ] {
                out.clear();
                out.extend_from_slice(b"before");
                if splice_parent(line.as_bytes(), parent, &mut out) {
                    spliced += 1;
                    assert!(
                        !crate::session::line::jsvalue::may_differ(line.as_bytes()),
                        "{line}"
                    );
                    let written = String::from_utf8(out[6..].to_vec()).unwrap();
                    assert_eq!(Some(written), by_raw_object(line, parent), "{line}");
                } else {
                    declined += 1;
                    assert_eq!(out, b"before", "{line}");
                }
            }
        }
        assert!(spliced > 1000 && declined > 10, "{spliced} {declined}");
        for line in odd[4..7].iter().chain(&odd[8..10]).chain(&odd[12..14]) {
            assert!(
                !splice_parent(line.as_bytes(), Link::Null, &mut out),
                "{line}"
            );
        }
        assert!(splice_parent(odd[14].as_bytes(), Link::Null, &mut out));
        assert!(splice_parent(odd[15].as_bytes(), Link::Null, &mut out));
        assert!(!splice_parent(
            lines[lines.len() - 1].as_bytes(),
            Link::Null,
            &mut out
        ));
        // After an entry without an id the member goes: not spliced.
        assert!(!splice_parent(odd[1].as_bytes(), Link::Undefined, &mut out));
        assert_eq!(
            by_raw_object(r#"{"id":"a","parentId":"b","x":1}"#, Link::Undefined).as_deref(),
            Some("{\"id\":\"a\",\"x\":1}\n")
        );
    }

    /// A fork's cwd is resolved as pi resolves it (node's `path.resolve`
    /// after `~` and `file://` are expanded), lone surrogates kept.
    #[test]
    fn the_cwd_resolves_as_pi_resolves_it() {
        let here = Path::new("/work/here");
        let home = Some(Path::new("/home/me"));
        let resolve = |s: &str| {
            resolve_path(&s.encode_utf16().collect::<Vec<u16>>(), here, home)
                .map(|u| String::from_utf16(&u).unwrap())
        };
        for (given, want) in [
            ("/a/b", "/a/b"),
            ("/a/b/", "/a/b"),
            ("//a/./b/../c//", "/a/c"),
            ("/..", "/"),
            ("/", "/"),
            ("", "/work/here"),
            ("rel/x", "/work/here/rel/x"),
            ("../up", "/work/up"),
            ("~", "/home/me"),
            ("~/p/../q", "/home/me/q"),
            ("~x", "/work/here/~x"),
            ("file:///tmp/a%20b?q#f", "/tmp/a b"),
            ("file://localhost/x/%C3%A9", "/x/é"),
            ("file:///a/../b", "/b"),
        ] {
            assert_eq!(resolve(given).as_deref(), Ok(want), "{given}");
        }
        for bad in [
            "file://host/x",
            "file:///a%2Fb",
            "file:///a%zz",
            "file:///%ff",
        ] {
            assert!(resolve(bad).is_err(), "{bad}");
        }
        let lone: Vec<u16> = vec![u16::from(b'a'), 0xd83d, u16::from(b'/')];
        let mut want: Vec<u16> = "/work/here/a".encode_utf16().collect();
        want.push(0xd83d);
        assert_eq!(resolve_path(&lone, here, home), Ok(want));
    }
}
