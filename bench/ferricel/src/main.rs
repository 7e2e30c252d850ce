//! Palisade's fresh path side by side with ferricel's, in one process and one run: issue 12's "at least 20× faster
//! than ferricel" row, measured by a program anyone can run again (README "Performance", bench/README.md).
//!
//! ferricel (github.com/flavio/ferricel) compiles one ValidatingAdmissionPolicy into a wasm module of its own. This
//! program compiles the bundle's policy with ferricel's compiler and runs it with ferricel's own runtime, which makes
//! a fresh instance for every evaluation (`Engine::eval`). Beside it, it runs the `palisade.wasm` of this checkout
//! baked with the same bundle and the scan floor, both through the harness's `WasmHost`, a fresh instance per request.
//! All three run in one wasmtime engine, the harness's, so they pay the same instantiation and the same epoch checks.
//! Interleaved (the default), every request of Palisade and of the floor follows one of ferricel, so that each starts
//! with the caches another engine emptied; `--batch N` runs each engine's requests in a row. Each engine's minor page
//! faults per request are counted between requests, outside the timing.
//!
//! Before timing, each engine answers the review, and a copy of it with every label's value set to `z`, and the
//! verdicts (allowed, or denied with the policy's message) must agree.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use palisade_harness::bench::{Stats, round_order};
use palisade_harness::host::{Entry, bundle_bytes};
use palisade_harness::{Runtime, WasmHost, artifacts, bake, documents};
use serde_json::{Value, json};

const USAGE: &str = "\
usage: palisade-vs-ferricel -p BUNDLE REVIEW [options]

  -p BUNDLE            a bundle with exactly one ValidatingAdmissionPolicy (bench/pod-baseline.yaml)
  REVIEW               an AdmissionReview (bench/pod-review.json)
  --rounds N           measured rounds (default 1000)
  --warmup N           rounds run first and not measured (default 50)
  --batch N            each engine runs N requests in a row per round (default 1: interleaved, every request of
                       Palisade and of the floor right after one of ferricel)
  --request kube|whole ferricel's `request` binding: as kube-apiserver builds it for CEL, without `object` and
                       `oldObject` (default), or the whole AdmissionRequest
  --pooling            all three take their instances from wasmtime's pooling allocator (Runtime::pooled)
  --beside MODULE      also another palisade.wasm (an older build), baked with the same bundle, in the same rounds
  --format text|json   (default text)";

struct Options {
    bundle: PathBuf,
    review: PathBuf,
    rounds: usize,
    warmup: usize,
    batch: usize,
    whole_request: bool,
    pooling: bool,
    json: bool,
    beside: Option<PathBuf>,
}

