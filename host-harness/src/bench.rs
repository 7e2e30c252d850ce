//! `palisade bench`: latency and throughput of `palisade.wasm` in wasmtime, next to the two
//! floors of `../shared/bench/README.md` measured in the same run, interleaved (the machine
//! is noisy; only ratios to the floors are comparable between runs).
//!
//! - reused instance: `validate` on one instance configured once (kwctl's bench mode);
//! - fresh instance: instantiate + configure + validate (policy-server's per-request cost);
//! - module size raw and gzip -9, module compile time.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use serde_json::{Value, json};

use crate::host::{Entry, Runtime, WasmHost, bundle_bytes, validate_input};

/// The bytes `validate` is given for a review file: the file itself when it is JSON and there
/// is no context (so sizes match the recording), else the review re-encoded with its context.
pub fn input_for(path: &Path, context: Option<&Value>) -> Result<Vec<u8>> {
    let raw = std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    if context.is_none() && serde_json::from_slice::<Value>(&raw).is_ok() {
        return Ok(raw);
    }
    let review = crate::documents::read_document(path)?;
    Ok(validate_input(&review, context)?)
}

#[derive(Debug, Clone)]
pub struct Options {
    pub iterations: usize,
    pub warmup: usize,
    /// Also measure fresh instances of the baked module and of the floor allocated from wasmtime's pooling allocator
    /// ([`Runtime::pooled`]), beside the same modules allocated on demand.
    pub pooling: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            iterations: 300,
            warmup: 30,
            pooling: false,
        }
    }
}

/// The suffix of a module's label when its instances come from wasmtime's pooling allocator (`--pooling`).
pub const POOLED: &str = ", pooled";

/// `--wasi`: the WASI command as shipped, given the bundle's file, and baked with the bundle, next to the WASI floor
/// (the scan floor as a WASI command, `floor-wasi.wasm`).
pub const WASI: &str = "palisade-wasi";
pub const WASI_BAKED: &str = "palisade-wasi, baked";
pub const WASI_FLOOR: &str = "WASI floor";

/// Latency statistics of one series of samples.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub samples: usize,
    pub median: Duration,
    pub p90: Duration,
    pub p99: Duration,
    pub mean: Duration,
    /// Counts per latency bucket, bucket `i` holding samples in [2^i, 2^(i+1)) µs (bucket 0 also holds < 1 µs).
    pub histogram: Vec<u64>,
}

impl Stats {
    pub fn from_samples(mut samples: Vec<Duration>) -> Self {
        samples.sort();
        let n = samples.len();
        if n == 0 {
            return Self::default();
        }
        let at = |q: f64| {
            let idx = ((n as f64 - 1.0) * q).round() as usize;
            samples.get(idx.min(n - 1)).copied().unwrap_or_default()
        };
        let total: Duration = samples.iter().sum();
        let mut histogram: Vec<u64> = Vec::new();
        for s in &samples {
            let micros = s.as_micros().max(1);
            let bucket = (127 - micros.leading_zeros()) as usize;
            if histogram.len() <= bucket {
                histogram.resize(bucket + 1, 0);
            }
            if let Some(count) = histogram.get_mut(bucket) {
                *count += 1;
            }
        }
        Self {
            samples: n,
            median: at(0.5),
            p90: at(0.9),
            p99: at(0.99),
            mean: total / u32::try_from(n).unwrap_or(u32::MAX),
            histogram,
        }
    }

    /// Requests per second, one at a time, from the mean.
    pub fn throughput(&self) -> f64 {
        let s = self.mean.as_secs_f64();
        if s > 0.0 { 1.0 / s } else { 0.0 }
    }
}

/// The latency histogram of `stats` drawn in the terminal: one row per power-of-two bucket, bars scaled to the
/// fullest bucket.
pub fn draw_histogram(title: &str, stats: &Stats) -> String {
    const WIDTH: u64 = 40;
    let mut out = format!("{title} ({} samples)\n", stats.samples);
    let max = stats.histogram.iter().copied().max().unwrap_or(0).max(1);
    let first = stats.histogram.iter().position(|c| *c > 0).unwrap_or(0);
    for (i, count) in stats.histogram.iter().enumerate().skip(first) {
        let low = 1u64 << i;
        let bar = "█".repeat(usize::try_from(count * WIDTH / max).unwrap_or(0));
        let _ = writeln!(
            out,
            "  {:>7} µs .. {:>7} µs │{bar:<40}│ {count}",
            if i == 0 { 0 } else { low },
            low * 2
        );
    }
    out
}

