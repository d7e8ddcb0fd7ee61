//! Replays the fuzz target's seeds (`fuzz/corpus/hypervisor_image/`) and
//! every crash it ever found (`tests/fuzz-regressions/`) on stable.

use hypervisor_queue_reader::read_fuzz_input;
use std::path::Path;

fn replay(dir: &Path) -> usize {
    let mut n = 0;
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    for e in entries {
        let path = e.expect("entry").path();
        if path.is_file() && path.extension().is_none_or(|x| x != "md") {
            let data = std::fs::read(&path).expect("read input");
            let _ = read_fuzz_input(&data);
            n += 1;
        }
    }
    n
}

#[test]
fn fuzz_seeds_and_regressions_replay_without_panicking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = replay(&root.join("../../fuzz/corpus/hypervisor_image"));
    assert!(seeds >= 1, "no seeds in fuzz/corpus/hypervisor_image");
    replay(&root.join("tests/fuzz-regressions"));
}

#[test]
fn the_seed_reads_as_the_sample_report() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seed = std::fs::read(root.join("../../fuzz/corpus/hypervisor_image/sample")).expect("seed");
    let golden = std::fs::read_to_string(root.join("tests/golden/sample.txt")).expect("golden");
    assert_eq!(read_fuzz_input(&seed).expect("long enough"), golden);
}
