//! A test per documented error: for each public runtime call, each error
//! `hsa.h` / `hsa_ext_amd.h` (ROCr 5.2.3, `/usr/include/hsa`) documents for
//! it gets that status, never a panic: invalid and destroyed handles, bad
//! sizes, wrong agents, queue sizes, frozen executables, unknown symbols.
//! Errors the Rust types rule out (a NULL out-pointer, a queue destroyed
//! twice, a call before `hsa_init`) are the C ABI's to test.
//!
//! Then several threads create queues, dispatch, wait and destroy at once.

use std::sync::Arc;
use std::time::Duration;

use runtime::executable::{CodeObjectReader, DefaultFloatRoundingMode, Profile, SymbolInfo};
use runtime::info::{AgentInfo, IsaInfo, PoolInfo, RegionInfo, SystemInfo};
use runtime::{Agent, ArgValue, Geometry, MemoryPool, QueueKind, Runtime, Status, driver};
use signal_core::{Condition, LoadOrder, WaitState};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");
const GENEROUS: Duration = Duration::from_secs(60);

/// One test at a time: the runtime is process-wide (`hsa_init` counts),
/// and the two-GPU test needs it closed to open its own device.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

fn rt() -> Runtime {
    Runtime::init_with(driver::open_sim).expect("runtime on the sim")
}

fn status<T: std::fmt::Debug>(r: runtime::Result<T>) -> Status {
    r.expect_err("the call must fail").status
}

/// An agent handle no agent of the runtime has.
fn bogus_agent(rt: &Runtime) -> Agent {
    let first = rt.agents().next().unwrap().handle();
    Agent::from_handle(first + rt.agents().count() as u64 + 100)
        .expect("an agent handle of the runtime's form")
}

#[test]
fn system_and_agent_info() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    // hsa_system_get_info: an invalid attribute.
    assert_eq!(status(rt.system_info_raw(0xdead)), Status::InvalidArgument);
    rt.system_info(SystemInfo::VersionMajor).unwrap();
    // hsa_agent_get_info: an invalid agent, an invalid attribute.
    let bad = bogus_agent(&rt);
    assert_eq!(
        status(rt.agent_info(bad, AgentInfo::Name)),
        Status::InvalidAgent
    );
    assert_eq!(
        status(rt.agent_info_raw(gpu, 0xdead)),
        Status::InvalidArgument
    );
    assert_eq!(status(rt.agent(bad)), Status::InvalidAgent);
    // hsa_agent_iterate_isas, hsa_agent_iterate_regions,
    // hsa_amd_agent_iterate_memory_pools: an invalid agent.
    assert_eq!(status(rt.agent_isas(bad)), Status::InvalidAgent);
    assert_eq!(status(rt.agent_regions(bad)), Status::InvalidAgent);
    assert_eq!(status(rt.pools(bad)), Status::InvalidAgent);
}

#[test]
fn isas() {
    let _g = serial();
    let rt = rt();
    // hsa_isa_from_name: a name that does not match any ISA.
    assert_eq!(
        status(rt.isa_from_name("amdgcn-amd-amdhsa--gfx9999")),
        Status::InvalidIsaName
    );
    assert_eq!(status(rt.isa_from_name("")), Status::InvalidIsaName);
    assert_eq!(
        status(rt.isa_from_name("not an isa")),
        Status::InvalidIsaName
    );
    // hsa_isa_get_info_alt: an invalid ISA, an invalid attribute.
    assert_eq!(status(rt.isa_info_raw(0, 0)), Status::InvalidIsa);
    assert_eq!(status(rt.isa_info_raw(u64::MAX, 0)), Status::InvalidIsa);
    let gpu = rt.gpu_agents().next().unwrap();
    let isa = rt.agent_isas(gpu).unwrap()[0];
    assert_eq!(
        status(rt.isa_info_raw(isa.handle(), 0xdead)),
        Status::InvalidArgument
    );
    rt.isa_info(isa, IsaInfo::Name).unwrap();
}

