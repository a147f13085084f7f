//! Keys in: a key press as the keymap sees it, the keymap (defaults laid
//! under the user's file), and the table of every action the keys lead to.

pub mod actions;
pub mod key;
pub mod keymap;
