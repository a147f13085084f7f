//! piscope: a fast, safe terminal browser for pi coding-agent sessions.
//!
//! The layers, top to bottom; a module imports only from its own layer or
//! the ones below, and no files import one another round a circle
//! (`tests/layers_hold.rs` reads `src/` and fails on either):
//!
//! ```text
//! main.rs        parse the arguments (cli::args), pick the front end
//!   │
//! cli/           the scripting commands; args.rs is clap only
//! tui/           the browser (its own layers: see tui/mod.rs)
//!                  the two front ends never import each other
//!   │
//! render/        the context rendered for reading, for both front ends: a
//!                  semantic document (markdown, highlighted code, diffs,
//!                  output colours), laid out for a width, or as HTML or
//!                  Markdown to share; built on session/ and safe_text
//!   │
//! safe_text      terminal-safe text (sanitise, width, wrap, truncate):
//!                  every string from a file passes it before a terminal
//! catalog/       discovery, summaries (on the session reader), query,
//!                  listing, deep search, cache, delete
//! watch.rs       notify or polling → its own WatchEvent; no front end
//!   │
//! session/       the pi format and every pi rule, once: the one line reader
//!                  (line.rs over cursor.rs, serde and the JSON.parse-exact
//!                  jsvalue.rs as fallbacks), ids as pi keys them (jskey.rs),
//!                  the tree, the context, message content as text
//!                  (content.rs), pi's /tree view (tree_view.rs), the
//!                  writers under the write lock
//!   │
//! jstext/        JavaScript string semantics pi relies on: trim, white
//!                  space, lower-casing, UTF-16 lengths and slices, Date.parse
//! par.rs         work shared by every core, results in order
//! ```

pub mod catalog;
pub mod cli;
pub mod jstext;
pub mod par;
pub mod render;
pub mod safe_text;
pub mod session;
pub mod tui;
pub mod watch;
