//! Entry point: parse the arguments, then pick the front end: the browser
//! without a command, the scripting command line with one.

use clap::Parser;
use piscope::cli::{self, Cli};
use piscope::tui::{self, TuiArgs};

fn main() {
    let args = match Cli::try_parse() {
        Ok(args) => args,
        Err(e) => std::process::exit(cli::usage_error(e)),
    };
    let result = match args.command {
        Some(command) => cli::run(command),
        None => tui::run(TuiArgs {
            file: args.file,
            demo: args.demo,
            session_dir: args.session_dir,
            no_cache: args.no_cache,
            print: args.print,
            poll: args.poll,
        }),
    };
    let status = cli::exit_status(result);
    if std::env::var_os("PISCOPE_PEAK_MEMORY").is_some() {
        report_peak_memory();
    }
    std::process::exit(status);
}

/// Writes the process's peak resident memory, as the kernel counted it, to
/// stderr: the rendering tests hold each run to a bound on it.
fn report_peak_memory() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        eprintln!("peak memory: {}", line.trim_start_matches("VmHWM:").trim());
    }
}
