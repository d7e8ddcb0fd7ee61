//! Differential test of `loader-core` against LLVM 19's own decoders, on
//! every code object of our corpus (`loader-core/corpus/co`) and every
//! rocRAND code object (`scripts/fetch-rocrand`, built by hipcc, not by us):
//!
//! - metadata: each `NT_AMDGPU_METADATA` MessagePack map, walked by
//!   `loader-core`, equals the YAML `llvm-readelf-19 --notes` prints under
//!   "AMDGPU Metadata", key by key and value by value (types included: a
//!   quoted YAML scalar must be a MessagePack string, a plain integer an
//!   integer);
//! - kernel descriptors: the `.amdhsa_*` directives `loader-core` derives
//!   from each `<kernel>.kd` equal what `llvm-objdump-19 -D
//!   --disassemble-symbols=<kernel>.kd` prints.
//!
//! Missing LLVM tools or rocRAND objects fail the test with the command that
//! provides them; `scripts/test` installs and fetches both first.

mod loader_support;

use loader_core::elf::ElfFile;
use loader_core::msgpack::Value;
use loader_support::llvm::{self, Node, Scalar};
use loader_support::{corpus_code_objects, read, rocrand_code_objects};
use std::path::PathBuf;

/// The metadata notes of a code object, as MessagePack documents, in order.
fn our_metadata_notes(bytes: &[u8]) -> Result<Vec<Value<'_>>, String> {
    let elf = ElfFile::parse(bytes).map_err(|e| format!("ELF: {e}"))?;
    let mut docs = Vec::new();
    for note in elf.notes() {
        let note = note.map_err(|e| format!("notes: {e}"))?;
        if note.is_amdgpu_metadata() {
            docs.push(
                loader_core::msgpack::read_document(note.desc)
                    .map_err(|e| format!("metadata: {e}"))?,
            );
        }
    }
    Ok(docs)
}

/// Whether LLVM's YAML writer would have to quote this string to keep it a
/// string (it looks like a number, a boolean or null).
fn looks_like_non_string(s: &str) -> bool {
    s.is_empty()
        || s.parse::<i128>().is_ok()
        || s.parse::<f64>().is_ok()
        || matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "null" | "~" | "yes" | "no" | "on" | "off"
        )
}

