//! How the app changes: each event becomes new state and the commands for
//! the workers.

pub mod live;
