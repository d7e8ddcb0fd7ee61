//! Every code object we can find, parsed by goblin (feature `loader`) and by
//! our zero-copy parser: headers, program headers, sections, both symbol
//! tables, dynamic relocations and kernel descriptors must agree.
//!
//! Inputs: the corpus (`corpus/co/*.co`, and the code objects inside the
//! corpus bundles), rocRAND's code objects (`scripts/fetch-rocrand`, run by
//! `scripts/test`; `ROCRAND_DIR` overrides the location), and objects built
//! here with clang-19 that carry dynamic relocations.
#![cfg(feature = "loader")]

use loader_core::bundle::{Container, OffloadBundle};
use loader_core::elf::ElfFile;
use loader_core::goblin_view::CodeObjectView;
use loader_core::load::{SliceMemory, dynamic_relocations, load};
use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

fn build_with_relocations(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let src = dir.join("g.cl");
    std::fs::write(
        &src,
        "__global int counter = 5; __global int table[4] = {1, 2, 3, 4}; __global int* ptr = &table[2];\n\
         extern __global int ext_var; __global int* extp = &ext_var;\n\
         __kernel void use(__global int* out) { out[0] = *ptr + counter + *extp + ext_var; }\n",
    )
    .unwrap();
    let mut out = Vec::new();
    for (cpu, vis) in [
        ("gfx90a", "default"),
        ("gfx1030", "hidden"),
        ("gfx942", "default"),
    ] {
        let obj = dir.join(format!("{cpu}-{vis}.co"));
        let st = Command::new("clang-19")
            .args([
                "-x",
                "cl",
                "-cl-std=CL2.0",
                "-target",
                "amdgcn-amd-amdhsa",
                "-nogpulib",
                "-O2",
                "-Wl,-z,undefs",
            ])
            .arg(format!("-mcpu={cpu}"))
            .arg(format!("-fvisibility={vis}"))
            .arg("-o")
            .arg(&obj)
            .arg(&src)
            .status()
            .expect("clang-19 (install clang-19)");
        assert!(st.success());
        out.push((obj.display().to_string(), std::fs::read(&obj).unwrap()));
    }
    out
}