#[test]
fn pools_regions_and_memory() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let pools = rt.pools(gpu).unwrap();
    let bad_pool = MemoryPool::from_handle(
        MemoryPool::from_handle(pools[0].handle()).unwrap().handle() + 10_000,
    )
    .unwrap();
    // hsa_amd_memory_pool_get_info: an invalid pool (hsa_ext_amd.h 5.2.3
    // documents no error; ROCr returns INVALID_MEMORY_POOL), an invalid
    // attribute.
    assert_eq!(
        status(rt.pool_info(bad_pool, PoolInfo::Size)),
        Status::InvalidMemoryPool
    );
    assert_eq!(
        status(rt.pool_info_raw(pools[0], 0xdead)),
        Status::InvalidArgument
    );
    // hsa_region_get_info: an invalid region, an invalid attribute.
    assert_eq!(
        status(rt.region_info(bad_pool, RegionInfo::Size)),
        Status::InvalidRegion
    );
    let region = rt.agent_regions(gpu).unwrap()[0];
    assert_eq!(
        status(rt.region_info_raw(region, 0xdead)),
        Status::InvalidArgument
    );
    // hsa_amd_memory_pool_allocate: an invalid pool, size 0, a size above
    // ALLOC_MAX_SIZE, a pool that does not allow runtime allocation.
    assert_eq!(
        status(rt.allocate(bad_pool, 4096)),
        Status::InvalidMemoryPool
    );
    let kernarg = rt.kernarg_pool().unwrap();
    assert_eq!(status(rt.allocate(kernarg, 0)), Status::InvalidArgument);
    for &p in &pools {
        let allowed = rt
            .pool_info(p, PoolInfo::RuntimeAllocAllowed)
            .unwrap()
            .as_u64()
            == Some(1);
        if allowed {
            let max = rt
                .pool_info(p, PoolInfo::AllocMaxSize)
                .unwrap()
                .as_u64()
                .unwrap();
            assert_eq!(
                status(rt.allocate(p, max + 1)),
                Status::InvalidAllocation,
                "pool {p:?}"
            );
        } else {
            assert_eq!(
                status(rt.allocate(p, 4096)),
                Status::InvalidAllocation,
                "pool {p:?}"
            );
        }
    }
    // hsa_amd_memory_pool_free / hsa_memory_free of a pointer that is no
    // allocation, and of a freed one: an error, not a crash.
    let p = rt.allocate(kernarg, 4096).unwrap();
    rt.free(p).unwrap();
    assert_eq!(status(rt.free(p)), Status::InvalidAllocation);
    assert_eq!(status(rt.free(0x1234_5000)), Status::InvalidAllocation);
    // hsa_amd_agents_allow_access: an invalid agent, no agent, a pointer
    // that is no allocation.
    let p = rt.allocate(kernarg, 4096).unwrap();
    assert_eq!(
        status(rt.allow_access(&[bogus_agent(&rt)], p)),
        Status::InvalidAgent
    );
    assert_eq!(status(rt.allow_access(&[], p)), Status::InvalidArgument);
    assert_eq!(
        status(rt.allow_access(&[gpu], 0x1234_5000)),
        Status::InvalidArgument
    );
    rt.free(p).unwrap();
}

#[test]
fn queues() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let cpu = rt
        .agents()
        .find(|&a| !rt.agent(a).unwrap().is_gpu())
        .unwrap();
    let max = rt
        .agent_info(gpu, AgentInfo::QueueMaxSize)
        .unwrap()
        .as_u64()
        .unwrap() as u32;
    let min = rt
        .agent_info(gpu, AgentInfo::QueueMinSize)
        .unwrap()
        .as_u64()
        .unwrap() as u32;
    let create = |agent, size| rt.create_queue(agent, size, QueueKind::Multiple, None, u32::MAX);
    // hsa_queue_create, with ROCr's answers (AMD's ROCr gives the same on
    // the sim: tests/c/status_diff.c): size not a power of two, 0, or below
    // the agent's minimum (INVALID_ARGUMENT); beyond its maximum
    // (OUT_OF_RESOURCES); an invalid agent; a CPU agent (HSA_STATUS_ERROR);
    // a private segment hint above what ROCr allows (OUT_OF_RESOURCES).
    assert_eq!(status(create(gpu, 100)), Status::InvalidArgument);
    assert_eq!(status(create(gpu, 0)), Status::InvalidArgument);
    assert_eq!(status(create(gpu, max * 2)), Status::OutOfResources);
    assert_eq!(status(create(gpu, min / 2)), Status::InvalidArgument);
    assert_eq!(status(create(bogus_agent(&rt), 64)), Status::InvalidAgent);
    assert_eq!(status(create(cpu, 64)), Status::Error);
    assert_eq!(
        status(rt.create_queue(gpu, 64, QueueKind::Multiple, None, 1 << 20)),
        Status::OutOfResources
    );
    let q = create(gpu, max).unwrap();
    assert_eq!(q.size(), max);
    q.destroy().unwrap();
}

