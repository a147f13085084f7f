//! Work off the UI thread: the worker threads, the newest-wins slots that
//! stamp each request and drop the answers overtaken (`newest.rs`), the
//! editing jobs, the clipboard, starting pi, the demo sessions, and
//! asking the terminal at start-up which pictures it draws.

pub mod clipboard;
pub mod demo;
pub mod graphics;
pub mod jobs;
pub mod newest;
pub mod resume;
pub mod workers;
