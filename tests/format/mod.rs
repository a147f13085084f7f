//! The session file format: reading, appending, migrating, forking and pruning files as pi does, and surviving damage, kills and a writer beside.
//! `cargo test --test integration format::` runs this layer's tests alone.

mod appends_like_pi;
mod context_edits_read_like_pi;
mod damaged_files;
mod fork_writes_what_pi_writes;
mod migration_respects_the_file;
mod migration_survives_sigkill;
mod non_regular_files_are_refused;
mod prune_keeps_what_pi_reads;
mod prune_survives_sigkill;
mod prune_trashes_the_legacy_original;
mod rewrite_keeps_late_appends;
mod writes_are_serialised_and_verified;
mod writing_next_to_running_pi;
