//! piscope: a fast, safe terminal browser for pi coding-agent sessions.
//! `jstext` holds the JavaScript string rules pi's code relies on, `session`
//! knows the file format, `catalog` finds and searches all sessions,
//! `cli` is the scripting front end, `tui` the terminal browser, both showing
//! file text only through `safe_text`, the one sanitiser; `watch` notices
//! changes on disk.

pub mod catalog;
pub mod cli;
pub mod jstext;
pub mod safe_text;
pub mod session;
pub mod tui;
pub mod watch;
