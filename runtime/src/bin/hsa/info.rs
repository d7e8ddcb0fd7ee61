//! `hsa info [--json]`: what `rocminfo` prints (system attributes, every
//! agent with its pools and ISAs), through the runtime's attribute queries.
//!
//! The text is laid out as rocminfo 5.2.3 lays it out (`rocminfo.cc`:
//! labels padded to 25 columns, values to 35, two spaces per level,
//! `int_to_string`'s `N(0xH) ` form, the C types' truncations), from the
//! `=====================` line on; rocminfo's first line (the kernel
//! module check) is not an HSA attribute and is not printed. `--json` gives
//! every attribute the runtime answers, under its C enumerator name.
//!
//! The device is `/dev/kfd` when it exists, else the software GPU
//! (`HSA_RS_DRIVER` chooses explicitly); with no `/dev/kfd` at all the
//! runtime's fallback notice is not printed.

use std::fmt::Write as _;
use std::process::ExitCode;

use runtime::driver::{self, DRIVER_ENV};
use runtime::info::{
    AGENT_FEATURE_AGENT_DISPATCH, AGENT_FEATURE_KERNEL_DISPATCH, AgentAttribute, AgentInfo,
    AgentMemoryPoolInfo, AmdAgentInfo, ENDIANNESS_BIG, ENDIANNESS_LITTLE, InfoValue, IsaInfo,
    MACHINE_MODEL_LARGE, MACHINE_MODEL_SMALL, PROFILE_BASE, PROFILE_FULL, PoolInfo, RegionInfo,
    SystemInfo,
};
use runtime::{Agent, Isa, MemoryPool, Result, Runtime};
use serde_json::{Map, Value, json};

use crate::json;

/// Arguments of `hsa info`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print one JSON object with every attribute instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs the subcommand: exit 0 with the report on standard output, 1 with
/// one line on standard error when the runtime cannot start.
pub fn run(args: &Args) -> ExitCode {
    let rt = match Runtime::init_with(open_device) {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("hsa: info: {}", e.message);
            return ExitCode::FAILURE;
        }
    };
    let report = if args.json {
        to_json(&rt).map(|v| json::print(&v, false))
    } else {
        to_text(&rt).map(|t| {
            use std::io::Write as _;
            match std::io::stdout().lock().write_all(t.as_bytes()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other,
            }
        })
    };
    match report {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("hsa: info: cannot write the report: {e}");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("hsa: info: {}", e.message);
            ExitCode::FAILURE
        }
    }
}

/// The runtime's choice ([`driver::open`]: `HSA_RS_DRIVER`, else
/// `/dev/kfd`, else the sim with a notice) when there is a `/dev/kfd` or a
/// choice; without either, the sim directly, without the notice.
pub(crate) fn open_device() -> Result<Box<dyn runtime::driver::Driver>> {
    if std::env::var_os(DRIVER_ENV).is_some() || std::path::Path::new("/dev/kfd").exists() {
        driver::open()
    } else {
        driver::open_sim()
    }
}

const LABEL: usize = 25;
const VALUE: usize = 35;

/// rocminfo's `printLabel`: indentation, the label padded to 25.
fn label(out: &mut String, l: &str, newline: bool, indent: usize) {
    let _ = write!(out, "{:ind$}{l:<LABEL$}", "", ind = 2 * indent);
    if newline {
        out.push('\n');
    }
}

/// `printValueStr`: the value padded to 35, a newline.
fn value(out: &mut String, v: &str) {
    let _ = writeln!(out, "{v:<VALUE$}");
}

/// `printLabelStr` (and `printLabelInt`, the same layout).
fn label_str(out: &mut String, l: &str, v: &str, indent: usize) {
    label(out, l, false, indent);
    value(out, v);
}

/// `int_to_string` of a `uint32_t`: `1024(0x400) `.
fn dec_hex(v: u32) -> String {
    format!("{v}(0x{v:x}) ")
}

