//! pi's `/resume` search language over session summaries (tokens, quoted
//! phrases, `re:` patterns, fuzzy names and folders), its sort orders and
//! the threaded view of forks under the sessions they came from.

use crate::catalog::summary::SessionSummary;
use crate::jstext::{is_space as is_js_space, normalize_whitespace_lower, trim as js_trim};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// How the list is ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SortMode {
    /// Forks under the session they came from, newest activity first.
    #[default]
    Threaded,
    /// Newest first.
    Recent,
    /// Best match first (name, then text, then fuzzy), ties newest first.
    Relevance,
}

/// A query that could not be used; the list is then empty.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid regular expression: {0}")]
pub struct QueryError(pub String);

/// One search word or quoted phrase.
#[derive(Debug)]
pub enum Token {
    Fuzzy(String),
    Phrase(String),
}

/// A parsed query.
#[derive(Debug)]
pub enum Query {
    /// Nothing to filter by.
    Everything,
    Tokens(Vec<Token>),
    Regex(Box<fancy_regex::Regex>),
}

impl Query {
    pub fn parse(query: &str) -> Result<Query, QueryError> {
        let trimmed = js_trim(query);
        if trimmed.is_empty() {
            return Ok(Query::Everything);
        }
        if let Some(pattern) = trimmed.strip_prefix("re:") {
            let pattern = js_trim(pattern);
            if pattern.is_empty() {
                return Err(QueryError("Empty regex".to_string()));
            }
            return fancy_regex::RegexBuilder::new(pattern)
                .case_insensitive(true)
                .build()
                .map(|r| Query::Regex(Box::new(r)))
                .map_err(|e| QueryError(e.to_string()));
        }
        let mut tokens = Vec::new();
        let mut buf = String::new();
        let mut in_quote = false;
        let flush = |buf: &mut String, tokens: &mut Vec<Token>, phrase: bool| {
            let v = js_trim(buf).to_string();
            buf.clear();
            if !v.is_empty() {
                tokens.push(if phrase {
                    Token::Phrase(v)
                } else {
                    Token::Fuzzy(v)
                });
            }
        };
        for ch in trimmed.chars() {
            if ch == '"' {
                flush(&mut buf, &mut tokens, in_quote);
                in_quote = !in_quote;
            } else if !in_quote && is_js_space(ch) {
                flush(&mut buf, &mut tokens, false);
            } else {
                buf.push(ch);
            }
        }
        if in_quote {
            // Unbalanced quotes: plain white-space tokens, quotes included.
            let tokens = trimmed
                .split(is_js_space)
                .filter(|t| !t.is_empty())
                .map(|t| Token::Fuzzy(t.to_string()))
                .collect();
            return Ok(Query::Tokens(tokens));
        }
        flush(&mut buf, &mut tokens, false);
        Ok(Query::Tokens(tokens))
    }

    /// The score of a session (lower is better), or `None` when it does not match.
    pub fn score(&self, s: &SessionSummary) -> Option<f64> {
        match self {
            Query::Everything => Some(0.0),
            Query::Regex(re) => match_regex(s, re),
            Query::Tokens(tokens) => {
                let mut total = 0.0;
                for token in tokens {
                    total += match token {
                        Token::Phrase(p) => {
                            let phrase = normalize_whitespace_lower(p);
                            if phrase.is_empty() {
                                continue;
                            }
                            match_phrase(s, &phrase)?
                        }
                        Token::Fuzzy(v) => match_fuzzy(s, v)?,
                    };
                }
                Some(total)
            }
        }
    }
}

const TIER_WEIGHT: f64 = 1_000_000.0;
const TIER_NAME: f64 = 0.0;
const TIER_TEXT: f64 = 1.0;
const TIER_FUZZY: f64 = 2.0;

fn tier(t: f64, score: f64) -> f64 {
    t * TIER_WEIGHT + score
}

/// Words are looked for in the folded text: a word (never white space) is
/// in it exactly when it is in the lower-case text; see
/// [`crate::catalog::MessageText::folded`].
fn folded_contains(s: &SessionSummary, value: &str) -> bool {
    s.text
        .as_deref()
        .is_some_and(|t| t.folded_contains(value.as_bytes()))
}

