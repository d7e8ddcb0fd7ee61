//! What the shader core's unit tests share: a seeded generator and the
//! context single instructions run in.

use std::time::Instant;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use isa::{Decoder, Processor};

use super::Ctx;
use super::program::{Inst, Program};
use super::setup::Launch;
use super::tlb::Tlb;
use crate::memory::GpuMemory;

/// xorshift64*: small, seeded, reproducible.
pub(crate) struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Runs `f` in the context single instructions run in (a test launch,
/// empty memory, no LDS).
pub(crate) fn in_context(f: impl FnOnce(&mut Ctx<'_>)) {
    let launch = Launch::for_tests();
    let memory = GpuMemory::new();
    let tlb = Tlb::new(&memory);
    let mut lds: Vec<u8> = Vec::new();
    let mut ctx = Ctx {
        launch: &launch,
        memory: &memory,
        mem: &tlb,
        counts: None,
        lds: &mut lds,
        clock_origin: Instant::now(),
        interrupt: None,
    };
    f(&mut ctx);
}

/// The gfx90a instruction encoded by `bytes` (an encoding llvm-mc-19
/// printed), lowered as a test launch's program lowers it.
pub(crate) fn decode(bytes: &[u8]) -> Inst {
    let launch = Launch::for_tests();
    let program = Program::new(
        Decoder::new(Processor::Gfx90a),
        launch.resolve,
        Arc::new(AtomicU64::new(0)),
    );
    let i = Decoder::new(Processor::Gfx90a)
        .decode(bytes)
        .expect("llvm-mc's encoding decodes");
    program.lower(0, i)
}
