//! The wasmtime host for Palisade's import-free C ABI (docs/architecture.md, "The C ABI"):
//! `memory`, `palisade_alloc(len) -> ptr`, `palisade_free(ptr, len)`,
//! `configure(ptr, len) -> i64`, `validate(ptr, len) -> i64`, every `i64` packing `ptr << 32 | len`.
//!
//! One [`Runtime`] (one `Engine` with epoch interruption and a ticker thread) per process, one
//! compiled [`WasmHost`] (`Module` + `InstancePre`) per module, a fresh [`Session`] (`Store` with
//! a memory cap) per case. Every call has an epoch deadline. Whatever the guest does — trap, loop,
//! grow memory, answer garbage — ends in a [`HostError`] that names the reason.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;
use wasmtime::{
    Config, Engine, Instance, InstanceAllocationStrategy, InstancePre, Linker, Memory, Module,
    PoolingAllocationConfig, ResourceLimiter, Store, StoreLimits, StoreLimitsBuilder, Trap,
    TypedFunc, Val,
};

use crate::backend::{Backend, HostError};

/// How often the ticker thread advances the engine's epoch.
pub const TICK: Duration = Duration::from_millis(1);
/// The default memory cap of one instance.
pub const DEFAULT_MEMORY_LIMIT: usize = 512 << 20;
/// The default deadline of one call (the apiserver's default webhook timeout).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(10);
/// [`Runtime::pooled`]: how many instances (and memories, and tables) may be alive at once.
pub const POOL_SLOTS: u32 = 64;
/// [`Runtime::pooled`]: how much of a slot's linear memory stays mapped after its instance is dropped.
pub const POOL_KEEP_RESIDENT: usize = 16 << 20;

/// One wasmtime `Engine` per process, with epoch interruption and a background ticker.
#[derive(Clone)]
pub struct Runtime {
    engine: Engine,
}

impl Runtime {
    /// The process-wide runtime (created, with its ticker thread, on first use).
    pub fn shared() -> Result<Self, HostError> {
        static SHARED: OnceLock<Result<Runtime, HostError>> = OnceLock::new();
        SHARED.get_or_init(Self::new).clone()
    }

    /// A process-wide runtime whose compiler does not optimize: for tests that compile a great many modules (one
    /// baked module per bundle), where compile time dominates and code speed does not matter.
    pub fn unoptimized() -> Result<Self, HostError> {
        static UNOPTIMIZED: OnceLock<Result<Runtime, HostError>> = OnceLock::new();
        UNOPTIMIZED
            .get_or_init(|| {
                Self::with(|c| {
                    c.cranelift_opt_level(wasmtime::OptLevel::None);
                })
            })
            .clone()
    }

    /// A process-wide runtime with wasmtime's pooling allocator, as a server that makes an instance per request
    /// would configure it (`palisade bench --pooling`). Memory slots are reserved once and reused. When an instance
    /// is dropped, the pages it wrote (up to [`POOL_KEEP_RESIDENT`] bytes) are restored from the module's image by
    /// copying, not unmapped, so the next instance in the slot takes no page faults on them. wasmtime finds those
    /// pages with Linux's `PAGEMAP_SCAN` (Linux 6.7 and later); before that, it restores every kept page, which costs
    /// more than the faults it saves. At most [`POOL_SLOTS`] instances are alive at once, each memory at most
    /// [`DEFAULT_MEMORY_LIMIT`].
    pub fn pooled() -> Result<Self, HostError> {
        static POOLED: OnceLock<Result<Runtime, HostError>> = OnceLock::new();
        POOLED
            .get_or_init(|| {
                Self::with(|c| {
                    let mut pool = PoolingAllocationConfig::default();
                    pool.total_core_instances(POOL_SLOTS)
                        .total_memories(POOL_SLOTS)
                        .total_tables(POOL_SLOTS)
                        .max_memory_size(DEFAULT_MEMORY_LIMIT)
                        .linear_memory_keep_resident(POOL_KEEP_RESIDENT)
                        .table_keep_resident(64 << 10);
                    c.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
                })
            })
            .clone()
    }

    fn new() -> Result<Self, HostError> {
        Self::with(|_| {})
    }

