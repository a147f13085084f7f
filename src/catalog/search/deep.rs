//! Deep search: the query run over every entry's text, tool output, bash
//! output, summaries and custom messages included, naming the entry of each hit.

use crate::catalog::discover::FileStamp;
use crate::catalog::search::deep_index::{ChunkSource, DeepIndex, Served, line_texts};
use crate::catalog::search::query::{Query, QueryParts};
use crate::catalog::summary::SessionSummary;
use crate::jstext::normalize_whitespace_lower;
use compact_str::CompactString;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One entry that matches.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeepHit {
    /// The session's file (one allocation shared by its hits).
    pub path: Arc<Path>,
    /// In place, as the kind is: pi's ids and every kind fit in a
    /// `CompactString` without an allocation of their own.
    pub entry_id: Option<CompactString>,
    /// 1-based line of the entry in its file.
    pub line: u64,
    /// What matched: `user`, `assistant`, `toolResult`, `bashExecution`,
    /// `compaction`, `branch_summary`, `custom_message`, ...
    pub kind: CompactString,
    /// A short piece of text around the match, on one line.
    pub snippet: String,
    /// The entry is on the current branch but a compaction cut it away:
    /// the model no longer sees it where pi resumes.
    pub compacted_away: bool,
}

/// Searches `sessions` (in parallel) by reading their files, and returns
/// hits in session order, then file order. Files that cannot be read are
/// skipped and named in the error list.
pub fn deep_search(
    sessions: &[SessionSummary],
    query: &Query,
) -> (Vec<DeepHit>, Vec<crate::catalog::CatalogProblem>) {
    let mut hits = Vec::new();
    let index = DeepIndex::disabled();
    let problems = deep_search_each(sessions, query, &index, &mut |found| {
        hits.extend_from_slice(found);
        true
    });
    (hits, problems)
}

/// Searches `sessions` on every core and hands each session's hits to
/// `found` in session order (newest first, as the list is given), each as
/// soon as it and every session before it are searched: the first screen
/// of hits is shown while later sessions are still being read. `found`
/// returns false to stop the search. Each session is searched in `index`
/// (built or extended there as needed), or its file read when the index
/// cannot serve it. Files that cannot be read are skipped and named in the
/// returned list.
pub fn deep_search_each(
    sessions: &[SessionSummary],
    query: &Query,
    index: &DeepIndex,
    found: &mut dyn FnMut(&[DeepHit]) -> bool,
) -> Vec<crate::catalog::CatalogProblem> {
    deep_search_mapped(sessions, query, index, &|hits| hits, &mut |hits| {
        found(&hits)
    })
}

