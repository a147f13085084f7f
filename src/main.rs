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
    std::process::exit(cli::exit_status(result));
}
