//! Reading one line of a session file: the one line reader (a validating
//! fast path for the lines pi writes, one serde struct for every other
//! line), the JSON rules of pi's JavaScript it relies on, and the entry a
//! line becomes in the session index.
//!
//! ```text
//! fast.rs       the one line reader: fast path and serde fallback
//! cursor.rs     the fast path's validating JSON cursor
//! fields.rs     forgiving field readers for the serde fallback
//! jsvalue.rs    JSON as JavaScript's JSON.parse / JSON.stringify see it
//! jskey.rs      entry ids as keys of pi's Map
//! raw_json.rs   a JSON object edited with its other values kept as written
//! entry.rs      one line reduced to what the index keeps (Entry, Header)
//! to_entry.rs   a line read into an Entry (the index pass's reading)
//! ```

pub(crate) mod cursor;
pub mod entry;
pub(crate) mod fast;
pub mod fields;
pub mod jskey;
pub mod jsvalue;
pub mod raw_json;
pub(crate) mod to_entry;
