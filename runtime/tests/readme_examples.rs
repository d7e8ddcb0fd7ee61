//! Every `hsa` example of the README runs: each line of the ```sh block of
//! the "The `hsa` tool" section is run (the `hsa` binary, from the
//! repository root) and must exit 0, or the status its `# exit N` comment
//! says, with output on standard output. Every command `hsa --help` lists
//! must have an example, so a new subcommand comes with one.

use std::path::PathBuf;
use std::process::Command;

const PREFIX: &str = "cargo run -p runtime --bin hsa -- ";

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `(arguments, expected exit status)` of every example line.
fn examples() -> Vec<(Vec<String>, i32)> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let section = readme
        .split("## The `hsa` tool")
        .nth(1)
        .expect("README has a \"The `hsa` tool\" section");
    let section = section.split("\n## ").next().unwrap();
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the section has a ```sh block");
    let mut out = Vec::new();
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        let rest = line
            .strip_prefix(PREFIX)
            .unwrap_or_else(|| panic!("README example does not start with `{PREFIX}`: {line}"));
        let (cmd, status) = match rest.split_once('#') {
            Some((cmd, comment)) => {
                let n = comment
                    .trim()
                    .strip_prefix("exit ")
                    .and_then(|c| c.split(':').next())
                    .and_then(|n| n.trim().parse().ok())
                    .unwrap_or_else(|| panic!("comment is not `# exit N: why`: {line}"));
                (cmd, n)
            }
            None => (rest, 0),
        };
        out.push((cmd.split_whitespace().map(str::to_owned).collect(), status));
    }
    out
}

#[test]
fn every_readme_example_runs() {
    let examples = examples();
    assert!(examples.len() >= 6, "only {} examples", examples.len());
    for (args, status) in &examples {
        let out = Command::new(env!("CARGO_BIN_EXE_hsa"))
            .args(args)
            .current_dir(repo_root())
            .output()
            .expect("run hsa");
        assert_eq!(
            out.status.code(),
            Some(*status),
            "hsa {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stdout.is_empty(), "hsa {}: no output", args.join(" "));
        if *status == 0 {
            assert!(
                out.stderr.is_empty(),
                "hsa {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

#[test]
fn every_command_has_a_readme_example_and_a_help() {
    let help = Command::new(env!("CARGO_BIN_EXE_hsa"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(help.status.success());
    let help = String::from_utf8(help.stdout).unwrap();
    let commands: Vec<&str> = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: list")
        .lines()
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.contains(&"inspect") && commands.contains(&"topology"));
    let examples = examples();
    for c in commands {
        assert!(
            examples
                .iter()
                .any(|(args, _)| args.first().map(String::as_str) == Some(c)
                    && !args.iter().any(|a| a == "--help")),
            "README has no example of `hsa {c}`"
        );
        let out = Command::new(env!("CARGO_BIN_EXE_hsa"))
            .args([c, "--help"])
            .output()
            .unwrap();
        assert!(out.status.success(), "hsa {c} --help");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains(&format!("Usage: hsa {c}")), "{text}");
    }
}
