//! Waiting on one signal or on any of several: the conditions, the wait
//! state hint, the timeout hint, and the spin / back-off / block strategy
//! (HSA runtime specification 1.2, `hsa_signal_wait_*`; ROCr
//! `hsa_amd_signal_wait_any`).

use crate::host::{BlockOn, Blocker, Clock, MAX_BLOCK_ANY, SignalHost};
use crate::protocol::AnyRegistration;
use crate::signal::{LoadOrder, Signal, SignalStorage};
use crate::sync::{Ordering, spin_loop};

/// `HSA_SIGNAL_CONDITION_EQ`.
pub const HSA_SIGNAL_CONDITION_EQ: u32 = 0;
/// `HSA_SIGNAL_CONDITION_NE`.
pub const HSA_SIGNAL_CONDITION_NE: u32 = 1;
/// `HSA_SIGNAL_CONDITION_LT`.
pub const HSA_SIGNAL_CONDITION_LT: u32 = 2;
/// `HSA_SIGNAL_CONDITION_GTE`.
pub const HSA_SIGNAL_CONDITION_GTE: u32 = 3;
/// `HSA_WAIT_STATE_BLOCKED`.
pub const HSA_WAIT_STATE_BLOCKED: u32 = 0;
/// `HSA_WAIT_STATE_ACTIVE`.
pub const HSA_WAIT_STATE_ACTIVE: u32 = 1;

/// A timeout hint that never expires (`UINT64_MAX` in the HSA API).
pub const TIMEOUT_INFINITE: u64 = u64::MAX;

/// `hsa_signal_condition_t`: how the signal value is compared with the
/// compare value (signed 64-bit comparison).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Condition {
    /// `HSA_SIGNAL_CONDITION_EQ`: value == compare value.
    Eq,
    /// `HSA_SIGNAL_CONDITION_NE`: value != compare value.
    Ne,
    /// `HSA_SIGNAL_CONDITION_LT`: value < compare value.
    Lt,
    /// `HSA_SIGNAL_CONDITION_GTE`: value >= compare value.
    Gte,
}

impl Condition {
    /// Every condition.
    pub const ALL: [Self; 4] = [Self::Eq, Self::Ne, Self::Lt, Self::Gte];

    /// Whether `value` satisfies the condition against `compare`.
    #[inline]
    pub const fn holds(self, value: i64, compare: i64) -> bool {
        match self {
            Self::Eq => value == compare,
            Self::Ne => value != compare,
            Self::Lt => value < compare,
            Self::Gte => value >= compare,
        }
    }
}

/// A raw `hsa_signal_condition_t` or `hsa_wait_state_t` that names no
/// enumerator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum UnknownEnumerator {
    /// Not an `HSA_SIGNAL_CONDITION_*` value.
    Condition(u32),
    /// Not an `HSA_WAIT_STATE_*` value.
    WaitState(u32),
}

impl core::fmt::Display for UnknownEnumerator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Condition(v) => write!(
                f,
                "hsa_signal_condition_t {v} is no HSA_SIGNAL_CONDITION_* value"
            ),
            Self::WaitState(v) => write!(f, "hsa_wait_state_t {v} is no HSA_WAIT_STATE_* value"),
        }
    }
}

impl TryFrom<u32> for Condition {
    type Error = UnknownEnumerator;
    fn try_from(raw: u32) -> Result<Self, Self::Error> {
        match raw {
            HSA_SIGNAL_CONDITION_EQ => Ok(Self::Eq),
            HSA_SIGNAL_CONDITION_NE => Ok(Self::Ne),
            HSA_SIGNAL_CONDITION_LT => Ok(Self::Lt),
            HSA_SIGNAL_CONDITION_GTE => Ok(Self::Gte),
            other => Err(UnknownEnumerator::Condition(other)),
        }
    }
}

/// `hsa_wait_state_t`: whether the waiting thread may sleep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WaitState {
    /// `HSA_WAIT_STATE_BLOCKED`: spin briefly, back off, then sleep.
    Blocked,
    /// `HSA_WAIT_STATE_ACTIVE`: spin, then back off, but never sleep.
    Active,
}