fn match_literal(s: &SessionSummary, value: &str) -> Option<f64> {
    let name = s.name.as_deref().unwrap_or("").to_lowercase();
    if name.contains(value) {
        return Some(tier(TIER_NAME, fuzzy_match(value, &name).unwrap_or(0.0)));
    }
    let hit = s.id.to_lowercase().contains(value)
        || folded_contains(s, value)
        || s.cwd.to_lowercase().contains(value);
    hit.then_some(tier(TIER_TEXT, 0.0))
}

fn match_fuzzy(s: &SessionSummary, value: &str) -> Option<f64> {
    if let Some(score) = match_literal(s, &value.to_lowercase()) {
        return Some(score);
    }
    let best = [s.name.as_deref().unwrap_or(""), s.cwd.as_str()]
        .into_iter()
        .filter_map(|field| fuzzy_match(value, field))
        .reduce(f64::min)?;
    Some(tier(TIER_FUZZY, best))
}

fn match_phrase(s: &SessionSummary, phrase: &str) -> Option<f64> {
    let name = normalize_whitespace_lower(s.name.as_deref().unwrap_or(""));
    if name.contains(phrase) {
        return Some(tier(TIER_NAME, fuzzy_match(phrase, &name).unwrap_or(0.0)));
    }
    let hit = s.id.to_lowercase().contains(phrase)
        || folded_contains(s, phrase)
        || normalize_whitespace_lower(&s.cwd).contains(phrase);
    hit.then_some(tier(TIER_TEXT, 0.0))
}

fn match_regex(s: &SessionSummary, re: &fancy_regex::Regex) -> Option<f64> {
    let test = |t: &str| re.is_match(t).unwrap_or(false);
    if s.name.as_deref().is_some_and(|n| !n.is_empty() && test(n)) {
        return Some(tier(TIER_NAME, 0.0));
    }
    let text = || s.text.as_deref().is_some_and(|t| t.with_original(test));
    (test(&s.id) || text() || test(&s.cwd)).then_some(tier(TIER_TEXT, 0.0))
}

/// pi's fuzzy matcher: every query character in order, scored (lower is
/// better) by gaps, runs and word starts. Works on UTF-16 units, as pi does.
pub fn fuzzy_match(query: &str, text: &str) -> Option<f64> {
    let q: Vec<u16> = query.to_lowercase().encode_utf16().collect();
    let t: Vec<u16> = text.to_lowercase().encode_utf16().collect();
    if let Some(score) = fuzzy_units(&q, &t) {
        return Some(score);
    }
    let swapped = swap_letters_digits(&query.to_lowercase())?;
    let q: Vec<u16> = swapped.encode_utf16().collect();
    fuzzy_units(&q, &t).map(|s| s + 5.0)
}

/// `abc123` → `123abc` and back; `None` for any other shape.
fn swap_letters_digits(q: &str) -> Option<String> {
    let split =
        q.find(|c: char| c.is_ascii_digit() != q.starts_with(|c: char| c.is_ascii_digit()))?;
    let (a, b) = q.split_at(split);
    let letters = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_lowercase());
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    ((letters(a) && digits(b)) || (digits(a) && letters(b))).then(|| format!("{b}{a}"))
}

fn fuzzy_units(q: &[u16], t: &[u16]) -> Option<f64> {
    if q.is_empty() {
        return Some(0.0);
    }
    if q.len() > t.len() {
        return None;
    }
    let mut positions = Vec::with_capacity(q.len());
    let mut from = 0;
    for &c in q {
        let i = from + t[from..].iter().position(|&u| u == c)?;
        positions.push(i);
        from = i + 1;
    }
    let mut score = score_positions(t, &positions);
    let mut start = 0;
    while let Some(found) = find_units(&t[start..], q) {
        let at = start + found;
        for (k, p) in positions.iter_mut().enumerate() {
            *p = at + k;
        }
        score = score.min(score_positions(t, &positions));
        start = at + 1;
    }
    if q == t {
        score -= 100.0;
    }
    Some(score)
}

