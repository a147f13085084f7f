//! The catalog: discovering, summarising, caching, searching, deleting and restoring sessions across the sessions folder.
//! `cargo test --test integration catalog::` runs this layer's tests alone.

mod archive_round_trip;
mod cache_never_lies;
mod catalog_cache;
mod catalog_discovery;
mod clean_rechecks_its_rules;
mod deep_index_matches_scan;
mod deep_search_finds_entries;
mod delete_goes_to_the_trash;
mod delete_rechecks_at_the_moment;
mod move_project_survives_sigkill;
mod subagent_sessions;
mod usage_counts_once;
