//! An entry as bytes, the form a stored index keeps its entries in (see
//! [`super::stored`]), read back a chunk at a time (see
//! [`super::entries`]).

use super::line::entry::{Entry, EntryFields, Id, Info, Kind, NAN_MS, Parent, Span};

/// Writes `entries` one after another. Most entries (every message at
/// outline depth) keep no info: those are written in a fixed form read
/// without the general decoder, a third of its time; any other entry is
/// written whole after a mark.
pub fn write_entries<'a>(
    entries: impl IntoIterator<Item = &'a Entry>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut fixed = Vec::with_capacity(64);
    for e in entries {
        fixed.clear();
        if write_fixed(e, &mut fixed) {
            w.write_all(&fixed)?;
        } else {
            w.write_all(&[WHOLE])?;
            postcard::to_io(e, &mut *w).map_err(std::io::Error::other)?;
        }
    }
    Ok(())
}

/// The marks before an entry: its fixed form, or the whole entry.
const FIXED: u8 = 0;
const WHOLE: u8 = 1;

/// Writes `e` in the fixed form, if it has one: no info, ids of at most
/// 255 bytes. The mark, the kind, a byte of flags (lossy, echo, an id,
/// the parent's form), the time, line, offset and length
/// (little-endian), then the id and the parent's id, each after its
/// length.
fn write_fixed(e: &Entry, out: &mut Vec<u8>) -> bool {
    let short = |id: &str| u8::try_from(id.len()).is_ok();
    let (parent_form, parent_id) = match &e.parent {
        Parent::Null => (0u8, None),
        Parent::Missing => (1, None),
        Parent::Id(p) => (2, Some(p.as_str())),
        Parent::Invalid => (3, None),
    };
    if !matches!(e.info, Info::None)
        || !e.id.as_deref().is_none_or(short)
        || !parent_id.is_none_or(short)
    {
        return false;
    }
    out.push(FIXED);
    if postcard::to_io(&e.kind(), &mut *out).is_err() {
        return false;
    }
    let flags = u8::from(e.lossy())
        | u8::from(e.js_echo()) << 1
        | u8::from(e.id.is_some()) << 2
        | parent_form << 3;
    out.push(flags);
    out.extend_from_slice(&e.time_ms().unwrap_or(NAN_MS).to_le_bytes());
    out.extend_from_slice(&e.line.to_le_bytes());
    out.extend_from_slice(&e.span().offset.to_le_bytes());
    out.extend_from_slice(&e.span().len.to_le_bytes());
    for id in e.id.as_deref().into_iter().chain(parent_id) {
        out.push(id.len() as u8);
        out.extend_from_slice(id.as_bytes());
    }
    true
}

/// Reads one entry [`write_entries`] wrote at the front of `bytes`; the
/// entry and the bytes after it.
fn read_one(bytes: &[u8]) -> Option<(Entry, &[u8])> {
    let (&mark, rest) = bytes.split_first()?;
    if mark == WHOLE {
        return postcard::take_from_bytes::<Entry>(rest).ok();
    }
    if mark != FIXED {
        return None;
    }
    let (kind, rest) = postcard::take_from_bytes::<Kind>(rest).ok()?;
    let (&flags, rest) = rest.split_first()?;
    let (time, rest) = rest.split_first_chunk::<8>()?;
    let (line, rest) = rest.split_first_chunk::<4>()?;
    let (offset, rest) = rest.split_first_chunk::<8>()?;
    let (len, mut rest) = rest.split_first_chunk::<8>()?;
    let mut id = || -> Option<Id> {
        let (&n, after) = rest.split_first()?;
        let (text, after) = after.split_at_checked(usize::from(n))?;
        rest = after;
        Some(Id::new(std::str::from_utf8(text).ok()?))
    };
    let own = if flags & 4 != 0 { Some(id()?) } else { None };
    let parent = match flags >> 3 {
        0 => Parent::Null,
        1 => Parent::Missing,
        2 => Parent::Id(id()?),
        3 => Parent::Invalid,
        _ => return None,
    };
    // What no reader makes is not believed (see `Entry::try_from`).
    let e = Entry::try_from(EntryFields {
        id: own,
        parent,
        kind,
        time: i64::from_le_bytes(*time),
        line: u32::from_le_bytes(*line),
        span: Span {
            offset: u64::from_le_bytes(*offset),
            len: u64::from_le_bytes(*len),
        },
        lossy: flags & 1 != 0,
        js_echo: flags & 2 != 0,
        info: Info::None,
    })
    .ok()?;
    Some((e, rest))
}

