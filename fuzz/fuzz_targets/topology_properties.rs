//! Arbitrary bytes as every kind of KFD topology file: the generic
//! `key value` parser, each typed decoder, and the one-value files. None may
//! panic; each either decodes or returns an error naming the file.
#![no_main]

use kfd::topology::{
    Cache, IoLink, MemBank, NodeProperties, Properties, SysfsFile, SystemProperties,
    parse_name_file, parse_u32_file,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(p) = Properties::parse(data) {
        // Every entry the parser accepts is one the kernel could print.
        for e in &p {
            assert!(!e.key.is_empty() && !e.value.is_empty() && e.line >= 1);
        }
    }
    let _ = SystemProperties::parse(data);
    let _ = NodeProperties::parse(data, 3);
    let file = SysfsFile::MemBank { node: 3, index: 1 };
    if let Err(e) = MemBank::parse(data, file) {
        assert_eq!(e.file, file);
        let _ = e.to_string();
    }
    let _ = Cache::parse(data, SysfsFile::Cache { node: 3, index: 1 });
    let _ = IoLink::parse(data, SysfsFile::IoLink { node: 3, index: 1 });
    let _ = parse_u32_file(data);
    let _ = parse_name_file(data);
});