/// A progress bar on stderr for long runs, drawn only when stderr is a terminal.
pub struct Progress {
    total: usize,
    shown: bool,
}

impl Progress {
    pub fn new(total: usize) -> Self {
        use std::io::IsTerminal as _;
        Self {
            total,
            shown: total >= 50 && std::io::stderr().is_terminal(),
        }
    }

    /// Round `done` of `total` is finished.
    pub fn tick(&self, done: usize) {
        if !self.shown || (!done.is_multiple_of(10) && done != self.total) {
            return;
        }
        let width = 30;
        let filled = done * width / self.total.max(1);
        eprint!(
            "\r  [{}{}] {done}/{} rounds",
            "#".repeat(filled),
            " ".repeat(width - filled),
            self.total
        );
        if done == self.total {
            eprintln!();
        }
    }
}

/// The figures of one module.
#[derive(Debug, Clone)]
pub struct ModuleFigures {
    pub label: String,
    pub path: PathBuf,
    pub raw_size: u64,
    pub gzip_size: u64,
    pub compile_time: Duration,
    pub reused: Option<Stats>,
    pub fresh: Stats,
}

#[derive(Debug, Clone)]
pub struct BenchReport {
    pub reviews: usize,
    pub review_bytes: Vec<usize>,
    pub iterations: usize,
    pub modules: Vec<ModuleFigures>,
    /// An answer of the measured module, to show what was measured.
    pub sample_answer: Option<Value>,
}

pub fn gzip9_len(bytes: &[u8]) -> Result<u64> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes)?;
    Ok(encoder.finish()?.len() as u64)
}

struct Subject {
    label: String,
    host: WasmHost,
    raw_size: u64,
    gzip_size: u64,
    /// Baked with the bundle: instances are used without `configure`.
    baked: bool,
}

fn read_module(path: &Path) -> Result<Vec<u8>> {
    Ok(crate::host::read_module(path)?)
}

fn subject(
    runtime: &Runtime,
    label: &str,
    path: &Path,
    bytes: &[u8],
    baked: bool,
) -> Result<Subject> {
    let host = WasmHost::from_bytes(runtime, path, bytes)?;
    Ok(Subject {
        label: label.into(),
        host,
        raw_size: bytes.len() as u64,
        gzip_size: gzip9_len(bytes)?,
        baked,
    })
}

/// Benchmarks the C ABI module at `module` against the floors at `floors` (scan, dom).
/// The order `n` interleaved modules run in, in round `round`: each round starts with the next module. In a fixed
/// order the first module always runs right after the fresh instances of the round before (its caches coldest) and
/// the others after it warmed the host's call path: measured on pod-baseline, that alone put the first module 10-20 %
/// further from the floor than the same module in turn.
pub fn round_order(round: usize, n: usize) -> impl Iterator<Item = usize> {
    (0..n).map(move |k| (k + round) % n)
}

