//! The command line: its output, its questions and its exports, as a user or a script sees them.
//! `cargo test --test integration cli::` runs this layer's tests alone.

mod appends_ask_next_to_a_running_pi;
mod archive_commands;
mod cli_output_is_terminal_safe;
mod destructive_commands_ask_first;
mod export_html_is_safe_to_share;
mod export_one_branch;
mod exports_redact_secrets;
mod exports_stream;
mod housekeeping_commands;
mod ls_table_is_safe_and_readable;
mod ls_time_filters;
mod ls_touched;
mod rendering_stays_bounded;
mod version_names_pi;
