//! Loading a code object into memory an agent can execute from.
//!
//! The HSA runtime's loader (ROCr `amd_hsa_loader`, AMDGPUUsage "Loaded
//! Code Object Path Uniform Resource Identifier" and "Dynamic Linking"):
//! reserve one region spanning every `PT_LOAD` segment, copy each segment's
//! file bytes to `region + p_vaddr - lowest p_vaddr`, zero the rest of its
//! memory size, apply the dynamic relocations of `.rela.dyn` against the
//! object's own symbols and the caller's externals, then hand out kernels
//! (the address of `<name>.kd`, the AQL packet's `kernel_object`) and
//! variables.
//!
//! Memory comes from the caller through [`AgentMemory`], so a GPU driver, a
//! simulator or plain host memory ([`SliceMemory`]) can receive the image.
//! Nothing here allocates: kernels and variables come out of iterators that
//! read the symbol table on demand.
//!
//! ```
//! use loader_core::load::{load, LoadError, SliceMemory};
//!
//! /// Loads `code_object` into `host` (seen by the agent at `0x7f00_0000_0000`)
//! /// and returns the AQL `kernel_object` of `name`.
//! fn kernel_object<'a>(code_object: &'a [u8], host: &mut [u8], name: &str) -> Result<Option<u64>, LoadError<'a>> {
//!     let mut memory = SliceMemory::new(host, 0x7f00_0000_0000);
//!     // No external symbols: any undefined one is an `UnresolvedSymbol` error.
//!     let loaded = load(code_object, &mut memory, |_| None)?;
//!     for kernel in loaded.kernels() {
//!         let kernel = kernel?;
//!         if kernel.name == name {
//!             return Ok(Some(kernel.kernel_object));
//!         }
//!     }
//!     Ok(None)
//! }
//! ```

mod relocation;

use core::fmt;

pub use relocation::{
    RelocationInputs, RelocationType, RelocationValue, RelocationValueError, relocation_value,
};

use crate::bytes::{i64_at, u64_at};
use crate::elf::{
    ET_DYN, ET_EXEC, ElfFile, PF_X, PT_LOAD, SHF_ALLOC, SHN_ABS, SHN_LORESERVE, SHN_UNDEF,
    SHT_DYNSYM, SHT_REL, SHT_RELA, STB_LOCAL, STB_WEAK, STT_OBJECT, Segment, Symbol, SymbolTable,
};
use crate::error::{Error, Location, index};
use crate::kernel_descriptor::{
    DecodedKernelDescriptor, GpuFamily, KdError, KernelDescriptor, raw::KERNEL_DESCRIPTOR_ALIGN,
    raw::KERNEL_DESCRIPTOR_SIZE,
};
use crate::metadata::Metadata;
use crate::target::TargetId;

/// Most `PT_LOAD` segments accepted (LLVM emits 3 or 4); bounds the pairwise
/// overlap check.
pub const MAX_LOAD_SEGMENTS: usize = 64;
/// Most program headers accepted (LLVM emits about 8). Every relocation and
/// kernel looks its segment up among them, so this bounds the work a crafted
/// file can cause.
pub const MAX_PROGRAM_HEADERS: usize = 256;
/// Size of an `Elf64_Rela`.
const RELA_SIZE: usize = 24;
/// Kernel code must start on a 256-byte boundary (AMDGPUUsage "Kernel
/// Descriptor", `KERNEL_CODE_ENTRY_BYTE_OFFSET`).
pub const KERNEL_CODE_ALIGN: u64 = 256;
/// The HSA minimum kernarg segment alignment (HSA runtime spec 2.9.6).
pub const MIN_KERNARG_ALIGN: u32 = 16;

/// The operation an [`AgentMemory`] failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MemoryOp {
    /// [`AgentMemory::allocate`].
    Allocate,
    /// [`AgentMemory::write`].
    Write,
    /// [`AgentMemory::zero`].
    Zero,
    /// [`AgentMemory::read`].
    Read,
}

/// A failure of the caller's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MemoryError {
    /// What was attempted.
    pub op: MemoryOp,
    /// The agent address (for `Allocate`, 0).
    pub address: u64,
    /// Bytes involved.
    pub len: u64,
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "agent memory: {:?} of {} bytes at {:#x} failed",
            self.op, self.len, self.address
        )
    }
}

