//! Reading session files: only regular files, in blocks on all cores, with
//! fingerprints that tell a file that grew from one rewritten in place.
//!
//! ```text
//! file.rs     opening regular files only; fingerprints of bytes read
//! blocks.rs   the block reader: lines in file order with their offsets,
//!             parsed on all cores; bodies read back by position
//! ```

pub mod blocks;
pub mod file;
