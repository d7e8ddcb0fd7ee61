//! One wavefront's architectural state: the scalar file, the VGPR file
//! (lanes as `[u32; 64]` arrays, AGPRs after `accum_offset`), SCC, the
//! MODE and TRAPSTS registers, where it is in the program, and the
//! operand access every family shares (EXEC applied once per instruction
//! by the writers here).

// `Wave::map32` reads and writes lanes through raw pointers (a
// destination may also be a source).
#![allow(unsafe_code)]

use isa::FloatConst;

use super::Fault;
use super::program::{Dst, EXEC, Inst, M0, SCALAR_FILE, Src, TouchVgprs, VCC};
use super::shape::Affine;

/// Lanes of a wave64.
pub(crate) const LANES: usize = 64;

/// One VGPR: a dword per lane.
pub(crate) type Lanes = [u32; LANES];

/// Lanes a chunked lane loop ([`Wave::map32`]) handles at once: one
/// 256-bit host vector of dwords.
pub(crate) const CHUNK: usize = 8;

/// Eight lanes of dwords.
pub(crate) type Chunk = [u32; CHUNK];

/// Why a wave is not running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaveState {
    /// Ready to run.
    Ready,
    /// Waiting at `s_barrier` for the rest of its workgroup.
    Barrier,
    /// Ended (`s_endpgm`).
    Done,
}

/// How a source is read: its type decides the inline float constants and
/// how a 32-bit literal widens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    /// 32-bit integer or bits.
    B32,
    /// 32-bit float.
    F32,
    /// 16-bit float (constants as f16 bits).
    F16,
    /// 64-bit integer: a literal is zero-extended.
    B64,
    /// 64-bit float: a literal is the high dword.
    F64,
}

/// A wavefront.
#[derive(Clone, Debug)]
pub(crate) struct Wave {
    /// The scalar register file, indexed by operand code.
    pub s: [u32; SCALAR_FILE],
    /// The VGPR file (AGPRs from `accum_offset`). A VGPR that is tagged
    /// ([`Wave::shape`]) holds stale lanes: its value is its shape.
    pub v: Vec<Lanes>,
    /// The VGPRs' shapes ([`super::shape`]): VGPR `r`'s lanes are
    /// `shapes[r]` while bit `r` of `tagged` is set.
    shapes: Vec<Affine>,
    /// One bit per VGPR: its value is its shape, not its lanes in `v`.
    tagged: Vec<u64>,
    /// Set bits in `tagged`.
    ntagged: u32,
    /// How many lanes a tagged VGPR's shape spans: 64, or `64 * K` while
    /// the wave leads a work-group of K waves in lockstep
    /// (`super::lockstep`: lane `l` of the group is lane `l % 64` of wave
    /// `l / 64`).
    span: u32,
    /// SDWA sources 0 and 1 after their byte/word select (`Src::Staged`).
    pub staged: [Lanes; 2],
    /// Scalar and constant sources splat across the lanes
    /// ([`Wave::read32_refs`]): scratch, never architectural state.
    splat: [Lanes; 3],
    /// SCC.
    pub scc: bool,
    /// The MODE register (float round and denormal modes, DX10 clamp, IEEE).
    pub mode: u32,
    /// TRAPSTS.
    pub trapsts: u32,
    /// STATUS.PRIV: the wave runs its trap handler (entered by `s_trap`,
    /// left by `s_rfe_b64`).
    pub privileged: bool,
    /// The block being run: an index in the worker's block list
    /// (`scheduler::Blocks`).
    pub block: usize,
    /// Index of the next instruction in `block`.
    pub index: usize,
    /// Where control continues after a handler returned [`Flow::Jump`](super::Flow::Jump).
    pub jump: u64,
    /// Run state.
    pub state: WaveState,
    /// Wave index in its workgroup.
    pub id_in_group: u32,
    /// Hardware slot for HW_ID (wave id, SIMD, CU).
    pub hw_id: u32,
}

