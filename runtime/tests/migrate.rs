//! `hsa_amd_memory_migrate` (`Runtime::migrate`) on the sim: an
//! allocation moves between a GPU's VRAM pool and a system pool at the
//! same address, its contents and agents' access kept, a kernel reading
//! and writing it in each place; `pointer_info` names the new pool; the
//! refusals are typed. ROCr has no implementation to compare with (it
//! answers `OUT_OF_RESOURCES`); the argument checks before it are ROCr's
//! (tests/c/status_diff.c).

use std::time::Duration;

#[path = "support/host_buffers.rs"]
mod host_buffers;

use host_buffers::{read_f32s, write_f32s};
use runtime::driver;
use runtime::memory::{MemoryPool, PoolKind};
use runtime::{ArgValue, Geometry, QueueKind, Runtime, Status};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

fn pool_of_kind(rt: &Runtime, agent: runtime::agent::Agent, kind: PoolKind) -> MemoryPool {
    rt.pools(agent)
        .unwrap()
        .into_iter()
        .find(|&p| rt.pool(p).unwrap().kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} pool"))
}

#[test]
fn an_allocation_migrates_between_vram_and_system_memory_in_place() {
    let rt = Runtime::init_with(driver::open_sim).expect("runtime on the sim");
    let gpu = rt.gpu_agents().next().unwrap();
    let cpu = rt
        .agents()
        .find(|&a| !rt.agent(a).unwrap().is_gpu())
        .unwrap();
    let vram = pool_of_kind(&rt, gpu, PoolKind::Vram);
    let system = pool_of_kind(&rt, cpu, PoolKind::SystemCoarse);
    let group = pool_of_kind(&rt, gpu, PoolKind::Group);
    assert!(rt.can_migrate(vram, system).unwrap());
    assert!(rt.can_migrate(system, vram).unwrap());
    assert!(!rt.can_migrate(vram, group).unwrap());

    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let q = rt
        .create_queue(gpu, 256, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let n = 3000usize; // three pages and a bit: a multi-page buffer
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 + i as f32).collect();
    let pa = rt.allocate(system, (n * 4) as u64).unwrap();
    let pb = rt.allocate(system, (n * 4) as u64).unwrap();
    let pc = rt.allocate(vram, (n * 4) as u64).unwrap();
    write_f32s(pa, &a);
    write_f32s(pb, &b);
    write_f32s(pc, &vec![-1.0; n]);
    let add = |out: u64| {
        let args = [
            ArgValue::Pointer(pa),
            ArgValue::Pointer(pb),
            ArgValue::Pointer(out),
            ArgValue::Bytes((n as u32).to_le_bytes().to_vec()),
        ];
        rt.dispatch(
            &q,
            &k,
            &args,
            &Geometry::linear(n.next_multiple_of(64) as u32, 64),
            Duration::from_secs(60),
        )
        .unwrap();
    };
    let sums: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();

    // In VRAM: the kernel writes c.
    add(pc);
    assert_eq!(read_f32s(pc, n), sums);
    assert_eq!(rt.pointer_info(pc).unwrap().pool, Some(vram.index()));

    // To system memory: same address, same contents, the GPU still reaches
    // it (its kernel overwrites c after the CPU scribbled on it).
    rt.migrate(pc, system).unwrap();
    let info = rt.pointer_info(pc).unwrap();
    assert_eq!((info.start, info.pool), (pc, Some(system.index())));
    assert_eq!(read_f32s(pc, n), sums, "contents after VRAM -> system");
    write_f32s(pc, &vec![7.0; n]);
    add(pc);
    assert_eq!(read_f32s(pc, n), sums);

    // Into a pool it is in: nothing happens.
    rt.migrate(pc, system).unwrap();
    assert_eq!(rt.pointer_info(pc).unwrap().pool, Some(system.index()));

    // The input a, to VRAM while c goes back too: the kernel reads a there.
    rt.migrate(pa, vram).unwrap();
    rt.migrate(pc, vram).unwrap();
    assert_eq!(read_f32s(pa, n), a, "contents after system -> VRAM");
    write_f32s(pc, &vec![0.0; n]);
    add(pc);
    assert_eq!(read_f32s(pc, n), sums);
    assert_eq!(rt.pointer_info(pa).unwrap().pool, Some(vram.index()));

    // Refusals: not the start of an allocation, no allocation, a pool that
    // takes no allocations.
    let e = rt.migrate(pc + 4096, system).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    let e = rt.migrate(0x1000, system).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
    let e = rt.migrate(pc, group).unwrap_err();
    assert_eq!(e.status, Status::InvalidMemoryPool, "{e}");
    assert_eq!(
        read_f32s(pc, n),
        sums,
        "a refused migration changes nothing"
    );

    for p in [pa, pb, pc] {
        rt.free(p).unwrap();
    }
    q.destroy().unwrap();
}