#[test]
fn signals_and_groups() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    // Handles that are no signal, and a destroyed signal (INVALID_SIGNAL).
    assert_eq!(status(rt.signal_from_handle(0)), Status::InvalidSignal);
    assert_eq!(
        status(rt.signal_from_handle(0x1234_5678)),
        Status::InvalidSignal
    );
    let s = rt.create_signal(1).unwrap();
    let h = s.handle();
    rt.signal_from_handle(h).unwrap();
    s.destroy();
    assert_eq!(status(rt.signal_from_handle(h)), Status::InvalidSignal);
    // hsa_signal_create with an invalid consumer.
    assert_eq!(
        status(rt.create_signal_for(0, &[bogus_agent(&rt)])),
        Status::InvalidAgent
    );
    // hsa_signal_group_create: no signals.
    let a = rt.create_signal(1).unwrap();
    assert_eq!(
        status(rt.create_signal_group(&[], &[gpu])),
        Status::InvalidArgument
    );
    // (hsa.h also lists num_consumers 0; ROCr's hsa_signal_group_create
    // accepts it, and so does this runtime, which follows ROCr.)
    rt.create_signal_group(&[&a], &[]).unwrap();
    // A group handle that is none, and a destroyed group.
    assert_eq!(
        status(rt.signal_group_from_handle(0)),
        Status::InvalidSignalGroup
    );
    let g = rt.create_signal_group(&[&a], &[gpu]).unwrap();
    let gh = g.handle();
    rt.signal_group_from_handle(gh).unwrap();
    g.destroy();
    assert_eq!(
        status(rt.signal_group_from_handle(gh)),
        Status::InvalidSignalGroup
    );
    // hsa_signal_group_wait_any_scacquire with mismatched lists.
    let g = rt.create_signal_group(&[&a], &[gpu]).unwrap();
    assert_eq!(
        status(g.wait_any(&[], &[], WaitState::Active, LoadOrder::Acquire)),
        Status::InvalidArgument
    );
    assert_eq!(
        status(g.wait_any(
            &[Condition::Eq, Condition::Eq],
            &[0, 0],
            WaitState::Active,
            LoadOrder::Acquire
        )),
        Status::InvalidArgument
    );
}

