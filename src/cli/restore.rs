//! `piscope restore`: put back what piscope moved to the trash (from its
//! journal), never over a file that is there now.

use super::args::RestoreArgs;
use super::shown;
use crate::catalog::housekeeping::confine;
use crate::catalog::housekeeping::journal::{self, InTrash};
use anyhow::{Result, bail};
use std::io::Write;

pub fn run(args: RestoreArgs, out: &mut dyn Write) -> Result<()> {
    let found = journal::in_trash()?;
    for note in &found.skipped {
        super::warn(note);
    }
    let items = found.items;
    if args.list {
        return list(&items, args.json, out);
    }
    let chosen: Vec<&InTrash> = if args.last {
        items.last().into_iter().collect()
    } else if args.paths.is_empty() {
        return Err(super::UsageError(
            "say what to restore: PATH..., --last, or --list to see what piscope can restore"
                .to_string(),
        )
        .into());
    } else {
        let mut chosen = Vec::new();
        for p in &args.paths {
            let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
            // The latest trashing of that path.
            match items
                .iter()
                .rev()
                .find(|i| i.record.path == abs || i.record.path == *p)
            {
                Some(i) => chosen.push(i),
                None => bail!(
                    "{}: piscope has nothing of it in the trash (`piscope restore --list` shows what it has)",
                    shown(p)
                ),
            }
        }
        chosen
    };
    if chosen.is_empty() {
        writeln!(out, "nothing to restore")?;
        return Ok(());
    }
    let mut failed = 0;
    for item in chosen {
        let back = confine::given_file(None, &item.record.path)
            .map_err(|e| e.to_string())
            .and_then(|_| journal::restore(item).map_err(|e| e.to_string()));
        match back {
            Ok(to) => writeln!(out, "restored {}", shown(&to))?,
            Err(e) => {
                super::warn(&e);
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!("{failed} file(s) not restored");
    }
    Ok(())
}

fn list(items: &[InTrash], json: bool, out: &mut dyn Write) -> Result<()> {
    if json {
        let records: Vec<&journal::Record> = items.iter().map(|i| &i.record).collect();
        writeln!(out, "{}", serde_json::to_string(&records)?)?;
        return Ok(());
    }
    if items.is_empty() {
        writeln!(out, "nothing piscope trashed is in the trash")?;
        return Ok(());
    }
    for i in items {
        let r = &i.record;
        writeln!(
            out,
            "{}  {:<12}  {:>9}  {}",
            r.time,
            r.reason.as_str(),
            crate::safe_text::human_size(r.size),
            shown(&r.path)
        )?;
    }
    Ok(())
}
