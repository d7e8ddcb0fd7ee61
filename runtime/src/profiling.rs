//! Profiling (`hsa_ext_amd.h`, `hsa_amd_profiling_*`): the start and end
//! of a kernel dispatch or an async copy, as the GPU wrote them into the
//! completion signal, translated into the HSA system clock.
//!
//! - Dispatches: [`Runtime::set_profiler_enabled`] sets
//!   `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING` in the queue's `amd_queue_t`
//!   (ROCr's `AqlQueue::SetProfiling`); the packet processor then writes
//!   `start_ts`/`end_ts` (GPU clock ticks) into each dispatch's completion
//!   signal, and [`Runtime::dispatch_time`] reads them.
//! - Async copies: [`Runtime::set_async_copy_profiling`] (ROCr's
//!   `hsa_amd_profiling_async_copy_enable`, every GPU's blits) brackets each
//!   SDMA copy with `TIMESTAMP GET_GLOBAL` packets into the completion
//!   signal's `start_ts`/`end_ts`, and runs blit-kernel copies on the
//!   internal queue with the profiling bit set; [`Runtime::async_copy_time`]
//!   reads them, through the agent that did the copy (ROCr's
//!   `Signal::async_copy_agent`).
//! - Translation (ROCr's `GpuAgent::TranslateTime`): linear between two
//!   `GET_CLOCK_COUNTERS` samples of the GPU, `t0` taken when the runtime
//!   opened and `t1` taken again whenever a tick lies past it (the end is
//!   translated first, so a fresh `t1` covers both), in exact integer
//!   arithmetic (`signal_core::ClockSync`). KFD's `system_clock_counter` is
//!   `CLOCK_BOOTTIME` in nanoseconds, the HSA system clock of this runtime
//!   (`std_shim::system_timestamp`), so the result is in
//!   `HSA_SYSTEM_INFO_TIMESTAMP` ticks.
//!
//! ROCr returns success with whatever the translation of missing (zero)
//! timestamps gives and only logs "time stamps may be invalid"; this
//! runtime reports them: a signal whose timestamps were not written (no
//! profiling, or not completed yet) is `HSA_STATUS_ERROR` with a message
//! saying so.

#![allow(unsafe_code)]

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use signal_core::raw::AmdSignal;
use signal_core::{ClockCounters, ClockSync, ProfilingTime, TimestampError};

use crate::agent::Agent;
use crate::driver::Driver;
use crate::queue::Queue;
use crate::signal::Signal;
use crate::status::{Error, Result, Status};
use crate::system::Runtime;

/// `offsetof(amd_queue_t, queue_properties)` (`amd_hsa_queue.h`).
const QUEUE_PROPERTIES: u64 = 180;
/// `AMD_QUEUE_PROPERTIES_ENABLE_PROFILING`.
const ENABLE_PROFILING: u32 = 1 << 3;

/// One GPU's clock samples.
#[derive(Debug, Clone, Copy)]
struct Clocks {
    gpu_id: u32,
    t0: ClockCounters,
    t1: ClockCounters,
}

/// The profiling state of a runtime.
#[derive(Debug, Default)]
pub(crate) struct Profiling {
    clocks: Mutex<Vec<Clocks>>,
    /// `hsa_amd_profiling_async_copy_enable`.
    async_copy: AtomicBool,
    /// The agent that did the last async copy completing each signal
    /// (by handle).
    copy_agents: Mutex<HashMap<u64, Agent>>,
}

fn sample(driver: &dyn Driver, gpu_id: u32) -> Result<ClockCounters> {
    let c = driver
        .clock_counters(gpu_id)
        .map_err(|e| Error::driver("GET_CLOCK_COUNTERS", e))?;
    Ok(ClockCounters {
        gpu: c.gpu_clock_counter,
        system: c.system_clock_counter,
    })
}

fn timestamp_error(e: TimestampError) -> Error {
    Error::new(Status::Error, e.to_string())
}

