//! One session file's usage records, read through the one line reader: every
//! usage pi writes (assistant turns, `usage` entries, compactions, branch
//! summaries), each with the key that tells a copy from a new entry.

use super::{FileUsage, RecordKind, Spend, UsageRecord};
use crate::session::line::cursor::Field;
use crate::session::line::entry::scalar_ms;
use crate::session::line::{LineFacts, Message, SkipText, Slow, Want, read_fast_into, read_slow};
use crate::session::read::blocks::{aligned_pad, keep_rest};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fs::File;
use std::io::{self, Read};

/// Bytes read at a time; a longer line grows the buffer.
const BLOCK: usize = 1 << 20;

/// What the lines of a file show, line by line.
#[derive(Default)]
struct Reader {
    usage: FileUsage,
    seen_header: bool,
    /// Each entry's id hash and its parent's (0 for none), for the branch
    /// pi resumes on.
    parents: FxHashMap<u64, u64>,
    /// The id hash of each record's entry (0 when it has no id).
    record_ids: Vec<u64>,
    /// The last entry with an id, in file order: pi's leaf.
    leaf: u64,
    /// The model last named (a model change or an assistant turn): the one
    /// a compaction or branch summary was made with.
    current_model: Option<u16>,
}

/// Reads the usage of `file` from its start. A file whose first value is
/// not a session header is no session (`is_session` false).
pub(super) fn read_usage(file: &mut File) -> io::Result<FileUsage> {
    let mut r = Reader::default();
    let mut buf = vec![0u8; BLOCK];
    // Where `buf[start]` is in the file (read from its start): the bytes
    // are laid out as the kernel copies them fastest (see `aligned_pad`).
    let mut offset = 0u64;
    let mut start = aligned_pad(&buf, offset);
    let mut end = start;
    let mut at_start = true;
    loop {
        if let Some(i) = memchr::memchr(b'\n', &buf[start..end]) {
            let line = &buf[start..start + i];
            if !r.line(line, at_start) {
                return Ok(r.usage);
            }
            at_start = false;
            start += i + 1;
            offset += i as u64 + 1;
            continue;
        }
        (start, end) = keep_rest(&mut buf, start, end, offset);
        let n = match file.read(&mut buf[end..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            if end > start {
                r.line(&buf[start..end], at_start);
            }
            return Ok(r.finish());
        }
        end += n;
    }
}

fn hash(bytes: &[u8]) -> u64 {
    // 0 stands for "no id".
    xxhash_rust::xxh3::xxh3_64(bytes).max(1)
}

/// The key of a copied entry: its id, its timestamp and its token total, all
/// three kept by a fork or clone.
fn key_of(id: Option<&str>, timestamp: Field<'_>, tokens: f64) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(id.unwrap_or("").as_bytes());
    h.update(&[0]);
    match timestamp {
        Field::Str(t) => h.update(t.as_bytes()),
        Field::Num(n) => h.update(&n.to_bits().to_le_bytes()),
        _ => {}
    }
    h.update(&[0]);
    h.update(&tokens.to_bits().to_le_bytes());
    h.digest()
}

impl Reader {
    /// Takes one line; false when the file turned out to be no session.
    fn line(&mut self, raw: &[u8], at_start: bool) -> bool {
        let bytes = if at_start {
            raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw)
        } else {
            raw
        };
        let want = Want {
            user_text: false,
            assistant_text: false,
            usage: true,
        };
        if self.seen_header {
            let mut facts = LineFacts::default();
            if read_fast_into(bytes, want, &mut facts).is_some() {
                self.entry(&facts);
                return true;
            }
        }
        let text = String::from_utf8_lossy(bytes);
        match read_slow::<SkipText>(&text) {
            Slow::Object(line) => {
                let facts = line.facts();
                if self.seen_header {
                    self.entry(&facts);
                } else if facts.kind == "session" {
                    self.header(&facts);
                } else {
                    return false;
                }
            }
            Slow::Truthy if !self.seen_header => return false,
            Slow::Falsy | Slow::Truthy | Slow::Invalid => {}
        }
        true
    }

    fn header(&mut self, f: &LineFacts<'_>) {
        self.seen_header = true;
        let u = &mut self.usage;
        u.is_session = true;
        u.id = f.id.as_str().unwrap_or_default().to_string();
        u.cwd = f.cwd.unwrap_or_default().to_string();
        u.parent_session = f.parent_session.map(str::to_string);
        u.created_ms = scalar_ms(&f.timestamp.to_scalar());
    }

    fn model(&mut self, name: Option<&str>) -> Option<u16> {
        let name = name.filter(|m| !m.is_empty())?;
        let models = &mut self.usage.models;
        let i = match models.iter().position(|m| m == name) {
            Some(i) => i,
            None => {
                models.push(name.to_string());
                models.len() - 1
            }
        };
        u16::try_from(i).ok()
    }

    fn entry(&mut self, e: &LineFacts<'_>) {
        let id = e.id.as_str();
        if let Some(id) = id {
            let me = hash(id.as_bytes());
            let parent = e.parent.as_str().map_or(0, |p| hash(p.as_bytes()));
            self.parents.insert(me, parent);
            self.leaf = me;
        }
        if e.kind == "model_change" {
            if let Some(m) = self.model(e.model_id) {
                self.current_model = Some(m);
            }
        }
        if let Some(totals) = e.usage {
            let (kind, model) = match e.kind {
                "usage" => (RecordKind::UsageEntry, self.model(e.model)),
                "compaction" => (RecordKind::Compaction, self.current_model),
                "branch_summary" => (RecordKind::BranchSummary, self.current_model),
                _ => (RecordKind::Other, self.current_model),
            };
            let p = e.usage_parts;
            self.push(
                e,
                kind,
                model,
                Spend {
                    input: p.input,
                    output: p.output,
                    cache_read: p.cache_read,
                    cache_write: p.cache_write,
                    cost: totals.cost,
                    tokens: totals.tokens,
                },
            );
        }
        if let Message::Object(m) = &e.message {
            if m.role != Some("assistant") {
                return;
            }
            let model = self.model(m.model);
            if model.is_some() {
                self.current_model = model;
            }
            if let Some(totals) = m.usage {
                let p = m.usage_parts;
                let spend = Spend {
                    input: p.input,
                    output: p.output,
                    cache_read: p.cache_read,
                    cache_write: p.cache_write,
                    cost: totals.cost,
                    tokens: totals.tokens,
                };
                self.push(e, RecordKind::Assistant, model, spend);
                if let (Message::Object(m), Some(r)) = (&e.message, self.usage.records.last_mut()) {
                    r.time_ms = r.time_ms.or_else(|| m.time.map(|t| t.trunc() as i64));
                }
            }
        }
    }

    fn push(&mut self, e: &LineFacts<'_>, kind: RecordKind, model: Option<u16>, spend: Spend) {
        let id = e.id.as_str();
        self.usage.records.push(UsageRecord {
            key: key_of(id, e.timestamp, spend.tokens),
            time_ms: match e.timestamp {
                Field::Str(t) => crate::jstext::date::parse_ms(t),
                _ => None,
            },
            kind,
            model,
            spend,
            abandoned: false,
        });
        self.record_ids.push(id.map_or(0, |i| hash(i.as_bytes())));
    }

    /// Marks the records off the branch pi resumes on (the path from the
    /// last entry up to its root); an entry without an id is never off it.
    fn finish(mut self) -> FileUsage {
        if self.leaf != 0 && !self.usage.records.is_empty() {
            let mut on_path = FxHashSet::default();
            let mut at = self.leaf;
            while at != 0 && on_path.insert(at) {
                at = self.parents.get(&at).copied().unwrap_or(0);
            }
            for (r, id) in self.usage.records.iter_mut().zip(&self.record_ids) {
                r.abandoned = *id != 0 && !on_path.contains(id);
            }
        }
        self.usage
    }
}