impl Wave {
    /// A wave with `vgprs` VGPRs (AGPRs included), all zero.
    pub fn new(vgprs: usize) -> Self {
        let mut w = Self {
            s: [0; SCALAR_FILE],
            v: vec![[0; LANES]; vgprs],
            shapes: Vec::new(),
            tagged: Vec::new(),
            ntagged: 0,
            span: LANES as u32,
            staged: [[0; LANES]; 2],
            splat: [[0; LANES]; 3],
            scc: false,
            mode: 0,
            trapsts: 0,
            privileged: false,
            block: usize::MAX,
            index: 0,
            jump: 0,
            state: WaveState::Ready,
            id_in_group: 0,
            hw_id: 0,
        };
        w.tag_all_zero(vgprs);
        w
    }

    /// Resets for a new launch, keeping the allocations: the scalar file
    /// zero.
    #[cfg(test)]
    pub fn reset(&mut self, vgprs: usize) {
        self.reset_with(vgprs, &[0; SCALAR_FILE]);
    }

    /// Resets for a new launch with the scalar file `s` (the dispatch's
    /// initial SGPRs), keeping the allocations.
    #[inline]
    pub fn reset_with(&mut self, vgprs: usize, s: &[u32; SCALAR_FILE]) {
        self.s = *s;
        if self.v.len() != vgprs {
            self.v.resize(vgprs, [0; LANES]);
        }
        self.tag_all_zero(vgprs);
        self.span = LANES as u32;
        self.scc = false;
        self.mode = 0;
        self.trapsts = 0;
        self.privileged = false;
        self.block = usize::MAX;
        self.index = 0;
        self.state = WaveState::Ready;
    }

    /// Every VGPR zero, as a uniform shape (no lanes written).
    #[inline]
    fn tag_all_zero(&mut self, vgprs: usize) {
        if self.shapes.len() != vgprs {
            self.shapes.resize(vgprs, Affine::uniform(0));
        }
        self.shapes.fill(Affine::uniform(0));
        let words = vgprs.div_ceil(64);
        if self.tagged.len() != words {
            self.tagged.resize(words, 0);
        }
        self.tagged.fill(u64::MAX);
        if vgprs % 64 != 0 {
            if let Some(last) = self.tagged.last_mut() {
                *last = (1u64 << (vgprs % 64)) - 1;
            }
        }
        self.ntagged = vgprs as u32;
    }

    /// The last lane a tagged VGPR's shape spans (63 for a wave).
    #[inline(always)]
    pub fn span_last(&self) -> i128 {
        i128::from(self.span) - 1
    }

    /// Makes the tagged shapes span `lanes` lanes (a multiple of 64).
    pub fn set_span(&mut self, lanes: u32) {
        self.span = lanes;
    }

    /// Whether every VGPR is tagged.
    #[cfg(test)]
    pub fn all_tagged(&self) -> bool {
        self.ntagged as usize == self.v.len()
    }

    /// Whether every VGPR of this wave (all tagged) is `first`'s shape
    /// moved on by `lanes` lanes: the two waves are one run of lanes.
    #[cfg(test)]
    pub fn continues(&self, first: &Wave, lanes: u32) -> bool {
        self.v.len() == first.v.len()
            && self
                .shapes
                .iter()
                .zip(&first.shapes)
                .all(|(a, f)| a.stride == f.stride && a.base == f.lane_far(lanes))
    }

    /// Sizes the VGPR file as `leader`'s (lanes kept where they exist).
    pub fn size_like(&mut self, leader: &Wave) {
        if self.v.len() != leader.v.len() {
            self.v.resize(leader.v.len(), [0; LANES]);
        }
    }

