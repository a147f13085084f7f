//! `piscope rm`: sessions to the trash (or, asked twice, deleted for good),
//! only pi session files inside the sessions folder; `--dry-run` lists them.

use super::args::RemoveArgs;
use crate::catalog::housekeeping::delete::{self, DeleteMode};
use crate::catalog::housekeeping::journal::{Batch, Reason};
use crate::catalog::{self, Cache, LoadOptions, Scope, Surroundings};
use crate::safe_text::sanitize;
use anyhow::{Result, bail};
use std::io::{BufRead, IsTerminal, Write};

pub fn run(args: RemoveArgs, out: &mut dyn Write) -> Result<()> {
    let mut problems = Vec::new();
    let folder = catalog::locate(
        &Surroundings::of_process(args.session_dir.clone()),
        &mut problems,
    );
    let mut wanted = args.files.clone();
    if args.empty {
        let options = LoadOptions {
            scope: if args.all { Scope::All } else { Scope::Current },
            with_text: false,
            with_usage: false,
        };
        let cat = catalog::load(&folder, options, &mut Cache::disabled(), &mut |_| {});
        wanted.extend(
            delete::empty_sessions(&cat.sessions)
                .into_iter()
                .map(|s| s.path.clone()),
        );
    }
    if wanted.is_empty() {
        writeln!(out, "nothing to delete")?;
        return Ok(());
    }
    let mut failed = 0;
    let mut checked = Vec::new();
    for path in &wanted {
        match delete::check_deletable(&folder, path) {
            Ok(file) => {
                if !checked
                    .iter()
                    .any(|c: &delete::Deletable| c.real() == file.real())
                {
                    checked.push(file);
                }
            }
            Err(e) => {
                eprintln!("piscope: {}", sanitize(&e.to_string()));
                failed += 1;
            }
        }
    }
    if checked.is_empty() {
        bail!("nothing deleted");
    }
    let mode = if args.permanent {
        DeleteMode::Permanent
    } else {
        DeleteMode::Trash
    };
    let interactive = std::io::stdin().is_terminal();
    let verb = match mode {
        DeleteMode::Trash => "Move to the trash",
        DeleteMode::Permanent => "Delete for good (cannot be undone)",
    };
    writeln!(out, "{verb}, {} session(s):", checked.len())?;
    for file in &checked {
        let path = file.real();
        let title = catalog::summarise_file(path)
            .ok()
            .flatten()
            .map(|s| format!("{} ({} messages)", s.title(), s.message_count))
            .unwrap_or_default();
        writeln!(
            out,
            "  {}  {}",
            sanitize(&path.display().to_string()),
            sanitize(&title)
        )?;
        super::confirm::warn_if_pi_has_it(out, path)?;
    }
    if args.dry_run {
        writeln!(out, "(dry run: nothing deleted)")?;
        return Ok(());
    }
    if !super::confirm::go_ahead(out, args.yes, "deleting")? {
        writeln!(out, "nothing deleted")?;
        return Ok(());
    }
    // Each file is checked again as it is deleted: the answer may have
    // come long after the list was shown.
    let mut trash_failed = Vec::new();
    let batch = Batch::new(Reason::Delete);
    for file in &checked {
        let path = file.real();
        match delete::delete_checked_for(file, mode, &batch) {
            Ok(()) => writeln!(out, "deleted {}", sanitize(&path.display().to_string()))?,
            Err(e) if e.is_trash_failure() => {
                eprintln!("piscope: {}", sanitize(&e.to_string()));
                trash_failed.push(file);
            }
            Err(e) => {
                eprintln!("piscope: {}", sanitize(&e.to_string()));
                failed += 1;
            }
        }
    }
    if !trash_failed.is_empty() {
        // Never a silent fall back: a second, explicit confirmation.
        let asked = interactive
            && confirm(
                out,
                &format!(
                    "The trash failed for {} session(s). Delete them for good? This cannot be undone. Type \"delete\" to confirm: ",
                    trash_failed.len()
                ),
                &["delete"],
            )?;
        for file in &trash_failed {
            let path = file.real();
            if asked {
                match delete::delete_checked(file, DeleteMode::Permanent) {
                    Ok(()) => writeln!(
                        out,
                        "deleted for good {}",
                        sanitize(&path.display().to_string())
                    )?,
                    Err(e) => {
                        eprintln!("piscope: {}", sanitize(&e.to_string()));
                        failed += 1;
                    }
                }
            } else {
                failed += 1;
            }
        }
        if !asked {
            eprintln!(
                "piscope: kept {} session(s); `piscope rm --permanent` deletes them for good",
                trash_failed.len()
            );
        }
    }
    if failed > 0 {
        bail!("{failed} session(s) not deleted");
    }
    Ok(())
}

fn confirm(out: &mut dyn Write, prompt: &str, yes: &[&str]) -> Result<bool> {
    write!(out, "{prompt}")?;
    out.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(yes.contains(&answer.trim().to_lowercase().as_str()))
}