pub fn run(
    module: &Path,
    floors: [&Path; 2],
    bundle: &Value,
    inputs: &[Vec<u8>],
    opts: &Options,
) -> Result<BenchReport> {
    if inputs.is_empty() {
        bail!("give at least one review to measure");
    }
    let runtime = Runtime::shared()?;
    let bundle_json = bundle_bytes(bundle)?;
    let palisade = read_module(module)?;
    let baked = crate::bake::bake(&palisade, crate::bake::Protocol::CAbi, &bundle_json)
        .map_err(|e| anyhow::anyhow!("cannot bake the bundle: {e}"))?;
    let scan = read_module(floors[0])?;
    let mut subjects = vec![
        subject(&runtime, "palisade", module, &palisade, false)?,
        subject(&runtime, "palisade, baked", module, &baked, true)?,
        subject(&runtime, "scan floor", floors[0], &scan, false)?,
        subject(
            &runtime,
            "DOM floor",
            floors[1],
            &read_module(floors[1])?,
            false,
        )?,
    ];
    if opts.pooling {
        // Fresh instances only: a reused instance runs the same code whichever allocator made it.
        let pooled = Runtime::pooled()?;
        subjects.push(subject(
            &pooled,
            &format!("palisade, baked{POOLED}"),
            module,
            &baked,
            true,
        )?);
        subjects.push(subject(
            &pooled,
            &format!("scan floor{POOLED}"),
            floors[0],
            &scan,
            false,
        )?);
    }

    // Reused instances: configure once each.
    let mut sessions = Vec::new();
    let mut sample_answer = None;
    for s in &subjects {
        if s.label.ends_with(POOLED) {
            sessions.push(None);
            continue;
        }
        let mut session = s.host.instantiate()?;
        if !s.baked
            && let Some(message) = session.configure(&bundle_json)?
            && s.label == "palisade"
        {
            bail!("the bundle was rejected: {message}");
        }
        if s.label == "palisade" {
            sample_answer = inputs.first().map(|i| session.validate(i)).transpose()?;
        }
        sessions.push(Some(session));
    }

    let mut reused: Vec<Vec<Duration>> = vec![Vec::new(); subjects.len()];
    let mut fresh: Vec<Vec<Duration>> = vec![Vec::new(); subjects.len()];
    let progress = Progress::new(opts.warmup + opts.iterations);
    for round in 0..opts.warmup + opts.iterations {
        progress.tick(round);
        let record = round >= opts.warmup;
        // Interleaved: every module, every review, in each round ([`round_order`]).
        let n = sessions.len();
        for i in round_order(round, n) {
            let Some(Some(session)) = sessions.get_mut(i) else {
                continue;
            };
            for input in inputs {
                let t = Instant::now();
                session.call(Entry::Validate, input)?;
                let d = t.elapsed();
                if record && let Some(v) = reused.get_mut(i) {
                    v.push(d);
                }
            }
        }
        for i in round_order(round, n) {
            let Some(s) = subjects.get(i) else {
                continue;
            };
            for input in inputs {
                let t = Instant::now();
                let mut session = s.host.instantiate()?;
                if !s.baked {
                    session.call(Entry::Configure, &bundle_json)?;
                }
                session.call(Entry::Validate, input)?;
                let d = t.elapsed();
                if record && let Some(v) = fresh.get_mut(i) {
                    v.push(d);
                }
            }
        }
    }

    progress.tick(opts.warmup + opts.iterations);
    let modules = subjects
        .into_iter()
        .zip(reused.into_iter().zip(fresh))
        .map(|(s, (r, f))| ModuleFigures {
            label: s.label,
            path: s.host.path().to_path_buf(),
            raw_size: s.raw_size,
            gzip_size: s.gzip_size,
            compile_time: s.host.compile_time(),
            reused: (!r.is_empty()).then(|| Stats::from_samples(r)),
            fresh: Stats::from_samples(f),
        })
        .collect();
    Ok(BenchReport {
        reviews: inputs.len(),
        review_bytes: inputs.iter().map(Vec::len).collect(),
        iterations: opts.iterations,
        modules,
        sample_answer,
    })
}