/// Compares one MessagePack value with the YAML node LLVM printed for it;
/// appends every difference to `diffs` with its path.
fn compare(ours: Value<'_>, theirs: &Node, path: &str, diffs: &mut Vec<String>) {
    let mismatch = |diffs: &mut Vec<String>, what: String| diffs.push(format!("{path}: {what}"));
    match (ours, theirs) {
        (Value::Map(map), Node::Map(entries)) => {
            let mut ours_sorted = Vec::new();
            for pair in map.iter() {
                match pair {
                    Ok((Value::Str(k), v)) => ours_sorted.push((k, v)),
                    Ok((k, _)) => mismatch(diffs, format!("map key {k:?} is not a string")),
                    Err(e) => {
                        return mismatch(diffs, format!("loader-core cannot read the map: {e}"));
                    }
                }
            }
            ours_sorted.sort_by(|a, b| a.0.cmp(b.0));
            let mut theirs_sorted: Vec<&(String, Node)> = entries.iter().collect();
            theirs_sorted.sort_by(|a, b| a.0.cmp(&b.0));
            let our_keys: Vec<&str> = ours_sorted.iter().map(|e| e.0).collect();
            let their_keys: Vec<&str> = theirs_sorted.iter().map(|e| e.0.as_str()).collect();
            if our_keys != their_keys {
                return mismatch(
                    diffs,
                    format!("keys differ: loader-core {our_keys:?}, llvm-readelf {their_keys:?}"),
                );
            }
            for ((k, v), (_, node)) in ours_sorted.into_iter().zip(theirs_sorted) {
                compare(v, node, &format!("{path}/{k}"), diffs);
            }
        }
        (Value::Array(array), Node::Seq(items)) => {
            if array.len() as usize != items.len() {
                return mismatch(
                    diffs,
                    format!(
                        "list of {} in loader-core, {} in llvm-readelf",
                        array.len(),
                        items.len()
                    ),
                );
            }
            for (i, (item, node)) in array.iter().zip(items).enumerate() {
                match item {
                    Ok(v) => compare(v, node, &format!("{path}[{i}]"), diffs),
                    Err(e) => {
                        return mismatch(diffs, format!("loader-core cannot read item {i}: {e}"));
                    }
                }
            }
        }
        (Value::Str(s), Node::Scalar(Scalar::Quoted(t))) => {
            if s != t {
                mismatch(
                    diffs,
                    format!("string {s:?} in loader-core, {t:?} in llvm-readelf"),
                );
            }
        }
        (Value::Str(s), Node::Scalar(Scalar::Plain(t))) => {
            if s != t || looks_like_non_string(t) {
                mismatch(
                    diffs,
                    format!("string {s:?} in loader-core, plain `{t}` in llvm-readelf"),
                );
            }
        }
        (Value::UInt(n), Node::Scalar(Scalar::Plain(t))) => {
            if t.parse::<u64>().ok() != Some(n) {
                mismatch(
                    diffs,
                    format!("integer {n} in loader-core, `{t}` in llvm-readelf"),
                );
            }
        }
        (Value::Int(n), Node::Scalar(Scalar::Plain(t))) => {
            if t.parse::<i64>().ok() != Some(n) {
                mismatch(
                    diffs,
                    format!("integer {n} in loader-core, `{t}` in llvm-readelf"),
                );
            }
        }
        (Value::Bool(b), Node::Scalar(Scalar::Plain(t))) => {
            if t != if b { "true" } else { "false" } {
                mismatch(
                    diffs,
                    format!("boolean {b} in loader-core, `{t}` in llvm-readelf"),
                );
            }
        }
        (Value::F64(x), Node::Scalar(Scalar::Plain(t))) => {
            if t.parse::<f64>().ok() != Some(x) {
                mismatch(
                    diffs,
                    format!("float {x} in loader-core, `{t}` in llvm-readelf"),
                );
            }
        }
        (Value::F32(x), Node::Scalar(Scalar::Plain(t))) => {
            if t.parse::<f64>().ok() != Some(f64::from(x)) {
                mismatch(
                    diffs,
                    format!("float {x} in loader-core, `{t}` in llvm-readelf"),
                );
            }
        }
        (ours, theirs) => mismatch(
            diffs,
            format!("{ours:?} in loader-core, {theirs} in llvm-readelf"),
        ),
    }
}

/// Counts the scalars of a YAML tree (to show the comparison was not empty).
fn yaml_scalars(node: &Node) -> usize {
    match node {
        Node::Map(m) => m.iter().map(|(_, v)| 1 + yaml_scalars(v)).sum(),
        Node::Seq(s) => s.iter().map(yaml_scalars).sum(),
        Node::Scalar(_) => 1,
    }
}

fn check_metadata(files: &[PathBuf]) {
    let mut failures = Vec::new();
    let mut compared = 0usize;
    for path in files {
        let bytes = read(path);
        let theirs = llvm::readelf_metadata(path);
        let ours = match our_metadata_notes(&bytes) {
            Ok(docs) => docs,
            Err(e) => {
                failures.push(format!("{}: loader-core: {e}", path.display()));
                continue;
            }
        };
        if theirs.is_empty() {
            failures.push(format!(
                "{}: llvm-readelf-19 printed no AMDGPU Metadata",
                path.display()
            ));
        }
        if ours.len() != theirs.len() {
            failures.push(format!(
                "{}: {} metadata notes in loader-core, {} in llvm-readelf",
                path.display(),
                ours.len(),
                theirs.len()
            ));
            continue;
        }
        for (i, (doc, yaml)) in ours.into_iter().zip(&theirs).enumerate() {
            let mut diffs = Vec::new();
            compare(doc, yaml, &format!("note {i}"), &mut diffs);
            compared += yaml_scalars(yaml);
            failures.extend(
                diffs
                    .into_iter()
                    .take(20)
                    .map(|d| format!("{}: {d}", path.display())),
            );
        }
    }
    assert!(
        failures.is_empty(),
        "metadata differs from llvm-readelf-19:\n{}",
        failures.join("\n")
    );
    assert!(
        compared >= 100 * files.len(),
        "only {compared} values compared"
    );
    eprintln!(
        "{} code objects, {compared} metadata keys and values equal to llvm-readelf-19",
        files.len()
    );
}

