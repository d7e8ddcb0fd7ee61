//! The environment flags through the public API (`runtime::flags`):
//! `HSA_ENABLE_INTERRUPT=0` makes every signal a default signal (no KFD
//! event; a blocked wait polls and still sees a store from another
//! thread), and the flags a runtime was opened with are the ones it
//! reports. One test: the runtime is one per process.

use runtime::flags::Flags;
use runtime::{InitOptions, Runtime, SignalKind, driver};
use signal_core::{Condition, LoadOrder, StoreOrder, TIMEOUT_INFINITE, WaitState};

#[test]
fn hsa_enable_interrupt_0_makes_every_signal_a_polled_default_signal() {
    let no_interrupts = Flags::from_lookup(|n| (n == "HSA_ENABLE_INTERRUPT").then(|| "0".into()))
        .expect("a well-formed flag");
    assert!(!no_interrupts.enable_interrupt);
    let rt = Runtime::init_with_flags(driver::open_sim, InitOptions::default(), no_interrupts)
        .expect("runtime on the sim");
    assert!(!rt.flags().enable_interrupt);
    let s = rt.create_signal(1).expect("signal");
    assert_eq!(s.kind(), SignalKind::Default);
    assert_eq!(s.event_id(), None);
    let kind = rt
        .create_signal_of_kind(1, SignalKind::Interrupt)
        .expect("signal")
        .kind();
    assert_eq!(kind, SignalKind::Default);
    let t = {
        let s = s.clone();
        std::thread::spawn(move || s.store(0, StoreOrder::Release))
    };
    let v = s
        .wait(
            Condition::Eq,
            0,
            TIMEOUT_INFINITE,
            WaitState::Blocked,
            LoadOrder::Acquire,
        )
        .expect("wait");
    assert_eq!(v, 0);
    t.join().expect("storer");
    drop(s);
    rt.shut_down();

    // Opened again with every flag unset: interrupt signals, as ROCr.
    let rt = Runtime::init_with_flags(driver::open_sim, InitOptions::default(), Flags::default())
        .expect("runtime on the sim");
    let s = rt.create_signal(1).expect("signal");
    assert_eq!(s.kind(), SignalKind::Interrupt);
    assert!(s.event_id().is_some());
}
