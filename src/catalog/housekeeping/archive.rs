//! The archive: old work out of pi's `/resume` without losing it, and
//! back again. Trash is for what a user means to lose; the archive is for
//! what they mean to keep out of the way.
//!
//! Where it lives: `archive/` in piscope's data folder, beside the journal
//! (`$XDG_DATA_HOME/piscope/archive/` on Linux).
//!
//! ```text
//! archive/sessions/--<cwd>--/<file>.jsonl            archived sessions, pi's own layout
//! archive/branches/--<cwd>--/<file>.<entry>.<ms>.jsonl   archived branches, one file each
//! ```
//!
//! **Sessions.** Archiving moves a session file out of pi's sessions folder
//! (so pi no longer lists it) into `archive/sessions`, under the folder pi
//! would give its project; piscope lists and searches it there
//! (`ls --archived`, the browser's archived scope). Each move is journalled
//! before it starts, like a delete, and unarchiving moves it back to where
//! it lived. A move never passes through a moment where the session is in
//! neither place, nor a moment where a partial copy has a session's name:
//! on one file system the file gets its second name by a hard link (the
//! same inode: the same bytes, by definition) and then loses its first; on
//! two, it is copied to a temporary name that no listing takes for a
//! session, synced, linked in under its name (never over a file), the
//! folder synced, and only then is the original unlinked. A SIGKILL at any
//! moment leaves the session whole in one place or both; the next archive
//! (or unarchive) of it finishes the move. Before it moves, the file is
//! checked again as a delete checks it (the same file by the same folders,
//! still picked by the rules of a clean-up), and after a copy it must not
//! have changed meanwhile.
//!
//! **Branches.** Archiving a branch writes its lines, each with its place
//! (`session::write::branch_archive`), to an archive file of its own, synced,
//! and then prunes the branch from the session as `prune` does (the
//! original to the trash, journalled). Unarchiving grafts the lines back by
//! an atomic rewrite (the version it replaces to the trash first), so pi
//! reads the session as it was, entry for entry, with anything appended
//! since after it; then the archive file goes. A kill between the two steps
//! leaves the branch in both places, and the next unarchive (or archive)
//! sees that and only removes the archive file.

