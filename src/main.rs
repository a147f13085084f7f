//! Entry point: parse arguments and run one command.

fn main() {
    std::process::exit(piscope::cli::main());
}
