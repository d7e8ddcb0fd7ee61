//! Robustness on stable: thousands of mutated code objects, bundles and
//! descriptors go through loading, the kernel and variable iterators,
//! bundle walking and descriptor decoding. Every one must return (an error
//! or a value) without panicking; the fuzz targets do the same at scale.

use loader_core::bundle::{Container, FatbinBundles, OffloadBundle};
use loader_core::kernel_descriptor::{GpuFamily, KernelDescriptor};
use loader_core::load::{SliceMemory, dynamic_relocations, load};
use std::path::Path;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const EXTREMES: [u64; 6] = [0, 1, 0x40, u64::MAX, u64::MAX / 2 + 1, 0xffff_ffff];

/// Flips bytes, writes extreme 64-bit values at 8-byte boundaries (the
/// ELF and bundle fields are 8-byte aligned), or truncates.
fn mutate(rng: &mut Rng, original: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(original);
    match rng.below(4) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
        }
        1 => {
            let at = rng.below(out.len() / 8) * 8;
            let v = EXTREMES[rng.below(EXTREMES.len())].to_le_bytes();
            let n = [1, 2, 4, 8][rng.below(4)].min(out.len() - at);
            out[at..at + n].copy_from_slice(&v[..n]);
        }
        2 => {
            // Headers, program headers and the first section headers.
            let i = rng.below(out.len().min(0x400));
            out[i] = rng.next() as u8;
        }
        _ => out.truncate(rng.below(original.len())),
    }
}

fn exercise_object(data: &[u8], memory: &mut [u8]) -> usize {
    let mut n = 0;
    if let Ok(elf) = loader_core::elf::ElfFile::parse(data) {
        n += dynamic_relocations(&elf).take(10_000).count();
    }
    let mut mem = SliceMemory::new(memory, 0x7f00_0000_0000);
    if let Ok(loaded) = load(data, &mut mem, |_| Some(0x1000)) {
        n += loaded.kernels().take(100_000).count();
        n += loaded.variables().take(100_000).count();
    }
    n
}

#[test]
fn mutated_code_objects_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/co");
    let mut objects: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    objects.sort();
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut memory = vec![0u8; 8 << 20];
    let mut buf = Vec::new();
    let mut loaded_ok = 0;
    for path in objects
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .step_by(4)
    {
        let original = std::fs::read(path).unwrap();
        for _ in 0..120 {
            mutate(&mut rng, &original, &mut buf);
            loaded_ok += usize::from(exercise_object(&buf, &mut memory) > 0);
        }
    }
    // Most single mutations hit bytes nobody checks (code, padding) and
    // still load; the test is about the others not panicking.
    assert!(loaded_ok > 30, "{loaded_ok}");
}

#[test]
fn mutated_bundles_never_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/bundle");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut buf = Vec::new();
    let (mut files, mut parsed) = (0, 0);
    for entry in std::fs::read_dir(&dir).unwrap() {
        files += 1;
        let original = std::fs::read(entry.unwrap().path()).unwrap();
        for _ in 0..800 {
            mutate(&mut rng, &original, &mut buf);
            parsed += usize::from(Container::parse(&buf).is_ok());
            match Container::parse(&buf) {
                Ok(Container::Bundle(b)) => {
                    let _ = b
                        .entries()
                        .filter_map(Result::ok)
                        .map(|e| e.parsed_id().target_id.len())
                        .sum::<usize>();
                    let _ = b.find_target("gfx1030");
                }
                Ok(Container::Compressed(c)) => {
                    let mut out = vec![0u8; (c.uncompressed_size() as usize).min(1 << 22)];
                    let _ = c.decompress_into(&mut out);
                }
                Ok(Container::Elf(host)) => {
                    if let Ok(Some(section)) = loader_core::bundle::hip_fatbin_section(host) {
                        let _ = FatbinBundles::new(section).take(1000).count();
                    }
                }
                Err(_) => {}
            }
            let _ = OffloadBundle::parse(&buf);
        }
    }
    assert!(
        files >= 3 && parsed > files * 100,
        "{files} files, {parsed} parsed"
    );
}

#[test]
fn random_descriptors_never_panic() {
    let families = [
        GpuFamily::Gfx6,
        GpuFamily::Gfx8,
        GpuFamily::Gfx9,
        GpuFamily::Gfx90a,
        GpuFamily::Gfx94x,
        GpuFamily::Gfx10,
        GpuFamily::Gfx11,
        GpuFamily::Gfx12,
    ];
    let mut rng = Rng(0xdead_beef_cafe_f00d);
    let mut ok = 0;
    for _ in 0..20_000 {
        let mut b = [0u8; 64];
        // Sparse random registers (dense ones always hit a reserved bit).
        for off in [0usize, 4, 8, 16, 44, 48, 52, 56, 58] {
            let v = rng.next() & rng.next() & rng.next();
            let n = if off == 16 {
                8
            } else if off >= 56 {
                2
            } else {
                4
            };
            b[off..off + n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
        if let Ok(kd) = KernelDescriptor::parse(&b) {
            assert_eq!(kd.to_bytes(), b);
            for f in families {
                if let Ok(d) = kd.decode(f) {
                    ok += 1;
                    assert!(d.directives(5).count() > 30);
                }
            }
        }
    }
    assert!(ok > 0);
}
