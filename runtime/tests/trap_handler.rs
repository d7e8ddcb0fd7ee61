//! The committed trap handler bytes are what `runtime/trap/build.sh` makes
//! of `runtime/trap/trap_handler.s` with llvm-mc-19 (the same for every
//! GFX9 target it lists, which are the runtime's `GFX9_TARGETS`), and
//! llvm-objdump-19 reads them back as the handler's instructions.

use std::path::{Path, PathBuf};
use std::process::Command;

fn trap_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("trap")
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?} ({e}): apt-get install llvm-19"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_committed_handler_is_the_assembled_source() {
    let tmp = std::env::temp_dir().join(format!("trap-handler-{}.bin", std::process::id()));
    run(Command::new(trap_dir().join("build.sh")).arg(&tmp));
    let built = std::fs::read(&tmp).unwrap();
    let _ = std::fs::remove_file(&tmp);
    assert_eq!(
        built,
        runtime::trap::TRAP_HANDLER_GFX9,
        "trap_handler_gfx9.bin is stale: rerun runtime/trap/build.sh"
    );
}

#[test]
fn the_build_script_assembles_for_the_runtimes_targets() {
    let script = std::fs::read_to_string(trap_dir().join("build.sh")).unwrap();
    let line = script
        .lines()
        .find_map(|l| l.strip_prefix("GPUS=\""))
        .expect("build.sh sets GPUS");
    let gpus: Vec<&str> = line.trim_end_matches('"').split_whitespace().collect();
    assert_eq!(gpus, runtime::trap::GFX9_TARGETS);
}

#[test]
fn the_bytes_disassemble_to_the_handler() {
    let hex: String = runtime::trap::TRAP_HANDLER_GFX9
        .iter()
        .map(|b| format!("{b:#04x} "))
        .collect();
    let mut child = Command::new("llvm-mc-19")
        .args(["--disassemble", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("cannot run llvm-mc-19: apt-get install llvm-19");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(hex.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "llvm-mc-19: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "s_getreg_b32 ttmp2, hwreg(HW_REG_TRAPSTS)",
        "s_sendmsg sendmsg(MSG_GET_DOORBELL)",
        "s_atomic_swap_x2 ttmp[4:5], ttmp[2:3], 0x8 glc",
        "s_sendmsg sendmsg(MSG_INTERRUPT)",
        "s_setreg_b32 hwreg(HW_REG_STATUS), ttmp12",
        "s_rfe_b64 ttmp[0:1]",
    ] {
        assert!(text.contains(want), "no `{want}` in\n{text}");
    }
}
