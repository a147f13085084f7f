//! `piscope ls`: the catalog from the shell, as a table for reading or as
//! pi's own session-list JSON; `--query` and `--deep` search it.

use super::args::ListArgs;
use super::warn;
use crate::catalog::search::deep::{DeepHit, deep_search_mapped};
use crate::catalog::search::deep_index::DeepIndex;
use crate::catalog::search::touched::{FilePattern, shown_path};
use crate::catalog::search::touched_index::{TouchedIndex, TouchedSession, sessions_touching};
use crate::catalog::usage::{self, UsageCache};
use crate::catalog::{
    self, Cache, Layout, LoadOptions, Query, Scope, SessionSummary, SortMode, Surroundings,
    subagents,
};
use crate::jstext::date::now_ms;
use crate::safe_text::{clean_line, fit, push_sanitized, sanitize};
use crate::session::line::raw_json::push_json_string;
use crate::session::tree::entry_line::shorten_home;
use anyhow::Result;
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

pub fn run(args: ListArgs, out: &mut dyn Write) -> Result<()> {
    let mut problems = Vec::new();
    let mut folder = catalog::locate(
        &Surroundings::of_process(args.session_dir.clone()),
        &mut problems,
    );
    if args.archived {
        // piscope's archive, in pi's layout, seen from the same folder.
        match crate::catalog::housekeeping::archive::archived_folder(&folder.cwd) {
            Some(f) if f.dir.is_dir() => folder = f,
            _ => {
                if args.json {
                    writeln!(out, "[]")?;
                }
                return Ok(());
            }
        }
    }
    // The archive's caches are kept apart from the sessions folder's: each
    // cache answers for the files of one folder, and a warm list counts on
    // holding no other.
    // `None` with `--no-cache`: then every cache below is disabled.
    let cache_dir = match args.no_cache {
        true => None,
        false => catalog::cache::default_dir().map(|d| match args.archived {
            true => crate::catalog::housekeeping::archive::cache_dir(&d),
            false => d,
        }),
    };
    let subagents_cache = cache_dir.as_deref().map(subagents::cache_dir);
    // A deep search's index is read while the files are listed: neither
    // waits on the other.
    let deep_index = match (args.deep, cache_dir.clone()) {
        (true, Some(dir)) => Some(std::thread::spawn(move || DeepIndex::open(dir))),
        _ => None,
    };
    let query = Query::parse(args.query.as_deref().unwrap_or(""));
    let mut cache = match cache_dir.clone() {
        Some(dir) => Cache::open(dir),
        None => Cache::disabled(),
    };
    let options = LoadOptions {
        scope: if args.all { Scope::All } else { Scope::Current },
        with_text: args.query.is_some() && !args.deep,
        // The table's cost column; pi's JSON has none.
        with_usage: !args.json,
    };
    let files = catalog::list(&folder, options.scope, &mut cache);
    let subfolders = files.subfolders();
    let everything = matches!(query, Ok(Query::Everything));
    let span = args.span(crate::jstext::date::now_ms());
    if args.json
        && everything
        && !args.deep
        && args.touched.is_none()
        && !args.named
        && span.is_all()
    {
        // Every file as the cache saw it: the rows come from its records,
        // each parent's with its subagent sessions.
        let may_have = subagents::may_have(&folder, &subfolders);
        if let Some(mut list) = catalog::CachedList::of(&folder, &files, &mut cache, may_have) {
            let sessions = list.take_sessions();
            let children = match may_have {
                true => subagents::load(
                    &folder,
                    options.scope,
                    &subfolders,
                    &sessions,
                    &subagents::ReadCalls::default(),
                    subagents_cache.as_deref(),
                ),
                // The cache holds the files listed and no other.
                false => subagents::load_top_level(
                    &sessions,
                    &|p| list.last_activity(&cache, p),
                    options.scope,
                    subagents_cache.as_deref(),
                ),
            };
            problems.extend(list.problems().iter().cloned());
            problems.extend(children.problems.iter().cloned());
            for p in problems.iter().chain(files.problems()) {
                warn(p);
            }
            list.write_json(
                &|path, row| push_children(&children, path, row, &mut vec![path]),
                out,
            )?;
            std::mem::forget(cache);
            return Ok(());
        }
    }
    // Neither is taken apart on the way out: the cache is saved already,
    // and freeing thousands of records and summaries would cost the command
    // a tenth of its time.
    let mut cat = std::mem::ManuallyDrop::new(catalog::load_listed(
        &folder,
        files,
        options,
        &mut cache,
        &mut |_| {},
    ));
    std::mem::forget(cache);
    problems.append(&mut cat.problems);
    // The child sessions subagents wrote outside pi's list, under their
    // parents: a field of their own in the JSON, rows under them here.
    let children = if everything && !args.deep && args.touched.is_none() {
        subagents::load(
            &folder,
            options.scope,
            &subfolders,
            &cat.sessions,
            &cat.calls,
            subagents_cache.as_deref(),
        )
    } else {
        subagents::Children::default()
    };
    for p in &children.problems {
        problems.push(p.clone());
    }
    for p in &problems {
        warn(p);
    }
    let query = match query {
        Ok(q) => q,
        Err(e) => {
            // As in pi: an invalid pattern lists nothing, and says why.
            warn(&e);
            if args.json {
                writeln!(out, "[]")?;
            }
            return Ok(());
        }
    };
    // The time span, a filter of its own beside pi's query: the sessions
    // last active in it.
    let in_span: Vec<SessionSummary>;
    let sessions = if span.is_all() {
        &cat.sessions
    } else {
        in_span = cat
            .sessions
            .iter()
            .filter(|s| span.holds(s.modified_ms))
            .cloned()
            .collect();
        &in_span
    };
    let sort = args.sort.map(SortMode::from).unwrap_or_default();
    if args.deep {
        let named: Vec<SessionSummary>;
        let chosen = if args.named {
            named = sessions
                .iter()
                .filter(|s| catalog::search::query::has_name(s))
                .cloned()
                .collect();
            &named
        } else {
            sessions
        };
        // Hits are written as each session's are found, newest first.
        let mut written = 0usize;
        let mut failed = None;
        if args.json {
            out.write_all(b"[")?;
        }
        let index = deep_index
            .and_then(|opening| opening.join().ok())
            .unwrap_or_else(DeepIndex::disabled);
        // Each session's hits are printed into bytes on the thread that
        // found them; here they are only written, in order.
        let print = |hits: Vec<DeepHit>| {
            if args.json {
                hits_json(hits)
            } else {
                hits_text(hits)
            }
        };
        let problems = deep_search_mapped(chosen, &query, &index, &print, &mut |printed| {
            let r = write_printed(printed, &mut written, out);
            r.map_err(|e| failed = Some(e)).is_ok()
        });
        if let Err(e) = index.save() {
            warn(&format!("could not save the deep-search index: {e}"));
        }
        // Saved: taking its records apart would cost the command a tenth of
        // its time.
        std::mem::forget(index);
        if let Some(e) = failed {
            return Err(e.into());
        }
        if args.json {
            out.write_all(b"]\n")?;
        }
        for p in &problems {
            warn(p);
        }
        return Ok(());
    }
    let mut picked = catalog::filter_and_sort(sessions, &query, sort, args.named);
    if !args.json && !children.children.is_empty() {
        // A child of pi's list is shown under its parent, when its
        // parent's row is there to show it.
        let shown: HashSet<&Path> = picked.iter().map(|&i| sessions[i].path.as_path()).collect();
        picked.retain(|&i| {
            let parent = children.listed_parent(&sessions[i].path);
            !parent.is_some_and(|p| shown.contains(p))
        });
    }
    if let Some(pattern) = &args.touched {
        // The sessions listed, in the list's order, that touched the file.
        let chosen: Vec<SessionSummary> = picked.iter().map(|&i| sessions[i].clone()).collect();
        let index = match cache_dir.clone() {
            Some(dir) => TouchedIndex::open(dir),
            None => TouchedIndex::disabled(),
        };
        let (found, problems) = sessions_touching(&chosen, pattern, &index);
        if let Err(e) = index.save() {
            warn(&format!("could not save the touched-files index: {e}"));
        }
        for p in &problems {
            warn(p);
        }
        if args.json {
            write_touched_json(&chosen, &found, out)?;
        } else {
            write_touched_text(&chosen, &found, pattern, out)?;
        }
        return Ok(());
    }
    let rows: Vec<catalog::ThreadRow> =
        if sort == SortMode::Threaded && matches!(query, Query::Everything) && !args.json {
            catalog::threaded(sessions, &picked)
        } else {
            picked
                .iter()
                .map(|&index| catalog::ThreadRow {
                    index,
                    depth: 0,
                    is_last: true,
                    ancestor_continues: Vec::new(),
                })
                .collect()
        };
    if args.json {
        write_json(sessions, &rows, &children, out)?;
    } else {
        let searched = !matches!(query, Query::Everything) || args.named;
        // The cost column is each session's own spend, as in the browser: a
        // fork's copied turns are its parent's (see `piscope stats`). Files
        // the usage could not be read from were named by the catalog already.
        let mut usage_cache = match cache_dir.clone() {
            Some(dir) => UsageCache::open(dir),
            None => UsageCache::disabled(),
        };
        // What the trash still holds of a session counts too: money spent
        // stays spent after a prune.
        let (removed, trash_problems) = usage::removed_in_trash(&cat.folder);
        trash_problems.iter().for_each(|p| warn(p));
        let book = usage::load(&cat.folder, &mut usage_cache, &removed);
        let own = |s: &SessionSummary| book.spent(&s.path).map_or(s.cost, |(all, _)| all.cost);
        write_table(
            &cat.folder,
            sessions,
            &rows,
            (args.all, searched),
            &own,
            &children,
            out,
        )?;
    }
    Ok(())
}