fn find_units(hay: &[u16], needle: &[u16]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn score_positions(t: &[u16], positions: &[usize]) -> f64 {
    let boundary = |u: u16| {
        char::from_u32(u32::from(u))
            .is_some_and(|c| is_js_space(c) || matches!(c, '-' | '_' | '.' | '/' | ':'))
    };
    let mut score = 0.0;
    // pi starts "the previous match" at -1, so a match at 0 extends a run.
    let mut last: isize = -1;
    let mut run = 0.0;
    for &i in positions {
        let i = i as isize;
        if last == i - 1 {
            run += 1.0;
            score -= run * 5.0;
        } else {
            run = 0.0;
            if last >= 0 {
                score += ((i - last - 1) * 2) as f64;
            }
        }
        if i == 0 || boundary(t[i as usize - 1]) {
            score -= 10.0;
        }
        score += i as f64 * 0.1;
        last = i;
    }
    score
}

impl Query {
    /// The lower-case plain words (not phrases) of a token query.
    pub(crate) fn literal_tokens(&self) -> Option<Vec<String>> {
        match self {
            Query::Tokens(t) => Some(
                t.iter()
                    .filter_map(|t| match t {
                        Token::Fuzzy(v) => Some(v.to_lowercase()),
                        Token::Phrase(_) => None,
                    })
                    .collect(),
            ),
            _ => None,
        }
    }

    pub(crate) fn parts(&self) -> Option<QueryParts<'_>> {
        match self {
            Query::Everything => None,
            Query::Regex(r) => Some(QueryParts::Regex(r)),
            Query::Tokens(t) => Some(QueryParts::Words(
                t.iter()
                    .map(|t| match t {
                        Token::Fuzzy(v) => (false, v.to_lowercase()),
                        Token::Phrase(p) => (true, normalize_whitespace_lower(p)),
                    })
                    .filter(|(_, w)| !w.is_empty())
                    .collect(),
            )),
        }
    }
}

/// Whether a session has a name that is not blank.
pub fn has_name(s: &SessionSummary) -> bool {
    s.name.as_deref().is_some_and(|n| !js_trim(n).is_empty())
}

/// pi's filter and sort: `sessions` must be newest first. Returns indices
/// into `sessions`. With no query the order is kept (threading is
/// [`threaded`]'s job).
pub fn filter_and_sort(
    sessions: &[SessionSummary],
    query: &Query,
    sort: SortMode,
    named_only: bool,
) -> Vec<usize> {
    let candidates = (0..sessions.len()).filter(|&i| !named_only || has_name(&sessions[i]));
    if matches!(query, Query::Everything) {
        return candidates.collect();
    }
    let candidates: Vec<usize> = candidates.collect();
    let mut scored = score_all(sessions, &candidates, query);
    if sort != SortMode::Recent {
        // Stable: ties stay newest first, as given.
        scored.sort_by(|a, b| {
            a.1.total_cmp(&b.1).then_with(|| {
                let (ma, mb) = (sessions[a.0].modified_ms, sessions[b.0].modified_ms);
                match (ma, mb) {
                    (Some(x), Some(y)) => y.cmp(&x),
                    _ => std::cmp::Ordering::Equal,
                }
            })
        });
    }
    scored.into_iter().map(|(i, _)| i).collect()
}

/// Scores `candidates` on every core, in their order.
fn score_all(
    sessions: &[SessionSummary],
    candidates: &[usize],
    query: &Query,
) -> Vec<(usize, f64)> {
    let score = |k: usize| {
        let i = candidates[k];
        query.score(&sessions[i]).map(|v| (i, v))
    };
    // Small chunks taken in turn: sessions differ a lot in size.
    crate::par::map(candidates.len(), 16, score)
        .into_iter()
        .flatten()
        .collect()
}

/// One row of the threaded view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadRow {
    pub index: usize,
    pub depth: usize,
    /// Last among its siblings.
    pub is_last: bool,
    /// For each ancestor level, whether a line continues below it.
    pub ancestor_continues: Vec<bool>,
}

/// A path as pi compares session paths: symlinks resolved when it exists.
pub fn path_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// [`path_key`] of many paths, each folder's resolved once: a file that is
/// no link resolves to its folder's resolution and its own name. (A link,
/// or a path that cannot be read, is resolved whole.)
#[derive(Default)]
struct PathKeys(HashMap<PathBuf, PathBuf>);

impl PathKeys {
    fn of(&mut self, path: &Path) -> PathBuf {
        let plain = std::fs::symlink_metadata(path).is_ok_and(|m| !m.file_type().is_symlink());
        match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) if plain && !dir.as_os_str().is_empty() => {
                let dir = match self.0.get(dir) {
                    Some(d) => d,
                    None => self.0.entry(dir.to_path_buf()).or_insert(path_key(dir)),
                };
                dir.join(name)
            }
            _ => path_key(path),
        }
    }
}

