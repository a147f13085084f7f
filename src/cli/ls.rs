//! `piscope ls`: the catalog from the shell, as a table for reading or as
//! pi's own session-list JSON; `--query` and `--deep` search it.

use super::args::ListArgs;
use super::warn;
use crate::catalog::deep::{DeepHit, HitDetail, deep_search_each};
use crate::catalog::deep_index::DeepIndex;
use crate::catalog::usage::{self, UsageCache};
use crate::catalog::{
    self, Cache, Layout, LoadOptions, Query, Scope, SessionSummary, SortMode, Surroundings,
};
use crate::jstext::date::{format_iso, now_ms};
use crate::safe_text::{clean_line, fit, sanitize};
use crate::session::jskey;
use crate::session::raw::push_json_string;
use crate::session::summary::shorten_home;
use anyhow::Result;
use std::io::Write;

pub fn run(args: ListArgs, out: &mut dyn Write) -> Result<()> {
    let mut problems = Vec::new();
    let folder = catalog::locate(
        &Surroundings::of_process(args.session_dir.clone()),
        &mut problems,
    );
    let query = Query::parse(args.query.as_deref().unwrap_or(""));
    let mut cache = match (args.no_cache, catalog::cache::default_dir()) {
        (false, Some(dir)) => Cache::open(dir),
        _ => Cache::disabled(),
    };
    let options = LoadOptions {
        scope: if args.all { Scope::All } else { Scope::Current },
        with_text: args.query.is_some() && !args.deep,
    };
    let cat = catalog::load(&folder, options, &mut cache, &mut |_| {});
    // Saved already; taking apart thousands of records on the way out
    // would cost the command a tenth of its time.
    std::mem::forget(cache);
    problems.extend(cat.problems);
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
    let sessions = &cat.sessions;
    let sort = args.sort.unwrap_or_default();
    if args.deep {
        let chosen: Vec<SessionSummary> = sessions
            .iter()
            .filter(|s| !args.named || catalog::search::has_name(s))
            .cloned()
            .collect();
        // Hits are written as each session's are found, newest first.
        let mut written = 0usize;
        let mut failed = None;
        if args.json {
            out.write_all(b"[")?;
        }
        let index = match (args.no_cache, catalog::cache::default_dir()) {
            (false, Some(dir)) => DeepIndex::open(dir),
            _ => DeepIndex::disabled(),
        };
        let problems = deep_search_each(&chosen, &query, &index, HitDetail::Snippet, &mut |hits| {
            let r = write_hits(hits, args.json, &mut written, out);
            r.map_err(|e| failed = Some(e)).is_ok()
        });
        if let Err(e) = index.save() {
            warn(&format!("could not save the deep-search index: {e}"));
        }
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
    let picked = catalog::filter_and_sort(sessions, &query, sort, args.named);
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
        write_json(sessions, &rows, out)?;
    } else {
        let searched = !matches!(query, Query::Everything) || args.named;
        // The cost column is each session's own spend, as in the browser: a
        // fork's copied turns are its parent's (see `piscope stats`). Files
        // the usage could not be read from were named by the catalog already.
        let mut usage_cache = match (args.no_cache, catalog::cache::default_dir()) {
            (false, Some(dir)) => UsageCache::open(dir),
            _ => UsageCache::disabled(),
        };
        let book = usage::load(&cat.folder, &mut usage_cache);
        let own = |s: &SessionSummary| book.session(&s.path).map_or(s.cost, |u| u.own.cost);
        write_table(
            &cat.folder,
            sessions,
            &rows,
            (args.all, searched),
            &own,
            out,
        )?;
    }
    Ok(())
}

/// Writes deep-search hits: JSON array items (the brackets are the
/// caller's), or one line each.
fn write_hits(
    hits: &[DeepHit],
    json: bool,
    written: &mut usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for h in hits {
        if json {
            if *written > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, h)?;
        } else {
            // The model no longer sees such an entry where pi resumes.
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
            )?;
        }
        *written += 1;
    }
    Ok(())
}

