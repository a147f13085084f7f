//! `piscope move-project OLD NEW`: sessions of a project folder that moved
//! follow it (header `cwd`, `parentSession`, pi's folder for NEW).

use super::args::MoveProjectArgs;
use super::{confirm, shown};
use crate::catalog::discover::normalize;
use crate::catalog::housekeeping::move_project::{self, Move};
use crate::catalog::{self, Cache, LoadOptions, Scope, Surroundings, in_use};
use crate::safe_text::sanitize;
use crate::session::write::rewrite::Moved;
use anyhow::{Result, bail};
use std::io::Write;
use std::path::PathBuf;

fn absolute(p: &std::path::Path) -> Result<PathBuf> {
    Ok(normalize(&std::path::absolute(p)?))
}

pub fn run(args: MoveProjectArgs, out: &mut dyn Write) -> Result<()> {
    let old = absolute(&args.old)?;
    let new = absolute(&args.new)?;
    if old == new {
        return Err(super::UsageError("OLD and NEW are the same folder".to_string()).into());
    }
    let mut problems = Vec::new();
    let folder = catalog::locate(
        &Surroundings::of_process(args.session_dir.clone()),
        &mut problems,
    );
    for p in &problems {
        super::warn(p);
    }
    let options = LoadOptions {
        scope: Scope::All,
        with_text: false,
        with_usage: false,
    };
    let cat = catalog::load(&folder, options, &mut Cache::disabled(), &mut |_| {});
    let moves = move_project::plan(&folder, &cat.sessions, &old, &new);
    if moves.is_empty() {
        writeln!(out, "no session's folder is {} or below it", shown(&old))?;
        return Ok(());
    }
    writeln!(
        out,
        "Move {} session(s) from {} to {}:",
        moves.len(),
        shown(&old),
        shown(&new)
    )?;
    for m in &moves {
        describe(m, out)?;
    }
    if !new.is_dir() {
        writeln!(
            out,
            "Warning: {} does not exist (yet); pi resumes these sessions there",
            shown(&new)
        )?;
    }
    if args.dry_run {
        writeln!(out, "(dry run: nothing changed)")?;
        return Ok(());
    }
    if !confirm::go_ahead(out, args.yes, "moving sessions")? {
        writeln!(out, "nothing changed")?;
        return Ok(());
    }
    let mut failed = 0;
    for m in &moves {
        match move_project::carry_out(&folder, m) {
            Ok(Moved::Moved | Moved::Finished) => {
                writeln!(out, "moved {}", shown(&m.to))?;
            }
            Err(e) => {
                super::warn(&e);
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!("{failed} session(s) not moved");
    }
    Ok(())
}

fn describe(m: &Move, out: &mut dyn Write) -> Result<()> {
    writeln!(out, "  {}", shown(&m.from))?;
    if let Some(why) = in_use::pi_may_have_open(&m.from) {
        writeln!(
            out,
            "    Warning: pi may have it open ({}); a running pi keeps what it has in memory and \
             goes on writing to the file it had. Close it there first.",
            sanitize(&why)
        )?;
    }
    if m.to != m.from {
        writeln!(out, "    → {}", shown(&m.to))?;
    }
    writeln!(
        out,
        "    cwd {} → {}",
        sanitize(&m.old_cwd),
        sanitize(&m.new_cwd)
    )?;
    if let Some((from, to)) = &m.parent {
        writeln!(
            out,
            "    parentSession {} → {}",
            sanitize(from),
            sanitize(to)
        )?;
    }
    Ok(())
}
