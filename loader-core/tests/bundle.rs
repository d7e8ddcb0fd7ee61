//! Clang offload bundles against clang-offload-bundler-19 (LLVM's own
//! reader and writer) and llvm-objcopy-19, on the corpus bundles and on
//! bundles made here; compressed headers of every version against streams
//! made by Python's zlib; malformed bundles rejected with an error.

use loader_core::ErrorKind;
use loader_core::bundle::{
    BundleEntry, BundleEntryId, CompressedBundle, CompressionMethod, Container, FatbinBundles,
    OffloadBundle, hip_fatbin_section,
};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const BUNDLER: &str = "/usr/lib/llvm-19/bin/clang-offload-bundler";

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(rel)
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("loader-core-bundle-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (install clang-19 / llvm-19)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn bundler_list(path: &Path) -> BTreeSet<String> {
    run(Command::new(BUNDLER)
        .args(["-list", "-type=o"])
        .arg(format!("-input={}", path.display())))
    .lines()
    .map(str::to_string)
    .collect()
}

fn bundler_unbundle(path: &Path, id: &str, dir: &Path) -> Vec<u8> {
    let out = dir.join("unbundled");
    run(Command::new(BUNDLER)
        .args(["-unbundle", "-type=o"])
        .arg(format!("-input={}", path.display()))
        .arg(format!("-targets={id}"))
        .arg(format!("-output={}", out.display())));
    std::fs::read(out).unwrap()
}

