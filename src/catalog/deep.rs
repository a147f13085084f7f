//! Deep search: the query run over every entry's text, tool output, bash
//! output, summaries and custom messages included, naming the entry of each hit.

use super::search::{Query, QueryParts};
use super::summary::SessionSummary;
use crate::jstext::normalize_whitespace_lower;
use crate::session::content::search_texts;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One entry that matches.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeepHit {
    pub path: PathBuf,
    pub entry_id: Option<String>,
    /// 1-based line of the entry in its file.
    pub line: u64,
    /// What matched: `user`, `assistant`, `toolResult`, `bashExecution`,
    /// `compaction`, `branch_summary`, `custom_message`, ...
    pub kind: String,
    /// A short piece of text around the match, on one line.
    pub snippet: String,
    /// The entry is on the current branch but a compaction cut it away:
    /// the model no longer sees it where pi resumes.
    pub compacted_away: bool,
    /// A wider piece around the match, on one line, for a screen that
    /// centres the match in whatever width it has.
    #[serde(skip)]
    pub context: String,
    /// Where the query's words match in `context`, as byte ranges in order.
    #[serde(skip)]
    pub matched: Vec<Range<usize>>,
}

/// Searches `sessions` (in parallel) and returns hits in session order, then
/// file order. Files that cannot be read are skipped and named in the error list.
pub fn deep_search(
    sessions: &[SessionSummary],
    query: &Query,
) -> (Vec<DeepHit>, Vec<super::CatalogProblem>) {
    let mut hits = Vec::new();
    let problems = deep_search_each(sessions, query, &mut |found| {
        hits.extend_from_slice(found);
        true
    });
    (hits, problems)
}

