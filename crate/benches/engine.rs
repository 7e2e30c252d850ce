//! Native criterion benchmarks of the engine on the standard pod-baseline workload (../shared/bench), next to the two
//! floors of bench/README.md measured the same way: a scan of the review (serde into `IgnoredAny`) and a DOM read
//! (`serde_json::Value`). Quote ratios from one run; the machine is noisy.

use criterion::{Criterion, criterion_group, criterion_main};
use serde::de::IgnoredAny;

const BUNDLE: &str = include_str!("../../bench/pod-baseline.json");
const REVIEW: &str = include_str!("../../bench/pod-review.json");

fn benches(c: &mut Criterion) {
    let configured = palisade::api::configure(BUNDLE.as_bytes());
    assert!(configured.engine().is_some(), "pod-baseline compiles");
    let mut group = c.benchmark_group("pod-baseline");
    group.bench_function("floor: scan", |b| {
        b.iter(|| serde_json::from_str::<IgnoredAny>(std::hint::black_box(REVIEW)).map(|_| ()))
    });
    group.bench_function("floor: dom", |b| {
        b.iter(|| {
            serde_json::from_str::<serde_json::Value>(std::hint::black_box(REVIEW)).map(|_| ())
        })
    });
    group.bench_function("validate (configured once)", |b| {
        b.iter(|| configured.validate(std::hint::black_box(REVIEW.as_bytes())))
    });
    group.bench_function("configure", |b| {
        b.iter(|| palisade::api::configure(std::hint::black_box(BUNDLE.as_bytes())))
    });
    group.finish();
}

criterion_group!(engine, benches);
criterion_main!(engine);