/// One session's deep-search hits as printed: JSON array items each after
/// a comma (the first one's is dropped when nothing came before), or one
/// line each; and the error that cut them short, if one did.
struct Printed {
    bytes: Vec<u8>,
    hits: usize,
    error: Option<std::io::Error>,
}

/// Writes a session's printed hits after those `written` so far.
fn write_printed(p: Printed, written: &mut usize, out: &mut dyn Write) -> std::io::Result<()> {
    let bytes = match p.bytes.split_first() {
        Some((b',', rest)) if *written == 0 => rest,
        _ => &p.bytes[..],
    };
    out.write_all(bytes)?;
    *written += p.hits;
    p.error.map_or(Ok(()), Err)
}

/// Hits as JSON array items, each after a comma, as `serde_json` writes a
/// [`DeepHit`] (a test holds them to it). Each hit is dropped once printed:
/// a session's hits and their print are not held whole at once.
fn hits_json(hits: Vec<DeepHit>) -> Printed {
    // Room for them all, as near as can be told without escaping them.
    let room = hits.iter().map(|h| {
        let id = h.entry_id.as_ref().map_or(4, |i| i.len());
        h.path.as_os_str().len() + id + h.kind.len() + h.snippet.len() + 96
    });
    let mut bytes = Vec::with_capacity(room.sum());
    // Hits of one session share their path: escaped once.
    let mut path: Option<(Arc<Path>, Vec<u8>)> = None;
    let count = hits.len();
    for (n, h) in hits.into_iter().enumerate() {
        bytes.push(b',');
        if path.as_ref().is_none_or(|(p, _)| *p != h.path) {
            let Some(s) = h.path.to_str() else {
                // As serde_json refuses it, having written what it had.
                let error = serde_json::to_writer(&mut bytes, &h).err().map(Into::into);
                return Printed {
                    bytes,
                    hits: n,
                    error,
                };
            };
            let mut escaped = Vec::with_capacity(s.len() + 2);
            push_json_string(&mut escaped, s);
            path = Some((h.path.clone(), escaped));
        }
        bytes.extend_from_slice(b"{\"path\":");
        if let Some((_, p)) = &path {
            bytes.extend_from_slice(p);
        }
        bytes.extend_from_slice(b",\"entryId\":");
        match &h.entry_id {
            Some(id) => push_json_string(&mut bytes, id),
            None => bytes.extend_from_slice(b"null"),
        }
        bytes.extend_from_slice(b",\"line\":");
        push_u64(&mut bytes, h.line);
        bytes.extend_from_slice(b",\"kind\":");
        push_json_string(&mut bytes, &h.kind);
        bytes.extend_from_slice(b",\"snippet\":");
        push_json_string(&mut bytes, &h.snippet);
        bytes.extend_from_slice(if h.compacted_away {
            b",\"compactedAway\":true}"
        } else {
            b",\"compactedAway\":false}"
        });
    }
    Printed {
        bytes,
        hits: count,
        error: None,
    }
}