/// Memory the code object is loaded into, in the agent's address space.
///
/// `allocate` is called once per load with the image's size and alignment;
/// the other calls stay inside the region it returned.
pub trait AgentMemory {
    /// Reserves `size` bytes aligned to `align` (a power of two) and returns
    /// their agent address.
    fn allocate(&mut self, size: u64, align: u64) -> Result<u64, MemoryError>;
    /// Copies `bytes` to agent address `address`.
    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), MemoryError>;
    /// Zeroes `len` bytes at `address`.
    fn zero(&mut self, address: u64, len: u64) -> Result<(), MemoryError>;
    /// Reads back `out.len()` bytes at `address`.
    fn read(&mut self, address: u64, out: &mut [u8]) -> Result<(), MemoryError>;
}

/// Host memory as agent memory: a caller's byte slice that the agent sees at
/// `base` (for tests, tools, and agents that share the host's address
/// space). One allocation; bump-allocated, never freed.
#[derive(Debug)]
pub struct SliceMemory<'m> {
    bytes: &'m mut [u8],
    base: u64,
    used: u64,
}

impl<'m> SliceMemory<'m> {
    /// `bytes` is visible to the agent at address `base`.
    pub fn new(bytes: &'m mut [u8], base: u64) -> Self {
        Self {
            bytes,
            base,
            used: 0,
        }
    }

    /// The underlying bytes.
    pub fn bytes(&self) -> &[u8] {
        self.bytes
    }

    fn range(
        &self,
        op: MemoryOp,
        address: u64,
        len: u64,
    ) -> Result<core::ops::Range<usize>, MemoryError> {
        let err = MemoryError { op, address, len };
        let start = address.checked_sub(self.base).ok_or(err)?;
        let end = start.checked_add(len).ok_or(err)?;
        if end > self.used {
            return Err(err);
        }
        Ok(usize::try_from(start).map_err(|_| err)?..usize::try_from(end).map_err(|_| err)?)
    }
}

impl AgentMemory for SliceMemory<'_> {
    fn allocate(&mut self, size: u64, align: u64) -> Result<u64, MemoryError> {
        let err = MemoryError {
            op: MemoryOp::Allocate,
            address: 0,
            len: size,
        };
        let start = crate::bytes::align_up(self.base.checked_add(self.used).ok_or(err)?, align)
            .ok_or(err)?;
        let end = start.checked_add(size).ok_or(err)?;
        if end - self.base > self.bytes.len() as u64 {
            return Err(err);
        }
        self.used = end - self.base;
        Ok(start)
    }

    fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), MemoryError> {
        let r = self.range(MemoryOp::Write, address, bytes.len() as u64)?;
        self.bytes[r].copy_from_slice(bytes);
        Ok(())
    }

    fn zero(&mut self, address: u64, len: u64) -> Result<(), MemoryError> {
        let r = self.range(MemoryOp::Zero, address, len)?;
        self.bytes[r].fill(0);
        Ok(())
    }

    fn read(&mut self, address: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        let r = self.range(MemoryOp::Read, address, out.len() as u64)?;
        out.copy_from_slice(&self.bytes[r]);
        Ok(())
    }
}

/// Why loading failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadError<'a> {
    /// The code object is malformed, or uses something the loader does not
    /// support (what, and where in the file).
    Object(Error),
    /// A kernel descriptor failed its checks.
    KernelDescriptor {
        /// The kernel (its `.kd` symbol without the suffix).
        kernel: &'a str,
        /// What is wrong.
        error: KdError,
    },
    /// A relocation refers to an undefined symbol that the resolver does not
    /// define.
    UnresolvedSymbol {
        /// The symbol.
        name: &'a str,
        /// Index of the relocation in its section.
        relocation: u32,
    },
    /// A relocation's value does not fit its field.
    RelocationValue {
        /// The type.
        kind: RelocationType,
        /// Index of the relocation in its section.
        relocation: u32,
        /// Why.
        error: RelocationValueError,
    },
    /// The caller's memory failed.
    Memory(MemoryError),
}

impl From<Error> for LoadError<'_> {
    fn from(e: Error) -> Self {
        Self::Object(e)
    }
}

impl From<MemoryError> for LoadError<'_> {
    fn from(e: MemoryError) -> Self {
        Self::Memory(e)
    }
}

