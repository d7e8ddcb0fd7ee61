//! `hsa`: the project's command-line tool.
//!
//! The command line is clap's (derive): each subcommand is one variant of
//! [`Command`] whose arguments live in the subcommand's own module; adding a
//! subcommand is a module, a variant and a match arm. `--help` works for the
//! tool and every subcommand; a usage error prints the usage on standard
//! error and exits 2 (clap's convention). A subcommand that fails prints one
//! line on standard error and exits 1. JSON output is serde_json's.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod disasm;
mod info;
mod inspect;
mod json;
mod run;
mod topology;

/// The HSA runtime's command-line tool: look inside AMDGPU code objects and
/// HIP binaries, at the KFD topology and at the agents the runtime finds,
/// and run a kernel.
#[derive(Debug, Parser)]
#[command(name = "hsa", version, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// What a code object, offload bundle or HIP binary holds: targets,
    /// kernels, arguments, resources, kernel descriptors.
    #[command(override_usage = "hsa inspect FILE [--json]")]
    Inspect(inspect::Args),
    /// The machine code of a GFX9 code object's kernels and functions, as
    /// llvm-objdump -d lists it.
    #[command(override_usage = "hsa disasm FILE [--kernel NAME]")]
    Disasm(disasm::Args),
    /// The KFD topology: nodes, memory banks, caches, links.
    #[command(override_usage = "hsa topology [--sysfs DIR] [--json]")]
    Topology(topology::Args),
    /// What rocminfo prints: system attributes, every agent with its
    /// memory pools and ISAs, through the runtime (the software GPU when
    /// there is no /dev/kfd).
    #[command(override_usage = "hsa info [--json]")]
    Info(info::Args),
    /// Load a code object on a GPU agent, fill the kernel's arguments,
    /// dispatch it, wait, and report (exit 1 on a fault, 2 on a usage
    /// error).
    #[command(
        override_usage = "hsa run CODEOBJ KERNEL --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg SPEC]... [--dynamic-lds BYTES] [--private-segment-size BYTES] [--dump DIR] [--agent N] [--repeat N] [--json]"
    )]
    Run(run::Args),
}

fn main() -> ExitCode {
    // Usage errors exit 2 here, inside clap; `--help` and `--version` exit 0.
    let cli = Cli::parse();
    match cli.command {
        Command::Inspect(args) => inspect::run(&args),
        Command::Disasm(args) => disasm::run(&args),
        Command::Topology(args) => topology::run(&args),
        Command::Info(args) => info::run(&args),
        Command::Run(args) => run::run(&args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
