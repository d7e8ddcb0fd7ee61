//! `hsa run CODEOBJ KERNEL --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg SPEC]...
//! [--dynamic-lds BYTES] [--private-segment-size BYTES] [--dump DIR] [--agent N] [--repeat N] [--json]`:
//! one kernel dispatched through the runtime.
//!
//! The code object (an ELF, an offload bundle or a HIP fat binary: the
//! entry for the agent's ISA is picked) is loaded on GPU agent `N` (0 is
//! the first GPU), one `--arg` per explicit kernel argument is checked
//! against the kernel's metadata and filled in (`runtime::argspec`: scalars,
//! `buf:TYPE:COUNT=INIT` buffers in fine-grained system memory, `lds:BYTES`
//! group memory), the hidden arguments come from the metadata
//! (`kernarg::build`), and the kernel is dispatched `--repeat` times on one
//! queue (the buffers are not reset between runs), each time waiting for
//! its completion signal. `--grid` is the AQL `grid_size` in work-items,
//! `--block` the work-group size.
//!
//! Exit status: 0 when every dispatch completed; 1 when the kernel faulted
//! (standard error says the kind, the kernel and the address) or the
//! runtime failed; 2 for a usage error (a bad command line, a file that
//! cannot be read, a kernel the object lacks, an argument that does not fit
//! its kernel argument, a geometry the kernel refuses), each naming what
//! was wrong.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use runtime::argspec::{self, ArgSpec, SpecValue};
use runtime::kernarg::{ArgKind, Geometry};
use runtime::{KernelSymbol, QueueKind, Runtime, Status};
use serde_json::{Value, json};

use crate::json;

/// Arguments of `hsa run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The code object: an AMDGPU ELF, an offload bundle or a HIP binary.
    codeobj: PathBuf,
    /// The kernel's name (without `.kd`).
    kernel: String,
    /// Grid size in work-items (the AQL packet's grid_size): X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_grid)]
    grid: [u32; 3],
    /// Work-group size: X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_block)]
    block: [u16; 3],
    /// One per explicit kernel argument, in order: TYPE:VALUE,
    /// buf:TYPE:COUNT=INIT (INIT zero, iota, fill:V, file:PATH) or lds:BYTES.
    #[arg(long = "arg", value_name = "SPEC")]
    args: Vec<String>,
    /// Dynamic group memory (HIP's extern __shared__), bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    dynamic_lds: u32,
    /// Private segment (scratch) bytes per work-item, when more than the
    /// kernel's `.private_segment_fixed_size`: the stack of a kernel whose
    /// compiler could not size it (recursion, calls through pointers).
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    private_segment_size: u32,
    /// After completion, write each buffer argument K to DIR/argK.bin.
    #[arg(long, value_name = "DIR")]
    dump: Option<PathBuf>,
    /// The GPU agent: 0 is the first GPU.
    #[arg(long, value_name = "N", default_value_t = 0)]
    agent: usize,
    /// Dispatch the kernel N times (on the same buffers).
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

fn parse_dims(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{s:?}: expected X, X,Y or X,Y,Z"));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p
            .trim()
            .parse::<u32>()
            .map_err(|e| format!("{s:?}: {p:?} is not a size ({e})"))?;
        if out[i] == 0 {
            return Err(format!("{s:?}: a size of 0"));
        }
    }
    Ok(out)
}

fn parse_grid(s: &str) -> Result<[u32; 3], String> {
    parse_dims(s)
}

fn parse_block(s: &str) -> Result<[u16; 3], String> {
    let d = parse_dims(s)?;
    let mut out = [1u16; 3];
    for i in 0..3 {
        out[i] = u16::try_from(d[i])
            .map_err(|_| format!("{s:?}: {} exceeds a work-group size (65535)", d[i]))?;
    }
    Ok(out)
}

/// How the subcommand failed.
enum Failure {
    /// A usage error: exit 2.
    Usage(String),
    /// The runtime failed: exit 1.
    Runtime(String),
    /// The kernel faulted: exit 1, with the report.
    Fault(String, Value),
}

/// Runs the subcommand.
pub fn run(args: &Args) -> ExitCode {
    match run_inner(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(m)) => {
            eprintln!("hsa: run: {m}");
            ExitCode::from(2)
        }
        Err(Failure::Runtime(m)) => {
            eprintln!("hsa: run: {m}");
            ExitCode::FAILURE
        }
        Err(Failure::Fault(m, report)) => {
            if args.json {
                let _ = json::print(&report, false);
            }
            eprintln!("hsa: run: {m}");
            ExitCode::FAILURE
        }
    }
}

