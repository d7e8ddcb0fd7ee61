//! `kfd-info`: the `kfd` crate as plain bindings, with nothing of the HSA
//! runtime above it (its only dependency is `kfd`).
//!
//! ```text
//! kfd-info                 # the real topology and /dev/kfd
//! kfd-info --sysfs DIR     # list the GPUs of a copy of the topology tree, and stop
//! ```
//!
//! 1. Reads the KFD topology and lists its GPUs (`gpu_id`, name, gfx
//!    target, compute units, local memory).
//! 2. Opens `/dev/kfd` and prints the KFD interface version.
//! 3. On the first GPU: opens its DRM render node and makes its VM the
//!    process's (`AMDKFD_IOC_ACQUIRE_VM`); allocates a 64 KiB GTT buffer,
//!    maps it to the GPU, unmaps and frees it; then allocates a ring, a
//!    read/write-pointer page, an end-of-pipe buffer and the context
//!    save/restore area the topology asks for, creates an AQL compute queue
//!    on them, destroys it and frees them.
//!
//! Exit status: 0 everything done; 1 a device call failed on a present
//! GPU (the typed `kfd::Error` is printed); 2 usage error; 3 no KFD device
//! here (`kfd::Error::NoDevice`: no amdgpu driver or no AMD GPU, the case of
//! a machine without a GPU); 4 `/dev/kfd` exists but may not be opened
//! (`kfd::Error::PermissionDenied`); 5 any other failure to open it or to
//! read the topology.
#![deny(unsafe_code)]

mod gpu;

use kfd::topology::{FsReader, Node, SYSFS_TOPOLOGY, Topology};
use kfd::{Error, Kfd};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Status for a device call that failed on a present GPU.
const EXIT_DEVICE_CALL: u8 = 1;
/// Status for a usage error.
const EXIT_USAGE: u8 = 2;
/// Status when there is no KFD device (no driver or no AMD GPU).
const EXIT_NO_DEVICE: u8 = 3;
/// Status when `/dev/kfd` may not be opened.
const EXIT_PERMISSION: u8 = 4;
/// Status for any other failure to open `/dev/kfd` or read the topology.
const EXIT_OTHER: u8 = 5;

const USAGE: &str = "usage: kfd-info [--sysfs DIR]
  --sysfs DIR  list the GPUs of a copy of the KFD topology (DIR holds
               generation_id, or holds topology/ that does) and stop";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sysfs = match args.as_slice() {
        [] => None,
        [flag, dir] if flag == "--sysfs" => Some(PathBuf::from(dir)),
        [flag] if flag == "--help" || flag == "-h" => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(EXIT_USAGE);
        }
    };

    let root = match &sysfs {
        Some(dir) => topology_dir(dir),
        None => PathBuf::from(SYSFS_TOPOLOGY),
    };
    let topology = match Topology::read(&FsReader::new(&root)) {
        Ok(t) => {
            list_gpus(&root, &t);
            Some(t)
        }
        Err(e) if e.is_absent() && sysfs.is_none() => {
            println!(
                "topology: none at {} (the amdgpu driver is not loaded): {e}",
                root.display()
            );
            None
        }
        Err(e) => {
            eprintln!("kfd-info: reading the topology at {}: {e}", root.display());
            return ExitCode::from(EXIT_OTHER);
        }
    };
    if sysfs.is_some() {
        // A copy of the tree: its gpu_ids are not this machine's.
        return ExitCode::SUCCESS;
    }

    let kfd = match Kfd::open() {
        Ok(k) => k,
        Err(e) => {
            println!("/dev/kfd: cannot open: {e}");
            println!("/dev/kfd: typed error: kfd::Error::{e:?}");
            return ExitCode::from(match e {
                Error::NoDevice { .. } => EXIT_NO_DEVICE,
                Error::PermissionDenied { .. } => EXIT_PERMISSION,
                _ => EXIT_OTHER,
            });
        }
    };
    let v = kfd.version();
    println!("/dev/kfd: KFD interface version {}.{}", v.major, v.minor);

    let Some(gpu) = topology.as_ref().and_then(|t| t.gpus().next()) else {
        println!("no GPU node in the topology: nothing to allocate or queue on");
        return ExitCode::SUCCESS;
    };
    match gpu::exercise(&kfd, gpu) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            println!("gpu {:#x}: {e}", gpu.gpu_id);
            ExitCode::from(EXIT_DEVICE_CALL)
        }
    }
}

/// `dir` if it holds `generation_id`, else its `topology/` if that does
/// (`kfd/fixtures/mi250x`), else `dir` (and the read says what is missing).
fn topology_dir(dir: &Path) -> PathBuf {
    let nested = dir.join("topology");
    if !dir.join("generation_id").exists() && nested.join("generation_id").exists() {
        nested
    } else {
        dir.to_owned()
    }
}

fn list_gpus(root: &Path, t: &Topology) {
    let gpus: Vec<&Node> = t.gpus().collect();
    println!(
        "topology: {} (generation {}): {} nodes, {} GPUs",
        root.display(),
        t.generation_id,
        t.nodes.len(),
        gpus.len()
    );
    for g in gpus {
        let target = g
            .properties
            .gfx_target()
            .map_or_else(|| "unknown".to_owned(), |v| v.to_string());
        println!(
            "  node {}: gpu_id {:#x} {} {} {} CUs, {} MiB local memory, /dev/dri/renderD{}",
            g.id,
            g.gpu_id,
            if g.name.is_empty() { "?" } else { &g.name },
            target,
            g.properties.cu_count(),
            g.local_memory_bytes() >> 20,
            g.properties.drm_render_minor
        );
    }
}
