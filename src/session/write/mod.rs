//! Changing session files as pi would: every writer takes piscope's write
//! lock, appends whole lines or replaces the file atomically, and brings a
//! legacy file to version 3 first.
//!
//! ```text
//! lock.rs      the write lock and the checks before any change
//! append.rs    one line appended: label, name, branch (pi's /tree rule)
//! migrate.rs   versions 1 and 2 brought to 3 (in memory and as text)
//! fork.rs      one branch into a new session file (and its export)
//! prune.rs     a branch taken out, what pi reads of it carried over
//! branch_archive.rs  a pruned branch's lines with their places, grafted back
//! rewrite.rs   a file replaced by a new version, the original handed over
//! temp.rs      piscope's temporary files and their leftovers
//! ids.rs       fresh ids as pi makes them
//! ```

pub mod append;
pub mod branch_archive;
pub mod fork;
mod ids;
pub(crate) mod lock;
pub mod migrate;
pub mod prune;
pub mod rewrite;
pub mod temp;
