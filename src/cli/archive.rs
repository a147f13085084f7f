//! `piscope archive` and `piscope unarchive`: sessions out of pi's folder
//! into piscope's archive and back, or one branch of a session into an
//! archive file of its own and grafted back (see
//! `catalog::housekeeping::archive`).

use super::args::{ArchiveArgs, UnarchiveArgs};
use super::{confirm, shown, warn};
use crate::catalog::housekeeping::archive::{self, BranchBack, Movable};
use crate::catalog::housekeeping::journal::{Batch, Reason};
use crate::catalog::{self, SessionsFolder, Surroundings, in_use};
use crate::safe_text::sanitize;
use anyhow::{Result, bail};
use std::io::Write;

fn folder_of(session_dir: Option<String>) -> SessionsFolder {
    let mut problems = Vec::new();
    catalog::locate(&Surroundings::of_process(session_dir), &mut problems)
}

pub fn run(args: ArchiveArgs, out: &mut dyn Write) -> Result<()> {
    let folder = folder_of(args.session_dir.clone());
    if let Some(entry) = &args.branch {
        let [file] = args.files.as_slice() else {
            return Err(super::UsageError(
                "--branch archives a branch of one session: give one FILE".to_string(),
            )
            .into());
        };
        return branch(&folder, file, entry, &args, out);
    }
    let mut failed = 0;
    let mut checked: Vec<Movable> = Vec::new();
    for path in &args.files {
        match archive::check_archivable(&folder, path) {
            Ok(m) if !checked.iter().any(|c| c.real() == m.real()) => checked.push(m),
            Ok(_) => {}
            Err(e) => {
                warn(&e);
                failed += 1;
            }
        }
    }
    if checked.is_empty() {
        bail!("nothing archived");
    }
    archive_sessions(&checked, args.dry_run, args.yes, out, &mut failed)?;
    if failed > 0 {
        bail!("{failed} session(s) not archived");
    }
    Ok(())
}

/// Lists the sessions, asks, and archives each (checked again as it goes);
/// `clean --archive` shares it.
pub(super) fn archive_sessions(
    checked: &[Movable],
    dry_run: bool,
    yes: bool,
    out: &mut dyn Write,
    failed: &mut usize,
) -> Result<()> {
    writeln!(
        out,
        "Move to piscope's archive (pi will no longer list them), {} session(s):",
        checked.len()
    )?;
    for m in checked {
        writeln!(out, "  {}", shown(m.real()))?;
        super::confirm::warn_if_pi_has_it(out, m.real())?;
    }
    if dry_run {
        writeln!(out, "(dry run: nothing archived)")?;
        return Ok(());
    }
    if !confirm::go_ahead(out, yes, "archiving")? {
        writeln!(out, "nothing archived")?;
        return Ok(());
    }
    let batch = Batch::new(Reason::Archive);
    for m in checked {
        match archive::archive_checked(m, &batch) {
            Ok(to) => writeln!(out, "archived {} to {}", shown(m.real()), shown(&to))?,
            Err(e) => {
                warn(&e);
                *failed += 1;
            }
        }
    }
    Ok(())
}

fn branch(
    folder: &SessionsFolder,
    file: &std::path::Path,
    entry: &str,
    args: &ArchiveArgs,
    out: &mut dyn Write,
) -> Result<()> {
    let plan = crate::session::write::prune::plan_prune(file, entry)?;
    writeln!(
        out,
        "Archive the branch at {} of {}: {} entries ({} messages) to an archive file, out of the \
         session",
        sanitize(&plan.entry),
        shown(&plan.path),
        plan.removed.len(),
        plan.messages
    )?;
    if let Some(why) = in_use::pi_may_have_open(file) {
        writeln!(
            out,
            "Warning: pi may have this session open ({}); close it there first.",
            sanitize(&why)
        )?;
    }
    if args.dry_run {
        writeln!(out, "(dry run: nothing changed)")?;
        return Ok(());
    }
    if !confirm::go_ahead(out, args.yes, "archiving")? {
        writeln!(out, "nothing changed")?;
        return Ok(());
    }
    let (done, to) = archive::archive_branch(folder, &plan)?;
    writeln!(
        out,
        "{}: archived {} entries to {} (`piscope unarchive {}` puts them back)",
        shown(file),
        done.plan.removed.len(),
        shown(&to),
        shown(&to)
    )?;
    Ok(())
}

