//! `SIM_TRACE` / `SimBuilder::trace`: one line per call the device
//! receives, from any client (here `Kfd<SimDevice>`, as our runtime).

use std::os::fd::AsFd;

use kfd::Kfd;
use kfd::topology::Topology;
use sim::SimBuilder;

#[test]
fn every_call_is_one_line_with_its_result() {
    let path = std::env::temp_dir().join(format!("sim-trace-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&path);
    {
        let dev = SimBuilder::new().without_shader_core().trace(&path).build();
        let topo = Topology::read(dev.topology().reader()).unwrap();
        let gpu = topo.gpus().next().unwrap();
        let kfd = Kfd::with_device(dev).unwrap();
        let node = kfd
            .open_render_node(gpu.properties.drm_render_minor)
            .unwrap();
        kfd.acquire_vm(node.as_fd(), gpu.gpu_id).unwrap();
        assert!(kfd.acquire_vm(node.as_fd(), 7).is_err());
    }
    let text = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("kfd AMDKFD_IOC_GET_VERSION version=1."),
        "{text}"
    );
    assert!(lines.contains(&"open renderD128 -> 0"), "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("kfd AMDKFD_IOC_ACQUIRE_VM gpu=0x") && l.ends_with("-> 0")),
        "{text}"
    );
    assert!(
        lines.contains(&"kfd AMDKFD_IOC_ACQUIRE_VM gpu=0x7 -> -EINVAL"),
        "{text}"
    );
}
