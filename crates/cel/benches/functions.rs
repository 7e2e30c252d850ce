//! CEL function-call microbenchmarks: expressions made mostly of calls (string, list, math,
//! conversion, regex, optional and Kubernetes library functions) over a small object, each
//! compiled once and evaluated per iteration. Quote ratios from one run; the machine is noisy.

#![allow(
    clippy::panic,
    reason = "a benchmark stops on an expression that does not compile"
)]

use criterion::{Criterion, criterion_group, criterion_main};
use palisade_cel::{Activation, Budget, Env, Expect};

const EXPRESSIONS: &[(&str, &str)] = &[
    (
        "strings",
        "object.name.startsWith('web-') && object.name.contains('-') && object.name.size() < 64 \
         && object.name.lowerAscii().endsWith('1') && object.name.indexOf('-') == 3 \
         && object.name.split('-').size() == 3 && object.name.substring(0, 3) == 'web'",
    ),
    (
        "lists",
        "object.items.all(i, i.size() > 0) && object.items.map(i, i.upperAscii()).join(',') != '' \
         && dyn(object.numbers.sum()) > 0 && dyn(object.numbers.max()) == 9 && object.numbers.isSorted() \
         && object.numbers.indexOf(3) == 2 && object.numbers.slice(1, 3).size() == 2",
    ),
    (
        "math and conversions",
        "math.greatest(object.numbers) == 9 && math.abs(-int(object.replicas)) == 3 \
         && double(object.replicas) < 4.0 && string(object.replicas) == '3' \
         && math.ceil(1.5) == 2.0 && uint(object.replicas) == 3u && int('42') == 42 \
         && duration('1h') > duration('1m') && timestamp(object.created).getFullYear() == 2024",
    ),
    (
        "regex",
        "object.name.matches('^web-[a-z]+-[0-9]+$') && object.items.exists(i, i.matches('^[a-z]+$')) \
         && object.name.find('[0-9]+') == '1'",
    ),
    (
        "optional and kubernetes",
        "object.?missing.orValue('x') == 'x' && optional.of(object.name).hasValue() \
         && quantity(object.memory).isGreaterThan(quantity('1Gi')) \
         && isSemver('1.2.3') && semver('1.2.3').major() == 1 && ip('10.0.0.1').family() == 4 \
         && cidr('10.0.0.0/8').containsIP('10.1.2.3')",
    ),
];

fn benches(c: &mut Criterion) {
    let object = serde_json::json!({
        "name": "web-frontend-1",
        "items": ["alpha", "beta", "gamma", "delta"],
        "numbers": [1, 2, 3, 5, 8, 9],
        "replicas": 3,
        "created": "2024-05-01T10:00:00Z",
        "memory": "2Gi",
    });
    let env = Env::admission();
    let mut group = c.benchmark_group("cel functions");
    for (name, source) in EXPRESSIONS {
        let program = env
            .compile(source, Expect::Bool)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let act = Activation::new().bind_json("object", Some(&object));
        let first = program.eval(&act, &mut Budget::kubernetes());
        assert_eq!(
            first.as_ref().ok().and_then(|v| v.as_bool()),
            Some(true),
            "{name}: {first:?}"
        );
        group.bench_function(*name, |b| {
            b.iter(|| program.eval(&act, &mut Budget::kubernetes()).map(|_| ()))
        });
    }
    group.finish();
}

criterion_group!(functions, benches);
criterion_main!(functions);
