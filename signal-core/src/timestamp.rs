//! Signal timestamps as HSA's profiling API reads them.
//!
//! When profiling is on, the packet processor writes `start_ts` and
//! `end_ts` of the completion signal in GPU clock ticks.
//! `hsa_amd_profiling_get_dispatch_time` (and `..._async_copy_time`)
//! return them in the HSA system-clock domain: ROCr interpolates linearly
//! between two samples of the (GPU counter, system counter) pair taken with
//! `AMDKFD_IOC_GET_CLOCK_COUNTERS`, translating the end first. This module
//! does the same in exact integer arithmetic.

use crate::sync::Ordering;

use crate::raw::AmdSignal;

/// One sample of `AMDKFD_IOC_GET_CLOCK_COUNTERS` (`struct
/// kfd_ioctl_get_clock_counters_args`): the GPU and system counters read
/// together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClockCounters {
    /// `gpu_clock_counter`.
    pub gpu: u64,
    /// `system_clock_counter` (HSA system ticks).
    pub system: u64,
}

/// `hsa_amd_profiling_dispatch_time_t` / `hsa_amd_profiling_async_copy_time_t`:
/// start and end in HSA system-clock ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ProfilingTime {
    /// `start`.
    pub start: u64,
    /// `end`.
    pub end: u64,
}

/// Why timestamps could not be read or translated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TimestampError {
    /// `start_ts` or `end_ts` is 0: the packet processor has not written
    /// them (profiling off, or the packet has not completed).
    NotRecorded,
    /// `end_ts` is before `start_ts`.
    EndBeforeStart {
        /// The raw `start_ts`.
        start: u64,
        /// The raw `end_ts`.
        end: u64,
    },
    /// The two clock samples do not span a positive GPU interval, or the
    /// system counter went backwards between them.
    DegenerateClockSamples,
    /// The translated tick does not fit in 64 bits (or is negative).
    OutOfRange {
        /// The GPU tick that was being translated.
        gpu_tick: u64,
    },
}

impl core::fmt::Display for TimestampError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NotRecorded => f.write_str("signal timestamps: start_ts or end_ts not written"),
            Self::EndBeforeStart { start, end } => {
                write!(
                    f,
                    "signal timestamps: end_ts {end} is before start_ts {start}"
                )
            }
            Self::DegenerateClockSamples => {
                f.write_str("clock translation: the two clock-counter samples span no GPU time")
            }
            Self::OutOfRange { gpu_tick } => {
                write!(
                    f,
                    "clock translation: GPU tick {gpu_tick} maps outside the 64-bit system clock"
                )
            }
        }
    }
}

/// A linear map from GPU ticks to HSA system ticks through two clock
/// samples `t0` (earlier) and `t1` (later), as ROCr's
/// `GpuAgent::TranslateTime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClockSync {
    t0: ClockCounters,
    t1: ClockCounters,
}

impl ClockSync {
    /// Builds the map; `t1.gpu` must exceed `t0.gpu` and the system counter
    /// must not go backwards.
    pub fn new(t0: ClockCounters, t1: ClockCounters) -> Result<Self, TimestampError> {
        if t1.gpu <= t0.gpu || t1.system < t0.system {
            return Err(TimestampError::DegenerateClockSamples);
        }
        Ok(Self { t0, t1 })
    }

    /// Translates one GPU tick (interpolating between the samples,
    /// extrapolating outside them), rounding to the nearest system tick.
    pub fn gpu_to_system(&self, gpu_tick: u64) -> Result<u64, TimestampError> {
        let sys_span = i128::from(self.t1.system - self.t0.system);
        let gpu_span = i128::from(self.t1.gpu - self.t0.gpu);
        let out_of_range = TimestampError::OutOfRange { gpu_tick };
        // |delta| < 2^64 and sys_span < 2^64, so the product can exceed
        // i128 only at the extremes, which map out of range anyway.
        let delta = i128::from(gpu_tick) - i128::from(self.t1.gpu);
        let scaled = delta.checked_mul(sys_span).ok_or(out_of_range)?;
        let half = gpu_span / 2;
        let biased = if scaled >= 0 {
            scaled.checked_add(half)
        } else {
            scaled.checked_sub(half)
        };
        let rounded = biased.ok_or(out_of_range)? / gpu_span;
        let out = i128::from(self.t1.system)
            .checked_add(rounded)
            .ok_or(out_of_range)?;
        u64::try_from(out).map_err(|_| out_of_range)
    }
}

impl AmdSignal {
    /// The raw `start_ts` and `end_ts` (GPU ticks), read with acquire after
    /// the signal completed; checks that both were written and are ordered.
    pub fn raw_timestamps(&self) -> Result<(u64, u64), TimestampError> {
        let end = self.end_ts.load(Ordering::Acquire);
        let start = self.start_ts.load(Ordering::Acquire);
        if start == 0 || end == 0 {
            return Err(TimestampError::NotRecorded);
        }
        if end < start {
            return Err(TimestampError::EndBeforeStart { start, end });
        }
        Ok((start, end))
    }

    /// What `hsa_amd_profiling_get_dispatch_time` /
    /// `hsa_amd_profiling_get_async_copy_time` return for this signal: the
    /// timestamps in HSA system ticks (end translated first, as ROCr does).
    pub fn profiling_time(&self, sync: &ClockSync) -> Result<ProfilingTime, TimestampError> {
        let (start, end) = self.raw_timestamps()?;
        let end = sync.gpu_to_system(end)?;
        let start = sync.gpu_to_system(start)?;
        Ok(ProfilingTime { start, end })
    }
}

impl core::error::Error for TimestampError {}
