//! `piscope prune FILE ENTRY`: the branch ENTRY starts leaves the session;
//! the original goes to the trash first, recorded in the journal.

use super::args::PruneArgs;
use super::{confirm, shown};
use crate::catalog::housekeeping::{confine, journal};
use crate::catalog::in_use;
use crate::safe_text::sanitize;
use crate::session::write::prune::{self, PrunePlan};
use crate::session::write::rewrite::Original;
use anyhow::Result;
use std::io::Write;

pub fn run(args: PruneArgs, out: &mut dyn Write) -> Result<()> {
    confine::given_file(None, &args.file)?;
    if args.yes && !args.dry_run {
        // Agreed to ahead: planned and pruned from one read of the file.
        let mut shown = |plan: &PrunePlan| describe(plan, out).map_err(|e| e.to_string());
        let done = prune::prune_now(&args.file, &args.entry, &mut shown, &mut trash_original)?;
        return pruned(&args, &done, out);
    }
    let plan = prune::plan_prune(&args.file, &args.entry)?;
    describe(&plan, out)?;
    if args.dry_run {
        writeln!(out, "(dry run: nothing changed)")?;
        return Ok(());
    }
    if !confirm::go_ahead(out, args.yes, "pruning")? {
        writeln!(out, "nothing changed")?;
        return Ok(());
    }
    // Checked again at the moment: a symlink put in its place meanwhile.
    confine::given_file(None, &args.file)?;
    let done = prune::prune(&plan, &mut trash_original)?;
    pruned(&args, &done, out)
}

/// The original, into the trash and the journal.
fn trash_original(o: Original<'_>) -> Result<(), String> {
    journal::trash_pruned_original(o)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

fn pruned(args: &PruneArgs, done: &prune::Pruned, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "{}: pruned {} entries; the original is in the trash (`piscope restore {}` puts it back)",
        shown(&args.file),
        done.plan.removed.len(),
        shown(&args.file)
    )?;
    Ok(())
}

/// What goes, in numbers, and a word if pi may have the session open.
fn describe(plan: &PrunePlan, out: &mut dyn Write) -> Result<()> {
    writeln!(
        out,
        "Prune the branch at {} of {}:",
        sanitize(&plan.entry),
        shown(&plan.path)
    )?;
    writeln!(
        out,
        "  {} entries go ({} messages, {} tokens, ${:.4})",
        plan.removed.len(),
        plan.messages,
        plan.tokens.round() as u64,
        plan.cost
    )?;
    if !plan.carried.is_empty() {
        writeln!(
            out,
            "  {} kept (the session's name, labels of kept entries), now under {}",
            plan.carried.len(),
            sanitize(plan.parent.as_deref().unwrap_or("the root"))
        )?;
    }
    if let Some(why) = in_use::pi_may_have_open(&plan.path) {
        writeln!(
            out,
            "Warning: pi may have this session open ({}); a running pi keeps the entries it has \
             in memory and may write below the pruned branch again. Close it there first.",
            sanitize(&why)
        )?;
    }
    Ok(())
}
