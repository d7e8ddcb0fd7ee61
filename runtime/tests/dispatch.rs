//! Kernels dispatched through the runtime's public API on the software GPU.

use std::time::Duration;

#[path = "support/host_buffers.rs"]
mod host_buffers;

use host_buffers::{f32s, read_f32s, read_u32s, rt, u32s};
use runtime::{ArgValue, Geometry, QueueKind};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

#[test]
fn vector_add_on_the_default_gpu() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let q = rt
        .create_queue(gpu, 256, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let n = 1000u32;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (2 * i) as f32 + 0.5).collect();
    let (pa, pb) = (f32s(&rt, &a), f32s(&rt, &b));
    let pc = f32s(&rt, &vec![0.0; n as usize]);
    let args = [
        ArgValue::Pointer(pa),
        ArgValue::Pointer(pb),
        ArgValue::Pointer(pc),
        ArgValue::Bytes(n.to_le_bytes().to_vec()),
    ];
    rt.dispatch(
        &q,
        &k,
        &args,
        &Geometry::linear(1024, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let c = read_f32s(pc, n as usize);
    for i in 0..n as usize {
        assert_eq!(c[i], a[i] + b[i], "c[{i}]");
    }
}

/// A kernel whose private segment exceeds the queue's scratch: the packet
/// processor stops the queue with code 1, the runtime grows the scratch
/// and the dispatch completes.
#[test]
fn scratch_grows_on_the_packet_processors_request() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("private_scratch").unwrap().clone();
    assert!(
        k.private_segment_size >= 1024,
        "the kernel uses scratch: {}",
        k.private_segment_size
    );
    // No private segment hint: the queue starts without scratch.
    let q = rt
        .create_queue(gpu, 64, QueueKind::Single, None, u32::MAX)
        .unwrap();
    let n = 128usize;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 3)
        .collect();
    let pin = u32s(&rt, &input);
    let pout = u32s(&rt, &vec![0; n]);
    rt.dispatch(
        &q,
        &k,
        &[ArgValue::Pointer(pin), ArgValue::Pointer(pout)],
        &Geometry::linear(n as u32, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let out = read_u32s(pout, n);
    for i in 0..n {
        assert_eq!(out[i], input[i].wrapping_mul(input[i] & 255), "out[{i}]");
    }
}

/// An OpenCL `__local` pointer argument gets group memory after the
/// kernel's static group segment.
#[test]
fn local_pointer_argument() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("local_sum").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, 0)
        .unwrap();
    let groups = 4usize;
    let input: Vec<u32> = (0..(64 * groups) as u32).collect();
    let pin = u32s(&rt, &input);
    let pout = u32s(&rt, &vec![0; groups]);
    rt.dispatch(
        &q,
        &k,
        &[
            ArgValue::Pointer(pin),
            ArgValue::Pointer(pout),
            ArgValue::Lds(64 * 4),
        ],
        &Geometry::linear((64 * groups) as u32, 64),
        Duration::from_secs(60),
    )
    .unwrap();
    let out = read_u32s(pout, groups);
    for g in 0..groups {
        let want: u32 = input[g * 64..(g + 1) * 64].iter().sum();
        assert_eq!(out[g], want, "group {g}");
    }
}