    fn with(configure: impl FnOnce(&mut Config)) -> Result<Self, HostError> {
        let mut config = Config::new();
        config.epoch_interruption(true);
        // `PALISADE_PERFMAP=1`: wasmtime writes /tmp/perf-PID.map, so that `perf record` names the module's
        // functions; `=jitdump`: a jitdump for `perf inject --jit` and `perf annotate` (README, "Performance")
        if let Some(v) = std::env::var_os("PALISADE_PERFMAP") {
            config.profiler(if v == "jitdump" {
                wasmtime::ProfilingStrategy::JitDump
            } else {
                wasmtime::ProfilingStrategy::PerfMap
            });
        }
        configure(&mut config);
        let engine = Engine::new(&config).map_err(|e| HostError::Load {
            module: String::new(),
            reason: format!("cannot create the wasmtime engine: {e}"),
        })?;
        let ticker = engine.clone();
        std::thread::Builder::new()
            .name("palisade-epoch".into())
            .spawn(move || {
                loop {
                    std::thread::sleep(TICK);
                    ticker.increment_epoch();
                }
            })
            .map_err(|e| HostError::Host(format!("cannot start the epoch ticker thread: {e}")))?;
        Ok(Self { engine })
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }
}

/// Per-store state: the memory cap, and whether the guest hit it.
pub struct StoreState {
    limits: StoreLimits,
    memory_limit: usize,
    hit_memory_limit: bool,
}

impl StoreState {
    /// A store's state with a memory cap of `memory_limit` bytes and one instance.
    pub(crate) fn new(memory_limit: usize) -> Self {
        Self {
            limits: StoreLimitsBuilder::new()
                .memory_size(memory_limit)
                .instances(1)
                .trap_on_grow_failure(true)
                .build(),
            memory_limit,
            hit_memory_limit: false,
        }
    }
}

impl ResourceLimiter for StoreState {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let answer = self.limits.memory_growing(current, desired, maximum);
        if !matches!(answer, Ok(true)) {
            self.hit_memory_limit = true;
        }
        answer
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }
    fn tables(&self) -> usize {
        self.limits.tables()
    }
    fn memories(&self) -> usize {
        self.limits.memories()
    }
}

/// A compiled C ABI module, ready to instantiate (one per process and module).
pub struct WasmHost {
    runtime: Runtime,
    path: PathBuf,
    /// The bundle hash of a baked module (`palisade bake`).
    baked: Option<String>,
    module: Module,
    pre: InstancePre<StoreState>,
    memory_limit: usize,
    compile_time: Duration,
}

impl WasmHost {
    /// Compiles a `.wasm` (or, for test guests, `.wat`) file.
    pub fn load(path: &Path) -> Result<Self, HostError> {
        let runtime = Runtime::shared()?;
        Self::from_bytes(&runtime, path, &read_module(path)?)
    }

    /// Compiles a module from bytes (binary or text); `path` only names it in errors.
    pub fn from_bytes(runtime: &Runtime, path: &Path, bytes: &[u8]) -> Result<Self, HostError> {
        let load_err = |reason: String| HostError::Load {
            module: path.display().to_string(),
            reason,
        };
        let started = Instant::now();
        let module = Module::new(runtime.engine(), bytes).map_err(|e| load_err(error_text(&e)))?;
        let compile_time = started.elapsed();
        // No imports are provided: a module that needs one fails here, as the C ABI promises none.
        let linker: Linker<StoreState> = Linker::new(runtime.engine());
        let pre = linker
            .instantiate_pre(&module)
            .map_err(|e| load_err(error_text(&e)))?;
        Ok(Self {
            runtime: runtime.clone(),
            path: path.to_path_buf(),
            baked: crate::bake::baked_bundle_hash(bytes),
            module,
            pre,
            memory_limit: DEFAULT_MEMORY_LIMIT,
            compile_time,
        })
    }