    /// Takes `leader`'s state as one wave of its work-group in lockstep,
    /// `lanes` lanes on from the leader's first (its block, index and run
    /// state, scalar file and modes; each VGPR that is a shape in the
    /// leader the leader's shape moved on by `lanes` lanes; the others
    /// keep this wave's own lanes, which the group's loads and lane
    /// operations wrote).
    pub fn follow(&mut self, leader: &Wave, lanes: u32) {
        self.size_like(leader);
        self.s = leader.s;
        self.scc = leader.scc;
        self.mode = leader.mode;
        self.trapsts = leader.trapsts;
        self.privileged = leader.privileged;
        self.block = leader.block;
        self.index = leader.index;
        self.jump = leader.jump;
        self.state = leader.state;
        self.span = LANES as u32;
        self.tagged.clone_from(&leader.tagged);
        self.ntagged = leader.ntagged;
        self.shapes.clear();
        self.shapes.extend(leader.shapes.iter().map(|a| Affine {
            base: a.lane_far(lanes),
            stride: a.stride,
        }));
    }

    /// Whether VGPR `r` is tagged (its value is its shape).
    #[inline(always)]
    pub fn is_tagged(&self, r: usize) -> bool {
        self.tagged
            .get(r / 64)
            .is_some_and(|b| b >> (r % 64) & 1 != 0)
    }

    /// Whether any VGPR is tagged.
    #[inline(always)]
    pub fn has_tags(&self) -> bool {
        self.ntagged != 0
    }

    /// VGPR `r`'s shape, when it is tagged.
    #[inline(always)]
    pub fn shape(&self, r: u16) -> Option<Affine> {
        let r = usize::from(r);
        if self.is_tagged(r) {
            Some(self.shapes[r])
        } else {
            None
        }
    }

    /// Makes VGPR `r`'s value `a` (every lane); false, changing nothing,
    /// when `r` is past the file.
    #[inline(always)]
    pub fn tag(&mut self, r: u16, a: Affine) -> bool {
        let r = usize::from(r);
        if r >= self.shapes.len() {
            return false;
        }
        self.shapes[r] = a;
        let bits = &mut self.tagged[r / 64];
        if *bits >> (r % 64) & 1 == 0 {
            *bits |= 1 << (r % 64);
            self.ntagged += 1;
        }
        true
    }

    /// Drops VGPR `r`'s tag without writing its lanes: for a caller that
    /// has just written all 64 of them.
    #[inline(always)]
    pub fn untag(&mut self, r: usize) {
        if let Some(bits) = self.tagged.get_mut(r / 64) {
            if *bits >> (r % 64) & 1 != 0 {
                *bits &= !(1 << (r % 64));
                self.ntagged -= 1;
            }
        }
    }

    /// Writes a tagged VGPR's lanes from its shape and drops the tag.
    #[inline]
    pub fn materialize(&mut self, r: usize) {
        if self.is_tagged(r) {
            self.v[r] = self.shapes[r].lanes();
            self.untag(r);
        }
    }

    /// [`Wave::materialize`] for VGPRs `r..r + n` (those in the file).
    #[inline]
    pub fn materialize_range(&mut self, r: usize, n: usize) {
        for k in r..(r + n).min(self.v.len()) {
            self.materialize(k);
        }
    }

    /// Materialises every tagged VGPR.
    pub fn materialize_all(&mut self) {
        for word in 0..self.tagged.len() {
            let mut bits = self.tagged[word];
            while bits != 0 {
                let r = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                self.v[r] = self.shapes[r].lanes();
            }
            self.tagged[word] = 0;
        }
        self.ntagged = 0;
    }

    /// Materialises what `inst`'s ordinary handler may read or write: the
    /// VGPRs its operands name, or every tagged VGPR when the operands do
    /// not say (memory instructions, `v_movrel*`, MFMA).
    pub fn materialize_for(&mut self, inst: &Inst) {
        match &inst.touch {
            TouchVgprs::None => {}
            TouchVgprs::Low(bits) => {
                let mut hit = self.tagged.first().copied().unwrap_or(0) & bits;
                while hit != 0 {
                    let r = hit.trailing_zeros() as usize;
                    hit &= hit - 1;
                    self.materialize(r);
                }
            }
            TouchVgprs::Ranges(list, len) => {
                for &(r, n) in &list[..usize::from(*len)] {
                    self.materialize_range(usize::from(r), usize::from(n));
                }
            }
            TouchVgprs::All => self.materialize_all(),
        }
    }

