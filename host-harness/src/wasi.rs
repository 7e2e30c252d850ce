//! The host of the WASI command `palisade-wasi.wasm` (docs/architecture.md, "WASI"): each run a fresh instance in
//! wasmtime's WASI preview 1, as `wasmtime run --dir DIR palisade-wasi.wasm ARGS < STDIN` would run it, with stdin,
//! stdout and stderr in memory and the files it is given in a directory of their own, preopened as `.` (read-only).
//!
//! [`WasiBackend`] runs case files through it (`palisade test --wasi`, and CI's `wasi::` tests): the bundle written to
//! that directory, `validate -p bundle.json` with the input of the C ABI's `validate` on stdin. A module baked with
//! the case's bundle (`palisade bake --wasi`) runs `validate` alone, with no directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use serde_json::Value;
use wasmtime::{InstancePre, Linker, Module, Store};
use wasmtime_wasi::p1::WasiP1Ctx;
use wasmtime_wasi::p2::pipe::{MemoryInputPipe, MemoryOutputPipe};
use wasmtime_wasi::{FsPerms, I32Exit, WasiCtxBuilder};

use crate::backend::{Backend, HostError};
use crate::bench;
use crate::host::{
    DEFAULT_DEADLINE, DEFAULT_MEMORY_LIMIT, Runtime, StoreState, bundle_bytes, error_text,
    read_module, ticks, validate_input,
};

/// The most a run may print on stdout or on stderr: past it, the command's write fails (and it exits 2).
const MAX_OUTPUT: usize = 64 << 20;

/// What one run printed, and how it exited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: i32,
}

/// Per-store state: WASI's context, and the memory cap of the C ABI host's stores.
struct State {
    wasi: WasiP1Ctx,
    limits: StoreState,
}

/// The compiled WASI command, ready to run (one per process).
pub struct WasiHost {
    runtime: Runtime,
    path: PathBuf,
    compile_time: Duration,
    /// The bundle hash of a baked module (`palisade bake --wasi`).
    baked: Option<String>,
    pre: InstancePre<State>,
}

impl WasiHost {
    /// Compiles `palisade-wasi.wasm` (or another WASI command) and links it with WASI preview 1.
    pub fn load(path: &Path) -> Result<Self, HostError> {
        Self::from_bytes(&Runtime::shared()?, path, &read_module(path)?)
    }