fn push_u64(out: &mut Vec<u8>, n: u64) {
    let (digits, from) = crate::jstext::date::decimal(n, 1);
    out.extend_from_slice(&digits[from..]);
}

/// Hits as lines, each naming its session, entry, kind and snippet (each
/// dropped once printed, as in [`hits_json`]).
fn hits_text(hits: Vec<DeepHit>) -> Printed {
    let mut text = String::with_capacity(hits.len() * 200);
    let mut path: Option<(Arc<Path>, String)> = None;
    let count = hits.len();
    for h in hits {
        if path.as_ref().is_none_or(|(p, _)| *p != h.path) {
            let shown = sanitize(&h.path.display().to_string());
            path = Some((h.path.clone(), shown));
        }
        if let Some((_, p)) = &path {
            text.push_str(p);
        }
        text.push_str("  ");
        push_sanitized(&mut text, h.entry_id.as_deref().unwrap_or("-"));
        text.push_str("  ");
        push_sanitized(&mut text, &h.kind);
        // The model no longer sees such an entry where pi resumes.
        if h.compacted_away {
            text.push_str(" (compacted away)");
        }
        text.push_str(": ");
        push_sanitized(&mut text, &h.snippet);
        text.push('\n');
    }
    Printed {
        bytes: text.into_bytes(),
        hits: count,
        error: None,
    }
}

