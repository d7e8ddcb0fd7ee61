//! Decode once: the code a dispatch runs, as blocks of pre-decoded
//! instructions ([`Inst`]) keyed by their GPU address.
//!
//! A block is decoded linearly from the address a wave first reaches (the
//! kernel entry, a branch target, a call target) up to the first
//! instruction after which control cannot fall through (`s_endpgm`,
//! `s_branch`, `s_setpc_b64`, ...) or up to a word that does not decode
//! (kept as an [`Inst`] whose execution is the illegal-instruction fault,
//! so bytes past the end of a kernel are never an error unless reached).
//! Every wave of the dispatch shares the blocks; a PC is decoded at most
//! once per block that covers it. Instructions are never decoded while
//! they execute.
//!
//! Operands are resolved here too ([`Src`], [`Dst`]): the scalar register
//! file is one array indexed by the ISA's scalar operand code (SGPRs 0-101,
//! FLAT_SCRATCH 102-103, XNACK_MASK 104-105, VCC 106-107, TTMP 108-123, M0
//! 124, EXEC 126-127), AGPRs are VGPR-file indices past `accum_offset`
//! (gfx90a's unified register file).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use isa::{
    Decoder, Encoding, Field, FloatConst, Instruction, Modifiers, Opcode, Operand, SpecialReg,
};

use super::wave::Wave;
use super::{Ctx, Exec, Fault};
use crate::memory::{DeviceMemory, GpuMemory};

/// Scalar-file index of `vcc_lo`.
pub(crate) const VCC: u8 = 106;
/// Scalar-file index of `exec_lo`.
pub(crate) const EXEC: u8 = 126;
/// Scalar-file index of `m0`.
pub(crate) const M0: u8 = 124;
/// Scalar-file index of `flat_scratch_lo`.
pub(crate) const FLAT_SCRATCH: u8 = 102;
/// Scalar-file index of `ttmp0`.
pub(crate) const TTMP: u8 = 108;
/// Size of the scalar file (codes 0..=127).
pub(crate) const SCALAR_FILE: usize = 128;

/// A source operand, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Src {
    /// Not present.
    None,
    /// Scalar file index.
    S(u8),
    /// VGPR file index (AGPRs included, offset by `accum_offset`).
    V(u16),
    /// An inline integer.
    Int(i8),
    /// An inline float constant (its bits depend on the operand's type).
    Float(FloatConst),
    /// A literal dword.
    Lit(u32),
    /// `null`: reads zero.
    Zero,
    /// `src_scc`.
    Scc,
    /// `src_vccz`.
    Vccz,
    /// `src_execz`.
    Execz,
    /// `src_shared_base`, `src_shared_limit`, `src_private_base`,
    /// `src_private_limit` (the 64-bit aperture value).
    Aperture(u64),
    /// `src_pops_exiting_wave_id` (no POPS on compute: zero).
    PopsWaveId,
    /// An SDWA source after its byte/word select (`Wave::staged`).
    Staged(u8),
}

/// A destination operand, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dst {
    /// Not present.
    None,
    /// Scalar file index.
    S(u8),
    /// VGPR file index.
    V(u16),
    /// `null`: writes are discarded.
    Null,
}

