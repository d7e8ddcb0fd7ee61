//! IPC memory through the public API on the sim, across two real
//! processes (this test binary re-executed as the other one): the other
//! process sees and writes the same bytes, and a kernel dispatched there
//! reads them; forged, stale and dead-exporter handles are errors.

use std::process::{Command, Stdio};
use std::time::Duration;

use runtime::ipc::IpcMemoryHandle;
use runtime::{ArgValue, Geometry, MemoryPool, QueueKind, Runtime, Status, driver};
use signal_core::{Condition, LoadOrder, StoreOrder, WaitState};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");
const N: usize = 1024;

fn rt() -> Runtime {
    Runtime::init_with(driver::open_sim).unwrap()
}

fn vram(rt: &Runtime) -> MemoryPool {
    let gpu = rt.gpu_agents().next().unwrap();
    rt.pools(gpu)
        .unwrap()
        .into_iter()
        .find(|p| rt.pool(*p).unwrap().kind == runtime::memory::PoolKind::Vram)
        .unwrap()
}

fn encode(h: &IpcMemoryHandle) -> String {
    h.0.iter().map(|w| format!("{w:08x}")).collect()
}

fn decode(s: &str) -> IpcMemoryHandle {
    let mut w = [0u32; 8];
    for (i, x) in w.iter_mut().enumerate() {
        *x = u32::from_str_radix(&s[i * 8..i * 8 + 8], 16).unwrap();
    }
    IpcMemoryHandle(w)
}

fn f32s_at(p: u64, n: usize) -> Vec<f32> {
    let mut v = vec![0f32; n];
    // SAFETY: CPU-mapped memory of at least n f32s, nothing writes it now.
    unsafe { std::ptr::copy_nonoverlapping(p as *const f32, v.as_mut_ptr(), n) };
    v
}

fn put_f32s(p: u64, v: &[f32]) {
    // SAFETY: CPU-mapped memory of at least v.len() f32s.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), p as *mut f32, v.len()) };
}

/// The other process: `ROCR_RS_IPC_CHILD` says what to do.
#[test]
fn child() {
    let Ok(mode) = std::env::var("ROCR_RS_IPC_CHILD") else {
        return;
    };
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    match mode.as_str() {
        "attach" => {
            let h = decode(&std::env::var("ROCR_RS_IPC_HANDLE").unwrap());
            let p = rt
                .ipc_memory_attach(&h, (2 * N * 4) as u64, &[gpu])
                .unwrap();
            // The exporter's bytes: a = i, b = 2i.
            let a = f32s_at(p, N);
            assert!(a.iter().enumerate().all(|(i, &x)| x == i as f32));
            // A kernel here reads them: c = a + b.
            let exe = rt.load_executable(gpu, DEMO).unwrap();
            let k = exe.kernel("vector_add").unwrap().clone();
            let q = rt
                .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
                .unwrap();
            let c = rt.allocate(vram(&rt), (N * 4) as u64).unwrap();
            rt.dispatch(
                &q,
                &k,
                &[
                    ArgValue::Pointer(p),
                    ArgValue::Pointer(p + (N * 4) as u64),
                    ArgValue::Pointer(c),
                    ArgValue::Bytes((N as u32).to_le_bytes().to_vec()),
                ],
                &Geometry::linear(N as u32, 64),
                Duration::from_secs(120),
            )
            .unwrap();
            let got = f32s_at(c, N);
            assert!(got.iter().enumerate().all(|(i, &x)| x == 3.0 * i as f32));
            // And writes back where the exporter looks: a = -1.
            put_f32s(p, &vec![-1.0; N]);
            rt.ipc_memory_detach(p).unwrap();
            println!("child: attached, kernel ok, wrote back");
        }
        "signal" => {
            let h = decode(&std::env::var("ROCR_RS_IPC_HANDLE").unwrap());
            let s = rt.ipc_signal_attach(&h).unwrap();
            assert_eq!(s.load(LoadOrder::Acquire), 1, "the exporter's value");
            s.store(0, StoreOrder::Release);
            // Blocked until the exporter stores 7.
            let v = s
                .wait(
                    Condition::Eq,
                    7,
                    60_000_000_000,
                    WaitState::Blocked,
                    LoadOrder::Acquire,
                )
                .unwrap();
            println!("child: saw {v}");
        }
        "export-and-exit" => {
            let p = rt.allocate(vram(&rt), 65536).unwrap();
            let h = rt.ipc_memory_create(p, 65536).unwrap();
            println!("handle {}", encode(&h));
        }
        other => panic!("unknown child mode {other}"),
    }
}

fn child_cmd(mode: &str) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args(["--exact", "child", "--nocapture", "--test-threads", "1"])
        .env("ROCR_RS_IPC_CHILD", mode)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

