//! The reader on real images: the sample queue driven through `aql`'s
//! producer API (`images/sample.img` is exactly what `sample_image()`
//! makes), its report pinned by a golden file, and the command line.
//!
//! `BLESS=1` rewrites the golden file, and then the run fails, so a blessed
//! run never passes as a checked one.

use hypervisor_queue_reader::queue::SlotProblem;
use hypervisor_queue_reader::sample::{SAMPLE_BASE, sample_image};
use hypervisor_queue_reader::{ImageMemory, read_queue, report};
use std::path::{Path, PathBuf};
use std::process::Command;

fn here(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn check_golden(rel: &str, actual: &str) {
    let path = here(rel);
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        panic!("blessed {}; re-run without BLESS", path.display());
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (BLESS=1 writes it)", path.display()));
    assert_eq!(
        actual,
        expected,
        "{} differs (BLESS=1 rewrites it)",
        path.display()
    );
}

#[test]
fn the_committed_image_is_what_the_producer_api_makes() {
    let image = sample_image();
    let committed = std::fs::read(here("images/sample.img")).expect("images/sample.img");
    assert!(
        committed == image.bytes,
        "images/sample.img is stale: cargo run -p hypervisor-queue-reader --example make-guest-image -- examples/hypervisor-queue-reader/images/sample.img"
    );
}

#[test]
fn the_sample_queue_reads_back_as_it_was_submitted() {
    let image = sample_image();
    let mem = ImageMemory::new(&image.bytes, image.base);
    let s = read_queue(&mem, image.queue_address, 4096).expect("the sample queue reads");
    assert_eq!(s.state.hsa_queue.size, 16);
    assert_eq!(s.state.hsa_queue.base_address, SAMPLE_BASE + 256);
    assert_eq!(
        (s.state.read_dispatch_id, s.state.write_dispatch_id),
        (12, 20)
    );
    assert!(s.state.findings.is_empty(), "{:?}", s.state.findings);
    let ids: Vec<u64> = s.packets.iter().map(|p| p.id).collect();
    assert_eq!(ids, (12..20).collect::<Vec<_>>());
    // The ring wrapped: packet 16 is in slot 0.
    assert_eq!(s.packets[4].address, SAMPLE_BASE + 256);
    assert!(matches!(s.packets[5].packet, Err(SlotProblem::Invalid(_))));
    assert_eq!(s.packets[7].packet, Err(SlotProblem::NotPublished));
    assert_eq!(s.packets_with_errors(), 1);
    // Every packet that decoded re-encodes to the bytes in the image.
    for p in &s.packets {
        if let (Ok(packet), Some(bytes)) = (&p.packet, &p.bytes) {
            let words = packet.to_words();
            let mut b = [0u8; 64];
            for (i, w) in words.iter().enumerate() {
                b[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
            }
            assert_eq!(&b, bytes, "packet {}", p.id);
        }
    }
    check_golden("tests/golden/sample.txt", &report::report(&s));
}

#[test]
fn the_limit_bounds_the_listing() {
    let image = sample_image();
    let mem = ImageMemory::new(&image.bytes, image.base);
    let s = read_queue(&mem, image.queue_address, 3).expect("reads");
    assert_eq!(s.packets.len(), 3);
    assert_eq!(s.not_listed, 5);
}

fn reader(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hypervisor-queue-reader"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run hypervisor-queue-reader")
}

#[test]
fn the_command_line_prints_the_report_and_exits_3_for_the_malformed_packet() {
    let o = reader(&[
        "images/sample.img",
        "--base",
        "0x800000000",
        "--queue",
        "0x8_0000_0000",
    ]);
    let out = String::from_utf8(o.stdout).expect("UTF-8");
    assert_eq!(o.status.code(), Some(3), "{out}");
    let report = std::fs::read_to_string(here("tests/golden/sample.txt")).expect("golden");
    assert_eq!(
        out,
        format!(
            "guest memory: 1280 bytes at 0x800000000 from images/sample.img\n{report}1 packet(s) with errors\n"
        )
    );
}

#[test]
fn the_command_line_reports_a_queue_outside_the_image_with_status_1() {
    let o = reader(&[
        "images/sample.img",
        "--base",
        "0x800000000",
        "--queue",
        "0x800000500",
    ]);
    let out = String::from_utf8(o.stdout).expect("UTF-8");
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("error: amd_queue_t: 256 bytes at guest address 0x800000500 are outside guest memory 0x800000000..0x800000500"), "{out}");
    assert!(
        out.contains("error: typed: QueueError::Descriptor(OutOfImage {"),
        "{out}"
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        reader(&["images/sample.img", "--base", "0x0"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        reader(&["images/sample.img", "--base", "zz", "--queue", "0"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        reader(&["no-such-file", "--base", "0", "--queue", "0"])
            .status
            .code(),
        Some(2)
    );
}