fn write_json(
    sessions: &[SessionSummary],
    rows: &[catalog::ThreadRow],
    children: &subagents::Children,
    out: &mut dyn Write,
) -> Result<()> {
    // Rows gather in one buffer, handed on every 64 KB.
    const FLUSH: usize = 1 << 16;
    let mut o = Vec::with_capacity(FLUSH + 4096);
    o.push(b'[');
    let mut first = true;
    for row in rows {
        let s = &sessions[row.index];
        if s.skipped_by_pi.is_some() {
            continue;
        }
        if !first {
            o.push(b',');
        }
        first = false;
        catalog::summary::list_json::push_session(s, &mut o);
        push_children(children, &s.path, &mut o, &mut vec![s.path.as_path()]);
        if o.len() >= FLUSH {
            out.write_all(&o)?;
            o.clear();
        }
    }
    o.extend_from_slice(b"]\n");
    out.write_all(&o)?;
    Ok(())
}

/// The children of the session whose row `o` ends with, if it has any:
/// the row's last `}` becomes `,"subagents":[...]}`, each child a row of
/// pi's list's shape with its `layout` and how its parent was told
/// (`parentBy`), and its own children in its own `subagents`. pi's fields
/// are left as they are.
fn push_children<'a>(
    children: &'a subagents::Children,
    parent: &Path,
    o: &mut Vec<u8>,
    up: &mut Vec<&'a Path>,
) {
    if children.children.is_empty() {
        return;
    }
    let kids = children.of(parent);
    if kids.is_empty() || o.last() != Some(&b'}') {
        return;
    }
    o.pop();
    o.extend_from_slice(b",\"subagents\":[");
    for (n, c) in kids.iter().enumerate() {
        if n > 0 {
            o.push(b',');
        }
        catalog::summary::list_json::push_session(&c.summary, o);
        o.pop();
        let layout = c.layout.name();
        o.extend_from_slice(format!(",\"layout\":\"{layout}\"").as_bytes());
        let by = subagents::ParentBy::name(c.parent_by);
        o.extend_from_slice(format!(",\"parentBy\":\"{by}\"}}").as_bytes());
        // A loop of parents is cut where it closes.
        if !up.contains(&c.summary.path.as_path()) {
            up.push(&c.summary.path);
            push_children(children, &c.summary.path, o, up);
            up.pop();
        }
    }
    o.extend_from_slice(b"]}");
}