    /// Sets the memory cap of every instance made from now on.
    pub fn with_memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = bytes;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn module(&self) -> &Module {
        &self.module
    }
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }
    /// Whether a fresh instance already holds this bundle (a module baked with it).
    pub fn is_baked_with(&self, bundle_json: &[u8]) -> bool {
        crate::bake::is_baked_with(self.baked.as_deref(), bundle_json)
    }

    /// A fresh instance in a fresh store.
    pub fn instantiate(&self) -> Result<Session, HostError> {
        let mut store = Store::new(self.runtime.engine(), StoreState::new(self.memory_limit));
        store.limiter(|s| s);
        store.epoch_deadline_trap();
        store.set_epoch_deadline(ticks(DEFAULT_DEADLINE));
        let instance = self.pre.instantiate(&mut store).map_err(|e| {
            if store.data().hit_memory_limit {
                HostError::MemoryLimit {
                    call: "instantiate".into(),
                    limit: self.memory_limit,
                }
            } else {
                HostError::Load {
                    module: self.path.display().to_string(),
                    reason: error_text(&e),
                }
            }
        })?;
        let missing = |name: &str, e: wasmtime::Error| HostError::Load {
            module: self.path.display().to_string(),
            reason: format!("export `{name}`: {}", error_text(&e)),
        };
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| HostError::Load {
                module: self.path.display().to_string(),
                reason: "the module exports no memory named `memory`".into(),
            })?;
        let alloc = instance
            .get_typed_func::<i32, i32>(&mut store, "palisade_alloc")
            .map_err(|e| missing("palisade_alloc", e))?;
        let free = instance
            .get_typed_func::<(i32, i32), ()>(&mut store, "palisade_free")
            .map_err(|e| missing("palisade_free", e))?;
        let configure = instance
            .get_typed_func::<(i32, i32), i64>(&mut store, "configure")
            .map_err(|e| missing("configure", e))?;
        let validate = instance
            .get_typed_func::<(i32, i32), i64>(&mut store, "validate")
            .map_err(|e| missing("validate", e))?;
        Ok(Session {
            store,
            instance,
            memory,
            alloc,
            free,
            configure,
            validate,
            deadline: DEFAULT_DEADLINE,
        })
    }
}

/// The bytes of a module file; one that is missing names the command that builds it.
pub(crate) fn read_module(path: &Path) -> Result<Vec<u8>, HostError> {
    std::fs::read(path).map_err(|e| {
        let mut reason = e.to_string();
        if e.kind() == std::io::ErrorKind::NotFound {
            reason.push_str(" (build it with `cargo build --release -p palisade-harness`)");
        }
        HostError::Load {
            module: path.display().to_string(),
            reason,
        }
    })
}

pub(crate) fn ticks(deadline: Duration) -> u64 {
    let tick = TICK.as_nanos().max(1);
    u64::try_from(deadline.as_nanos().div_ceil(tick))
        .unwrap_or(u64::MAX)
        .max(1)
}

/// The text of a wasmtime error with its causes, `: `-chained.
pub(crate) fn error_text(e: &wasmtime::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = cause.to_string();
        // wasmtime adds a multi-line wasm backtrace as context; keep its first line only.
        let first = text.lines().next().unwrap_or_default().trim().to_string();
        if !first.is_empty() && !parts.contains(&first) {
            parts.push(first);
        }
    }
    parts.join(": ")
}

/// Which C ABI entry point to call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Configure,
    Validate,
}

impl Entry {
    pub fn name(self) -> &'static str {
        match self {
            Self::Configure => "configure",
            Self::Validate => "validate",
        }
    }
}

/// One instance in its own store: configure once, validate many times.
pub struct Session {
    store: Store<StoreState>,
    instance: Instance,
    memory: Memory,
    alloc: TypedFunc<i32, i32>,
    free: TypedFunc<(i32, i32), ()>,
    configure: TypedFunc<(i32, i32), i64>,
    validate: TypedFunc<(i32, i32), i64>,
    deadline: Duration,
}

impl Session {
    /// The deadline of each following call.
    pub fn set_deadline(&mut self, deadline: Duration) {
        self.deadline = deadline;
    }

    /// The size of the instance's linear memory, in bytes (a whole number of 64 KiB pages).
    pub fn memory_bytes(&self) -> usize {
        self.memory.data_size(&self.store)
    }

    /// The instance's linear memory as it is now.
    pub fn memory_data(&self) -> &[u8] {
        self.memory.data(&self.store)
    }

    /// The instance's linear memory, writable (for tests that change a page and see what a call then does).
    pub fn memory_data_mut(&mut self) -> &mut [u8] {
        self.memory.data_mut(&mut self.store)
    }

