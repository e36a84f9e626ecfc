//! The `avrlab` command: parse the command line, run the subcommand, map failures to exit codes.

mod cmd;
mod progress;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

fn main() -> ExitCode {
    // `avrlab --help` ends with the table of exit codes, made where the codes are.
    let command =
        cmd::Cli::command().after_long_help(format!("Exit codes:\n\n{}", cmd::exit_code_table()));
    let cli =
        cmd::Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|error| error.exit());
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