impl TryFrom<u32> for WaitState {
    type Error = UnknownEnumerator;
    fn try_from(raw: u32) -> Result<Self, Self::Error> {
        match raw {
            HSA_WAIT_STATE_BLOCKED => Ok(Self::Blocked),
            HSA_WAIT_STATE_ACTIVE => Ok(Self::Active),
            other => Err(UnknownEnumerator::WaitState(other)),
        }
    }
}

/// How long each phase of a wait lasts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct WaitPolicy {
    /// Value checks with a spin hint between them before backing off.
    pub spin_checks: u32,
    /// Value checks with [`Blocker::yield_now`] between them before
    /// blocking (an active wait keeps backing off this way until done).
    pub yield_checks: u32,
    /// Longest single sleep, in nanoseconds (`None`: sleep until woken or
    /// the timeout). Bound it when the value can change without a notifying
    /// operation of this crate: a GPU writing a signal with no interrupt
    /// event, or silent stores.
    pub block_slice_ns: Option<u64>,
}

impl WaitPolicy {
    /// Spin for about as long as a futex wake-up costs (128 checks, a few
    /// microseconds: spinning longer than the blocked path's latency cannot
    /// win), yield twice, then sleep until woken (only host operations
    /// change the value).
    pub const DEFAULT: Self = Self {
        spin_checks: 128,
        yield_checks: 2,
        block_slice_ns: None,
    };
    /// Sleep at once (for waits known to be long, and to measure the
    /// blocked wake-up path alone).
    pub const BLOCK_AT_ONCE: Self = Self {
        spin_checks: 0,
        yield_checks: 0,
        block_slice_ns: None,
    };

    /// The default phases, with sleeps bounded to `slice_ns` so that
    /// changes made by a device (no host wake) are seen within that time.
    pub const fn polling(slice_ns: u64) -> Self {
        Self {
            block_slice_ns: Some(slice_ns),
            ..Self::DEFAULT
        }
    }
}

impl Default for WaitPolicy {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How a wait on one signal ended; both carry the last value observed, as
/// `hsa_signal_wait_*` returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WaitOutcome {
    /// The condition held for this value.
    Satisfied(i64),
    /// The timeout hint expired; the last value observed.
    TimedOut(i64),
}

impl WaitOutcome {
    /// The observed value.
    pub const fn value(self) -> i64 {
        match self {
            Self::Satisfied(v) | Self::TimedOut(v) => v,
        }
    }
}

/// How a wait on any of several signals ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WaitAnyOutcome {
    /// The signal at `index` satisfied its condition with `value`.
    Satisfied {
        /// Index into the entries.
        index: usize,
        /// The value that satisfied it.
        value: i64,
    },
    /// The timeout hint expired with no condition satisfied.
    TimedOut,
}

/// Why a wait could not start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum WaitError {
    /// `wait_any` was given no signals.
    NoSignals,
    /// A finite timeout was asked of a host whose clock reports a
    /// frequency of zero.
    ZeroClockFrequency,
}

impl core::fmt::Display for WaitError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::NoSignals => f.write_str("wait on any signal: the signal list is empty"),
            Self::ZeroClockFrequency => {
                f.write_str("timed wait: the host clock reports 0 ticks per second")
            }
        }
    }
}

/// One signal of a wait-any, with its own condition and compare value.
#[derive(Clone, Copy, Debug)]
pub struct WaitAnyEntry<'a> {
    /// The signal.
    pub signal: &'a SignalStorage,
    /// Its condition.
    pub condition: Condition,
    /// Its compare value.
    pub compare_value: i64,
}

/// A deadline in host ticks; `None` for an infinite timeout hint.
#[derive(Clone, Copy)]
struct Deadline {
    at: Option<u64>,
    ticks_per_second: u64,
}

impl Deadline {
    fn new<C: Clock + ?Sized>(clock: &C, timeout_ticks: u64) -> Result<Self, WaitError> {
        if timeout_ticks == TIMEOUT_INFINITE {
            return Ok(Self {
                at: None,
                ticks_per_second: 0,
            });
        }
        let ticks_per_second = clock.ticks_per_second();
        if ticks_per_second == 0 {
            return Err(WaitError::ZeroClockFrequency);
        }
        Ok(Self {
            at: Some(clock.now_ticks().saturating_add(timeout_ticks)),
            ticks_per_second,
        })
    }