/// `a / b`, or 0 when `b` is zero.
fn ratio(a: Duration, b: Duration) -> f64 {
    if b.is_zero() {
        0.0
    } else {
        a.as_secs_f64() / b.as_secs_f64()
    }
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

pub fn render_text(r: &BenchReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} review(s) ({} bytes), {} interleaved rounds",
        r.reviews,
        r.review_bytes
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        r.iterations
    );
    let _ = writeln!(
        out,
        "{:<24} {:>10} {:>10} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "module",
        "size",
        "gzip -9",
        "compile",
        "reused p50",
        "reused p90",
        "reused p99",
        "fresh p50",
        "fresh p90",
        "fresh p99",
        "fresh req/s"
    );
    let micros =
        |d: Option<Duration>| d.map_or_else(|| "-".to_owned(), |d| format!("{:.1}µs", us(d)));
    for m in &r.modules {
        let reused = m.reused.as_ref();
        let _ = writeln!(
            out,
            "{:<24} {:>10} {:>10} {:>9.1}ms {:>11} {:>11} {:>11} {:>9.1}µs {:>9.1}µs {:>9.1}µs {:>11.0}",
            m.label,
            m.raw_size,
            m.gzip_size,
            m.compile_time.as_secs_f64() * 1e3,
            micros(reused.map(|s| s.median)),
            micros(reused.map(|s| s.p90)),
            micros(reused.map(|s| s.p99)),
            us(m.fresh.median),
            us(m.fresh.p90),
            us(m.fresh.p99),
            m.fresh.throughput()
        );
    }
    let find = |label: &str| r.modules.iter().find(|m| m.label == label);
    if let (Some(p), Some(floor)) = (find("palisade"), find("waPC floor")) {
        let pr = p.reused.clone().unwrap_or_default();
        let fr = floor.reused.clone().unwrap_or_default();
        let _ = writeln!(
            out,
            "palisade / waPC floor: reused {:.2}x, fresh {:.2}x",
            ratio(pr.median, fr.median),
            ratio(p.fresh.median, floor.fresh.median)
        );
        if let Some(baked) = find("palisade, baked") {
            let _ = writeln!(
                out,
                "palisade, baked / waPC floor: fresh {:.2}x (goal: within 2x)",
                ratio(baked.fresh.median, floor.fresh.median)
            );
        }
    }
    if let (Some(p), Some(scan), Some(dom)) =
        (find("palisade"), find("scan floor"), find("DOM floor"))
    {
        let pr = p.reused.clone().unwrap_or_default();
        let sr = scan.reused.clone().unwrap_or_default();
        let dr = dom.reused.clone().unwrap_or_default();
        let _ = writeln!(
            out,
            "palisade / scan floor: reused {:.2}x, fresh {:.2}x (goal: within 2x)",
            ratio(pr.median, sr.median),
            ratio(p.fresh.median, scan.fresh.median)
        );
        if let Some(baked) = find("palisade, baked") {
            let _ = writeln!(
                out,
                "palisade, baked / scan floor: fresh {:.2}x (goal: within 2x); baked fresh / unbaked fresh {:.2}x",
                ratio(baked.fresh.median, scan.fresh.median),
                ratio(baked.fresh.median, p.fresh.median)
            );
        }
        let _ = writeln!(
            out,
            "palisade / DOM floor:  reused {:.2}x, fresh {:.2}x",
            ratio(pr.median, dr.median),
            ratio(p.fresh.median, dom.fresh.median)
        );
        let _ = writeln!(
            out,
            "reused throughput: palisade {:.0} req/s, scan floor {:.0} req/s, DOM floor {:.0} req/s",
            pr.throughput(),
            sr.throughput(),
            dr.throughput()
        );
    }
    if let (Some(baked), Some(shipped), Some(floor)) =
        (find(WASI_BAKED), find(WASI), find(WASI_FLOOR))
    {
        let _ = writeln!(
            out,
            "{WASI} / {WASI_FLOOR}: fresh {:.2}x; {WASI_BAKED} / {WASI_FLOOR}: fresh {:.2}x; baked / shipped (reading the bundle's file) {:.2}x",
            ratio(shipped.fresh.median, floor.fresh.median),
            ratio(baked.fresh.median, floor.fresh.median),
            ratio(baked.fresh.median, shipped.fresh.median)
        );
    }
    for m in r
        .modules
        .iter()
        .filter(|m| m.label.starts_with("palisade") && m.label.ends_with(POOLED))
    {
        let (Some(floor), Some(on_demand)) = (
            floor_of(r, m),
            find(m.label.strip_suffix(POOLED).unwrap_or(&m.label)),
        ) else {
            continue;
        };
        let _ = writeln!(
            out,
            "{} / {}: fresh {:.2}x; pooled / on demand: {:.2}x ({} fresh instances), {:.2}x ({})",
            m.label,
            floor.label,
            ratio(m.fresh.median, floor.fresh.median),
            ratio(m.fresh.median, on_demand.fresh.median),
            on_demand.label,
            find(floor.label.strip_suffix(POOLED).unwrap_or(&floor.label))
                .map_or(0.0, |f| ratio(floor.fresh.median, f.fresh.median)),
            floor.label.strip_suffix(POOLED).unwrap_or(&floor.label),
        );
    }
    for m in r.modules.iter().filter(|m| m.label.starts_with("palisade")) {
        if let Some(reused) = &m.reused {
            out.push_str(&draw_histogram(
                &format!("{}, reused instance", m.label),
                reused,
            ));
        }
        out.push_str(&draw_histogram(
            &format!("{}, fresh instance", m.label),
            &m.fresh,
        ));
    }
    if let Some(answer) = &r.sample_answer {
        let allowed = answer
            .pointer("/response/allowed")
            .cloned()
            .unwrap_or(Value::Null);
        let message = answer
            .pointer("/response/status/message")
            .and_then(Value::as_str)
            .unwrap_or("");
        let _ = writeln!(
            out,
            "palisade answered the first review: allowed={allowed} {message}"
        );
    }
    out
}