#[test]
fn another_process_sees_writes_and_computes_on_shared_memory() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let buf = rt.allocate(vram(&rt), 1 << 20).unwrap();
    // The shared part starts 4 KiB into the allocation (a pointer inside
    // an allocation, as ROCr allows).
    let p = buf + 4096;
    let a: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..N).map(|i| 2.0 * i as f32).collect();
    put_f32s(p, &a);
    put_f32s(p + (N * 4) as u64, &b);
    let h = rt.ipc_memory_create(p, (2 * N * 4) as u64).unwrap();
    let out = child_cmd("attach")
        .env("ROCR_RS_IPC_HANDLE", encode(&h))
        .output()
        .unwrap();
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "child failed:\n{so}\n{se}");
    assert!(
        so.contains("child: attached, kernel ok, wrote back"),
        "{so}"
    );
    assert_eq!(f32s_at(p, N), vec![-1.0; N], "the child's writes are here");
    assert_eq!(f32s_at(p + (N * 4) as u64, N), b, "b untouched");

    // The same process may attach too: a second mapping of the same bytes.
    let q = rt.ipc_memory_attach(&h, 16, &[gpu]).unwrap();
    assert_ne!(q, p);
    // As ROCr reports libhsakmt's REGISTERED_SHARED memory.
    assert_eq!(rt.amd_pointer_info(q).kind, runtime::PointerType::Ipc);
    assert_eq!(rt.amd_pointer_info(p).kind, runtime::PointerType::Hsa);
    put_f32s(q, &[7.0]);
    assert_eq!(f32s_at(p, 1), vec![7.0]);
    rt.ipc_memory_detach(q).unwrap();
    assert_eq!(
        rt.ipc_memory_detach(q).unwrap_err().status,
        Status::InvalidArgument
    );

    // Forged and corrupted handles.
    let mut bad = h;
    bad.0[1] ^= 1;
    assert_eq!(
        rt.ipc_memory_attach(&bad, 16, &[gpu]).unwrap_err().status,
        Status::InvalidArgument
    );
    let zero = IpcMemoryHandle::default();
    assert_eq!(
        rt.ipc_memory_attach(&zero, 16, &[gpu]).unwrap_err().status,
        Status::InvalidArgument
    );
    // More bytes than the handle covers.
    assert_eq!(
        rt.ipc_memory_attach(&h, (2 * N * 4 + 1) as u64, &[gpu])
            .unwrap_err()
            .status,
        Status::InvalidArgument
    );
    // No GPU agent to map it for.
    let cpu = rt
        .agents()
        .find(|a| !rt.agent(*a).unwrap().is_gpu())
        .unwrap();
    assert_eq!(
        rt.ipc_memory_attach(&h, 16, &[cpu]).unwrap_err().status,
        Status::InvalidArgument
    );
    // A range outside one allocation cannot be exported.
    assert_eq!(
        rt.ipc_memory_create(buf, (1 << 20) + 1).unwrap_err().status,
        Status::InvalidArgument
    );

    // Stale: once the exporter frees the memory the handle is dead.
    rt.free(buf).unwrap();
    let e = rt.ipc_memory_attach(&h, 16, &[gpu]).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
}

#[test]
fn a_handle_of_an_exited_process_is_an_error() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let out = child_cmd("export-and-exit").output().unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{so}");
    let line = so
        .lines()
        .find_map(|l| l.split_once("handle ").map(|(_, h)| h))
        .expect("the child printed its handle");
    let h = decode(line);
    let e = rt.ipc_memory_attach(&h, 16, &[gpu]).unwrap_err();
    assert_eq!(e.status, Status::InvalidArgument, "{e}");
}

#[test]
fn an_ipc_signal_is_stored_and_waited_on_across_processes() {
    let rt = rt();
    let s = rt.create_ipc_signal(1).unwrap();
    let h = rt.ipc_signal_create(&s).unwrap();
    // A signal of the slabs is not shareable.
    let plain = rt.create_signal(1).unwrap();
    assert_eq!(
        rt.ipc_signal_create(&plain).unwrap_err().status,
        Status::InvalidSignal
    );
    let child = child_cmd("signal")
        .env("ROCR_RS_IPC_HANDLE", encode(&h))
        .spawn()
        .unwrap();
    // Woken (within a poll slice) by the other process's store.
    assert!(
        s.wait_zero(Duration::from_secs(60)).unwrap(),
        "child stored 0"
    );
    s.store(7, StoreOrder::Release);
    let out = child.wait_with_output().unwrap();
    let so = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{so}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(so.contains("child: saw 7"), "{so}");
}