/// The handler of one operation (a family module's function).
pub(crate) type ExecFn = fn(&mut Wave, &Inst, &mut Ctx<'_>) -> Exec;

/// An operation's handler over VGPR shapes ([`super::shape`]): true when
/// it ran the instruction (which then continues with the next one; a
/// shape handler never faults), false, having changed nothing, when it
/// does not apply (the ordinary handler then runs on materialised VGPRs).
/// A `bool`, not a `Result`: the result of the hottest indirect call
/// comes back in a register.
pub(crate) type ShapedFn = fn(&mut Wave, &Inst, &mut Ctx<'_>) -> bool;

/// A handler for a run of instructions starting at the first of `insts`
/// over VGPR shapes ([`super::shape::idiom`]): how many of them it ran,
/// in order, each exactly as its own shape handler would (0: none; the
/// first then runs alone).
pub(crate) type FusedFn = fn(&mut Wave, &[Inst], &mut Ctx<'_>) -> usize;

/// Whether `e` is a VALU encoding (VOP1/VOP2/VOPC/VOP3/VOP3P/SDWA/DPP).
pub(crate) fn is_valu(e: Encoding) -> bool {
    matches!(
        e,
        Encoding::Vop1
            | Encoding::Vop2
            | Encoding::Vopc
            | Encoding::Vop3
            | Encoding::Vop3p
            | Encoding::Sdwa
            | Encoding::Dpp
    )
}

/// Most VGPR ranges an instruction names.
const MAX_RANGES: usize = 6;

/// The VGPRs an instruction's ordinary handler may read or write: what
/// the scheduler materialises first while any VGPR is tagged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TouchVgprs {
    /// None (scalar instructions).
    None,
    /// The VGPRs its operands name, all among the first 64: one bit each.
    Low(u64),
    /// The ranges its operands name: (first VGPR-file index, count), the
    /// first `.1` of them.
    Ranges([(u16, u16); MAX_RANGES], u8),
    /// Any (memory instructions, `v_movrel*`, MFMA): every tagged VGPR.
    All,
}

impl TouchVgprs {
    /// What the operands of `i` name (AGPRs offset by `accum_offset`).
    fn of(i: &Instruction, accum_offset: u16) -> TouchVgprs {
        let name = i.opcode().name();
        match i.encoding() {
            Encoding::Sop1
            | Encoding::Sop2
            | Encoding::Sopk
            | Encoding::Sopc
            | Encoding::Sopp
            | Encoding::Smem => return TouchVgprs::None,
            e if is_valu(e) && !name.starts_with("v_movrel") && !name.starts_with("v_mfma") => {}
            _ => return TouchVgprs::All,
        }
        let mut list = [(0u16, 0u16); MAX_RANGES];
        let mut n = 0usize;
        for (_, op) in i.operands() {
            let range = match op {
                Operand::Vgpr { index, count } => (u16::from(index), u16::from(count)),
                Operand::Agpr { index, count } => {
                    (accum_offset + u16::from(index), u16::from(count))
                }
                _ => continue,
            };
            if n == MAX_RANGES {
                return TouchVgprs::All;
            }
            list[n] = range;
            n += 1;
        }
        let ranges = &list[..n];
        if ranges.iter().all(|&(r, c)| r + c <= 64) {
            let bits = ranges
                .iter()
                .fold(0u64, |m, &(r, c)| m | (((1u128 << c) - 1) << r) as u64);
            return TouchVgprs::Low(bits);
        }
        TouchVgprs::Ranges(list, n as u8)
    }
}

/// Whether a VALU operation reads its destination VGPRs besides its
/// sources: the tied accumulator of `v_mac`/`v_fmac`/`v_pk_fmac` and the
/// `c` dot products, `v_cvt_pkaccum_u8_f32` (one byte of the
/// destination), `v_writelane_b32` (one lane), `v_swap_b32` (both ways).
fn reads_destination(name: &str) -> bool {
    let dot_c = name.strip_prefix("v_dot").is_some_and(|rest| {
        let digits = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        digits.len() < rest.len() && digits.starts_with("c_")
    });
    dot_c
        || [
            "v_mac_",
            "v_fmac_",
            "v_pk_fmac_",
            "v_cvt_pkaccum_",
            "v_writelane_",
            "v_swap",
        ]
        .iter()
        .any(|p| name.starts_with(p))
}

/// The VGPRs (among the first 64: one bit each) that VOP1, VOP2 or VOP3
/// instruction `i` writes in every lane EXEC enables, whatever they held,
/// and does not read: a destination that overlaps none of the sources, of
/// an operation that does not read it ([`reads_destination`]), written
/// whole (not a VOP3 `op_sel` destination high half), by an instruction
/// whose carry-out (VOP3b `sdst`) is not EXEC. SDWA and DPP forms
/// have none (`dst_sel`, masked rows). With EXEC full, their old values
/// are dead: the scheduler need not write them out from their shapes
/// before the ordinary handler runs.
fn written_whole(i: &Instruction, accum_offset: u16) -> u64 {
    // A VOP3b carry-out into EXEC would change which lanes the
    // destination is written in.
    let exec_out = matches!(
        i.operand(Field::Sdst),
        Some(Operand::Special {
            reg: SpecialReg::ExecLo | SpecialReg::ExecHi,
            ..
        })
    );
    let valu = matches!(
        i.encoding(),
        Encoding::Vop1 | Encoding::Vop2 | Encoding::Vop3
    );
    if !valu || reads_destination(i.opcode().name()) || i.modifiers().op_sel & 8 != 0 || exec_out {
        return 0;
    }
    let range = |op: Operand| match op {
        Operand::Vgpr { index, count } => Some((u16::from(index), u16::from(count))),
        Operand::Agpr { index, count } => Some((accum_offset + u16::from(index), u16::from(count))),
        _ => None,
    };
    let bits = |(r, c): (u16, u16)| {
        if r + c <= 64 {
            (((1u128 << c) - 1) << r) as u64
        } else {
            u64::MAX
        }
    };
    let Some(dst) = i.operand(Field::Vdst).and_then(range) else {
        return 0;
    };
    let written = bits(dst);
    if written == u64::MAX {
        return 0;
    }
    let read = i
        .operands()
        .filter(|(f, _)| *f != Field::Vdst)
        .filter_map(|(_, op)| range(op))
        .fold(0u64, |m, r| m | bits(r));
    if read & written != 0 { 0 } else { written }
}

/// One pre-decoded instruction. `repr(C)` in this order: what every
/// instruction's dispatch reads first, together (the run loop's cache
/// lines), the decoded form last.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct Inst {
    /// Its semantics.
    pub exec: ExecFn,
    /// Its handler over VGPR shapes, when it has one for this encoding
    /// and these modifiers.
    pub shaped: Option<ShapedFn>,
    /// The handler of a common run of instructions that starts here, when
    /// the block has one ([`FusedFn`]).
    pub fused: Option<FusedFn>,
    /// How it runs while a work-group is in lockstep.
    pub lockstep: super::lockstep::Kind,
    /// Its handler for every wave of a group in lockstep at once, when it
    /// has one ([`super::lockstep::GroupFn`]).
    pub group: Option<super::lockstep::GroupFn>,
    /// The VGPRs `exec` may access.
    pub touch: TouchVgprs,
    /// Those of `touch` it overwrites whole and does not read (one bit
    /// each, among the first 64; [`written_whole`]).
    pub whole: u64,
    /// Sources: 0, 1 and 2 (a VOP2 carry-in or `v_cndmask` mask is 2).
    pub src: [Src; 3],
    /// Vector destination (`vdst`, `vdata` of loads, DS `vdst`).
    pub vdst: Dst,
    /// Scalar destination (`sdst`, VOPC/VOP3b `vcc`, SMEM `sdata` of loads).
    pub sdst: Dst,
    /// Modifiers.
    pub mods: Modifiers,
    /// A VALU instruction (VOP1/VOP2/VOPC/VOP3/VOP3P/SDWA/DPP): its VGPR
    /// operands are offset under VGPR indexing mode.
    pub valu: bool,
    /// How many instructions right after this one in its block do
    /// nothing in the interpreter (`s_waitcnt`, `s_nop`, ...: every
    /// access completes before the next instruction): when this one
    /// continues with the next, the run loop steps over them.
    pub nops_after: u8,
    /// The operation.
    pub op: Opcode,
    /// Size in bytes.
    pub len: u8,
    /// The operation's own handler when `exec` wraps it (SDWA, DPP).
    pub inner: ExecFn,
    /// GPU address.
    pub pc: u64,
    /// SOPK/SOPP 16-bit immediate, an SMEM or FLAT/MUBUF immediate offset.
    pub imm: u32,
    /// A literal that is not a source (the K of `v_madmk`, the value of
    /// `s_setreg_imm32_b32`).
    pub lit: u32,
    /// Memory operands: address (FLAT/MUBUF `vaddr`, DS `addr`, SMEM
    /// `sbase`), scalar address (`saddr`, `srsrc`), scalar offset
    /// (`soffset`, SMEM `soffset`), data (`vdata`/`data0`, SMEM `sdata` of
    /// stores), second data (`data1`).
    pub addr: Src,
    /// `saddr` / `srsrc` / SMEM `sbase`.
    pub saddr: Src,
    /// `soffset` or SMEM SGPR offset.
    pub soffset: Src,
    /// Store data (`vdata`, `data0`).
    pub data: Src,
    /// `data1`.
    pub data1: Src,
    /// The decoded instruction (for its text and raw fields), or why the
    /// word did not decode: boxed, read only off the hot path, so that an
    /// `Inst` takes a few cache lines less.
    pub decoded: Box<Result<Instruction, isa::DecodeError>>,
}

impl Inst {
    /// The mnemonic, or the decode error's description for an undecodable word.
    pub fn mnemonic(&self) -> String {
        match &*self.decoded {
            Ok(i) => i.mnemonic().to_string(),
            Err(e) => format!("undecodable word ({e})"),
        }
    }
}

/// A run of instructions decoded from one start address.
#[derive(Debug)]
pub(crate) struct Block {
    /// The instructions, in address order.
    pub insts: Vec<Inst>,
    /// Where execution continues after the last one (it may fall through).
    pub end: u64,
    /// The code bytes the instructions were decoded from (from the start
    /// address; past `end` when the last word did not decode, up to the
    /// longest instruction), compared with memory before a later dispatch
    /// reuses the block.
    code: Box<[u8]>,
    /// Fewer bytes were mapped after the last (undecodable) word than the
    /// longest instruction: the decode depends on what is not mapped yet,
    /// so the block is never reused.
    truncated: bool,
}

impl Block {
    /// The index of the instruction at `pc`, if the block decoded one there.
    pub fn index_of(&self, pc: u64) -> Option<usize> {
        self.insts.binary_search_by_key(&pc, |i| i.pc).ok()
    }
}

/// The longest block decoded at once (instructions).
const MAX_BLOCK: usize = 4096;

/// How much code is read from memory at once.
const CODE_CHUNK: u64 = 4096;

/// What the decoded operations mean: the family modules' lookups, and the
/// constants operands resolve against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Resolve {
    /// First AGPR's VGPR-file index.
    pub accum_offset: u16,
    /// `src_shared_base` (64-bit).
    pub shared_base: u64,
    /// `src_private_base` (64-bit).
    pub private_base: u64,
}