use crate::catalog::discover::{Layout, SessionsFolder, project_folder_name};
use crate::catalog::housekeeping::clean::Rules;
use crate::catalog::housekeeping::confine;
use crate::catalog::housekeeping::delete::{self, Deletable, DeleteError};
use crate::catalog::housekeeping::journal::{self, Batch, Reason};
use crate::session::write::branch_archive::{self, ArchivedLine};
use crate::session::write::prune::{PrunePlan, Pruned};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Why an archive or unarchive did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("piscope has no data folder (no home folder); it has nowhere to archive")]
    NoDataFolder,
    #[error("{path}: {why}")]
    Refused { path: PathBuf, why: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ArchiveError + '_ {
    move |source| ArchiveError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn refused(path: &Path, why: impl Into<String>) -> ArchiveError {
    ArchiveError::Refused {
        path: path.to_path_buf(),
        why: why.into(),
    }
}

/// The archive folder in piscope's data folder.
pub fn archive_root() -> Option<PathBuf> {
    journal::data_dir().map(|d| d.join("archive"))
}

/// Where archived sessions are, in pi's per-project layout.
pub fn sessions_root() -> Option<PathBuf> {
    archive_root().map(|d| d.join("sessions"))
}

/// Where archived branches are.
pub fn branches_root() -> Option<PathBuf> {
    archive_root().map(|d| d.join("branches"))
}

/// The archive's caches, inside the cache folder `cache`: kept apart, since
/// each cache answers for the files of one folder.
pub fn cache_dir(cache: &Path) -> PathBuf {
    cache.join("archive")
}

/// The archived sessions as a sessions folder of their own, seen from
/// `cwd` (its current project is `cwd`'s, as in pi's folder).
pub fn archived_folder(cwd: &Path) -> Option<SessionsFolder> {
    sessions_root().map(|root| SessionsFolder::at(root, Layout::PerProject, cwd.to_path_buf()))
}

/// A `DeleteError` from the checks, said of an archive (`verb`: "archived",
/// "put back").
fn from_check(e: DeleteError, verb: &str) -> ArchiveError {
    match e {
        DeleteError::Outside { path, folder } => refused(
            &path,
            format!("not inside the folder {}; not {verb}", folder.display()),
        ),
        DeleteError::NotASession { path } => {
            refused(&path, format!("not a pi session file; not {verb}"))
        }
        DeleteError::Changed { path, why } => refused(
            &path,
            format!("changed since it was confirmed ({why}); not {verb}"),
        ),
        DeleteError::Io { path, source } => ArchiveError::Io { path, source },
        DeleteError::Trash { path, reason } => refused(&path, reason),
    }
}

/// A session checked for a move between pi's folder and the archive: the
/// checked file (as a delete checks it) and where it goes.
#[derive(Debug, Clone)]
pub struct Movable {
    checked: Deletable,
    to: PathBuf,
}

impl Movable {
    /// The path as given.
    pub fn path(&self) -> &Path {
        self.checked.path()
    }

    /// The file that moves (symlinks resolved).
    pub fn real(&self) -> &Path {
        self.checked.real()
    }

    /// Where it goes.
    pub fn to(&self) -> &Path {
        &self.to
    }

    /// Moves it only while `rules` still pick it (read again at the moment).
    pub fn while_picked_by(mut self, rules: &Rules) -> Movable {
        self.checked = self.checked.while_picked_by(rules);
        self
    }
}

/// Checks that the session at `path` (inside `folder`) may be archived,
/// and where it would go.
pub fn check_archivable(folder: &SessionsFolder, path: &Path) -> Result<Movable, ArchiveError> {
    let root = sessions_root().ok_or(ArchiveError::NoDataFolder)?;
    let checked = delete::check_deletable(folder, path).map_err(|e| from_check(e, "archived"))?;
    let real = checked.real();
    let name = real
        .file_name()
        .ok_or_else(|| refused(real, "it has no file name; not archived"))?;
    // pi's own folder for the project: the one it is in, in pi's layout;
    // else the one pi would give its header's cwd.
    let in_project_folder = folder.layout == Layout::PerProject
        && fs::canonicalize(&folder.dir)
            .ok()
            .zip(real.parent().and_then(Path::parent))
            .is_some_and(|(root, up)| root == up);
    let project = match real.parent().and_then(Path::file_name) {
        Some(p) if in_project_folder => PathBuf::from(p),
        _ => {
            let cwd = crate::catalog::summarise_file(real)
                .ok()
                .flatten()
                .map(|s| s.cwd)
                .unwrap_or_default();
            PathBuf::from(project_folder_name(Path::new(&cwd)))
        }
    };
    Ok(Movable {
        to: root.join(project).join(name),
        checked,
    })
}

/// Archives one checked session, journalled as part of `batch`: checked
/// again now, recorded, then moved. Returns where it went.
pub fn archive_checked(m: &Movable, batch: &Batch) -> Result<PathBuf, ArchiveError> {
    m.checked.recheck().map_err(|e| from_check(e, "archived"))?;
    let mut record = journal::describe(m.real(), Reason::Archive, None)
        .map_err(|e| refused(m.real(), format!("{e}; not archived")))?;
    record.moved_to = Some(m.to.clone());
    record.batch = Some(batch.id.clone());
    // The way back is written down before the file moves.
    journal::append(&record).map_err(|e| refused(m.real(), format!("{e}; not archived")))?;
    move_whole(m, "archived")?;
    Ok(m.to.clone())
}

/// Checks that `path`, an archived session (or the path it had before it
/// was archived), may go back into `folder`, and where.
pub fn check_unarchivable(folder: &SessionsFolder, path: &Path) -> Result<Movable, ArchiveError> {
    let root = sessions_root().ok_or(ArchiveError::NoDataFolder)?;
    let records = journal::read_all().map(|c| c.records).unwrap_or_default();
    let archives = || records.iter().rev().filter(|r| r.reason == Reason::Archive);
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    // Named by where it lived: the latest archive of that path.
    let archived = if abs.starts_with(&root)
        || fs::canonicalize(&abs)
            .is_ok_and(|r| fs::canonicalize(&root).is_ok_and(|root| r.starts_with(root)))
    {
        abs.clone()
    } else {
        archives()
            .find(|r| r.path == abs)
            .and_then(|r| r.moved_to.clone())
            .ok_or_else(|| {
                refused(
                    path,
                    "not in the archive, and piscope archived nothing from there; not put back",
                )
            })?
    };
    let archive = SessionsFolder::at(root.clone(), Layout::PerProject, folder.cwd.clone());
    let checked =
        delete::check_deletable(&archive, &archived).map_err(|e| from_check(e, "put back"))?;
    let real = checked.real().to_path_buf();
    let root_real = fs::canonicalize(&root).map_err(io(&root))?;
    let journalled = archives()
        .find(|r| {
            r.moved_to
                .as_deref()
                .is_some_and(|m| m == archived || m == real)
        })
        .map(|r| r.path.clone());
    let to = match journalled {
        Some(p) => p,
        None => {
            let rel = real.strip_prefix(&root_real).unwrap_or(&real);
            match folder.layout {
                Layout::PerProject => folder.dir.join(rel),
                Layout::Flat => folder.dir.join(rel.file_name().unwrap_or(rel.as_os_str())),
            }
        }
    };
    confine::inside(folder, &to).map_err(|e| refused(&to, format!("{e}; not put back")))?;
    Ok(Movable { checked, to })
}

/// Puts one archived session back, journalled as part of `batch`.
pub fn unarchive_checked(m: &Movable, batch: &Batch) -> Result<PathBuf, ArchiveError> {
    m.checked.recheck().map_err(|e| from_check(e, "put back"))?;
    let mut record = journal::describe(m.real(), Reason::Unarchive, None)
        .map_err(|e| refused(m.real(), format!("{e}; not put back")))?;
    record.moved_to = Some(m.to.clone());
    record.batch = Some(batch.id.clone());
    journal::append(&record).map_err(|e| refused(m.real(), format!("{e}; not put back")))?;
    move_whole(m, "put back")?;
    Ok(m.to.clone())
}

/// The latest archive (one command, one browser action) whose sessions
/// are still in the archive: when (ms since the epoch), and each archived
/// file and where it lived.
pub fn latest_archive() -> Result<(i64, Vec<(PathBuf, PathBuf)>), ArchiveError> {
    let records = journal::read_all()
        .map_err(|e| refused(Path::new("journal"), e.to_string()))?
        .records;
    let still = |r: &journal::Record| r.moved_to.as_deref().is_some_and(Path::is_file);
    let Some(last) = records
        .iter()
        .rev()
        .find(|r| r.reason == Reason::Archive && still(r))
    else {
        return Ok((0, Vec::new()));
    };
    let moved = records
        .iter()
        .filter(|r| r.reason == Reason::Archive && r.batch == last.batch && still(r))
        .filter_map(|r| Some((r.moved_to.clone()?, r.path.clone())))
        .collect();
    Ok((last.time_ms, moved))
}

/// Moves the checked file to its new place whole: see the module's doc.
fn move_whole(m: &Movable, verb: &str) -> Result<(), ArchiveError> {
    let (from, to) = (m.real(), m.to.as_path());
    let before = fs::symlink_metadata(from).map_err(io(from))?;
    if let Some(dir) = to.parent() {
        fs::create_dir_all(dir).map_err(io(dir))?;
    }
    let mut copied = false;
    match fs::symlink_metadata(to) {
        // An earlier run was killed after the link: only the unlink is left.
        Ok(there) if crate::session::write::lock::same_file(&there, &before) => {}
        // An earlier run was killed after the copy: the same bytes.
        Ok(there) if there.is_file() && same_bytes(from, to)? => {}
        Ok(_) => {
            return Err(refused(
                to,
                format!("a file is there already; piscope replaces nothing, so it is not {verb}"),
            ));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match fs::hard_link(from, to) {
            Ok(()) => crate::session::write::append::sync_dir(to),
            Err(e) if is_cross_device(&e) => {
                copy_in(from, to, &before)?;
                copied = true;
            }
            Err(e) => return Err(io(to)(e)),
        },
        Err(e) => return Err(io(to)(e)),
    }
    // A copy holds what the file held: it must not have changed since.
    let now = fs::symlink_metadata(from).map_err(io(from))?;
    let unchanged = crate::session::write::lock::same_file(&now, &before)
        && now.len() == before.len()
        && now.modified().ok() == before.modified().ok();
    let checked = if unchanged {
        m.checked.recheck().map_err(|e| from_check(e, verb))
    } else {
        Err(refused(
            from,
            format!("it changed while piscope copied it (pi may be writing); not {verb}"),
        ))
    };
    if let Err(e) = checked {
        if copied {
            let _ = fs::remove_file(to);
        }
        return Err(e);
    }
    m.checked.unlink().map_err(|e| from_check(e, verb))?;
    crate::session::write::append::sync_dir(from);
    Ok(())
}

fn is_cross_device(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::EXDEV)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// Whether two files hold the same bytes.
fn same_bytes(a: &Path, b: &Path) -> Result<bool, ArchiveError> {
    let x = crate::session::read::file::read_regular(a).map_err(io(a))?;
    let y = crate::session::read::file::read_regular(b).map_err(io(b))?;
    Ok(x == y)
}

/// The copy across file systems: a temporary name beside `to` (never a
/// `.jsonl` name), the bytes, mode, owner and modification time, synced,
/// then linked in as `to`, which must not exist.
fn copy_in(from: &Path, to: &Path, meta: &fs::Metadata) -> Result<(), ArchiveError> {
    // What a killed copy left here goes first.
    if let Some(dir) = to.parent() {
        crate::session::write::temp::sweep_stale_temps(dir);
    }
    let mut tmp = crate::session::write::temp::TempFile::beside(to, 0o600).map_err(io(to))?;
    let mut src = crate::session::read::file::open_regular(from).map_err(io(from))?;
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = src.read(&mut buf).map_err(io(from))?;
        if n == 0 {
            break;
        }
        tmp.file().write_all(&buf[..n]).map_err(io(to))?;
    }
    let _ = crate::session::write::lock::give_owner_of(tmp.file(), meta);
    tmp.file()
        .set_permissions(meta.permissions())
        .map_err(io(to))?;
    if let Ok(t) = meta.modified() {
        tmp.file().set_modified(t).map_err(io(to))?;
    }
    tmp.file().sync_all().map_err(io(to))?;
    tmp.link_as(to).map_err(io(to))?;
    crate::session::write::append::sync_dir(to);
    Ok(())
}

/// The first line of a branch archive file: what it came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchHeader {
    /// Always `piscope-branch-archive`.
    #[serde(rename = "type")]
    pub kind: String,
    pub version: u32,
    /// The session the branch was taken from (where it goes back).
    pub session: PathBuf,
    pub cwd: String,
    /// The entry the branch starts at, and its parent.
    pub entry: String,
    pub parent: Option<String>,
    pub time: String,
    /// How many entries went, and how many of them were messages.
    pub removed: usize,
    pub messages: u64,
}

