//! The attribute queries through the runtime's API on the software GPU,
//! and the attribute enums and C layouts checked against the ROCr 5.2.3
//! headers in /usr/include/hsa by a C probe (clang-19).

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

use runtime::driver;
use runtime::info::{
    ACCESS_ALLOWED_BY_DEFAULT, ACCESS_DISALLOWED_BY_DEFAULT, AgentInfo, AgentMemoryPoolInfo,
    AmdAgentInfo, InfoValue, IsaInfo, PoolInfo, RegionInfo, SystemInfo,
};
use runtime::{Agent, MemoryPool, Runtime, Status};

fn runtime() -> Runtime {
    Runtime::init_with(driver::open_sim).expect("runtime on the sim")
}

fn cpu_gpu(rt: &Runtime) -> (Agent, Agent) {
    let cpu = rt
        .agents()
        .find(|a| !rt.agent(*a).unwrap().is_gpu())
        .expect("a CPU agent");
    let gpu = rt.gpu_agents().next().expect("a GPU agent");
    (cpu, gpu)
}

/// Compiles and runs a C program against the installed HSA headers;
/// returns `NAME VALUE` lines as a map.
fn c_probe(body: &str) -> BTreeMap<String, u64> {
    static PROBES: AtomicU32 = AtomicU32::new(0);
    let n = PROBES.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hsa-info-probe-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("probe.c");
    let exe = dir.join("probe");
    std::fs::write(
        &src,
        format!(
            "#include <stdio.h>\n#include <stddef.h>\n#include <hsa/hsa.h>\n#include <hsa/hsa_ext_amd.h>\n\
             #define P(x) printf(\"%s %llu\\n\", #x, (unsigned long long)(x));\n\
             int main(void) {{\n{body}\nreturn 0;\n}}\n"
        ),
    )
    .unwrap();
    let out = Command::new("clang-19")
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .output()
        .expect("clang-19 not found: install Debian package clang-19");
    assert!(
        out.status.success(),
        "probe did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(run.status.success());
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (k, v) = l.rsplit_once(' ').unwrap();
            (k.to_owned(), v.parse().unwrap())
        })
        .collect()
}

#[test]
fn attribute_values_are_the_headers_enumerators() {
    let mut names: Vec<(&str, u32)> = Vec::new();
    names.extend(SystemInfo::ALL.iter().map(|a| (a.c_name(), a.raw())));
    names.extend(AgentInfo::ALL.iter().map(|a| (a.c_name(), a.raw())));
    names.extend(AmdAgentInfo::ALL.iter().map(|a| (a.c_name(), a.raw())));
    names.extend(IsaInfo::ALL.iter().map(|a| (a.c_name(), a.raw())));
    names.extend(PoolInfo::ALL.iter().map(|a| (a.c_name(), a.raw())));
    names.extend(RegionInfo::ALL.iter().map(|a| (a.c_name(), a.raw())));
    names.extend(
        AgentMemoryPoolInfo::ALL
            .iter()
            .map(|a| (a.c_name(), a.raw())),
    );
    let body: String = names.iter().map(|(n, _)| format!("P({n})\n")).collect();
    let c = c_probe(&body);
    for (name, value) in names {
        assert_eq!(c.get(name), Some(&u64::from(value)), "{name}");
    }
}

#[test]
fn value_sizes_and_layouts_are_the_headers() {
    let c = c_probe(
        "P(sizeof(hsa_amd_memory_pool_link_info_t))\n\
         P(offsetof(hsa_amd_memory_pool_link_info_t, atomic_support_32bit))\n\
         P(offsetof(hsa_amd_memory_pool_link_info_t, atomic_support_64bit))\n\
         P(offsetof(hsa_amd_memory_pool_link_info_t, coherent_support))\n\
         P(offsetof(hsa_amd_memory_pool_link_info_t, link_type))\n\
         P(offsetof(hsa_amd_memory_pool_link_info_t, numa_distance))\n\
         P(sizeof(hsa_amd_hdp_flush_t))\n\
         P(sizeof(hsa_dim3_t))\n\
         P(sizeof(hsa_isa_t))\n\
         P(sizeof(hsa_device_type_t))\n\
         P(HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT)\n\
         P(HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT)\n",
    );
    let rt = runtime();
    let (cpu, gpu) = cpu_gpu(&rt);
    let pool = rt.pools(gpu).unwrap()[0];
    let link = rt
        .agent_pool_info(cpu, pool, AgentMemoryPoolInfo::LinkInfo)
        .unwrap();
    assert_eq!(
        link.to_bytes().len() as u64,
        c["sizeof(hsa_amd_memory_pool_link_info_t)"]
    );
    let InfoValue::LinkInfo(l) = link else {
        panic!("{link:?}")
    };
    let b = link_bytes(&l);
    assert_eq!(
        b[c["offsetof(hsa_amd_memory_pool_link_info_t, numa_distance)"] as usize],
        l.numa_distance as u8
    );
    assert_eq!(
        b[c["offsetof(hsa_amd_memory_pool_link_info_t, link_type)"] as usize],
        l.link_type as u8
    );
    assert_eq!(
        b[c["offsetof(hsa_amd_memory_pool_link_info_t, coherent_support)"] as usize],
        u8::from(l.coherent_support)
    );
    let size = |a: AgentInfo| rt.agent_info(gpu, a).unwrap().to_bytes().len() as u64;
    assert_eq!(size(AgentInfo::GridMaxDim), c["sizeof(hsa_dim3_t)"]);
    assert_eq!(size(AgentInfo::Isa), c["sizeof(hsa_isa_t)"]);
    assert_eq!(size(AgentInfo::Device), c["sizeof(hsa_device_type_t)"]);
    // hsa.h: "The type of this attribute is a NUL-terminated char[64]".
    assert_eq!(size(AgentInfo::Name), 64);
    let hdp = rt.agent_info(gpu, AmdAgentInfo::HdpFlush).unwrap();
    assert_eq!(
        hdp.to_bytes().len() as u64,
        c["sizeof(hsa_amd_hdp_flush_t)"]
    );
    assert_eq!(
        u64::from(ACCESS_ALLOWED_BY_DEFAULT),
        c["HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT"]
    );
    assert_eq!(
        u64::from(ACCESS_DISALLOWED_BY_DEFAULT),
        c["HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT"]
    );
}

