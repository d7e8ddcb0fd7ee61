//! Queue scratch memory, sized and cached as ROCr does it
//! (`GpuAgent::AcquireQueueMainScratch` / `ReleaseQueueMainScratch` over a
//! `ScratchCache`, `AqlQueue::HandleInsufficientScratch`).
//!
//! - **Sizing** ([`ScratchRequest`]): bytes per work-item rounded up to the
//!   wave's scratch granule (1024 bytes a wave before GFX11, 256 from GFX11,
//!   divided by the lanes of a wave), times the lanes, times the scratch
//!   slots: every slot of the device (`max_slots_scratch_cu` per CU, the CUs
//!   rounded up to whole shader engines) for a *small* allocation, only the
//!   slots the stalled dispatch can fill, spread over every engine
//!   ([`dispatch_waves`]), for a *large* one.
//! - **Small or large**: large when the device-wide size exceeds the
//!   single-allocation limit (`HSA_SCRATCH_SINGLE_LIMIT`, 140 MiB by
//!   default) or would take the GPU's bound scratch past an eighth of its
//!   scratch pool, unless `HSA_NO_SCRATCH_RECLAIM=1` ([`ScratchConfig`],
//!   ROCr's `GpuAgent::AcquireQueueMainScratch` and `flag.h`); a large
//!   allocation is for that dispatch only (the queue's `USE_SCRATCH_ONCE`
//!   property; the packet processor hands it back with code 512).
//! - **The cache** ([`ScratchCache`]): released scratch stays allocated and
//!   free; a small request takes a free small block of exactly its size, a
//!   large one any free block big enough; else a new allocation, and when
//!   that fails the free blocks are trimmed (freed) and it is tried again.
//!   Whatever is left is freed when the runtime closes.

use std::sync::Mutex;

use crate::memory::PoolKind;
use crate::status::{Error, Result, Status};
use crate::system::Core;

/// ROCr's `MAX_WAVE_SCRATCH`: the most scratch one wave can address
/// (`COMPUTE_TMPRING_SIZE.WAVESIZE`, 13 bits of KiB).
pub const MAX_WAVE_SCRATCH: u64 = 8191 * 1024;

/// The largest queue-creation private segment hint ROCr accepts
/// (`GpuAgent::QueueCreate`), bytes per work-item.
pub const MAX_PRIVATE_SEGMENT_HINT: u32 = 262_128;

/// ROCr's default `HSA_SCRATCH_SINGLE_LIMIT`: above it a scratch request is
/// large (use-once).
pub const SINGLE_LIMIT: u64 = 146_800_640;

/// Whether large (use-once) scratch is used at all (ROCr uses it from
/// GFX8 on); [`ScratchConfig::reclaim`] turns it off at run time.
pub const USE_ONCE: bool = true;

/// ROCr's `DEFAULT_SCRATCH_SINGLE_LIMIT_ASYNC_PER_XCC`: where scratch is
/// reclaimed asynchronously, the default use-once threshold per XCC.
pub const SINGLE_LIMIT_ASYNC_PER_XCC: u64 = 3 << 30;

/// ROCr's `MAX_SCRATCH_APERTURE_PER_XCC`: the scratch one XCC can address
/// (`GpuAgent::MaxScratchDevice` is this times the XCCs).
pub const MAX_SCRATCH_APERTURE_PER_XCC: u64 = 1 << 32;

