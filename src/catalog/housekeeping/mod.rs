//! Tidying the sessions folder, never losing a file: deletes to the trash
//! (checked again at the moment), clean-up by rule, following a project
//! folder that moved, the archive, and the journal that puts any of them
//! back.
//!
//! ```text
//! confine.rs        the one check: nothing resolved outside the sessions folder
//! delete.rs         deleting sessions safely (trash by default)
//! clean.rs          which sessions a set of clean-up rules picks
//! move_project.rs   sessions following a project folder that moved
//! journal.rs        what piscope trashed, and restoring it
//! archive.rs        sessions and branches out of pi's way, and back
//! ```

pub mod archive;
pub mod clean;
pub mod confine;
pub mod delete;
pub mod journal;
pub mod move_project;
