//! Finding sessions: pi's `/resume` search over the summaries (its query
//! language, sort orders and the threaded view of forks), and deep search
//! over every entry's text, with the index that keeps it fast.
//!
//! ```text
//! query.rs        pi's search language, sort orders, threaded forks
//! deep.rs         deep search: the query over every entry's texts
//! deep_index.rs   the deep-search index in the cache folder
//! touched.rs       the files a session's tool calls touched; path patterns
//! touched_index.rs the touched-files index in the cache folder
//! ```

pub mod deep;
pub mod deep_index;
mod fold_patch;
pub mod query;
pub mod span;
pub mod touched;
pub mod touched_index;