/// [`deep_search_each`], with each session's hits (never none) first
/// turned by `map` into what `found` takes, on the thread that searched
/// the session: what is made of the hits (the lines or the JSON a command
/// prints) is made on every core, and still handed over in session order.
pub fn deep_search_mapped<T: Send>(
    sessions: &[SessionSummary],
    query: &Query,
    index: &DeepIndex,
    map: &(dyn Fn(Vec<DeepHit>) -> T + Sync),
    found: &mut dyn FnMut(T) -> bool,
) -> Vec<crate::catalog::CatalogProblem> {
    let search = Search::new(query, false);
    let search = &search;
    let next = AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut problems = Vec::new();
    std::thread::scope(|scope| {
        // Bounded: workers far ahead of the writer wait rather than hold
        // every hit of the sessions they searched.
        let (tx, rx) = std::sync::mpsc::sync_channel(threads * 4);
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(s) = sessions.get(i) else { break };
                    let r = search_session(s, search, index)
                        .map(|hits| (!hits.is_empty()).then(|| map(hits)));
                    if tx.send((i, r)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Sessions done out of turn wait here until those before them are.
        let mut waiting: std::collections::BTreeMap<usize, Option<T>> = Default::default();
        let mut due = 0;
        for (i, r) in rx {
            match r {
                Ok(made) => {
                    waiting.insert(i, made);
                }
                Err(p) => {
                    problems.push(p);
                    waiting.insert(i, None);
                }
            }
            while let Some(made) = waiting.remove(&due) {
                due += 1;
                if let Some(made) = made
                    && !stop.load(Ordering::Relaxed)
                    && !found(made)
                {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    problems
}

/// Searches one session in the index, or in its file when the index cannot
/// serve it (disabled, damaged).
fn search_session(
    s: &SessionSummary,
    query: &Search<'_>,
    index: &DeepIndex,
) -> Result<Vec<DeepHit>, crate::catalog::CatalogProblem> {
    if !index.is_enabled() {
        return search_file(s, query);
    }
    let problem = |e: std::io::Error| crate::catalog::CatalogProblem::new(&s.path, e.to_string());
    let file = crate::session::read::file::open_regular(&s.path).map_err(problem)?;
    let seen = super::deep_index::now_ns();
    let stamp = FileStamp::of(&file.metadata().map_err(problem)?);
    let mut hits = Vec::new();
    let shared: Arc<Path> = Arc::from(s.path.as_path());
    let served = index.serve(&s.path, &file, stamp, seen, &mut |chunk| {
        search_chunk(&chunk, query, &shared, &mut hits)
    });
    let Some(Served { record }) = served else {
        index.note_fallback();
        return search_file(s, query);
    };
    // What the index does not cover: an unfinished last line, or lines
    // written since the file's stamp was taken.
    let mut tail = &file;
    tail.seek(SeekFrom::Start(record.offset)).map_err(problem)?;
    let reader = BufReader::with_capacity(64 << 10, tail);
    search_lines(reader, record.lines, &shared, query, &mut hits)?;
    if hits.is_empty() {
        return Ok(hits);
    }
    let unchanged = || {
        file.metadata()
            .is_ok_and(|m| FileStamp::of(&m) == record.stamp)
    };
    if let Some(runs) = record.compacted.as_ref().filter(|_| unchanged()) {
        mark_from_runs(runs, &mut hits);
        return Ok(hits);
    }
    let stable = unchanged();
    if let Some(runs) = compacted_runs(&s.path) {
        mark_from_runs(&runs, &mut hits);
        // Kept only when the file read is the one the index was built from.
        if stable && std::fs::metadata(&s.path).is_ok_and(|m| FileStamp::of(&m) == record.stamp) {
            index.note_compacted(&record, runs);
        }
    }
    Ok(hits)
}

/// Searches one chunk of the index, adding its hits to `hits`; false when
/// a part of it is damaged (nothing is added then).
fn search_chunk(
    chunk: &ChunkSource<'_>,
    query: &Search<'_>,
    path: &Arc<Path>,
    hits: &mut Vec<DeepHit>,
) -> bool {
    thread_local! {
        static BUFS: std::cell::RefCell<Bufs> = std::cell::RefCell::default();
    }
    let Some(parts) = &query.parts else {
        return true;
    };
    let mut bufs = BUFS.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let r = search_chunk_in(chunk, query, parts, path, hits, &mut bufs);
    BUFS.with(|b| *b.borrow_mut() = bufs);
    r
}

/// What a search thread reads a chunk into, kept from chunk to chunk.
#[derive(Default)]
struct Bufs {
    folded: Vec<u8>,
    patches: Vec<u8>,
    entries: Vec<u8>,
    /// One entry's text as written, made from its patch.
    original: Vec<u8>,
}

fn search_chunk_in(
    chunk: &ChunkSource<'_>,
    query: &Search<'_>,
    parts: &QueryParts<'_>,
    path: &Arc<Path>,
    hits: &mut Vec<DeepHit>,
    bufs: &mut Bufs,
) -> bool {
    let Bufs {
        folded: fbuf,
        patches: pbuf,
        entries: ebuf,
        original: obuf,
    } = bufs;
    // The entries worth checking, as indices into the chunk's entries.
    let (entries, folded, candidates) = match parts {
        QueryParts::Regex(_) => {
            let (Some(entries), Some(folded)) = (chunk.entry_refs(ebuf), chunk.folded(fbuf)) else {
                return false;
            };
            let all: Vec<usize> = (0..entries.len()).collect();
            (entries, folded, all)
        }
        QueryParts::Words(words) => {
            // Every word and phrase must be in the entry's folded text; see
            // `MessageText::folded` for why the folded text answers both.
            let Some(longest) = words.iter().map(|(_, w)| w).max_by_key(|w| w.len()) else {
                return true;
            };
            let Some(folded) = chunk.folded(fbuf) else {
                return false;
            };
            let finder = memchr::memmem::Finder::new(longest.as_bytes());
            let Some(mut pos) = finder.find(folded) else {
                return true;
            };
            let Some(entries) = chunk.entry_refs(ebuf) else {
                return false;
            };
            let total: u64 = entries.iter().map(|e| e.folded_len + 1).sum();
            if total != folded.len() as u64 {
                return false;
            }
            let mut candidates = Vec::new();
            let (mut k, mut start) = (0usize, 0usize);
            loop {
                while start + entries[k].folded_len as usize <= pos {
                    start += entries[k].folded_len as usize + 1;
                    k += 1;
                }
                let end = start + entries[k].folded_len as usize;
                let text = &folded[start..end];
                if words.iter().all(|(_, w)| {
                    w == longest || memchr::memmem::find(text, w.as_bytes()).is_some()
                }) {
                    candidates.push(k);
                }
                let next = end + 1;
                match folded.get(next..).and_then(|rest| finder.find(rest)) {
                    Some(p) => pos = next + p,
                    None => break,
                }
            }
            (entries, folded, candidates)
        }
    };
    if candidates.is_empty() {
        return true;
    }
    let Some(originals) = chunk.originals(&entries, folded, pbuf) else {
        return false;
    };
    let mut found = Vec::new();
    let mut last_line = None;
    for k in candidates {
        let e = &entries[k];
        if last_line == Some(e.line) {
            continue;
        }
        // Most matches come early: the text is made up to a little past
        // the first, and in full only when that does not show it.
        let Some((start, whole)) = originals.get_upto(k, EARLY_BYTES, obuf) else {
            return false;
        };
        let early = (!whole).then(|| query.find_early(start)).flatten();
        let (bytes, located) = match early {
            Some(at) => (start, Ok(Some(Stored::Bytes(at)))),
            None => {
                let bytes = match whole {
                    true => start,
                    false => match originals.get(k, obuf) {
                        Some(b) => b,
                        None => return false,
                    },
                };
                // Every word and phrase is in the entry (a regex is yet to
                // be run).
                (bytes, query.find_in_stored(bytes))
            }
        };
        let Ok(located) = located else {
            return false;
        };
        if let Some(located) = located {
            let line = e.line;
            last_line = Some(line);
            let Some((id, kind)) = e.id_kind() else {
                return false;
            };
            let (id, kind) = (id.map(CompactString::from), CompactString::from(kind));
            found.push(match located {
                Stored::Text(field, at) => hit(path, id, line, kind, field, at),
                Stored::Bytes(at) => {
                    let Some(snippet) = snippet_stored(bytes, at) else {
                        return false;
                    };
                    DeepHit {
                        path: Arc::clone(path),
                        entry_id: id,
                        line,
                        kind,
                        snippet,
                        compacted_away: false,
                    }
                }
            });
        }
    }
    hits.append(&mut found);
    true
}

fn hit(
    path: &Arc<Path>,
    entry_id: Option<CompactString>,
    line: u64,
    kind: CompactString,
    field: &str,
    at: usize,
) -> DeepHit {
    DeepHit {
        path: Arc::clone(path),
        entry_id,
        line,
        kind,
        snippet: snippet(field, at),
        compacted_away: false,
    }
}

/// Searches a session by reading its file, every line.
fn search_file(
    s: &SessionSummary,
    query: &Search<'_>,
) -> Result<Vec<DeepHit>, crate::catalog::CatalogProblem> {
    let file = crate::session::read::file::open_regular(&s.path)
        .map_err(|e| crate::catalog::CatalogProblem::new(&s.path, e.to_string()))?;
    let reader = BufReader::with_capacity(256 << 10, file);
    let mut hits = Vec::new();
    search_lines(reader, 0, &Arc::from(s.path.as_path()), query, &mut hits)?;
    mark_compacted_away(&s.path, &mut hits);
    Ok(hits)
}

/// Searches the lines `reader` gives, numbered on from `number`.
fn search_lines(
    mut reader: impl BufRead,
    mut number: u64,
    path: &Arc<Path>,
    query: &Search<'_>,
    hits: &mut Vec<DeepHit>,
) -> Result<(), crate::catalog::CatalogProblem> {
    let needle = query.query.raw_prefilter();
    let mut buf = Vec::new();
    let mut lower = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(crate::catalog::CatalogProblem::new(path, e.to_string())),
        }
        number += 1;
        if let Some(needle) = &needle {
            lower.clear();
            lower.extend(buf.iter().map(u8::to_ascii_lowercase));
            if !may_hide(&buf) && memchr::memmem::find(&lower, needle.as_bytes()).is_none() {
                continue;
            }
        }
        let Some((id, texts)) = line_texts(&buf) else {
            continue;
        };
        for (kind, field) in texts {
            if let Some(at) = query.find_in(&field) {
                hits.push(hit(
                    path,
                    id.map(CompactString::from),
                    number,
                    kind.into(),
                    &field,
                    at,
                ));
                break;
            }
        }
    }
    Ok(())
}

/// Whether a line's text may hold a lower-case ASCII word its raw bytes,
/// lower-cased byte by byte, do not: JSON escapes (`\u0078`, `\/`), and the
/// two characters whose lower case is, or begins with, ASCII letters (the
/// Kelvin sign lower-cases to `k`, `İ` to `i` and a combining dot).
fn may_hide(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"\\u").is_some()
        || memchr::memmem::find(line, b"\\/").is_some()
        || memchr::memmem::find(line, "\u{212a}".as_bytes()).is_some()
        || memchr::memmem::find(line, "\u{130}".as_bytes()).is_some()
}

/// Marks the hits the model no longer sees where pi resumes. The tree is
/// read only for a file with hits; one that cannot be read leaves them
/// unmarked (the hits themselves stand).
fn mark_compacted_away(path: &std::path::Path, hits: &mut [DeepHit]) {
    if hits.is_empty() {
        return;
    }
    if let Some(runs) = compacted_runs(path) {
        mark_from_runs(&runs, hits);
    }
}

/// The lines of the entries a compaction cut away where pi resumes, as
/// `[start, end)` runs of consecutive lines; `None` when the file cannot
/// be read as a session.
fn compacted_runs(path: &std::path::Path) -> Option<Vec<(u64, u64)>> {
    use crate::session::{Detail, Memory, Session};
    let session = Session::open_with(path, Detail::Outline).ok()?;
    let memory = session.remembered_at(session.leaf());
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for (i, e) in session.entries.iter().enumerate() {
        if memory.memory(i as u32) != Memory::CompactedAway {
            continue;
        }
        let line = u64::from(e.line);
        match runs.last_mut() {
            Some(last) if last.1 == line => last.1 = line + 1,
            _ => runs.push((line, line + 1)),
        }
    }
    Some(runs)
}

fn mark_from_runs(runs: &[(u64, u64)], hits: &mut [DeepHit]) {
    for h in hits {
        let i = runs.partition_point(|r| r.1 <= h.line);
        h.compacted_away = runs.get(i).is_some_and(|r| r.0 <= h.line);
    }
}

const SNIPPET_CHARS: usize = 80;

/// How far past a match the bytes of a stored snippet may reach: its
/// characters after the match, four bytes at most each, and the rest of a
/// character cut there (see [`window_stored`]).
const SNIPPET_REACH: usize = 4 * (SNIPPET_CHARS + 1) + 4;

/// How much of a stored entry's text is made first to find its match in.
const EARLY_BYTES: usize = 4 << 10;

/// About [`SNIPPET_CHARS`] characters around byte `at`, white space collapsed.
fn snippet(text: &str, at: usize) -> String {
    snippet_of(text, at, (false, false))
}

/// [`snippet`] of `text`, a piece of a longer text when `goes_on` says
/// that text goes on before it, or after it.
fn snippet_of(text: &str, at: usize, goes_on: (bool, bool)) -> String {
    let at = (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    // A third before the match, the rest after.
    let (start, before) = text[..at]
        .char_indices()
        .rev()
        .take(SNIPPET_CHARS / 3)
        .fold((at, 0), |(_, n), (i, _)| (i, n + 1));
    let end = text[at..]
        .char_indices()
        .nth(SNIPPET_CHARS - before)
        .map_or(text.len(), |(i, _)| at + i);
    framed(
        &text[start..end],
        (start > 0 || goes_on.0, end < text.len() || goes_on.1),
    )
}

/// A snippet's `piece`, white space collapsed, after and before a `…`
/// where the text goes on (`more`: before it, after it).
fn framed(piece: &str, more: (bool, bool)) -> String {
    let mut out = String::with_capacity(piece.len() + 8);
    if more.0 {
        out.push('…');
    }
    push_normalized(&mut out, piece);
    if more.1 {
        out.push('…');
    }
    out
}

/// [`snippet`] of the stored text `bytes` at byte `at`, only the bytes it
/// shows (and a few more) checked to be UTF-8: `None` if they are not.
fn snippet_stored(bytes: &[u8], at: usize) -> Option<String> {
    // Around most matches every byte is a character: the snippet is the
    // bytes, counted out.
    let at = at.min(bytes.len());
    let from = at.saturating_sub(SNIPPET_CHARS / 3);
    let to = (at + SNIPPET_CHARS - (at - from)).min(bytes.len());
    if let Some(plain) = bytes
        .get(from..to)
        .filter(|b| b.is_ascii())
        .and_then(|b| std::str::from_utf8(b).ok())
    {
        return Some(framed(plain, (from > 0, to < bytes.len())));
    }
    let (window, at, goes_on) = window_stored(bytes, at, SNIPPET_CHARS / 3, SNIPPET_CHARS + 1)?;
    Some(snippet_of(window, at, goes_on))
}

/// The bytes of `bytes` that hold the `before` characters before byte
/// `at` and the `after` after it (four bytes at most to a character), cut
/// at character starts and checked to be UTF-8: the piece, `at` in it, and
/// whether `bytes` goes on before it and after it. `None` when the piece
/// is not UTF-8.
fn window_stored(
    bytes: &[u8],
    at: usize,
    before: usize,
    after: usize,
) -> Option<(&str, usize, (bool, bool))> {
    let starts = |i: usize| bytes.get(i).is_none_or(|b| b & 0xc0 != 0x80);
    let mut at = at.min(bytes.len());
    while !starts(at) {
        at -= 1;
    }
    let mut from = at.saturating_sub(4 * before);
    while !starts(from) {
        from += 1;
    }
    let mut to = (at + 4 * after).min(bytes.len());
    while !starts(to) {
        to += 1;
    }
    let window = std::str::from_utf8(&bytes[from..to]).ok()?;
    Some((window, at - from, (from > 0, to < bytes.len())))
}

/// `text` lower-cased character by character, and for each byte of it the
/// byte of `text` it came from (one more at the end).
fn lower_with_offsets(text: &str) -> (String, Vec<usize>) {
    let mut lower = String::with_capacity(text.len());
    let mut from = Vec::with_capacity(text.len() + 1);
    for (i, c) in text.char_indices() {
        for l in c.to_lowercase() {
            lower.push(l);
            from.extend(std::iter::repeat_n(i, l.len_utf8()));
        }
    }
    from.push(text.len());
    (lower, from)
}

/// Appends `s` with its white-space runs as one space, trimmed.
fn push_normalized(out: &mut String, s: &str) {
    if s.is_ascii() {
        // The same on bytes, without a branch on where words end (they end
        // anywhere, which no guess foresees): each byte is written, and
        // kept by moving on past it, or not. The ASCII white space is
        // these six.
        let mut bytes = std::mem::take(out).into_bytes();
        let base = bytes.len();
        let space = |b: u8| b == b' ' || b.wrapping_sub(b'\t') < 5;
        let b = s.as_bytes();
        // Most pieces are words between single white-space bytes: then
        // each of those becomes a space and nothing moves (both passes
        // without a branch on the bytes, which the compiler widens).
        let ends = b.first().is_some_and(|&c| !space(c)) && b.last().is_some_and(|&c| !space(c));
        let runs = b
            .iter()
            .zip(b.iter().skip(1))
            .fold(false, |any, (&x, &y)| any | (space(x) & space(y)));
        if ends && !runs {
            bytes.extend(b.iter().map(|&c| if space(c) { b' ' } else { c }));
        } else {
            // Never more out than in, and one byte to spare for the writes.
            bytes.resize(base + s.len() + 1, 0);
            let out_bytes = &mut bytes[base..];
            let (mut at, mut started, mut gap) = (0usize, false, false);
            for &c in b {
                let space = space(c);
                let word = !space;
                out_bytes[at] = b' ';
                at += usize::from(word & gap);
                out_bytes[at] = c;
                at += usize::from(word);
                started |= word;
                gap = space & started;
            }
            bytes.truncate(base + at);
        }
        // Only ASCII was added to a string: still UTF-8.
        *out = String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        return;
    }
    let mut first = true;
    for w in s.split(crate::jstext::is_space).filter(|w| !w.is_empty()) {
        if !std::mem::take(&mut first) {
            out.push(' ');
        }
        out.push_str(w);
    }
}

impl Query {
    /// A lower-case ASCII piece every matching line must contain in its raw
    /// JSON bytes, when the query has one that JSON would not escape.
    fn raw_prefilter(&self) -> Option<String> {
        let tokens = self.literal_tokens()?;
        tokens
            .into_iter()
            .filter(|t| {
                t.bytes()
                    .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
            })
            .max_by_key(String::len)
    }

    /// Every place the query's words, phrases or pattern match in `text`,
    /// as byte ranges in order (overlaps merged).
    pub fn match_ranges(&self, text: &str) -> Vec<Range<usize>> {
        self.marks().match_ranges(text)
    }

    /// The query made ready to mark its matches in many texts (the rows
    /// of a screen): [`Query::match_ranges`] without making it ready each
    /// time.
    pub fn marks(&self) -> Marks<'_> {
        Marks(Search::new(self, true))
    }

    /// Where the query matches in `text` (a byte offset), if it does.
    pub fn find_in(&self, text: &str) -> Option<usize> {
        Search::new(self, false).find_in(text)
    }
}

/// A query made ready to mark its matches (see [`Query::marks`]).
pub struct Marks<'q>(Search<'q>);

impl Marks<'_> {
    /// See [`Query::match_ranges`].
    pub fn match_ranges(&self, text: &str) -> Vec<Range<usize>> {
        self.0.match_ranges(text)
    }
}

/// A query made ready for many texts: its words lower-cased, its phrases
/// folded and their patterns compiled, once.
struct Search<'q> {
    query: &'q Query,
    parts: Option<QueryParts<'q>>,
    /// Per phrase, the pattern that marks it across any white space (made
    /// only for marking matches).
    phrases: Vec<Option<fancy_regex::Regex>>,
    /// What [`Search::find_in_matching`] looks for first (the first word,
    /// or the first word of the first phrase), made ready once.
    first: Option<memchr::memmem::Finder<'static>>,
}

