//! piscope: a fast, safe terminal browser for pi coding-agent sessions.
//! The `session` module knows the file format; `cli` is the scripting front end.

pub mod cli;
pub mod session;