    /// [`Wave::materialize_for`] but for the VGPRs `inst` overwrites
    /// whole ([`Inst::whole`]): their tags are dropped without their lanes
    /// being written ([`Wave::untag_low`]; the caller tags them again if
    /// the handler fails). Only for an instruction with
    /// [`TouchVgprs::Low`] and EXEC full.
    #[inline]
    pub fn materialize_reads(&mut self, inst: &Inst) {
        if let TouchVgprs::Low(bits) = &inst.touch {
            let mut hit = self.tagged.first().copied().unwrap_or(0) & bits & !inst.whole;
            while hit != 0 {
                let r = hit.trailing_zeros() as usize;
                hit &= hit - 1;
                self.materialize(r);
            }
        } else {
            self.materialize_for(inst);
        }
    }

    /// Drops the tags of the VGPRs among the first 64 that `bits` names;
    /// which of them were tagged (their shapes stay where they were, for
    /// [`Wave::retag_low`]).
    #[inline]
    pub fn untag_low(&mut self, bits: u64) -> u64 {
        let Some(t) = self.tagged.first_mut() else {
            return 0;
        };
        let hit = *t & bits;
        *t &= !hit;
        self.ntagged -= hit.count_ones();
        hit
    }

    /// Tags again the VGPRs [`Wave::untag_low`] untagged (`bits`), with
    /// the shapes they had: an instruction that was to overwrite them
    /// did not run.
    #[inline]
    pub fn retag_low(&mut self, bits: u64) {
        if let Some(t) = self.tagged.first_mut() {
            let new = bits & !*t;
            *t |= new;
            self.ntagged += new.count_ones();
        }
    }

    /// EXEC.
    #[inline(always)]
    pub fn exec(&self) -> u64 {
        self.s64(EXEC)
    }

    /// VCC.
    #[inline(always)]
    pub fn vcc(&self) -> u64 {
        self.s64(VCC)
    }

    /// M0.
    #[inline(always)]
    pub fn m0(&self) -> u32 {
        self.s[M0 as usize]
    }

    /// The 64-bit scalar pair at `i`.
    #[inline(always)]
    pub fn s64(&self, i: u8) -> u64 {
        let i = usize::from(i);
        u64::from(self.s[i]) | (u64::from(self.s[(i + 1) % SCALAR_FILE]) << 32)
    }

    /// Writes the pair at `i`.
    #[inline(always)]
    pub fn set_s64(&mut self, i: u8, v: u64) {
        let i = usize::from(i);
        self.s[i] = v as u32;
        self.s[(i + 1) % SCALAR_FILE] = (v >> 32) as u32;
    }

    fn vreg(&self, i: u16) -> Result<&Lanes, Fault> {
        debug_assert!(
            !self.is_tagged(usize::from(i)),
            "v{i} is read as lanes while tagged"
        );
        self.v
            .get(usize::from(i))
            .ok_or_else(|| Fault::Abort(format!("v{i} is past the wave's {} VGPRs", self.v.len())))
    }

    /// VGPR `i` for writing.
    #[inline]
    pub fn vreg_mut(&mut self, i: u16) -> Result<&mut Lanes, Fault> {
        debug_assert!(
            !self.is_tagged(usize::from(i)),
            "v{i} is written as lanes while tagged"
        );
        let n = self.v.len();
        self.v
            .get_mut(usize::from(i))
            .ok_or_else(|| Fault::Abort(format!("v{i} is past the wave's {n} VGPRs")))
    }

    /// VGPR `i` (read).
    #[inline]
    pub fn vget(&self, i: u16) -> Result<&Lanes, Fault> {
        self.vreg(i)
    }

