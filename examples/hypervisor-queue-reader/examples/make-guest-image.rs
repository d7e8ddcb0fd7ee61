//! Writes the sample guest image (`hypervisor_queue_reader::sample`: a
//! queue driven through `aql`'s producer and packet-processor API) to a
//! file and prints the reader's arguments for it.
//!
//! `cargo run -p hypervisor-queue-reader --example make-guest-image -- OUT`

fn main() -> std::process::ExitCode {
    let Some(out) = std::env::args().nth(1) else {
        eprintln!("usage: make-guest-image OUT");
        return std::process::ExitCode::from(2);
    };
    let image = hypervisor_queue_reader::sample::sample_image();
    if let Err(e) = std::fs::write(&out, &image.bytes) {
        eprintln!("make-guest-image: {out}: {e}");
        return std::process::ExitCode::FAILURE;
    }
    println!(
        "{out} --base {:#x} --queue {:#x}",
        image.base, image.queue_address
    );
    std::process::ExitCode::SUCCESS
}