/// One session of `ls --touched --json`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TouchedJson<'a> {
    path: &'a std::path::Path,
    id: &'a str,
    cwd: &'a str,
    name: Option<&'a str>,
    modified: Option<String>,
    touches: Vec<TouchJson<'a>>,
}

/// One entry's touch of a file, in `ls --touched --json`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct TouchJson<'a> {
    line: u64,
    entry_id: Option<&'a str>,
    timestamp: Option<String>,
    tool: &'static str,
    file: &'a str,
    /// The call's result is an error.
    failed: bool,
    /// Only named in a bash command.
    weak: bool,
}

/// `ls --touched --json`: every session that touched the file, in the
/// list's order, with every entry that touched it, newest first.
fn write_touched_json(
    sessions: &[SessionSummary],
    found: &[TouchedSession],
    out: &mut dyn Write,
) -> Result<()> {
    let iso = |ms: Option<i64>| ms.map(crate::jstext::date::format_iso);
    let rows: Vec<TouchedJson> = found
        .iter()
        .map(|t| {
            let s = &sessions[t.index];
            TouchedJson {
                path: &s.path,
                id: &s.id,
                cwd: &s.cwd,
                name: s.name.as_deref(),
                modified: iso(s.modified_ms),
                touches: t
                    .touches
                    .iter()
                    .map(|h| TouchJson {
                        line: h.line,
                        entry_id: h.entry_id.as_deref(),
                        timestamp: iso(h.time_ms),
                        tool: h.tool.name(),
                        file: &h.file,
                        failed: h.failed,
                        weak: h.tool.weak(),
                    })
                    .collect(),
            }
        })
        .collect();
    serde_json::to_writer(&mut *out, &rows)?;
    writeln!(out)?;
    Ok(())
}

/// `ls --touched`: each session that touched the file (its path, title
/// and project), then one line per entry that touched it, newest first:
/// when (UTC), the entry, the tool (`bash?` for a command that only names
/// it, `failed` when the call's result is an error) and the file, relative
/// to the session's cwd when inside it.
fn write_touched_text(
    sessions: &[SessionSummary],
    found: &[TouchedSession],
    pattern: &FilePattern,
    out: &mut dyn Write,
) -> Result<()> {
    if found.is_empty() {
        writeln!(out, "no session touched {}", sanitize(pattern.text()))?;
        return Ok(());
    }
    let home = std::env::var("HOME").ok();
    let mut text = String::new();
    for t in found {
        let s = &sessions[t.index];
        text.push_str(&sanitize(&s.path.display().to_string()));
        text.push_str("  ");
        text.push_str(&clean_line(&one_line(s.title())));
        text.push_str("  (");
        text.push_str(&clean_line(&shorten_home(&s.cwd, home.as_deref())));
        text.push_str(")\n");
        for h in &t.touches {
            let when = h.time_ms.map_or("-".repeat(16), |ms| {
                crate::jstext::date::format_iso(ms)
                    .get(..16)
                    .unwrap_or("")
                    .replace('T', " ")
            });
            let tool = match (h.tool.weak(), h.failed) {
                (true, _) => "bash?".to_string(),
                (false, true) => format!("{} failed", h.tool.name()),
                (false, false) => h.tool.name().to_string(),
            };
            let shown = shown_path(&h.file, t.cwd.as_deref().unwrap_or(""));
            text.push_str(&format!(
                "  {when}  {:<8}  {tool:<12}  {}\n",
                sanitize(h.entry_id.as_deref().unwrap_or("-")),
                sanitize(shown)
            ));
        }
    }
    out.write_all(text.as_bytes())?;
    Ok(())
}

const TITLE_WIDTH: usize = 56;

