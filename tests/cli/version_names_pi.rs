//! `piscope --version` names piscope's version and the pi release whose
//! session rules it follows, the very one the tests install and compare
//! with (`tests/pi/install.sh` pins it).

use crate::support as common;
use std::process::Command;

/// The version `tests/pi/install.sh` installs when nothing overrides it.
fn pinned_pi_version() -> String {
    let script = common::repo().join("tests/pi/install.sh");
    let text = std::fs::read_to_string(&script).expect("tests/pi/install.sh");
    let (_, rest) = text
        .split_once("PI_REF_VERSION:-")
        .expect("install.sh pins a version as ${PI_REF_VERSION:-X}");
    rest.split('}').next().expect("a closing brace").to_string()
}

#[test]
fn version_names_piscope_and_the_pi_it_follows() {
    let out = common::stdout_ok(Command::new(env!("CARGO_BIN_EXE_piscope")).arg("--version"));
    let pi = pinned_pi_version();
    assert!(pi.split('.').count() == 3, "a pinned version: {pi:?}");
    assert_eq!(
        out.trim_end(),
        format!("piscope {} (follows pi {pi})", env!("CARGO_PKG_VERSION"))
    );
}