/// The scratch settings of ROCr's environment (`flag.h`), read at
/// `hsa_init`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScratchConfig {
    /// `HSA_SCRATCH_SINGLE_LIMIT`: bytes above which a scratch request is
    /// large (use-once); [`SINGLE_LIMIT`] when unset.
    pub single_limit: u64,
    /// Not `HSA_NO_SCRATCH_RECLAIM=1`: large scratch may be used (with it
    /// every block fills every slot of the device and is kept).
    pub reclaim: bool,
    /// Not `HSA_ENABLE_SCRATCH_ASYNC_RECLAIM=0`: GPUs whose firmware can
    /// reclaim scratch asynchronously do ([`async_reclaim_firmware`]).
    pub async_reclaim: bool,
    /// `HSA_SCRATCH_SINGLE_LIMIT_ASYNC` (unset or 0: none, and the
    /// threshold is [`SINGLE_LIMIT_ASYNC_PER_XCC`] times the XCCs).
    pub single_limit_async: Option<u64>,
    /// `HSA_SCRATCH_MEM`: scratch bytes per work-item the GPU's scratch
    /// pool is sized for ([`DEFAULT_SCRATCH_BYTES_PER_THREAD`] when unset
    /// or 0).
    pub pool_bytes_per_thread: u64,
    /// `HSA_MAX_QUEUES` as ROCr's `GpuAgent` takes it for the pool: 0 is
    /// 128, at most 128.
    pub pool_queues: u64,
    /// Not `HSA_NO_SCRATCH_THREAD_LIMITER=1`: when scratch for a dispatch
    /// cannot be had, it gets less, and fewer of its waves run at once.
    pub thread_limiter: bool,
    /// Not `HSA_ENABLE_QUEUE_FAULT_MESSAGE=0`: the wave limiter says on
    /// stderr what it did, in ROCr's words.
    pub fault_messages: bool,
}

/// ROCr's `DEFAULT_SCRATCH_BYTES_PER_THREAD`: what the scratch pool is
/// sized for without `HSA_SCRATCH_MEM`.
pub const DEFAULT_SCRATCH_BYTES_PER_THREAD: u64 = 2048;

impl Default for ScratchConfig {
    fn default() -> Self {
        Self {
            single_limit: SINGLE_LIMIT,
            reclaim: true,
            async_reclaim: true,
            single_limit_async: None,
            pool_bytes_per_thread: DEFAULT_SCRATCH_BYTES_PER_THREAD,
            pool_queues: 128,
            thread_limiter: true,
            fault_messages: true,
        }
    }
}

/// Whether a GPU's CP firmware supports asynchronous scratch reclaim, as
/// ROCr's `GpuAgent::AsyncScratchReclaimEnabled` decides it: gfx94x with
/// MEC firmware 177 or later, gfx95x with 24 or later (the firmware sets
/// `AMD_QUEUE_CAPS_CP_ASYNC_RECLAIM` too, but only once a queue is
/// connected, so ROCr goes by the version).
pub fn async_reclaim_firmware(node: &kfd::topology::Node) -> bool {
    let p = &node.properties;
    let v = p.gfx_target_version.unwrap_or(0);
    let (major, minor) = (v / 10000, v / 100 % 100);
    // EngineId.ui32.uCode: the low 10 bits of fw_version.
    let ucode = p.fw_version.unwrap_or(0) & 0x3ff;
    major == 9 && ((minor == 4 && ucode >= 177) || (minor == 5 && ucode >= 24))
}

impl ScratchConfig {
    /// The settings of `HSA_SCRATCH_SINGLE_LIMIT` (unset: ROCr's default
    /// [`SINGLE_LIMIT`]) and `HSA_NO_SCRATCH_RECLAIM` (1: no use-once
    /// scratch, every grant kept), as [`crate::flags`] read them (ROCr reads
    /// the limit with `strtoul` and the switch as `== "1"`; a malformed
    /// value is an error there, naming the variable).
    pub fn from_flags(flags: &crate::flags::Flags) -> Self {
        Self {
            single_limit: flags.scratch_single_limit.unwrap_or(SINGLE_LIMIT),
            reclaim: !flags.no_scratch_reclaim,
            async_reclaim: flags.enable_scratch_async_reclaim,
            single_limit_async: flags.scratch_single_limit_async.filter(|&v| v != 0),
            pool_bytes_per_thread: match flags.scratch_mem {
                0 => DEFAULT_SCRATCH_BYTES_PER_THREAD,
                v => v,
            },
            pool_queues: match flags.max_queues {
                0 => 128,
                v => u64::from(v.min(128)),
            },
            thread_limiter: !flags.no_scratch_thread_limiter,
            fault_messages: flags.enable_queue_fault_message,
        }
    }
}

