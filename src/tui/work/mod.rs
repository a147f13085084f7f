//! Work off the UI thread: the worker threads and their newest-wins slots,
//! the editing jobs, the clipboard, starting pi, the demo sessions, and
//! asking the terminal at start-up which pictures it draws.

pub mod clipboard;
pub mod demo;
pub mod graphics;
pub mod jobs;
pub mod resume;
pub mod workers;
