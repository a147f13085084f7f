//! A branch kept aside and grafted back: the lines a prune takes from a
//! session, each with its place, and the session rebuilt with them.
//!
//! pi reads a session by file order: its resume point is the last entry,
//! and an entry's children are in the order their lines come. Lines put
//! back at the end would change both, so each archived line remembers
//! where it stood: after which line with an `id` (its anchor, `None` before
//! the first) and after how many id-less lines following that anchor
//! (blank or damaged lines a prune keeps byte for byte). A line the prune
//! kept but re-hung (a name or a label carried over) is archived as it was,
//! with the text the prune left, and put back as it was.
//!
//! Grafting walks the session as it is now and puts each archived line
//! back after its anchor; lines appended since the archive come after them,
//! as they came after the anchors. With nothing appended, the result is
//! the session before the prune, byte for byte (a legacy file: as pi's
//! migration makes it, which pi reads the same). The graft is refused when
//! the session no longer holds what the lines hang on (an anchor gone, a
//! re-hung line changed, an archived id present again).

use crate::session::SessionError;
use std::collections::HashMap;
use std::path::Path;

/// One line of an archived branch and its place.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ArchivedLine {
    /// The id of the nearest line before it that the prune kept and that
    /// has an id (`None`: no such line).
    pub after: Option<String>,
    /// How many kept lines without an id stood between that line and this.
    #[serde(default)]
    pub skip: u32,
    /// The whole line as it was, with its line ending.
    pub line: String,
    /// For a line the prune kept but re-hung: the text it left instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
}

/// The `id` of one line of a session, when it is a JSON object with a
/// string `id` (a BOM and the line ending are allowed).
pub fn line_id(line: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<serde_json::Value>,
    }
    let line = line.strip_prefix("\u{FEFF}".as_bytes()).unwrap_or(line);
    let body = line.trim_ascii_end();
    if !body.starts_with(b"{") {
        return None;
    }
    match serde_json::from_slice::<IdOnly>(body).ok()?.id? {
        serde_json::Value::String(s) => Some(s),
        _ => None,
    }
}

/// Works out the places of the lines a prune takes or changes. `lines`
/// walks the original text line by line (each with its ending), with what
/// the prune does to it: `None` drops it, `Some(text)` keeps it as `text`.
/// Fails on a line that is not UTF-8 (it could not be kept as text).
pub fn archived_lines<'a>(
    path: &Path,
    lines: impl Iterator<Item = (&'a [u8], Option<&'a [u8]>)>,
) -> Result<Vec<ArchivedLine>, SessionError> {
    let mut archive = Archiver::new(path);
    for (old, kept) in lines {
        archive.line(old, kept)?;
    }
    Ok(archive.lines)
}

/// [`archived_lines`] a line at a time, as a prune streams the file.
pub(crate) struct Archiver<'p> {
    path: &'p Path,
    pub(crate) lines: Vec<ArchivedLine>,
    anchor: Option<String>,
    skip: u32,
    /// Lines seen so far.
    seen: u64,
}

impl<'p> Archiver<'p> {
    pub(crate) fn new(path: &'p Path) -> Archiver<'p> {
        Archiver {
            path,
            lines: Vec::new(),
            anchor: None,
            skip: 0,
            seen: 0,
        }
    }

    /// The next line of the original and what the prune does to it.
    pub(crate) fn line(&mut self, old: &[u8], kept: Option<&[u8]>) -> Result<(), SessionError> {
        self.seen += 1;
        let n = self.seen;
        let text = |b: &[u8]| {
            String::from_utf8(b.to_vec()).map_err(|_| SessionError::Refused {
                path: self.path.to_path_buf(),
                reason: format!(
                    "line {n}: not UTF-8 text, so it cannot be archived; nothing changed"
                ),
            })
        };
        match kept {
            None => self.lines.push(ArchivedLine {
                after: self.anchor.clone(),
                skip: self.skip,
                line: text(old)?,
                replaces: None,
            }),
            Some(new) => {
                if new != old {
                    self.lines.push(ArchivedLine {
                        after: self.anchor.clone(),
                        skip: self.skip,
                        line: text(old)?,
                        replaces: Some(text(new)?),
                    });
                }
                match line_id(new) {
                    Some(id) => {
                        self.anchor = Some(id);
                        self.skip = 0;
                    }
                    None => self.skip += 1,
                }
            }
        }
        Ok(())
    }
}

/// What grafting found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grafted {
    /// The session with the branch back in its place.
    Text(Vec<u8>),
    /// The session holds every archived line already, as it was (an
    /// earlier graft went through, or the archive never took effect).
    AlreadyThere,
}