    /// Another memory the instance exports as `name`, writable (an instrumented module's profile:
    /// [`crate::layout::PROFILE_MEMORY`]); `None` when it exports none by that name.
    pub fn exported_memory_mut(&mut self, name: &str) -> Option<&mut [u8]> {
        let memory = self.instance.get_memory(&mut self.store, name)?;
        Some(memory.data_mut(&mut self.store))
    }

    /// Call the export `name` of type `() -> ()` if the module has one; `Ok(false)` when it has none.
    pub fn call_if_exported(&mut self, name: &str) -> Result<bool, HostError> {
        let Ok(func) = self
            .instance
            .get_typed_func::<(), ()>(&mut self.store, name)
        else {
            return Ok(false);
        };
        self.arm();
        func.call(&mut self.store, ())
            .map_err(|e| self.classify(name, &e))?;
        Ok(true)
    }

    /// The value of the exported global `name`, if the instance exports one.
    pub fn global(&mut self, name: &str) -> Option<Val> {
        let global = self.instance.get_global(&mut self.store, name)?;
        Some(global.get(&mut self.store))
    }

    /// `configure(bundle)`: Ok(None) when valid, Ok(Some(message)) when not.
    pub fn configure(&mut self, bundle_json: &[u8]) -> Result<Option<String>, HostError> {
        let out = self.call_json(Entry::Configure, bundle_json)?;
        let bad = |reason: &str| HostError::BadOutput {
            call: "configure".into(),
            reason: reason.into(),
        };
        match out.get("valid").and_then(Value::as_bool) {
            Some(true) => Ok(None),
            Some(false) => Ok(Some(
                out.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
            )),
            None => Err(bad("expected `{\"valid\": bool, …}`")),
        }
    }

    /// `validate(input)`: the AdmissionReview the module answers.
    pub fn validate(&mut self, input_json: &[u8]) -> Result<Value, HostError> {
        let out = self.call_json(Entry::Validate, input_json)?;
        if !out.is_object() {
            return Err(HostError::BadOutput {
                call: "validate".into(),
                reason: "the answer is not a JSON object".into(),
            });
        }
        Ok(out)
    }

    /// Calls an entry point and parses its answer as JSON.
    pub fn call_json(&mut self, entry: Entry, input: &[u8]) -> Result<Value, HostError> {
        let bytes = self.call(entry, input)?;
        let bad = |reason: String| HostError::BadOutput {
            call: entry.name().into(),
            reason,
        };
        let text = std::str::from_utf8(&bytes)
            .map_err(|e| bad(format!("the answer is not valid UTF-8: {e}")))?;
        serde_json::from_str(text).map_err(|e| bad(format!("the answer is not JSON: {e}")))
    }

    /// alloc, copy in, call, read out, free both — exactly per docs/architecture.md.
    pub fn call(&mut self, entry: Entry, input: &[u8]) -> Result<Vec<u8>, HostError> {
        let call = entry.name();
        let len = i32::try_from(input.len()).map_err(|_| {
            HostError::Host(format!(
                "input of {} bytes is too large for `{call}`",
                input.len()
            ))
        })?;

        self.arm();
        let ptr = self
            .alloc
            .call(&mut self.store, len)
            .map_err(|e| self.classify("palisade_alloc", &e))?;
        self.write(ptr, input, "palisade_alloc")?;

        self.arm();
        let func = match entry {
            Entry::Configure => &self.configure,
            Entry::Validate => &self.validate,
        };
        let packed = func
            .call(&mut self.store, (ptr, len))
            .map_err(|e| self.classify(call, &e))?;
        let packed = packed as u64;
        let out_ptr = (packed >> 32) as u32;
        let out_len = (packed & 0xffff_ffff) as u32;
        let out = self.read(out_ptr, out_len, call)?;

        self.arm();
        self.free
            .call(&mut self.store, (ptr, len))
            .map_err(|e| self.classify("palisade_free", &e))?;
        self.arm();
        self.free
            .call(&mut self.store, (out_ptr as i32, out_len as i32))
            .map_err(|e| self.classify("palisade_free", &e))?;
        Ok(out)
    }

    fn arm(&mut self) {
        self.store.set_epoch_deadline(ticks(self.deadline));
    }

