//! Following a project folder that moved: every session whose header `cwd`
//! is the old folder (or below it) gets the new `cwd` and goes to pi's
//! folder for it (`--<new cwd>--`), so pi started in the new folder finds it
//! in `/resume`; a `parentSession` that named a moved file names it where
//! it went. Each file is written whole beside its new name before the
//! original goes to the trash (journalled).

use crate::catalog::SessionSummary;
use crate::catalog::discover::{Layout, SessionsFolder, normalize, project_folder_name};
use crate::catalog::housekeeping::confine;
use crate::catalog::housekeeping::journal::{self, Reason};
use crate::session::write::rewrite::{self, Moved};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One session to move.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    pub from: PathBuf,
    pub to: PathBuf,
    pub old_cwd: String,
    pub new_cwd: String,
    /// The header's `parentSession`, then what it becomes (when it changes).
    pub parent: Option<(String, String)>,
}

/// `cwd` moved from `old` to `new`: the new cwd, when `cwd` is `old` or
/// below it (by whole path components).
pub fn moved_cwd(cwd: &str, old: &Path, new: &Path) -> Option<String> {
    if cwd.is_empty() {
        return None;
    }
    let cwd = normalize(Path::new(cwd));
    let rest = cwd.strip_prefix(old).ok()?;
    let to = if rest.as_os_str().is_empty() {
        new.to_path_buf()
    } else {
        new.join(rest)
    };
    Some(to.to_string_lossy().into_owned())
}

/// The moves for the sessions of `sessions` under `old`, to `new` (both
/// absolute). In pi's per-project folder each file goes to the folder for
/// its new cwd; in a custom (flat) folder it stays where it is.
pub fn plan(
    folder: &SessionsFolder,
    sessions: &[SessionSummary],
    old: &Path,
    new: &Path,
) -> Vec<Move> {
    let old = normalize(old);
    let new = normalize(new);
    let mut moves: Vec<Move> = Vec::new();
    for s in sessions {
        let Some(new_cwd) = moved_cwd(&s.cwd, &old, &new) else {
            continue;
        };
        let to = match folder.layout {
            Layout::PerProject => {
                let name = s.path.file_name().map(PathBuf::from).unwrap_or_default();
                folder
                    .dir
                    .join(project_folder_name(Path::new(&new_cwd)))
                    .join(name)
            }
            Layout::Flat => s.path.clone(),
        };
        moves.push(Move {
            from: s.path.clone(),
            to,
            old_cwd: s.cwd.clone(),
            new_cwd,
            parent: None,
        });
    }
    let renamed: HashMap<PathBuf, PathBuf> = moves
        .iter()
        .filter(|m| m.from != m.to)
        .map(|m| (normalize(&m.from), m.to.clone()))
        .collect();
    for (m, s) in moves.iter_mut().zip(
        sessions
            .iter()
            .filter(|s| moved_cwd(&s.cwd, &old, &new).is_some()),
    ) {
        if let Some(p) = &s.parent_session_path {
            if let Some(to) = renamed.get(&normalize(Path::new(p))) {
                m.parent = Some((p.clone(), to.to_string_lossy().into_owned()));
            }
        }
    }
    moves
}

/// Carries out one move: the new file whole at `to` (or the header
/// rewritten in place), then the original to the trash, journalled. Both
/// ends must lie inside the sessions folder, symlinks resolved at this
/// moment: a session that is a symlink to a file elsewhere is refused.
pub fn carry_out(folder: &SessionsFolder, m: &Move) -> Result<Moved, crate::session::SessionError> {
    for p in [&m.from, &m.to] {
        confine::inside(folder, p).map_err(|e| crate::session::SessionError::Refused {
            path: m.from.clone(),
            reason: e.to_string(),
        })?;
    }
    let new_cwd = m.new_cwd.clone();
    let parent = m.parent.as_ref().map(|(_, to)| to.clone());
    let set = move |o: &mut crate::session::line::raw_json::RawObject| {
        o.set("cwd", new_cwd.as_str());
        if let Some(p) = &parent {
            o.set("parentSession", p.as_str());
        }
    };
    let to = m.to.clone();
    rewrite::move_with_header(&m.from, &m.to, &set, &mut |o| {
        let in_place = o.link != o.real;
        let left = in_place.then(|| journal::Left::of(o.new));
        let trashed_as = in_place.then_some(o.link);
        journal::trash_recorded(o.real, Reason::MoveProject, trashed_as, |r| {
            r.left = left;
            r.moved_to = (!in_place).then(|| to.clone());
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_folder_and_below_move() {
        let (old, new) = (Path::new("/home/a/proj"), Path::new("/work/proj2"));
        assert_eq!(
            moved_cwd("/home/a/proj", old, new).as_deref(),
            Some("/work/proj2")
        );
        assert_eq!(
            moved_cwd("/home/a/proj/", old, new).as_deref(),
            Some("/work/proj2")
        );
        assert_eq!(
            moved_cwd("/home/a/proj/sub/x", old, new).as_deref(),
            Some("/work/proj2/sub/x")
        );
        assert_eq!(
            moved_cwd("/home/a/project", old, new),
            None,
            "a sibling with the same start"
        );
        assert_eq!(moved_cwd("/home/a", old, new), None);
        assert_eq!(moved_cwd("", old, new), None);
    }
}
