//! `piscope clean`: the sessions every given rule picks, to the trash after
//! one question for the whole list (`--dry-run` lists them, `--json` too);
//! with `--archive`, to piscope's archive instead.

use super::args::CleanArgs;
use super::{confirm, shown};
use crate::catalog::housekeeping::archive;
use crate::catalog::housekeeping::clean::{Picked, Rules};
use crate::catalog::housekeeping::delete::{self, DeleteMode};
use crate::catalog::housekeeping::journal::{Batch, Reason};
use crate::catalog::summary::age;
use crate::catalog::{self, Cache, LoadOptions, Scope, Surroundings};
use crate::safe_text::human_size;
use crate::safe_text::sanitize;
use anyhow::{Result, bail};
use std::io::Write;

pub fn run(args: CleanArgs, out: &mut dyn Write) -> Result<()> {
    let rules = Rules {
        empty: args.empty,
        no_reply: args.no_reply,
        folder_gone: args.folder_gone,
        older_than: args.older_than,
        larger_than: args.larger_than,
    };
    if rules.is_empty() {
        return Err(super::UsageError(
            "give at least one rule: --empty, --no-reply, --folder-gone, --older-than DUR, \
             --larger-than SIZE"
                .to_string(),
        )
        .into());
    }
    let mut problems = Vec::new();
    let folder = catalog::locate(
        &Surroundings::of_process(args.session_dir.clone()),
        &mut problems,
    );
    let options = LoadOptions {
        scope: if args.all { Scope::All } else { Scope::Current },
        with_text: false,
        with_usage: false,
    };
    let cat = catalog::load(&folder, options, &mut Cache::disabled(), &mut |_| {});
    let now = crate::jstext::date::now_ms();
    let picked = rules.pick(&cat.sessions, now);
    if args.dry_run {
        return if args.json {
            write_json(&picked, now, out)
        } else {
            write_table(&picked, now, out)
        };
    }
    if picked.is_empty() {
        writeln!(out, "no session matches")?;
        return Ok(());
    }
    let mut failed = 0;
    if args.archive {
        let mut checked = Vec::new();
        for p in &picked {
            match archive::check_archivable(&folder, &p.summary.path) {
                Ok(m) => checked.push(m.while_picked_by(&rules)),
                Err(e) => {
                    super::warn(&e);
                    failed += 1;
                }
            }
        }
        super::archive::archive_sessions(&checked, false, args.yes, out, &mut failed)?;
        if failed > 0 {
            bail!("{failed} session(s) not archived");
        }
        return Ok(());
    }
    let mut checked = Vec::new();
    for p in &picked {
        match delete::check_deletable(&folder, &p.summary.path) {
            // What the question lists may change while it waits: each file
            // goes only if the rules still pick it when its turn comes.
            Ok(file) => checked.push((file.while_picked_by(&rules), p)),
            Err(e) => {
                super::warn(&e);
                failed += 1;
            }
        }
    }
    writeln!(out, "Move to the trash, {} session(s):", checked.len())?;
    let shown_ones: Vec<Picked> = checked.iter().map(|(_, p)| (*p).clone()).collect();
    write_table(&shown_ones, now, out)?;
    if !confirm::go_ahead(out, args.yes, "cleaning up")? {
        writeln!(out, "nothing deleted")?;
        return Ok(());
    }
    let batch = Batch::new(Reason::Clean);
    for (file, _) in &checked {
        match delete::delete_checked_for(file, DeleteMode::Trash, &batch) {
            Ok(()) => writeln!(out, "trashed {}", shown(file.real()))?,
            Err(e) => {
                super::warn(&e);
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!("{failed} session(s) not moved to the trash");
    }
    Ok(())
}

fn project(cwd: &str) -> String {
    match std::env::var("HOME") {
        Ok(h) if !h.is_empty() && cwd.starts_with(&h) => format!("~{}", &cwd[h.len()..]),
        _ => cwd.to_string(),
    }
}

fn write_table(picked: &[Picked], now: i64, out: &mut dyn Write) -> Result<()> {
    if picked.is_empty() {
        writeln!(out, "no session matches")?;
        return Ok(());
    }
    for p in picked {
        let s = p.summary;
        let title: String = sanitize(s.title()).chars().take(40).collect();
        writeln!(
            out,
            "  {title:<40}  {:<24}  {:>4}  {:>8}  {}",
            sanitize(&project(&s.cwd)),
            s.modified_ms.map_or("?".to_string(), |m| age(now - m)),
            human_size(s.size),
            p.why.join(", ")
        )?;
        writeln!(out, "    {}", shown(&s.path))?;
    }
    writeln!(out, "{} session(s)", picked.len())?;
    Ok(())
}

fn write_json(picked: &[Picked], now: i64, out: &mut dyn Write) -> Result<()> {
    let list: Vec<serde_json::Value> = picked
        .iter()
        .map(|p| {
            let s = p.summary;
            serde_json::json!({
                "path": s.path,
                "name": s.name,
                "firstMessage": s.first_message,
                "project": s.cwd,
                "modified": s.modified_ms.map(crate::jstext::date::format_iso),
                "ageSeconds": s.modified_ms.map(|m| (now - m) / 1000),
                "size": s.size,
                "why": p.why,
            })
        })
        .collect();
    writeln!(out, "{}", serde_json::to_string(&list)?)?;
    Ok(())
}