fn options() -> Result<Options> {
    let mut args = std::env::args().skip(1);
    let mut bundle = None;
    let mut review = None;
    let mut o = Options {
        bundle: PathBuf::new(),
        review: PathBuf::new(),
        rounds: 1000,
        warmup: 50,
        batch: 1,
        whole_request: false,
        pooling: false,
        json: false,
        beside: None,
    };
    let number = |flag: &str, v: Option<String>| -> Result<usize> {
        let v = v.with_context(|| format!("{flag} needs a number"))?;
        let n: usize = v
            .parse()
            .with_context(|| format!("{flag} {v}: not a number"))?;
        if n == 0 {
            bail!("{flag} must be at least 1");
        }
        Ok(n)
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-p" | "--bundle" => bundle = args.next().map(PathBuf::from),
            "--rounds" => o.rounds = number("--rounds", args.next())?,
            "--warmup" => o.warmup = number("--warmup", args.next())?,
            "--batch" => o.batch = number("--batch", args.next())?,
            "--request" => match args.next().as_deref() {
                Some("kube") => o.whole_request = false,
                Some("whole") => o.whole_request = true,
                other => bail!("--request takes `kube` or `whole`, not {other:?}\n\n{USAGE}"),
            },
            "--pooling" => o.pooling = true,
            "--beside" => {
                o.beside = Some(
                    args.next()
                        .map(PathBuf::from)
                        .with_context(|| format!("--beside needs a module\n\n{USAGE}"))?,
                )
            }
            "--format" => match args.next().as_deref() {
                Some("text") => o.json = false,
                Some("json") => o.json = true,
                other => bail!("--format takes `text` or `json`, not {other:?}\n\n{USAGE}"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            a if a.starts_with('-') => bail!("unknown option `{a}`\n\n{USAGE}"),
            _ if review.is_none() => review = Some(PathBuf::from(arg)),
            _ => bail!("give one review\n\n{USAGE}"),
        }
    }
    o.bundle = bundle.with_context(|| format!("give a bundle with -p\n\n{USAGE}"))?;
    o.review = review.with_context(|| format!("give a review\n\n{USAGE}"))?;
    Ok(o)
}

/// The bundle's one ValidatingAdmissionPolicy, wherever the bundle holds it.
fn the_policy(bundle: &Value) -> Result<Value> {
    fn walk<'a>(v: &'a Value, found: &mut Vec<&'a Value>) {
        match v {
            Value::Object(m) if m.get("kind") == Some(&json!("ValidatingAdmissionPolicy")) => {
                found.push(v)
            }
            Value::Object(m) => m.values().for_each(|x| walk(x, found)),
            Value::Array(a) => a.iter().for_each(|x| walk(x, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    walk(bundle, &mut found);
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        _ => bail!(
            "ferricel compiles one ValidatingAdmissionPolicy; the bundle has {}",
            found.len()
        ),
    }
}

/// ferricel's bindings for one review: `object`, `oldObject` and `request`, this last as kube-apiserver builds it
/// for CEL (its `CreateAdmissionRequest` leaves out `object` and `oldObject`) or the whole AdmissionRequest.
fn ferricel_bindings(review: &Value, whole_request: bool) -> Result<String> {
    let request = review
        .get("request")
        .context("the review has no `request`")?;
    let mut cel_request = request.clone();
    if !whole_request && let Some(m) = cel_request.as_object_mut() {
        m.remove("object");
        m.remove("oldObject");
    }
    Ok(serde_json::to_string(&json!({
        "object": request.get("object").cloned().unwrap_or(Value::Null),
        "oldObject": request.get("oldObject").cloned().unwrap_or(Value::Null),
        "request": cel_request,
    }))?)
}

/// A verdict both engines can be asked for: allowed, or denied with the policy's message.
#[derive(Debug, PartialEq)]
enum Verdict {
    Allowed,
    Denied(String),
}

/// ferricel's answer, a Kubewarden ValidationResponse: `{"accepted": true}` or `{"accepted": false, "message": …}`.
fn ferricel_verdict(answer: &str) -> Result<Verdict> {
    let v: Value =
        serde_json::from_str(answer).with_context(|| format!("ferricel answered `{answer}`"))?;
    match v.get("accepted").and_then(Value::as_bool) {
        Some(true) => Ok(Verdict::Allowed),
        Some(false) => Ok(Verdict::Denied(
            v.get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .into(),
        )),
        None => bail!("ferricel answered `{answer}`"),
    }
}

/// Palisade's answer, an AdmissionReview: kube-apiserver's message ends with the policy's own.
/// A baked module's verdict on `review`, from a fresh instance.
fn verdict_of(host: &WasmHost, review: &Value) -> Result<Verdict> {
    palisade_verdict(&host.instantiate()?.validate(&serde_json::to_vec(review)?)?)
}

/// One fresh request of a baked module: instantiate, `validate(input)`, drop.
fn fresh_validate(host: std::rc::Rc<WasmHost>, input: Vec<u8>) -> Box<dyn Fn() -> Result<()>> {
    Box::new(move || {
        host.instantiate()?.call(Entry::Validate, &input)?;
        Ok(())
    })
}

fn palisade_verdict(answer: &Value) -> Result<Verdict> {
    match answer.pointer("/response/allowed").and_then(Value::as_bool) {
        Some(true) => Ok(Verdict::Allowed),
        Some(false) => {
            let message = answer
                .pointer("/response/status/message")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let own = message
                .rsplit_once("denied request: ")
                .map_or(message, |(_, own)| own);
            Ok(Verdict::Denied(own.into()))
        }
        None => bail!("palisade answered {answer}"),
    }
}

/// One engine under measurement: what one fresh request costs it.
struct Subject {
    label: &'static str,
    request: Box<dyn Fn() -> Result<()>>,
}

/// This process's minor page faults so far (`/proc/self/stat`, field 10; 0 where there is none): read between
/// requests, never inside a timed one.
fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // the command name, in parentheses, may hold spaces: count fields after its closing one
            let rest = s.rsplit_once(')')?.1;
            rest.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

fn main() -> Result<()> {
    let o = options()?;
    let bundle = documents::read_bundle(&o.bundle)?;
    let bundle_json = bundle_bytes(&bundle)?;
    let review = documents::read_document(&o.review)?;
    let runtime = if o.pooling {
        Runtime::pooled()?
    } else {
        Runtime::shared()?
    };

    // ferricel: its compiler, and its runtime in the harness's engine (which interrupts by epoch: a deadline of ten
    // seconds, in the harness's ticks, as the harness gives every call).
    let policy = the_policy(&bundle)?;
    let ferricel_module = ferricel_core::compiler::Builder::new()
        .build()
        .compile_vap(&serde_json::to_string(&policy)?)
        .context("ferricel cannot compile the policy")?;
    let ticks = u64::try_from(
        (palisade_harness::host::DEFAULT_DEADLINE.as_nanos()
            / palisade_harness::host::TICK.as_nanos())
        .max(1),
    )?;
    let ferricel = std::rc::Rc::new(
        ferricel_core::runtime::Builder::new()
            .with_engine(runtime.engine().clone())
            .with_epoch_deadline(ticks)
            .with_wasm(ferricel_module.clone())
            .build()?,
    );

    // Palisade, baked with the bundle, and the scan floor.
    let c_abi = artifacts::artifact(artifacts::C_ABI);
    let palisade_bytes = std::fs::read(&c_abi).with_context(|| {
        format!(
            "cannot read `{}` (build it with `cargo build --release -p palisade-harness`)",
            c_abi.display()
        )
    })?;
    let baked = bake::bake(&palisade_bytes, bake::Protocol::CAbi, &bundle_json)
        .map_err(|e| anyhow::anyhow!("cannot bake the bundle: {e}"))?;
    let palisade = std::rc::Rc::new(WasmHost::from_bytes(&runtime, &c_abi, &baked)?);
    let floor_path = artifacts::artifact(artifacts::FLOOR_SCAN);
    let floor = std::rc::Rc::new(WasmHost::from_bytes(
        &runtime,
        &floor_path,
        &std::fs::read(&floor_path)
            .with_context(|| format!("cannot read `{}`", floor_path.display()))?,
    )?);

    // `--beside`: another build of palisade.wasm, baked with the same bundle
    let beside = match &o.beside {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
            let baked = bake::bake(&bytes, bake::Protocol::CAbi, &bundle_json).map_err(|e| {
                anyhow::anyhow!("cannot bake the bundle into `{}`: {e}", path.display())
            })?;
            Some(std::rc::Rc::new(WasmHost::from_bytes(
                &runtime, path, &baked,
            )?))
        }
        None => None,
    };

    // The verdicts must agree, on the review and on a copy with every label set to `z`.
    let agree = |review: &Value| -> Result<Verdict> {
        let theirs =
            ferricel_verdict(&ferricel.eval(Some(&ferricel_bindings(review, o.whole_request)?))?)?;
        let ours = verdict_of(&palisade, review)?;
        if theirs != ours {
            bail!("the engines disagree: ferricel {theirs:?}, palisade {ours:?}");
        }
        if let Some(beside) = &beside {
            let other = verdict_of(beside, review)?;
            if other != ours {
                bail!("the palisade builds disagree: {ours:?}, and beside it {other:?}");
            }
        }
        Ok(ours)
    };
    let verdict = agree(&review)?;
    let mut denied = review.clone();
    let mut checked_denial = None;
    if let Some(labels) = denied
        .pointer_mut("/request/object/metadata/labels")
        .and_then(Value::as_object_mut)
        && !labels.is_empty()
    {
        labels.values_mut().for_each(|v| *v = json!("z"));
        checked_denial = Some(agree(&denied)?);
    }

    // What each engine is given: ferricel its bindings, Palisade and the floor the review as compact JSON (as
    // kube-apiserver sends it), all built once, outside the timing.
    let bindings = ferricel_bindings(&review, o.whole_request)?;
    let input = serde_json::to_vec(&review)?;
    let subjects = {
        let (bindings, input_p, input_f, bundle_f) = (
            bindings.clone(),
            input.clone(),
            input.clone(),
            bundle_json.clone(),
        );
        let (ferricel, palisade, floor) = (ferricel.clone(), palisade.clone(), floor.clone());
        let beside_subject = beside.clone().map(|beside| Subject {
            label: "beside, baked",
            request: fresh_validate(beside, input.clone()),
        });
        let mut subjects = vec![
            Subject {
                label: "ferricel",
                request: Box::new(move || ferricel.eval(Some(&bindings)).map(drop)),
            },
            Subject {
                label: "palisade, baked",
                request: fresh_validate(palisade, input_p),
            },
            Subject {
                label: "scan floor",
                request: Box::new(move || {
                    let mut session = floor.instantiate()?;
                    session.call(Entry::Configure, &bundle_f)?;
                    session.call(Entry::Validate, &input_f)?;
                    Ok(())
                }),
            },
        ];
        subjects.extend(beside_subject);
        subjects
    };

    // Interleaved, every request of Palisade and of the floor follows one of ferricel, whose request touches megabytes:
    // each starts with the caches another engine has emptied, and ferricel runs between them in turn. In batches,
    // each engine runs its requests in a row, in turn.
    let sequence = |round: usize| -> Vec<usize> {
        if o.batch == 1 {
            round_order(round, subjects.len() - 1)
                .flat_map(|i| [0, i + 1])
                .collect()
        } else {
            round_order(round, subjects.len()).collect()
        }
    };
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); subjects.len()];
    let mut faults: Vec<u64> = vec![0; subjects.len()];
    let mut runs: Vec<usize> = vec![0; subjects.len()];
    for round in 0..o.warmup + o.rounds {
        for i in sequence(round) {
            let (Some(s), Some(out)) = (subjects.get(i), samples.get_mut(i)) else {
                continue;
            };
            let before = minor_faults();
            for _ in 0..o.batch {
                let t = Instant::now();
                (s.request)()?;
                let d = t.elapsed();
                if round >= o.warmup {
                    out.push(d);
                }
            }
            if round >= o.warmup
                && let (Some(f), Some(n)) = (faults.get_mut(i), runs.get_mut(i))
            {
                *f += minor_faults().saturating_sub(before);
                *n += o.batch;
            }
        }
    }
    let stats: Vec<Stats> = samples.into_iter().map(Stats::from_samples).collect();
    let p50 = |i: usize| stats.get(i).map_or(0.0, |s| s.median.as_secs_f64() * 1e6);
    let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
    let faults_per_request = |i: usize| match (faults.get(i), runs.get(i)) {
        (Some(&f), Some(&n)) if n > 0 => f as f64 / n as f64,
        _ => 0.0,
    };

    let request_binding = if o.whole_request {
        "the whole AdmissionRequest"
    } else {
        "as kube-apiserver builds it (no object, oldObject)"
    };
    let order = if o.batch == 1 {
        "interleaved".to_string()
    } else {
        format!("in batches of {}", o.batch)
    };
    let allocator = if o.pooling { "pooling" } else { "on-demand" };
    let denial = checked_denial.map(|v| format!("{v:?}"));
    let setup = json!({
        "bundle": o.bundle.display().to_string(),
        "review": o.review.display().to_string(),
        "ferricel": "ferricel-core 0.12.0",
        "request_binding": request_binding,
        "order": order,
        "allocator": allocator,
        "rounds": o.rounds,
        "batch": o.batch,
        "verdict": format!("{verdict:?}"),
        "denial_checked": denial.clone(),
        "ferricel_module_bytes": ferricel_module.len(),
        "palisade_baked_bytes": baked.len(),
        "beside": o.beside.as_ref().map(|p| p.display().to_string()),
    });
    let report = json!({
        "setup": setup,
        "p50_us": {
            "ferricel": p50(0),
            "palisade_baked": p50(1),
            "scan_floor": p50(2),
            "beside_baked": beside.as_ref().map(|_| p50(3)),
        },
        "minor_faults_per_request": {
            "ferricel": faults_per_request(0),
            "palisade_baked": faults_per_request(1),
            "scan_floor": faults_per_request(2),
            "beside_baked": beside.as_ref().map(|_| faults_per_request(3)),
        },
        "ratios": {
            "ferricel_over_palisade": ratio(p50(0), p50(1)),
            "ferricel_over_floor": ratio(p50(0), p50(2)),
            "palisade_over_floor": ratio(p50(1), p50(2)),
        },
    });
    if o.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!(
        "{} against {}: ferricel's `request` {request_binding}, {order}, {allocator} allocator, {} rounds",
        o.review.display(),
        o.bundle.display(),
        o.rounds
    );
    println!(
        "both answer: {verdict:?}; with every label `z`: {}",
        denial.as_deref().unwrap_or("(the object has no labels)")
    );
    println!();
    println!(
        "{:<18} {:>10} {:>10} {:>10} {:>14}",
        "fresh request", "p50 µs", "p90 µs", "p99 µs", "page faults"
    );
    for (i, (s, st)) in subjects.iter().zip(&stats).enumerate() {
        let us = |d: Duration| d.as_secs_f64() * 1e6;
        println!(
            "{:<18} {:>10.1} {:>10.1} {:>10.1} {:>14.1}",
            s.label,
            us(st.median),
            us(st.p90),
            us(st.p99),
            faults_per_request(i)
        );
    }
    println!();
    println!(
        "ferricel / palisade, baked: {:.1}×   ferricel / scan floor: {:.1}×   palisade, baked / scan floor: {:.2}×",
        ratio(p50(0), p50(1)),
        ratio(p50(0), p50(2)),
        ratio(p50(1), p50(2))
    );
    if let Some(path) = &o.beside {
        println!(
            "beside ({}): ferricel / it {:.1}×, it / scan floor {:.2}×, palisade, baked / it {:.2}×",
            path.display(),
            ratio(p50(0), p50(3)),
            ratio(p50(3), p50(2)),
            ratio(p50(1), p50(3))
        );
    }
    Ok(())
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    reason = "tests: a wrong answer must abort the test"
)]
mod tests {
    use super::*;