#[test]
fn executables_and_symbols() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    // hsa_code_object_reader_create_from_memory: size 0 (INVALID_ARGUMENT);
    // bytes that are no code object: the load says INVALID_CODE_OBJECT.
    assert_eq!(
        status(CodeObjectReader::from_memory(Vec::<u8>::new())),
        Status::InvalidArgument
    );
    let exe = rt
        .create_executable(Profile::Full, DefaultFloatRoundingMode::Default)
        .unwrap();
    let junk = CodeObjectReader::from_memory(vec![0x7fu8; 64]).unwrap();
    assert_eq!(
        status(exe.load_agent_code_object(&junk, gpu, None)),
        Status::InvalidCodeObject
    );
    // A code object for another ISA: INCOMPATIBLE_ARGUMENTS.
    let gfx1030 = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../loader-core/corpus/co/gfx1030-v5.co"
    ));
    if let Ok(bytes) = gfx1030 {
        let r = CodeObjectReader::from_memory(bytes).unwrap();
        assert_eq!(
            status(exe.load_agent_code_object(&r, gpu, None)),
            Status::IncompatibleArguments
        );
    }
    // An invalid agent.
    let demo = CodeObjectReader::from_memory(DEMO.to_vec()).unwrap();
    assert_eq!(
        status(exe.load_agent_code_object(&demo, bogus_agent(&rt), None)),
        Status::InvalidAgent
    );
    exe.load_agent_code_object(&demo, gpu, None).unwrap();
    // hsa_executable_get_symbol_by_name: no such symbol.
    assert_eq!(
        status(exe.get_symbol_by_name("nope.kd", Some(gpu))),
        Status::InvalidSymbolName
    );
    assert_eq!(status(exe.kernel("nope")), Status::InvalidSymbolName);
    // hsa_executable_agent_global_variable_define: an invalid agent, and a
    // variable defined twice. (hsa.h also lists INVALID_SYMBOL_NAME for a
    // name no code object has; ROCr, and this runtime, accept a definition
    // before the code object that refers to it is loaded.)
    assert_eq!(
        status(exe.define_agent_external_variable("ext", bogus_agent(&rt), 0x1000)),
        Status::InvalidAgent
    );
    exe.define_agent_external_variable("ext", gpu, 0x1000)
        .unwrap();
    assert_eq!(
        status(exe.define_agent_external_variable("ext", gpu, 0x2000)),
        Status::VariableAlreadyDefined
    );
    exe.define_program_external_variable("pext", 0x1000)
        .unwrap();
    assert_eq!(
        status(exe.define_program_external_variable("pext", 0x2000)),
        Status::VariableAlreadyDefined
    );
    exe.freeze(None).unwrap();
    // Frozen: loading and defining are FROZEN_EXECUTABLE.
    assert_eq!(
        status(exe.load_agent_code_object(&demo, gpu, None)),
        Status::FrozenExecutable
    );
    assert_eq!(
        status(exe.define_agent_external_variable("nope", gpu, 0x1000)),
        Status::FrozenExecutable
    );
    assert_eq!(
        status(exe.define_program_external_variable("nope", 0x1000)),
        Status::FrozenExecutable
    );
    // hsa_executable_symbol_get_info of a symbol handle that is none, and
    // of a symbol of a destroyed executable.
    let sym = exe.get_symbol_by_name("vector_add.kd", Some(gpu)).unwrap();
    rt.executable_symbol_info(sym, SymbolInfo::Type).unwrap();
    assert_eq!(
        status(rt.executable_symbol(runtime::executable::ExecutableSymbol::from_handle(0))),
        Status::InvalidExecutableSymbol
    );
    drop(exe);
    assert_eq!(
        status(rt.executable_symbol_info(sym, SymbolInfo::Type)),
        Status::InvalidExecutableSymbol
    );
}

#[test]
fn dispatch_arguments() {
    let _g = serial();
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Single, None, 0)
        .unwrap();
    let run = |args: &[ArgValue], g: Geometry| rt.dispatch(&q, &k, args, &g, GENEROUS);
    let ok_args = [
        ArgValue::Pointer(0x1000),
        ArgValue::Pointer(0x1000),
        ArgValue::Pointer(0x1000),
        ArgValue::Bytes(vec![0; 4]),
    ];
    // Wrong argument count, kind, size; zero or oversized geometry: all
    // INVALID_ARGUMENT, nothing submitted.
    assert_eq!(
        status(run(&ok_args[..3], Geometry::linear(64, 64))),
        Status::InvalidArgument
    );
    let mut a = ok_args.to_vec();
    a[3] = ArgValue::Pointer(1);
    assert_eq!(
        status(run(&a, Geometry::linear(64, 64))),
        Status::InvalidArgument
    );
    a[3] = ArgValue::Bytes(vec![0; 8]);
    assert_eq!(
        status(run(&a, Geometry::linear(64, 64))),
        Status::InvalidArgument
    );
    assert_eq!(
        status(run(&ok_args, Geometry::linear(0, 64))),
        Status::InvalidArgument
    );
    assert_eq!(
        status(run(&ok_args, Geometry::linear(64, 0))),
        Status::InvalidArgument
    );
    assert_eq!(
        status(run(&ok_args, Geometry::linear(4096, 2048))),
        Status::InvalidArgument
    );
    assert_eq!(
        q.load_write_index(std::sync::atomic::Ordering::Acquire),
        0,
        "nothing submitted"
    );
}