fn link_bytes(l: &runtime::info::LinkInfo) -> Vec<u8> {
    InfoValue::LinkInfo(*l).to_bytes()
}

#[test]
fn gpu_agent_answers_from_the_topology() {
    let rt = runtime();
    let (_, gpu) = cpu_gpu(&rt);
    let node = rt.agent(gpu).unwrap().node.clone();
    let p = &node.properties;
    let u = |a: AmdAgentInfo| rt.agent_info(gpu, a).unwrap().as_u64().unwrap();
    assert_eq!(u(AmdAgentInfo::ChipId), u64::from(p.device_id));
    assert_eq!(u(AmdAgentInfo::Bdfid), u64::from(p.location_id));
    assert_eq!(u(AmdAgentInfo::ComputeUnitCount), u64::from(p.cu_count()));
    assert_eq!(
        u(AmdAgentInfo::MaxWavesPerCu),
        u64::from(p.simd_per_cu * p.max_waves_per_simd)
    );
    assert_eq!(u(AmdAgentInfo::DriverNodeId), u64::from(node.id));
    assert_eq!(
        u(AmdAgentInfo::MemoryMaxFrequency),
        u64::from(node.mem_banks[0].mem_clk_max)
    );
    assert_eq!(
        u(AmdAgentInfo::MemoryWidth),
        u64::from(node.mem_banks[0].width)
    );
    let uuid = rt.agent_info(gpu, AmdAgentInfo::Uuid).unwrap();
    assert_eq!(
        uuid.as_str(),
        Some(format!("GPU-{:016x}", p.unique_id.unwrap()).as_str())
    );
    assert_eq!(uuid.to_bytes().len(), 21);
    let name = rt.agent_info(gpu, AgentInfo::Name).unwrap();
    let isa = rt.agent_isas(gpu).unwrap()[0];
    assert_eq!(name.as_str(), Some(isa.processor_name()));
    assert_eq!(
        rt.agent_info(gpu, AgentInfo::Isa).unwrap(),
        InfoValue::Isa(Some(isa))
    );
    // Raw values: the AMD attributes go through hsa_agent_get_info too.
    assert_eq!(
        rt.agent_info_raw(gpu, 0xA000).unwrap().as_u64(),
        Some(u64::from(p.device_id))
    );
}

#[test]
fn unknown_or_foreign_attributes_are_invalid_argument() {
    let rt = runtime();
    let (cpu, gpu) = cpu_gpu(&rt);
    for (agent, raw) in [(gpu, 25), (gpu, 0x9fff), (gpu, 0xA015), (cpu, 0xA007)] {
        let e = rt.agent_info_raw(agent, raw).unwrap_err();
        assert_eq!(e.status, Status::InvalidArgument, "{raw:#x}: {e:?}");
    }
    // What ROCr's CpuAgent::GetInfo does not answer.
    for a in [
        AmdAgentInfo::MemoryWidth,
        AmdAgentInfo::MemoryMaxFrequency,
        AmdAgentInfo::CooperativeQueues,
        AmdAgentInfo::SvmDirectHostAccess,
        AmdAgentInfo::CooperativeComputeUnitCount,
    ] {
        assert_eq!(
            rt.agent_info(cpu, a).unwrap_err().status,
            Status::InvalidArgument
        );
    }
    assert_eq!(
        rt.system_info_raw(8).unwrap_err().status,
        Status::InvalidArgument
    );
    assert_eq!(
        rt.isa_info_raw(0x1234, 0).unwrap_err().status,
        Status::InvalidIsa
    );
    let isa = rt.agent_isas(gpu).unwrap()[0];
    assert_eq!(
        rt.isa_info_raw(isa.handle(), 15).unwrap_err().status,
        Status::InvalidArgument
    );
    let pool = rt.pools(gpu).unwrap()[0];
    assert_eq!(
        rt.pool_info_raw(pool, 3).unwrap_err().status,
        Status::InvalidArgument
    );
    assert_eq!(
        rt.region_info(pool, RegionInfo::AllocMaxPrivateWorkgroupSize)
            .unwrap_err()
            .status,
        Status::InvalidArgument
    );
    assert_eq!(
        rt.pool_info_raw(
            MemoryPool::from_handle(MemoryPool::handle(pool) + 999).unwrap(),
            0
        )
        .unwrap_err()
        .status,
        Status::InvalidMemoryPool
    );
    assert_eq!(rt.agent_isas(cpu).unwrap(), Vec::new());
}

