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
//! secrets        secrets in text (assets/secret-rules.toml, one pass):
//!                  what an export or a copy writes is scanned through it
//! catalog/       discovery, whether pi may have a file open (in_use.rs),
//!                  summary/ (on the session reader, pi's list JSON),
//!                  search/ (pi's query and sort, deep search and its
//!                  index), cache/, usage/, housekeeping/ (delete, clean,
//!                  move a project, the trash journal)
//! watch.rs       notify or polling → its own WatchEvent; no front end
//!   │
//! session/       the pi format and every pi rule, once; no UI:
//!                  mod.rs Session (open, read on, leaf, branch, name),
//!                  error.rs (errors, problems read past),
//!                  content.rs (message content as text),
//!                  line/ the one line reader (a validating fast path,
//!                    one serde fallback, JSON.parse-exact jsvalue, ids as
//!                    pi keys them) and the entry a line becomes,
//!                  read/ regular files read in blocks on all cores, the
//!                    index pass (a file into entries and problems),
//!                  tree/ the tree, pi's /tree view and its one-line
//!                    texts, the context at a leaf,
//!                  write/ the writers under the write lock (append,
//!                    migrate, fork, prune, rewrite)
//!   │
//! jstext/        JavaScript string semantics pi relies on: trim, white
//!                  space, lower-casing, UTF-16 lengths and slices, Date.parse
//! par.rs         work shared by every core, results in order
//! ```

pub mod catalog;
pub mod cli;
pub(crate) mod hashing;
pub mod jstext;
pub mod par;
pub mod render;
pub mod safe_text;
pub mod secrets;
pub mod session;
pub mod tui;
pub mod watch;