/// The session `current` with the archived lines back in their places, or
/// why not (the reason, for a refusal).
pub fn graft(current: &[u8], archived: &[ArchivedLine]) -> Result<Grafted, String> {
    let lines: Vec<&[u8]> = current.split_inclusive(|&b| b == b'\n').collect();
    let ids: Vec<Option<String>> = lines.iter().map(|l| line_id(l)).collect();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        if let Some(id) = id {
            at.entry(id.as_str()).or_insert(i);
        }
    }
    // Already there: every taken line is in the file as it was, every
    // re-hung one too.
    let present = |a: &ArchivedLine| {
        line_id(a.line.as_bytes()).is_some_and(|id| {
            at.get(id.as_str())
                .is_some_and(|&i| lines[i] == a.line.as_bytes())
        })
    };
    if !archived.is_empty() && archived.iter().all(present) {
        return Ok(Grafted::AlreadyThere);
    }
    let mut replace: HashMap<usize, &str> = HashMap::new();
    for a in archived {
        let id = line_id(a.line.as_bytes());
        match &a.replaces {
            Some(left) => {
                let Some(&i) = id.as_deref().and_then(|id| at.get(id)) else {
                    return Err(format!(
                        "the entry {} the archive re-hung is no longer in the session",
                        id.as_deref().unwrap_or("?")
                    ));
                };
                if lines[i] != left.as_bytes() {
                    return Err(format!(
                        "the entry {} changed since the branch was archived",
                        id.as_deref().unwrap_or("?")
                    ));
                }
                replace.insert(i, &a.line);
            }
            None => {
                if let Some(id) = id.as_deref().filter(|id| at.contains_key(id)) {
                    return Err(format!(
                        "the entry {id} of the archived branch is in the session again"
                    ));
                }
            }
        }
        if let Some(anchor) = &a.after {
            if !at.contains_key(anchor.as_str()) {
                return Err(format!(
                    "the entry {anchor} the branch stood after is no longer in the session"
                ));
            }
        }
    }
    // The taken lines by the line of their anchor, in their order.
    let mut runs: HashMap<Option<usize>, Vec<&ArchivedLine>> = HashMap::new();
    for a in archived.iter().filter(|a| a.replaces.is_none()) {
        let anchor = a.after.as_deref().and_then(|id| at.get(id).copied());
        runs.entry(anchor).or_default().push(a);
    }
    let mut out =
        Vec::with_capacity(current.len() + archived.iter().map(|a| a.line.len()).sum::<usize>());
    // Emits the anchor's lines recorded up to `skip` id-less lines after it
    // (all that are left with `None`: the anchor's stretch has ended).
    let emit = |runs: &mut HashMap<Option<usize>, Vec<&ArchivedLine>>,
                out: &mut Vec<u8>,
                anchor: Option<usize>,
                skip: Option<u32>| {
        if let Some(run) = runs.get_mut(&anchor) {
            let n = run
                .iter()
                .take_while(|a| skip.is_none_or(|s| a.skip <= s))
                .count();
            for a in run.drain(..n) {
                out.extend_from_slice(a.line.as_bytes());
            }
        }
    };
    let mut anchor: Option<usize> = None;
    let mut skip = 0u32;
    emit(&mut runs, &mut out, None, Some(0));
    for (i, line) in lines.iter().enumerate() {
        if let Some(id) = &ids[i] {
            emit(&mut runs, &mut out, anchor, None);
            // Only the first line with an id anchors (ids are unique in a
            // file a prune accepted).
            anchor = (at.get(id.as_str()) == Some(&i)).then_some(i);
            skip = 0;
        } else {
            skip += 1;
        }
        match replace.get(&i) {
            Some(old) => out.extend_from_slice(old.as_bytes()),
            None => out.extend_from_slice(line),
        }
        emit(&mut runs, &mut out, anchor, Some(skip));
    }
    emit(&mut runs, &mut out, anchor, None);
    if runs.values().any(|r| !r.is_empty()) {
        return Err("the session's lines do not match the archive's places".to_string());
    }
    Ok(Grafted::Text(out))
}