    fn write(&mut self, ptr: i32, input: &[u8], call: &str) -> Result<(), HostError> {
        let data = self.memory.data_mut(&mut self.store);
        let size = data.len();
        let start = ptr as u32 as usize;
        match start
            .checked_add(input.len())
            .and_then(|end| data.get_mut(start..end))
        {
            Some(dest) => {
                dest.copy_from_slice(input);
                Ok(())
            }
            None => Err(HostError::BadOutput {
                call: call.into(),
                reason: format!(
                    "returned pointer {start:#x} with room for {} bytes outside memory of {size} bytes",
                    input.len()
                ),
            }),
        }
    }

    fn read(&self, ptr: u32, len: u32, call: &str) -> Result<Vec<u8>, HostError> {
        let data = self.memory.data(&self.store);
        let start = ptr as usize;
        start
            .checked_add(len as usize)
            .and_then(|end| data.get(start..end))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| HostError::BadOutput {
                call: call.into(),
                reason: format!(
                    "answer at {start:#x} of {len} bytes lies outside memory of {} bytes",
                    data.len()
                ),
            })
    }

    fn classify(&self, call: &str, e: &wasmtime::Error) -> HostError {
        self.store.data().classify(call, e, self.deadline)
    }
}

impl StoreState {
    /// What a call's failure `e` was: the memory cap, the deadline, or a trap.
    pub(crate) fn classify(
        &self,
        call: &str,
        e: &wasmtime::Error,
        deadline: Duration,
    ) -> HostError {
        if self.hit_memory_limit {
            return HostError::MemoryLimit {
                call: call.into(),
                limit: self.memory_limit,
            };
        }
        match e.downcast_ref::<Trap>() {
            Some(Trap::Interrupt) => HostError::Timeout {
                call: call.into(),
                deadline,
            },
            Some(trap) => HostError::Trap {
                call: call.into(),
                reason: trap.to_string(),
            },
            None => HostError::Trap {
                call: call.into(),
                reason: error_text(e),
            },
        }
    }
}

/// The C ABI module as a [`Backend`]: a fresh instance per evaluation.
pub struct CAbiBackend {
    host: WasmHost,
}

impl CAbiBackend {
    /// A backend over a compiled module. A module baked with a bundle (`palisade bake`) is used as it starts when a case
    /// sends that very bundle (no `configure`), and configured like any other module otherwise.
    pub fn new(host: WasmHost) -> Self {
        Self { host }
    }
    pub fn load(path: &Path) -> Result<Self, HostError> {
        WasmHost::load(path).map(Self::new)
    }
    pub fn host(&self) -> &WasmHost {
        &self.host
    }
}

/// The input of `validate`: a bare review, or `{"review": …, "context": …}` when there is context.
pub fn validate_input(review: &Value, context: Option<&Value>) -> Result<Vec<u8>, HostError> {
    let encoded = match context {
        None => serde_json::to_vec(review),
        Some(context) => {
            serde_json::to_vec(&serde_json::json!({ "review": review, "context": context }))
        }
    };
    encoded.map_err(|e| HostError::Host(format!("cannot encode the review: {e}")))
}

pub fn bundle_bytes(bundle: &Value) -> Result<Vec<u8>, HostError> {
    serde_json::to_vec(bundle)
        .map_err(|e| HostError::Host(format!("cannot encode the bundle: {e}")))
}

impl Backend for CAbiBackend {
    fn name(&self) -> &'static str {
        "wasm"
    }

    fn evaluate(
        &self,
        bundle: &Value,
        review: &Value,
        context: Option<&Value>,
        deadline: Duration,
    ) -> Result<Value, HostError> {
        let mut session = self.host.instantiate()?;
        session.set_deadline(deadline);
        let bundle = bundle_bytes(bundle)?;
        if !self.host.is_baked_with(&bundle) {
            // A failed configure is the module's to report: `validate` then answers 500
            // `palisade is not configured: …`, which is what a host would see.
            session.configure(&bundle)?;
        }
        session.validate(&validate_input(review, context)?)
    }

    fn check(&self, bundle: &Value) -> Result<Option<String>, HostError> {
        let mut session = self.host.instantiate()?;
        session.configure(&bundle_bytes(bundle)?)
    }
}