/// ROCr's scratch pool (`GpuAgent::InitScratchPool`): `32 waves * 64
/// lanes * CUs * bytes per work-item`, 64 KiB aligned, per queue, for
/// `queues` queues, at most 4 GiB per XCC (and that when it comes to 0).
/// All of a GPU's queue scratch, in use or cached, lies in it.
pub fn scratch_pool_bytes(cus: u64, xcc: u64, per_thread: u64, queues: u64) -> u64 {
    let per_queue = (32 * 64 * cus)
        .saturating_mul(per_thread)
        .next_multiple_of(65536);
    let max = MAX_SCRATCH_APERTURE_PER_XCC * xcc;
    match per_queue.saturating_mul(queues) {
        0 => max,
        v => v.min(max),
    }
}

/// What a GPU's scratch is made of: the numbers of its topology node the
/// sizing needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScratchGeometry {
    /// Compute units (`max_cu_id + 1`).
    pub cus: u32,
    /// Shader engines (`array_count / simd_arrays_per_engine`).
    pub engines: u32,
    /// `max_slots_scratch_cu`: wave scratch slots per CU.
    pub slots_per_cu: u32,
    /// XCCs (`num_xcc`, 1 if absent).
    pub xcc: u32,
    /// Wavefront size of the GPU (`wave_front_size`).
    pub wavefront_size: u32,
    /// Bytes of a wave's scratch granule (`mem_alignment_size`): 1024
    /// before GFX11, 256 from GFX11.
    pub granule: u32,
    /// The GFX major version (`gfx_target_version / 10000`).
    pub gfx_major: u32,
}

impl ScratchGeometry {
    /// The geometry of a GPU node.
    pub fn of(node: &kfd::topology::Node) -> Self {
        let p = &node.properties;
        let cus = (p.simd_count / p.simd_per_cu.max(1)).max(1);
        let engines = (p.array_count / p.simd_arrays_per_engine.max(1)).max(1);
        let major = p.gfx_target_version.unwrap_or(0) / 10000;
        Self {
            cus,
            engines,
            slots_per_cu: p.max_slots_scratch_cu.max(1),
            xcc: p.num_xcc.unwrap_or(1).max(1),
            wavefront_size: if p.wave_front_size == 0 {
                64
            } else {
                p.wave_front_size
            },
            granule: if major >= 11 { 256 } else { 1024 },
            gfx_major: major,
        }
    }

    /// Every scratch slot of the device (`calc_device_slots`): the CUs
    /// rounded up to whole shader engines, times the slots per CU.
    pub fn device_slots(&self) -> u64 {
        u64::from(self.cus.next_multiple_of(self.engines)) * u64::from(self.slots_per_cu)
    }
}

/// One scratch request: its per-work-item size and the slots it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScratchRequest {
    /// Bytes per work-item, rounded up to the granule's share of a lane.
    pub size_per_thread: u64,
    /// Lanes of the waves that use it (64, or 32 for a wave32 request).
    pub lanes: u32,
    /// Bytes to fill every slot of the device.
    pub device_size: u64,
    /// Bytes to fill the slots this dispatch can use.
    pub dispatch_size: u64,
    /// Slots this dispatch can use.
    pub dispatch_slots: u64,
    /// Waves of one of the dispatch's work-groups (0 for a request not
    /// made for a dispatch, which the wave limiter leaves alone).
    pub waves_per_group: u64,
}

/// The scratch of one wave of `g` at `size_per_thread` bytes a work-item,
/// in whole KiB (ROCr's `size_per_wave`: `COMPUTE_TMPRING_SIZE.WAVESIZE`
/// counts KiB).
fn wave_bytes(g: &ScratchGeometry, size_per_thread: u64) -> u64 {
    (size_per_thread * u64::from(g.wavefront_size)).next_multiple_of(1024)
}