/// A kernel loaded for one GPU dispatched on another GPU's queue.
#[test]
fn dispatch_on_another_agents_queue() {
    let _g = serial();
    assert_eq!(
        Runtime::init_count(),
        0,
        "no runtime open: this one opens its own device"
    );
    let dev = sim::SimBuilder::new().board(sim::Board::Mi250x).build();
    let rt = Runtime::init_with(|| driver::open_sim_device(dev)).unwrap();
    let gpus: Vec<_> = rt.gpu_agents().collect();
    assert!(gpus.len() >= 2, "the MI250X board has two GPU agents");
    let exe = rt.load_executable(gpus[0], DEMO).unwrap();
    let k = exe.kernel("empty").unwrap();
    let q = rt
        .create_queue(gpus[1], 64, QueueKind::Single, None, 0)
        .unwrap();
    assert_eq!(
        status(rt.dispatch(&q, &k, &[], &Geometry::linear(64, 64), GENEROUS)),
        Status::IncompatibleArguments
    );
    let q0 = rt
        .create_queue(gpus[0], 64, QueueKind::Single, None, 0)
        .unwrap();
    rt.dispatch(&q0, &k, &[], &Geometry::linear(64, 64), GENEROUS)
        .unwrap();
}

/// Several threads at once: each creates queues, dispatches saxpy, waits,
/// checks, destroys its queue; signals and allocations come and go, and
/// none is left. (A memory fault would stop every queue of the GPU, as
/// KFD evicts them all: faults are queue_events.rs's, one at a time.)
#[test]
fn threads_create_dispatch_wait_destroy_at_once() {
    let _g = serial();
    let rt = Arc::new(rt());
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = Arc::new(rt.load_executable(gpu, DEMO).unwrap());
    let signals = rt.signal_count();
    // One dispatch first, so that what the runtime makes once (signal and
    // event pages) is not counted as the threads'.
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, 0)
        .unwrap();
    let empty = exe.kernel("empty").unwrap();
    rt.dispatch(&q, &empty, &[], &Geometry::linear(64, 64), GENEROUS)
        .unwrap();
    q.destroy().unwrap();
    let allocations = rt.allocation_count();
    let threads: Vec<_> = (0..6u32)
        .map(|t| {
            let (rt, exe) = (Arc::clone(&rt), Arc::clone(&exe));
            std::thread::spawn(move || {
                let saxpy = exe.kernel("saxpy").unwrap();
                let pool = rt.kernarg_pool().unwrap();
                for round in 0..4u32 {
                    let q = rt
                        .create_queue(gpu, 64, QueueKind::Multiple, None, 0)
                        .unwrap();
                    let n = 256u32;
                    let x = rt.allocate(pool, u64::from(n) * 4).unwrap();
                    let y = rt.allocate(pool, u64::from(n) * 4).unwrap();
                    let xs: Vec<f32> = (0..n).map(|i| (i + t) as f32).collect();
                    let ys: Vec<f32> = (0..n).map(|i| (i * round) as f32).collect();
                    // SAFETY: fresh CPU-mapped allocations of n f32s.
                    unsafe { std::ptr::copy_nonoverlapping(xs.as_ptr(), x as *mut f32, xs.len()) };
                    // SAFETY: as above.
                    unsafe { std::ptr::copy_nonoverlapping(ys.as_ptr(), y as *mut f32, ys.len()) };
                    let a = 2.0f32;
                    rt.dispatch(
                        &q,
                        &saxpy,
                        &[
                            ArgValue::Bytes(a.to_le_bytes().to_vec()),
                            ArgValue::Pointer(x),
                            ArgValue::Pointer(y),
                            ArgValue::Bytes(n.to_le_bytes().to_vec()),
                        ],
                        &Geometry::linear(n, 64),
                        GENEROUS,
                    )
                    .unwrap_or_else(|e| panic!("thread {t} round {round}: {e}"));
                    let mut got = vec![0f32; n as usize];
                    // SAFETY: the allocation of n f32s; the kernel completed.
                    unsafe {
                        std::ptr::copy_nonoverlapping(y as *const f32, got.as_mut_ptr(), got.len())
                    };
                    for i in 0..n as usize {
                        assert_eq!(got[i], a * xs[i] + ys[i], "thread {t} round {round} y[{i}]");
                    }
                    rt.free(x).unwrap();
                    rt.free(y).unwrap();
                    q.destroy().unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(
        rt.allocation_count(),
        allocations,
        "every allocation of the threads freed"
    );
    // A destroyed queue's inactive signal is let go by the async-handler
    // thread when it wakes: wait for it (bounded), then compare.
    let start = std::time::Instant::now();
    while rt.signal_count() != signals && start.elapsed() < GENEROUS {
        std::thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        rt.signal_count(),
        signals,
        "every signal of the threads released"
    );
}