/// One argument, as prepared: its spec and, for a buffer, its memory.
struct Prepared {
    spec: ArgSpec,
    buffer: Option<(u64, u64)>,
}

fn run_inner(args: &Args) -> Result<(), Failure> {
    let bytes = std::fs::read(&args.codeobj)
        .map_err(|e| Failure::Usage(format!("{}: {e}", args.codeobj.display())))?;
    let specs = args
        .args
        .iter()
        .map(|s| ArgSpec::parse(s).map_err(|e| Failure::Usage(e.to_string())))
        .collect::<Result<Vec<_>, _>>()?;
    let rt = Runtime::init_with(crate::info::open_device)
        .map_err(|e| Failure::Runtime(format!("the runtime did not start: {}", e.message)))?;
    // `hsa run` reports a memory fault itself (kind, kernel, address), so it
    // takes the system event: the runtime then prints no ROCr fault line.
    rt.register_system_event_handler(Box::new(|_| runtime::Status::Success));
    let gpus: Vec<_> = rt.gpu_agents().collect();
    let agent = *gpus.get(args.agent).ok_or_else(|| {
        Failure::Usage(match gpus.len() {
            0 => format!("--agent {}: the runtime found no GPU agent", args.agent),
            1 => format!("--agent {}: the runtime has 1 GPU agent, 0", args.agent),
            n => format!(
                "--agent {}: the runtime has {n} GPU agents, 0 to {}",
                args.agent,
                n - 1
            ),
        })
    })?;
    let agent_name = rt.agent(agent).map(|r| r.name.clone()).unwrap_or_default();
    let exe = rt.load_executable(agent, &bytes).map_err(|e| {
        let what = format!("{}: {}", args.codeobj.display(), e.message);
        if e.status == Status::OutOfResources {
            Failure::Runtime(what)
        } else {
            Failure::Usage(what)
        }
    })?;
    let k = exe.kernel(&args.kernel).map_err(|_| {
        let names: Vec<String> = exe.kernels().iter().map(|k| k.name.clone()).collect();
        Failure::Usage(format!(
            "{} has no kernel {:?} (it has: {})",
            args.codeobj.display(),
            args.kernel,
            names.join(", ")
        ))
    })?;
    let layout = k
        .layout
        .as_ref()
        .map_err(|e| Failure::Usage(format!("kernel {}: its kernarg layout: {e}", k.name)))?;
    argspec::check_all(&specs, layout).map_err(|e| match e {
        argspec::ArgSpecError::Count { .. } => {
            let list: Vec<String> = layout
                .explicit
                .iter()
                .map(|a| match argspec::spec_form(a) {
                    Ok(form) => format!("{} (--arg {form})", a.describe()),
                    Err(why) => format!("{} (no --arg form: {why})", a.describe()),
                })
                .collect();
            Failure::Usage(format!(
                "kernel {}: {e}: {}",
                k.name,
                if list.is_empty() {
                    "it has none".to_owned()
                } else {
                    list.join("; ")
                }
            ))
        }
        e => Failure::Usage(e.to_string()),
    })?;
    let geometry = Geometry::new(args.grid, args.block)
        .with_dynamic_lds(args.dynamic_lds)
        .with_private_segment_size(args.private_segment_size);
    geometry
        .check(layout)
        .map_err(|e| Failure::Usage(format!("kernel {}: {e}", k.name)))?;

    let pool = rt.kernarg_pool().map_err(|e| Failure::Runtime(e.message))?;
    let mut prepared = Vec::new();
    let result = (|| {
        for spec in specs {
            let contents = spec
                .buffer_contents()
                .map_err(|e| Failure::Usage(e.to_string()))?;
            let buffer = match contents {
                Some(data) => {
                    let size = data.len() as u64;
                    let va = rt.allocate(pool, size).map_err(|e| {
                        Failure::Runtime(format!("--arg {}: {}", spec.text(), e.message))
                    })?;
                    // SAFETY: a fresh CPU-mapped allocation of `size` bytes.
                    unsafe {
                        std::ptr::copy_nonoverlapping(data.as_ptr(), va as *mut u8, data.len())
                    };
                    Some((va, size))
                }
                None => None,
            };
            prepared.push(Prepared { spec, buffer });
        }
        dispatch(&rt, args, &k, agent, &agent_name, &geometry, &prepared)
    })();
    for p in &prepared {
        if let Some((va, _)) = p.buffer {
            let _ = rt.free(va);
        }
    }
    result
}