impl fmt::Display for LoadError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Object(e) => e.fmt(f),
            Self::KernelDescriptor { kernel, error } => write!(f, "kernel `{kernel}`: {error}"),
            Self::UnresolvedSymbol { name, relocation } => {
                write!(
                    f,
                    "relocation {relocation}: undefined symbol `{name}` not provided by the resolver"
                )
            }
            Self::RelocationValue {
                kind,
                relocation,
                error,
            } => {
                write!(
                    f,
                    "relocation {relocation}: {kind} value cannot be written ({error:?})"
                )
            }
            Self::Memory(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for LoadError<'_> {}

/// Where the `PT_LOAD` segments go: the span from the lowest `p_vaddr`
/// (rounded down to the largest `p_align`) to the highest `p_vaddr +
/// p_memsz`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ImageLayout {
    /// The lowest virtual address, aligned down to `align`.
    pub base_vaddr: u64,
    /// Bytes to reserve.
    pub size: u64,
    /// Alignment the reservation needs (the largest `p_align`, at least 1).
    pub align: u64,
    /// Number of `PT_LOAD` segments.
    pub segments: usize,
}

impl ImageLayout {
    /// Computes and checks the layout: every `PT_LOAD` segment loadable
    /// (see [`Segment::check_loadable`]), none
    /// overlapping another in memory, at least one with a non-zero size.
    pub fn of(elf: &ElfFile<'_>) -> Result<Self, Error> {
        if elf.segment_count() > MAX_PROGRAM_HEADERS {
            return Err(Error::limit(
                "more program headers than the loader accepts",
                Location::Offset(56),
            ));
        }
        let mut lo = u64::MAX;
        let mut hi = 0u64;
        let mut align = 1u64;
        let mut count = 0usize;
        for seg in elf.segments().filter(|s| s.p_type() == PT_LOAD) {
            seg.check_loadable()?;
            let h = seg.header();
            let at = Location::Item("segment", index(seg.index()));
            count += 1;
            if count > MAX_LOAD_SEGMENTS {
                return Err(Error::limit(
                    "more PT_LOAD segments than the loader accepts",
                    at,
                ));
            }
            // check_loadable proved p_vaddr + p_memsz does not overflow.
            let end = h.p_vaddr + h.p_memsz;
            for other in elf
                .segments()
                .filter(|s| s.p_type() == PT_LOAD && s.index() < seg.index())
            {
                let o = other.header();
                let o_end = o.p_vaddr.saturating_add(o.p_memsz);
                if h.p_memsz != 0 && o.p_memsz != 0 && h.p_vaddr < o_end && o.p_vaddr < end {
                    return Err(Error::inconsistent(
                        "PT_LOAD segment overlaps an earlier one in memory",
                        at,
                    ));
                }
            }
            if h.p_memsz == 0 {
                continue;
            }
            lo = lo.min(h.p_vaddr);
            hi = hi.max(end);
            align = align.max(h.p_align);
        }
        if hi == 0 {
            return Err(Error::missing(
                "no PT_LOAD segment with a memory size",
                Location::Input,
            ));
        }
        let base_vaddr = lo & !(align - 1);
        Ok(Self {
            base_vaddr,
            size: hi - base_vaddr,
            align,
            segments: count,
        })
    }
}

/// A kernel of a loaded code object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel<'a> {
    /// The kernel's name (its `.kd` symbol without the suffix).
    pub name: &'a str,
    /// Agent address of the kernel descriptor: the AQL packet's `kernel_object`.
    pub kernel_object: u64,
    /// Agent address of the first instruction.
    pub entry: u64,
    /// `kernarg_segment_byte_size`: the metadata's `.kernarg_segment_size`,
    /// which must equal the descriptor's `kernarg_size`.
    pub kernarg_segment_size: u32,
    /// `kernarg_segment_alignment`: the metadata's `.kernarg_segment_align`;
    /// without metadata (a stripped object) the HSA minimum of 16, as the
    /// descriptor does not record it.
    pub kernarg_segment_align: u32,
    /// `group_segment_fixed_size` (LDS, without dynamic LDS).
    pub group_segment_size: u32,
    /// `private_segment_fixed_size` (scratch per work-item, without a
    /// dynamic stack).
    pub private_segment_size: u32,
    /// The kernel's stack size is only known at dispatch time.
    pub uses_dynamic_stack: bool,
    /// 32 or 64.
    pub wavefront_size: u8,
    /// The whole descriptor, decoded.
    pub descriptor: DecodedKernelDescriptor,
}

/// A global variable of a loaded code object (`STT_OBJECT` in `.dynsym`
/// that is not a kernel descriptor).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variable<'a> {
    /// Symbol name.
    pub name: &'a str,
    /// Agent address.
    pub address: u64,
    /// `st_size`.
    pub size: u64,
}

/// A code object placed in agent memory and relocated.
#[derive(Clone, Copy, Debug)]
pub struct LoadedCodeObject<'a> {
    elf: ElfFile<'a>,
    metadata: Option<Metadata<'a>>,
    layout: ImageLayout,
    address: u64,
    family: Option<GpuFamily>,
}

