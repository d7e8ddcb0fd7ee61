//! A whole small topology tree built from the fuzz input: the bytes are
//! split on NUL into (path, contents) pairs and held in a `MemReader`, so the
//! directory walk, the counts, the node numbering and the generation check
//! all see hostile input. `Topology::read` must return, never panic.
#![no_main]

use kfd::topology::{MemReader, Topology};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut tree = MemReader::new();
    let mut parts = data.split(|&b| b == 0);
    while let (Some(path), Some(contents)) = (parts.next(), parts.next()) {
        if let Ok(path) = std::str::from_utf8(path) {
            tree.insert(path, contents.to_vec());
        }
    }
    if let Err(e) = Topology::read(&tree) {
        let _ = e.to_string();
    }
});