const BRANCH_KIND: &str = "piscope-branch-archive";

/// One archived branch, as read from its file.
#[derive(Debug, Clone)]
pub struct ArchivedBranch {
    pub file: PathBuf,
    pub header: BranchHeader,
    pub lines: Vec<ArchivedLine>,
}

/// Archives the branch `plan` describes (planned by
/// `session::write::prune::plan_prune`, and planned again under the write
/// lock: a session that changed is refused): its lines to a file of their
/// own, then the branch pruned, the original to the trash, journalled.
pub fn archive_branch(
    folder: &SessionsFolder,
    plan: &PrunePlan,
) -> Result<(Pruned, PathBuf), ArchiveError> {
    let root = branches_root().ok_or(ArchiveError::NoDataFolder)?;
    confine::inside(folder, &plan.path)
        .map_err(|e| refused(&plan.path, format!("{e}; not archived")))?;
    let summary = crate::catalog::summarise_file(&plan.path)
        .map_err(io(&plan.path))?
        .ok_or_else(|| refused(&plan.path, "not a pi session file; not archived"))?;
    let stem = plan
        .path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let now = crate::jstext::date::now_ms();
    let file = root
        .join(project_folder_name(Path::new(&summary.cwd)))
        .join(format!("{stem}.{}.{now}.jsonl", safe_name(&plan.entry)));
    let header = BranchHeader {
        kind: BRANCH_KIND.to_string(),
        version: 1,
        session: std::path::absolute(&plan.path).unwrap_or_else(|_| plan.path.clone()),
        cwd: summary.cwd.clone(),
        entry: plan.entry.clone(),
        parent: plan.parent.clone(),
        time: crate::jstext::date::format_iso(now),
        removed: plan.removed.len(),
        messages: plan.messages,
    };
    let mut written = false;
    let mut keep_branch = |lines: &[ArchivedLine]| -> Result<(), String> {
        write_branch(&file, &header, lines).map_err(|e| e.to_string())?;
        written = true;
        Ok(())
    };
    let mut keep_original = |o: crate::session::write::rewrite::Original<'_>| {
        let left = journal::Left::of(o.new);
        journal::trash_recorded(o.real, Reason::ArchiveBranch, Some(o.link), |r| {
            r.left = Some(left);
            r.moved_to = Some(file.clone());
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    let pruned =
        crate::session::write::prune::prune_keeping(plan, &mut keep_branch, &mut keep_original);
    match pruned {
        Ok(p) => Ok((p, file)),
        Err(e) => {
            // Nothing changed in the session: the branch is still there.
            if written && !e.to_string().contains("the original is back in place") {
                let _ = fs::remove_file(&file);
            }
            Err(refused(&plan.path, e.to_string()))
        }
    }
}

/// An entry id as part of a file name: letters, digits, `-` and `_` kept,
/// anything else as its code in hex.
fn safe_name(id: &str) -> String {
    let mut out = String::new();
    for c in id.chars().take(64) {
        if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
            out.push(c);
        } else {
            out.push_str(&format!("%{:x}", c as u32));
        }
    }
    out
}

fn write_branch(
    file: &Path,
    header: &BranchHeader,
    lines: &[ArchivedLine],
) -> Result<(), ArchiveError> {
    if let Some(dir) = file.parent() {
        fs::create_dir_all(dir).map_err(io(dir))?;
    }
    crate::session::write::append::write_new_file_with(file, None, |out| {
        let mut put = |v: String| {
            out.write_all(v.as_bytes())
                .and_then(|()| out.write_all(b"\n"))
                .map_err(|e| crate::session::SessionError::io(file, e))
        };
        put(serde_json::to_string(header)
            .map_err(|e| crate::session::SessionError::io(file, std::io::Error::other(e)))?)?;
        for l in lines {
            put(serde_json::to_string(l)
                .map_err(|e| crate::session::SessionError::io(file, std::io::Error::other(e)))?)?;
        }
        Ok(())
    })
    .map_err(|e| refused(file, e.to_string()))
}

/// Reads one branch archive file; every line must be what piscope wrote
/// (the file is outside input: an error names its line).
pub fn read_branch(file: &Path) -> Result<ArchivedBranch, ArchiveError> {
    let text = crate::session::read::file::read_regular(file).map_err(io(file))?;
    let mut lines = text.split(|&b| b == b'\n').enumerate();
    let bad = |n: usize, why: String| refused(file, format!("line {}: {why}", n + 1));
    let (n, first) = lines
        .next()
        .ok_or_else(|| refused(file, "empty; not a branch archive"))?;
    let header: BranchHeader = serde_json::from_slice(first)
        .map_err(|e| bad(n, format!("not a branch archive's header ({e})")))?;
    if header.kind != BRANCH_KIND || header.version != 1 {
        return Err(bad(n, "not a branch archive piscope can read".to_string()));
    }
    let mut out = Vec::new();
    for (n, line) in lines {
        if line.trim_ascii().is_empty() {
            continue;
        }
        out.push(
            serde_json::from_slice::<ArchivedLine>(line)
                .map_err(|e| bad(n, format!("not an archived line ({e})")))?,
        );
    }
    Ok(ArchivedBranch {
        file: file.to_path_buf(),
        header,
        lines: out,
    })
}

/// Every archived branch, oldest first, and a note for each file that
/// does not read.
pub fn list_branches() -> (Vec<ArchivedBranch>, Vec<String>) {
    let Some(root) = branches_root() else {
        return (Vec::new(), Vec::new());
    };
    let (mut found, mut notes) = (Vec::new(), Vec::new());
    let Ok(projects) = fs::read_dir(&root) else {
        return (found, notes);
    };
    for p in projects.flatten() {
        let Ok(files) = fs::read_dir(p.path()) else {
            continue;
        };
        for f in files.flatten() {
            let path = f.path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            match read_branch(&path) {
                Ok(b) => found.push(b),
                Err(e) => notes.push(format!("{e}; skipped")),
            }
        }
    }
    found.sort_by(|a, b| a.header.time.cmp(&b.header.time).then(a.file.cmp(&b.file)));
    (found, notes)
}

/// What unarchiving a branch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BranchBack {
    /// The lines were grafted back into the session.
    Grafted(PathBuf),
    /// The session held them already (a run killed before it removed the
    /// archive file); only the archive file went.
    AlreadyThere(PathBuf),
}

