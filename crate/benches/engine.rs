//! Native criterion benchmarks of the engine on the standard pod-baseline workload (../shared/bench), next to the two
//! floors of bench/README.md measured the same way: a scan of the review (serde into `IgnoredAny`) and a DOM read
//! (`serde_json::Value`), and a third, the whole review read into the tape (`palisade::json::Doc`) the request objects
//! are read into. Quote ratios from one run; the machine is noisy.

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
    group.bench_function("floor: tape", |b| {
        // the whole review into the tape `object` and `oldObject` are read into
        b.iter(|| palisade::json::Doc::parse(std::hint::black_box(REVIEW)).map(|_| ()))
    });
    group.bench_function("read_review", |b| {
        // the review as the engine reads it, before evaluation
        b.iter(|| palisade::api::read_review(std::hint::black_box(REVIEW.as_bytes())).map(|_| ()))
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