fn num(v: &InfoValue) -> u64 {
    v.as_u64().unwrap_or(0)
}

fn text_of(v: &InfoValue) -> String {
    v.as_str().unwrap_or("").to_owned()
}

fn bools(v: &InfoValue) -> Vec<bool> {
    match v {
        InfoValue::Bools(b) => b.clone(),
        _ => Vec::new(),
    }
}

fn dims(v: &InfoValue) -> [u32; 3] {
    match v {
        InfoValue::U16x3(d) => d.map(u32::from),
        InfoValue::Dim3(d) => *d,
        _ => [0; 3],
    }
}

/// The rocminfo-shaped report.
fn to_text(rt: &Runtime) -> Result<String> {
    let mut out = String::new();
    let sys = |a| rt.system_info(a);
    for l in [
        "=====================",
        "HSA System Attributes",
        "=====================",
    ] {
        label(&mut out, l, true, 0);
    }
    label(&mut out, "Runtime Version:", false, 0);
    let _ = writeln!(
        out,
        "{}.{}",
        num(&sys(SystemInfo::VersionMajor)?),
        num(&sys(SystemInfo::VersionMinor)?)
    );
    label(&mut out, "System Timestamp Freq.:", false, 0);
    let _ = writeln!(
        out,
        "{:.6}MHz",
        num(&sys(SystemInfo::TimestampFrequency)?) as f64 / 1e6
    );
    label(&mut out, "Sig. Max Wait Duration:", false, 0);
    let wait = num(&sys(SystemInfo::SignalMaxWait)?);
    let _ = writeln!(out, "{wait} (0x{wait:X}) (timestamp count)");
    label(&mut out, "Machine Model:", false, 0);
    match num(&sys(SystemInfo::MachineModel)?) as u32 {
        MACHINE_MODEL_SMALL => value(&mut out, "SMALL"),
        MACHINE_MODEL_LARGE => value(&mut out, "LARGE"),
        _ => {}
    }
    label(&mut out, "System Endianness:", false, 0);
    match num(&sys(SystemInfo::Endianness)?) as u32 {
        ENDIANNESS_LITTLE => value(&mut out, "LITTLE"),
        ENDIANNESS_BIG => value(&mut out, "BIG"),
        _ => {}
    }
    out.push('\n');
    for l in ["==========", "HSA Agents", "=========="] {
        label(&mut out, l, true, 0);
    }
    for (n, agent) in rt.agents().enumerate() {
        agent_text(&mut out, rt, agent, n + 1)?;
    }
    label(&mut out, "*** Done ***", true, 0);
    Ok(out)
}