    /// `Err(())` once expired, else the nanoseconds left (`None`: forever),
    /// rounded up so a sleep never ends before the deadline.
    fn remaining_ns<C: Clock + ?Sized>(&self, clock: &C) -> Result<Option<u64>, ()> {
        let Some(at) = self.at else { return Ok(None) };
        let now = clock.now_ticks();
        if now >= at {
            return Err(());
        }
        let ticks = u128::from(at - now);
        let ns = (ticks * 1_000_000_000).div_ceil(u128::from(self.ticks_per_second));
        Ok(Some(u64::try_from(ns).unwrap_or(u64::MAX)))
    }

    fn expired<C: Clock + ?Sized>(&self, clock: &C) -> bool {
        self.remaining_ns(clock).is_err()
    }
}

fn min_slice(remaining: Option<u64>, slice: Option<u64>) -> Option<u64> {
    match (remaining, slice) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

impl<H: SignalHost + ?Sized> Signal<'_, H> {
    /// `hsa_signal_wait_{relaxed,scacquire}`: waits until the value
    /// satisfies `condition` against `compare_value` or `timeout_ticks`
    /// (HSA system-clock ticks, [`TIMEOUT_INFINITE`] for none) pass, with
    /// [`WaitPolicy::DEFAULT`].
    #[inline]
    pub fn wait(
        &self,
        condition: Condition,
        compare_value: i64,
        timeout_ticks: u64,
        wait_state: WaitState,
        order: LoadOrder,
    ) -> Result<WaitOutcome, WaitError> {
        self.wait_with_policy(
            condition,
            compare_value,
            timeout_ticks,
            wait_state,
            order,
            &WaitPolicy::DEFAULT,
        )
    }

    /// [`wait`](Self::wait) with explicit phase lengths.
    #[inline]
    pub fn wait_with_policy(
        &self,
        condition: Condition,
        compare_value: i64,
        timeout_ticks: u64,
        wait_state: WaitState,
        order: LoadOrder,
        policy: &WaitPolicy,
    ) -> Result<WaitOutcome, WaitError> {
        // Fast path: already satisfied, no clock read, no call.
        let v = self.storage.value().load(order.ordering());
        if condition.holds(v, compare_value) {
            return Ok(WaitOutcome::Satisfied(v));
        }
        self.wait_slow(
            condition,
            compare_value,
            timeout_ticks,
            wait_state,
            order,
            policy,
        )
    }

    #[inline(never)]
    fn wait_slow(
        &self,
        condition: Condition,
        compare_value: i64,
        timeout_ticks: u64,
        wait_state: WaitState,
        order: LoadOrder,
        policy: &WaitPolicy,
    ) -> Result<WaitOutcome, WaitError> {
        let host = self.host;
        let deadline = Deadline::new(host, timeout_ticks)?;
        let value = self.storage.value();
        let ord = order.ordering();
        let check = || {
            let v = value.load(ord);
            (condition.holds(v, compare_value), v)
        };

        // Spin: the cheapest way to catch a value that changes within
        // microseconds; the clock is read only every 64 checks.
        for i in 0..policy.spin_checks {
            let (ok, v) = check();
            if ok {
                return Ok(WaitOutcome::Satisfied(v));
            }
            if i % 64 == 63 && deadline.expired(host) {
                return Ok(WaitOutcome::TimedOut(v));
            }
            spin_loop();
        }
        // Back off: give the CPU away between checks.
        let mut yields = 0u32;
        while wait_state == WaitState::Active || yields < policy.yield_checks {
            let (ok, v) = check();
            if ok {
                return Ok(WaitOutcome::Satisfied(v));
            }
            if deadline.expired(host) {
                return Ok(WaitOutcome::TimedOut(v));
            }
            host.yield_now();
            yields = yields.saturating_add(1);
        }
        // Block: register, then sleep on the wake sequence (see `protocol`).
        let registration = self.storage.wake_state().register();
        loop {
            let seen = registration.snapshot();
            let (ok, v) = check();
            if ok {
                return Ok(WaitOutcome::Satisfied(v));
            }
            let Ok(remaining) = deadline.remaining_ns(host) else {
                return Ok(WaitOutcome::TimedOut(v));
            };
            host.block(
                registration.word(),
                seen,
                min_slice(remaining, policy.block_slice_ns),
            );
        }
    }
}