fn all_objects() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = files_in(&manifest().join("corpus/co"), "co")
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    assert!(v.len() >= 30, "corpus/co has {} objects", v.len());
    for b in files_in(&manifest().join("corpus/bundle"), "bundle") {
        let data = std::fs::read(&b).unwrap();
        if let Ok(Container::Bundle(bundle)) = Container::parse(&data) {
            for e in bundle
                .entries()
                .map(|e| e.unwrap())
                .filter(|e| !e.data.is_empty())
            {
                v.push((format!("{}#{}", b.display(), e.id), e.data.to_vec()));
            }
        }
    }
    let rocrand = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest().join("../target/rocrand"));
    let co = rocrand.join("co");
    assert!(
        co.is_dir(),
        "{} is missing: run scripts/fetch-rocrand (scripts/test does)",
        co.display()
    );
    let real = files_in(&co, "co");
    assert!(!real.is_empty());
    v.extend(
        real.into_iter()
            .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap())),
    );
    let dir = std::env::temp_dir().join(format!("loader-core-goblin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    v.extend(build_with_relocations(&dir));
    let _ = std::fs::remove_dir_all(&dir);
    v
}

fn cross_check(name: &str, data: &[u8]) -> (usize, usize, usize) {
    let view = CodeObjectView::parse(data).unwrap_or_else(|e| panic!("{name}: {e}"));
    let ours = ElfFile::parse(data).unwrap();
    let g = view.goblin();

    // File header.
    let h = ours.header();
    let gh = &g.header;
    assert_eq!(h.e_ident, gh.e_ident, "{name}");
    assert_eq!(
        (
            h.e_type,
            h.e_machine,
            h.e_version,
            h.e_entry,
            h.e_phoff,
            h.e_shoff,
            h.e_flags
        ),
        (
            gh.e_type,
            gh.e_machine,
            gh.e_version,
            gh.e_entry,
            gh.e_phoff,
            gh.e_shoff,
            gh.e_flags
        ),
        "{name}"
    );
    assert_eq!(
        (
            h.e_ehsize,
            h.e_phentsize,
            h.e_phnum,
            h.e_shentsize,
            h.e_shnum,
            h.e_shstrndx
        ),
        (
            gh.e_ehsize,
            gh.e_phentsize,
            gh.e_phnum,
            gh.e_shentsize,
            gh.e_shnum,
            gh.e_shstrndx
        ),
        "{name}"
    );

    // Program headers.
    let phdrs: Vec<_> = ours.segments().map(|s| *s.header()).collect();
    assert_eq!(phdrs, view.program_headers(), "{name}");

    // Sections, with names.
    let sections = view.sections();
    assert_eq!(ours.section_count(), sections.len(), "{name}");
    for (s, gs) in ours.sections().zip(&sections) {
        let sh = s.header();
        assert_eq!(s.name_str().unwrap_or(""), gs.name, "{name}");
        assert_eq!(
            (
                sh.sh_type,
                sh.sh_flags,
                sh.sh_addr,
                sh.sh_offset,
                sh.sh_size
            ),
            (
                gs.sh_type,
                gs.sh_flags,
                gs.sh_addr,
                gs.sh_offset,
                gs.sh_size
            ),
            "{name} {}",
            gs.name
        );
        assert_eq!(
            (sh.sh_link, sh.sh_info, sh.sh_addralign, sh.sh_entsize),
            (gs.sh_link, gs.sh_info, gs.sh_addralign, gs.sh_entsize),
            "{name} {}",
            gs.name
        );
    }

    // Both symbol tables.
    let mut symbols = 0;
    for (table, theirs) in [
        (ours.symbols().unwrap(), view.symbols()),
        (ours.dynamic_symbols().unwrap(), view.dynamic_symbols()),
    ] {
        let Some(table) = table else {
            assert!(theirs.is_empty(), "{name}");
            continue;
        };
        assert_eq!(table.len(), theirs.len(), "{name}");
        for (s, gs) in table.iter().zip(&theirs) {
            let s = s.unwrap_or_else(|e| panic!("{name}: {e}"));
            let e = s.entry();
            assert_eq!(s.name_str().unwrap_or(""), gs.name, "{name}");
            assert_eq!(
                (
                    e.st_info,
                    e.st_other,
                    usize::from(e.st_shndx),
                    e.st_value,
                    e.st_size
                ),
                (
                    gs.st_info,
                    gs.st_other,
                    gs.st_shndx,
                    gs.st_value,
                    gs.st_size
                ),
                "{name} {}",
                gs.name
            );
            symbols += 1;
        }
    }

    // Dynamic relocations: goblin reads them through DT_RELA, we through the
    // allocated SHT_RELA sections.
    let ours_rel: Vec<_> = dynamic_relocations(&ours).map(|r| r.unwrap()).collect();
    let theirs_rel = view.relocations();
    assert_eq!(ours_rel.len(), theirs_rel.len(), "{name}");
    for (r, gr) in ours_rel.iter().zip(&theirs_rel) {
        assert_eq!(
            (r.offset, r.raw_type, r.symbol as usize, r.addend, r.kind),
            (gr.offset, gr.raw_type, gr.symbol_index, gr.addend, gr.kind),
            "{name}"
        );
    }
    if let Some(d) = ours
        .sections()
        .find(|s| s.sh_type() == loader_core::elf::SHT_DYNAMIC)
    {
        assert_eq!(
            view.dynamic().len() as u64,
            d.header().sh_size / 16,
            "{name}: _DYNAMIC entries"
        );
    }

    // Kernel descriptors: what the view decodes is what the loader loads.
    let mut buf = vec![0u8; 64 << 20];
    let loaded = load(data, &mut SliceMemory::new(&mut buf, 0x1_0000_0000), |_| {
        Some(0x4000)
    })
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let kds = view.kernel_descriptors();
    let kernels: Vec<_> = loaded.kernels().map(|k| k.unwrap()).collect();
    assert_eq!(kds.len(), kernels.len(), "{name}");
    for (kd, k) in kds.iter().zip(&kernels) {
        assert_eq!(kd.name, k.name, "{name}");
        assert_eq!(kd.address + loaded.bias(), k.kernel_object, "{name}");
        assert_eq!(kd.descriptor, Some(Ok(k.descriptor)), "{name}");
    }
    (symbols, ours_rel.len(), kernels.len())
}

#[test]
fn goblin_and_zero_copy_parser_agree_on_every_object() {
    let objects = all_objects();
    let (mut symbols, mut relocations, mut kernels) = (0, 0, 0);
    for (name, data) in &objects {
        let (s, r, k) = cross_check(name, data);
        symbols += s;
        relocations += r;
        kernels += k;
    }
    assert!(
        symbols > 1000 && relocations >= 5 && kernels > 500,
        "{symbols} {relocations} {kernels}"
    );
    eprintln!(
        "{} objects, {symbols} symbols, {relocations} relocations, {kernels} kernels",
        objects.len()
    );
}

#[test]
fn rejected_by_both() {
    for bad in [&b""[..], b"\x7fELF", &[0u8; 64][..]] {
        assert!(CodeObjectView::parse(bad).is_err());
    }
    // A valid x86-64 host object: goblin reads it, we do not (not EM_AMDGPU).
    let host = std::fs::read(manifest().join("corpus/bundle/fatbin-host.o")).unwrap();
    assert!(goblin::elf::Elf::parse(&host).is_ok());
    assert!(CodeObjectView::parse(&host).is_err());
    let _ = OffloadBundle::parse(b"__CLANG_OFFLOAD_BUNDLE__").unwrap_err();
}
