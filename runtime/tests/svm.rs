//! `runtime::svm` on the software GPU: attributes of an anonymous mapping
//! set and read back, and a prefetch that waits for all of its
//! dependency signals before it decrements its completion signal.

use runtime::driver;
use runtime::svm::{SvmAccess, SvmAttribute, SvmModel, SvmQuery, SvmValue};
use runtime::{Runtime, SignalKind, Status};

fn rt() -> Runtime {
    Runtime::init_with(driver::open_sim).expect("runtime on the sim")
}

fn mapping(len: usize) -> u64 {
    // SAFETY: a fresh anonymous mapping of ours, left mapped for the test.
    unsafe {
        rustix::mm::mmap_anonymous(
            std::ptr::null_mut(),
            len,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::PRIVATE,
        )
    }
    .expect("mmap") as u64
}

#[test]
fn attributes_round_trip_and_refusals() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let cpu = rt.agents().next().unwrap();
    let va = mapping(8 << 12);
    // SAFETY: our mapping, kept while the GPU has access.
    unsafe {
        rt.svm_set_attributes(
            va + 5,
            (8 << 12) - 5,
            &[
                SvmAttribute::GlobalFlag { fine: false },
                SvmAttribute::MigrationGranularity(40),
                SvmAttribute::PreferredLocation(Some(gpu)),
                SvmAttribute::Accessible(gpu),
                SvmAttribute::NoAccess(cpu),
            ],
        )
    }
    .unwrap();
    let got = rt
        .svm_get_attributes(
            va,
            8 << 12,
            &[
                SvmQuery::GlobalFlag,
                SvmQuery::MigrationGranularity,
                SvmQuery::PreferredLocation,
                SvmQuery::Access(gpu),
                SvmQuery::Access(cpu),
                SvmQuery::ReadOnly,
            ],
        )
        .unwrap();
    assert_eq!(
        got,
        [
            SvmValue::Model(SvmModel::CoarseGrained),
            SvmValue::Granularity(18),
            SvmValue::Location(Some(gpu)),
            SvmValue::Access(SvmAccess::Accessible),
            SvmValue::Access(SvmAccess::Unreported),
            SvmValue::Flag(false),
        ]
    );
    // SAFETY: as above.
    let twice = unsafe {
        rt.svm_set_attributes(
            va,
            4096,
            &[SvmAttribute::Accessible(gpu), SvmAttribute::NoAccess(gpu)],
        )
    };
    assert_eq!(twice.unwrap_err().status, Status::IncompatibleArguments);
    // SAFETY: as above (nothing is set).
    let empty = unsafe { rt.svm_set_attributes(va, 0, &[]) };
    assert_eq!(empty.unwrap_err().status, Status::Error, "ROCr's answer");
}

#[test]
fn a_prefetch_waits_for_every_dependency() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let va = mapping(4 << 12);
    let deps = [
        rt.create_signal_of_kind(1, SignalKind::Default).unwrap(),
        rt.create_signal_of_kind(1, SignalKind::Default).unwrap(),
    ];
    let done = rt.create_signal(1).unwrap();
    rt.svm_prefetch_async(va, 4 << 12, gpu, &deps, Some(done.clone()))
        .unwrap();
    let loc = |rt: &Runtime| {
        rt.svm_get_attributes(va, 4 << 12, &[SvmQuery::PrefetchLocation])
            .unwrap()[0]
    };
    assert_eq!(loc(&rt), SvmValue::Location(Some(gpu)), "pending");
    // The first dependency alone does not let it run (the last is waited
    // for first, then the others).
    deps[0].store(0, signal_core::StoreOrder::Release);
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(done.load(signal_core::LoadOrder::Acquire), 1);
    deps[1].store(0, signal_core::StoreOrder::Release);
    let v = done.wait(
        signal_core::Condition::Eq,
        0,
        u64::MAX,
        signal_core::WaitState::Blocked,
        signal_core::LoadOrder::Acquire,
    );
    assert_eq!(v.unwrap(), 0);
    assert_eq!(loc(&rt), SvmValue::Location(Some(gpu)), "done, from KFD");
    let gone = rt.create_signal(0).unwrap();
    gone.clone().destroy();
    let err = rt
        .svm_prefetch_async(va, 4096, gpu, &[gone], None)
        .unwrap_err();
    assert_eq!(err.status, Status::InvalidSignal);
}