/// How long a wait-any over more than [`MAX_BLOCK_ANY`] signals sleeps at
/// most, since it can only sleep on the first [`MAX_BLOCK_ANY`] words and
/// must poll the rest.
pub const WAIT_ANY_OVERFLOW_SLICE_NS: u64 = 1_000_000;

fn first_satisfied(entries: &[WaitAnyEntry<'_>], ord: Ordering) -> Option<(usize, i64)> {
    entries.iter().enumerate().find_map(|(i, e)| {
        let v = e.signal.value().load(ord);
        e.condition.holds(v, e.compare_value).then_some((i, v))
    })
}

/// `hsa_amd_signal_wait_any`: waits until any entry's signal satisfies its
/// own condition, or the timeout hint expires, with [`WaitPolicy::DEFAULT`].
/// The lowest satisfied index wins. Never allocates.
pub fn wait_any<H: SignalHost + ?Sized>(
    entries: &[WaitAnyEntry<'_>],
    timeout_ticks: u64,
    wait_state: WaitState,
    order: LoadOrder,
    host: &H,
) -> Result<WaitAnyOutcome, WaitError> {
    wait_any_with_policy(
        entries,
        timeout_ticks,
        wait_state,
        order,
        host,
        &WaitPolicy::DEFAULT,
    )
}

/// [`wait_any`] with explicit phase lengths.
pub fn wait_any_with_policy<H: Blocker + Clock + ?Sized>(
    entries: &[WaitAnyEntry<'_>],
    timeout_ticks: u64,
    wait_state: WaitState,
    order: LoadOrder,
    host: &H,
    policy: &WaitPolicy,
) -> Result<WaitAnyOutcome, WaitError> {
    if entries.is_empty() {
        return Err(WaitError::NoSignals);
    }
    let deadline = Deadline::new(host, timeout_ticks)?;
    let ord = order.ordering();
    let satisfied = |(index, value)| WaitAnyOutcome::Satisfied { index, value };

    for i in 0..policy.spin_checks {
        if let Some(hit) = first_satisfied(entries, ord) {
            return Ok(satisfied(hit));
        }
        if i % 64 == 63 && deadline.expired(host) {
            return Ok(WaitAnyOutcome::TimedOut);
        }
        spin_loop();
    }
    let mut yields = 0u32;
    while wait_state == WaitState::Active || yields < policy.yield_checks {
        if let Some(hit) = first_satisfied(entries, ord) {
            return Ok(satisfied(hit));
        }
        if deadline.expired(host) {
            return Ok(WaitAnyOutcome::TimedOut);
        }
        host.yield_now();
        yields = yields.saturating_add(1);
    }

    let registration = AnyRegistration::new(entries, |e| e.signal.wake_state());
    let overflow = entries.len() > MAX_BLOCK_ANY;
    let slice = if overflow {
        min_slice(policy.block_slice_ns, Some(WAIT_ANY_OVERFLOW_SLICE_NS))
    } else {
        policy.block_slice_ns
    };
    let mut words: heapless::Vec<BlockOn<'_>, MAX_BLOCK_ANY> = heapless::Vec::new();
    loop {
        registration.snapshot(&mut words);
        if let Some(hit) = first_satisfied(entries, ord) {
            return Ok(satisfied(hit));
        }
        let Ok(remaining) = deadline.remaining_ns(host) else {
            return Ok(WaitAnyOutcome::TimedOut);
        };
        let timeout = min_slice(remaining, slice);
        if let [only] = words.as_slice() {
            host.block(only.word, only.expected, timeout);
        } else {
            host.block_any(&words, timeout);
        }
    }
}

impl core::error::Error for WaitError {}
impl core::error::Error for UnknownEnumerator {}