fn agent_text(out: &mut String, rt: &Runtime, agent: Agent, number: usize) -> Result<()> {
    let get = |a: AgentAttribute| rt.agent_info(agent, a);
    let h = |a: AgentInfo| get(a.into());
    let m = |a: AmdAgentInfo| get(a.into());
    let u32_of = |v: Result<InfoValue>| v.map(|v| num(&v) as u32);
    label(out, "*******", true, 0);
    label(out, &format!("Agent {number}"), true, 0);
    label(out, "*******", true, 0);
    label_str(out, "Name:", &text_of(&h(AgentInfo::Name)?), 1);
    // rocminfo reads the UUID into `char[24]` and ignores a failure.
    let uuid = m(AmdAgentInfo::Uuid)
        .map(|v| text_of(&v))
        .unwrap_or_default();
    label_str(out, "Uuid:", &uuid, 1);
    label_str(
        out,
        "Marketing Name:",
        &text_of(&m(AmdAgentInfo::ProductName)?),
        1,
    );
    label_str(out, "Vendor Name:", &text_of(&h(AgentInfo::VendorName)?), 1);
    let feature = u32_of(h(AgentInfo::Feature))?;
    let kernel = feature & AGENT_FEATURE_KERNEL_DISPATCH != 0;
    let agent_dispatch = feature & AGENT_FEATURE_AGENT_DISPATCH != 0;
    label(out, "Feature:", false, 1);
    value(
        out,
        match (kernel, agent_dispatch) {
            (true, true) => "KERNEL_DISPATCH & AGENT_DISPATCH",
            (true, false) => "KERNEL_DISPATCH",
            (false, true) => "AGENT_DISPATCH",
            (false, false) => "None specified",
        },
    );
    label(out, "Profile:", false, 1);
    value(
        out,
        match u32_of(h(AgentInfo::Profile))? {
            PROFILE_BASE => "BASE_PROFILE",
            PROFILE_FULL => "FULL_PROFILE",
            _ => "Unknown",
        },
    );
    label(out, "Float Round Mode:", false, 1);
    value(
        out,
        match u32_of(h(AgentInfo::DefaultFloatRoundingMode))? {
            1 => "ZERO",
            2 => "NEAR",
            _ => "Not Supported",
        },
    );
    for (l, a) in [
        ("Max Queue Number:", AgentInfo::QueuesMax),
        ("Queue Min Size:", AgentInfo::QueueMinSize),
        ("Queue Max Size:", AgentInfo::QueueMaxSize),
    ] {
        label_str(out, l, &dec_hex(u32_of(h(a))?), 1);
    }
    let queue_type = match u32_of(h(AgentInfo::QueueType))? {
        0 => "MULTI",
        1 => "SINGLE",
        _ => "Unknown",
    };
    label_str(out, "Queue Type:", queue_type, 1);
    label_str(out, "Node:", &u32_of(h(AgentInfo::Node))?.to_string(), 1);
    label(out, "Device Type:", false, 1);
    value(
        out,
        match u32_of(h(AgentInfo::Device))? {
            0 => "CPU",
            1 => "GPU",
            _ => "DSP",
        },
    );
    label(out, "Cache Info:", true, 1);
    if let InfoValue::U32x4(sizes) = h(AgentInfo::CacheSize)? {
        for (i, &s) in sizes.iter().enumerate().filter(|(_, s)| **s != 0) {
            label(out, &format!("L{}:", i + 1), false, 2);
            value(out, &format!("{}KB", dec_hex(s / 1024)));
        }
    }
    label_str(
        out,
        "Chip ID:",
        &dec_hex(u32_of(m(AmdAgentInfo::ChipId))?),
        1,
    );
    label_str(
        out,
        "Cacheline Size:",
        &dec_hex(u32_of(m(AmdAgentInfo::CachelineSize))?),
        1,
    );
    // rocminfo keeps the BDF id in a `uint16_t`.
    let ints = [
        (
            "Max Clock Freq. (MHz):",
            u32_of(m(AmdAgentInfo::MaxClockFrequency))?,
        ),
        ("BDFID:", u32_of(m(AmdAgentInfo::Bdfid))? & 0xffff),
        ("Internal Node ID:", u32_of(m(AmdAgentInfo::DriverNodeId))?),
        ("Compute Unit:", u32_of(m(AmdAgentInfo::ComputeUnitCount))?),
        ("SIMDs per CU:", u32_of(m(AmdAgentInfo::NumSimdsPerCu))?),
        (
            "Shader Engines:",
            u32_of(m(AmdAgentInfo::NumShaderEngines))?,
        ),
        (
            "Shader Arrs. per Eng.:",
            u32_of(m(AmdAgentInfo::NumShaderArraysPerSe))?,
        ),
        (
            "WatchPts on Addr. Ranges:",
            u32_of(m(AmdAgentInfo::MaxAddressWatchPoints))?,
        ),
    ];
    for (l, v) in ints {
        label_str(out, l, &(v as i32).to_string(), 1);
    }
    label(out, "Features:", false, 1);
    if kernel {
        out.push_str("KERNEL_DISPATCH ");
    }
    if agent_dispatch {
        out.push_str("AGENT_DISPATCH");
    }
    if feature == 0 {
        out.push_str("None");
    }
    out.push('\n');
    if kernel {
        let f16 = num(&h(AgentInfo::FastF16Operation)?) != 0;
        label_str(
            out,
            "Fast F16 Operation:",
            if f16 { "TRUE" } else { "FALSE" },
            1,
        );
        let wave = u32_of(h(AgentInfo::WavefrontSize))?;
        label_str(out, "Wavefront Size:", &dec_hex(wave), 1);
        label_str(
            out,
            "Workgroup Max Size:",
            &dec_hex(u32_of(h(AgentInfo::WorkgroupMaxSize))?),
            1,
        );
        label(out, "Workgroup Max Size per Dimension:", true, 1);
        xyz(out, dims(&h(AgentInfo::WorkgroupMaxDim)?), 2);
        let waves = u32_of(m(AmdAgentInfo::MaxWavesPerCu))?;
        label_str(out, "Max Waves Per CU:", &dec_hex(waves), 1);
        label_str(
            out,
            "Max Work-item Per CU:",
            &dec_hex(wave.wrapping_mul(waves)),
            1,
        );
        label_str(
            out,
            "Grid Max Size:",
            &dec_hex(u32_of(h(AgentInfo::GridMaxSize))?),
            1,
        );
        label(out, "Grid Max Size per Dimension:", true, 1);
        xyz(out, dims(&h(AgentInfo::GridMaxDim)?), 2);
        let fbarriers = u32_of(h(AgentInfo::FbarrierMaxSize))?;
        label_str(
            out,
            "Max fbarriers/Workgrp:",
            &(fbarriers as i32).to_string(),
            1,
        );
    }
    label(out, "Pool Info:", true, 1);
    for (i, pool) in rt.pools(agent)?.into_iter().enumerate() {
        label(out, &format!("Pool {}", i + 1), true, 2);
        pool_text(out, rt, pool)?;
    }
    label(out, "ISA Info:", true, 1);
    for (i, isa) in rt.agent_isas(agent)?.into_iter().enumerate() {
        label(out, &format!("ISA {}", i + 1), true, 2);
        isa_text(out, rt, isa)?;
    }
    Ok(())
}

