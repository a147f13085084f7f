//! Conformance with pi: piscope's answers against pi's own code, recorded or live.
//! `cargo test --test integration conformance::` runs this layer's tests alone.

mod answers_match_pi_reference;
mod catalog_matches_pi;
mod context_size_matches_pi;
mod demo_sessions;
mod js_string_rules_match_node;
mod names_and_times_read_like_pi;
mod tree_dims_what_the_model_forgot;
mod tree_reads_like_pi_tree;