/// The table for reading; `all` and `searched` say what an empty one
/// means (nothing anywhere, nothing here, nothing that matches).
fn write_table(
    folder: &catalog::SessionsFolder,
    sessions: &[SessionSummary],
    rows: &[catalog::ThreadRow],
    (all, searched): (bool, bool),
    own_cost: &dyn Fn(&SessionSummary) -> f64,
    children: &subagents::Children,
    out: &mut dyn Write,
) -> Result<()> {
    if rows.is_empty() && children.children.is_empty() {
        let hint = match (folder.layout, all, searched) {
            (_, _, true) => "no session matches",
            (_, true, false) => "no sessions yet",
            (Layout::PerProject, false, false) => "no sessions here; try --all",
            (Layout::Flat, false, false) => "no sessions for this folder; try --all",
        };
        writeln!(
            out,
            "{hint} (sessions folder: {})",
            sanitize(&folder.dir.display().to_string())
        )?;
        return Ok(());
    }
    let home = std::env::var("HOME").ok();
    let now = now_ms();
    let with_children = !children.children.is_empty();
    write!(
        out,
        "{:<TITLE_WIDTH$}  {:<28}  {:>5}  {:>4}  {:>8}",
        "SESSION", "PROJECT", "MSGS", "AGE", "COST"
    )?;
    if with_children {
        write!(out, "  {:>15}", "WITH SUBAGENTS")?;
    }
    writeln!(out)?;
    let line = |s: &SessionSummary, prefix: &str, out: &mut dyn Write| -> std::io::Result<()> {
        let mark = if s.name.is_some() { "★ " } else { "" };
        let title = format!("{prefix}{mark}{}", one_line(s.title()));
        let project = shorten_home(&s.cwd, home.as_deref());
        write!(
            out,
            "{}  {}  {:>5}  {:>4}  {:>8}",
            fit(&clean_line(&title), TITLE_WIDTH),
            fit(&clean_line(&project), 28),
            s.message_count,
            s.modified_ms
                .map_or("?".to_string(), |m| catalog::summary::age(now - m)),
            format!("${:.2}", own_cost(s)),
        )?;
        let below = children.below(&s.path);
        if !below.is_empty() {
            let all = own_cost(s) + below.iter().map(|c| own_cost(&c.summary)).sum::<f64>();
            write!(out, "  {:>15}", format!("${all:.2}"))?;
        }
        writeln!(out)
    };
    // A session's children under it, each level indented once more.
    let child_lines =
        |s: &SessionSummary, prefix: &str, out: &mut dyn Write| -> std::io::Result<()> {
            let mut todo: Vec<(&subagents::Child, usize)> = children
                .of(&s.path)
                .into_iter()
                .rev()
                .map(|c| (c, 1))
                .collect();
            let mut seen = std::collections::HashSet::from([s.path.as_path()]);
            while let Some((c, depth)) = todo.pop() {
                if !seen.insert(&c.summary.path) {
                    continue;
                }
                let pad = format!("{prefix}{}↳ ", "  ".repeat(depth));
                line(&c.summary, &pad, out)?;
                todo.extend(
                    children
                        .of(&c.summary.path)
                        .into_iter()
                        .rev()
                        .map(|k| (k, depth + 1)),
                );
            }
            Ok(())
        };
    for row in rows {
        let s = &sessions[row.index];
        let mut prefix = String::new();
        for &c in row.ancestor_continues.iter().skip(1) {
            prefix.push_str(if c { "│  " } else { "   " });
        }
        if row.depth > 0 {
            prefix.push_str(if row.is_last { "└─ " } else { "├─ " });
        }
        line(s, &prefix, out)?;
        let under: String = prefix
            .chars()
            .map(|c| if c == '├' || c == '│' { '│' } else { ' ' })
            .collect();
        child_lines(s, &under, out)?;
    }
    let orphans: Vec<&subagents::Child> = children
        .children
        .iter()
        .filter(|c| c.parent.is_none())
        .collect();
    if !orphans.is_empty() {
        writeln!(out, "subagent sessions of no known parent:")?;
        for c in orphans {
            line(&c.summary, "↳ ", out)?;
            child_lines(&c.summary, "", out)?;
        }
    }
    Ok(())
}

