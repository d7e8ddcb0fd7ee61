//! Section headers, program headers and both symbol tables of every real
//! code object (the committed corpus and the hipcc-built rocRAND objects of
//! `scripts/fetch-rocrand`) against `llvm-readelf-19 -S -l -s --dyn-syms -W`,
//! entry by entry and field by field.

use loader_core::elf::{ElfFile, SymbolTable};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn code_objects(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    v.sort();
    v
}

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("not hex: {s:?}"))
}

/// The lines of one block of llvm-readelf output: those after the line
/// that starts with `header`, up to the first blank line.
fn block<'t>(text: &'t str, header: &str) -> Vec<&'t str> {
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with(header));
    lines.next();
    lines.take_while(|l| !l.trim().is_empty()).collect()
}

fn section_type(name: &str) -> u32 {
    let known: HashMap<&str, u32> = [
        ("NULL", 0),
        ("PROGBITS", 1),
        ("SYMTAB", 2),
        ("STRTAB", 3),
        ("RELA", 4),
        ("HASH", 5),
        ("DYNAMIC", 6),
        ("NOTE", 7),
        ("NOBITS", 8),
        ("REL", 9),
        ("DYNSYM", 11),
        ("GNU_HASH", 0x6fff_fff6),
    ]
    .into_iter()
    .collect();
    *known
        .get(name)
        .unwrap_or_else(|| panic!("section type {name} not in the test's table"))
}

fn check_sections(name: &str, f: &ElfFile, text: &str) {
    let rows: Vec<&str> = block(text, "[Nr] Name")
        .into_iter()
        .filter(|l| l.trim_start().starts_with('['))
        .collect();
    assert_eq!(rows.len(), f.section_count(), "{name}: section count");
    for (s, row) in f.sections().zip(&rows) {
        // "[ 1] .note  NOTE  addr off size es [flags] lk inf al"
        let (_, rest) = row.split_once(']').unwrap();
        let mut t: Vec<&str> = rest.split_whitespace().collect();
        if s.index() == 0 {
            t.insert(0, ""); // the null section has no name
        }
        let h = s.header();
        let sname = s.name_str().unwrap();
        assert_eq!(t[0], sname, "{name}: section {}", s.index());
        assert_eq!(section_type(t[1]), h.sh_type, "{name}: {sname} type");
        assert_eq!(hex(t[2]), h.sh_addr, "{name}: {sname} addr");
        assert_eq!(hex(t[3]), h.sh_offset, "{name}: {sname} offset");
        assert_eq!(hex(t[4]), h.sh_size, "{name}: {sname} size");
        assert_eq!(hex(t[5]), h.sh_entsize, "{name}: {sname} entsize");
        let (flags, tail) = if t.len() == 10 {
            (t[6], &t[7..])
        } else {
            ("", &t[6..])
        };
        for (bit, c) in [(1u64, 'W'), (2, 'A'), (4, 'X'), (0x10, 'M'), (0x20, 'S')] {
            assert_eq!(
                flags.contains(c),
                h.sh_flags & bit != 0,
                "{name}: {sname} flag {c}"
            );
        }
        assert_eq!(
            tail[0].parse::<u32>().unwrap(),
            h.sh_link,
            "{name}: {sname} link"
        );
        assert_eq!(
            tail[1].parse::<u32>().unwrap(),
            h.sh_info,
            "{name}: {sname} info"
        );
        assert_eq!(
            tail[2].parse::<u64>().unwrap(),
            h.sh_addralign,
            "{name}: {sname} align"
        );
        if s.sh_type() != 8 {
            assert_eq!(s.data().unwrap().len() as u64, h.sh_size);
        }
    }
}

fn check_segments(name: &str, f: &ElfFile, text: &str) {
    let types: HashMap<&str, u32> = [
        ("NULL", 0),
        ("LOAD", 1),
        ("DYNAMIC", 2),
        ("INTERP", 3),
        ("NOTE", 4),
        ("PHDR", 6),
        ("GNU_STACK", 0x6474_e551),
        ("GNU_RELRO", 0x6474_e552),
    ]
    .into_iter()
    .collect();
    let rows = block(text, "Type           Offset");
    assert_eq!(rows.len(), f.segment_count(), "{name}: segment count");
    for (s, row) in f.segments().zip(&rows) {
        let t: Vec<&str> = row.split_whitespace().collect();
        let h = s.header();
        assert_eq!(types[t[0]], h.p_type, "{name}: segment {} type", s.index());
        assert_eq!(
            [hex(t[1]), hex(t[2]), hex(t[3]), hex(t[4]), hex(t[5])],
            [h.p_offset, h.p_vaddr, h.p_paddr, h.p_filesz, h.p_memsz],
            "{name}: segment {}",
            s.index()
        );
        assert_eq!(
            hex(t[t.len() - 1]),
            h.p_align,
            "{name}: segment {} align",
            s.index()
        );
        let flags = t[6..t.len() - 1].concat();
        for (bit, c) in [(4u32, 'R'), (2, 'W'), (1, 'E')] {
            assert_eq!(
                flags.contains(c),
                h.p_flags & bit != 0,
                "{name}: segment {} flag {c}",
                s.index()
            );
        }
        if s.p_type() == 1 {
            s.check_loadable().unwrap();
        }
    }
}