/// The decoded blocks of one kernel's code, shared by the waves of every
/// dispatch that runs it (the interpreter keeps it across dispatches after
/// [`Program::is_current`] says memory still holds the decoded bytes).
#[derive(Debug)]
pub(crate) struct Program {
    decoder: Decoder,
    resolve: Resolve,
    blocks: RwLock<HashMap<u64, Arc<Block>>>,
    /// The interpreter's count of blocks decoded
    /// ([`DecodeStats`](super::DecodeStats)).
    decoded: Arc<std::sync::atomic::AtomicU64>,
}

impl Program {
    /// An empty cache for code of `decoder`'s processor; each block
    /// decoded counts one in `decoded`.
    pub fn new(
        decoder: Decoder,
        resolve: Resolve,
        decoded: Arc<std::sync::atomic::AtomicU64>,
    ) -> Self {
        Self {
            decoder,
            resolve,
            blocks: RwLock::new(HashMap::new()),
            decoded,
        }
    }

    /// The operand constants the program was lowered with.
    pub fn resolve(&self) -> &Resolve {
        &self.resolve
    }

    /// Whether every decoded block still matches memory: its code bytes
    /// are mapped and equal to those it was decoded from, and none
    /// depended on bytes that were not mapped. A program that is not
    /// current must not run again (the client loaded other code there).
    pub fn is_current(&self, memory: &GpuMemory) -> bool {
        let blocks = self.blocks.read().unwrap_or_else(|e| e.into_inner());
        let mut buf = Vec::new();
        blocks.iter().all(|(&start, b)| {
            if b.truncated {
                return false;
            }
            buf.clear();
            buf.resize(b.code.len(), 0);
            memory.read_bytes(start, &mut buf).is_ok() && buf[..] == b.code[..]
        })
    }