    /// Compiles a WASI command from bytes in `runtime`; `path` only names it in errors.
    pub fn from_bytes(runtime: &Runtime, path: &Path, bytes: &[u8]) -> Result<Self, HostError> {
        let load_err = |reason: String| HostError::Load {
            module: path.display().to_string(),
            reason,
        };
        let started = Instant::now();
        let module = Module::new(runtime.engine(), bytes).map_err(|e| load_err(error_text(&e)))?;
        let compile_time = started.elapsed();
        let mut linker: Linker<State> = Linker::new(runtime.engine());
        wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |s: &mut State| &mut s.wasi)
            .map_err(|e| load_err(error_text(&e)))?;
        let pre = linker
            .instantiate_pre(&module)
            .map_err(|e| load_err(error_text(&e)))?;
        Ok(Self {
            runtime: runtime.clone(),
            path: path.to_path_buf(),
            compile_time,
            baked: crate::bake::baked_bundle_hash(bytes),
            pre,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// Whether the module was baked with this bundle, so that a run named no bundle file decides with it.
    pub fn is_baked_with(&self, bundle_json: &[u8]) -> bool {
        crate::bake::is_baked_with(self.baked.as_deref(), bundle_json)
    }

    /// Runs the command once in a fresh instance: `args` after the program name, `stdin`, `files` (name, bytes)
    /// readable in the directory it is given as `.` (no files: no directory, as `wasmtime run` without `--dir`), and
    /// the environment `vars`. A trap, a timeout or the memory cap is a [`HostError`]; an exit, whatever its status,
    /// is a [`Run`].
    pub fn run(
        &self,
        args: &[&str],
        stdin: &[u8],
        files: &[(&str, &[u8])],
        vars: &[(&str, &str)],
        deadline: Duration,
    ) -> Result<Run, HostError> {
        let dir = if files.is_empty() {
            None
        } else {
            Some(FileDir::new(files)?)
        };
        self.run_in(
            args,
            stdin,
            dir.as_ref().map(|d| d.path.as_path()),
            vars,
            deadline,
        )
    }

    /// [`WasiHost::run`] with `dir` (an existing directory, read-only) preopened as `.`, or none.
    fn run_in(
        &self,
        args: &[&str],
        stdin: &[u8],
        dir: Option<&Path>,
        vars: &[(&str, &str)],
        deadline: Duration,
    ) -> Result<Run, HostError> {
        let stdout = MemoryOutputPipe::new(MAX_OUTPUT);
        let stderr = MemoryOutputPipe::new(MAX_OUTPUT);
        let mut ctx = WasiCtxBuilder::new();
        ctx.stdin(MemoryInputPipe::new(stdin.to_vec()))
            .stdout(stdout.clone())
            .stderr(stderr.clone())
            .arg("palisade-wasi")
            .args(args);
        for (name, value) in vars {
            ctx.env(name, value);
        }
        if let Some(dir) = dir {
            ctx.preopened_dir(dir, ".", FsPerms::ReadOnly)
                .map_err(|e| HostError::Host(format!("cannot preopen {}: {e}", dir.display())))?;
        }
        let state = State {
            wasi: ctx.build_p1(),
            limits: StoreState::new(DEFAULT_MEMORY_LIMIT),
        };
        let mut store = Store::new(self.runtime.engine(), state);
        store.limiter(|s| &mut s.limits);
        store.epoch_deadline_trap();
        store.set_epoch_deadline(ticks(deadline));
        let classify = |store: &Store<State>, call: &str, e: &wasmtime::Error| {
            store.data().limits.classify(call, e, deadline)
        };
        let instance = self
            .pre
            .instantiate(&mut store)
            .map_err(|e| classify(&store, "instantiate", &e))?;
        let start = instance
            .get_typed_func::<(), ()>(&mut store, "_start")
            .map_err(|e| HostError::Load {
                module: self.path.display().to_string(),
                reason: format!("export `_start`: {}", error_text(&e)),
            })?;
        let status = match start.call(&mut store, ()) {
            Ok(()) => 0,
            Err(e) => match e.downcast_ref::<I32Exit>() {
                Some(exit) => exit.0,
                None => return Err(classify(&store, "_start", &e)),
            },
        };
        Ok(Run {
            stdout: stdout.contents().to_vec(),
            stderr: stderr.contents().to_vec(),
            status,
        })
    }
}

/// A directory of its own for one run's files, removed when dropped.
struct FileDir {
    path: PathBuf,
}

impl FileDir {
    fn new(files: &[(&str, &[u8])]) -> Result<Self, HostError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "palisade-wasi-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let host =
            |e: std::io::Error| HostError::Host(format!("cannot write {}: {e}", path.display()));
        std::fs::create_dir_all(&path).map_err(host)?;
        let dir = Self { path: path.clone() };
        for (name, bytes) in files {
            std::fs::write(path.join(name), bytes).map_err(host)?;
        }
        Ok(dir)
    }
}

impl Drop for FileDir {
    fn drop(&mut self) {
        // best effort: a directory left behind in the temporary directory harms nothing
        let _removed = std::fs::remove_dir_all(&self.path);
    }
}

/// The WASI command as a [`Backend`]: every evaluation a fresh run of `validate -p bundle.json`.
pub struct WasiBackend {
    host: WasiHost,
}

impl WasiBackend {
    pub fn load(path: &Path) -> Result<Self, HostError> {
        WasiHost::load(path).map(Self::new)
    }

    pub fn new(host: WasiHost) -> Self {
        Self { host }
    }

    pub fn host(&self) -> &WasiHost {
        &self.host
    }

    /// Runs a command that answers JSON on stdout, with `files` in its directory; a usage error, or stdout that is
    /// not JSON, is a malformed answer.
    fn run_json(
        &self,
        command: &str,
        args: &[&str],
        stdin: &[u8],
        files: &[(&str, &[u8])],
        deadline: Duration,
    ) -> Result<Value, HostError> {
        let run = self.host.run(args, stdin, files, &[], deadline)?;
        let bad = |reason: String| HostError::BadOutput {
            call: command.into(),
            reason,
        };
        if run.status == i32::from(palisade::abi::wasi::USAGE_ERROR) {
            return Err(bad(format!(
                "exit status 2: {}",
                String::from_utf8_lossy(&run.stderr).trim()
            )));
        }
        let text = std::str::from_utf8(&run.stdout)
            .map_err(|e| bad(format!("stdout is not valid UTF-8: {e}")))?;
        serde_json::from_str(text).map_err(|e| bad(format!("stdout is not JSON: {e}")))
    }
}

impl Backend for WasiBackend {
    fn name(&self) -> &'static str {
        "wasi"
    }

    fn evaluate(
        &self,
        bundle: &Value,
        review: &Value,
        context: Option<&Value>,
        deadline: Duration,
    ) -> Result<Value, HostError> {
        let bundle = bundle_bytes(bundle)?;
        let input = validate_input(review, context)?;
        let answer = if self.host.is_baked_with(&bundle) {
            // the bundle is in the module's image: no file, no directory
            self.run_json("validate", &["validate"], &input, &[], deadline)?
        } else {
            self.run_json(
                "validate",
                &["validate", "-p", "bundle.json"],
                &input,
                &[("bundle.json", &bundle)],
                deadline,
            )?
        };
        if answer.is_object() {
            Ok(answer)
        } else {
            Err(HostError::BadOutput {
                call: "validate".into(),
                reason: "the answer is not a JSON object".into(),
            })
        }
    }