fn xyz(out: &mut String, d: [u32; 3], indent: usize) {
    for (l, v) in ["x", "y", "z"].into_iter().zip(d) {
        label_str(out, l, &dec_hex(v), indent);
    }
}

fn pool_text(out: &mut String, rt: &Runtime, pool: MemoryPool) -> Result<()> {
    let get = |a| rt.pool_info(pool, a).map(|v| num(&v));
    let flags = get(PoolInfo::GlobalFlags)?;
    label(out, "Segment:", false, 3);
    let segment = match get(PoolInfo::Segment)? {
        0 => {
            let names: Vec<&str> = [(1, "KERNARG"), (2, "FINE GRAINED"), (4, "COARSE GRAINED")]
                .into_iter()
                .filter(|(bit, _)| flags & bit != 0)
                .map(|(_, n)| n)
                .collect();
            format!("GLOBAL; FLAGS: {}", names.join(", "))
        }
        1 => "READONLY".to_owned(),
        2 => "PRIVATE".to_owned(),
        3 => "GROUP".to_owned(),
        _ => {
            out.push_str("Not Supported\n");
            String::new()
        }
    };
    value(out, &segment);
    let yes_no = |b: u64| if b != 0 { "TRUE" } else { "FALSE" };
    // rocminfo passes the KiB count (a `size_t`) to `int_to_string(uint32_t)`.
    let size_kib = (get(PoolInfo::Size)? / 1024) as u32;
    label_str(out, "Size:", &format!("{}KB", dec_hex(size_kib)), 3);
    label_str(
        out,
        "Allocatable:",
        yes_no(get(PoolInfo::RuntimeAllocAllowed)?),
        3,
    );
    let granule = get(PoolInfo::RuntimeAllocGranule)? / 1024;
    label_str(out, "Alloc Granule:", &format!("{granule}KB"), 3);
    let align = get(PoolInfo::RuntimeAllocAlignment)? / 1024;
    label_str(out, "Alloc Alignment:", &format!("{align}KB"), 3);
    label_str(
        out,
        "Accessible by all:",
        yes_no(get(PoolInfo::AccessibleByAll)?),
        3,
    );
    Ok(())
}

