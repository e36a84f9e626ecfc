//! The `avrlab` command: parse the command line, run the subcommand, map failures to exit codes.

mod cmd;
mod progress;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = cmd::Cli::parse();
    match cmd::run(cli) {
        Ok(code) => code,
        Err(failure) => {
            // One line: what failed, on which input, and (in the innermost cause) what to do.
            let chain: Vec<String> = failure.error.chain().map(ToString::to_string).collect();
            #[expect(clippy::print_stderr, reason = "the command's error line")]
            {
                eprintln!("error: {}", chain.join(": "));
            }
            failure.code.into()
        }
    }
}