/// Several threads create their own queues and dispatch at once.
#[test]
fn threads_dispatch_concurrently() {
    let rt = std::sync::Arc::new(rt());
    let gpu = rt.gpu_agents().next().unwrap();
    let exe = std::sync::Arc::new(rt.load_executable(gpu, DEMO).unwrap());
    let threads: Vec<_> = (0..4u32)
        .map(|t| {
            let (rt, exe) = (rt.clone(), exe.clone());
            std::thread::spawn(move || {
                let k = exe.kernel("saxpy").unwrap().clone();
                let q = rt
                    .create_queue(gpu, 64, QueueKind::Single, None, 0)
                    .unwrap();
                for round in 0..5u32 {
                    let n = 256u32;
                    let x: Vec<f32> = (0..n).map(|i| (i + t) as f32).collect();
                    let y: Vec<f32> = (0..n).map(|i| (i * round) as f32).collect();
                    let (px, py) = (f32s(&rt, &x), f32s(&rt, &y));
                    let a = 2.0f32 + t as f32;
                    rt.dispatch(
                        &q,
                        &k,
                        &[
                            ArgValue::Bytes(a.to_le_bytes().to_vec()),
                            ArgValue::Pointer(px),
                            ArgValue::Pointer(py),
                            ArgValue::Bytes(n.to_le_bytes().to_vec()),
                        ],
                        &Geometry::linear(n, 64),
                        Duration::from_secs(60),
                    )
                    .unwrap();
                    let got = read_f32s(py, n as usize);
                    for i in 0..n as usize {
                        assert_eq!(got[i], a * x[i] + y[i], "thread {t} round {round} y[{i}]");
                    }
                    rt.free(px).unwrap();
                    rt.free(py).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
fn an_inactivated_queue_refuses_packets_and_is_still_destroyed() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    let exe = rt.load_executable(gpu, DEMO).unwrap();
    let k = exe.kernel("vector_add").unwrap().clone();
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let n = 64u32;
    let (pa, pb, pc) = (
        f32s(&rt, &[1.0; 64]),
        f32s(&rt, &[2.0; 64]),
        f32s(&rt, &[0.0; 64]),
    );
    let args = [
        ArgValue::Pointer(pa),
        ArgValue::Pointer(pb),
        ArgValue::Pointer(pc),
        ArgValue::Bytes(n.to_le_bytes().to_vec()),
    ];
    let g = Geometry::linear(n, 64);
    rt.dispatch(&q, &k, &args, &g, Duration::from_secs(60))
        .unwrap();
    q.inactivate().unwrap();
    q.inactivate().unwrap();
    let e = q.submit(&[0; 16]).unwrap_err();
    assert_eq!(e.status, runtime::Status::InvalidQueue, "{e}");
    let e = rt
        .dispatch(&q, &k, &args, &g, Duration::from_secs(60))
        .unwrap_err();
    assert_eq!(e.status, runtime::Status::InvalidQueue, "{e}");
    q.destroy().unwrap();
    for p in [pa, pb, pc] {
        rt.free(p).unwrap();
    }
}

/// A kernel that never ends: the dispatch's wait gives up with an error
/// naming the kernel, and destroying the queue (dropping it:
/// `hsa_queue_destroy`) preempts the kernel instead of waiting for it, as
/// amdkfd's DESTROY_QUEUE does. The runtime runs on.
#[test]
fn destroying_a_queue_stops_a_kernel_that_never_ends() {
    let rt = rt();
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    let spin = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sim/tests/kernels/spin.co"
    ))
    .unwrap();
    let exe = rt.load_executable(gpu, &spin).unwrap();
    let k = exe.kernel("spin_until_released").unwrap().clone();
    let flags = u32s(&rt, &[0, 0]);
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    let args = [ArgValue::Pointer(flags)];
    let g = Geometry::linear(256, 64);
    let e = rt
        .dispatch(&q, &k, &args, &g, Duration::from_millis(300))
        .unwrap_err();
    assert!(
        e.message
            .contains("kernel spin_until_released did not complete within"),
        "{e:?}"
    );
    assert_eq!(read_u32s(flags, 2), [1, 0], "it ran and was never released");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        drop(q);
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(60))
        .expect("hsa_queue_destroy waited for a kernel that never ends");
    // A new queue runs it to the end once it is released.
    let q = rt
        .create_queue(gpu, 64, QueueKind::Multiple, None, u32::MAX)
        .unwrap();
    // SAFETY: flags + 4 is the second u32 of a live allocation of two.
    unsafe { ((flags + 4) as *mut u32).write_volatile(1) };
    rt.dispatch(&q, &k, &args, &g, Duration::from_secs(60))
        .unwrap();
}
