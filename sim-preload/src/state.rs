//! The process's one software GPU, the private directory its sysfs files
//! live in, the table of descriptors that name it, and the routing of
//! paths.

use std::collections::BTreeMap;
use std::ffi::{CString, c_int};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, RwLock};

use sim::{SimBuilder, SimDevice, SimRenderNode};

/// The DRM character-device major (`DRM_MAJOR`).
pub(crate) const DRM_MAJOR: u32 = 226;
/// The major number the preload gives `/dev/kfd` in `stat` answers. The
/// real one is dynamic (`register_chrdev(0, "kfd", ...)`); nothing in the
/// stack compares it.
pub(crate) const KFD_MAJOR: u32 = 234;

/// What a descriptor of ours stands for.
#[derive(Clone)]
pub(crate) enum Obj {
    /// `/dev/kfd`.
    Kfd,
    /// `/dev/dri/renderD<minor>`.
    Render {
        /// The sim's node (its ioctls and mmaps).
        node: Arc<SimRenderNode>,
        /// Its DRM minor.
        minor: u32,
    },
}

/// Where a path leads.
pub(crate) enum Route {
    /// `/dev/kfd`.
    Kfd,
    /// `/dev/dri/renderD<minor>` of a simulated GPU.
    Render(u32),
    /// A sysfs path the sim answers: the same path in the private directory.
    File(CString),
}

/// The device and its files.
pub(crate) struct State {
    pub(crate) dev: SimDevice,
    root: PathBuf,
    pid: u32,
    minors: Vec<u32>,
}

static STATE: OnceLock<Result<State, String>> = OnceLock::new();
/// Descriptors that name the sim (reads vastly outnumber writes).
static FDS: RwLock<BTreeMap<c_int, Obj>> = RwLock::new(BTreeMap::new());
/// Whether any descriptor was ever ours: until then `ioctl`, `mmap` and
/// `close` of every other descriptor skip the table.
static ANY_FD: AtomicBool = AtomicBool::new(false);

/// The state, created on first use. A failure (no temporary directory, a
/// bad `SIM_*` variable) is reported once on stderr; the caller then fails
/// the call with `ENODEV`.
pub(crate) fn state() -> Option<&'static State> {
    STATE
        .get_or_init(|| {
            let r = State::new();
            if let Err(e) = &r {
                eprintln!("sim-preload: cannot start the software GPU: {e}");
            }
            r
        })
        .as_ref()
        .ok()
}

impl State {
    fn new() -> Result<Self, String> {
        let b = SimBuilder::from_env().map_err(|e| e.to_string())?;
        let dev = b.build();
        let pid = std::process::id();
        let base = std::env::var_os("TMPDIR").map_or_else(|| PathBuf::from("/tmp"), PathBuf::from);
        let root = base.join(format!("sim-preload-{pid}-{}", unique()));
        let err = |what: &str, e: std::io::Error| format!("{what} {}: {e}", root.display());
        std::fs::create_dir_all(&root).map_err(|e| err("create", e))?;
        let topo = dev.topology();
        topo.write_to(&root.join("kfd/topology"))
            .map_err(|e| err("write the topology into", e))?;
        let minors: Vec<u32> = topo.render_minors();
        // What libdrm's drmNodeIsDRM looks for (`/sys/dev/char/226:N/device/drm`)
        // and the node's uevent, for each render node.
        for m in &minors {
            let dir = root.join(format!("dev/char/{DRM_MAJOR}:{m}"));
            std::fs::create_dir_all(dir.join(format!("device/drm/renderD{m}")))
                .map_err(|e| err("populate", e))?;
            std::fs::write(
                dir.join("uevent"),
                format!("MAJOR={DRM_MAJOR}\nMINOR={m}\nDEVNAME=dri/renderD{m}\n"),
            )
            .map_err(|e| err("populate", e))?;
        }
        Ok(Self {
            dev,
            root,
            pid,
            minors,
        })
    }

    /// Removes the private directory (at exit, in the process that made it).
    pub(crate) fn cleanup(&self) {
        if std::process::id() == self.pid {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }

    fn file(&self, rel: &[u8]) -> Option<CString> {
        let mut p = self.root.as_os_str().as_encoded_bytes().to_vec();
        p.extend_from_slice(rel);
        CString::new(p).ok()
    }
}

/// Removes the private directory if one was made.
pub(crate) fn cleanup() {
    if let Some(Ok(s)) = STATE.get() {
        s.cleanup();
    }
}

fn unique() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(std::time::SystemTime::now())
}

/// Routes an absolute path: `None` for every path that is not the sim's
/// (checked on the bytes alone, without starting the sim).
pub(crate) fn route(path: &[u8]) -> Option<Route> {
    const KFD_SYSFS: [&[u8]; 2] = [b"/sys/devices/virtual/kfd/kfd", b"/sys/class/kfd/kfd"];
    if path == b"/dev/kfd" {
        return Some(Route::Kfd);
    }
    if let Some(n) = path.strip_prefix(b"/dev/dri/renderD") {
        let minor: u32 = std::str::from_utf8(n).ok()?.parse().ok()?;
        let s = state()?;
        return s.minors.contains(&minor).then_some(Route::Render(minor));
    }
    for p in KFD_SYSFS {
        if let Some(rest) = path.strip_prefix(p)
            && (rest.is_empty() || rest[0] == b'/')
        {
            let mut rel = b"/kfd".to_vec();
            rel.extend_from_slice(rest);
            return state()?.file(&rel).map(Route::File);
        }
    }
    let drm = format!("/sys/dev/char/{DRM_MAJOR}:");
    if let Some(rest) = path.strip_prefix(drm.as_bytes()) {
        let s = state()?;
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        let minor: u32 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        if s.minors.contains(&minor) {
            return s.file(&path[4..]).map(Route::File);
        }
    }
    None
}

/// The object descriptor `fd` names, if it is ours.
pub(crate) fn lookup(fd: c_int) -> Option<Obj> {
    if !ANY_FD.load(Ordering::Acquire) {
        return None;
    }
    FDS.read()
        .unwrap_or_else(|e| e.into_inner())
        .get(&fd)
        .cloned()
}

/// Records that `fd` names `obj`.
pub(crate) fn insert(fd: c_int, obj: Obj) {
    let mut t = FDS.write().unwrap_or_else(|e| e.into_inner());
    t.insert(fd, obj);
    ANY_FD.store(true, Ordering::Release);
}

/// Forgets `fd` (it was closed, or replaced by `dup2`).
pub(crate) fn remove(fd: c_int) -> Option<Obj> {
    if !ANY_FD.load(Ordering::Acquire) {
        return None;
    }
    FDS.write().unwrap_or_else(|e| e.into_inner()).remove(&fd)
}
