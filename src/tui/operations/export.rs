//! Export the branch up to an entry: the key asks in a dialog for the
//! format (Markdown, an HTML page of the branch, or one of every branch;
//! the switch key goes through them) and the new file to write, Enter has
//! the worker render it and scan it for secrets. With none it is written at
//! once; else the review lists them (each redacted unless kept) and its
//! Enter writes the export so. The outcome names the file and what was
//! redacted.

use crate::render::{Export, Finding};
use crate::secrets::Scanner;
use crate::session::{self, Session};
use crate::tui::input::keymap::{Action, Scope};
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::overlays::text_input::TextInput;
use crate::tui::state::{App, ExportKind, Then};
use crate::tui::work::jobs::{ActionOutcome, Job, Reviewed};
use std::io::Write as _;
use std::path::{Path, PathBuf};

impl App {
    /// The export key: asks where to export the branch ending at the
    /// selected entry.
    pub(in crate::tui) fn ask_export(&mut self) {
        if let Some((path, leaf, what)) = self.selected_entry() {
            let kind = ExportKind::default();
            // Into the folder piscope runs in, as pi's `/export` writes,
            // named after the session's file; the whole path, so the user
            // sees where it goes.
            let stem = path.file_stem().unwrap_or_default();
            let here = std::path::absolute(self.here()).unwrap_or_else(|_| self.here().clone());
            let to = kind.file_name(&here.join(stem).to_string_lossy());
            let switch = self.config.keymap.keys_for(Scope::Dialog, Action::Switch);
            self.ask(Dialog::ask(
                strings::EXPORT_TITLE,
                strings::export_body(&what, kind.index(), &switch),
                &to,
                strings::EXPORT_YES,
                Then::Export { path, leaf, kind },
            ));
        }
    }

    /// The switch key in the export dialog: the next format, the file's
    /// name following it (a name the user typed keeps its stem).
    pub(in crate::tui) fn switch_export(&mut self) {
        let Some(mut d) = self.overlay.take_dialog() else {
            return;
        };
        if let Then::Export { kind, .. } = &mut d.then {
            *kind = kind.next();
            let switch = self.config.keymap.keys_for(Scope::Dialog, Action::Switch);
            // The first line names the entry; the rest follow the format.
            let what = d.body.first().cloned().unwrap_or_default();
            d.body = strings::export_body_after(what, kind.index(), &switch);
            if let Some(field) = d.input.as_mut() {
                *field = TextInput::new(&kind.file_name(&field.text));
            }
        }
        self.ask(d);
    }

    /// The branch is written.
    pub(in crate::tui) fn on_exported(&mut self, to: &Path, redacted: usize, kept: usize) {
        self.say(strings::exported(to, redacted, kept), false);
    }
}

/// Enter in the dialog: the worker renders the branch up to `leaf` (or
/// every branch) of the session at `path` and scans it; with no secret in
/// it, writes it into the new file `to`.
pub(in crate::tui) fn export_job(
    path: PathBuf,
    leaf: String,
    to: PathBuf,
    kind: ExportKind,
) -> Job {
    Job::new("export", move || match render(&path, &leaf, kind) {
        Ok(mut export) => {
            let findings = export.redact(Scanner::builtin(), &|_| false);
            if findings.is_empty() {
                write_export(&export, &to, 0, 0)
            } else {
                ActionOutcome::ReviewSecrets {
                    findings,
                    then: Box::new(Reviewed::Export {
                        export: Box::new(export),
                        to: to.clone(),
                    }),
                }
            }
        }
        Err(e) => ActionOutcome::Failed(e),
    })
}

/// Enter in the review: the worker writes the export into the new file
/// `to`, each finding redacted unless `keep` says.
pub(in crate::tui) fn reviewed_export_job(
    export: Box<Export>,
    to: PathBuf,
    keep: Vec<bool>,
) -> Job {
    Job::new("export", move || {
        let mut export = export.clone();
        let findings: Vec<Finding> = export.redact(Scanner::builtin(), &|i| {
            !keep.get(i).copied().unwrap_or(false)
        });
        let redacted = findings.iter().filter(|f| f.redacted).count();
        write_export(&export, &to, redacted, findings.len() - redacted)
    })
}

fn render(path: &Path, leaf: &str, kind: ExportKind) -> Result<Export, String> {
    let s = Session::open(path).map_err(|e| e.to_string())?;
    let at = s.find(leaf).ok_or_else(|| {
        session::SessionError::NoSuchEntry {
            path: path.to_path_buf(),
            id: leaf.to_string(),
        }
        .to_string()
    })?;
    Export::new(std::sync::Arc::new(s), Some(at), kind.shape()).map_err(|e| e.to_string())
}

fn write_export(export: &Export, to: &Path, redacted: usize, kept: usize) -> ActionOutcome {
    let text = export.write();
    // A new file only: an export never replaces anything.
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(to)
        .and_then(|mut f| f.write_all(text.as_bytes()));
    match written {
        Ok(()) => ActionOutcome::Exported {
            to: to.to_path_buf(),
            redacted,
            kept,
        },
        Err(e) => ActionOutcome::Failed(strings::file_failed(to, &e)),
    }
}
