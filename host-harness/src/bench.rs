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
}

impl Default for Options {
    fn default() -> Self {
        Self {
            iterations: 300,
            warmup: 30,
        }
    }
}

/// Latency statistics of one series of samples.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub samples: usize,
    pub median: Duration,
    pub p99: Duration,
    pub mean: Duration,
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
        Self {
            samples: n,
            median: at(0.5),
            p99: at(0.99),
            mean: total / u32::try_from(n).unwrap_or(u32::MAX),
        }
    }

    /// Requests per second, one at a time, from the mean.
    pub fn throughput(&self) -> f64 {
        let s = self.mean.as_secs_f64();
        if s > 0.0 { 1.0 / s } else { 0.0 }
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
    std::fs::read(path).with_context(|| {
        format!(
            "cannot read `{}` (build it with `cargo build --release -p palisade-harness`)",
            path.display()
        )
    })
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
    let subjects = vec![
        subject(&runtime, "palisade", module, &palisade, false)?,
        subject(&runtime, "palisade, baked", module, &baked, true)?,
        subject(
            &runtime,
            "scan floor",
            floors[0],
            &read_module(floors[0])?,
            false,
        )?,
        subject(
            &runtime,
            "DOM floor",
            floors[1],
            &read_module(floors[1])?,
            false,
        )?,
    ];

    // Reused instances: configure once each.
    let mut sessions = Vec::new();
    let mut sample_answer = None;
    for s in &subjects {
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
        sessions.push(session);
    }

    let mut reused: Vec<Vec<Duration>> = vec![Vec::new(); subjects.len()];
    let mut fresh: Vec<Vec<Duration>> = vec![Vec::new(); subjects.len()];
    for round in 0..opts.warmup + opts.iterations {
        let record = round >= opts.warmup;
        // Interleaved: every module, every review, in each round.
        for (i, session) in sessions.iter_mut().enumerate() {
            for input in inputs {
                let t = Instant::now();
                session.call(Entry::Validate, input)?;
                let d = t.elapsed();
                if record && let Some(v) = reused.get_mut(i) {
                    v.push(d);
                }
            }
        }
        for (i, s) in subjects.iter().enumerate() {
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

    let modules = subjects
        .into_iter()
        .zip(reused.into_iter().zip(fresh))
        .map(|(s, (r, f))| ModuleFigures {
            label: s.label,
            path: s.host.path().to_path_buf(),
            raw_size: s.raw_size,
            gzip_size: s.gzip_size,
            compile_time: s.host.compile_time(),
            reused: Some(Stats::from_samples(r)),
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
        "{:<16} {:>10} {:>10} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}",
        "module",
        "size",
        "gzip -9",
        "compile",
        "reused p50",
        "reused p99",
        "fresh p50",
        "fresh p99",
        "fresh req/s"
    );
    for m in &r.modules {
        let reused = m.reused.clone().unwrap_or_default();
        let _ = writeln!(
            out,
            "{:<16} {:>10} {:>10} {:>9.1}ms {:>9.1}µs {:>9.1}µs {:>9.1}µs {:>9.1}µs {:>11.0}",
            m.label,
            m.raw_size,
            m.gzip_size,
            m.compile_time.as_secs_f64() * 1e3,
            us(reused.median),
            us(reused.p99),
            us(m.fresh.median),
            us(m.fresh.p99),
            m.fresh.throughput()
        );
    }
    let find = |label: &str| r.modules.iter().find(|m| m.label == label);
    if let (Some(p), Some(floor)) = (find("palisade"), find("waPC floor")) {
        let ratio = |a: Duration, b: Duration| {
            if b.is_zero() {
                0.0
            } else {
                a.as_secs_f64() / b.as_secs_f64()
            }
        };
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
        let ratio = |a: Duration, b: Duration| {
            if b.is_zero() {
                0.0
            } else {
                a.as_secs_f64() / b.as_secs_f64()
            }
        };
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
        json!({ "samples": s.samples, "medianMicros": us(s.median), "p99Micros": us(s.p99),
                "meanMicros": us(s.mean), "throughputPerSecond": s.throughput() })
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
    serde_json::to_string_pretty(&json!({
        "reviews": r.reviews, "reviewBytes": r.review_bytes, "iterations": r.iterations, "modules": modules,
    }))
    .unwrap_or_default()
        + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

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
