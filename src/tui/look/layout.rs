//! Where everything goes on screen: one, two or three panes by terminal
//! width, then the status bar and the hint line. Shared by update and draw.

use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders};

/// Terminals at least this wide show the sessions beside the entries and
/// the context while the entries or the context have the focus.
pub const THREE_PANES: u16 = 160;
/// Terminals at least this wide show the entries and the context side by
/// side.
pub const TWO_PANES: u16 = 100;

/// The three panes, in their left-to-right order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Picker,
    Tree,
    Preview,
}

impl Pane {
    pub fn title(self) -> &'static str {
        match self {
            Pane::Picker => "Sessions",
            Pane::Tree => "Entries",
            Pane::Preview => "Context",
        }
    }
}

/// The rectangles of one frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub banner: Option<Rect>,
    /// The panes shown, left to right.
    pub panes: Vec<(Pane, Rect)>,
    pub status: Rect,
    pub hints: Rect,
}

impl Layout {
    /// Lays out `area`. `panes` are the panes this run has (no picker when
    /// one file was opened); `focus` decides which show on narrow terminals.
    pub fn compute(area: Rect, panes: &[Pane], focus: Pane, banner: bool) -> Layout {
        let mut y = area.y;
        let mut height = area.height;
        let banner = (banner && height > 3).then(|| {
            let r = Rect::new(area.x, y, area.width, 1);
            y += 1;
            height -= 1;
            r
        });
        let bars = height.min(2);
        let body_h = height - bars;
        let status = Rect::new(area.x, y + body_h, area.width, bars.min(1));
        let hints = Rect::new(area.x, y + body_h + 1, area.width, bars.saturating_sub(1));
        let shown = visible_panes(area.width, panes, focus);
        let body = Rect::new(area.x, y, area.width, body_h);
        let rects = split(body, &shown);
        Layout {
            banner,
            panes: shown.into_iter().zip(rects).collect(),
            status,
            hints,
        }
    }

    pub fn rect(&self, pane: Pane) -> Option<Rect> {
        self.panes.iter().find(|(p, _)| *p == pane).map(|(_, r)| *r)
    }

    /// The panes' borders: a pane alone has the whole width, so it keeps
    /// only the rules above and below (as pi's full-screen views do), and
    /// its rows get the side borders' two columns.
    pub fn borders(&self) -> Borders {
        if self.panes.len() == 1 {
            Borders::TOP | Borders::BOTTOM
        } else {
            Borders::ALL
        }
    }

    /// The area inside a shown pane's border.
    pub fn inner(&self, pane: Pane) -> Option<Rect> {
        let r = self.rect(pane)?;
        Some(Block::new().borders(self.borders()).inner(r))
    }

    /// The pane under a screen position.
    pub fn pane_at(&self, x: u16, y: u16) -> Option<Pane> {
        self.panes
            .iter()
            .find(|(_, r)| r.contains(ratatui::layout::Position { x, y }))
            .map(|(p, _)| *p)
    }
}

/// Which panes are shown. The sessions list, focused, has the whole width,
/// as pi's `/resume` has: its titles get the room that pi gives them. The
/// entries or the context, focused, show side by side when they fit (and
/// with the sessions on wide terminals); below that the focused pane alone.
/// The key to the next pane names the one it brings in (the hint line).
fn visible_panes(width: u16, panes: &[Pane], focus: Pane) -> Vec<Pane> {
    if panes.len() <= 1 {
        return panes.to_vec();
    }
    let focus = if panes.contains(&focus) {
        focus
    } else {
        panes[0]
    };
    if focus == Pane::Picker {
        return vec![Pane::Picker];
    }
    if width >= THREE_PANES {
        return panes.to_vec();
    }
    if width >= TWO_PANES {
        return panes
            .iter()
            .copied()
            .filter(|p| *p != Pane::Picker)
            .collect();
    }
    vec![focus]
}

/// Widths: sessions 25 %, entries 35 %, context the rest; entries 45 % and
/// context the rest without the picker.
fn split(body: Rect, panes: &[Pane]) -> Vec<Rect> {
    let weights: Vec<u32> = panes
        .iter()
        .map(|p| match (p, panes.len()) {
            (_, 1) => 1,
            (Pane::Picker, _) => 25,
            (Pane::Tree, 3) => 35,
            (Pane::Tree, _) => 45,
            (Pane::Preview, 3) => 40,
            (Pane::Preview, _) => 55,
        })
        .collect();
    let total: u32 = weights.iter().sum::<u32>().max(1);
    let mut x = body.x;
    let mut out = Vec::new();
    for (k, w) in weights.iter().enumerate() {
        let width = if k + 1 == weights.len() {
            body.x + body.width - x
        } else {
            (u32::from(body.width) * w / total) as u16
        };
        out.push(Rect::new(x, body.y, width, body.height));
        x += width;
    }
    out
}

/// The first row a list of `len` rows `height` high shows, moved from
/// `offset` as little as keeps row `selected` in view.
pub fn offset_showing(selected: usize, offset: usize, height: usize, len: usize) -> usize {
    let h = height.max(1);
    let offset = if selected < offset {
        selected
    } else if selected >= offset + h {
        selected + 1 - h
    } else {
        offset
    };
    offset.min(len.saturating_sub(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Pane; 3] = [Pane::Picker, Pane::Tree, Pane::Preview];

    fn shown(width: u16, focus: Pane) -> Vec<Pane> {
        Layout::compute(Rect::new(0, 0, width, 30), &ALL, focus, false)
            .panes
            .into_iter()
            .map(|(p, _)| p)
            .collect()
    }

    #[test]
    fn panes_by_width() {
        assert_eq!(shown(160, Pane::Tree), ALL.to_vec());
        assert_eq!(shown(200, Pane::Picker), vec![Pane::Picker]);
        assert_eq!(shown(150, Pane::Tree), vec![Pane::Tree, Pane::Preview]);
        assert_eq!(shown(100, Pane::Picker), vec![Pane::Picker]);
        assert_eq!(shown(100, Pane::Tree), vec![Pane::Tree, Pane::Preview]);
        assert_eq!(shown(100, Pane::Preview), vec![Pane::Tree, Pane::Preview]);
        assert_eq!(shown(99, Pane::Preview), vec![Pane::Preview]);
        assert_eq!(shown(80, Pane::Tree), vec![Pane::Tree]);
        let one_file = [Pane::Tree, Pane::Preview];
        let l = Layout::compute(Rect::new(0, 0, 80, 24), &one_file, Pane::Preview, false);
        assert_eq!(l.panes.len(), 1);
    }

    #[test]
    fn rects_cover_the_body_and_bars_sit_below() {
        let l = Layout::compute(Rect::new(0, 0, 161, 40), &ALL, Pane::Tree, true);
        assert_eq!(l.banner, Some(Rect::new(0, 0, 161, 1)));
        let widths: u16 = l.panes.iter().map(|(_, r)| r.width).sum();
        assert_eq!(widths, 161);
        assert_eq!(l.panes[0].1.height, 37);
        assert_eq!(l.status, Rect::new(0, 38, 161, 1));
        assert_eq!(l.hints, Rect::new(0, 39, 161, 1));
        assert_eq!(l.pane_at(60, 5), Some(Pane::Tree));
        assert_eq!(l.pane_at(2, 5), Some(Pane::Picker));
    }

    #[test]
    fn tiny_terminals_do_not_underflow() {
        let l = Layout::compute(Rect::new(0, 0, 5, 1), &ALL, Pane::Tree, true);
        assert_eq!(l.banner, None);
        assert_eq!(l.panes[0].1.height, 0);
    }
}