fn isa_text(out: &mut String, rt: &Runtime, isa: Isa) -> Result<()> {
    let get = |a| rt.isa_info(isa, a);
    label_str(out, "Name:", &text_of(&get(IsaInfo::Name)?), 3);
    let pick = |flags: Vec<bool>, names: &[&str]| -> String {
        names
            .iter()
            .zip(flags.iter().chain(std::iter::repeat(&false)))
            .filter(|(_, f)| **f)
            .map(|(n, _)| *n)
            .collect()
    };
    let models = pick(
        bools(&get(IsaInfo::MachineModels)?),
        &["HSA_MACHINE_MODEL_SMALL ", "HSA_MACHINE_MODEL_LARGE"],
    );
    label_str(out, "Machine Models:", &models, 3);
    let profiles = pick(
        bools(&get(IsaInfo::Profiles)?),
        &["HSA_PROFILE_BASE ", "HSA_PROFILE_FULL"],
    );
    label_str(out, "Profiles:", &profiles, 3);
    for a in [
        IsaInfo::DefaultFloatRoundingModes,
        IsaInfo::BaseProfileDefaultFloatRoundingModes,
    ] {
        let modes = pick(bools(&get(a)?), &["DEFAULT ", "ZERO ", "NEAR"]);
        label_str(out, "Default Rounding Mode:", &modes, 3);
    }
    let f16 = num(&get(IsaInfo::FastF16Operation)?) != 0;
    label_str(out, "Fast f16:", if f16 { "TRUE" } else { "FALSE" }, 3);
    label_str(
        out,
        "Workgroup Max Size:",
        &dec_hex(num(&get(IsaInfo::WorkgroupMaxSize)?) as u32),
        3,
    );
    label(out, "Workgroup Max Size per Dimension:", true, 3);
    xyz(out, dims(&get(IsaInfo::WorkgroupMaxDim)?), 4);
    // rocminfo passes the `uint64_t` grid size to `int_to_string(uint32_t)`.
    label_str(
        out,
        "Grid Max Size:",
        &dec_hex(num(&get(IsaInfo::GridMaxSize)?) as u32),
        3,
    );
    label(out, "Grid Max Size per Dimension:", true, 3);
    xyz(out, dims(&get(IsaInfo::GridMaxDim)?), 4);
    let fb = num(&get(IsaInfo::FbarrierMaxSize)?) as u32;
    label_str(out, "FBarrier Max Size:", &(fb as i32).to_string(), 3);
    Ok(())
}