fn check_symbols(name: &str, table: &SymbolTable, text: &str, section: &str) {
    let header = format!("Symbol table '{section}' contains {} entries:", table.len());
    assert!(text.contains(&header), "{name}: no line {header:?}");
    let start = text.find(&header).unwrap();
    let rows: Vec<&str> = text[start..].lines().skip(2).take(table.len()).collect();
    let types: HashMap<&str, u8> = [
        ("NOTYPE", 0),
        ("OBJECT", 1),
        ("FUNC", 2),
        ("SECTION", 3),
        ("FILE", 4),
    ]
    .into_iter()
    .collect();
    let binds: HashMap<&str, u8> = [("LOCAL", 0), ("GLOBAL", 1), ("WEAK", 2)]
        .into_iter()
        .collect();
    let vis: HashMap<&str, u8> = [
        ("DEFAULT", 0),
        ("INTERNAL", 1),
        ("HIDDEN", 2),
        ("PROTECTED", 3),
    ]
    .into_iter()
    .collect();
    for (sym, row) in table.iter().zip(&rows) {
        let sym = sym.unwrap();
        let t: Vec<&str> = row.split_whitespace().collect();
        let i = sym.index();
        assert_eq!(t[0], format!("{i}:"), "{name}: {section} row {i}");
        assert_eq!(hex(t[1]), sym.value(), "{name}: {section} {i} value");
        assert_eq!(
            t[2].parse::<u64>().unwrap(),
            sym.size(),
            "{name}: {section} {i} size"
        );
        assert_eq!(types[t[3]], sym.kind(), "{name}: {section} {i} type");
        assert_eq!(binds[t[4]], sym.binding(), "{name}: {section} {i} bind");
        assert_eq!(
            vis[t[5]],
            sym.visibility(),
            "{name}: {section} {i} visibility"
        );
        let ndx = match t[6] {
            "UND" => 0,
            "ABS" => 0xfff1,
            "COM" => 0xfff2,
            n => n.parse::<u16>().unwrap(),
        };
        assert_eq!(ndx, sym.section_index(), "{name}: {section} {i} ndx");
        let sym_name = sym.name_str().unwrap();
        assert_eq!(
            t.get(7).copied().unwrap_or(""),
            sym_name,
            "{name}: {section} {i} name"
        );
        if section == ".dynsym" && !sym_name.is_empty() && !sym.is_undefined() {
            assert_eq!(
                table
                    .lookup(sym_name.as_bytes())
                    .unwrap()
                    .map(|s| s.index()),
                Some(i),
                "{name}: lookup {sym_name}"
            );
        }
    }
}

fn check(path: &Path) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let bytes = std::fs::read(path).unwrap();
    let f = ElfFile::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = Command::new("llvm-readelf-19")
        .args(["-S", "-l", "-s", "--dyn-syms", "-W"])
        .arg(path)
        .output()
        .expect("llvm-readelf-19 (install llvm-19)");
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    check_sections(&name, &f, &text);
    check_segments(&name, &f, &text);
    if let Some(t) = f.dynamic_symbols().unwrap() {
        check_symbols(&name, &t, &text, ".dynsym");
    }
    if let Some(t) = f.symbols().unwrap() {
        check_symbols(&name, &t, &text, ".symtab");
    }
}

#[test]
fn corpus_headers_and_symbols_equal_llvm_readelf() {
    let objects = code_objects(&workspace().join("loader-core/corpus/co"));
    assert!(!objects.is_empty());
    objects.iter().for_each(|p| check(p));
}

#[test]
fn rocrand_headers_and_symbols_equal_llvm_readelf() {
    let dir = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace().join("target/rocrand"));
    let co = dir.join("co");
    assert!(
        co.is_dir(),
        "{} is missing: run scripts/fetch-rocrand (scripts/test does)",
        co.display()
    );
    let objects = code_objects(&co);
    assert!(!objects.is_empty());
    objects.iter().for_each(|p| check(p));
}