/// Searches `sessions` on every core and hands each session's hits to
/// `found` in session order (newest first, as the list is given), each as
/// soon as it and every session before it are searched: the first screen
/// of hits is shown while later sessions are still being read. `found`
/// returns false to stop the search. Files that cannot be read are skipped
/// and named in the returned list.
pub fn deep_search_each(
    sessions: &[SessionSummary],
    query: &Query,
    found: &mut dyn FnMut(&[DeepHit]) -> bool,
) -> Vec<super::CatalogProblem> {
    let next = AtomicUsize::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut problems = Vec::new();
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::channel();
        for _ in 0..threads {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(s) = sessions.get(i) else { break };
                    if tx.send((i, search_file(s, query))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Sessions done out of turn wait here until those before them are.
        let mut waiting: std::collections::BTreeMap<usize, Vec<DeepHit>> = Default::default();
        let mut due = 0;
        for (i, r) in rx {
            match r {
                Ok(hits) => {
                    waiting.insert(i, hits);
                }
                Err(p) => {
                    problems.push(p);
                    waiting.insert(i, Vec::new());
                }
            }
            while let Some(hits) = waiting.remove(&due) {
                due += 1;
                if !hits.is_empty() && !stop.load(Ordering::Relaxed) && !found(&hits) {
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    problems
}

fn search_file(s: &SessionSummary, query: &Query) -> Result<Vec<DeepHit>, super::CatalogProblem> {
    let file = crate::session::file::open_regular(&s.path)
        .map_err(|e| super::CatalogProblem::new(&s.path, e.to_string()))?;
    let mut reader = BufReader::with_capacity(256 << 10, file);
    let needle = query.raw_prefilter();
    let mut buf = Vec::new();
    let mut lower = Vec::new();
    let mut hits = Vec::new();
    let mut number = 0u64;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => return Err(super::CatalogProblem::new(&s.path, e.to_string())),
        }
        number += 1;
        if let Some(needle) = &needle {
            lower.clear();
            lower.extend(buf.iter().map(u8::to_ascii_lowercase));
            let escaped = memchr::memmem::find(&buf, b"\\u").is_some()
                || memchr::memmem::find(&buf, b"\\/").is_some();
            if !escaped && memchr::memmem::find(&lower, needle.as_bytes()).is_none() {
                continue;
            }
        }
        let text = String::from_utf8_lossy(&buf);
        let Ok(Value::Object(entry)) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        for (kind, field) in search_texts(&entry) {
            if let Some(at) = query.find_in(&field) {
                let context = context(&field, at);
                let matched = query.match_ranges(&context);
                hits.push(DeepHit {
                    path: s.path.clone(),
                    entry_id: entry.get("id").and_then(Value::as_str).map(str::to_string),
                    line: number,
                    kind,
                    snippet: snippet(&field, at),
                    compacted_away: false,
                    context,
                    matched,
                });
                break;
            }
        }
    }
    mark_compacted_away(&s.path, &mut hits);
    Ok(hits)
}

/// Marks the hits the model no longer sees where pi resumes. The tree is
/// read only for a file with hits; one that cannot be read leaves them
/// unmarked (the hits themselves stand).
fn mark_compacted_away(path: &std::path::Path, hits: &mut [DeepHit]) {
    use crate::session::{Detail, Memory, Session};
    if hits.is_empty() {
        return;
    }
    let Ok(session) = Session::open_with(path, Detail::Outline) else {
        return;
    };
    let memory = session.remembered_at(session.leaf());
    for h in hits {
        let at = session
            .entries
            .binary_search_by_key(&h.line, |e| u64::from(e.line));
        if let Ok(i) = at {
            h.compacted_away = memory.memory(i as u32) == Memory::CompactedAway;
        }
    }
}

const SNIPPET_CHARS: usize = 80;

/// About [`SNIPPET_CHARS`] characters around byte `at`, white space collapsed.
fn snippet(text: &str, at: usize) -> String {
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
    let joined = normalize_spaces(&format!("{before}{after}"));
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

/// Characters kept on each side of the match in a hit's context.
const CONTEXT_CHARS: usize = 150;

/// Up to [`CONTEXT_CHARS`] characters each side of byte `at`, white space
/// collapsed, `…` where the text goes on.
fn context(text: &str, at: usize) -> String {
    let at = (0..=at.min(text.len()))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let start = text[..at]
        .char_indices()
        .rev()
        .nth(CONTEXT_CHARS - 1)
        .map_or(0, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .nth(CONTEXT_CHARS)
        .map_or(text.len(), |(i, _)| at + i);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(&normalize_spaces(&text[start..end]));
    if end < text.len() {
        out.push('…');
    }
    out
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

fn normalize_spaces(s: &str) -> String {
    s.split(crate::jstext::is_space)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
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
        let mut found: Vec<Range<usize>> = Vec::new();
        let add_regex = |re: &fancy_regex::Regex, found: &mut Vec<Range<usize>>| {
            for m in re.find_iter(text).take(64).flatten() {
                if !m.range().is_empty() {
                    found.push(m.range());
                }
            }
        };
        match self.parts() {
            None => {}
            Some(QueryParts::Regex(re)) => add_regex(re, &mut found),
            Some(QueryParts::Words(words)) => {
                let (lower, from) = lower_with_offsets(text);
                for (phrase, w) in words {
                    if phrase {
                        // A phrase matches across any run of white space.
                        let pattern = w
                            .split(' ')
                            .map(|p| fancy_regex::escape(p).into_owned())
                            .collect::<Vec<_>>()
                            .join(r"\s+");
                        if let Ok(re) = fancy_regex::RegexBuilder::new(&pattern)
                            .case_insensitive(true)
                            .build()
                        {
                            add_regex(&re, &mut found);
                        }
                        continue;
                    }
                    let mut start = 0;
                    while let Some(i) = lower[start..].find(w.as_str()) {
                        let (a, b) = (start + i, start + i + w.len());
                        found.push(from[a]..from[b]);
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

    /// Where the query matches in `text` (a byte offset), if it does.
    pub fn find_in(&self, text: &str) -> Option<usize> {
        match self.parts()? {
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
                    let hit = if phrase {
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn contexts_mark_every_match_by_its_bytes() {
        let text = format!(
            "{}Ünïcode NEEDLE and needle{}",
            "a ".repeat(200),
            " b".repeat(200)
        );
        let at = text.find("NEEDLE").expect("needle");
        let c = context(&text, at);
        assert!(c.starts_with('…') && c.ends_with('…'));
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
        let texts = search_texts(&entry);
        assert_eq!(texts[0].0, "toolResult");
        assert_eq!(q.find_in(&texts[0].1), Some(2));
    }
}
