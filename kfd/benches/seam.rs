//! What the `Kfd<RealDevice>` path (wrapper, version check, `KfdDevice`
//! seam, EINTR loop, typed error) costs over the named alternative:
//! rustix's own `Getter` ioctl pattern with the same request code on the
//! same descriptor.
//!
//! Both issue `AMDKFD_IOC_GET_VERSION` on an `O_PATH` descriptor, which the
//! kernel fails with `EBADF` right away: there is no `/dev/kfd` here, and
//! this isolates the user-space part around one real syscall. Rounds of the
//! two alternate; the best round of each is reported, then the ratio.
//!
//! `cargo bench -p kfd --bench seam` measures; without `--bench` (as
//! `cargo test` runs it) it makes a short smoke pass and claims nothing.

#![allow(unsafe_code)]

use std::hint::black_box;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

use kfd::Kfd;
use kfd::ioctl::{AMDKFD_IOC_GET_VERSION, raw};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;
use rustix::ioctl::Getter;

fn o_path_fd() -> OwnedFd {
    rustix::fs::open("/", OFlags::PATH | OFlags::CLOEXEC, Mode::empty())
        .expect("open / with O_PATH")
}

fn via_kfd(kfd: &Kfd, n: u32) -> Duration {
    let start = Instant::now();
    for _ in 0..n {
        let r = black_box(kfd).get_version();
        assert!(matches!(
            r,
            Err(kfd::Error::Ioctl {
                errno: Errno::BADF,
                ..
            })
        ));
    }
    start.elapsed()
}

fn via_rustix(fd: &OwnedFd, n: u32) -> Duration {
    const CODE: rustix::ioctl::Opcode = AMDKFD_IOC_GET_VERSION.code();
    let start = Instant::now();
    for _ in 0..n {
        // SAFETY: `CODE` is `AMDKFD_IOC_GET_VERSION`, whose argument is a
        // `kfd_ioctl_get_version_args` the kernel writes.
        let getter = unsafe { Getter::<CODE, raw::GetVersionArgs>::new() };
        // SAFETY: as above; the kernel fails the call before writing.
        let r = unsafe { rustix::ioctl::ioctl(black_box(fd), getter) };
        assert_eq!(r.err(), Some(Errno::BADF));
    }
    start.elapsed()
}

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let (rounds, per_round) = if measuring { (15, 200_000) } else { (2, 100) };

    let kfd = Kfd::from_fd_unchecked(o_path_fd());
    let fd = o_path_fd();
    let (mut best_kfd, mut best_rustix) = (Duration::MAX, Duration::MAX);
    for _ in 0..rounds {
        best_kfd = best_kfd.min(via_kfd(&kfd, per_round));
        best_rustix = best_rustix.min(via_rustix(&fd, per_round));
    }
    if !measuring {
        println!("seam: smoke pass done (run `cargo bench -p kfd --bench seam` to measure)");
        return;
    }
    let ns = |d: Duration| d.as_secs_f64() * 1e9 / f64::from(per_round);
    let (k, r) = (ns(best_kfd), ns(best_rustix));
    println!(
        "AMDKFD_IOC_GET_VERSION on an O_PATH fd (EBADF), best of {rounds} rounds x {per_round} calls:"
    );
    println!("  Kfd<RealDevice>::get_version   {k:8.1} ns/call");
    println!("  rustix Getter + ioctl          {r:8.1} ns/call");
    println!("  ratio kfd / rustix             {:8.3}", k / r);
}