    fn check(&self, bundle: &Value) -> Result<Option<String>, HostError> {
        let answer = self.run_json(
            "check",
            &["check", "bundle.json"],
            &[],
            &[("bundle.json", &bundle_bytes(bundle)?)],
            DEFAULT_DEADLINE,
        )?;
        match answer.get("valid").and_then(Value::as_bool) {
            Some(true) => Ok(None),
            Some(false) => Ok(Some(
                answer
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
            )),
            None => Err(HostError::BadOutput {
                call: "check".into(),
                reason: "expected `{\"valid\": bool, …}`".into(),
            }),
        }
    }
}

/// `palisade bench --wasi`: fresh runs of the WASI command (a run is a process's life: it has no reused instance),
/// interleaved round by round ([`bench::round_order`]): the command as shipped, `validate -p bundle.json` with the
/// bundle's file in a directory written once; the command baked with the bundle, `validate` with no directory; and
/// the WASI floor at `floor` (the scan floor as a command), to which both are compared ([`bench::ratios`]). The two
/// commands must answer every review alike.
pub fn bench(
    path: &Path,
    floor: &Path,
    bundle: &Value,
    inputs: &[Vec<u8>],
    opts: &bench::Options,
) -> anyhow::Result<bench::BenchReport> {
    if inputs.is_empty() {
        anyhow::bail!("give at least one review to measure");
    }
    let runtime = Runtime::shared()?;
    let bundle_json = bundle_bytes(bundle)?;
    let shipped_bytes = read_module(path)?;
    let baked_bytes = crate::bake::bake(&shipped_bytes, crate::bake::Protocol::Wasi, &bundle_json)
        .map_err(|e| anyhow::anyhow!("cannot bake the bundle: {e}"))?;
    let floor_bytes = read_module(floor)?;
    let shipped = WasiHost::from_bytes(&runtime, path, &shipped_bytes)?;
    let baked = WasiHost::from_bytes(&runtime, path, &baked_bytes)?;
    let floor_host = WasiHost::from_bytes(&runtime, floor, &floor_bytes)?;
    let dir = FileDir::new(&[("bundle.json", &bundle_json)])?;
    /// One command measured: how it is run, and its bytes.
    struct Subject<'a> {
        label: &'static str,
        host: &'a WasiHost,
        args: &'a [&'a str],
        dir: Option<&'a Path>,
        bytes: &'a [u8],
    }
    let subjects = [
        Subject {
            label: bench::WASI,
            host: &shipped,
            args: &["validate", "-p", "bundle.json"],
            dir: Some(&dir.path),
            bytes: &shipped_bytes,
        },
        Subject {
            label: bench::WASI_BAKED,
            host: &baked,
            args: &["validate"],
            dir: None,
            bytes: &baked_bytes,
        },
        Subject {
            label: bench::WASI_FLOOR,
            host: &floor_host,
            args: &["validate"],
            dir: None,
            bytes: &floor_bytes,
        },
    ];
    let run = |i: usize, input: &[u8]| -> anyhow::Result<Run> {
        let s = subjects.get(i).context("no such module")?;
        let run = s.host.run_in(s.args, input, s.dir, &[], DEFAULT_DEADLINE)?;
        if run.status == i32::from(palisade::abi::wasi::USAGE_ERROR) {
            anyhow::bail!(
                "{} exited 2: {}",
                s.label,
                String::from_utf8_lossy(&run.stderr).trim()
            );
        }
        Ok(run)
    };
    for input in inputs {
        if run(0, input)?.stdout != run(1, input)?.stdout {
            anyhow::bail!("the baked command answers a review otherwise than the shipped one");
        }
    }
    let sample_answer = match inputs.first() {
        Some(input) => serde_json::from_slice(&run(0, input)?.stdout).ok(),
        None => None,
    };
    let mut fresh: Vec<Vec<Duration>> = vec![Vec::new(); subjects.len()];
    let progress = bench::Progress::new(opts.warmup + opts.iterations);
    for round in 0..opts.warmup + opts.iterations {
        progress.tick(round);
        for i in bench::round_order(round, subjects.len()) {
            for input in inputs {
                let t = Instant::now();
                run(i, input)?;
                let d = t.elapsed();
                if round >= opts.warmup
                    && let Some(v) = fresh.get_mut(i)
                {
                    v.push(d);
                }
            }
        }
    }
    progress.tick(opts.warmup + opts.iterations);
    let mut modules = Vec::new();
    for (s, samples) in subjects.iter().zip(fresh) {
        modules.push(bench::ModuleFigures {
            label: s.label.to_owned(),
            path: s.host.path().to_path_buf(),
            raw_size: s.bytes.len() as u64,
            gzip_size: bench::gzip9_len(s.bytes)?,
            compile_time: s.host.compile_time(),
            reused: None,
            fresh: bench::Stats::from_samples(samples),
        });
    }
    Ok(bench::BenchReport {
        reviews: inputs.len(),
        review_bytes: inputs.iter().map(Vec::len).collect(),
        iterations: opts.iterations,
        modules,
        sample_answer,
    })
}
