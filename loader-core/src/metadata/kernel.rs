//! The per-kernel map of `amdhsa.kernels` and its `.args` maps
//! (AMDGPUUsage "Code Object V3 Kernel Metadata Map" and "... Kernel
//! Argument Metadata Map", extended in the V4, V5 and V6 sections).

use super::{Entries, array, boolean, int_array, map, set, string, u32_};
use crate::error::{Error, Location, Result};
use crate::msgpack::{Array, Value};
use core::fmt;

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident, $what:literal { $($(#[$vm:meta])* $v:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "defmt", derive(defmt::Format))]
        pub enum $name {
            $($(#[$vm])* #[doc = concat!("`\"", $s, "\"`")] $v,)*
        }

        impl $name {
            /// Every value, in documentation order.
            pub const ALL: &'static [Self] = &[$(Self::$v),*];

            /// The string as written in the metadata.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$v => $s,)*
                }
            }

            /// Decodes the metadata string; `None` if it is not one LLVM
            /// defines.
            pub fn from_name(s: &str) -> Option<Self> {
                match s {
                    $($s => Some(Self::$v),)*
                    _ => None,
                }
            }

            fn read(v: Value<'_>, at: Location) -> Result<Self> {
                Self::from_name(string(v, at)?).ok_or(Error::malformed($what, at))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// `.value_kind` of a kernel argument: how the runtime sets it up.
    ValueKind, "unknown .value_kind" {
    ByValue = "by_value",
    GlobalBuffer = "global_buffer",
    DynamicSharedPointer = "dynamic_shared_pointer",
    Sampler = "sampler",
    Image = "image",
    Pipe = "pipe",
    Queue = "queue",
    HiddenGlobalOffsetX = "hidden_global_offset_x",
    HiddenGlobalOffsetY = "hidden_global_offset_y",
    HiddenGlobalOffsetZ = "hidden_global_offset_z",
    HiddenNone = "hidden_none",
    HiddenPrintfBuffer = "hidden_printf_buffer",
    HiddenHostcallBuffer = "hidden_hostcall_buffer",
    HiddenDefaultQueue = "hidden_default_queue",
    HiddenCompletionAction = "hidden_completion_action",
    HiddenMultigridSyncArg = "hidden_multigrid_sync_arg",
    HiddenBlockCountX = "hidden_block_count_x",
    HiddenBlockCountY = "hidden_block_count_y",
    HiddenBlockCountZ = "hidden_block_count_z",
    HiddenGroupSizeX = "hidden_group_size_x",
    HiddenGroupSizeY = "hidden_group_size_y",
    HiddenGroupSizeZ = "hidden_group_size_z",
    HiddenRemainderX = "hidden_remainder_x",
    HiddenRemainderY = "hidden_remainder_y",
    HiddenRemainderZ = "hidden_remainder_z",
    HiddenGridDims = "hidden_grid_dims",
    HiddenHeapV1 = "hidden_heap_v1",
    HiddenDynamicLdsSize = "hidden_dynamic_lds_size",
    HiddenPrivateBase = "hidden_private_base",
    HiddenSharedBase = "hidden_shared_base",
    HiddenQueuePtr = "hidden_queue_ptr",
});

impl ValueKind {
    /// Whether the runtime, not the caller, fills this argument in.
    pub fn is_hidden(self) -> bool {
        self.as_str().starts_with("hidden_")
    }
}

string_enum!(
    /// `.address_space` of a pointer argument.
    AddressSpace, "unknown .address_space" {
    Private = "private",
    Global = "global",
    Constant = "constant",
    Local = "local",
    Generic = "generic",
    Region = "region",
});

string_enum!(
    /// `.access` / `.actual_access` of an image or pipe (or buffer) argument.
    Access, "unknown access qualifier" {
    ReadOnly = "read_only",
    WriteOnly = "write_only",
    ReadWrite = "read_write",
});

string_enum!(
    /// `.language` of a kernel.
    Language, "unknown .language" {
    OpenClC = "OpenCL C",
    OpenClCpp = "OpenCL C++",
    Hcc = "HCC",
    Hip = "HIP",
    OpenMp = "OpenMP",
    Assembler = "Assembler",
});

string_enum!(
    /// `.kind` of a kernel (v4+): a normal kernel, or one the runtime runs
    /// at load (`init`) or unload (`fini`) time.
    KernelKind, "unknown .kind" {
    Normal = "normal",
    Init = "init",
    Fini = "fini",
});

string_enum!(
    /// `.value_type` of a by-value argument (v3 and v4 only; removed in v5).
    ValueType, "unknown .value_type" {
    Struct = "struct",
    I8 = "i8",
    U8 = "u8",
    I16 = "i16",
    U16 = "u16",
    F16 = "f16",
    I32 = "i32",
    U32 = "u32",
    F32 = "f32",
    I64 = "i64",
    U64 = "u64",
    F64 = "f64",
});

/// One kernel of `amdhsa.kernels`. Required keys are plain fields,
/// optional ones `Option`s; `.args` is read lazily through [`Kernel::args`].
#[derive(Debug, Clone, Copy)]
pub struct Kernel<'a> {
    /// Position in `amdhsa.kernels`.
    pub index: u32,
    /// `.name`: source name of the kernel.
    pub name: &'a str,
    /// `.symbol`: name of the kernel-descriptor symbol (`<name>.kd`).
    pub symbol: &'a str,
    /// `.language`.
    pub language: Option<Language>,
    /// `.language_version`: major, minor.
    pub language_version: Option<[u32; 2]>,
    /// `.kernarg_segment_size`.
    pub kernarg_segment_size: u32,
    /// `.kernarg_segment_align` (a power of two).
    pub kernarg_segment_align: u32,
    /// `.group_segment_fixed_size`: LDS bytes per work-group.
    pub group_segment_fixed_size: u32,
    /// `.private_segment_fixed_size`: scratch bytes per work-item.
    pub private_segment_fixed_size: u32,
    /// `.uses_dynamic_stack` (v5+).
    pub uses_dynamic_stack: Option<bool>,
    /// `.workgroup_processor_mode` (v5+, GFX10+).
    pub workgroup_processor_mode: Option<u32>,
    /// `.wavefront_size` (32 or 64).
    pub wavefront_size: u32,
    /// `.sgpr_count`.
    pub sgpr_count: u32,
    /// `.vgpr_count`.
    pub vgpr_count: u32,
    /// `.agpr_count` (gfx908+).
    pub agpr_count: Option<u32>,
    /// `.sgpr_spill_count`.
    pub sgpr_spill_count: Option<u32>,
    /// `.vgpr_spill_count`.
    pub vgpr_spill_count: Option<u32>,
    /// `.max_flat_workgroup_size`.
    pub max_flat_workgroup_size: u32,
    /// `.reqd_workgroup_size`: X, Y, Z.
    pub reqd_workgroup_size: Option<[u32; 3]>,
    /// `.workgroup_size_hint`: X, Y, Z.
    pub workgroup_size_hint: Option<[u32; 3]>,
    /// `.vec_type_hint`.
    pub vec_type_hint: Option<&'a str>,
    /// `.device_enqueue_symbol`.
    pub device_enqueue_symbol: Option<&'a str>,
    /// `.kind` (v4+).
    pub kind: Option<KernelKind>,
    /// `.uniform_work_group_size` (v5+: 1 if the grid is a multiple of the
    /// work-group size in every dimension).
    pub uniform_work_group_size: Option<u32>,
    /// `.max_num_workgroups_x/_y/_z` (v5+), each 0 when absent.
    pub max_num_workgroups: Option<[u32; 3]>,
    /// `.cluster_dims` (v6, gfx1250): work-group cluster X, Y, Z.
    pub cluster_dims: Option<[u32; 3]>,
    args: Option<Array<'a>>,
}

impl<'a> Kernel<'a> {
    pub(crate) fn parse(v: Value<'a>, index: u32) -> Result<Self> {
        let m = map(v, Location::Input)?;
        let f = Location::Field;
        let mut name = None;
        let mut symbol = None;
        let mut language = None;
        let mut language_version = None;
        let mut args = None;
        let mut kernarg_segment_size = None;
        let mut kernarg_segment_align = None;
        let mut group_segment_fixed_size = None;
        let mut private_segment_fixed_size = None;
        let mut uses_dynamic_stack = None;
        let mut workgroup_processor_mode = None;
        let mut wavefront_size = None;
        let mut sgpr_count = None;
        let mut vgpr_count = None;
        let mut agpr_count = None;
        let mut sgpr_spill_count = None;
        let mut vgpr_spill_count = None;
        let mut max_flat_workgroup_size = None;
        let mut reqd_workgroup_size = None;
        let mut workgroup_size_hint = None;
        let mut vec_type_hint = None;
        let mut device_enqueue_symbol = None;
        let mut kind = None;
        let mut uniform_work_group_size = None;
        let mut max_num_workgroups: Option<[u32; 3]> = None;
        let mut cluster_dims = None;
        let mut seen_max_num = [false; 3];
        for entry in m.iter() {
            let (k, v) = entry?;
            let Value::Str(key) = k else { continue };
            match key {
                ".name" => set(&mut name, string(v, f(".name"))?, ".name")?,
                ".symbol" => set(&mut symbol, string(v, f(".symbol"))?, ".symbol")?,
                ".language" => set(
                    &mut language,
                    Language::read(v, f(".language"))?,
                    ".language",
                )?,
                ".language_version" => set(
                    &mut language_version,
                    int_array::<2>(v, f(".language_version"))?,
                    ".language_version",
                )?,
                ".args" => set(&mut args, array(v, f(".args"))?, ".args")?,
                ".kernarg_segment_size" => set(
                    &mut kernarg_segment_size,
                    u32_(v, f(".kernarg_segment_size"))?,
                    ".kernarg_segment_size",
                )?,
                ".kernarg_segment_align" => set(
                    &mut kernarg_segment_align,
                    u32_(v, f(".kernarg_segment_align"))?,
                    ".kernarg_segment_align",
                )?,
                ".group_segment_fixed_size" => set(
                    &mut group_segment_fixed_size,
                    u32_(v, f(".group_segment_fixed_size"))?,
                    ".group_segment_fixed_size",
                )?,
                ".private_segment_fixed_size" => set(
                    &mut private_segment_fixed_size,
                    u32_(v, f(".private_segment_fixed_size"))?,
                    ".private_segment_fixed_size",
                )?,
                ".uses_dynamic_stack" => set(
                    &mut uses_dynamic_stack,
                    boolean(v, f(".uses_dynamic_stack"))?,
                    ".uses_dynamic_stack",
                )?,
                ".workgroup_processor_mode" => set(
                    &mut workgroup_processor_mode,
                    u32_(v, f(".workgroup_processor_mode"))?,
                    ".workgroup_processor_mode",
                )?,
                ".wavefront_size" => set(
                    &mut wavefront_size,
                    u32_(v, f(".wavefront_size"))?,
                    ".wavefront_size",
                )?,
                ".sgpr_count" => set(&mut sgpr_count, u32_(v, f(".sgpr_count"))?, ".sgpr_count")?,
                ".vgpr_count" => set(&mut vgpr_count, u32_(v, f(".vgpr_count"))?, ".vgpr_count")?,
                ".agpr_count" => set(&mut agpr_count, u32_(v, f(".agpr_count"))?, ".agpr_count")?,
                ".sgpr_spill_count" => set(
                    &mut sgpr_spill_count,
                    u32_(v, f(".sgpr_spill_count"))?,
                    ".sgpr_spill_count",
                )?,
                ".vgpr_spill_count" => set(
                    &mut vgpr_spill_count,
                    u32_(v, f(".vgpr_spill_count"))?,
                    ".vgpr_spill_count",
                )?,
                ".max_flat_workgroup_size" => set(
                    &mut max_flat_workgroup_size,
                    u32_(v, f(".max_flat_workgroup_size"))?,
                    ".max_flat_workgroup_size",
                )?,
                ".reqd_workgroup_size" => set(
                    &mut reqd_workgroup_size,
                    int_array::<3>(v, f(".reqd_workgroup_size"))?,
                    ".reqd_workgroup_size",
                )?,
                ".workgroup_size_hint" => set(
                    &mut workgroup_size_hint,
                    int_array::<3>(v, f(".workgroup_size_hint"))?,
                    ".workgroup_size_hint",
                )?,
                ".vec_type_hint" => set(
                    &mut vec_type_hint,
                    string(v, f(".vec_type_hint"))?,
                    ".vec_type_hint",
                )?,
                ".device_enqueue_symbol" => set(
                    &mut device_enqueue_symbol,
                    string(v, f(".device_enqueue_symbol"))?,
                    ".device_enqueue_symbol",
                )?,
                ".kind" => set(&mut kind, KernelKind::read(v, f(".kind"))?, ".kind")?,
                ".uniform_work_group_size" => set(
                    &mut uniform_work_group_size,
                    u32_(v, f(".uniform_work_group_size"))?,
                    ".uniform_work_group_size",
                )?,
                ".max_num_workgroups_x" | ".max_num_workgroups_y" | ".max_num_workgroups_z" => {
                    let (i, key) = match key {
                        ".max_num_workgroups_x" => (0, ".max_num_workgroups_x"),
                        ".max_num_workgroups_y" => (1, ".max_num_workgroups_y"),
                        _ => (2, ".max_num_workgroups_z"),
                    };
                    if seen_max_num[i] {
                        return Err(Error::malformed("key appears twice", f(key)));
                    }
                    seen_max_num[i] = true;
                    max_num_workgroups.get_or_insert([0; 3])[i] = u32_(v, f(key))?;
                }
                ".cluster_dims" => set(
                    &mut cluster_dims,
                    int_array::<3>(v, f(".cluster_dims"))?,
                    ".cluster_dims",
                )?,
                _ => {}
            }
        }
        let req =
            |key: &'static str| Error::missing("required key is missing", Location::Field(key));
        let k = Self {
            index,
            name: name.ok_or(req(".name"))?,
            symbol: symbol.ok_or(req(".symbol"))?,
            language,
            language_version,
            kernarg_segment_size: kernarg_segment_size.ok_or(req(".kernarg_segment_size"))?,
            kernarg_segment_align: kernarg_segment_align.ok_or(req(".kernarg_segment_align"))?,
            group_segment_fixed_size: group_segment_fixed_size
                .ok_or(req(".group_segment_fixed_size"))?,
            private_segment_fixed_size: private_segment_fixed_size
                .ok_or(req(".private_segment_fixed_size"))?,
            uses_dynamic_stack,
            workgroup_processor_mode,
            wavefront_size: wavefront_size.ok_or(req(".wavefront_size"))?,
            sgpr_count: sgpr_count.ok_or(req(".sgpr_count"))?,
            vgpr_count: vgpr_count.ok_or(req(".vgpr_count"))?,
            agpr_count,
            sgpr_spill_count,
            vgpr_spill_count,
            max_flat_workgroup_size: max_flat_workgroup_size
                .ok_or(req(".max_flat_workgroup_size"))?,
            reqd_workgroup_size,
            workgroup_size_hint,
            vec_type_hint,
            device_enqueue_symbol,
            kind,
            uniform_work_group_size,
            max_num_workgroups,
            cluster_dims,
            args,
        };
        if !k.kernarg_segment_align.is_power_of_two() {
            return Err(Error::malformed(
                "not a power of two",
                f(".kernarg_segment_align"),
            ));
        }
        if k.wavefront_size != 32 && k.wavefront_size != 64 {
            return Err(Error::unsupported(
                "wavefront size is neither 32 nor 64",
                f(".wavefront_size"),
            ));
        }
        if k.max_flat_workgroup_size == 0 {
            return Err(Error::malformed(
                "must be at least 1",
                f(".max_flat_workgroup_size"),
            ));
        }
        if let Some(r) = k.reqd_workgroup_size {
            if r != [0, 0, 0] {
                if r.contains(&0) {
                    return Err(Error::malformed(
                        "a dimension is 0",
                        f(".reqd_workgroup_size"),
                    ));
                }
                // Three u32s can need 96 bits: a product that overflows u64
                // is larger than any u32 bound, not a wrapped small number.
                let total = u64::from(r[0])
                    .checked_mul(u64::from(r[1]))
                    .and_then(|t| t.checked_mul(u64::from(r[2])));
                if total.is_none_or(|t| t > u64::from(k.max_flat_workgroup_size)) {
                    return Err(Error::inconsistent(
                        "larger than .max_flat_workgroup_size",
                        f(".reqd_workgroup_size"),
                    ));
                }
            }
        }
        Ok(k)
    }

    /// Number of entries in `.args` (0 when absent).
    pub fn arg_count(&self) -> u32 {
        self.args.map_or(0, |a| a.len())
    }

    /// The arguments, in order, with the hidden ones; each is checked to
    /// lie inside `.kernarg_segment_size`. Fused after the first error.
    pub fn args(&self) -> KernelArgs<'a> {
        KernelArgs {
            entries: Entries::new(self.args),
            kernarg_segment_size: self.kernarg_segment_size,
        }
    }
}

/// Iterator over [`Kernel::args`].
#[derive(Debug, Clone)]
pub struct KernelArgs<'a> {
    entries: Entries<'a>,
    kernarg_segment_size: u32,
}

impl<'a> Iterator for KernelArgs<'a> {
    type Item = Result<KernelArg<'a>>;
    fn next(&mut self) -> Option<Self::Item> {
        let size = self.kernarg_segment_size;
        self.entries
            .next_with("argument", |v, i| KernelArg::parse(v, i, size))
    }
}

/// One entry of `.args`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelArg<'a> {
    /// Position in `.args`.
    pub index: u32,
    /// `.name`.
    pub name: Option<&'a str>,
    /// `.type_name`.
    pub type_name: Option<&'a str>,
    /// `.size` in bytes.
    pub size: u32,
    /// `.offset` in the kernarg segment.
    pub offset: u32,
    /// `.value_kind`.
    pub value_kind: ValueKind,
    /// `.value_type` (v3/v4).
    pub value_type: Option<ValueType>,
    /// `.pointee_align` (dynamic shared pointers).
    pub pointee_align: Option<u32>,
    /// `.address_space`.
    pub address_space: Option<AddressSpace>,
    /// `.access`.
    pub access: Option<Access>,
    /// `.actual_access`.
    pub actual_access: Option<Access>,
    /// `.is_const`.
    pub is_const: Option<bool>,
    /// `.is_restrict`.
    pub is_restrict: Option<bool>,
    /// `.is_volatile`.
    pub is_volatile: Option<bool>,
    /// `.is_pipe`.
    pub is_pipe: Option<bool>,
}