    fn review() -> Value {
        json!({"request": {"uid": "u", "operation": "CREATE", "object": {"a": 1}, "oldObject": null}})
    }

    #[test]
    fn kube_apiservers_request_leaves_out_the_objects() {
        let b: Value = serde_json::from_str(&ferricel_bindings(&review(), false).unwrap()).unwrap();
        assert_eq!(b["object"], json!({"a": 1}));
        assert_eq!(b["oldObject"], Value::Null);
        assert_eq!(b["request"], json!({"uid": "u", "operation": "CREATE"}));
        let whole: Value =
            serde_json::from_str(&ferricel_bindings(&review(), true).unwrap()).unwrap();
        assert_eq!(whole["request"], review()["request"]);
    }

    #[test]
    fn verdicts_compare_the_policys_own_message() {
        assert_eq!(
            ferricel_verdict(r#"{"accepted":true}"#).unwrap(),
            Verdict::Allowed
        );
        assert_eq!(
            ferricel_verdict(r#"{"accepted":false,"message":"unknown team z","code":422}"#)
                .unwrap(),
            Verdict::Denied("unknown team z".into())
        );
        assert!(ferricel_verdict("{}").is_err());
        let denied = json!({"response": {"allowed": false, "status": {"message":
            "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: unknown team z"}}});
        assert_eq!(
            palisade_verdict(&denied).unwrap(),
            Verdict::Denied("unknown team z".into())
        );
        assert_eq!(
            palisade_verdict(&json!({"response": {"allowed": true}})).unwrap(),
            Verdict::Allowed
        );
    }

    #[test]
    fn the_bundle_must_hold_one_policy() {
        let vap = json!({"kind": "ValidatingAdmissionPolicy", "metadata": {"name": "p"}});
        let bundle =
            json!({"policies": [vap.clone(), {"kind": "ValidatingAdmissionPolicyBinding"}]});
        assert_eq!(the_policy(&bundle).unwrap(), vap);
        assert!(the_policy(&json!({"policies": [vap.clone(), vap]})).is_err());
        assert!(the_policy(&json!({"policies": []})).is_err());
    }
}