impl<'q> Search<'q> {
    fn new(query: &'q Query, marks: bool) -> Search<'q> {
        let parts = query.parts();
        let phrases = match (&parts, marks) {
            (Some(QueryParts::Words(words)), true) => words
                .iter()
                .filter(|(phrase, _)| *phrase)
                .map(|(_, w)| {
                    // A phrase matches across any run of white space.
                    let pattern = w
                        .split(' ')
                        .map(|p| fancy_regex::escape(p).into_owned())
                        .collect::<Vec<_>>()
                        .join(r"\s+");
                    fancy_regex::RegexBuilder::new(&pattern)
                        .case_insensitive(true)
                        .build()
                        .ok()
                })
                .collect(),
            _ => Vec::new(),
        };
        let first = match &parts {
            Some(QueryParts::Words(words)) => words.first().map(|(phrase, w)| {
                let w = if *phrase {
                    w.split(' ').next().unwrap_or("")
                } else {
                    w
                };
                memchr::memmem::Finder::new(w.as_bytes()).into_owned()
            }),
            _ => None,
        };
        Search {
            query,
            parts,
            phrases,
            first,
        }
    }

    /// See [`Query::match_ranges`].
    fn match_ranges(&self, text: &str) -> Vec<Range<usize>> {
        let mut found: Vec<Range<usize>> = Vec::new();
        let add_regex = |re: &fancy_regex::Regex, found: &mut Vec<Range<usize>>| {
            for m in re.find_iter(text).take(64).flatten() {
                if !m.range().is_empty() {
                    found.push(m.range());
                }
            }
        };
        match &self.parts {
            None => {}
            Some(QueryParts::Regex(re)) => add_regex(re, &mut found),
            Some(QueryParts::Words(words)) => {
                let mut phrases = self.phrases.iter();
                // ASCII lower-cases byte for byte: the offsets are the text's.
                let (lower, from) = if text.is_ascii() {
                    (text.to_ascii_lowercase(), None)
                } else {
                    let (lower, from) = lower_with_offsets(text);
                    (lower, Some(from))
                };
                let at = |i: usize| from.as_ref().map_or(i, |f| f[i]);
                for (phrase, w) in words {
                    if *phrase {
                        if let Some(Some(re)) = phrases.next() {
                            add_regex(re, &mut found);
                        }
                        continue;
                    }
                    let mut start = 0;
                    while let Some(i) = lower[start..].find(w.as_str()) {
                        let (a, b) = (start + i, start + i + w.len());
                        found.push(at(a)..at(b));
                        start = b;
                    }
                }
            }
        }
        found.sort_by_key(|r| (r.start, r.end));
        let mut merged: Vec<Range<usize>> = Vec::new();
        for r in found {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        merged
    }

    /// See [`Query::find_in`].
    fn find_in(&self, text: &str) -> Option<usize> {
        match self.parts.as_ref()? {
            QueryParts::Regex(re) => re.find(text).ok().flatten().map(|m| m.start()),
            QueryParts::Words(words) => {
                let lower = text.to_lowercase();
                // Folded only when a phrase needs it (a word never does).
                let normalized = if words.iter().any(|(phrase, _)| *phrase) {
                    normalize_whitespace_lower(text)
                } else {
                    String::new()
                };
                let mut first = None;
                for (phrase, w) in words {
                    let hit = if *phrase {
                        normalized
                            .contains(w.as_str())
                            .then(|| lower.find(w.split(' ').next().unwrap_or("")).unwrap_or(0))
                    } else {
                        lower.find(w.as_str())
                    };
                    let at = hit?;
                    first.get_or_insert(at);
                }
                // Offsets in the lower-case copy are close enough for a snippet.
                first.map(|a| a.min(text.len()))
            }
        }
    }

    /// [`Search::find_in`] for a text whose folded form holds every word
    /// and phrase (so each is found): only where the first one starts is
    /// worked out, reading the text only up to it when what comes before
    /// it is ASCII.
    fn find_in_matching(&self, text: &str) -> Option<usize> {
        let (Some(QueryParts::Words(words)), Some(finder)) = (&self.parts, &self.first) else {
            return self.find_in(text);
        };
        let found = lower_find_bytes(text.as_bytes(), finder)
            .unwrap_or_else(|_| text.to_lowercase().find(first_needle(finder)));
        let at = match (found, words.first()?) {
            (Some(at), _) => at,
            (None, (true, _)) => 0,
            (None, (false, _)) => return self.find_in(text),
        };
        Some(at.min(text.len()))
    }

    /// [`Search::find_in_stored`]'s answer read off the first bytes of an
    /// entry's text (a word's or phrase's words all in it): where the
    /// first word starts, when those bytes show it with a snippet's worth
    /// of bytes after it; `None` when the whole text is needed (a pattern,
    /// a match further on, a `Σ`, bytes that are not UTF-8).
    fn find_early(&self, start: &[u8]) -> Option<usize> {
        let (Some(QueryParts::Words(_)), Some(finder)) = (&self.parts, &self.first) else {
            return None;
        };
        // Up to the last character's start: it may be cut short.
        let end = start.iter().rposition(|b| b & 0xc0 != 0x80)?;
        match lower_find_bytes(&start[..end], finder) {
            Ok(Some(at)) if at + SNIPPET_REACH < end => Some(at),
            _ => None,
        }
    }

    /// [`Search::find_in_matching`] for an entry's text as the index holds
    /// it, bytes not yet checked to be UTF-8: where the first match starts,
    /// and the text when it had to be checked whole (a pattern, a `Σ` or a
    /// word not found up front). For words only the bytes up to the match
    /// are checked here; the snippet and the context check the few around
    /// it. `Err` when a checked piece is not UTF-8.
    fn find_in_stored<'t>(&self, bytes: &'t [u8]) -> Result<Option<Stored<'t>>, NotUtf8> {
        if let (Some(QueryParts::Words(words)), Some(finder)) = (&self.parts, &self.first) {
            match (lower_find_bytes(bytes, finder), words.first()) {
                (Ok(Some(at)), _) => return Ok(Some(Stored::Bytes(at.min(bytes.len())))),
                (Ok(None), Some((true, _))) => return Ok(Some(Stored::Bytes(0))),
                (Err(LowerFind::NotUtf8), _) => return Err(NotUtf8),
                // Worked out on the whole text, as for a text in memory.
                _ => {}
            }
        }
        let text = std::str::from_utf8(bytes).map_err(|_| NotUtf8)?;
        Ok(self.find_in_matching(text).map(|at| Stored::Text(text, at)))
    }
}