#[test]
fn corpus_metadata_equals_llvm_readelf() {
    check_metadata(&corpus_code_objects());
}

#[test]
fn rocrand_metadata_equals_llvm_readelf() {
    check_metadata(&rocrand_code_objects());
}

#[test]
fn yaml_reader_rejects_what_llvm_never_prints() {
    // The oracle's own reader must not silently accept garbage.
    assert!(llvm::parse_yaml(&["a: 1", "  b: 2"]).is_err());
    assert!(llvm::parse_yaml(&["a: 'unterminated"]).is_err());
    assert!(llvm::parse_yaml(&["a: [1, 2]"]).is_err());
    assert!(llvm::parse_objdump_kernels(".amdhsa_kernel k\n  .amdhsa_x 1\n").is_err());
    assert!(
        llvm::parse_objdump_kernels(".amdhsa_kernel k\n  .amdhsa_x one\n.end_amdhsa_kernel\n")
            .is_err()
    );
}

/// The first kernel map of an `llvm-readelf` metadata tree.
fn first_kernel(yaml: &mut Node) -> &mut Vec<(String, Node)> {
    let Node::Map(top) = yaml else {
        panic!("top is not a map")
    };
    let Some((_, Node::Seq(kernels))) = top.iter_mut().find(|(k, _)| k == "amdhsa.kernels") else {
        panic!("amdhsa.kernels is not a list")
    };
    let Some(Node::Map(kernel)) = kernels.first_mut() else {
        panic!("no kernel map")
    };
    kernel
}

#[test]
fn comparison_reports_a_changed_value_and_a_missing_key() {
    // The comparison itself must see differences: a changed value, and a
    // dropped key, are each reported (and nothing else).
    let path = &corpus_code_objects()[0];
    let bytes = read(path);
    let ours = our_metadata_notes(&bytes).unwrap();
    let pristine = llvm::readelf_metadata(path).remove(0);

    let mut changed = pristine.clone();
    let size = first_kernel(&mut changed)
        .iter_mut()
        .find(|(k, _)| k == ".kernarg_segment_size")
        .unwrap();
    size.1 = Node::Scalar(Scalar::Plain("12345".into()));
    let mut diffs = Vec::new();
    compare(ours[0], &changed, "note 0", &mut diffs);
    assert_eq!(diffs.len(), 1, "{diffs:#?}");
    assert!(
        diffs[0].contains(".kernarg_segment_size") && diffs[0].contains("12345"),
        "{diffs:?}"
    );

    let mut dropped = pristine.clone();
    first_kernel(&mut dropped).retain(|(k, _)| k != ".symbol");
    let mut diffs = Vec::new();
    compare(ours[0], &dropped, "note 0", &mut diffs);
    assert_eq!(diffs.len(), 1, "{diffs:#?}");
    assert!(
        diffs[0].contains("keys differ") && diffs[0].contains(".symbol"),
        "{diffs:?}"
    );

    let mut diffs = Vec::new();
    compare(ours[0], &pristine, "note 0", &mut diffs);
    assert!(diffs.is_empty(), "{diffs:#?}");
}
