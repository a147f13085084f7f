//! `--print` under command substitution: stdout is a pipe, so while the
//! browser runs, stdout is pointed at the terminal and put back afterwards.

use anyhow::{Result, bail};

/// Stdout pointed at the terminal until dropped.
pub struct StdoutToTerminal {
    #[cfg(unix)]
    saved: std::os::fd::OwnedFd,
}

impl StdoutToTerminal {
    #[cfg(unix)]
    pub fn redirect() -> Result<StdoutToTerminal> {
        use anyhow::Context as _;
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")
            .context("--print needs a terminal to show the browser on (/dev/tty)")?;
        // SAFETY: plain descriptor calls on descriptors this process owns;
        // the copy of stdout is owned by the returned value.
        let saved = unsafe { libc::dup(libc::STDOUT_FILENO) };
        if saved < 0 {
            bail!("cannot keep stdout: {}", std::io::Error::last_os_error());
        }
        let saved = unsafe { OwnedFd::from_raw_fd(saved) };
        if unsafe { libc::dup2(tty.as_raw_fd(), libc::STDOUT_FILENO) } < 0 {
            bail!(
                "cannot show the browser on the terminal: {}",
                std::io::Error::last_os_error()
            );
        }
        Ok(StdoutToTerminal { saved })
    }

    #[cfg(not(unix))]
    pub fn redirect() -> Result<StdoutToTerminal> {
        bail!("--print needs stdout to be the terminal here")
    }
}

impl Drop for StdoutToTerminal {
    fn drop(&mut self) {
        #[cfg(unix)]
        {
            use std::io::Write as _;
            use std::os::fd::AsRawFd;
            let _ = std::io::stdout().flush();
            // SAFETY: `saved` is a valid descriptor owned by self.
            unsafe {
                libc::dup2(self.saved.as_raw_fd(), libc::STDOUT_FILENO);
            }
        }
    }
}