fn segment_for<'a>(elf: &ElfFile<'a>, vaddr: u64, len: u64) -> Option<Segment<'a>> {
    elf.segments().filter(|s| s.p_type() == PT_LOAD).find(|s| {
        let h = s.header();
        vaddr >= h.p_vaddr
            && vaddr
                .checked_add(len)
                .is_some_and(|end| end <= h.p_vaddr.saturating_add(h.p_memsz))
    })
}

/// The GPU family of the object's processor, if it has one.
fn family_of(elf: &ElfFile<'_>) -> Option<GpuFamily> {
    elf.flags()
        .ok()?
        .processor
        .and_then(|p| GpuFamily::from_processor(p.name))
}

fn dynsym<'a>(elf: &ElfFile<'a>) -> Result<Option<SymbolTable<'a>>, Error> {
    elf.dynamic_symbols()
}

/// Loads `data` for `agent`, like [`load`], after checking (before any
/// memory is touched) that the code object can run on the agent's ISA by
/// ROCr's rules ([`TargetId::check_compatible`]: xnack/sramecc settings,
/// generic targets and their versions). An incompatible object is an
/// [`ErrorKind::Incompatible`](crate::ErrorKind::Incompatible) error.
pub fn load_for_agent<'a, M, R>(
    data: &'a [u8],
    agent: &TargetId,
    memory: &mut M,
    resolve: R,
) -> Result<LoadedCodeObject<'a>, LoadError<'a>>
where
    M: AgentMemory + ?Sized,
    R: FnMut(&'a str) -> Option<u64>,
{
    let elf = ElfFile::parse(data)?;
    let flags = elf.flags()?;
    TargetId::from_flags(&flags)?.check_compatible(flags.generic_version, agent)?;
    load(data, memory, resolve)
}

/// Loads `data` into `memory`: computes the layout, allocates, copies,
/// zeroes, relocates, then checks every kernel descriptor as the agent will
/// read it back. `resolve` gives the address of undefined symbols (other
/// code objects' or the runtime's variables); it may return `None`.
pub fn load<'a, M, R>(
    data: &'a [u8],
    memory: &mut M,
    mut resolve: R,
) -> Result<LoadedCodeObject<'a>, LoadError<'a>>
where
    M: AgentMemory + ?Sized,
    R: FnMut(&'a str) -> Option<u64>,
{
    let elf = ElfFile::parse(data)?;
    let e_type = elf.header().e_type;
    if e_type != ET_DYN && e_type != ET_EXEC {
        return Err(Error::unsupported(
            "only ET_DYN (or ET_EXEC) code objects are loadable",
            Location::Offset(16),
        )
        .into());
    }
    // Code object v2 kernels are amd_kernel_code_t records, not descriptors:
    // refuse rather than load an object whose kernels would go unseen.
    if elf.code_object_version().is_ok_and(|v| v.number() < 3) {
        return Err(Error::unsupported(
            "code object v2 (amd_kernel_code_t kernels) is not loadable; v3 and later are",
            Location::Offset(8),
        )
        .into());
    }
    let layout = ImageLayout::of(&elf)?;
    let address = memory.allocate(layout.size, layout.align)?;
    let delta = address.wrapping_sub(layout.base_vaddr);
    debug!(
        "load: {} bytes at {:#x}, {} segments",
        layout.size, address, layout.segments
    );

    for seg in elf.segments().filter(|s| s.p_type() == PT_LOAD) {
        let h = seg.header();
        let at = delta.wrapping_add(h.p_vaddr);
        let bytes = seg.data()?;
        memory.write(at, bytes)?;
        let bss = h.p_memsz - h.p_filesz; // check_loadable: filesz <= memsz
        if bss != 0 {
            memory.zero(at.wrapping_add(h.p_filesz), bss)?;
        }
    }

    // v3+ metadata: kernarg alignment, and a cross-check of the descriptors.
    let metadata = match elf.code_object_version() {
        Ok(v) if v.number() >= 3 => Metadata::from_elf(&elf)?,
        _ => None,
    };
    let loaded = LoadedCodeObject {
        elf,
        metadata,
        layout,
        address,
        family: family_of(&elf),
    };
    loaded.relocate(memory, &mut resolve)?;

    // What the agent will execute: every descriptor read back from its memory.
    let mut kernels = 0u32;
    for k in loaded.kernels() {
        let k = k?;
        kernels = kernels.saturating_add(1);
        let mut back = [0u8; KERNEL_DESCRIPTOR_SIZE];
        memory.read(k.kernel_object, &mut back)?;
        KernelDescriptor::parse(&back)
            .and_then(|kd| kd.decode(k.descriptor.family))
            .map_err(|error| LoadError::KernelDescriptor {
                kernel: k.name,
                error,
            })?;
    }
    // Each kernel found its metadata entry; the reverse must hold too.
    if let Some(md) = &loaded.metadata {
        if md.kernel_count() != kernels {
            return Err(Error::inconsistent(
                "amdhsa.kernels lists a kernel that has no kernel descriptor symbol",
                Location::Field("amdhsa.kernels"),
            )
            .into());
        }
    }
    Ok(loaded)
}

impl<'a> LoadedCodeObject<'a> {
    /// The parsed code object.
    pub fn elf(&self) -> &ElfFile<'a> {
        &self.elf
    }

    /// The image layout.
    pub fn layout(&self) -> ImageLayout {
        self.layout
    }

    /// Agent address of the start of the image.
    pub fn address(&self) -> u64 {
        self.address
    }

    /// Load bias `B`: added to a `p_vaddr` or `st_value` to get an agent address.
    pub fn bias(&self) -> u64 {
        self.address.wrapping_sub(self.layout.base_vaddr)
    }

    /// The `NT_AMDGPU_METADATA` map, when the object has one.
    pub fn metadata(&self) -> Option<&Metadata<'a>> {
        self.metadata.as_ref()
    }

    /// The GPU family the kernel descriptors were decoded for.
    pub fn family(&self) -> Option<GpuFamily> {
        self.family
    }

    fn symbol_address(&self, sym: &Symbol<'a>) -> Result<u64, Error> {
        let e = sym.entry();
        match e.st_shndx {
            SHN_ABS => Ok(e.st_value),
            SHN_UNDEF => Err(Error::missing(
                "symbol is undefined",
                Location::Item("symbol", index(sym.index())),
            )),
            s if s >= SHN_LORESERVE => Err(Error::unsupported(
                "symbol in a reserved section (LDS or common) has no load address",
                Location::Item("symbol", index(sym.index())),
            )),
            _ => Ok(self.bias().wrapping_add(e.st_value)),
        }
    }

    /// Agent address of the object's own defined symbol `name` (from
    /// `.dynsym`).
    pub fn symbol(&self, name: &str) -> Option<u64> {
        let table = dynsym(&self.elf).ok()??;
        let sym = table.find(name.as_bytes())?;
        self.symbol_address(&sym).ok()
    }

    fn relocate<M, R>(&self, memory: &mut M, resolve: &mut R) -> Result<(), LoadError<'a>>
    where
        M: AgentMemory + ?Sized,
        R: FnMut(&'a str) -> Option<u64>,
    {
        let mut table: Option<(u32, SymbolTable<'a>)> = None;
        for rela in dynamic_relocations(&self.elf) {
            let rela = rela?;
            let symbols = if rela.symbol == 0 {
                None
            } else {
                match table {
                    Some((link, t)) if link == rela.symbol_table => Some(t),
                    _ => {
                        let t = self.elf.symbol_table_at(rela.symbol_table as usize)?;
                        table = Some((rela.symbol_table, t));
                        Some(t)
                    }
                }
            };
            self.apply(memory, resolve, symbols.as_ref(), &rela)?;
        }
        Ok(())
    }

    fn apply<M, R>(
        &self,
        memory: &mut M,
        resolve: &mut R,
        symbols: Option<&SymbolTable<'a>>,
        rela: &Rela,
    ) -> Result<(), LoadError<'a>>
    where
        M: AgentMemory + ?Sized,
        R: FnMut(&'a str) -> Option<u64>,
    {
        let i = rela.index;
        let at = Location::Item("relocation", i);
        let (r_offset, addend) = (rela.offset, rela.addend);
        let kind = rela
            .kind
            .ok_or(Error::unsupported("unknown R_AMDGPU relocation type", at))?;
        if kind == RelocationType::None {
            return Ok(());
        }
        if kind.uses_got() {
            return Err(Error::unsupported(
                "GOT-relative relocation in dynamic relocations (the static linker resolves these)",
                at,
            )
            .into());
        }
        let width = kind.width() as u64;
        if segment_for(&self.elf, r_offset, width).is_none() {
            return Err(Error::out_of_bounds(
                "relocation target lies outside every PT_LOAD segment",
                at,
            )
            .into());
        }
        let sym_index = rela.symbol as usize;
        let symbol = if kind.uses_symbol() && sym_index != 0 {
            let table = symbols.ok_or(Error::missing("relocation needs a symbol table", at))?;
            let sym = table.get(sym_index).map_err(|e| e.at(at))?;
            if sym.is_undefined() {
                let name = sym.name_str().map_err(|e| e.at(at))?;
                match resolve(name) {
                    Some(address) => address,
                    // An undefined weak symbol is zero (gABI "Symbol Table").
                    None if sym.binding() == STB_WEAK => 0,
                    None => {
                        return Err(LoadError::UnresolvedSymbol {
                            name,
                            relocation: i,
                        });
                    }
                }
            } else {
                self.symbol_address(&sym).map_err(|e| e.at(at))?
            }
        } else {
            0
        };
        let place = self.bias().wrapping_add(r_offset);
        let inputs = RelocationInputs {
            symbol,
            addend,
            place,
            base: self.bias(),
            got_entry: None,
        };
        let value = relocation_value(kind, inputs).map_err(|error| LoadError::RelocationValue {
            kind,
            relocation: i,
            error,
        })?;
        trace!("relocation {}: {} at {:#x}", i, kind.name(), place);
        memory.write(place, value.as_bytes())?;
        Ok(())
    }

    /// The kernels: every `STT_OBJECT` `<name>.kd` of size 64 in `.dynsym`,
    /// its descriptor decoded and checked for the object's GPU family.
    pub fn kernels(&self) -> Kernels<'a> {
        Kernels {
            object: *self,
            symbols: dynsym(&self.elf),
            next: 0,
            metadata_cursor: None,
        }
    }

    /// The global variables: defined, non-local `STT_OBJECT` symbols of
    /// `.dynsym` other than kernel descriptors.
    pub fn variables(&self) -> Variables<'a> {
        Variables {
            object: *self,
            symbols: dynsym(&self.elf).ok().flatten(),
            next: 0,
        }
    }

    /// The metadata kernel whose `.symbol` is `<name>.kd`, searched from
    /// `cursor` onwards and wrapping around, so that walking kernels in the
    /// metadata's own order costs one step each.
    fn metadata_kernel(
        md: &Metadata<'a>,
        cursor: &mut Option<crate::metadata::Kernels<'a>>,
        name: &str,
    ) -> Result<Option<crate::metadata::Kernel<'a>>, Error> {
        for _ in 0..md.kernel_count() {
            let it = cursor.get_or_insert_with(|| md.kernels());
            let k = match it.next() {
                Some(k) => k?,
                None => {
                    let mut fresh = md.kernels();
                    let first = fresh.next();
                    *cursor = Some(fresh);
                    match first {
                        Some(k) => k?,
                        None => return Ok(None),
                    }
                }
            };
            if k.symbol.strip_suffix(".kd") == Some(name) {
                return Ok(Some(k));
            }
        }
        Ok(None)
    }

    fn kernel(
        &self,
        sym: &Symbol<'a>,
        name: &'a str,
        cursor: &mut Option<crate::metadata::Kernels<'a>>,
    ) -> Result<Kernel<'a>, LoadError<'a>> {
        let at = Location::Item("symbol", index(sym.index()));
        let e = sym.entry();
        if e.st_size != KERNEL_DESCRIPTOR_SIZE as u64 {
            return Err(Error::malformed("kernel descriptor symbol size is not 64", at).into());
        }
        let kernel_object = self.symbol_address(sym).map_err(|e| e.at(at))?;
        if kernel_object % KERNEL_DESCRIPTOR_ALIGN != 0 {
            return Err(Error::malformed("kernel descriptor is not 64-byte aligned", at).into());
        }
        let seg = segment_for(&self.elf, e.st_value, KERNEL_DESCRIPTOR_SIZE as u64).ok_or(
            Error::out_of_bounds("kernel descriptor lies outside every PT_LOAD segment", at),
        )?;
        // The descriptor as the file holds it (load() checks the agent's copy).
        let h = seg.header();
        let in_seg = e.st_value - h.p_vaddr;
        let bytes = if in_seg
            .checked_add(KERNEL_DESCRIPTOR_SIZE as u64)
            .is_some_and(|end| end <= h.p_filesz)
        {
            let data = seg.data()?;
            &data[in_seg as usize..in_seg as usize + KERNEL_DESCRIPTOR_SIZE]
        } else {
            return Err(Error::out_of_bounds(
                "kernel descriptor lies in a segment's zero-filled part",
                at,
            )
            .into());
        };
        let family = self.family.ok_or(Error::unsupported(
            "kernel descriptors of this processor cannot be decoded",
            Location::Field("e_flags"),
        ))?;
        let descriptor = KernelDescriptor::parse(bytes)
            .and_then(|kd| kd.decode(family))
            .map_err(|error| LoadError::KernelDescriptor {
                kernel: name,
                error,
            })?;
        let entry = kernel_object.wrapping_add_signed(descriptor.raw.kernel_code_entry_byte_offset);
        if entry % KERNEL_CODE_ALIGN != 0 {
            return Err(Error::malformed("kernel code entry is not 256-byte aligned", at).into());
        }
        let entry_vaddr = entry.wrapping_sub(self.bias());
        let code = segment_for(&self.elf, entry_vaddr, 4).ok_or(Error::out_of_bounds(
            "kernel code entry lies outside every PT_LOAD segment",
            at,
        ))?;
        if code.header().p_flags & PF_X == 0 {
            return Err(Error::inconsistent(
                "kernel code entry is in a segment that is not executable",
                at,
            )
            .into());
        }
        let raw = descriptor.raw;
        let mut kernarg_segment_align = MIN_KERNARG_ALIGN;
        if let Some(md) = &self.metadata {
            let found = Self::metadata_kernel(md, cursor, name)?;
            let k = found.ok_or(Error::missing(
                "kernel descriptor has no entry in amdhsa.kernels",
                at,
            ))?;
            let mismatch = |what| {
                Error::inconsistent(what, Location::ItemField("kernel", k.index, "metadata"))
            };
            if k.kernarg_segment_size != raw.kernarg_size {
                return Err(mismatch(
                    ".kernarg_segment_size differs from the descriptor's kernarg_size",
                )
                .into());
            }
            if k.group_segment_fixed_size != raw.group_segment_fixed_size {
                return Err(
                    mismatch(".group_segment_fixed_size differs from the descriptor's").into(),
                );
            }
            if k.private_segment_fixed_size != raw.private_segment_fixed_size {
                return Err(
                    mismatch(".private_segment_fixed_size differs from the descriptor's").into(),
                );
            }
            kernarg_segment_align = k.kernarg_segment_align.max(MIN_KERNARG_ALIGN);
        }
        Ok(Kernel {
            name,
            kernel_object,
            entry,
            kernarg_segment_size: raw.kernarg_size,
            kernarg_segment_align,
            group_segment_size: raw.group_segment_fixed_size,
            private_segment_size: raw.private_segment_fixed_size,
            uses_dynamic_stack: descriptor.properties.uses_dynamic_stack,
            wavefront_size: descriptor.wavefront_size,
            descriptor,
        })
    }
}