/// Entries, ids and code objects equal what clang-offload-bundler lists and
/// extracts from the same file.
fn check_against_bundler(path: &Path, bundle: &OffloadBundle<'_>, align: u64) {
    let dir = tmpdir("unbundle");
    let entries: Vec<_> = bundle
        .entries()
        .map(|e| e.expect("every entry of a bundler-made bundle is good"))
        .collect();
    let ours: BTreeSet<String> = entries.iter().map(|e| e.id.to_string()).collect();
    assert_eq!(ours, bundler_list(path), "{}", path.display());
    assert_eq!(bundle.len() as usize, ours.len());
    for e in entries {
        if e.parsed_id().kind == "host" {
            // The bundler cannot unbundle HIP's empty host entry; it is empty.
            assert!(e.data.is_empty());
            continue;
        }
        let theirs = bundler_unbundle(path, e.id, &dir);
        assert_eq!(e.data, &theirs[..], "{}: entry {}", path.display(), e.id);
        if !e.data.is_empty() {
            assert!(e.data.starts_with(b"\x7fELF"));
            // As the bundler was asked (-bundle-align).
            assert_eq!(e.offset % align, 0, "{}", e.id);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn corpus_bundle_matches_clang_offload_bundler() {
    let path = corpus("bundle/three-targets.bundle");
    let data = std::fs::read(&path).unwrap();
    let bundle = OffloadBundle::parse(&data).unwrap();
    assert_eq!(bundle.len(), 4);
    assert_eq!(bundle.size(), data.len() as u64);
    check_against_bundler(&path, &bundle, 4096);

    let e = bundle
        .find_target("gfx90a:xnack+")
        .expect("gfx90a:xnack+ entry");
    assert_eq!(e.id, "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+");
    assert_eq!(
        e.data,
        std::fs::read(corpus("co/gfx90a-v5-xnack+.co")).unwrap()
    );
    assert_eq!(
        bundle.find_target("gfx1030").unwrap().data,
        std::fs::read(corpus("co/gfx1030-v5.co")).unwrap()
    );
    assert!(
        bundle.find_target("gfx90a").is_none(),
        "target ids match exactly"
    );
    let generic = bundle
        .find("hipv4-amdgcn-amd-amdhsa--gfx11-generic")
        .unwrap();
    assert_eq!(generic.parsed_id().processor(), "gfx11-generic");
    let host = bundle
        .entries()
        .map(Result::unwrap)
        .find(|e| e.parsed_id().kind == "host")
        .unwrap();
    assert!(host.data.is_empty());
    assert!(!host.parsed_id().is_amdhsa());
}

#[test]
fn entry_ids_split_as_clang_does() {
    let id = BundleEntryId::parse("hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
    assert_eq!(
        (id.kind, id.triple, id.target_id),
        ("hipv4", "amdgcn-amd-amdhsa-", "gfx90a:sramecc+:xnack-")
    );
    assert_eq!(id.processor(), "gfx90a");
    let id = BundleEntryId::parse("hip-amdgcn-amd-amdhsa-gfx906");
    assert_eq!(
        (id.kind, id.triple, id.target_id),
        ("hip", "amdgcn-amd-amdhsa", "gfx906")
    );
    let id = BundleEntryId::parse("openmp-amdgcn-amd-amdhsa--gfx10-3-generic");
    assert_eq!(
        (id.triple, id.target_id),
        ("amdgcn-amd-amdhsa-", "gfx10-3-generic")
    );
    let id = BundleEntryId::parse("host-x86_64-unknown-linux-gnu");
    assert_eq!(
        (id.kind, id.triple, id.target_id),
        ("host", "x86_64-unknown-linux-gnu", "")
    );
    let id = BundleEntryId::parse("");
    assert_eq!((id.kind, id.triple, id.target_id), ("", "", ""));
}

#[test]
fn compressed_corpus_bundle_header() {
    let data = std::fs::read(corpus("bundle/three-targets-compressed.bundle")).unwrap();
    let plain = std::fs::read(corpus("bundle/three-targets.bundle")).unwrap();
    let c = CompressedBundle::parse(&data).unwrap();
    // LLVM 19 writes version 2, zstd when available (Debian's is built with it).
    assert_eq!(c.version(), 2);
    assert_eq!(c.method(), CompressionMethod::Zstd);
    assert_eq!(c.header_size(), 24);
    assert_eq!(c.total_size(), Some(data.len() as u64));
    assert_eq!(c.uncompressed_size(), plain.len() as u64);
    assert!(
        c.compressed_data().starts_with(&[0x28, 0xb5, 0x2f, 0xfd]),
        "zstd frame magic"
    );
    assert!(matches!(
        Container::parse(&data).unwrap(),
        Container::Compressed(_)
    ));
    // Our MD5 gives the hash clang-offload-bundler stored.
    assert!(c.hash_matches(&plain));
    assert!(!c.hash_matches(&plain[1..]));
    let mut out = vec![0u8; plain.len()];
    match c.decompress_into(&mut out) {
        #[cfg(feature = "decompress")]
        Ok(n) => {
            assert_eq!(n, plain.len());
            assert_eq!(
                out, plain,
                "decompressed bundle differs from the uncompressed one"
            );
        }
        #[cfg(not(feature = "decompress"))]
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::FeatureDisabled);
            assert!(e.to_string().contains("feature `decompress`"), "{e}");
        }
        #[allow(unreachable_patterns)]
        other => panic!("unexpected {other:?}"),
    }
    let mut small = vec![0u8; plain.len() - 1];
    assert_eq!(
        c.decompress_into(&mut small).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
}

#[cfg(feature = "decompress")]
#[test]
fn decompressed_corpus_bundle_matches_clang_offload_bundler() {
    let path = corpus("bundle/three-targets-compressed.bundle");
    let data = std::fs::read(&path).unwrap();
    let plain = CompressedBundle::parse(&data)
        .unwrap()
        .decompress(1 << 24)
        .unwrap();
    let bundle = OffloadBundle::parse(&plain).unwrap();
    check_against_bundler(&path, &bundle, 4096);
    assert_eq!(
        CompressedBundle::parse(&data)
            .unwrap()
            .decompress(1000)
            .unwrap_err()
            .kind(),
        ErrorKind::LimitExceeded
    );
}

/// A CCOB of `version` around `payload` compressed by Python's zlib
/// (method 0), with Python's MD5 as the hash.
fn python_ccob(version: u16, payload: &Path) -> Vec<u8> {
    let script = r#"
import sys, zlib, hashlib, struct
v = int(sys.argv[1]); raw = open(sys.argv[2], 'rb').read()
z = zlib.compress(raw, 9); h = struct.unpack('<Q', hashlib.md5(raw).digest()[:8])[0]
if v == 1: hdr = b'CCOB' + struct.pack('<HHIQ', 1, 0, len(raw), h)
elif v == 2: hdr = b'CCOB' + struct.pack('<HHIIQ', 2, 0, 24 + len(z), len(raw), h)
else: hdr = b'CCOB' + struct.pack('<HHQQQ', 3, 0, 32 + len(z), len(raw), h)
sys.stdout.buffer.write(hdr + z)
"#;
    let out = Command::new("python3")
        .args(["-c", script, &version.to_string()])
        .arg(payload)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn compressed_headers_of_every_version() {
    let plain_path = corpus("bundle/three-targets.bundle");
    let plain = std::fs::read(&plain_path).unwrap();
    for (version, header) in [(1u16, 20usize), (2, 24), (3, 32)] {
        let ccob = python_ccob(version, &plain_path);
        let c = CompressedBundle::parse(&ccob).unwrap();
        assert_eq!(c.version(), version);
        assert_eq!(c.method(), CompressionMethod::Zlib);
        assert_eq!(c.header_size(), header);
        assert_eq!(c.uncompressed_size(), plain.len() as u64);
        assert_eq!(c.compressed_data().len(), ccob.len() - header);
        assert_eq!(c.total_size(), (version > 1).then_some(ccob.len() as u64));
        let md5_low = {
            let out = Command::new("python3")
                .args(["-c", "import sys,hashlib,struct;print(struct.unpack('<Q',hashlib.md5(open(sys.argv[1],'rb').read()).digest()[:8])[0])"])
                .arg(&plain_path)
                .output()
                .unwrap();
            String::from_utf8(out.stdout)
                .unwrap()
                .trim()
                .parse::<u64>()
                .unwrap()
        };
        assert_eq!(c.hash(), md5_low);
        let mut out = vec![0u8; plain.len()];
        let r = c.decompress_into(&mut out);
        if cfg!(feature = "decompress") {
            assert_eq!(r.unwrap(), plain.len(), "v{version}");
            assert_eq!(out, plain, "v{version}");
            // A trailing byte dropped: the stream is truncated.
            let cut = CompressedBundle::parse(&ccob[..ccob.len() - 1]);
            if version == 1 {
                assert!(cut.unwrap().decompress_into(&mut out).is_err());
            } else {
                assert_eq!(cut.unwrap_err().kind(), ErrorKind::OutOfBounds);
            }
        } else {
            assert_eq!(r.unwrap_err().kind(), ErrorKind::FeatureDisabled);
        }
    }
}

#[test]
fn hip_fatbin_of_the_corpus_host_object() {
    let path = corpus("bundle/fatbin-host.o");
    let host = std::fs::read(&path).unwrap();
    let section = hip_fatbin_section(&host).unwrap().expect(".hip_fatbin");
    let dir = tmpdir("objcopy");
    let dumped = dir.join("fatbin");
    run(Command::new("llvm-objcopy-19")
        .arg(format!("--dump-section=.hip_fatbin={}", dumped.display()))
        .arg(&path)
        .arg(dir.join("copy.o")));
    assert_eq!(section, &std::fs::read(&dumped).unwrap()[..]);
    let bundles: Vec<_> = FatbinBundles::new(section)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(bundles.len(), 1);
    assert_eq!(bundles[0].0, 0);
    assert!(matches!(bundles[0].1, Container::Compressed(_)));
    let _ = std::fs::remove_dir_all(&dir);

    // A code object is an ELF without .hip_fatbin.
    let co = std::fs::read(corpus("co/gfx906-v5.co")).unwrap();
    assert_eq!(hip_fatbin_section(&co).unwrap(), None);
}

#[test]
fn bundles_made_here_several_per_fatbin() {
    // Two bundles written by clang-offload-bundler, concatenated with zero
    // padding as the linker concatenates the .hip_fatbin of two objects.
    let dir = tmpdir("make");
    let a = dir.join("a.bundle");
    let b = dir.join("b.bundle");
    for (out, inputs, targets) in [
        (
            &a,
            ["co/gfx900-v4.co", "co/gfx1200-v6.co"],
            "hipv4-amdgcn-amd-amdhsa--gfx900,hipv4-amdgcn-amd-amdhsa--gfx1200",
        ),
        (
            &b,
            ["co/gfx942-v6.co", "co/gfx908-v5.co"],
            "hip-amdgcn-amd-amdhsa--gfx942,hip-amdgcn-amd-amdhsa--gfx908",
        ),
    ] {
        run(Command::new(BUNDLER)
            .args(["-type=o", "-bundle-align=256", "-input=/dev/null"])
            .arg(format!("-targets=host-x86_64-unknown-linux--,{targets}"))
            .arg(format!("-input={}", corpus(inputs[0]).display()))
            .arg(format!("-input={}", corpus(inputs[1]).display()))
            .arg(format!("-output={}", out.display())));
    }
    let (da, db) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    check_against_bundler(
        &a,
        &OffloadBundle::parse(&da).unwrap_or_else(|e| panic!("{e}")),
        256,
    );
    let mut fatbin = da.clone();
    fatbin.resize(da.len().next_multiple_of(4096), 0);
    let second_at = fatbin.len() as u64;
    fatbin.extend_from_slice(&db);
    fatbin.resize(fatbin.len() + 100, 0);
    let got: Vec<_> = FatbinBundles::new(&fatbin)
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].0, second_at);
    let Container::Bundle(second) = got[1].1 else {
        panic!("not a bundle")
    };
    assert_eq!(
        second.find_target("gfx908").unwrap().data,
        std::fs::read(corpus("co/gfx908-v5.co")).unwrap()
    );
    // Garbage after the bundles is an error, and the iterator stops there.
    fatbin.push(7);
    let mut it = FatbinBundles::new(&fatbin);
    assert!(it.next().unwrap().is_ok());
    assert!(it.next().unwrap().is_ok());
    assert_eq!(it.next().unwrap().unwrap_err().kind(), ErrorKind::Malformed);
    assert!(it.next().is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_bundles_are_errors() {
    let data = std::fs::read(corpus("bundle/three-targets.bundle")).unwrap();
    // Every truncation that cuts into the header table fails the bundle;
    // one that cuts into a code object fails that entry, and only that one.
    fn entries(d: &[u8]) -> loader_core::Result<Vec<loader_core::Result<BundleEntry<'_>>>> {
        OffloadBundle::parse(d).map(|b| b.entries().collect())
    }
    let good = entries(&data).unwrap();
    let table_end = good
        .iter()
        .map(|e| e.as_ref().unwrap())
        .map(|e| e.offset + e.data.len() as u64)
        .max()
        .unwrap() as usize;
    for len in 0..table_end {
        if len > 4096 && len % 64 != 0 {
            continue; // past the header table only the code-object ends matter
        }
        let Ok(cut) = entries(&data[..len]) else {
            continue;
        };
        assert_eq!(cut.len(), good.len(), "prefix {len}: one result per entry");
        let mut failed = 0;
        for (c, g) in cut.iter().zip(&good) {
            let g = g.as_ref().unwrap();
            match c {
                Ok(c) => assert_eq!(c, g, "prefix {len}: a whole entry changed"),
                Err(e) => {
                    assert!(g.offset + g.data.len() as u64 > len as u64, "prefix {len}");
                    assert_eq!(e.kind(), ErrorKind::OutOfBounds, "prefix {len}: {e}");
                    failed += 1;
                }
            }
        }
        assert!(failed > 0, "prefix {len} accepted whole");
    }
    let mut bad = data.clone();
    bad[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(
        OffloadBundle::parse(&bad).unwrap_err().kind(),
        ErrorKind::LimitExceeded
    );
    // A code object outside the bundle is that entry's error; the three
    // other entries are read as before.
    let mut bad = data.clone();
    bad[32..40].copy_from_slice(&(u64::MAX - 8).to_le_bytes()); // entry 0 offset
    let got = entries(&bad).unwrap();
    assert_eq!(got.len(), 4);
    let e = got[0].as_ref().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfBounds);
    assert_eq!(
        e.to_string(),
        "bundle entry 0 at offset 0x20: code object runs past the end of the bundle"
    );
    assert_eq!(&got[1..], &good[1..]);
    let mut bad = data.clone();
    bad[48..56].copy_from_slice(&u64::MAX.to_le_bytes()); // entry 0 id length
    assert_eq!(
        OffloadBundle::parse(&bad).unwrap_err().kind(),
        ErrorKind::OutOfBounds,
        "an id past the end damages the table: entry 1 cannot be found"
    );
    let mut bad = data.clone();
    bad[56] = 0xff; // entry 0 id byte
    let got = entries(&bad).unwrap();
    assert_eq!(got[0].as_ref().unwrap_err().kind(), ErrorKind::Malformed);
    assert_eq!(&got[1..], &good[1..]);
    assert_eq!(
        Container::parse(b"MZ\x90\0").unwrap_err().kind(),
        ErrorKind::Malformed
    );

    let ccob = std::fs::read(corpus("bundle/three-targets-compressed.bundle")).unwrap();
    for len in 0..28 {
        assert!(
            CompressedBundle::parse(&ccob[..len]).is_err(),
            "CCOB prefix {len}"
        );
    }
    let mut bad = ccob.clone();
    bad[4] = 4;
    assert_eq!(
        CompressedBundle::parse(&bad).unwrap_err().kind(),
        ErrorKind::Unsupported
    );
    let mut bad = ccob.clone();
    bad[6] = 2;
    assert_eq!(
        CompressedBundle::parse(&bad).unwrap_err().kind(),
        ErrorKind::Unsupported
    );
    let mut bad = ccob.clone();
    bad[8..12].copy_from_slice(&10u32.to_le_bytes());
    assert_eq!(
        CompressedBundle::parse(&bad).unwrap_err().kind(),
        ErrorKind::Malformed
    );
    #[cfg(feature = "decompress")]
    {
        let mut bad = ccob.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0xff;
        bad[mid + 1] ^= 0x55;
        let c = CompressedBundle::parse(&bad).unwrap();
        let mut out = vec![0u8; c.uncompressed_size() as usize];
        // Corrupted data: an error (or, if the frame still decodes, bytes that
        // differ) but never a panic.
        if let Ok(n) = c.decompress_into(&mut out) {
            assert_ne!(&out[..n], &data[..]);
        }
    }
}

/// rocRAND's `librocrand.so` (Debian's build, `scripts/fetch-rocrand`):
/// the bundles of its `.hip_fatbin` hold exactly the code objects that
/// clang-offload-bundler-19 extracted from it (the `ENTRIES` list).
#[test]
fn rocrand_hip_fatbin() {
    let dir = std::env::var_os("ROCRAND_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/rocrand"));
    let entries = std::fs::read_to_string(dir.join("ENTRIES")).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: run scripts/fetch-rocrand (scripts/test does)",
            dir.display()
        )
    });
    let so = std::fs::read_dir(dir.join("root/usr/lib/x86_64-linux-gnu"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("librocrand.so.")
                && !p.is_symlink()
        })
        .expect("librocrand.so.* in the extracted package");
    let host = std::fs::read(&so).unwrap();
    let section = hip_fatbin_section(&host).unwrap().expect(".hip_fatbin");
    let mut found = 0;
    for b in FatbinBundles::new(section) {
        let (_, container) = b.unwrap();
        let plain;
        let bundle = match container {
            Container::Bundle(b) => b,
            Container::Compressed(c) => {
                let mut out = vec![0u8; c.uncompressed_size() as usize];
                match c.decompress_into(&mut out) {
                    Ok(_) => {}
                    Err(e) if e.kind() == ErrorKind::FeatureDisabled => continue,
                    Err(e) => panic!("{e}"),
                }
                plain = out;
                OffloadBundle::parse(&plain).unwrap()
            }
            Container::Elf(_) => panic!("an ELF file inside .hip_fatbin"),
        };
        for e in bundle
            .entries()
            .map(Result::unwrap)
            .filter(|e| !e.data.is_empty())
        {
            let line = entries
                .lines()
                .find(|l| l.split_whitespace().nth(1) == Some(e.id))
                .unwrap_or_else(|| panic!("{} not in ENTRIES", e.id));
            let path = line.split_whitespace().next().unwrap();
            // ENTRIES paths are relative to the rocRAND directory itself.
            let path = dir.join(path);
            assert_eq!(e.data, &std::fs::read(&path).unwrap()[..], "{}", e.id);
            found += 1;
        }
    }
    assert_eq!(
        found,
        entries.lines().count(),
        "every ENTRIES code object found"
    );
}
