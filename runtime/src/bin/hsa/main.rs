//! `hsa`: the project's command-line tool.
//!
//! Each subcommand lives in its own module of this folder; `main` only
//! dispatches. Errors are printed as one line on standard error and give
//! exit status 1; usage errors give exit status 2.

use std::process::ExitCode;

mod inspect;
mod topology;

const USAGE: &str = "\
usage: hsa <command> [options]

commands:
  help                 print this help
  inspect FILE [--json]
                       what a code object, offload bundle or HIP binary holds:
                       targets, kernels, arguments, resources, descriptors
  topology [--sysfs DIR] [--json]
                       print the KFD topology: nodes, memory banks, caches, links
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return ExitCode::from(2);
    };
    let result: Result<(), String> = match cmd.as_str() {
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        "topology" => return topology::main(rest),
        "inspect" => return inspect::main(rest),
        other => {
            eprintln!("hsa: unknown command `{other}`\n{USAGE}");
            let _ = rest;
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("hsa: {msg}");
            ExitCode::FAILURE
        }
    }
}
