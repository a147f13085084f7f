//! The secrets an export or a copy would carry, listed for review before
//! anything is written: each with its kind, its place (entry, role, line)
//! and a masked preview, redacted unless the user keeps it. Enter goes on
//! with the choices, the keep key turns the highlighted one over, Esc
//! writes nothing. Its keys are a dialog's.

use crate::render::Finding;
use crate::safe_text as text;
use crate::tui::input::keymap::{Action, Key, Keymap, Scope};
use crate::tui::look::theme::Theme;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Widest the list gets.
const MAX_WIDTH: u16 = 100;

#[derive(Debug, Clone)]
pub struct SecretReview<T> {
    pub title: String,
    /// What Enter does ("export", "copy").
    pub yes: String,
    pub findings: Vec<Finding>,
    /// Per finding: kept as it is (else redacted).
    pub keep: Vec<bool>,
    pub selected: usize,
    pub offset: usize,
    pub then: T,
}

/// What a key did to the review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReviewKey {
    /// Enter: which findings are kept.
    Submit(Vec<bool>),
    Cancel,
    Stay,
}

impl<T> SecretReview<T> {
    /// Every finding redacted, the first highlighted.
    pub fn new(title: &str, yes: &str, findings: Vec<Finding>, then: T) -> SecretReview<T> {
        SecretReview {
            title: title.to_string(),
            yes: yes.to_string(),
            keep: vec![false; findings.len()],
            findings,
            selected: 0,
            offset: 0,
            then,
        }
    }

    /// A key, as the keymap's dialog scope (then the global quit) says.
    pub fn key(&mut self, k: Key, keymap: &Keymap, rows: usize) -> ReviewKey {
        let len = self.findings.len();
        match keymap.own_action(Scope::Dialog, k) {
            Some(Action::Cancel) => return ReviewKey::Cancel,
            Some(Action::Confirm) => return ReviewKey::Submit(self.keep.clone()),
            Some(Action::Keep) => {
                if let Some(k) = self.keep.get_mut(self.selected) {
                    *k = !*k;
                }
            }
            Some(a @ (Action::Up | Action::Down | Action::PageUp | Action::PageDown)) => {
                self.selected = a.moved(self.selected, len, rows.max(1)).unwrap_or(0);
            }
            _ => {
                if keymap.own_action(Scope::Global, k) == Some(Action::Quit) {
                    return ReviewKey::Cancel;
                }
            }
        }
        self.offset =
            crate::tui::look::layout::offset_showing(self.selected, self.offset, rows, len);
        ReviewKey::Stay
    }
}

/// The rows of findings a review of this screen height shows.
pub fn review_rows(area_height: u16) -> usize {
    usize::from(area_height.saturating_sub(8)).max(1)
}

/// One finding's row: whether it is redacted, its kind, place and preview.
pub fn row_text(f: &Finding, keep: bool) -> String {
    let place = match &f.entry {
        Some(id) => format!("{id} {} line {}", f.role, f.line),
        None => format!("{} line {}", f.role, f.line),
    };
    format!(
        "{} {:<20} {:<34} {}",
        if keep { "[kept]    " } else { "[redacted]" },
        f.kind,
        place,
        f.preview
    )
}

/// Draws `review` over the middle of `area`.
pub fn draw<T>(
    frame: &mut Frame,
    area: Rect,
    review: &SecretReview<T>,
    keymap: &Keymap,
    theme: &Theme,
) {
    let w = area.width.saturating_sub(4).min(MAX_WIDTH);
    if w < 20 || area.height < 7 {
        return;
    }
    let rows = review_rows(area.height);
    let h = (review.findings.len().clamp(1, rows) + 4).min(usize::from(area.height)) as u16;
    let confirm = keymap.keys_for(Scope::Dialog, Action::Confirm);
    let keep = keymap.keys_for(Scope::Dialog, Action::Keep);
    let cancel = keymap.keys_for(Scope::Dialog, Action::Cancel);
    let hint = format!(
        "{confirm} {} · {keep} keep / redact · {cancel} cancel",
        review.yes
    );
    let inner = super::dialog::dialog_box(
        frame,
        area,
        (w, h),
        &review.title,
        &hint,
        theme.border_focused,
        theme,
    );
    let width = usize::from(inner.width);
    let kept = review.keep.iter().filter(|k| **k).count();
    let mut lines: Vec<Line<'_>> = vec![Line::styled(
        text::fit(
            &format!(
                "{} found: redacted unless kept ({} kept). Place: entry, role, line.",
                review.findings.len(),
                kept
            ),
            width,
        ),
        theme.muted,
    )];
    for (i, f) in review
        .findings
        .iter()
        .enumerate()
        .skip(review.offset)
        .take(rows)
    {
        let keep = review.keep.get(i).copied().unwrap_or(false);
        let row = text::fit(&text::clean_line(&row_text(f, keep)), width);
        let style = if i == review.selected {
            theme.selected
        } else if keep {
            theme.error
        } else {
            ratatui::style::Style::default()
        };
        lines.push(Line::from(Span::styled(row, style)));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(kind: &str) -> Finding {
        Finding {
            kind: kind.into(),
            entry: Some("a1b2c3d4".into()),
            role: "user".into(),
            line: 2,
            preview: "AKI…P2T".into(),
            redacted: true,
        }
    }

    #[test]
    fn the_keep_key_turns_the_highlighted_finding_over() {
        let mut r = SecretReview::new(
            "Secrets",
            "export",
            vec![finding("jwt"), finding("aws-access-key")],
            (),
        );
        let km = Keymap::defaults();
        let press =
            |r: &mut SecretReview<()>, spec: &str| r.key(Key::parse(spec).unwrap(), &km, 10);
        press(&mut r, "down");
        press(&mut r, "ctrl+space");
        assert_eq!(press(&mut r, "enter"), ReviewKey::Submit(vec![false, true]));
        press(&mut r, "ctrl+space");
        assert_eq!(
            press(&mut r, "enter"),
            ReviewKey::Submit(vec![false, false])
        );
        assert_eq!(press(&mut r, "esc"), ReviewKey::Cancel);
    }
}