pub fn render_json(r: &BenchReport) -> String {
    let stats = |s: &Stats| {
        json!({ "samples": s.samples, "medianMicros": us(s.median), "p90Micros": us(s.p90),
                "p99Micros": us(s.p99), "meanMicros": us(s.mean), "throughputPerSecond": s.throughput(),
                "histogramLog2Micros": s.histogram })
    };
    let modules: Vec<Value> = r
        .modules
        .iter()
        .map(|m| {
            json!({
                "module": m.label, "path": m.path.display().to_string(), "bytes": m.raw_size,
                "gzipBytes": m.gzip_size, "compileMillis": m.compile_time.as_secs_f64() * 1e3,
                "reused": m.reused.as_ref().map(stats), "fresh": stats(&m.fresh),
            })
        })
        .collect();
    let ratios: serde_json::Map<String, Value> =
        ratios(r).into_iter().map(|(k, v)| (k, json!(v))).collect();
    serde_json::to_string_pretty(&json!({
        "reviews": r.reviews, "reviewBytes": r.review_bytes, "iterations": r.iterations, "modules": modules,
        "ratios": ratios,
    }))
    .unwrap_or_default()
        + "\n"
}

/// The run's figures that can be compared between runs and machines: each palisade module's p50 (reused and fresh)
/// divided by the same mode's p50 of the floor measured in the same run (`scan floor`, or `waPC floor` with
/// `--kubewarden`; for a pooled module, the pooled floor; with `--wasi`, the WASI floor). Keys are `<module>/<mode>`,
/// e.g. `palisade, baked/fresh`.
pub fn ratios(r: &BenchReport) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for m in r.modules.iter().filter(|m| m.label.starts_with("palisade")) {
        let Some(floor) = floor_of(r, m) else {
            continue;
        };
        if let (Some(reused), Some(floor_reused)) = (&m.reused, &floor.reused) {
            out.push((
                format!("{}/reused", m.label),
                ratio(reused.median, floor_reused.median),
            ));
        }
        out.push((
            format!("{}/fresh", m.label),
            ratio(m.fresh.median, floor.fresh.median),
        ));
    }
    out
}

/// The floor a module is measured against: the scan floor (the waPC floor with `--kubewarden`, the WASI floor with
/// `--wasi`), allocated as the module is (pooled or on demand).
fn floor_of<'a>(r: &'a BenchReport, m: &ModuleFigures) -> Option<&'a ModuleFigures> {
    let pooled = m.label.ends_with(POOLED);
    r.modules.iter().find(|f| {
        let base = f.label.strip_suffix(POOLED).unwrap_or(&f.label);
        f.label.ends_with(POOLED) == pooled
            && (base == "scan floor" || base == "waPC floor" || base == WASI_FLOOR)
    })
}

/// `--baseline FILE --max-regression PCT`: every ratio of this run against the same ratio of a saved
/// `--format json` run. Ratios to the floor measured in the same run, not microseconds, are compared, so that a
/// baseline saved on one machine gates a run on another. Answers the regressions found, worded for a person.
pub fn regressions(r: &BenchReport, baseline: &Value, max_regression_pct: f64) -> Vec<String> {
    let Some(saved) = baseline.get("ratios").and_then(Value::as_object) else {
        return vec![
            "the baseline has no `ratios` (save one with `palisade bench --format json`)".into(),
        ];
    };
    let mut out = Vec::new();
    for (key, now) in ratios(r) {
        let Some(before) = saved.get(&key).and_then(Value::as_f64) else {
            continue;
        };
        let limit = before * (1.0 + max_regression_pct / 100.0);
        if now > limit {
            out.push(format!(
                "{key}: {now:.2}x the floor, baseline {before:.2}x (+{:.0}%, more than the {max_regression_pct}% allowed)",
                (now / before - 1.0) * 100.0
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over any `n` consecutive rounds every module runs first once, and every round runs each module once.
    #[test]
    fn every_module_runs_first_in_turn() {
        for n in 1..6 {
            for start in 0..7 {
                let mut firsts: Vec<usize> = (start..start + n)
                    .filter_map(|round| round_order(round, n).next())
                    .collect();
                firsts.sort_unstable();
                assert_eq!(firsts, (0..n).collect::<Vec<_>>(), "n {n} from {start}");
                let mut once: Vec<usize> = round_order(start, n).collect();
                once.sort_unstable();
                assert_eq!(once, (0..n).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn percentiles() {
        let s = Stats::from_samples((1..=100).map(Duration::from_micros).collect());
        assert_eq!(s.samples, 100);
        assert_eq!(s.median, Duration::from_micros(51));
        assert_eq!(s.p99, Duration::from_micros(99));
        assert!(Stats::from_samples(Vec::new()).median.is_zero());
    }

    #[test]
    fn gzip_shrinks_repetition() {
        let raw = vec![b'a'; 10_000];
        assert!(gzip9_len(&raw).unwrap() < 200);
    }
}