/// Grafts the archived lines back into the session at `path`, under
/// piscope's write lock, as an atomic rewrite whose replaced version goes
/// to `keep_original` first (see `rewrite.rs`). `Ok(false)`: the session
/// held the lines already, and nothing changed.
pub fn graft_into(
    path: &Path,
    archived: &[ArchivedLine],
    keep_original: &mut dyn FnMut(
        crate::session::write::rewrite::Original<'_>,
    ) -> Result<(), String>,
) -> Result<bool, SessionError> {
    let mut lock = crate::session::write::append::lock_for_append(path)?;
    let current = std::fs::read(&lock.real).map_err(|e| SessionError::io(path, e))?;
    let refused = |reason: String| SessionError::Refused {
        path: path.to_path_buf(),
        reason: format!("{reason}; nothing changed"),
    };
    match graft(&current, archived).map_err(refused)? {
        Grafted::AlreadyThere => Ok(false),
        Grafted::Text(new) => {
            crate::session::write::rewrite::replace_locked(
                &mut lock,
                path,
                &current,
                &new,
                keep_original,
            )?;
            Ok(true)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "{\"type\":\"session\",\"id\":\"s\"}\n";
    const B: &str = "{\"type\":\"message\",\"id\":\"b\",\"parentId\":null}\n";
    const X: &str = "{\"type\":\"message\",\"id\":\"x\",\"parentId\":\"b\"}\n";
    const JUNK: &str = "not json\n";
    const L: &str = "{\"type\":\"label\",\"id\":\"l\",\"parentId\":\"x\",\"targetId\":\"b\"}\n";
    const L2: &str = "{\"type\":\"label\",\"id\":\"l\",\"parentId\":\"b\",\"targetId\":\"b\"}\n";
    const C: &str = "{\"type\":\"message\",\"id\":\"c\",\"parentId\":\"b\"}\n";

    fn archive(lines: &[(&str, Option<&str>)]) -> (Vec<u8>, Vec<ArchivedLine>) {
        let kept: Vec<u8> = lines
            .iter()
            .filter_map(|(_, k)| k.map(str::as_bytes))
            .flatten()
            .copied()
            .collect();
        let a = archived_lines(
            Path::new("s.jsonl"),
            lines
                .iter()
                .map(|(o, k)| (o.as_bytes(), k.map(str::as_bytes))),
        )
        .expect("archived");
        (kept, a)
    }

    #[test]
    fn lines_go_back_in_their_places() {
        let original = [A, B, X, JUNK, X, L, C].concat();
        let (pruned, a) = archive(&[
            (A, Some(A)),
            (B, Some(B)),
            (X, None),
            (JUNK, Some(JUNK)),
            (X, None),
            (L, Some(L2)),
            (C, Some(C)),
        ]);
        assert_eq!(a.len(), 3);
        assert_eq!((a[1].after.as_deref(), a[1].skip), (Some("b"), 1));
        assert_eq!(
            graft(&pruned, &a),
            Ok(Grafted::Text(original.clone().into_bytes()))
        );
        assert_eq!(graft(original.as_bytes(), &a), Ok(Grafted::AlreadyThere));
        // A line appended since stays after everything that was before it.
        let appended = "{\"type\":\"message\",\"id\":\"d\",\"parentId\":\"c\"}\n";
        let now = [pruned.clone(), appended.as_bytes().to_vec()].concat();
        assert_eq!(
            graft(&now, &a),
            Ok(Grafted::Text(
                [original.as_str(), appended].concat().into_bytes()
            ))
        );
        // The re-hung label changed since: refused.
        let changed = String::from_utf8(pruned).expect("utf8").replace(L2, L);
        assert!(graft(changed.replace(X, "").as_bytes(), &a).is_err());
    }

    #[test]
    fn a_branch_at_the_end_goes_back_before_later_lines() {
        let original = [A, B, C, X].concat();
        let (pruned, a) = archive(&[(A, Some(A)), (B, Some(B)), (C, Some(C)), (X, None)]);
        assert_eq!(graft(&pruned, &a), Ok(Grafted::Text(original.into_bytes())));
        let gone = [A, B].concat();
        let err = graft(gone.as_bytes(), &a).expect_err("anchor gone");
        assert!(err.contains("entry c"), "{err}");
    }
}