impl ScratchRequest {
    /// The request for `private_segment_size` bytes per work-item on waves
    /// of `lanes` lanes, for a dispatch of `dispatch_waves` waves (`None`:
    /// the whole device). `OUT_OF_RESOURCES` when a wave would need more
    /// scratch than it can address.
    pub fn new(
        g: &ScratchGeometry,
        private_segment_size: u32,
        lanes: u32,
        dispatch_waves: Option<u64>,
    ) -> Result<Self> {
        let lanes = lanes.max(1);
        let size_per_thread =
            u64::from(private_segment_size).next_multiple_of(u64::from((g.granule / lanes).max(1)));
        let per_wave = wave_bytes(g, size_per_thread);
        if per_wave > MAX_WAVE_SCRATCH {
            return Err(Error::new(
                Status::OutOfResources,
                format!(
                    "{private_segment_size} bytes of scratch per work-item: a wave would need {per_wave} bytes, more than the {MAX_WAVE_SCRATCH} it can address"
                ),
            ));
        }
        let device_slots = g.device_slots();
        let dispatch_slots = dispatch_waves.map_or(device_slots, |w| w.min(device_slots));
        let lane_bytes = size_per_thread * u64::from(lanes);
        Ok(Self {
            size_per_thread,
            lanes,
            device_size: lane_bytes * device_slots,
            dispatch_size: lane_bytes * dispatch_slots,
            dispatch_slots,
            waves_per_group: 0,
        })
    }

    /// The request of a dispatch whose work-groups have `items` work-items
    /// (ROCr's `calc_dispatch_waves_per_group`).
    pub fn for_groups_of(mut self, items: u64) -> Self {
        self.waves_per_group = items.div_ceil(u64::from(self.lanes.max(1)));
        self
    }
}

/// The waves a kernel dispatch packet needs, as ROCr sizes a use-once
/// allocation (`AqlQueue::HandleInsufficientScratch`:
/// `calc_dispatch_groups` times `calc_dispatch_waves_per_group`): the
/// work-groups spread over every shader engine at the most groups any
/// engine gets (so each engine, and each XCC of a multi-XCC GPU, has slots),
/// from GFX10 at least 256 lanes or 16 groups an engine, times the waves of
/// a work-group. Not capped at the device's slots (the caller caps it).
pub fn dispatch_waves(g: &ScratchGeometry, grid: [u32; 3], workgroup: [u16; 3], lanes: u32) -> u64 {
    let wg = workgroup.map(|w| u64::from(w.max(1)));
    let groups: u64 = (0..3).map(|d| u64::from(grid[d]).div_ceil(wg[d])).product();
    let lanes_per_group = wg[0] * wg[1] * wg[2];
    let cus = u64::from(g.cus.max(1));
    let engines = u64::from(g.engines.max(1));
    let asymmetry_per_round = cus - cus / engines * engines;
    let rounds = groups / cus;
    let symmetric_groups = groups - rounds * asymmetry_per_round;
    let mut per_engine =
        symmetric_groups.div_ceil(engines) + if asymmetry_per_round > 0 { rounds } else { 0 };
    if g.gfx_major >= 10 && per_engine < 16 && lanes_per_group * per_engine < 256 {
        per_engine = 256u64.div_ceil(lanes_per_group).min(16);
    }
    (per_engine * engines).saturating_mul(lanes_per_group.div_ceil(u64::from(lanes.max(1))))
}

/// The bytes a request asks for: the dispatch's slots when large, every
/// slot when small, whole pages (ROCr's `main_size` when the allocation is
/// tried).
fn large_bytes(req: &ScratchRequest, large: bool) -> u64 {
    if large {
        req.dispatch_size
    } else {
        req.device_size
    }
    .next_multiple_of(4096)
    .max(4096)
}

/// The sizes ROCr's occupancy reduction tries, largest first
/// (`GpuAgent::AcquireQueueMainScratch`): the waves `bytes` hold spread
/// over the CUs, rounded up to whole work-groups a CU, then fewer
/// waves a CU a work-group at a time (a shader engine of each XCC at a
/// time once below one work-group, when a work-group's waves are a
/// multiple of those), each size whole waves of every CU.
fn limited_sizes(g: &ScratchGeometry, req: &ScratchRequest, bytes: u64) -> Vec<u64> {
    let per_wave = wave_bytes(g, req.size_per_thread);
    let cus = u64::from(g.cus.max(1));
    let se_per_xcc = u64::from((g.engines / g.xcc.max(1)).max(1));
    let wpg = req.waves_per_group.max(1);
    let mut waves_per_cu = (bytes / per_wave / cus).next_multiple_of(wpg);
    let mut sizes = Vec::new();
    while waves_per_cu != 0 {
        sizes.push(waves_per_cu * cus * per_wave);
        let step = if waves_per_cu <= wpg && se_per_xcc < wpg && wpg % se_per_xcc == 0 {
            se_per_xcc
        } else {
            wpg
        };
        waves_per_cu = waves_per_cu.saturating_sub(step);
    }
    sizes
}

