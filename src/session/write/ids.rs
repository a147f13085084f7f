//! Fresh ids: eight random hex digits, as pi gives its entries, also used
//! to name piscope's temporary files.

use crate::jstext::date as jsdate;

/// Eight random hex digits, as pi's entry ids.
pub(crate) fn random_hex_id() -> String {
    hex_id(random_id())
}

/// The number an id of eight hex digits writes: a fresh one at random.
pub(crate) fn random_id() -> u32 {
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back to the clock (callers check for clashes).
        bytes = (jsdate::now_ms() as u32 ^ std::process::id()).to_le_bytes();
    }
    u32::from_le_bytes(bytes)
}

/// The id of eight hex digits that writes `n`.
pub(crate) fn hex_id(n: u32) -> String {
    format!("{n:08x}")
}