/// Grafts an archived branch back into its session (inside `folder`),
/// then removes the archive file.
pub fn unarchive_branch(folder: &SessionsFolder, file: &Path) -> Result<BranchBack, ArchiveError> {
    let root = branches_root().ok_or(ArchiveError::NoDataFolder)?;
    let file = confine::resolve_inside(&root, file)
        .map_err(|e| refused(file, format!("{e}; not put back")))?;
    let branch = read_branch(&file)?;
    let session = branch.header.session.clone();
    confine::inside(folder, &session)
        .map_err(|e| refused(&session, format!("{e}; not put back")))?;
    let mut keep_original = |o: crate::session::write::rewrite::Original<'_>| {
        let left = journal::Left::of(o.new);
        journal::trash_recorded(o.real, Reason::UnarchiveBranch, Some(o.link), |r| {
            r.left = Some(left);
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    let grafted = branch_archive::graft_into(&session, &branch.lines, &mut keep_original)
        .map_err(|e| refused(&file, e.to_string()))?;
    fs::remove_file(&file).map_err(io(&file))?;
    crate::session::write::append::sync_dir(&file);
    Ok(if grafted {
        BranchBack::Grafted(session)
    } else {
        BranchBack::AlreadyThere(session)
    })
}

/// Whether `path` names a branch archive (a file under the branches
/// folder) rather than a session.
pub fn is_branch_file(path: &Path) -> bool {
    let Some(root) = branches_root() else {
        return false;
    };
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    abs.starts_with(&root)
        || fs::canonicalize(&abs)
            .ok()
            .zip(fs::canonicalize(&root).ok())
            .is_some_and(|(a, r)| a.starts_with(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_make_safe_file_names() {
        assert_eq!(safe_name("a1b2-c_3"), "a1b2-c_3");
        assert_eq!(safe_name("../x"), "%2e%2e%2fx");
    }
}