/// Forks and clones under the session they came from (header
/// `parentSession`), each level ordered by its subtree's latest activity.
pub fn threaded(sessions: &[SessionSummary], indices: &[usize]) -> Vec<ThreadRow> {
    let named = |i: usize| {
        sessions[i]
            .parent_session_path
            .as_deref()
            .filter(|p| !p.is_empty())
    };
    // Paths are resolved (as pi compares them) only when a header names a
    // parent.
    let mut resolve = PathKeys::default();
    let keys: Vec<PathBuf> = match indices.iter().any(|&i| named(i).is_some()) {
        true => indices
            .iter()
            .map(|&i| resolve.of(&sessions[i].path))
            .collect(),
        false => Vec::new(),
    };
    let by_key: HashMap<&PathBuf, usize> = keys.iter().enumerate().map(|(n, k)| (k, n)).collect();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); indices.len()];
    let mut roots: Vec<u32> = Vec::new();
    for (n, &i) in indices.iter().enumerate() {
        let parent = named(i)
            .and_then(|p| by_key.get(&resolve.of(Path::new(p))).copied())
            .filter(|&p| p != n);
        match parent {
            Some(p) => children[p].push(n as u32),
            None => roots.push(n as u32),
        }
    }
    // Latest activity per subtree, children before parents (no recursion:
    // a parent loop would otherwise never end).
    let mut latest: Vec<Option<i64>> = indices.iter().map(|&i| sessions[i].modified_ms).collect();
    let mut order = Vec::with_capacity(indices.len());
    let mut stack: Vec<u32> = roots.clone();
    let mut seen = vec![false; indices.len()];
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n as usize], true) {
            continue;
        }
        order.push(n);
        stack.extend(&children[n as usize]);
    }
    for &n in order.iter().rev() {
        for &c in &children[n as usize] {
            latest[n as usize] = match (latest[n as usize], latest[c as usize]) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
    }
    let key = |n: u32| latest[n as usize].map(|t| -t);
    crate::session::tree::sort_like_v8(&mut roots, key);
    for list in &mut children {
        crate::session::tree::sort_like_v8(list, key);
    }
    let mut rows = Vec::with_capacity(indices.len());
    let mut stack: Vec<(u32, usize, bool, Vec<bool>)> = roots
        .iter()
        .enumerate()
        .rev()
        .map(|(k, &n)| (n, 0, k + 1 == roots.len(), Vec::new()))
        .collect();
    let mut emitted = vec![false; indices.len()];
    while let Some((n, depth, is_last, continues)) = stack.pop() {
        if std::mem::replace(&mut emitted[n as usize], true) {
            continue;
        }
        let kids = &children[n as usize];
        for (k, &c) in kids.iter().enumerate().rev() {
            let mut next = continues.clone();
            next.push(depth > 0 && !is_last);
            stack.push((c, depth + 1, k + 1 == kids.len(), next));
        }
        rows.push(ThreadRow {
            index: indices[n as usize],
            depth,
            is_last,
            ancestor_continues: continues,
        });
    }
    // Sessions in a parent loop are reachable from no root: list them last.
    for (n, &i) in indices.iter().enumerate() {
        if !emitted[n] {
            rows.push(ThreadRow {
                index: i,
                depth: 0,
                is_last: true,
                ancestor_continues: Vec::new(),
            });
        }
    }
    rows
}

