//! The one question a destructive command asks before it acts, and its
//! refusal to act unasked: without `--yes` and without a terminal to ask
//! on, it is a usage error (exit status 2) that names `--yes`. An append
//! to a session pi may have open is asked about the same way, as the
//! browser asks.

use super::{UsageError, shown, warn};
use crate::catalog::in_use;
use crate::safe_text::sanitize;
use crate::session::read::file::kind_if_not_regular;
use anyhow::Result;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

/// Whether to go ahead: yes with `--yes`; otherwise asks once on the
/// terminal (`[y/N]`). Without a terminal, refuses with a usage error.
pub fn go_ahead(out: &mut dyn Write, yes: bool, doing: &str) -> Result<bool> {
    if yes {
        return Ok(true);
    }
    if !std::io::stdin().is_terminal() {
        return Err(UsageError(format!(
            "not {doing} without confirmation and there is no terminal to ask on: pass --yes"
        ))
        .into());
    }
    write!(out, "Go ahead? [y/N] ")?;
    out.flush()?;
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer)?;
    Ok(matches!(answer.trim().to_lowercase().as_str(), "y" | "yes"))
}

/// Whether to append to `file`: yes with `--yes` or when nothing suggests
/// pi has it open; otherwise says why on stderr and asks as [`go_ahead`]
/// does (a running pi would not see the change and may go on from where
/// it was).
pub fn go_ahead_next_to_pi(out: &mut dyn Write, file: &Path, yes: bool) -> Result<bool> {
    // Anything but a regular file is refused by the writer, in its words.
    if yes || !matches!(kind_if_not_regular(file), Ok(None)) {
        return Ok(true);
    }
    let Some(why) = in_use::pi_may_have_open(file) else {
        return Ok(true);
    };
    warn(&format!(
        "pi may have {} open ({why}): a running pi will not see this change until the session \
         is reopened (/resume), and may go on from where it was",
        shown(file)
    ));
    go_ahead(out, yes, "writing next to a running pi")
}

/// Under a session listed for removal (deleted or archived): the warning
/// that pi may have it open, when something suggests so.
pub fn warn_if_pi_has_it(out: &mut dyn Write, path: &Path) -> std::io::Result<()> {
    match in_use::pi_may_have_open(path) {
        Some(why) => writeln!(
            out,
            "    Warning: pi may have it open ({}); a running pi goes on writing to it, and \
             would start the file anew with only its next entries.",
            sanitize(&why)
        ),
        None => Ok(()),
    }
}
