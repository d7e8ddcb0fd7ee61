//! `hypervisor-queue-reader IMAGE --base GPA --queue GPA [--limit N]`:
//! prints the `amd_queue_t` at guest address `--queue` in the guest memory
//! image `IMAGE` (whose first byte is guest address `--base`) and every
//! packet between its read and write index, decoded and validated.
//!
//! Exit status: 0 the queue was read and every packet is valid (or
//! reserved and not yet published); 1 the queue cannot be read (the typed
//! error is printed); 2 usage error or the image file cannot be read; 3 the
//! queue was read but some packets are malformed or changed while read.

use hypervisor_queue_reader::{ImageMemory, read_queue, report};
use std::process::ExitCode;

const USAGE: &str = "usage: hypervisor-queue-reader IMAGE --base GPA --queue GPA [--limit N]
  IMAGE        a guest memory image (raw bytes)
  --base GPA   guest address of the image's first byte (0x... or decimal)
  --queue GPA  guest address of the amd_queue_t
  --limit N    list at most N pending packets (default 4096)";

fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16).ok(),
        None => s.replace('_', "").parse().ok(),
    }
}

struct Args {
    image: String,
    base: u64,
    queue: u64,
    limit: usize,
}

fn parse(args: &[String]) -> Option<Args> {
    let (mut image, mut base, mut queue, mut limit) = (None, None, None, 4096usize);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--base" => base = Some(number(it.next()?)?),
            "--queue" => queue = Some(number(it.next()?)?),
            "--limit" => limit = usize::try_from(number(it.next()?)?).ok()?,
            s if !s.starts_with('-') && image.is_none() => image = Some(s.to_owned()),
            _ => return None,
        }
    }
    Some(Args {
        image: image?,
        base: base?,
        queue: queue?,
        limit,
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let Some(args) = parse(&args) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let bytes = match std::fs::read(&args.image) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("hypervisor-queue-reader: {}: {e}", args.image);
            return ExitCode::from(2);
        }
    };
    let memory = ImageMemory::new(&bytes, args.base);
    println!(
        "guest memory: {} bytes at {:#x} from {}",
        bytes.len(),
        args.base,
        args.image
    );
    match read_queue(&memory, args.queue, args.limit) {
        Ok(snapshot) => {
            print!("{}", report::report(&snapshot));
            let bad = snapshot.packets_with_errors();
            if bad == 0 {
                ExitCode::SUCCESS
            } else {
                println!("{bad} packet(s) with errors");
                ExitCode::from(3)
            }
        }
        Err(e) => {
            println!("error: {e}");
            println!("error: typed: QueueError::{e:?}");
            ExitCode::from(1)
        }
    }
}