/// Frees the blocks of `gpu_id` no queue holds (ROCr's
/// `ScratchCache::trim(false)`); returns the bytes freed.
fn free_unused(blocks: &mut Vec<Block>, core: &Core, gpu_id: u32) -> u64 {
    let mut freed = 0;
    blocks.retain(|b| {
        let free = b.gpu_id == gpu_id && !b.in_use;
        if free {
            freed += b.bytes;
            let _ = core.free(b.va);
        }
        !free
    });
    freed
}

/// A block of scratch memory the cache holds.
#[derive(Debug, Clone, Copy)]
struct Block {
    gpu_id: u32,
    va: u64,
    bytes: u64,
    large: bool,
    in_use: bool,
}

/// A scratch allocation handed to a queue.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScratchBlock {
    /// Its address.
    pub va: u64,
    /// Its size (whole pages).
    pub bytes: u64,
    /// A large (use-once) block.
    pub large: bool,
}

/// Every GPU's scratch blocks, in use or free (ROCr's `ScratchCache`, one
/// per GPU agent).
#[derive(Default)]
pub(crate) struct ScratchCache {
    blocks: Mutex<Vec<Block>>,
    config: ScratchConfig,
    /// The GPUs that reclaim scratch asynchronously, each with its use-once
    /// threshold (ROCr's `scratch_limit_async_threshold_`).
    async_limits: Mutex<Vec<(u32, u64)>>,
}

impl ScratchCache {
    /// An empty cache with `config`'s settings.
    pub(crate) fn new(config: ScratchConfig) -> Self {
        Self {
            blocks: Mutex::default(),
            config,
            async_limits: Mutex::default(),
        }
    }

    /// ROCr's `GpuAgent::InitAsyncScratchThresholds` for a GPU node: where
    /// asynchronous reclaim is on (the flag, and the firmware), the
    /// threshold starts at `HSA_SCRATCH_SINGLE_LIMIT_ASYNC` or 3 GiB per
    /// XCC.
    pub(crate) fn add_gpu(&self, gpu_id: u32, node: &kfd::topology::Node) {
        if !(self.config.async_reclaim && async_reclaim_firmware(node)) {
            return;
        }
        let xcc = u64::from(node.properties.num_xcc.unwrap_or(1).max(1));
        let limit = self
            .config
            .single_limit_async
            .unwrap_or(SINGLE_LIMIT_ASYNC_PER_XCC * xcc);
        self.async_limits
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((gpu_id, limit));
    }

