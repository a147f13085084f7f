//! What a branch of the open session cost, for the status bar: the path
//! from the root to the selected entry, and everything below it (the
//! subtree a fork starts), remembered per selection.

use crate::tui::look::format;
use crate::tui::model::loaded::LoadedSession;
use std::cell::RefCell;
use std::sync::Arc;

/// The last answer, so a frame that shows the same selection adds nothing up.
#[derive(Debug, Default)]
pub struct BranchSpend {
    last: RefCell<Option<(usize, u32, String)>>,
}

impl Clone for BranchSpend {
    fn clone(&self) -> BranchSpend {
        BranchSpend::default()
    }
}

impl BranchSpend {
    /// `path $0.12 · below $0.05` for `node` of `session`; the part below
    /// only when something was spent below the entry. Empty when nothing
    /// was spent on the path nor below.
    pub fn text(&self, loaded: &LoadedSession, node: u32) -> String {
        let id = Arc::as_ptr(&loaded.session) as usize;
        if let Some((s, n, t)) = &*self.last.borrow() {
            if (*s, *n) == (id, node) {
                return t.clone();
            }
        }
        let t = describe(loaded, node);
        *self.last.borrow_mut() = Some((id, node, t.clone()));
        t
    }
}

fn cost_of(loaded: &LoadedSession, node: u32) -> (f64, f64) {
    loaded
        .usage(node)
        .map_or((0.0, 0.0), |u| (u.cost, u.tokens))
}

fn describe(loaded: &LoadedSession, node: u32) -> String {
    let session = &loaded.session;
    let tree = &session.tree;
    let (mut cost, mut tokens) = (0.0, 0.0);
    for n in tree.path_to(node) {
        let (c, t) = cost_of(loaded, n);
        cost += c;
        tokens += t;
    }
    if cost == 0.0 && tokens == 0.0 && tree.children(node).is_empty() {
        return String::new();
    }
    let mut text = format!("path {} {} tok", format::cost(cost), format::tokens(tokens));
    if !tree.children(node).is_empty() {
        // Below the entry: its descendants (a node reached twice, as a
        // duplicated id can make it, counts once).
        let mut seen = vec![false; session.entries.len()];
        let (mut c, mut t) = (0.0, 0.0);
        let mut stack: Vec<u32> = tree.children(node).to_vec();
        while let Some(n) = stack.pop() {
            match seen.get_mut(n as usize) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            let (dc, dt) = cost_of(loaded, n);
            c += dc;
            t += dt;
            stack.extend_from_slice(tree.children(n));
        }
        if c > 0.0 || t > 0.0 {
            text.push_str(&format!(
                " · below {} {} tok",
                format::cost(c),
                format::tokens(t)
            ));
        }
    }
    text
}