impl<'a> KernelArg<'a> {
    fn parse(v: Value<'a>, index: u32, kernarg_segment_size: u32) -> Result<Self> {
        let m = map(v, Location::Input)?;
        let f = Location::Field;
        let mut name = None;
        let mut type_name = None;
        let mut size = None;
        let mut offset = None;
        let mut value_kind = None;
        let mut value_type = None;
        let mut pointee_align = None;
        let mut address_space = None;
        let mut access = None;
        let mut actual_access = None;
        let mut is_const = None;
        let mut is_restrict = None;
        let mut is_volatile = None;
        let mut is_pipe = None;
        for entry in m.iter() {
            let (k, v) = entry?;
            let Value::Str(key) = k else { continue };
            match key {
                ".name" => set(&mut name, string(v, f(".name"))?, ".name")?,
                ".type_name" => set(&mut type_name, string(v, f(".type_name"))?, ".type_name")?,
                ".size" => set(&mut size, u32_(v, f(".size"))?, ".size")?,
                ".offset" => set(&mut offset, u32_(v, f(".offset"))?, ".offset")?,
                ".value_kind" => set(
                    &mut value_kind,
                    ValueKind::read(v, f(".value_kind"))?,
                    ".value_kind",
                )?,
                ".value_type" => set(
                    &mut value_type,
                    ValueType::read(v, f(".value_type"))?,
                    ".value_type",
                )?,
                ".pointee_align" => set(
                    &mut pointee_align,
                    u32_(v, f(".pointee_align"))?,
                    ".pointee_align",
                )?,
                ".address_space" => set(
                    &mut address_space,
                    AddressSpace::read(v, f(".address_space"))?,
                    ".address_space",
                )?,
                ".access" => set(&mut access, Access::read(v, f(".access"))?, ".access")?,
                ".actual_access" => set(
                    &mut actual_access,
                    Access::read(v, f(".actual_access"))?,
                    ".actual_access",
                )?,
                ".is_const" => set(&mut is_const, boolean(v, f(".is_const"))?, ".is_const")?,
                ".is_restrict" => set(
                    &mut is_restrict,
                    boolean(v, f(".is_restrict"))?,
                    ".is_restrict",
                )?,
                ".is_volatile" => set(
                    &mut is_volatile,
                    boolean(v, f(".is_volatile"))?,
                    ".is_volatile",
                )?,
                ".is_pipe" => set(&mut is_pipe, boolean(v, f(".is_pipe"))?, ".is_pipe")?,
                _ => {}
            }
        }
        let req =
            |key: &'static str| Error::missing("required key is missing", Location::Field(key));
        let a = Self {
            index,
            name,
            type_name,
            size: size.ok_or(req(".size"))?,
            offset: offset.ok_or(req(".offset"))?,
            value_kind: value_kind.ok_or(req(".value_kind"))?,
            value_type,
            pointee_align,
            address_space,
            access,
            actual_access,
            is_const,
            is_restrict,
            is_volatile,
            is_pipe,
        };
        let end = u64::from(a.offset) + u64::from(a.size);
        if end > u64::from(kernarg_segment_size) {
            return Err(Error::inconsistent(
                "argument runs past .kernarg_segment_size",
                f(".offset"),
            ));
        }
        if let Some(al) = a.pointee_align {
            if !al.is_power_of_two() {
                return Err(Error::malformed("not a power of two", f(".pointee_align")));
            }
        }
        Ok(a)
    }
}
