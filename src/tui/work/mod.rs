//! Work off the UI thread: the worker threads and their newest-wins slots,
//! the editing jobs, the clipboard, starting pi, and the demo sessions.

pub mod clipboard;
pub mod demo;
pub mod graphics;
pub mod jobs;
pub mod resume;
pub mod workers;