    /// A scalar or constant source as 32 bits.
    #[inline(always)]
    pub fn scalar32(&self, src: Src, ty: Ty) -> u32 {
        match src {
            Src::S(i) => self.s[usize::from(i)],
            Src::Int(v) => v as i32 as u32,
            Src::Float(f) => float_const(f, ty) as u32,
            Src::Lit(v) => v,
            Src::Scc => u32::from(self.scc),
            Src::Vccz => u32::from(self.vcc() == 0),
            Src::Execz => u32::from(self.exec() == 0),
            Src::Aperture(a) => (a >> 32) as u32,
            Src::Staged(k) => self.staged[usize::from(k) & 1][0],
            Src::None | Src::Zero | Src::PopsWaveId | Src::V(_) => 0,
        }
    }

    /// A scalar or constant source as 64 bits.
    #[inline(always)]
    pub fn scalar64(&self, src: Src, ty: Ty) -> u64 {
        match src {
            Src::S(i) => self.s64(i),
            Src::Int(v) => v as i64 as u64,
            Src::Float(f) => float_const(f, ty),
            Src::Lit(v) => match ty {
                Ty::F64 => u64::from(v) << 32,
                _ => u64::from(v),
            },
            Src::Aperture(a) => a,
            other => u64::from(self.scalar32(other, ty)),
        }
    }

    /// A source as 32 bits per lane.
    #[inline]
    pub fn read32(&self, src: Src, ty: Ty) -> Result<Lanes, Fault> {
        match src {
            Src::V(i) => Ok(*self.vreg(i)?),
            Src::Staged(k) => Ok(self.staged[usize::from(k) & 1]),
            other => Ok([self.scalar32(other, ty); LANES]),
        }
    }

    /// Up to three sources as 32 bits per lane, borrowed: a VGPR (or an
    /// SDWA-staged source) in place, anything else splat into the wave's
    /// scratch lanes. No 256-byte copy of a VGPR and no zeroed temporary:
    /// only the splat of a scalar writes 64 lanes.
    #[inline]
    pub fn read32_refs<const N: usize>(
        &mut self,
        srcs: [Src; N],
        ty: Ty,
    ) -> Result<[&Lanes; N], Fault> {
        for (k, &src) in srcs.iter().enumerate() {
            match src {
                Src::V(i) => {
                    self.vreg(i)?;
                }
                Src::Staged(_) => {}
                other => {
                    let x = self.scalar32(other, ty);
                    self.splat[k] = [x; LANES];
                }
            }
        }
        let this = &*self;
        Ok(std::array::from_fn(|k| match srcs[k] {
            // Checked above.
            Src::V(i) => &this.v[usize::from(i)],
            Src::Staged(j) => &this.staged[usize::from(j) & 1],
            _ => &this.splat[k],
        }))
    }

    /// `dst = op(sources)` over the lanes EXEC enables, computed and
    /// written `CHUNK` lanes at a time straight into the destination VGPR:
    /// no 64-lane temporary and no copy of a VGPR source (a scalar or
    /// constant source is splat once into the wave's scratch lanes). The
    /// destination may be one of the sources: each chunk's sources are
    /// read before its lanes are written, and two VGPRs are either the
    /// same array or disjoint ones. A null destination discards the
    /// result; an SGPR one is an error (as [`Wave::write32`]).
    ///
    /// On an x86-64 host with AVX2 the lane loop is compiled for it (a
    /// chunk of eight lanes per 256-bit vector), chosen at run time.
    #[inline(always)]
    pub fn map32<const N: usize>(
        &mut self,
        dst: Dst,
        srcs: [Src; N],
        ty: Ty,
        op: impl Fn([u32; N]) -> u32,
    ) -> Result<(), Fault> {
        #[cfg(target_arch = "x86_64")]
        if super::hostfp::has_avx2() {
            // SAFETY: the CPU has AVX2 (checked just now).
            return unsafe { self.map32_avx2(dst, srcs, ty, op) };
        }
        self.map32_lanes(dst, srcs, ty, op)
    }

