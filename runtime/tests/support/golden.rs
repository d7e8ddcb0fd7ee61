//! Golden files for the `hsa` tool's output, shared by the golden tests.
//!
//! `BLESS=1` rewrites the golden files from the output, but a run that
//! blesses never passes: it fails with the list of files it wrote, so a
//! blessed run cannot be mistaken for a checked one (and CI refuses `BLESS`
//! altogether, in `.ci/run`). Re-run without `BLESS` to compare.

use std::path::{Path, PathBuf};

/// The golden comparisons of one test: every mismatch is collected, and
/// [`finish`](Golden::finish) fails the test if any file differed or was
/// blessed.
#[derive(Default)]
pub struct Golden {
    blessed: Vec<PathBuf>,
    mismatches: Vec<String>,
}

impl Golden {
    /// Whether this run re-blesses (`BLESS` is set to anything).
    pub fn blessing() -> bool {
        std::env::var_os("BLESS").is_some()
    }

    /// Compares `actual` with `file`, or writes it there when blessing.
    pub fn check(&mut self, file: &Path, actual: &str) {
        if Self::blessing() {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir).expect("create the golden directory");
            }
            std::fs::write(file, actual).expect("write golden file");
            self.blessed.push(file.to_owned());
            return;
        }
        let expected = match std::fs::read_to_string(file) {
            Ok(e) => e,
            Err(e) => {
                self.mismatches.push(format!(
                    "{}: {e} (run with BLESS=1 to create it, then without)",
                    file.display()
                ));
                return;
            }
        };
        if expected != actual {
            self.mismatches
                .push(first_difference(file, &expected, actual));
        }
    }

    /// Fails the test if a file differed, or if this run blessed.
    pub fn finish(self) {
        assert!(
            self.mismatches.is_empty(),
            "{} golden file(s) differ:\n{}\n(re-bless with BLESS=1 if the change is intended, then re-run without BLESS)",
            self.mismatches.len(),
            self.mismatches.join("\n")
        );
        assert!(
            self.blessed.is_empty(),
            "blessed {} file(s); re-run without BLESS to check them:\n{}",
            self.blessed.len(),
            self.blessed
                .iter()
                .map(|p| format!("  {}", p.display()))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// Where two texts first differ, with a little context either side (some
/// golden files are one long line).
fn first_difference(file: &Path, expected: &str, actual: &str) -> String {
    let at = expected
        .bytes()
        .zip(actual.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| expected.len().min(actual.len()));
    let line = expected.get(..at).map_or(0, |s| s.matches('\n').count()) + 1;
    let window = |s: &str| {
        let mut start = at.saturating_sub(60);
        while !s.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (at + 60).min(s.len());
        while !s.is_char_boundary(end) {
            end += 1;
        }
        s.get(start..end).unwrap_or("").to_owned()
    };
    format!(
        "{} differs from the output at line {line} (byte {at}):\n  golden: {:?}\n  actual: {:?}",
        file.display(),
        window(expected),
        window(actual)
    )
}