    /// The use-once threshold of a GPU that reclaims scratch
    /// asynchronously (`None`: it does not).
    pub(crate) fn async_limit(&self, gpu_id: u32) -> Option<u64> {
        self.async_limits
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|(g, _)| *g == gpu_id)
            .map(|&(_, l)| l)
    }

    /// Sets the threshold of an asynchronously reclaiming GPU; false if it
    /// is not one.
    fn set_async_limit(&self, gpu_id: u32, limit: u64) -> bool {
        let mut l = self.async_limits.lock().unwrap_or_else(|p| p.into_inner());
        match l.iter_mut().find(|(g, _)| *g == gpu_id) {
            Some(e) => {
                e.1 = limit;
                true
            }
            None => false,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Block>> {
        self.blocks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Scratch for `req` on `gpu_id`: small (every slot) or large (the
    /// dispatch's slots), from the cache or newly allocated.
    pub(crate) fn acquire(
        &self,
        core: &Core,
        gpu_id: u32,
        g: &ScratchGeometry,
        req: &ScratchRequest,
    ) -> Result<ScratchBlock> {
        let mut blocks = self.lock();
        let bound: u64 = blocks
            .iter()
            .filter(|b| b.gpu_id == gpu_id && b.in_use)
            .map(|b| b.bytes)
            .sum();
        let pool = scratch_pool_bytes(
            u64::from(g.cus),
            u64::from(g.xcc),
            self.config.pool_bytes_per_thread,
            self.config.pool_queues,
        );
        let small_limit = pool / 8;
        // Where scratch is reclaimed asynchronously, bound scratch can be
        // taken back at any time: only the threshold makes it use-once.
        let large = USE_ONCE
            && self.config.reclaim
            && match self.async_limit(gpu_id) {
                Some(limit) => req.device_size > limit,
                None => {
                    req.device_size > self.config.single_limit
                        || bound.saturating_add(req.device_size) > small_limit
                }
            };
        let bytes = large_bytes(req, large);
        let cached = blocks.iter_mut().find(|b| {
            b.gpu_id == gpu_id
                && !b.in_use
                && if large {
                    b.bytes >= bytes
                } else {
                    !b.large && b.bytes == bytes
                }
        });
        if let Some(b) = cached {
            b.in_use = true;
            return Ok(ScratchBlock {
                va: b.va,
                bytes: b.bytes,
                large,
            });
        }
        // A new block, within the GPU's scratch pool; when that or the
        // allocation fails, ROCr trims the unused blocks and tries again.
        let fits = |blocks: &[Block], bytes: u64| {
            let held: u64 = blocks
                .iter()
                .filter(|b| b.gpu_id == gpu_id)
                .map(|b| b.bytes)
                .sum();
            held.saturating_add(bytes) <= pool
        };
        let new_block = |blocks: &[Block], bytes: u64| {
            if fits(blocks, bytes) {
                core.allocate_on(gpu_id, PoolKind::Vram, bytes)
            } else {
                Err(Error::new(
                    Status::OutOfResources,
                    format!("the GPU's {pool}-byte scratch pool is full"),
                ))
            }
        };
        let first = match new_block(&blocks, bytes) {
            Ok(va) => Ok(va),
            Err(_) => {
                free_unused(&mut blocks, core, gpu_id);
                new_block(&blocks, bytes)
            }
        };
        let (va, bytes, large) = match first {
            Ok(va) => (va, bytes, large),
            Err(e) => {
                // ROCr's occupancy reduction: as much scratch as can be had
                // for fewer waves a CU, use-once; the packet processor keeps
                // the dispatch within the waves it holds. Its messages (on
                // stderr unless HSA_ENABLE_QUEUE_FAULT_MESSAGE=0) are ROCr's.
                let limiting = USE_ONCE
                    && self.config.reclaim
                    && self.config.thread_limiter
                    && req.waves_per_group > 0;
                let say = limiting && self.config.fault_messages;
                if say {
                    eprintln!(
                        "Failed to map requested scratch ({bytes}) - reducing queue occupancy."
                    );
                }
                let limited = limiting
                    .then(|| limited_sizes(g, req, bytes))
                    .into_iter()
                    .flatten()
                    .find_map(|size| new_block(&blocks, size).ok().map(|va| (va, size)));
                if say {
                    match limited {
                        Some((_, size)) => {
                            let waves = (size / wave_bytes(g, req.size_per_thread)) as f32;
                            eprintln!(
                                "  {size} scratch mapped, {:.2}% occupancy.",
                                waves / req.dispatch_slots.max(1) as f32 * 100.0
                            );
                        }
                        None => eprintln!("  Could not allocate scratch for one wave per CU."),
                    }
                }
                match limited {
                    Some((va, size)) => (va, size, true),
                    None => {
                        return Err(Error::new(
                            Status::OutOfResources,
                            format!("{bytes} bytes of scratch: {e}"),
                        ));
                    }
                }
            }
        };
        blocks.push(Block {
            gpu_id,
            va,
            bytes,
            large,
            in_use: true,
        });
        Ok(ScratchBlock { va, bytes, large })
    }

    /// Gives `block` back: it stays allocated, free for the next request.
    pub(crate) fn release(&self, block: &ScratchBlock) {
        if block.va == 0 {
            return;
        }
        if let Some(b) = self.lock().iter_mut().find(|b| b.va == block.va) {
            b.in_use = false;
        }
    }

    /// Frees every free block of `gpu_id` (`ScratchCache::trim(false)`);
    /// returns how many bytes went back.
    pub(crate) fn trim(&self, core: &Core, gpu_id: u32) -> u64 {
        free_unused(&mut self.lock(), core, gpu_id)
    }

    /// `(bytes in use, bytes cached free)` on `gpu_id`.
    pub(crate) fn usage(&self, gpu_id: u32) -> (u64, u64) {
        self.lock()
            .iter()
            .filter(|b| b.gpu_id == gpu_id)
            .fold((0, 0), |(u, f), b| {
                if b.in_use {
                    (u + b.bytes, f)
                } else {
                    (u, f + b.bytes)
                }
            })
    }
}

impl crate::system::Runtime {
    /// `(bytes in use, bytes cached free)` of `agent`'s scratch blocks.
    pub fn scratch_usage(&self, agent: crate::agent::Agent) -> Result<(u64, u64)> {
        let gpu_id = self.core.agent(agent)?.gpu_id;
        Ok(self.core.scratch.usage(gpu_id))
    }

    /// ROCr's `GpuAgent::Trim` of its scratch: where the GPU reclaims
    /// scratch asynchronously, every queue's scratch is taken back first
    /// (`AsyncReclaimScratchQueues`; a dispatch running on it finishes
    /// first); then the cached free blocks are freed. Returns the bytes
    /// freed. Elsewhere the blocks queues hold stay.
    pub fn trim_scratch(&self, agent: crate::agent::Agent) -> Result<u64> {
        let gpu_id = self.core.agent(agent)?.gpu_id;
        self.core.trim_scratch(gpu_id)
    }

    /// `hsa_amd_agent_set_async_scratch_limit` (ROCr 6.1): the use-once
    /// threshold of a GPU that reclaims scratch asynchronously; queues
    /// holding more scratch than the new threshold give it back
    /// (`AqlQueue::CheckScratchLimits`). `INVALID_AGENT` for a CPU agent,
    /// `INVALID_ARGUMENT` where there is no asynchronous reclaim
    /// (`HSA_ENABLE_SCRATCH_ASYNC_RECLAIM=0`, or the GPU's firmware) or
    /// above what the GPU's XCCs can address (4 GiB each).
    pub fn set_async_scratch_limit(&self, agent: crate::agent::Agent, limit: u64) -> Result<()> {
        crate::trace::api_call!(
            "hsa_amd_agent_set_async_scratch_limit",
            agent = agent.handle(),
            limit = limit,
            {
                let rec = self.core.agent(agent)?;
                if !rec.is_gpu() {
                    return Err(Error::new(
                        Status::InvalidAgent,
                        format!("agent {} is not a GPU", agent.index()),
                    ));
                }
                let gpu_id = rec.gpu_id;
                if self.core.scratch.async_limit(gpu_id).is_none() {
                    return Err(Error::invalid_argument(format!(
                        "agent {} does not reclaim scratch asynchronously (HSA_ENABLE_SCRATCH_ASYNC_RECLAIM=0, or not gfx94x/gfx95x firmware that can)",
                        agent.index()
                    )));
                }
                let xcc = u64::from(ScratchGeometry::of(&rec.node).xcc);
                let max = MAX_SCRATCH_APERTURE_PER_XCC * xcc;
                if limit > max {
                    return Err(Error::invalid_argument(format!(
                        "scratch limit {limit} bytes exceeds the {max} the GPU's {xcc} XCC(s) can address"
                    )));
                }
                self.core.scratch.set_async_limit(gpu_id, limit);
                for q in self.core.queues_of_gpu(gpu_id) {
                    if q.scratch_bytes() > limit {
                        q.reclaim_scratch_async()?;
                    }
                }
                Ok(())
            }
        )
    }
}

impl Core {
    /// [`crate::system::Runtime::trim_scratch`] for GPU `gpu_id`.
    pub(crate) fn trim_scratch(&self, gpu_id: u32) -> Result<u64> {
        let mut first = Ok(());
        for q in self.queues_of_gpu(gpu_id) {
            if let Err(e) = q.reclaim_scratch_async() {
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        let freed = self.scratch.trim(self, gpu_id);
        first.map(|()| freed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mi250x_gcd() -> ScratchGeometry {
        ScratchGeometry {
            cus: 110,
            engines: 8,
            slots_per_cu: 32,
            xcc: 1,
            wavefront_size: 64,
            granule: 1024,
            gfx_major: 9,
        }
    }

    #[test]
    fn sizes_as_rocr() {
        let g = mi250x_gcd();
        // 110 CUs rounded up to 8 engines: 112 * 32 slots.
        assert_eq!(g.device_slots(), 3584);
        // 256 bytes per work-item: already a multiple of 1024 / 64.
        let r = ScratchRequest::new(&g, 256, 64, Some(4)).unwrap();
        assert_eq!(r.size_per_thread, 256);
        assert_eq!(r.device_size, 256 * 64 * 3584);
        assert_eq!(r.dispatch_size, 256 * 64 * 4);
        // 20 bytes round up to 32 (wave64), 40 on wave32 (1024 / 32 = 32).
        assert_eq!(
            ScratchRequest::new(&g, 20, 64, None)
                .unwrap()
                .size_per_thread,
            32
        );
        assert_eq!(
            ScratchRequest::new(&g, 40, 32, None)
                .unwrap()
                .size_per_thread,
            64
        );
        // A wave of 64 lanes can address 8191 KiB: 131056 bytes a lane.
        assert!(ScratchRequest::new(&g, 131_056, 64, None).is_ok());
        assert_eq!(
            ScratchRequest::new(&g, 131_072, 64, None)
                .unwrap_err()
                .status,
            Status::OutOfResources
        );
        // ROCr's calc_dispatch_groups: the groups spread over the 8
        // engines at the most any engine gets. 16 groups: 2 an engine.
        assert_eq!(dispatch_waves(&g, [1000, 1, 1], [64, 1, 1], 64), 16);
        // 4 groups of one wave, 1 an engine: 8.
        assert_eq!(dispatch_waves(&g, [64, 4, 1], [16, 4, 1], 64), 8);
        // 1 group of 3 wave32 waves: 8 groups.
        assert_eq!(dispatch_waves(&g, [64, 1, 1], [96, 1, 1], 32), 24);
        // 300 groups on 110 CUs (104 symmetric, 6 more a round): 2 rounds,
        // 288 symmetric groups, 36 + 2 an engine.
        assert_eq!(dispatch_waves(&g, [300 * 64, 1, 1], [64, 1, 1], 64), 38 * 8);
        // GFX10 and later: at least 256 lanes (here 4 groups of 64) an engine.
        let g10 = ScratchGeometry { gfx_major: 11, ..g };
        assert_eq!(dispatch_waves(&g10, [64, 1, 1], [64, 1, 1], 64), 4 * 8);
    }

    #[test]
    fn config_from_rocr_variables() {
        let flags = |pairs: &[(&str, &str)]| {
            crate::flags::Flags::from_lookup(|k| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            })
            .unwrap()
        };
        assert_eq!(
            ScratchConfig::from_flags(&flags(&[])),
            ScratchConfig::default()
        );
        assert_eq!(ScratchConfig::default().single_limit, 146_800_640);
        let c = ScratchConfig::from_flags(&flags(&[
            ("HSA_SCRATCH_SINGLE_LIMIT", "4096"),
            ("HSA_NO_SCRATCH_RECLAIM", "1"),
        ]));
        assert_eq!((c.single_limit, c.reclaim), (4096, false));
        assert!(ScratchConfig::from_flags(&flags(&[("HSA_NO_SCRATCH_RECLAIM", "0")])).reclaim);
        for bad in ["", "12k", "-1", "0x100", "99999999999999999999999"] {
            let e = crate::flags::Flags::from_lookup(|k| {
                (k == "HSA_SCRATCH_SINGLE_LIMIT").then(|| bad.to_string())
            })
            .unwrap_err();
            assert!(e.to_string().contains("HSA_SCRATCH_SINGLE_LIMIT"), "{e}");
        }
        let e = crate::flags::Flags::from_lookup(|k| {
            (k == "HSA_NO_SCRATCH_RECLAIM").then(|| "yes".to_string())
        })
        .unwrap_err();
        assert!(e.to_string().contains("HSA_NO_SCRATCH_RECLAIM"), "{e}");
    }
}