/// One line of text: line breaks and tabs become spaces (other control
/// characters are made visible by `clean_line`).
fn one_line(s: &str) -> String {
    s.split(['\n', '\r', '\t'])
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, id: Option<&str>, kind: &str, snippet: &str, cut: bool) -> DeepHit {
        DeepHit {
            path: Arc::from(Path::new(path)),
            entry_id: id.map(Into::into),
            line: 1234567,
            kind: kind.into(),
            snippet: snippet.to_string(),
            compacted_away: cut,
        }
    }

    fn odd_hits() -> Vec<DeepHit> {
        let every_ascii: String = (0u8..0x80).map(char::from).collect();
        vec![
            hit(
                "/s/a.jsonl",
                Some("ab12"),
                "user",
                "plain widget text",
                false,
            ),
            hit(
                "/s/a.jsonl",
                None,
                "toolResult",
                "…say \"hi\" \\ there…",
                true,
            ),
            hit(
                "/s/\"q\"\\b.jsonl",
                Some("\u{7}"),
                "bash\u{1b}[31m",
                &every_ascii,
                false,
            ),
            hit(
                "/s/b.jsonl",
                Some("é"),
                "Ünïcødé",
                "项目 \u{2028}\u{7f}\u{9b}\u{202e}x",
                true,
            ),
            hit("/s/b.jsonl", Some(""), "", "", false),
        ]
    }

    /// What the hits were written as before they were printed on the
    /// searching threads: one `serde_json` item or `writeln!` line each.
    fn as_before(hits: &[DeepHit], json: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for h in hits {
            if json {
                out.push(b',');
                serde_json::to_writer(&mut out, h).expect("json");
            } else {
                let cut = if h.compacted_away {
                    " (compacted away)"
                } else {
                    ""
                };
                writeln!(
                    out,
                    "{}  {}  {}{cut}: {}",
                    sanitize(&h.path.display().to_string()),
                    sanitize(h.entry_id.as_deref().unwrap_or("-")),
                    sanitize(&h.kind),
                    sanitize(&h.snippet)
                )
                .expect("write");
            }
        }
        out
    }

    #[test]
    fn hits_print_as_they_were_written_one_by_one() {
        let hits = odd_hits();
        let json = hits_json(hits.clone());
        assert!(json.error.is_none());
        assert_eq!(json.hits, hits.len());
        assert_eq!(
            String::from_utf8(json.bytes).expect("utf-8"),
            String::from_utf8(as_before(&hits, true)).expect("utf-8")
        );
        let text = hits_text(hits.clone());
        assert_eq!(text.hits, hits.len());
        assert_eq!(
            String::from_utf8(text.bytes).expect("utf-8"),
            String::from_utf8(as_before(&hits, false)).expect("utf-8")
        );
        for n in [0, 1, 10_000_000_000, u64::MAX] {
            let mut got = Vec::new();
            push_u64(&mut got, n);
            assert_eq!(got, n.to_string().into_bytes());
        }
    }

    /// Sessions printed apart join into one JSON array: only the first
    /// item written loses its comma.
    #[test]
    fn printed_sessions_join_into_one_array() {
        let hits = odd_hits();
        let mut out = b"[".to_vec();
        let mut written = 0;
        for part in [&hits[..2], &hits[2..3], &hits[3..]] {
            write_printed(hits_json(part.to_vec()), &mut written, &mut out).expect("write");
        }
        out.extend_from_slice(b"]");
        assert_eq!(written, hits.len());
        let want = serde_json::to_string(&hits).expect("json");
        assert_eq!(String::from_utf8(out).expect("utf-8"), want);
    }

    /// A path that is not UTF-8 stops the JSON where serde_json stopped,
    /// with its error.
    #[cfg(unix)]
    #[test]
    fn a_path_json_cannot_hold_fails_as_before() {
        use std::os::unix::ffi::OsStrExt;
        let mut hits = odd_hits();
        hits[2].path = Arc::from(Path::new(std::ffi::OsStr::from_bytes(b"/s/\xff.jsonl")));
        let printed = hits_json(hits.clone());
        assert_eq!(printed.hits, 2);
        let mut want = as_before(&hits[..2], true);
        want.push(b',');
        let e = serde_json::to_writer(&mut want, &hits[2]).expect_err("not UTF-8");
        assert_eq!(printed.bytes, want);
        let error = printed.error.expect("an error");
        assert_eq!(error.to_string(), e.to_string());
        let mut out = Vec::new();
        let mut written = 0;
        assert!(write_printed(hits_json(hits), &mut written, &mut out).is_err());
        assert_eq!(out, want[1..]);
    }
}
