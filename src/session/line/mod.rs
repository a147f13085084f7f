//! Reading one line of a session file: the one reader of pi's session lines
//! for the facts read of every line (the session index's entries and the
//! catalog's summaries), the JSON rules of pi's JavaScript it relies on, and
//! the entry a line becomes in the session index.
//!
//! Two paths, one answer. The fast path ([`read_fast_into`]) is a
//! validating pass over the bytes for lines as pi writes them; it gives up
//! on anything it is not sure of, and any other line is read by the serde
//! fallback ([`LineFields`], [`read_slow`]). Both hand back the same
//! [`LineFacts`]; a test holds the two paths equal over the test corpora.
//!
//! ```text
//! facts.rs      what a line's reading hands back (LineFacts, usage totals)
//! fast.rs       the fast path over the bytes
//! cursor.rs     its validating JSON cursor
//! fallback.rs   the serde fallback: one struct for every line JSON.parse reads
//! fields.rs     the fallback's forgiving field readers
//! jsvalue.rs    JSON as JavaScript's JSON.parse / JSON.stringify see it
//! jskey.rs      entry ids as keys of pi's Map
//! raw_json.rs   a JSON object edited with its other values kept as written
//! entry.rs      one line reduced to what the index keeps (Entry, Header)
//! to_entry.rs   a line read into an Entry (the index pass's reading)
//! ```

pub(crate) mod cursor;
pub mod entry;
pub(crate) mod facts;
pub(crate) mod fallback;
pub(crate) mod fast;
pub mod fields;
pub mod jskey;
pub mod jsvalue;
pub mod raw_json;
pub(crate) mod to_entry;

pub(crate) use facts::{Content, LineFacts, Message, MessageFacts, NameField, Want};
pub use facts::{UsageParts, UsageTotals};
pub(crate) use fallback::{KeepText, LineFields, SkipText, Slow, TextMode, read_slow};
pub(crate) use fast::{read_fast_into, read_fast_into_with, read_fast_line};