    /// The block that starts at `pc`, decoding it on first use.
    pub fn block(&self, pc: u64, memory: &GpuMemory) -> Result<Arc<Block>, Fault> {
        if let Some(b) = self
            .blocks
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&pc)
        {
            return Ok(Arc::clone(b));
        }
        let block = Arc::new(self.decode_block(pc, memory)?);
        self.decoded
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut map = self.blocks.write().unwrap_or_else(|e| e.into_inner());
        Ok(Arc::clone(map.entry(pc).or_insert(block)))
    }

    fn decode_block(&self, start: u64, memory: &GpuMemory) -> Result<Block, Fault> {
        if start % 4 != 0 {
            return Err(Fault::Abort(format!("PC {start:#x} is not dword aligned")));
        }
        let mut code: Vec<u8> = Vec::new();
        let mut code_at = start;
        let mut pc = start;
        let mut insts = Vec::new();
        // The bytes decoded, from `start`.
        let mut decoded: Vec<u8> = Vec::new();
        let mut truncated = false;
        loop {
            // Keep at least 12 bytes (the longest instruction) ahead.
            let off = (pc - code_at) as usize;
            if code.len() < off + 12 {
                code.drain(..off);
                code_at = pc;
                let have = code.len() as u64;
                let fetch_at = code_at + have;
                let mut chunk = vec![0u8; CODE_CHUNK as usize];
                // Read what is mapped: the whole chunk, or up to the end of the mapping.
                let n = readable_prefix(memory, fetch_at, &mut chunk);
                if n == 0 && code.is_empty() {
                    if insts.is_empty() {
                        // The PC itself is unmapped: an instruction fetch fault.
                        let mut b = [0u8; 4];
                        memory.read_bytes(pc, &mut b).map_err(Fault::Memory)?;
                    }
                    break;
                }
                code.extend_from_slice(&chunk[..n]);
            }
            let off = (pc - code_at) as usize;
            if off >= code.len() {
                break;
            }
            let inst = match self.decoder.decode(&code[off..]) {
                Ok(i) => self.lower(pc, i),
                Err(e) => undecodable(pc, e),
            };
            let len = u64::from(inst.len);
            if inst.decoded.is_ok() {
                decoded.extend_from_slice(&code[off..off + usize::from(inst.len)]);
            } else {
                // The error may depend on every byte up to the longest
                // instruction.
                let upto = code.len().min(off + 12);
                truncated = upto < off + 12;
                decoded.extend_from_slice(&code[off..upto]);
            }
            let stops = inst.decoded.is_err() || ends_block(inst.op);
            insts.push(inst);
            pc += len;
            if stops || insts.len() >= MAX_BLOCK {
                break;
            }
        }
        // The common runs of instructions, run by one handler.
        for k in 0..insts.len() {
            insts[k].fused = super::shape::idiom(&insts[k..]);
        }
        // Each instruction's run of no-ops after it, counted from the end.
        let mut run = 0u8;
        for inst in insts.iter_mut().rev() {
            inst.nops_after = run;
            run = if inst.decoded.is_ok() && super::control::is_nop(inst.op) {
                run.saturating_add(1)
            } else {
                0
            };
        }
        Ok(Block {
            insts,
            end: pc,
            code: decoded.into_boxed_slice(),
            truncated,
        })
    }

    /// Resolves an instruction's operands and finds its handler.
    pub(crate) fn lower(&self, pc: u64, i: Instruction) -> Inst {
        let r = &self.resolve;
        let mut inst = Inst {
            op: i.opcode(),
            exec: super::illegal,
            inner: super::illegal,
            shaped: None,
            fused: None,
            lockstep: super::lockstep::Kind::Split,
            group: None,
            touch: TouchVgprs::of(&i, r.accum_offset),
            whole: written_whole(&i, r.accum_offset),
            pc,
            len: i.len() as u8,
            vdst: Dst::None,
            sdst: Dst::None,
            src: [Src::None; 3],
            addr: Src::None,
            saddr: Src::None,
            soffset: Src::None,
            data: Src::None,
            data1: Src::None,
            imm: 0,
            lit: 0,
            mods: *i.modifiers(),
            valu: is_valu(i.encoding()),
            nops_after: 0,
            decoded: Box::new(Ok(i)),
        };
        let mut seen_src = false;
        for (field, op) in i.operands() {
            match field {
                Field::Vdst => match dst(op, r) {
                    d @ Dst::V(_) => inst.vdst = d,
                    d => inst.sdst = d,
                },
                Field::Sdst => inst.sdst = dst(op, r),
                // FLAT `saddr` = off.
                Field::Fixed if op == Operand::None => {}
                Field::Fixed => {
                    if seen_src {
                        inst.src[2] = Src::S(VCC);
                    } else {
                        inst.sdst = Dst::S(VCC);
                    }
                }
                Field::Src0 | Field::Ssrc0 => {
                    seen_src = true;
                    inst.src[0] = src(op, r);
                }
                // `s_set_gpr_idx_on`'s mode is an immediate in SSRC1.
                Field::Ssrc1 if matches!(op, Operand::Imm(_)) => {
                    if let Operand::Imm(v) = op {
                        inst.imm = v;
                    }
                }
                Field::Src1 | Field::Ssrc1 | Field::Vsrc1 => {
                    seen_src = true;
                    inst.src[1] = src(op, r);
                }
                Field::Src2 => {
                    seen_src = true;
                    inst.src[2] = src(op, r);
                }
                Field::Simm16 => {
                    if let Operand::Imm(v) = op {
                        inst.imm = v;
                    }
                }
                Field::Literal => {
                    if let Operand::Imm(v) = op {
                        inst.lit = v;
                    }
                }
                Field::Sdata => {
                    // Loads write it; stores and atomics read it (an atomic
                    // with return also writes it back).
                    if let Operand::Imm(v) = op {
                        inst.imm = v;
                    } else {
                        inst.sdst = dst(op, r);
                        inst.data = src(op, r);
                    }
                }
                Field::Sbase | Field::Saddr | Field::Srsrc => inst.saddr = src(op, r),
                Field::SmemOffset => match op {
                    Operand::Imm(v) => inst.imm = v,
                    other => inst.soffset = src(other, r),
                },
                Field::Soffset => inst.soffset = src(op, r),
                Field::Addr | Field::Vaddr => inst.addr = src(op, r),
                Field::Vdata | Field::Data0 => {
                    inst.data = src(op, r);
                    // MUBUF/MTBUF loads, and their atomics with return
                    // (`glc`), write `vdata`.
                    let name = i.opcode().name();
                    if matches!(i.encoding(), Encoding::Mubuf | Encoding::Mtbuf)
                        && (name.contains("_load_")
                            || (name.contains("_atomic_") && i.modifiers().cache & 1 != 0))
                    {
                        inst.vdst = dst(op, r);
                    }
                }
                Field::Data1 => inst.data1 = src(op, r),
            }
        }
        if let Some(f) = super::handler(inst.op) {
            match i.encoding() {
                // Sub-dword addressing wraps the operation's handler.
                Encoding::Sdwa => {
                    inst.inner = f;
                    inst.exec = super::sdwa::exec;
                }
                Encoding::Dpp => {
                    inst.inner = f;
                    inst.exec = super::dpp::exec;
                }
                // The MUBUF `lds` forms (word 0 bit 16) share the opcode of
                // the plain load: `lds_form` runs them (to LDS, not VGPRs).
                Encoding::Mubuf if inst.decoded.as_ref().is_ok_and(|d| d.raw() >> 16 & 1 != 0) => {
                    inst.exec = super::mubuf::lds_form
                }
                _ => inst.exec = super::specialized(&inst).unwrap_or(f),
            }
        }
        if let Ok(d) = &*inst.decoded {
            inst.shaped = super::shape::handler(&inst, d.encoding());
            inst.lockstep = super::lockstep::kind(&inst, d.encoding());
            // SDWA and DPP forms run through their wrappers.
            if matches!(d.encoding(), Encoding::Vop2 | Encoding::Vop3) {
                inst.group = super::vf32::group(inst.op);
            }
        }
        inst
    }
}

