//! Legacy files (versions 1 and 2) brought to version 3 with pi's rules:
//! ids and a parent chain for v1, `firstKeptEntryIndex` to an id, and the
//! `hookMessage` role renamed `custom`. Ids are derived from the file, so
//! every read of the same file names its entries the same way.

use crate::session::line::entry::Header;
use crate::session::line::entry::{Entry, Info, Kind, Parent, Role};
use crate::session::line::raw_json::RawObject;
use compact_str::CompactString;
use std::collections::HashSet;

/// The version pi writes today.
pub const CURRENT_VERSION: u32 = 3;

/// Gives every entry of a v1 file an 8-hex id (a hash of the session id and
/// the entry's position, unique in the file) and chains each to the one
/// before it, as pi's migration does with random ids.
pub(crate) fn assign_legacy_ids(
    session_id: &str,
    entries: &mut [Entry],
    originals: &mut Vec<Option<CompactString>>,
) {
    for e in &entries[originals.len()..] {
        originals.push(e.id.as_deref().map(CompactString::from));
    }
    let mut used = HashSet::with_capacity(entries.len());
    let mut prev: Option<CompactString> = None;
    let mut ordinal: u64 = 0;
    let mut new_ids: Vec<Option<CompactString>> = Vec::with_capacity(entries.len());
    for e in entries.iter_mut() {
        if e.kind() == Kind::Header {
            new_ids.push(None);
            continue;
        }
        let id = loop {
            let candidate = legacy_id(session_id, ordinal);
            ordinal += 1;
            if used.insert(candidate.clone()) {
                break candidate;
            }
        };
        e.parent = prev.as_ref().map_or(Parent::Null, |p| Parent::Id(p.into()));
        e.id = Some(id.as_str().into());
        prev = Some(id.clone());
        new_ids.push(Some(id));
    }
    // firstKeptEntryIndex counts parsed lines with the header as 0. pi reads
    // the id of an entry further down before that entry is given one.
    for pos in 0..entries.len() {
        let Info::Compaction(c) = &entries[pos].info else {
            continue;
        };
        let Some(index) = c.first_kept_index else {
            continue;
        };
        let target = index as i64 - 1;
        if index.fract() != 0.0 || target < 0 || target as usize >= entries.len() {
            continue;
        }
        let target = target as usize;
        if entries[target].kind() == Kind::Header {
            continue;
        }
        let id = if target <= pos {
            new_ids[target].clone()
        } else {
            originals[target].clone()
        };
        if let Info::Compaction(c) = &mut entries[pos].info {
            c.first_kept = id;
        }
    }
}

fn legacy_id(session_id: &str, ordinal: u64) -> CompactString {
    // FNV-1a over the session id, then the ordinal mixed in (splitmix64).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in session_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = h ^ ordinal.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    compact_str::format_compact!("{:08x}", z as u32)
}

/// v2 → v3: the `hookMessage` role is now `custom`.
pub(crate) fn rename_hook_messages(entries: &mut [Entry]) {
    for e in entries {
        if let Info::Message(m) = &mut e.info {
            if m.role == Role::HookMessage {
                m.role = Role::Custom;
            }
        }
    }
}

/// The header line with `version` set to 3.
pub(crate) fn migrated_header(header: &Header) -> String {
    match RawObject::parse(&header.raw) {
        Ok(mut o) => {
            if header.version < CURRENT_VERSION {
                o.set("version", &CURRENT_VERSION);
            }
            o.to_json()
        }
        Err(_) => header.raw.clone(),
    }
}

/// An entry's line as pi's migration would write it. `line` is the line as
/// read from the file, `e` its entry in a session of `version`.
pub(crate) fn migrated_line(e: &Entry, version: u32, line: &str) -> String {
    if e.kind() == Kind::Header {
        let mut o = match RawObject::parse(line) {
            Ok(o) => o,
            Err(_) => return line.to_string(),
        };
        o.set("version", &CURRENT_VERSION);
        return o.to_json();
    }
    let Ok(mut o) = RawObject::parse(line) else {
        return line.to_string();
    };
    if version < 2 {
        o.set("id", &e.id.as_deref());
        o.set("parentId", &e.parent_id());
        if let Info::Compaction(c) = &e.info {
            if c.first_kept_index.is_some() {
                if let Some(id) = &c.first_kept {
                    o.set("firstKeptEntryId", id.as_str());
                }
                o.remove("firstKeptEntryIndex");
            }
        }
    }
    if version < 3 && e.kind() == Kind::Message {
        if let Some(msg) = o
            .get("message")
            .and_then(|m| RawObject::parse(m.get()).ok())
        {
            if msg.get_str("role").as_deref() == Some("hookMessage") {
                let mut msg = msg;
                msg.set("role", "custom");
                o.set_json("message", msg.to_json());
            }
        }
    }
    o.to_json()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_ids_are_stable_and_hex() {
        let a = legacy_id("ffae836b", 0);
        assert_eq!(a, legacy_id("ffae836b", 0));
        assert_ne!(a, legacy_id("ffae836b", 1));
        assert_eq!(a.len(), 8);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
    }
}
