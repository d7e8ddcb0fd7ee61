//! Coverage: which instructions a run executed, how often, and how far
//! their semantics here can be trusted ([`Fidelity`]).
//!
//! Off by default. `SIM_COVERAGE=FILE` in the environment when the
//! interpreter is made turns it on and writes the report to FILE when the
//! interpreter (the device's shader core) is dropped;
//! [`Interpreter::set_coverage`](super::Interpreter::set_coverage) turns
//! it on or off and [`Interpreter::coverage`](super::Interpreter::coverage)
//! returns what has been counted (the device forwards both:
//! `SimDevice::set_shader_coverage`, `SimDevice::shader_coverage`).
//! Counting costs one test per executed instruction when off, and a
//! per-worker array increment when on; the workers' counts are merged at
//! the end of each dispatch.

use std::fmt;

use isa::Opcode::{self, *};

/// How far an instruction's semantics in the sim match the hardware's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fidelity {
    /// Bit-exact with the ISA's definition.
    Exact,
    /// Within a documented bound of the hardware's result, not
    /// bit-identical to it (the bound says how far).
    Approximate(&'static str),
    /// Not implemented: executing it is an illegal-instruction fault.
    Missing,
}

impl fmt::Display for Fidelity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Exact => f.write_str("exact"),
            Self::Approximate(why) => write!(f, "approximate ({why})"),
            Self::Missing => f.write_str("missing"),
        }
    }
}

/// One instruction of a coverage report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoverageEntry {
    /// The mnemonic without encoding suffix (`v_add_f32`), or
    /// `undecodable` for words that did not decode.
    pub mnemonic: &'static str,
    /// Times a wave executed it.
    pub count: u64,
    /// How far its semantics can be trusted.
    pub fidelity: Fidelity,
}

/// What a run executed: every instruction with its count, most executed
/// first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage {
    /// The instructions.
    pub entries: Vec<CoverageEntry>,
}

impl Coverage {
    /// Instructions executed in total.
    pub fn executed(&self) -> u64 {
        self.entries.iter().map(|e| e.count).sum()
    }

    /// The entry of `mnemonic`, if it executed.
    pub fn get(&self, mnemonic: &str) -> Option<&CoverageEntry> {
        self.entries.iter().find(|e| e.mnemonic == mnemonic)
    }
}

impl fmt::Display for Coverage {
    /// The report: a summary line, then one line per instruction (count,
    /// fidelity, mnemonic, the bound of an approximate one).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.executed();
        let sum = |p: fn(&Fidelity) -> bool| -> u64 {
            self.entries
                .iter()
                .filter(|e| p(&e.fidelity))
                .map(|e| e.count)
                .sum()
        };
        let exact = sum(|x| *x == Fidelity::Exact);
        let approx = sum(|x| matches!(x, Fidelity::Approximate(_)));
        let missing = sum(|x| *x == Fidelity::Missing);
        writeln!(
            f,
            "# sim shader coverage: {total} instructions executed, {} distinct; \
             exact {exact}, approximate {approx}, missing {missing}",
            self.entries.len()
        )?;
        writeln!(f, "# count\tfidelity\tmnemonic\tbound")?;
        for e in &self.entries {
            let (kind, bound) = match e.fidelity {
                Fidelity::Exact => ("exact", ""),
                Fidelity::Approximate(b) => ("approximate", b),
                Fidelity::Missing => ("missing", ""),
            };
            writeln!(f, "{}\t{kind}\t{}\t{bound}", e.count, e.mnemonic)?;
        }
        Ok(())
    }
}

