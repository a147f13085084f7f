//! Fresh ids: eight random hex digits, as pi gives its entries, also used
//! to name piscope's temporary files.

use crate::jstext::date as jsdate;

/// Eight random hex digits, as pi's entry ids.
pub(crate) fn random_hex_id() -> String {
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        // No OS randomness: fall back to the clock (callers check for clashes).
        bytes = (jsdate::now_ms() as u32 ^ std::process::id()).to_le_bytes();
    }
    format!("{:08x}", u32::from_le_bytes(bytes))
}