/// How many bytes of `buf` at `va` are mapped (reading them into `buf`).
fn readable_prefix(memory: &GpuMemory, va: u64, buf: &mut [u8]) -> usize {
    if memory.read_bytes(va, buf).is_ok() {
        return buf.len();
    }
    // Bisect down to the end of the mapping, in dwords.
    let mut good = 0usize;
    let mut step = buf.len() / 2;
    while step >= 4 {
        let try_len = good + step;
        if try_len <= buf.len() && memory.read_bytes(va, &mut buf[..try_len]).is_ok() {
            good = try_len;
        }
        step /= 2;
    }
    if good > 0 {
        // Re-read so `buf[..good]` holds the bytes.
        let _ = memory.read_bytes(va, &mut buf[..good]);
    }
    good
}

fn undecodable(pc: u64, e: isa::DecodeError) -> Inst {
    Inst {
        op: Opcode::S_NOP,
        exec: super::undecodable,
        inner: super::undecodable,
        shaped: None,
        fused: None,
        lockstep: super::lockstep::Kind::Split,
        group: None,
        touch: TouchVgprs::None,
        whole: 0,
        pc,
        len: 4,
        vdst: Dst::None,
        sdst: Dst::None,
        src: [Src::None; 3],
        addr: Src::None,
        saddr: Src::None,
        soffset: Src::None,
        data: Src::None,
        data1: Src::None,
        imm: 0,
        lit: 0,
        mods: Modifiers::default(),
        valu: false,
        nops_after: 0,
        decoded: Box::new(Err(e)),
    }
}