fn write_json(
    sessions: &[SessionSummary],
    rows: &[catalog::ThreadRow],
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
        list_json(s, &mut o);
        if o.len() >= FLUSH {
            out.write_all(&o)?;
            o.clear();
        }
    }
    o.extend_from_slice(b"]\n");
    out.write_all(&o)?;
    Ok(())
}

/// One session as pi's list holds it, as `JSON.stringify` writes it: an id
/// pi's list does not have is left out, absent values are `null`.
fn list_json(s: &SessionSummary, o: &mut Vec<u8>) {
    let key = |o: &mut Vec<u8>, k: Option<&str>| match k {
        Some(k) => jskey::push_json(o, k),
        None => o.extend_from_slice(b"null"),
    };
    let date = |o: &mut Vec<u8>, t: Option<i64>| match t {
        Some(t) => push_json_string(o, &format_iso(t)),
        None => o.extend_from_slice(b"null"),
    };
    let plain = |k: &str| jskey::of_str(k);
    o.extend_from_slice(b"{\"path\":");
    push_json_string(o, &s.path.to_string_lossy());
    let exact = s.exact.as_deref();
    let id = exact.map_or_else(|| plain(&s.id), |e| e.id.as_str().into());
    if id != jskey::UNDEFINED {
        o.extend_from_slice(b",\"id\":");
        jskey::push_json(o, &id);
    }
    o.extend_from_slice(b",\"cwd\":");
    match exact {
        Some(e) => key(o, Some(e.cwd.as_deref().unwrap_or(""))),
        None => push_json_string(o, &s.cwd),
    }
    o.extend_from_slice(b",\"name\":");
    match exact {
        Some(e) => key(o, e.name.as_deref()),
        None => key(o, s.name.as_deref().map(plain).as_deref()),
    }
    o.extend_from_slice(b",\"parentSessionPath\":");
    match exact {
        Some(e) => key(o, e.parent_session.as_deref().filter(|k| *k != "\0z")),
        None => key(o, s.parent_session_path.as_deref().map(plain).as_deref()),
    }
    o.extend_from_slice(b",\"created\":");
    date(o, s.created_ms);
    o.extend_from_slice(b",\"modified\":");
    date(o, s.modified_ms);
    o.extend_from_slice(b",\"messageCount\":");
    o.extend_from_slice(s.message_count.to_string().as_bytes());
    o.extend_from_slice(b",\"firstMessage\":");
    match exact.and_then(|e| e.first_message.as_deref()) {
        Some(k) => jskey::push_json(o, k),
        None => push_json_string(o, &s.first_message),
    }
    o.push(b'}');
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
    out: &mut dyn Write,
) -> Result<()> {
    if rows.is_empty() {
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
    writeln!(
        out,
        "{:<TITLE_WIDTH$}  {:<28}  {:>5}  {:>4}  {:>8}",
        "SESSION", "PROJECT", "MSGS", "AGE", "COST"
    )?;
    for row in rows {
        let s = &sessions[row.index];
        let mut prefix = String::new();
        for &c in row.ancestor_continues.iter().skip(1) {
            prefix.push_str(if c { "│  " } else { "   " });
        }
        if row.depth > 0 {
            prefix.push_str(if row.is_last { "└─ " } else { "├─ " });
        }
        let mark = if s.name.is_some() { "★ " } else { "" };
        let title = format!("{prefix}{mark}{}", one_line(s.title()));
        let project = shorten_home(&s.cwd, home.as_deref());
        writeln!(
            out,
            "{}  {}  {:>5}  {:>4}  {:>8}",
            fit(&clean_line(&title), TITLE_WIDTH),
            fit(&clean_line(&project), 28),
            s.message_count,
            s.modified_ms
                .map_or("?".to_string(), |m| catalog::summary::age(now - m)),
            format!("${:.2}", own_cost(s)),
        )?;
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