#[allow(clippy::too_many_arguments)]
fn dispatch(
    rt: &Runtime,
    args: &Args,
    k: &KernelSymbol,
    agent: runtime::Agent,
    agent_name: &str,
    geometry: &Geometry,
    prepared: &[Prepared],
) -> Result<(), Failure> {
    let values: Vec<_> = prepared
        .iter()
        .map(|p| p.spec.arg_value(p.buffer.map_or(0, |b| b.0)))
        .collect();
    let queue = rt
        .create_queue(agent, 64, QueueKind::Single, None, 0)
        .map_err(|e| Failure::Runtime(format!("queue: {}", e.message)))?;
    let seg = rt
        .build_kernarg(&queue, k, &values, geometry)
        .map_err(|e| Failure::Usage(e.message))?;
    let kernarg = rt
        .allocate(
            rt.kernarg_pool().map_err(|e| Failure::Runtime(e.message))?,
            seg.bytes.len().max(16) as u64,
        )
        .map_err(|e| Failure::Runtime(format!("kernarg segment: {}", e.message)))?;
    // SAFETY: a fresh CPU-mapped allocation of at least seg.bytes.len() bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(seg.bytes.as_ptr(), kernarg as *mut u8, seg.bytes.len())
    };
    let result = (|| {
        let signal = rt
            .create_signal(1)
            .map_err(|e| Failure::Runtime(format!("completion signal: {}", e.message)))?;
        let mut times = Vec::new();
        for _ in 0..args.repeat {
            signal.store(1, signal_core::StoreOrder::Release);
            let start = Instant::now();
            rt.submit_dispatch(
                &queue,
                k,
                kernarg,
                geometry,
                seg.group_segment_size,
                &signal,
            )
            .map_err(|e| Failure::Runtime(format!("dispatch: {}", e.message)))?;
            loop {
                if signal
                    .wait_zero(Duration::from_millis(5))
                    .map_err(|e| Failure::Runtime(format!("wait: {}", e.message)))?
                {
                    break;
                }
                if let Some(status) = queue.error() {
                    return Err(fault(rt, args, k, agent, status, geometry, prepared));
                }
            }
            times.push(start.elapsed().as_nanos() as u64);
        }
        if let Some(dir) = &args.dump {
            dump(dir, prepared)?;
        }
        report(args, k, agent_name, geometry, prepared, &times)
    })();
    let _ = rt.free(kernarg);
    result
}

/// The fault report: kind, kernel, address (a memory fault's page; for the
/// other kinds the queue reports no address, so the kernel object's).
fn fault(
    rt: &Runtime,
    args: &Args,
    k: &KernelSymbol,
    agent: runtime::Agent,
    status: Status,
    geometry: &Geometry,
    prepared: &[Prepared],
) -> Failure {
    let kind = match status {
        Status::MemoryFault => "memory fault",
        Status::Exception => "trap",
        Status::IllegalInstruction => "illegal instruction",
        Status::InvalidPacketFormat => "invalid packet",
        Status::MemoryApertureViolation => "memory aperture violation",
        Status::InvalidAllocation => "invalid group memory size",
        Status::InvalidIsa => "out of registers",
        Status::OutOfResources => "out of scratch",
        _ => "queue error",
    };
    let gpu_id = rt.agent(agent).map(|r| r.gpu_id).ok();
    let mem = (status == Status::MemoryFault)
        .then(|| rt.last_memory_fault())
        .flatten()
        .filter(|f| Some(f.gpu_id) == gpu_id);
    let (address, what) = match &mem {
        Some(f) => {
            let mut why = Vec::new();
            if f.not_present {
                why.push("page not present");
            }
            if f.read_only {
                why.push("write to a read-only page");
            }
            if f.no_execute {
                why.push("execute of a non-executable page");
            }
            if f.imprecise {
                why.push("imprecise");
            }
            let why = if why.is_empty() {
                String::new()
            } else {
                format!(" ({})", why.join(", "))
            };
            (f.address, format!("at address {:#x}{why}", f.address))
        }
        None => (
            k.kernel_object,
            format!(
                "at kernel object {:#x} (the queue reports no fault address)",
                k.kernel_object
            ),
        ),
    };
    let message = format!("{kind} ({status}) in kernel {} {what}", k.name);
    let report = json!({
        "kernel": k.name,
        "agent": args.agent,
        "grid": geometry.grid,
        "block": geometry.workgroup,
        "fault": {
            "kind": kind,
            "status": status.c_name(),
            "address": format!("{address:#x}"),
            "memory_fault": mem.is_some(),
        },
        "arguments": arguments_json(prepared),
    });
    Failure::Fault(message, report)
}

