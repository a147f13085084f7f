//! The one question a destructive command asks before it acts, and its
//! refusal to act unasked: without `--yes` and without a terminal to ask
//! on, it is a usage error (exit status 2) that names `--yes`.

use super::UsageError;
use anyhow::Result;
use std::io::{BufRead, IsTerminal, Write};

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
