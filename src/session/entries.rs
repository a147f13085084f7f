//! A session's entries in file order, as [`super::Session`] holds them:
//! read from the file, each kept as it was read.

use super::line::entry::{Entry, Kind};

/// The entries of a session, by index (`u32` in the tree, `usize` here).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entries {
    list: Vec<Entry>,
}

impl Entries {
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn get(&self, i: usize) -> Option<&Entry> {
        self.list.get(i)
    }

    pub fn last(&self) -> Option<&Entry> {
        self.list.last()
    }

    /// Entry `i`'s type (`Kind::Header` past the end: nothing there is
    /// part of the tree).
    pub fn kind(&self, i: usize) -> Kind {
        self.list.get(i).map_or(Kind::Header, |e| e.kind)
    }

    /// Every entry, first to last.
    pub fn iter(&self) -> std::slice::Iter<'_, Entry> {
        self.list.iter()
    }

    /// The entries from `from` on (none past the end).
    pub fn since(&self, from: usize) -> std::slice::Iter<'_, Entry> {
        self.list.get(from..).unwrap_or_default().iter()
    }

    /// The entries as one slice.
    pub(crate) fn as_slice(&self) -> &[Entry] {
        &self.list
    }

    pub(crate) fn push(&mut self, e: Entry) {
        self.list.push(e);
    }

    /// The entries to change in place (migration, the outline's infos).
    pub(crate) fn as_mut_slice(&mut self) -> &mut [Entry] {
        &mut self.list
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.list.shrink_to_fit();
    }
}

impl From<Vec<Entry>> for Entries {
    fn from(list: Vec<Entry>) -> Entries {
        Entries { list }
    }
}

impl std::ops::Index<usize> for Entries {
    type Output = Entry;

    fn index(&self, i: usize) -> &Entry {
        &self.list[i]
    }
}

impl<'a> IntoIterator for &'a Entries {
    type Item = &'a Entry;
    type IntoIter = std::slice::Iter<'a, Entry>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
