//! Reading session files: only regular files, in blocks on all cores, with
//! fingerprints that tell a file that grew from one rewritten in place; and
//! the index pass that turns a whole file into entries.
//!
//! ```text
//! file.rs         opening regular files only; fingerprints of bytes read
//! blocks.rs       the block reader: lines in file order with their
//!                 offsets, parsed on all cores; bodies read back by position
//! index_pass.rs   a whole file read into header, entries and problems, at
//!                 the depth asked for (Detail)
//! chunked.rs      a stored index's section in checked chunks, read when used
//! ```

pub mod blocks;
pub mod chunked;
pub mod file;
pub mod index_pass;