/// MODE.GPR_IDX_EN (bit 27): VGPR indexing mode is on.
pub(crate) const GPR_IDX_EN: u32 = 1 << 27;

impl Inst {
    /// The instruction as VGPR indexing mode runs it: the VGPR operands M0
    /// enables (M0[12] SRC0, [13] SRC1, [14] SRC2, [15] DST) offset by
    /// M0[7:0].
    pub fn indexed(&self, m0: u32) -> Inst {
        let idx = (m0 & 0xff) as u16;
        let mut i = self.clone();
        for k in 0..3 {
            if m0 >> (12 + k) & 1 != 0 {
                if let Src::V(r) = i.src[k] {
                    i.src[k] = Src::V(r + idx);
                }
            }
        }
        if m0 >> 15 & 1 != 0 {
            if let Dst::V(r) = i.vdst {
                i.vdst = Dst::V(r + idx);
            }
        }
        i
    }
}

/// Whether control never falls through past `op`.
fn ends_block(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::S_ENDPGM
            | Opcode::S_ENDPGM_SAVED
            | Opcode::S_ENDPGM_ORDERED_PS_DONE
            | Opcode::S_BRANCH
            | Opcode::S_SETPC_B64
            | Opcode::S_SWAPPC_B64
            | Opcode::S_RFE_B64
            | Opcode::S_RFE_RESTORE_B64
            | Opcode::S_CALL_B64
    )
}