fn kd_name<'a>(sym: &Symbol<'a>) -> Option<&'a str> {
    if sym.kind() != STT_OBJECT || sym.is_undefined() {
        return None;
    }
    sym.name_str().ok()?.strip_suffix(".kd")
}

/// Iterator over the kernels of a [`LoadedCodeObject`]; yields an error
/// once and then stops.
#[derive(Clone, Debug)]
pub struct Kernels<'a> {
    object: LoadedCodeObject<'a>,
    symbols: Result<Option<SymbolTable<'a>>, Error>,
    next: usize,
    metadata_cursor: Option<crate::metadata::Kernels<'a>>,
}

impl<'a> Iterator for Kernels<'a> {
    type Item = Result<Kernel<'a>, LoadError<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let table = match &self.symbols {
            Ok(Some(t)) => *t,
            Ok(None) => return None,
            Err(e) => {
                let e = *e;
                self.symbols = Ok(None);
                return Some(Err(e.into()));
            }
        };
        while self.next < table.len() {
            let i = self.next;
            self.next += 1;
            let sym = match table.get(i) {
                Ok(s) => s,
                Err(e) => {
                    self.next = table.len();
                    return Some(Err(e.into()));
                }
            };
            if let Some(name) = kd_name(&sym) {
                let k = self.object.kernel(&sym, name, &mut self.metadata_cursor);
                if k.is_err() {
                    self.next = table.len();
                }
                return Some(k);
            }
        }
        None
    }
}

