//! The review of secrets: an export or a copy whose text holds secrets
//! shows them before anything is written, each redacted unless the user
//! keeps it (the keep key); Enter hands the worker the export or the copy
//! with those choices, Esc drops it and says nothing was written.

use crate::render::Finding;
use crate::tui::event::Command;
use crate::tui::input::keymap::Key;
use crate::tui::look::strings;
use crate::tui::overlays::secret_review::{ReviewKey, SecretReview, review_rows};
use crate::tui::state::App;
use crate::tui::work::jobs::Reviewed;

impl App {
    /// The worker found secrets: list them for review.
    pub(in crate::tui) fn review_secrets(&mut self, findings: Vec<Finding>, then: Reviewed) {
        let (title, yes) = match &then {
            Reviewed::Export { .. } => (strings::REVIEW_EXPORT_TITLE, strings::EXPORT_YES),
            Reviewed::Copy { .. } => (strings::REVIEW_COPY_TITLE, strings::REVIEW_COPY_YES),
        };
        self.overlay
            .show_review(SecretReview::new(title, yes, findings, then));
    }

    /// A key while the review is shown; false when it is not.
    pub(in crate::tui) fn on_review_key(&mut self, k: Key, cmds: &mut Vec<Command>) -> bool {
        let rows = review_rows(self.screen.size().height);
        let Some(answer) = self.overlay.review_key(k, &self.config.keymap, rows) else {
            return false;
        };
        match answer {
            ReviewKey::Stay => {}
            ReviewKey::Cancel => {
                self.overlay.close();
                self.say(strings::REVIEW_CANCELLED.to_string(), false);
            }
            ReviewKey::Submit(keep) => {
                if let Some(review) = self.overlay.take_review() {
                    let job = match review.then {
                        Reviewed::Export { export, to } => {
                            super::export::reviewed_export_job(export, to, keep)
                        }
                        Reviewed::Copy { text, hits } => {
                            super::copy::reviewed_copy_job(text, hits, keep)
                        }
                    };
                    cmds.push(Command::Act(job));
                }
            }
        }
        true
    }
}
