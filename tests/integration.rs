//! The integration tests, one binary: each folder is a layer of the
//! application, and `cargo test --test integration LAYER::` runs one alone
//! (e.g. `browser::tui_snapshots`). One binary links once and lets a slow
//! test of one layer run beside the quick ones of another.

#[macro_use]
mod support;

mod browser;
mod catalog;
mod cli;
mod conformance;
mod end_to_end;
mod format;
mod layers_hold;
