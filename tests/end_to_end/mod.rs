//! End to end: the real binary in a real terminal (tmux), beside pi's own screens.
//! `cargo test --test integration end_to_end::` runs this layer's tests alone.

mod actions_end_to_end;
mod chat_side_by_side_with_pi;
mod demo_leaves_no_copy;
mod fits_every_terminal;
mod prune_and_undo_in_the_browser;
mod tree_side_by_side_with_pi;
mod tui_end_to_end;