/// The fidelity of `op` in the interpreter (its family modules' documented
/// bounds; `Missing` when no family implements it).
pub fn fidelity(op: Opcode) -> Fidelity {
    const F32_TRANSCENDENTAL: &str = "computed in f64 and rounded to f32: within the hardware's \
                                      documented 1 ulp, may differ from it in the last bit";
    const F64_APPROX: &str = "the correctly rounded result; the hardware's is an approximation \
                              documented to 1 ulp";
    const F16_TRANSCENDENTAL: &str = "within the hardware's documented error, not bit-identical";
    const CLOCK: &str = "a nominal clock (s_memtime 1.7 GHz, s_memrealtime 100 MHz) from the \
                         sim's start, not a hardware counter";
    const MFMA: &str = "accumulated in k order with a rounding per step; equals the hardware \
                        where every partial sum is exact (integer forms exact)";
    const TYPED: &str = "normalised formats correctly rounded from the exact value, stores \
                         clamped and rounded to nearest even, the 10/11-bit floats' negative \
                         and overflow cases ours; the hardware's rounding of them is not \
                         documented to the bit";
    if super::handler(op).is_none() {
        return Fidelity::Missing;
    }
    let name = op.name();
    match op {
        V_RCP_F32 | V_RCP_IFLAG_F32 | V_RSQ_F32 | V_SQRT_F32 | V_EXP_F32 | V_LOG_F32
        | V_SIN_F32 | V_COS_F32 | V_EXP_LEGACY_F32 | V_LOG_LEGACY_F32 => {
            Fidelity::Approximate(F32_TRANSCENDENTAL)
        }
        V_RCP_F64 | V_RSQ_F64 | V_SQRT_F64 => Fidelity::Approximate(F64_APPROX),
        V_RCP_F16 | V_RSQ_F16 | V_EXP_F16 | V_LOG_F16 | V_SIN_F16 | V_COS_F16 => {
            Fidelity::Approximate(F16_TRANSCENDENTAL)
        }
        S_MEMTIME | S_MEMREALTIME => Fidelity::Approximate(CLOCK),
        _ if name.starts_with("v_mfma_") && !name.contains("i8") => Fidelity::Approximate(MFMA),
        _ if name.contains("_load_format_") || name.contains("_store_format_") => {
            Fidelity::Approximate(TYPED)
        }
        // Decoded and claimed by `ds`, but always the GDS/GWS fault.
        DS_ORDERED_COUNT => Fidelity::Missing,
        _ if name.starts_with("ds_gws_") => Fidelity::Missing,
        _ => Fidelity::Exact,
    }
}

/// Slots of the per-worker count array (more than there are opcodes).
pub(crate) const SLOTS: usize = 2048;

/// One worker's counts: per opcode index, the count and the opcode; the
/// last slot counts undecodable words.
pub(crate) type Counts = Vec<(u64, Option<Opcode>)>;

/// An empty count array.
pub(crate) fn counts() -> Counts {
    vec![(0, None); SLOTS + 1]
}

/// Counts one execution of `inst`.
#[inline]
pub(crate) fn count(c: &mut Counts, inst: &super::program::Inst) {
    let k = if inst.decoded.is_err() {
        SLOTS
    } else {
        (inst.op as usize).min(SLOTS - 1)
    };
    if let Some(e) = c.get_mut(k) {
        e.0 += 1;
        if k < SLOTS {
            e.1 = Some(inst.op);
        }
    }
}

/// Adds `from` into `into`.
pub(crate) fn merge(into: &mut Counts, from: &Counts) {
    for (a, b) in into.iter_mut().zip(from) {
        a.0 += b.0;
        if a.1.is_none() {
            a.1 = b.1;
        }
    }
}

/// The report of `c`.
pub(crate) fn report(c: &Counts) -> Coverage {
    let mut entries: Vec<CoverageEntry> = c
        .iter()
        .enumerate()
        .filter(|(_, e)| e.0 > 0)
        .map(|(k, &(count, op))| match op {
            Some(op) if k < SLOTS => CoverageEntry {
                mnemonic: op.name(),
                count,
                fidelity: fidelity(op),
            },
            _ => CoverageEntry {
                mnemonic: "undecodable",
                count,
                fidelity: Fidelity::Missing,
            },
        })
        .collect();
    entries.sort_by(|a, b| b.count.cmp(&a.count).then(a.mnemonic.cmp(b.mnemonic)));
    Coverage { entries }
}