/// The `count` entries [`write_entries`] wrote in `bytes` (a chunk's:
/// room for them is made at once); `None` unless `bytes` holds exactly so
/// many.
pub(crate) fn read_chunk(mut bytes: &[u8], count: usize) -> Option<Vec<Entry>> {
    let mut entries = Vec::with_capacity(count);
    while !bytes.is_empty() && entries.len() < count {
        let (e, rest) = read_one(bytes)?;
        entries.push(e);
        bytes = rest;
    }
    (bytes.is_empty() && entries.len() == count).then_some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::line::entry::LabelChange;

    /// Three entries: two messages in the fixed form (one without an id,
    /// parents of each form) and a label written whole.
    fn entries() -> Vec<Entry> {
        let message = |id: Option<&str>, parent: Parent, line: u32| {
            let span = Span {
                offset: u64::from(line) * 100,
                len: 90,
            };
            let id = id.map(Id::new);
            let mut e = Entry::new(Kind::Message, id, parent, Info::None, line, span);
            e.set_time_ms(Some(1_700_000_000_000));
            e.set_lossy(line == 3);
            e
        };
        let mut label = message(Some("c"), Parent::Id(Id::new("a")), 4);
        label.set_kind(Kind::Label);
        label.info = Info::Label(Box::new(LabelChange::new(
            Some("a".into()),
            Some("done".into()),
            None,
            None,
        )));
        vec![
            message(Some("a"), Parent::Null, 2),
            message(None, Parent::Missing, 3),
            label,
        ]
    }

    /// A chunk's bytes read back only as exactly its entries: one cut
    /// short, one more or fewer than asked, an unknown mark before an
    /// entry or unknown flags in its fixed form are refused, and so is what
    /// no reader makes: a line of 4 GiB or more, a time beyond any date.
    #[test]
    fn chunks_that_are_not_whole_are_refused() {
        let entries = entries();
        let mut bytes = Vec::new();
        write_entries(&entries, &mut bytes).unwrap();
        assert_eq!(bytes[0], FIXED);
        let n = entries.len();
        assert_eq!(read_chunk(&bytes, n).unwrap(), entries);
        assert!(read_chunk(&bytes[..bytes.len() - 1], n).is_none());
        assert!(read_chunk(&bytes, n + 1).is_none());
        assert!(read_chunk(&bytes, n - 1).is_none());
        let mut marked = bytes.clone();
        marked[0] = 7;
        assert!(read_chunk(&marked, n).is_none());
        let mut flagged = bytes.clone();
        let at = 1 + postcard::to_allocvec(&Kind::Message).unwrap().len();
        flagged[at] |= 0x20;
        assert!(read_chunk(&flagged, n).is_none());
        // The fixed form: the flags, then the time, line, offset, length.
        let (time, len) = (at + 1, at + 1 + 8 + 4 + 8);
        let mut long = bytes.clone();
        long[len..len + 8].copy_from_slice(&Entry::LONGEST.to_le_bytes());
        assert_eq!(read_chunk(&long, n).unwrap()[0].span().len, Entry::LONGEST);
        long[len..len + 8].copy_from_slice(&(Entry::LONGEST + 1).to_le_bytes());
        assert!(read_chunk(&long, n).is_none());
        let mut late = bytes.clone();
        late[time..time + 8].copy_from_slice(&8_640_000_000_000_000_i64.to_le_bytes());
        assert!(read_chunk(&late, n).is_some());
        late[time..time + 8].copy_from_slice(&8_640_000_000_000_001_i64.to_le_bytes());
        assert!(read_chunk(&late, n).is_none());
    }
}
