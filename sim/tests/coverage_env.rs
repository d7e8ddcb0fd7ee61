//! `SIM_COVERAGE=FILE`: the interpreter made while it is set counts every
//! instruction and writes its report to FILE when the device is dropped.
//! Alone in its test binary, as it sets the environment.

mod support;

use support::*;

#[test]
fn sim_coverage_writes_the_report_when_the_device_is_dropped() {
    let path = std::env::temp_dir().join(format!("sim-coverage-{}.txt", std::process::id()));
    // SAFETY: the only test of this binary; no other thread reads the
    // environment while it is set.
    unsafe { std::env::set_var("SIM_COVERAGE", &path) };
    {
        let c = Client::new(1);
        // SAFETY: as above.
        unsafe { std::env::remove_var("SIM_COVERAGE") };
        let q = Queue::new(&c, 0);
        let co = c.load("../loader-core/corpus/co/gfx90a-v5.co");
        let k = &co.kernels["vector_add"];
        let (ba, bb, bc) = (c.buffer(4096), c.buffer(4096), c.buffer(4096));
        let out = dispatch(
            &c,
            &q,
            k,
            &[
                Arg::Ptr(ba.va),
                Arg::Ptr(bb.va),
                Arg::Ptr(bc.va),
                Arg::u32(64),
            ],
            Geometry::linear(64, 64),
        );
        assert!(matches!(out, Outcome::Done), "{out:?}");
    }
    let text = std::fs::read_to_string(&path).expect("the report was written");
    let _ = std::fs::remove_file(&path);
    assert!(text.starts_with("# sim shader coverage: "), "{text}");
    assert!(text.lines().any(|l| l == "1\texact\tv_add_f32\t"), "{text}");
    assert!(text.lines().any(|l| l == "1\texact\ts_endpgm\t"), "{text}");
}