#[test]
fn isa_names_round_trip() {
    let rt = runtime();
    let (_, gpu) = cpu_gpu(&rt);
    let isa = rt.agent_isas(gpu).unwrap()[0];
    let name = rt.isa_info(isa, IsaInfo::Name).unwrap();
    let len = rt.isa_info(isa, IsaInfo::NameLength).unwrap();
    assert_eq!(name.to_bytes().len() as u64, len.as_u64().unwrap());
    assert_eq!(rt.isa_from_name(name.as_str().unwrap()).unwrap(), isa);
    let any = rt.isa_from_name("amdgcn-amd-amdhsa--gfx90a").unwrap();
    assert_eq!(any.name(), "amdgcn-amd-amdhsa--gfx90a");
    for bad in [
        "gfx90a",
        "amdgcn-amd-amdhsa--gfx9999",
        "amdgcn-amd-amdhsa--gfx90a:xnack+:sramecc+",
        "amdgcn-amd-amdhsa--gfx11-generic",
        "amdgcn-amd-amdhsa--gfx803:xnack+",
    ] {
        assert_eq!(
            rt.isa_from_name(bad).unwrap_err().status,
            Status::InvalidIsaName,
            "{bad}"
        );
    }
}

#[test]
fn pools_and_access_as_rocr_reports_them() {
    let rt = runtime();
    let (cpu, gpu) = cpu_gpu(&rt);
    let flags = |p| rt.pool_info(p, PoolInfo::GlobalFlags).unwrap().as_u64();
    let cpu_pools = rt.pools(cpu).unwrap();
    let cpu_flags: Vec<_> = cpu_pools.iter().map(|&p| flags(p)).collect();
    assert_eq!(cpu_flags, [Some(2), Some(3), Some(4)]);
    assert_eq!(rt.kernarg_pool().unwrap(), cpu_pools[1]);
    let gpu_pools = rt.pools(gpu).unwrap();
    let access = |a, p| {
        rt.agent_pool_info(a, p, AgentMemoryPoolInfo::Access)
            .unwrap()
            .as_u64()
    };
    // System memory: the CPU by default, a GPU only after allow_access.
    assert_eq!(access(cpu, cpu_pools[0]), Some(1));
    assert_eq!(access(gpu, cpu_pools[0]), Some(2));
    // Coarse VRAM: its GPU by default, the CPU after allow_access.
    assert_eq!(access(gpu, gpu_pools[0]), Some(1));
    assert_eq!(access(cpu, gpu_pools[0]), Some(2));
    let hops = rt
        .agent_pool_info(gpu, cpu_pools[0], AgentMemoryPoolInfo::NumLinkHops)
        .unwrap();
    assert_eq!(hops.as_u64(), Some(1));
    // ROCr counts system memory twice (fine and kernarg regions).
    let size = rt
        .pool_info(cpu_pools[0], PoolInfo::Size)
        .unwrap()
        .as_u64()
        .unwrap();
    let max = rt
        .pool_info(cpu_pools[0], PoolInfo::AllocMaxSize)
        .unwrap()
        .as_u64()
        .unwrap();
    assert_eq!(max, 2 * (size - size % 4096));
    // Regions: a CPU sees the system regions; the first GPU its own first.
    let regions = rt.agent_regions(gpu).unwrap();
    assert_eq!(&regions[..gpu_pools.len()], &gpu_pools[..]);
    assert_eq!(rt.agent_regions(cpu).unwrap(), cpu_pools);
    assert_eq!(
        rt.region_info(cpu_pools[1], RegionInfo::GlobalFlags)
            .unwrap()
            .as_u64(),
        Some(3)
    );
}

#[test]
fn system_attributes() {
    let rt = runtime();
    let v = |a| rt.system_info(a).unwrap();
    assert_eq!(v(SystemInfo::VersionMajor), InfoValue::U16(1));
    assert_eq!(v(SystemInfo::VersionMinor), InfoValue::U16(1));
    assert_eq!(v(SystemInfo::SignalMaxWait).as_u64(), Some(u64::MAX));
    assert_eq!(v(SystemInfo::Extensions).to_bytes().len(), 128);
    let t0 = v(SystemInfo::Timestamp).as_u64().unwrap();
    let t1 = v(SystemInfo::Timestamp).as_u64().unwrap();
    assert!(t1 >= t0);
    assert_eq!(v(SystemInfo::AmdBuildVersion).to_bytes().len(), 8);
}