/// Where a hit lies in an entry's stored text: a byte offset in its bytes
/// (only those up to it checked), or in the text checked whole.
enum Stored<'t> {
    Bytes(usize),
    Text(&'t str, usize),
}

/// A stored text, or a piece of it, that is not UTF-8: the index is damaged.
#[derive(Debug)]
struct NotUtf8;

/// Why [`lower_find_bytes`] could not answer.
#[derive(Debug, PartialEq)]
enum LowerFind {
    /// A piece it had to read is not UTF-8.
    NotUtf8,
    /// A `Σ` came first: only the whole text lower-cases it right.
    Sigma,
}

/// What `finder` looks for, as text.
fn first_needle<'f>(finder: &'f memchr::memmem::Finder<'_>) -> &'f str {
    std::str::from_utf8(finder.needle()).unwrap_or("")
}

/// `text.to_lowercase().find(needle)`, lower-casing the text only up to
/// the match (see [`lower_find_bytes`]).
#[cfg(test)]
fn lower_find(text: &str, needle: &str) -> Option<usize> {
    let finder = memchr::memmem::Finder::new(needle.as_bytes());
    lower_find_bytes(text.as_bytes(), &finder).unwrap_or_else(|_| text.to_lowercase().find(needle))
}

/// `text.to_lowercase().find(needle)` for the UTF-8 `text` (`finder`
/// looks for `needle`), lower-casing it only up to the match: a piece at
/// a time, each lower-cased alone, and each checked to be UTF-8 as it is
/// reached (so bytes past the match are never read). That is exact
/// because every character lower-cases the same whatever surrounds it,
/// but for `Σ` (final or not by its neighbours): a piece holding one
/// gives up, for the whole text to go through `to_lowercase`.
fn lower_find_bytes(
    text: &[u8],
    finder: &memchr::memmem::Finder<'_>,
) -> Result<Option<usize>, LowerFind> {
    thread_local! {
        static LOWER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let needle = finder.needle().len();
    if needle == 0 {
        return Ok(Some(0));
    }
    LOWER.with(|l| {
        let mut lower = l.borrow_mut();
        lower.clear();
        // Small pieces first: most matches come early.
        let mut step = 256;
        let mut done = 0;
        while done < text.len() {
            let mut end = (done + step).min(text.len());
            // On to the next character's start (in UTF-8, a byte that does
            // not continue one).
            while text.get(end).is_some_and(|b| b & 0xc0 == 0x80) {
                end += 1;
            }
            step = (step * 2).min(64 << 10);
            let piece = &text[done..end];
            // A match ending in the new piece starts at most this far back
            // (a match of UTF-8 in UTF-8 starts on a character).
            let from = lower.len().saturating_sub(needle - 1);
            if piece.is_ascii() {
                lower.extend(piece.iter().map(u8::to_ascii_lowercase));
            } else {
                let piece = std::str::from_utf8(piece).map_err(|_| LowerFind::NotUtf8)?;
                if piece.contains('\u{3a3}') {
                    return Err(LowerFind::Sigma);
                }
                lower.extend_from_slice(piece.to_lowercase().as_bytes());
            }
            if let Some(i) = finder.find(&lower[from..]) {
                return Ok(Some(from + i));
            }
            done = end;
        }
        Ok(None)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The snippet as it was first written (collecting characters), to
    /// check the one that counts bytes against.
    fn snippet_by_chars(text: &str, at: usize) -> String {
        let at = (0..=at.min(text.len()))
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        let before: String = {
            let mut chars: Vec<char> = text[..at].chars().rev().take(SNIPPET_CHARS / 3).collect();
            chars.reverse();
            chars.into_iter().collect()
        };
        let after: String = text[at..]
            .chars()
            .take(SNIPPET_CHARS - before.chars().count())
            .collect();
        let joined = format!("{before}{after}")
            .split(crate::jstext::is_space)
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let mut out = String::new();
        if before.chars().count() < text[..at].chars().count() {
            out.push('…');
        }
        out.push_str(&joined);
        if at + after.len() < text.len() {
            out.push('…');
        }
        out
    }

    #[test]
    fn lower_find_finds_as_the_lower_case_text_does() {
        let texts = [
            String::new(),
            "plain WIDGET text".into(),
            format!("{}WIDGET", "x".repeat(5000)),
            format!("{}É widget", "a".repeat(4095)),
            format!("{}ΑΣ ΣΑ widget ΑΣ", "é".repeat(3000)),
            format!("{}\u{212a}elvin x\u{130}", "ü".repeat(2100)),
            format!("{}İİ{}", "ab".repeat(2047), "Kİ".repeat(3000)),
        ];
        let needles = [
            "",
            "widget",
            "w",
            "é widget",
            "σ",
            "ς",
            "ας",
            "kelvin",
            "xi",
            "i\u{307}",
            "ki",
            "aé",
            "ü\u{212a}",
            "zz",
        ];
        for t in &texts {
            for n in needles {
                assert_eq!(lower_find(t, n), t.to_lowercase().find(n), "{n:?} in {t:?}");
            }
        }
    }

    /// Texts whose snippets are easy to get wrong: empty, short, padded,
    /// multi-byte characters and wide ones on both sides of a cut.
    fn snippet_texts() -> Vec<String> {
        vec![
            String::new(),
            "x".into(),
            "  lead and trail  ".into(),
            format!("{}needle\n\nafter{}", "a ".repeat(100), " b".repeat(100)),
            format!("{}…{}…{}", "é".repeat(26), "x".repeat(80), "ü".repeat(90)),
            format!(
                "{}Ünïcødé\u{3000}项目 ΑΣ{}",
                "é\t".repeat(40),
                " ς".repeat(60)
            ),
            format!("{}{}{}", "😀".repeat(40), "w".repeat(81), "😀 ".repeat(40)),
            format!("\u{feff} {} \r\n", "w".repeat(300)),
            // Words between single white-space bytes of every kind, and
            // pieces that start or end on one.
            "ab\ncd\tef\u{b}gh\u{c}ij\rkl mn ".repeat(12),
            format!(
                "{}é{}\u{85}{}",
                "a".repeat(60),
                "b".repeat(70),
                "c ".repeat(50)
            ),
        ]
    }

    #[test]
    fn snippets_are_the_characters_around_the_match() {
        let texts = snippet_texts();
        for text in &texts {
            for at in 0..=text.len() + 2 {
                assert_eq!(
                    snippet(text, at),
                    snippet_by_chars(text, at),
                    "{text:?} at {at}"
                );
            }
        }
    }

    /// A snippet made from the few bytes around the match, as the index
    /// holds them, is the one made from the whole text; bytes it shows
    /// that are not UTF-8 give none.
    #[test]
    fn snippets_of_stored_bytes_are_the_texts() {
        let texts = snippet_texts();
        for text in &texts {
            for at in 0..=text.len() + 2 {
                assert_eq!(
                    snippet_stored(text.as_bytes(), at).as_deref(),
                    Some(snippet(text, at).as_str()),
                    "{text:?} at {at}"
                );
            }
        }
        let mut bad = format!("{}widget{}", "a".repeat(300), "b".repeat(300)).into_bytes();
        bad[310] = 0xff;
        assert_eq!(snippet_stored(&bad, 300), None);
        bad[310] = b'b';
        bad[290] = 0xc3;
        assert_eq!(snippet_stored(&bad, 300), None);
    }

    /// Looking for a word in stored bytes checks what it reads: bytes that
    /// are not UTF-8 before the match are refused, a `Σ` gives up.
    #[test]
    fn lower_find_in_bytes_checks_what_it_reads() {
        let finder = memchr::memmem::Finder::new(b"widget");
        let mut bytes = format!("{}é WIDGET", "a".repeat(600)).into_bytes();
        assert_eq!(lower_find_bytes(&bytes, &finder), Ok(Some(603)));
        bytes[10] = 0xff;
        assert_eq!(lower_find_bytes(&bytes, &finder), Err(LowerFind::NotUtf8));
        let sigma = format!("{}Σ widget", "é".repeat(100));
        assert_eq!(
            lower_find_bytes(sigma.as_bytes(), &finder),
            Err(LowerFind::Sigma)
        );
        assert_eq!(
            lower_find(&sigma, "widget"),
            sigma.to_lowercase().find("widget")
        );
    }

    /// A word is looked for in a line's raw bytes before the line is read
    /// as JSON; a character whose lower case holds ASCII must not let the
    /// line be skipped.
    #[test]
    fn lines_whose_lower_case_holds_the_word_are_read() {
        for c in (0x80..=0x10ffff).filter_map(char::from_u32) {
            let lower = c.to_lowercase().to_string();
            if lower.bytes().any(|b| b.is_ascii()) {
                assert!(
                    may_hide(c.to_string().as_bytes()),
                    "{c:?} lower-cases to {lower:?}"
                );
            }
        }
        let line = |text: &str| {
            let entry = serde_json::json!({"type": "message", "id": "a",
                "message": {"role": "user", "content": text}});
            format!("{entry}\n")
        };
        let found = |query: &str, text: &str| {
            let q = Query::parse(query).expect("query");
            let search = Search::new(&q, false);
            let mut hits = Vec::new();
            let l = line(text);
            search_lines(
                l.as_bytes(),
                0,
                &Arc::from(std::path::Path::new("s")),
                &search,
                &mut hits,
            )
            .expect("read");
            hits.len()
        };
        assert_eq!(found("kelvin", "7 \u{212a}elvin"), 1);
        assert_eq!(found("xi", "x\u{130}"), 1);
        assert_eq!(found("kelvin", "7 elvin"), 0);
    }

    #[test]
    fn snippets_are_short_and_on_one_line() {
        let text = format!("{}needle\n\nafter{}", "a ".repeat(100), " b".repeat(100));
        let at = text.find("needle").expect("needle");
        let s = snippet(&text, at);
        assert!(s.starts_with('…') && s.ends_with('…'));
        assert!(s.contains("needle after"));
        assert!(s.chars().count() <= SNIPPET_CHARS + 2);
    }

    #[test]
    fn matches_are_marked_by_their_bytes() {
        let c = format!(
            "{}Ünïcode NEEDLE and needle{}",
            "a ".repeat(200),
            " b".repeat(200)
        );
        let q = Query::parse("needle").expect("query");
        let m = q.match_ranges(&c);
        let words: Vec<&str> = m.iter().map(|r| &c[r.clone()]).collect();
        assert_eq!(words, ["NEEDLE", "needle"]);
        // Lower-casing that changes byte lengths keeps the ranges on the text.
        let q = Query::parse("İx").expect("query");
        let t = "aİxİx b";
        let got: Vec<&str> = q.match_ranges(t).iter().map(|r| &t[r.clone()]).collect();
        assert_eq!(got, ["İxİx"]);
        let q = Query::parse("\"and  needle\"").expect("query");
        let got: Vec<&str> = q.match_ranges(&c).iter().map(|r| &c[r.clone()]).collect();
        assert_eq!(got, ["and needle"]);
    }

    #[test]
    fn finds_in_tool_output() {
        let q = Query::parse("Needle").expect("query");
        let entry: serde_json::Map<String, Value> = serde_json::from_str(
            r#"{"type":"message","message":{"role":"toolResult","content":[{"type":"text","text":"x needle y"}]}}"#,
        )
        .expect("json");
        let texts = crate::session::content::search_texts(&entry);
        assert_eq!(texts[0].0, "toolResult");
        assert_eq!(q.find_in(&texts[0].1), Some(2));
    }
}
