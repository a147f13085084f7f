//! The browser in-process: keys, dialogs, panes, snapshots of the screen (a TestBackend).
//! `cargo test --test integration browser::` runs this layer's tests alone.

mod actions_in_the_browser;
mod archived_scope;
mod deep_search_covers_the_scope;
mod hint_keys_do_what_they_say;
mod keys_follow_the_keymap;
mod preview_lets_no_escape_through;
mod preview_shows_images;
mod rendered_blocks_read_well;
mod secrets_are_reviewed;
mod session_index;
mod subagent_sessions;
mod text_fields_edit_like_pi;
mod touched_files;
mod tui_behaviour;
mod tui_snapshots;
mod usage_view;
