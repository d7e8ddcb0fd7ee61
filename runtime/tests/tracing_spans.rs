//! The `tracing` spans of the API entry points (feature `tracing`): a
//! small recording subscriber sees `hsa_init`, `hsa_queue_create` (with
//! its agent and size), `dispatch` and the calls inside it, and a failing
//! `hsa_queue_create` whose `warn` event, inside its span, carries the
//! status and the message, then `hsa_shut_down`.
#![cfg(feature = "tracing")]

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use runtime::{ArgValue, Geometry, QueueKind, Runtime, driver};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

const DEMO: &[u8] = include_bytes!("../kernels/demo.co");

/// What the subscriber saw, in order: `span <name> <fields>` and
/// `event in <span> <fields>`.
static LOG: Mutex<Vec<String>> = Mutex::new(Vec::new());

#[derive(Default)]
struct Recorder {
    next: AtomicU64,
    names: Mutex<Vec<(u64, &'static str)>>,
    stack: Mutex<Vec<u64>>,
}

#[derive(Default)]
struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0 += &format!(" {}={value:?}", field.name());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, span: &Attributes<'_>) -> Id {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let name = span.metadata().name();
        self.names.lock().unwrap().push((id, name));
        let mut f = Fields::default();
        span.record(&mut f);
        LOG.lock().unwrap().push(format!("span {name}{}", f.0));
        Id::from_u64(id)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let current = self.stack.lock().unwrap().last().copied();
        let names = self.names.lock().unwrap();
        let span = current
            .and_then(|c| names.iter().find(|(i, _)| *i == c))
            .map_or("-", |(_, n)| *n);
        let mut f = Fields::default();
        event.record(&mut f);
        LOG.lock().unwrap().push(format!("event in {span}{}", f.0));
    }

    fn enter(&self, span: &Id) {
        self.stack.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, _: &Id) {
        self.stack.lock().unwrap().pop();
    }
}

#[test]
fn entry_points_run_in_spans_and_a_failure_is_an_event_in_its_span() {
    tracing::subscriber::with_default(Recorder::default(), || {
        let rt = Runtime::init_with(driver::open_sim).expect("runtime on the sim");
        let gpu = rt.gpu_agents().next().expect("a GPU agent");
        let exe = rt.load_executable(gpu, DEMO).expect("demo.co");
        let k = exe.kernel("vector_add").expect("vector_add").clone();
        let q = rt
            .create_queue(gpu, 256, QueueKind::Multiple, None, u32::MAX)
            .expect("queue");
        let n = 4u32;
        let buf = rt.allocate(rt.kernarg_pool().unwrap(), 64).expect("buffer");
        let args = [
            ArgValue::Pointer(buf),
            ArgValue::Pointer(buf),
            ArgValue::Pointer(buf),
            ArgValue::Bytes(n.to_le_bytes().to_vec()),
        ];
        rt.dispatch(
            &q,
            &k,
            &args,
            &Geometry::linear(64, 64),
            Duration::from_secs(60),
        )
        .expect("dispatch");
        // Not a power of two: HSA_STATUS_ERROR_INVALID_ARGUMENT.
        let e = rt
            .create_queue(gpu, 100, QueueKind::Multiple, None, u32::MAX)
            .expect_err("a queue of 100 packets");
        rt.free(buf).expect("free");
        q.destroy().expect("destroy");
        drop(exe);
        rt.shut_down();

        let log = LOG.lock().unwrap().clone();
        let has = |line: &str| log.iter().any(|l| l == line);
        let text = log.join("\n");
        assert!(has("span hsa_init"), "{text}");
        let loaded = format!(
            "span hsa_executable_load_agent_code_object agent={}",
            gpu.handle()
        );
        assert!(has(&loaded), "{text}");
        let created = format!("span hsa_queue_create agent={} size=256", gpu.handle());
        assert!(has(&created), "{text}");
        assert!(
            log.iter().any(|l| l.starts_with("span dispatch queue=")),
            "{text}"
        );
        // The dispatch's own steps are spans too (inside it).
        assert!(
            log.iter()
                .any(|l| l.starts_with("span submit_dispatch queue=")),
            "{text}"
        );
        assert!(
            has(&format!(
                "span hsa_queue_create agent={} size=100",
                gpu.handle()
            )),
            "{text}"
        );
        let failed = format!(
            "event in hsa_queue_create message=failed status={:?} error={}",
            e.status.c_name(),
            e.message
        );
        assert!(has(&failed), "{failed}\n{text}");
        assert!(has("span hsa_queue_destroy"), "{text}");
        assert_eq!(
            log.last().map(String::as_str),
            Some("span hsa_shut_down"),
            "{text}"
        );
        assert!(
            log.iter()
                .any(|l| l.starts_with("span hsa_amd_memory_pool_free ptr=")),
            "{text}"
        );
        // Only the failing call has an event.
        assert_eq!(
            log.iter().filter(|l| l.starts_with("event")).count(),
            1,
            "{text}"
        );
    });
}