fn special(reg: SpecialReg) -> Option<u8> {
    Some(match reg {
        SpecialReg::FlatScratchLo => FLAT_SCRATCH,
        SpecialReg::FlatScratchHi => FLAT_SCRATCH + 1,
        SpecialReg::XnackMaskLo => 104,
        SpecialReg::XnackMaskHi => 105,
        SpecialReg::VccLo => VCC,
        SpecialReg::VccHi => VCC + 1,
        SpecialReg::M0 => M0,
        SpecialReg::ExecLo => EXEC,
        SpecialReg::ExecHi => EXEC + 1,
        _ => return None,
    })
}

fn src(op: Operand, r: &Resolve) -> Src {
    match op {
        Operand::None | Operand::Imm(_) => Src::None,
        Operand::Sgpr { index, .. } => Src::S(index),
        Operand::Ttmp { index, .. } => Src::S(TTMP + index),
        Operand::Vgpr { index, .. } => Src::V(u16::from(index)),
        Operand::Agpr { index, .. } => Src::V(r.accum_offset + u16::from(index)),
        Operand::Int(v) => Src::Int(v),
        Operand::Float(f) => Src::Float(f),
        Operand::Literal(v) => Src::Lit(v),
        Operand::Special { reg, .. } => match special(reg) {
            Some(i) => Src::S(i),
            None => match reg {
                SpecialReg::Null => Src::Zero,
                SpecialReg::Scc => Src::Scc,
                SpecialReg::Vccz => Src::Vccz,
                SpecialReg::Execz => Src::Execz,
                SpecialReg::SharedBase => Src::Aperture(r.shared_base),
                SpecialReg::SharedLimit => Src::Aperture(r.shared_base | 0xffff_ffff),
                SpecialReg::PrivateBase => Src::Aperture(r.private_base),
                SpecialReg::PrivateLimit => Src::Aperture(r.private_base | 0xffff_ffff),
                _ => Src::PopsWaveId,
            },
        },
    }
}

fn dst(op: Operand, r: &Resolve) -> Dst {
    match op {
        Operand::Sgpr { index, .. } => Dst::S(index),
        Operand::Ttmp { index, .. } => Dst::S(TTMP + index),
        Operand::Vgpr { index, .. } => Dst::V(u16::from(index)),
        Operand::Agpr { index, .. } => Dst::V(r.accum_offset + u16::from(index)),
        Operand::Special { reg, .. } => match special(reg) {
            Some(i) => Dst::S(i),
            None => Dst::Null,
        },
        _ => Dst::None,
    }
}

#[cfg(test)]
mod tests;