pub fn unarchive(args: UnarchiveArgs, out: &mut dyn Write) -> Result<()> {
    let folder = folder_of(args.session_dir.clone());
    if args.list {
        return list(&folder, args.json, out);
    }
    let paths: Vec<std::path::PathBuf> = if args.last {
        archive::latest_archive()?
            .1
            .into_iter()
            .map(|(archived, _)| archived)
            .collect()
    } else if args.paths.is_empty() {
        return Err(super::UsageError(
            "say what to put back: PATH..., --last, or --list to see what is archived".to_string(),
        )
        .into());
    } else {
        args.paths.clone()
    };
    if paths.is_empty() {
        writeln!(out, "nothing archived")?;
        return Ok(());
    }
    let mut failed = 0;
    let batch = Batch::new(Reason::Unarchive);
    for p in &paths {
        if archive::is_branch_file(p) {
            match archive::unarchive_branch(&folder, p) {
                Ok(BranchBack::Grafted(s)) => {
                    writeln!(out, "put the branch back into {}", shown(&s))?
                }
                Ok(BranchBack::AlreadyThere(s)) => writeln!(
                    out,
                    "{} held the branch already; removed its archive file",
                    shown(&s)
                )?,
                Err(e) => {
                    warn(&e);
                    failed += 1;
                }
            }
            continue;
        }
        let back = archive::check_unarchivable(&folder, p)
            .and_then(|m| archive::unarchive_checked(&m, &batch));
        match back {
            Ok(to) => writeln!(out, "put back {}", shown(&to))?,
            Err(e) => {
                warn(&e);
                failed += 1;
            }
        }
    }
    if failed > 0 {
        bail!("{failed} not put back");
    }
    Ok(())
}

/// The archived branches, then the archived sessions (of every project).
fn list(folder: &SessionsFolder, json: bool, out: &mut dyn Write) -> Result<()> {
    let (branches, notes) = archive::list_branches();
    for n in &notes {
        warn(n);
    }
    let sessions = match archive::archived_folder(&folder.cwd) {
        Some(f) if f.dir.is_dir() => {
            let options = catalog::LoadOptions {
                scope: catalog::Scope::All,
                with_text: false,
                with_usage: false,
            };
            catalog::load(&f, options, &mut catalog::Cache::disabled(), &mut |_| {}).sessions
        }
        _ => Vec::new(),
    };
    if json {
        let branches: Vec<serde_json::Value> = branches
            .iter()
            .map(|b| {
                serde_json::json!({
                    "file": b.file,
                    "session": b.header.session,
                    "entry": b.header.entry,
                    "entries": b.header.removed,
                    "messages": b.header.messages,
                    "time": b.header.time,
                })
            })
            .collect();
        let sessions: Vec<serde_json::Value> = sessions
            .iter()
            .map(|s| serde_json::json!({"path": s.path, "cwd": s.cwd, "name": s.name}))
            .collect();
        writeln!(
            out,
            "{}",
            serde_json::json!({"branches": branches, "sessions": sessions})
        )?;
        return Ok(());
    }
    if branches.is_empty() && sessions.is_empty() {
        writeln!(out, "nothing archived")?;
        return Ok(());
    }
    for b in &branches {
        writeln!(
            out,
            "{}  branch at {} of {} ({} entries)\n    {}",
            sanitize(&b.header.time),
            sanitize(&b.header.entry),
            shown(&b.header.session),
            b.header.removed,
            shown(&b.file)
        )?;
    }
    for s in &sessions {
        writeln!(out, "session  {}  {}", sanitize(s.title()), shown(&s.path))?;
    }
    Ok(())
}
