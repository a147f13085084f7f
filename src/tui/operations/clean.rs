//! Clean up by rule: a dialog whose field takes `piscope clean`'s rules and
//! lists, as they are typed, the listed sessions they pick (by the
//! catalog's one matching code); Enter trashes the list shown, each
//! session only if the rules still pick it at that moment, journalled as a
//! clean-up.

use super::quote;
use crate::catalog::SessionSummary;
use crate::catalog::housekeeping::clean;
use crate::catalog::housekeeping::delete::DeleteMode;
use crate::catalog::housekeeping::journal::Reason;
use crate::safe_text as text;
use crate::session::tree::entry_line::shorten_home;
use crate::tui::look::strings;
use crate::tui::overlays::dialog::Dialog;
use crate::tui::state::{App, Then};
use crate::tui::work::jobs::Job;
use std::path::PathBuf;

/// Widest a session's title is in the list (its project and why follow).
const TITLE_WIDTH: usize = 40;

impl App {
    /// Opens the clean-up dialog, its field holding the usual rules and its
    /// list what they pick now.
    pub(in crate::tui) fn ask_clean(&mut self) {
        self.ask(Dialog::ask(
            strings::CLEAN_TITLE,
            Vec::new(),
            strings::CLEAN_RULES,
            &strings::clean_yes(0),
            Then::Clean {
                rules: String::new(),
                picked: Vec::new(),
            },
        ));
        self.refresh_clean();
    }

    /// Lists again what the clean-up dialog's rules pick, when the rules
    /// changed since its list was made (any other dialog is left alone).
    pub(in crate::tui) fn refresh_clean(&mut self) {
        let Some(d) = self.overlay.dialog() else {
            return;
        };
        let Then::Clean { rules, .. } = &d.then else {
            return;
        };
        let typed = d.field().unwrap_or_default();
        if *rules == typed && !d.body.is_empty() {
            return;
        }
        let typed = typed.to_string();
        let listed = self.picker().listed_sessions();
        let (body, picked) = clean_list(&typed, &listed, self.clock.now_ms, self.screen.home());
        if let Some(d) = self.overlay.dialog_mut() {
            d.body = body;
            d.scroll = 0;
            d.enabled = !picked.is_empty();
            d.yes = strings::clean_yes(picked.len());
            d.then = Then::Clean {
                rules: typed,
                picked,
            };
        }
    }

    /// The job that trashes the sessions the dialog listed for `rules`,
    /// each checked now and again as it goes (the rules too: a session pi
    /// wrote into since the list was made is kept); `None` when none may go.
    pub(in crate::tui) fn clean_job(&mut self, rules: &str, picked: &[PathBuf]) -> Option<Job> {
        let rules = clean::parse_rules(rules).ok()?;
        let files: Vec<_> = self
            .check_deletable(picked)
            .into_iter()
            .map(|f| f.while_picked_by(&rules))
            .collect();
        if files.is_empty() {
            return None;
        }
        Some(self.delete_job(files, DeleteMode::Trash, Reason::Clean))
    }
}

/// The dialog's body for `rules` over the `listed` sessions at `now_ms`
/// (how the rules read, then one line per session picked: its title, its
/// project and why), and the sessions picked, in the list's order.
fn clean_list(
    rules: &str,
    listed: &[SessionSummary],
    now_ms: i64,
    home: Option<&str>,
) -> (Vec<String>, Vec<PathBuf>) {
    let mut body = strings::clean_body();
    body.push(String::new());
    let rules = match clean::parse_rules(rules) {
        Ok(r) => r,
        Err(why) => {
            body.push(strings::clean_rules_error(&why));
            return (body, Vec::new());
        }
    };
    let picked = rules.pick(listed, now_ms);
    if picked.is_empty() {
        body.push(strings::CLEAN_NONE.to_string());
        return (body, Vec::new());
    }
    body.push(strings::clean_matches(picked.len(), listed.len()));
    body.extend(picked.iter().map(|p| {
        let s = p.summary;
        strings::clean_picked(
            &text::truncate(&quote(s.title()), TITLE_WIDTH),
            &text::clean_line(&shorten_home(&s.cwd, home)),
            &text::clean_line(&p.why.join(", ")),
        )
    }));
    let paths = picked.into_iter().map(|p| p.summary.path.clone()).collect();
    (body, paths)
}