    /// [`Wave::map32`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn map32_avx2<const N: usize>(
        &mut self,
        dst: Dst,
        srcs: [Src; N],
        ty: Ty,
        op: impl Fn([u32; N]) -> u32,
    ) -> Result<(), Fault> {
        self.map32_lanes(dst, srcs, ty, op)
    }

    /// [`Wave::map32`]'s body, for a caller compiled for the host's
    /// vector extensions already (it inlines here).
    #[inline(always)]
    pub fn map32_lanes<const N: usize>(
        &mut self,
        dst: Dst,
        srcs: [Src; N],
        ty: Ty,
        op: impl Fn([u32; N]) -> u32,
    ) -> Result<(), Fault> {
        const { assert!(N <= 3 && LANES % CHUNK == 0) };
        for (k, &src) in srcs.iter().enumerate() {
            match src {
                Src::V(i) => {
                    self.vreg(i)?;
                }
                Src::Staged(_) => {}
                other => {
                    let x = self.scalar32(other, ty);
                    self.splat[k] = [x; LANES];
                }
            }
        }
        let d = match dst {
            Dst::V(i) => {
                self.vreg(i)?;
                usize::from(i)
            }
            Dst::Null | Dst::None => return Ok(()),
            Dst::S(_) => return Err(Fault::Abort("a vector result names an SGPR".into())),
        };
        let exec = self.exec();
        // Every pointer below comes from these three, taken after the last
        // reference use, so reads and writes through them do not conflict
        // with a live borrow.
        let v = self.v.as_mut_ptr();
        let staged = self.staged.as_ptr();
        let splat = self.splat.as_ptr();
        // In bounds: `i` is in the file (checked above), `j & 1` indexes
        // the two staged arrays, `k < N <= 3` the three scratch ones.
        let p: [*const Chunk; N] = std::array::from_fn(|k| {
            let lanes: *const Lanes = match srcs[k] {
                Src::V(i) => v.wrapping_add(usize::from(i)),
                Src::Staged(j) => staged.wrapping_add(usize::from(j) & 1),
                _ => splat.wrapping_add(k),
            };
            lanes.cast()
        });
        // The destination VGPR (`d` is in the file: checked above).
        let dst = v.wrapping_add(d);
        if exec == u64::MAX {
            // Every lane: one plain loop into a local (which no source can
            // alias, so it vectorises), then one 256-byte store.
            // SAFETY: the sources are live `[u32; LANES]` arrays (as below).
            let src: [&Lanes; N] = std::array::from_fn(|k| unsafe { &*p[k].cast::<Lanes>() });
            let t = map_lanes(src, &op);
            // SAFETY: `dst` is a live VGPR of the file; the shared
            // references to the sources are dead.
            unsafe { dst.write(t) };
            return Ok(());
        }
        let out = dst.cast::<Chunk>();
        for c in 0..LANES / CHUNK {
            let on = (exec >> (CHUNK * c)) as u8;
            if on == 0 {
                continue;
            }
            let mut x = [[0u32; CHUNK]; N];
            for k in 0..N {
                let chunk = p[k].wrapping_add(c);
                // SAFETY: chunk `c < LANES / CHUNK` of a live `[u32; LANES]`
                // (a VGPR, a staged or a scratch array); `[u32; CHUNK]` has
                // the alignment of `u32`. Nothing else accesses the wave
                // while `self` is borrowed mutably here.
                x[k] = unsafe { chunk.read() };
            }
            let mut r = [0u32; CHUNK];
            for j in 0..CHUNK {
                let mut lane = [0u32; N];
                for k in 0..N {
                    lane[k] = x[k][j];
                }
                r[j] = op(lane);
            }
            let chunk = out.wrapping_add(c);
            // SAFETY: as the reads; the destination's chunk `c`, written
            // after every source chunk `c` was read.
            let o = unsafe { &mut *chunk };
            if on == u8::MAX {
                *o = r;
            } else {
                for j in 0..CHUNK {
                    if on >> j & 1 != 0 {
                        o[j] = r[j];
                    }
                }
            }
        }
        Ok(())
    }

    /// [`Wave::map32`] for the waves of a work-group in lockstep
    /// ([`super::lockstep`]), all at once: the operands are resolved once
    /// from the group's scalar file (the first wave's), then each wave's
    /// `dst` gets `op` of its own lanes. Only with EXEC full (the group's
    /// EXEC is the first wave's), VGPR operands inside every wave's file
    /// and a VGPR destination; false, having changed nothing, otherwise.
    #[inline(always)]
    pub fn map32_group<const N: usize>(
        waves: &mut [Wave],
        dst: Dst,
        srcs: [Src; N],
        ty: Ty,
        op: impl Fn([u32; N]) -> u32,
    ) -> bool {
        #[cfg(target_arch = "x86_64")]
        if super::hostfp::has_avx2() {
            // SAFETY: the CPU has AVX2 (checked just now).
            return unsafe { Self::map32_group_avx2(waves, dst, srcs, ty, op) };
        }
        Self::map32_group_lanes(waves, dst, srcs, ty, op)
    }

    /// [`Wave::map32_group`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn map32_group_avx2<const N: usize>(
        waves: &mut [Wave],
        dst: Dst,
        srcs: [Src; N],
        ty: Ty,
        op: impl Fn([u32; N]) -> u32,
    ) -> bool {
        Self::map32_group_lanes(waves, dst, srcs, ty, op)
    }

    /// [`Wave::map32_group`]'s body, for a caller compiled for the host's
    /// vector extensions already (it inlines here).
    #[inline(always)]
    pub fn map32_group_lanes<const N: usize>(
        waves: &mut [Wave],
        dst: Dst,
        srcs: [Src; N],
        ty: Ty,
        op: impl Fn([u32; N]) -> u32,
    ) -> bool {
        let Some(first) = waves.first() else {
            return false;
        };
        let file = first.v.len();
        let Dst::V(d) = dst else { return false };
        let d = usize::from(d);
        if first.exec() != u64::MAX || d >= file || waves.iter().any(|w| w.v.len() != file) {
            return false;
        }
        // Each operand: a VGPR of every wave, or one value for all.
        let mut reg = [usize::MAX; N];
        let mut splat = [[0u32; LANES]; N];
        for (k, &src) in srcs.iter().enumerate() {
            match src {
                Src::V(r) if usize::from(r) < file => reg[k] = usize::from(r),
                Src::V(_) | Src::Staged(_) | Src::None => return false,
                other => splat[k] = [first.scalar32(other, ty); LANES],
            }
        }
        for w in waves.iter_mut() {
            let src: [&Lanes; N] = std::array::from_fn(|k| {
                if reg[k] == usize::MAX {
                    &splat[k]
                } else {
                    &w.v[reg[k]]
                }
            });
            // Into a local (no source aliases it: the loop vectorises),
            // then one store.
            w.v[d] = map_lanes(src, &op);
        }
        true
    }

    /// A source as 64 bits per lane (a VGPR pair or a 64-bit scalar).
    #[inline]
    pub fn read64(&self, src: Src, ty: Ty) -> Result<[u64; LANES], Fault> {
        match src {
            Src::V(i) => {
                let lo = self.vreg(i)?;
                let hi = self.vreg(i + 1)?;
                let mut out = [0u64; LANES];
                for l in 0..LANES {
                    out[l] = u64::from(lo[l]) | (u64::from(hi[l]) << 32);
                }
                Ok(out)
            }
            other => Ok([self.scalar64(other, ty); LANES]),
        }
    }

    /// Writes `val` to the lanes of VGPR `dst` that EXEC enables.
    #[inline]
    pub fn write32(&mut self, dst: Dst, val: &Lanes) -> Result<(), Fault> {
        let exec = self.exec();
        match dst {
            Dst::V(i) => {
                let r = self.vreg_mut(i)?;
                if exec == u64::MAX {
                    *r = *val;
                } else {
                    for l in 0..LANES {
                        if exec >> l & 1 != 0 {
                            r[l] = val[l];
                        }
                    }
                }
                Ok(())
            }
            Dst::Null | Dst::None => Ok(()),
            Dst::S(_) => Err(Fault::Abort("a vector result names an SGPR".into())),
        }
    }

    /// Writes `val` to the VGPR pair at `dst` in the lanes EXEC enables.
    #[inline]
    pub fn write64(&mut self, dst: Dst, val: &[u64; LANES]) -> Result<(), Fault> {
        let Dst::V(i) = dst else {
            return self.write32(dst, &[0; LANES]).map(|_| ());
        };
        let exec = self.exec();
        let n = self.v.len();
        if usize::from(i) + 1 >= n {
            return Err(Fault::Abort(format!(
                "v[{i}:{}] is past the wave's {n} VGPRs",
                i + 1
            )));
        }
        debug_assert!(
            !self.is_tagged(usize::from(i)) && !self.is_tagged(usize::from(i) + 1),
            "v[{i}:{}] is written as lanes while tagged",
            i + 1
        );
        let (lo, hi) = self.v.split_at_mut(usize::from(i) + 1);
        let lo = &mut lo[usize::from(i)];
        let hi = &mut hi[0];
        if exec == u64::MAX {
            // No mask to test: the loop vectorises.
            for l in 0..LANES {
                lo[l] = val[l] as u32;
                hi[l] = (val[l] >> 32) as u32;
            }
            return Ok(());
        }
        for l in 0..LANES {
            if exec >> l & 1 != 0 {
                lo[l] = val[l] as u32;
                hi[l] = (val[l] >> 32) as u32;
            }
        }
        Ok(())
    }

    /// Writes a scalar destination.
    #[inline(always)]
    pub fn write_s32(&mut self, dst: Dst, v: u32) {
        if let Dst::S(i) = dst {
            self.s[usize::from(i)] = v;
        }
    }

    /// Writes a 64-bit scalar destination.
    #[inline(always)]
    pub fn write_s64(&mut self, dst: Dst, v: u64) {
        if let Dst::S(i) = dst {
            self.set_s64(i, v);
        }
    }

    /// Writes a lane mask (VOPC, carry-out) to a scalar destination; lanes
    /// EXEC disables read as 0 (AMD GCN3/Vega ISA: "inactive lanes write 0").
    #[inline(always)]
    pub fn write_mask(&mut self, dst: Dst, mask: u64) {
        let v = mask & self.exec();
        self.write_s64(dst, v);
    }
}

/// `op` of each lane of `src`, into a new array (which no source can
/// alias: the loop vectorises).
#[inline(always)]
fn map_lanes<const N: usize>(src: [&Lanes; N], op: &impl Fn([u32; N]) -> u32) -> Lanes {
    let mut t = [0u32; LANES];
    for l in 0..LANES {
        let mut lane = [0u32; N];
        for k in 0..N {
            lane[k] = src[k][l];
        }
        t[l] = op(lane);
    }
    t
}

/// The bits of an inline float constant for an operand of type `ty`.
pub(crate) fn float_const(f: FloatConst, ty: Ty) -> u64 {
    match ty {
        // 64-bit operands read the f64 encoding, integer or not (LLVM's
        // isInlinableLiteral64); 32-bit operands the f32 bits.
        Ty::F64 | Ty::B64 => f.f64_bits(),
        Ty::F16 => u64::from(f.f16_bits()),
        Ty::B32 | Ty::F32 => u64::from(f.f32_bits()),
    }
}