impl Profiling {
    /// Takes `t0` of every GPU (at init, as ROCr's agents do).
    pub(crate) fn open(driver: &dyn Driver, gpu_ids: &[u32]) -> Result<Self> {
        let clocks = gpu_ids
            .iter()
            .map(|&gpu_id| {
                let t0 = sample(driver, gpu_id)?;
                Ok(Clocks { gpu_id, t0, t1: t0 })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self {
            clocks: Mutex::new(clocks),
            ..Self::default()
        })
    }

    /// The translation of GPU `gpu_id` good for ticks up to `tick`.
    fn sync(&self, driver: &dyn Driver, gpu_id: u32, tick: u64) -> Result<ClockSync> {
        let mut all = self.clocks.lock().unwrap_or_else(|p| p.into_inner());
        let c = all
            .iter_mut()
            .find(|c| c.gpu_id == gpu_id)
            .ok_or_else(|| Error::new(Status::InvalidAgent, format!("no GPU {gpu_id}")))?;
        if c.t1.gpu < tick || c.t1.gpu == c.t0.gpu {
            c.t1 = sample(driver, gpu_id)?;
        }
        ClockSync::new(c.t0, c.t1).map_err(timestamp_error)
    }

    pub(crate) fn async_copy_enabled(&self) -> bool {
        self.async_copy.load(Ordering::Acquire)
    }

    /// Records that `agent` copies for the signal `handle`.
    pub(crate) fn copied_by(&self, handle: u64, agent: Agent) {
        self.copy_agents
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(handle, agent);
    }
}

/// The `amd_signal_t` of a live signal.
fn amd_signal(s: &Signal) -> &AmdSignal {
    // SAFETY: a live signal's handle is the address of its `amd_signal_t`
    // in runtime memory that outlives `s` (freed only when it is destroyed,
    // which takes the signal by value).
    unsafe { &*(s.handle() as *const AmdSignal) }
}

impl Runtime {
    fn gpu_id_of(&self, agent: Agent) -> Result<u32> {
        let rec = self.core.agent(agent)?;
        if !rec.is_gpu() {
            return Err(Error::new(
                Status::InvalidAgent,
                format!("agent {} is not a GPU agent", agent.index()),
            ));
        }
        Ok(rec.gpu_id)
    }

    /// `hsa_amd_profiling_set_profiler_enabled`: whether the packet
    /// processor writes each dispatch's start and end into its completion
    /// signal.
    pub fn set_profiler_enabled(&self, queue: &Queue, enable: bool) -> Result<()> {
        let at = (queue.address() + QUEUE_PROPERTIES) as *mut u32;
        // SAFETY: the queue is alive (borrowed) and its `amd_queue_t` is
        // runtime memory shared with the packet processor, which reads
        // `queue_properties`: accessed atomically, 4-byte aligned.
        let props = unsafe { AtomicU32::from_ptr(at) };
        if enable {
            props.fetch_or(ENABLE_PROFILING, Ordering::AcqRel);
        } else {
            props.fetch_and(!ENABLE_PROFILING, Ordering::AcqRel);
        }
        Ok(())
    }

    /// `hsa_amd_profiling_get_dispatch_time`: when the dispatch that
    /// completed `signal` on GPU `agent` started and ended, in system
    /// ticks.
    ///
    /// Errors: a CPU or unknown agent: `INVALID_AGENT`; a signal of
    /// another runtime: `INVALID_SIGNAL`; timestamps not written (the queue
    /// did not profile, or the dispatch has not completed): `ERROR`.
    pub fn dispatch_time(&self, agent: Agent, signal: &Signal) -> Result<ProfilingTime> {
        let gpu_id = self.gpu_id_of(agent)?;
        if !self.is_signal(signal.handle()) {
            return Err(Error::new(
                Status::InvalidSignal,
                "not a signal of this runtime",
            ));
        }
        self.translate(gpu_id, amd_signal(signal))
    }

    fn translate(&self, gpu_id: u32, s: &AmdSignal) -> Result<ProfilingTime> {
        let (_, end) = s.raw_timestamps().map_err(timestamp_error)?;
        let sync = self.core.profiling.sync(&*self.core.driver, gpu_id, end)?;
        s.profiling_time(&sync).map_err(timestamp_error)
    }

    /// `hsa_amd_profiling_convert_tick_to_system_domain`: GPU `agent`'s
    /// clock tick `tick` in system ticks.
    pub fn tick_to_system(&self, agent: Agent, tick: u64) -> Result<u64> {
        let gpu_id = self.gpu_id_of(agent)?;
        let sync = self.core.profiling.sync(&*self.core.driver, gpu_id, tick)?;
        sync.gpu_to_system(tick).map_err(timestamp_error)
    }

    /// `hsa_amd_profiling_async_copy_enable`: whether later async copies
    /// record their start and end in their completion signal.
    pub fn set_async_copy_profiling(&self, enable: bool) {
        self.core
            .profiling
            .async_copy
            .store(enable, Ordering::Release);
    }

    /// `hsa_amd_profiling_get_async_copy_time`: when the async copy that
    /// completed `signal` started and ended, in system ticks.
    ///
    /// Errors: a signal of another runtime: `INVALID_SIGNAL`; a signal no
    /// async copy completed (ROCr: no `async_copy_agent`): `ERROR`;
    /// timestamps not written (copy profiling was off, or the copy has not
    /// completed): `ERROR`.
    pub fn async_copy_time(&self, signal: &Signal) -> Result<ProfilingTime> {
        if !self.is_signal(signal.handle()) {
            return Err(Error::new(
                Status::InvalidSignal,
                "not a signal of this runtime",
            ));
        }
        let agent = self
            .core
            .profiling
            .copy_agents
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&signal.handle())
            .copied()
            .ok_or_else(|| Error::new(Status::Error, "no async copy completed this signal"))?;
        self.translate(self.gpu_id_of(agent)?, amd_signal(signal))
    }
}
