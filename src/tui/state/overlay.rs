//! What is drawn over the panes: nothing, the help screen, the usage view,
//! a list of files to choose from, the review of the secrets an export or
//! a copy would carry, or a dialog (one at a time: a dialog that opens
//! replaces the others).

use super::then::Then;
use crate::tui::input::keymap::{Key, Keymap};
use crate::tui::overlays::dialog::{Dialog, DialogKey};
use crate::tui::overlays::file_list::{FileList, FileListKey};
use crate::tui::overlays::help::{Help, HelpKey};
use crate::tui::overlays::secret_review::{ReviewKey, SecretReview};
use crate::tui::overlays::usage::UsageView;
use crate::tui::work::jobs::Reviewed;

#[derive(Debug, Default)]
pub struct Overlay {
    shown: Shown,
}

#[derive(Debug, Default)]
enum Shown {
    #[default]
    None,
    Help(Help),
    Usage(Box<UsageView>),
    Dialog(Box<Dialog<Then>>),
    Files(Box<FileList>),
    Review(Box<SecretReview<Reviewed>>),
}

impl Overlay {
    /// Shows the help screen.
    pub fn show_help(&mut self) {
        self.shown = Shown::Help(Help::default());
    }

    /// Shows the usage view.
    pub fn show_usage(&mut self, view: UsageView) {
        self.shown = Shown::Usage(Box::new(view));
    }

    /// The usage view, if it is shown.
    pub fn usage(&self) -> Option<&UsageView> {
        match &self.shown {
            Shown::Usage(u) => Some(u),
            _ => None,
        }
    }

    pub fn usage_mut(&mut self) -> Option<&mut UsageView> {
        match &mut self.shown {
            Shown::Usage(u) => Some(u),
            _ => None,
        }
    }

    /// Shows a list of files to choose from.
    pub fn show_files(&mut self, list: FileList) {
        self.shown = Shown::Files(Box::new(list));
    }

    /// The list of files, if it is shown.
    pub fn files(&self) -> Option<&FileList> {
        match &self.shown {
            Shown::Files(f) => Some(f),
            _ => None,
        }
    }

    /// The list of files, to fill it in.
    pub fn files_mut(&mut self) -> Option<&mut FileList> {
        match &mut self.shown {
            Shown::Files(f) => Some(f),
            _ => None,
        }
    }

    /// Hands a key to the list of files; `None` when it is not shown.
    pub fn files_key(&mut self, k: Key, keymap: &Keymap, rows: usize) -> Option<FileListKey> {
        match &mut self.shown {
            Shown::Files(f) => Some(f.key(k, keymap, rows)),
            _ => None,
        }
    }

    /// Shows the secrets found, for review.
    pub fn show_review(&mut self, review: SecretReview<Reviewed>) {
        self.shown = Shown::Review(Box::new(review));
    }

    /// The review of secrets, if it is shown.
    pub fn review(&self) -> Option<&SecretReview<Reviewed>> {
        match &self.shown {
            Shown::Review(r) => Some(r),
            _ => None,
        }
    }

    /// Hands a key to the review; `None` when it is not shown.
    pub fn review_key(&mut self, k: Key, keymap: &Keymap, rows: usize) -> Option<ReviewKey> {
        match &mut self.shown {
            Shown::Review(r) => Some(r.key(k, keymap, rows)),
            _ => None,
        }
    }

    /// Closes the review and hands it over.
    pub fn take_review(&mut self) -> Option<SecretReview<Reviewed>> {
        match std::mem::take(&mut self.shown) {
            Shown::Review(r) => Some(*r),
            other => {
                self.shown = other;
                None
            }
        }
    }

    /// Shows the panes again.
    pub fn close(&mut self) {
        self.shown = Shown::None;
    }

    /// Opens a dialog (over the help screen too).
    pub fn ask(&mut self, dialog: Dialog<Then>) {
        self.shown = Shown::Dialog(Box::new(dialog));
    }

    /// Closes the dialog and hands it over.
    pub fn take_dialog(&mut self) -> Option<Dialog<Then>> {
        match std::mem::take(&mut self.shown) {
            Shown::Dialog(d) => Some(*d),
            other => {
                self.shown = other;
                None
            }
        }
    }

    /// The help screen, if it is shown.
    pub fn help(&self) -> Option<Help> {
        match self.shown {
            Shown::Help(h) => Some(h),
            _ => None,
        }
    }

    /// The dialog, if one is open.
    pub fn dialog(&self) -> Option<&Dialog<Then>> {
        match &self.shown {
            Shown::Dialog(d) => Some(d),
            _ => None,
        }
    }

    /// The dialog, to change what it shows (a live list).
    pub fn dialog_mut(&mut self) -> Option<&mut Dialog<Then>> {
        match &mut self.shown {
            Shown::Dialog(d) => Some(d),
            _ => None,
        }
    }

    /// Hands a key to the help screen; `None` when it is not shown.
    pub fn help_key(&mut self, k: Key, keymap: &Keymap, last: usize) -> Option<HelpKey> {
        match &mut self.shown {
            Shown::Help(h) => Some(h.key(k, keymap, last)),
            _ => None,
        }
    }

    /// Hands a key to the dialog; `None` when none is open.
    pub fn dialog_key(&mut self, k: Key, keymap: &Keymap) -> Option<DialogKey> {
        match &mut self.shown {
            Shown::Dialog(d) => Some(d.key(k, keymap)),
            _ => None,
        }
    }
}