/// Iterator over the variables of a [`LoadedCodeObject`].
#[derive(Clone, Debug)]
pub struct Variables<'a> {
    object: LoadedCodeObject<'a>,
    symbols: Option<SymbolTable<'a>>,
    next: usize,
}

impl<'a> Iterator for Variables<'a> {
    type Item = Variable<'a>;

    fn next(&mut self) -> Option<Variable<'a>> {
        let table = self.symbols?;
        while self.next < table.len() {
            let i = self.next;
            self.next += 1;
            let Ok(sym) = table.get(i) else { continue };
            if sym.kind() != STT_OBJECT || sym.binding() == STB_LOCAL || kd_name(&sym).is_some() {
                continue;
            }
            let (Ok(name), Ok(address)) = (sym.name_str(), self.object.symbol_address(&sym)) else {
                continue;
            };
            return Some(Variable {
                name,
                address,
                size: sym.size(),
            });
        }
        None
    }
}

/// One `Elf64_Rela` of an allocated (dynamic) relocation section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Rela {
    /// Index of the relocation section.
    pub section: u32,
    /// Index of the entry in its section.
    pub index: u32,
    /// `r_offset`: the virtual address of the place.
    pub offset: u64,
    /// `ELF64_R_TYPE(r_info)`.
    pub raw_type: u32,
    /// The type, if it is an `R_AMDGPU_*` type.
    pub kind: Option<RelocationType>,
    /// `ELF64_R_SYM(r_info)`.
    pub symbol: u32,
    /// `r_addend`.
    pub addend: i64,
    /// The section index of the symbol table the entry refers to (`sh_link`).
    pub symbol_table: u32,
}