/// A query's parts as a search inside one text needs them.
pub(crate) enum QueryParts<'a> {
    Regex(&'a fancy_regex::Regex),
    /// (is a phrase, lower-case text)
    Words(Vec<(bool, String)>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn paths_resolve_a_folder_at_a_time_as_they_resolve_whole() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).expect("mkdir");
        std::fs::write(real.join("a.jsonl"), "{}").expect("write");
        std::fs::write(real.join("b.jsonl"), "{}").expect("write");
        // A folder reached through a link, a file that is a link, a
        // missing file, a relative path and one with `..` in it.
        let linked = tmp.path().join("linked");
        std::os::unix::fs::symlink(&real, &linked).expect("link");
        std::os::unix::fs::symlink(real.join("b.jsonl"), real.join("c.jsonl")).expect("link");
        let paths = [
            real.join("a.jsonl"),
            linked.join("a.jsonl"),
            linked.join("c.jsonl"),
            real.join("gone.jsonl"),
            linked.join("gone.jsonl"),
            PathBuf::from("relative.jsonl"),
            linked.join("../real/b.jsonl"),
        ];
        let mut keys = PathKeys::default();
        for p in &paths {
            assert_eq!(keys.of(p), path_key(p), "{}", p.display());
        }
    }

    fn session(path: &str, parent: Option<&str>, modified: i64) -> SessionSummary {
        SessionSummary {
            path: PathBuf::from(path),
            parent_session_path: parent.map(str::to_string),
            modified_ms: Some(modified),
            ..SessionSummary::default()
        }
    }

    #[test]
    fn forks_sit_under_their_parent_ordered_by_subtree_activity() {
        let s = vec![
            session("/s/a.jsonl", None, 10),
            session("/s/b.jsonl", Some("/s/a.jsonl"), 50),
            session("/s/c.jsonl", None, 40),
            session("/s/d.jsonl", Some("/s/b.jsonl"), 5),
            session("/s/e.jsonl", Some("/s/./a.jsonl"), 20),
            session("/s/f.jsonl", Some("/s/gone.jsonl"), 30),
        ];
        let rows = threaded(&s, &[0, 1, 2, 3, 4, 5]);
        let got: Vec<(usize, usize, bool)> =
            rows.iter().map(|r| (r.index, r.depth, r.is_last)).collect();
        // a (subtree latest 50) first, with b (50, child d) before e (20);
        // then c (40), then f (30, its parent is not listed).
        assert_eq!(
            got,
            [
                (0, 0, false),
                (1, 1, false),
                (3, 2, true),
                (4, 1, true),
                (2, 0, false),
                (5, 0, true)
            ]
        );
        assert_eq!(rows[2].ancestor_continues, [false, true]);
        // A parent loop still lists every session once.
        let looped = vec![
            session("/s/x.jsonl", Some("/s/y.jsonl"), 1),
            session("/s/y.jsonl", Some("/s/x.jsonl"), 2),
        ];
        assert_eq!(threaded(&looped, &[0, 1]).len(), 2);
    }

    /// Words are looked for in the folded text (lower case, white space
    /// collapsed) where pi looks in the lower-case text: the same answer
    /// only because lower-casing twice is lower-casing once, for every
    /// character, and a word holds no white space.
    #[test]
    fn the_folded_text_answers_words_as_the_lower_case_text() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            let lower = c.to_string().to_lowercase();
            assert_eq!(lower.to_lowercase(), lower, "{:?}", c);
        }
        let text = "ΑΣ ΣΑ\u{2028}Tree\t\t LABEL İx  \u{3000}ǅz";
        let lower = text.to_lowercase();
        let s = SessionSummary {
            text: Some(std::sync::Arc::new(crate::catalog::MessageText::new(
                text.to_string(),
            ))),
            ..SessionSummary::default()
        };
        for word in ["ας", "σα", "tree", "label", "i\u{307}x", "ǆz", "ee", "ς"] {
            assert_eq!(folded_contains(&s, word), lower.contains(word), "{word}");
        }
        assert!(folded_contains(&s, "tree label"));
        assert!(!folded_contains(&s, "tree\t"));
    }

    #[test]
    fn fuzzy_scores_like_pi() {
        // Word start, run of three: -10 + (-5) + 0.1 + (-10) + 0.2 ...
        assert!(fuzzy_match("abc", "xyz").is_none());
        // A match at 0 extends pi's initial run: -5 -10 (word start), then -10 +0.1.
        assert_eq!(
            fuzzy_match("ab", "ab"),
            Some(-5.0 - 10.0 - 10.0 + 0.1 - 100.0)
        );
        assert_eq!(fuzzy_match("read", "read thinking plain text"), Some(-59.4));
        assert!(fuzzy_match("opus", "openrouter/claude-opus").is_some());
        assert!(fuzzy_match("v2abc", "abcv2").is_none());
        assert!(fuzzy_match("abc2", "2abc").is_some());
    }

    #[test]
    fn parses_tokens_phrases_and_regex() {
        let Ok(Query::Tokens(t)) = Query::parse(r#"foo "node  cve" bar"#) else {
            panic!("tokens")
        };
        assert_eq!(t.len(), 3);
        assert!(matches!(&t[1], Token::Phrase(p) if p == "node  cve"));
        let Ok(Query::Tokens(t)) = Query::parse(r#"foo "bar"#) else {
            panic!("tokens")
        };
        assert!(matches!(&t[1], Token::Fuzzy(p) if p == "\"bar"));
        assert!(Query::parse("re:(").is_err());
        assert_eq!(
            Query::parse("re: ").err(),
            Some(QueryError("Empty regex".into()))
        );
    }
}