/// An attribute value as JSON.
fn json_value(v: &InfoValue) -> Value {
    match v {
        InfoValue::U16(x) => json!(x),
        InfoValue::U32(x) => json!(x),
        InfoValue::U64(x) | InfoValue::Pointer(x) => json!(x),
        InfoValue::Bool(b) => json!(b),
        InfoValue::Str { text, .. } => json!(text),
        InfoValue::StaticStr(s) => json!(s.to_string_lossy()),
        InfoValue::U16x3(d) => json!(d),
        InfoValue::Dim3(d) => json!(d),
        InfoValue::U32x4(d) => json!(d),
        InfoValue::Bools(b) => json!(b),
        // Extension masks: the numbers of the set bits.
        InfoValue::Bytes(b) => json!(
            (0..b.len() * 8)
                .filter(|i| b[i / 8] & (1 << (i % 8)) != 0)
                .collect::<Vec<_>>()
        ),
        InfoValue::Isa(i) => i.map_or(Value::Null, |i| json!(i.name())),
        InfoValue::HdpFlush {
            mem_flush_cntl,
            reg_flush_cntl,
        } => json!({"HDP_MEM_FLUSH_CNTL": mem_flush_cntl, "HDP_REG_FLUSH_CNTL": reg_flush_cntl}),
        InfoValue::LinkInfo(l) => json!({
            "min_latency": l.min_latency,
            "max_latency": l.max_latency,
            "min_bandwidth": l.min_bandwidth,
            "max_bandwidth": l.max_bandwidth,
            "atomic_support_32bit": l.atomic_support_32bit,
            "atomic_support_64bit": l.atomic_support_64bit,
            "coherent_support": l.coherent_support,
            "link_type": l.link_type,
            "numa_distance": l.numa_distance,
        }),
    }
}

/// Every attribute the runtime answers, keyed by C name; an attribute it
/// refuses (INVALID_ARGUMENT for this kind of object) is left out.
fn attributes<A: Copy>(
    all: &[A],
    name: impl Fn(A) -> &'static str,
    get: impl Fn(A) -> Result<InfoValue>,
) -> Map<String, Value> {
    all.iter()
        .filter_map(|&a| get(a).ok().map(|v| (name(a).to_owned(), json_value(&v))))
        .collect()
}

fn to_json(rt: &Runtime) -> Result<Value> {
    // The timestamp changes from run to run: not part of the report.
    let system_attrs: Vec<SystemInfo> = SystemInfo::ALL
        .iter()
        .copied()
        .filter(|a| *a != SystemInfo::Timestamp)
        .collect();
    let system = attributes(&system_attrs, SystemInfo::c_name, |a| rt.system_info(a));
    let all_agents: Vec<Agent> = rt.agents().collect();
    let mut agents = Vec::new();
    for &agent in &all_agents {
        let mut attrs = attributes(AgentInfo::ALL, AgentInfo::c_name, |a| {
            rt.agent_info(agent, a)
        });
        attrs.extend(attributes(AmdAgentInfo::ALL, AmdAgentInfo::c_name, |a| {
            rt.agent_info(agent, a)
        }));
        let mut pools = Vec::new();
        for pool in rt.pools(agent)? {
            let access: Vec<Value> = all_agents
                .iter()
                .map(|&other| {
                    let mut m = Map::new();
                    m.insert("agent".into(), json!(other.index()));
                    m.extend(attributes(
                        AgentMemoryPoolInfo::ALL,
                        AgentMemoryPoolInfo::c_name,
                        |a| rt.agent_pool_info(other, pool, a),
                    ));
                    Value::Object(m)
                })
                .collect();
            pools.push(json!({
                "handle": pool.handle(),
                "attributes": attributes(PoolInfo::ALL, PoolInfo::c_name, |a| rt.pool_info(pool, a)),
                "region_attributes": attributes(RegionInfo::ALL, RegionInfo::c_name, |a| rt.region_info(pool, a)),
                "access": access,
            }));
        }
        let isas: Vec<Value> = rt
            .agent_isas(agent)?
            .into_iter()
            .map(|isa| {
                json!({
                    "handle": isa.handle(),
                    "attributes": attributes(IsaInfo::ALL, IsaInfo::c_name, |a| rt.isa_info(isa, a)),
                })
            })
            .collect();
        let regions: Vec<u64> = rt
            .agent_regions(agent)?
            .into_iter()
            .map(MemoryPool::handle)
            .collect();
        agents.push(json!({
            "handle": agent.handle(),
            "attributes": attrs,
            "pools": pools,
            "isas": isas,
            "regions": regions,
        }));
    }
    Ok(json!({
        "driver": rt.driver_kind().name(),
        "system": system,
        "agents": agents,
    }))
}