/// The dynamic relocations of `elf`: every entry of every `SHT_RELA`
/// section with `SHF_ALLOC` (`.rela.dyn`), checked (entry size 24, linked to
/// `.dynsym`). Static relocation sections that `--emit-relocs` leaves are
/// not the loader's and are skipped; an allocated `SHT_REL` section is an
/// error (AMDGPU uses RELA only). Yields an error once, then stops.
pub fn dynamic_relocations<'a>(elf: &ElfFile<'a>) -> DynamicRelocations<'a> {
    DynamicRelocations {
        elf: *elf,
        section: 0,
        table: &[],
        link: 0,
        pos: 0,
        done: false,
    }
}

/// Iterator returned by [`dynamic_relocations`].
#[derive(Clone, Debug)]
pub struct DynamicRelocations<'a> {
    elf: ElfFile<'a>,
    section: usize,
    table: &'a [u8],
    link: u32,
    pos: usize,
    done: bool,
}

impl DynamicRelocations<'_> {
    /// Moves to the next dynamic relocation section with entries left.
    fn next_table(&mut self) -> Result<bool, Error> {
        while self.section < self.elf.section_count() {
            let i = self.section;
            self.section += 1;
            let section = self.elf.section(i)?;
            let h = *section.header();
            if h.sh_flags & SHF_ALLOC == 0 {
                continue;
            }
            let at = Location::Item("section", index(i));
            if h.sh_type == SHT_REL {
                return Err(Error::unsupported(
                    "SHT_REL dynamic relocations (AMDGPU uses SHT_RELA)",
                    at,
                ));
            }
            if h.sh_type != SHT_RELA {
                continue;
            }
            if h.sh_entsize != RELA_SIZE as u64 {
                return Err(Error::malformed(
                    "relocation section sh_entsize is not 24",
                    at,
                ));
            }
            let table = section.data()?;
            if table.len() % RELA_SIZE != 0 {
                return Err(Error::malformed(
                    "relocation section size is not a multiple of 24",
                    at,
                ));
            }
            if table.is_empty() {
                continue;
            }
            let link = self.elf.section(h.sh_link as usize).map_err(|_| {
                Error::out_of_bounds("relocation section sh_link is not a section", at)
            })?;
            if link.sh_type() != SHT_DYNSYM {
                return Err(Error::inconsistent(
                    "dynamic relocations do not link to .dynsym",
                    at,
                ));
            }
            self.table = table;
            self.link = h.sh_link;
            self.pos = 0;
            return Ok(true);
        }
        Ok(false)
    }
}

impl Iterator for DynamicRelocations<'_> {
    type Item = Result<Rela, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.pos >= self.table.len() {
            match self.next_table() {
                Ok(true) => {}
                Ok(false) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        let entry = &self.table[self.pos..self.pos + RELA_SIZE];
        let i = index(self.pos / RELA_SIZE);
        self.pos += RELA_SIZE;
        let (Some(offset), Some(info), Some(addend)) =
            (u64_at(entry, 0), u64_at(entry, 8), i64_at(entry, 16))
        else {
            self.done = true;
            return Some(Err(Error::truncated(
                "relocation entry",
                Location::Item("relocation", i),
            )));
        };
        let raw_type = info as u32;
        Some(Ok(Rela {
            section: index(self.section - 1),
            index: i,
            offset,
            raw_type,
            kind: RelocationType::from_raw(raw_type),
            symbol: (info >> 32) as u32,
            addend,
            symbol_table: self.link,
        }))
    }
}