fn dump(dir: &Path, prepared: &[Prepared]) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Runtime(format!("--dump {}: {e}", dir.display())))?;
    for (i, p) in prepared.iter().enumerate() {
        let Some((va, size)) = p.buffer else { continue };
        let mut data = vec![0u8; size as usize];
        // SAFETY: the buffer's CPU-mapped allocation of `size` bytes; the
        // kernel completed (its completion signal reached 0, with acquire).
        unsafe { std::ptr::copy_nonoverlapping(va as *const u8, data.as_mut_ptr(), data.len()) };
        let file = dir.join(format!("arg{i}.bin"));
        std::fs::write(&file, &data)
            .map_err(|e| Failure::Runtime(format!("--dump {}: {e}", file.display())))?;
    }
    Ok(())
}

fn arguments_json(prepared: &[Prepared]) -> Vec<Value> {
    prepared
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mut v = json!({ "index": i, "spec": p.spec.text() });
            match p.spec.value() {
                SpecValue::Scalar { ty, .. } => {
                    v["kind"] = json!("by_value");
                    v["type"] = json!(ty.as_str());
                }
                SpecValue::Buffer { ty, count, .. } => {
                    v["kind"] = json!(ArgKind::GlobalBuffer.as_str());
                    v["type"] = json!(ty.as_str());
                    v["count"] = json!(count);
                    if let Some((va, size)) = p.buffer {
                        v["address"] = json!(format!("{va:#x}"));
                        v["bytes"] = json!(size);
                    }
                }
                SpecValue::Lds { bytes } => {
                    v["kind"] = json!(ArgKind::DynamicSharedPointer.as_str());
                    v["bytes"] = json!(bytes);
                }
            }
            v
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn report(
    args: &Args,
    k: &KernelSymbol,
    agent_name: &str,
    geometry: &Geometry,
    prepared: &[Prepared],
    times: &[u64],
) -> Result<(), Failure> {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    let median = sorted.get(sorted.len() / 2).copied().unwrap_or(0);
    let g = geometry;
    if args.json {
        let v = json!({
            "kernel": k.name,
            "agent": args.agent,
            "agent_name": agent_name,
            "grid": g.grid,
            "block": g.workgroup,
            "dynamic_lds": g.dynamic_lds,
            "private_segment_size": g.private_segment_for(k.private_segment_size),
            "repeat": args.repeat,
            "dispatch_ns": median,
            "dispatch_ns_each": times,
            "arguments": arguments_json(prepared),
        });
        return json::print(&v, false)
            .map_err(|e| Failure::Runtime(format!("cannot write the report: {e}")));
    }
    let mut out = format!(
        "kernel {} on GPU agent {} ({agent_name}): grid {}x{}x{}, block {}x{}x{}",
        k.name,
        args.agent,
        g.grid[0],
        g.grid[1],
        g.grid[2],
        g.workgroup[0],
        g.workgroup[1],
        g.workgroup[2]
    );
    if g.dynamic_lds > 0 {
        out.push_str(&format!(", dynamic LDS {} bytes", g.dynamic_lds));
    }
    if g.private_segment_size > k.private_segment_size {
        out.push_str(&format!(
            ", private segment {} bytes per work-item",
            g.private_segment_size
        ));
    }
    out.push('\n');
    if args.repeat == 1 {
        out.push_str(&format!("completed in {median} ns\n"));
    } else {
        out.push_str(&format!(
            "{} dispatches completed: median {median} ns, min {} ns, max {} ns\n",
            args.repeat,
            sorted.first().copied().unwrap_or(0),
            sorted.last().copied().unwrap_or(0)
        ));
    }
    for (i, p) in prepared.iter().enumerate() {
        out.push_str(&format!("arg {i}: {}", p.spec.text()));
        if let Some((va, size)) = p.buffer {
            out.push_str(&format!(" at {va:#x} ({size} bytes)"));
            if let Some(dir) = &args.dump {
                out.push_str(&format!(
                    " -> {}",
                    dir.join(format!("arg{i}.bin")).display()
                ));
            }
        }
        out.push('\n');
    }
    use std::io::Write as _;
    match std::io::stdout().lock().write_all(out.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::Runtime(format!("cannot write the report: {e}")))
        }
        _ => Ok(()),
    }
}
