//! `argspec`'s binary16 conversion against the C compiler's: a host program
//! built with clang-19 converts `double` and `float` to `_Float16` (IEEE
//! round to nearest even, done by the compiler runtime), and every result
//! must equal `f64_to_f16_bits` / `f32_to_f16_bits`.

use runtime::argspec::{f32_to_f16_bits, f64_to_f16_bits};
use std::fmt::Write as _;
use std::io::Write as _;
use std::process::{Command, Stdio};

const PROGRAM: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
int main(void) {
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        unsigned long long b;
        char kind;
        if (sscanf(line, "%c %llx", &kind, &b) != 2) return 1;
        _Float16 h;
        if (kind == 'd') { double d; memcpy(&d, &b, 8); h = (_Float16)d; }
        else { uint32_t w = (uint32_t)b; float f; memcpy(&f, &w, 4); h = (_Float16)f; }
        uint16_t o;
        memcpy(&o, &h, 2);
        printf("%04x\n", o);
    }
    return 0;
}
"#;

/// A small deterministic generator (xorshift64*), so the inputs are the same
/// on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn f16_conversion_matches_clang() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("argspec_f16");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("f16.c");
    let exe = dir.join("f16");
    std::fs::write(&src, PROGRAM).unwrap();
    let out = Command::new("clang-19")
        .arg("-O1")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap_or_else(|e| panic!("cannot run clang-19: {e} (apt-get install clang-19)"));
    assert!(
        out.status.success(),
        "clang-19 failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Inputs: every binary16 value, the midpoints between neighbours and
    // values just off them (as f64 and as f32), and random f64/f32 bit
    // patterns around the binary16 range.
    let mut doubles: Vec<f64> = Vec::new();
    let mut floats: Vec<f32> = Vec::new();
    let value = |bits: u16| -> f64 {
        let exp = i32::from((bits >> 10) & 0x1f);
        let man = f64::from(bits & 0x3ff);
        let mag = match exp {
            0 => man * 2f64.powi(-24),
            31 => 65536.0,
            e => (1024.0 + man) * 2f64.powi(e - 25),
        };
        if bits & 0x8000 != 0 { -mag } else { mag }
    };
    for bits in 0..0x7c00u16 {
        for b in [bits, bits | 0x8000] {
            let v = value(b);
            let w = value(b + 1);
            let mid = (v + w) / 2.0;
            // One ulp either side, by magnitude (mid is never 0; the
            // next_up/next_down methods are newer than rust-version 1.85).
            let away = f64::from_bits(mid.to_bits() + 1);
            let toward = f64::from_bits(mid.to_bits() - 1);
            for x in [v, mid, away, toward] {
                doubles.push(x);
                floats.push(x as f32);
            }
            let mid32 = mid as f32;
            floats.push(f32::from_bits(mid32.to_bits() + 1));
            floats.push(f32::from_bits(mid32.to_bits() - 1));
        }
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..200_000 {
        // Exponents 2^-40 .. 2^20, any sign and mantissa.
        let r = rng.next();
        let exp = 1023 - 40 + (r >> 52) % 61;
        doubles.push(f64::from_bits(
            (r & (1 << 63)) | (exp << 52) | (r & ((1 << 52) - 1)),
        ));
        let r = rng.next() as u32;
        let exp = 127 - 40 + (r >> 23) % 61;
        floats.push(f32::from_bits(
            (r & (1 << 31)) | (exp << 23) | (r & ((1 << 23) - 1)),
        ));
    }
    for x in [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MAX,
        f64::MIN_POSITIVE,
        1e-320,
    ] {
        doubles.push(x);
        floats.push(x as f32);
    }

    let mut input = String::new();
    for d in &doubles {
        writeln!(input, "d {:x}", d.to_bits()).unwrap();
    }
    for f in &floats {
        writeln!(input, "f {:x}", f.to_bits()).unwrap();
    }
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let clang: Vec<u16> = text
        .lines()
        .map(|l| u16::from_str_radix(l, 16).unwrap())
        .collect();
    assert_eq!(clang.len(), doubles.len() + floats.len());
    let (cd, cf) = clang.split_at(doubles.len());
    let mut checked = 0;
    for (x, &want) in doubles.iter().zip(cd) {
        assert_eq!(f64_to_f16_bits(*x), want, "f64 {x:e} ({:#x})", x.to_bits());
        checked += 1;
    }
    for (x, &want) in floats.iter().zip(cf) {
        assert_eq!(f32_to_f16_bits(*x), want, "f32 {x:e} ({:#x})", x.to_bits());
        checked += 1;
    }
    assert!(checked > 900_000, "{checked}");
}
