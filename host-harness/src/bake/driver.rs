//! Running a module to bake it: configure an instrumented copy in wasmtime — the C ABI's `configure`, waPC's
//! `validate_settings` for the Kubewarden module, or `palisade_bake` for the WASI command — and snapshot it
//! ([`super`] does the rewriting).

use wasm_encoder::Section as _;

use super::{
    BAKED_SECTION, BakeError, GlobalValue, Layout, Snapshot, apply, bundle_hash, err,
    global_export_name, instrument,
};

/// Which protocol the module speaks, and so how it is configured before the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `palisade.wasm`: `configure(bundle)`.
    CAbi,
    /// `palisade-kubewarden.wasm`: waPC `validate_settings(bundle)`, which leaves the compiled engine cached for the
    /// same settings.
    Kubewarden,
    /// `palisade-wasi.wasm`: its unexported `palisade_bake(bundle)` (crate/src/abi/wasi_bake.rs), in WASI preview 1
    /// with nothing given to it; a run then decides with the bundle when it is named no bundle file.
    Wasi,
}

/// Bake `module` with `bundle_json`: the module a fresh instance of which is already configured with the bundle.
/// A bundle that does not compile is refused with configure's message.
pub fn bake(module: &[u8], protocol: Protocol, bundle_json: &[u8]) -> Result<Vec<u8>, BakeError> {
    let runtime = crate::host::Runtime::shared().map_err(|e| err(e.to_string()))?;
    Baker::new(&runtime, module, protocol)?.bake(bundle_json)
}

/// Bakes one module with many bundles, compiling its instrumented copy once.
pub struct Baker {
    original: Vec<u8>,
    layout: Layout,
    kind: Kind,
}

enum Kind {
    CAbi(crate::host::WasmHost),
    Kubewarden(wapc::Guest),
    Wasi(wasi::Guest),
}

impl Baker {
    /// Instrument `module` and compile it in `runtime`'s engine.
    pub fn new(
        runtime: &crate::host::Runtime,
        module: &[u8],
        protocol: Protocol,
    ) -> Result<Self, BakeError> {
        let (instrumented, layout) = instrument(module)?;
        let kind = match protocol {
            Protocol::CAbi => Kind::CAbi(
                crate::host::WasmHost::from_bytes(
                    runtime,
                    std::path::Path::new("palisade.wasm (instrumented for baking)"),
                    &instrumented,
                )
                .map_err(|e| err(e.to_string()))?,
            ),
            Protocol::Kubewarden => {
                Kind::Kubewarden(wapc::Guest::new(runtime.engine(), &instrumented)?)
            }
            Protocol::Wasi => Kind::Wasi(wasi::Guest::new(runtime.engine(), &instrumented)?),
        };
        Ok(Self {
            original: module.to_vec(),
            layout,
            kind,
        })
    }

    /// The module baked with `bundle_json`.
    pub fn bake(&self, bundle_json: &[u8]) -> Result<Vec<u8>, BakeError> {
        let mut snapshot = match &self.kind {
            Kind::CAbi(host) => configure_c_abi(host, &self.layout, bundle_json)?,
            Kind::Kubewarden(guest) => guest.configure(&self.layout, bundle_json)?,
            Kind::Wasi(guest) => guest.configure(&self.layout, bundle_json)?,
        };
        self.layout.clear_dead_stack(&mut snapshot);
        let mut baked = apply(&self.original, &snapshot)?;
        wasm_encoder::CustomSection {
            name: BAKED_SECTION.into(),
            data: bundle_hash(bundle_json).into_bytes().into(),
        }
        .append_to(&mut baked);
        Ok(baked)
    }
}

fn configure_c_abi(
    host: &crate::host::WasmHost,
    layout: &Layout,
    bundle_json: &[u8],
) -> Result<Snapshot, BakeError> {
    let mut session = host.instantiate().map_err(|e| err(e.to_string()))?;
    if let Some(message) = session
        .configure(bundle_json)
        .map_err(|e| err(e.to_string()))?
    {
        return Err(err(format!("the bundle does not compile: {message}")));
    }
    // the heap's holes taken, so that a fresh instance allocates past the image (crate/src/abi/seal.rs)
    session
        .call_if_exported(super::SEAL)
        .map_err(|e| err(e.to_string()))?;
    let mut globals = Vec::with_capacity(layout.mutable_globals.len());
    for &index in &layout.mutable_globals {
        let value = session
            .global(&global_export_name(index))
            .ok_or_else(|| err(format!("global {index} was not exported")))?;
        globals.push((index, global_value(&value)?));
    }
    Ok(Snapshot {
        memory: session.memory_data().to_vec(),
        globals,
    })
}

/// The configured `instance`, sealed when the module has `palisade_seal` (its heap's holes taken, so that a fresh
/// instance allocates past the image: crate/src/abi/seal.rs), then its memory and mutable globals read.
fn seal_and_snapshot<T: 'static>(
    store: &mut wasmtime::Store<T>,
    instance: &wasmtime::Instance,
    layout: &Layout,
    wasm_err: fn(wasmtime::Error) -> BakeError,
) -> Result<Snapshot, BakeError> {
    if let Ok(seal) = instance.get_typed_func::<(), ()>(&mut *store, super::SEAL) {
        seal.call(&mut *store, ()).map_err(wasm_err)?;
    }
    let mut globals = Vec::with_capacity(layout.mutable_globals.len());
    for &index in &layout.mutable_globals {
        let global = instance
            .get_global(&mut *store, &global_export_name(index))
            .ok_or_else(|| err(format!("global {index} was not exported")))?;
        globals.push((index, global_value(&global.get(&mut *store))?));
    }
    let memory = instance
        .get_memory(&mut *store, "memory")
        .ok_or_else(|| err("the module exports no memory"))?;
    Ok(Snapshot {
        memory: memory.data(&*store).to_vec(),
        globals,
    })
}

fn global_value(v: &wasmtime::Val) -> Result<GlobalValue, BakeError> {
    Ok(match v {
        wasmtime::Val::I32(x) => GlobalValue::I32(*x),
        wasmtime::Val::I64(x) => GlobalValue::I64(*x),
        wasmtime::Val::F32(bits) => GlobalValue::F32(*bits),
        wasmtime::Val::F64(bits) => GlobalValue::F64(*bits),
        _ => {
            return Err(err(
                "a global of a reference or vector type cannot be baked",
            ));
        }
    })
}

/// Just enough of a waPC host to call the Kubewarden guest's `validate_settings` and read its memory afterwards
/// (the harness's waPC runner, through `wapc` and `wasmtime-provider`, hides the instance). Host calls are refused:
/// compiling a bundle asks the host nothing.
mod wapc {
    use wasmtime::{Caller, Engine, Linker, Module, Store};

    use super::seal_and_snapshot;
    use crate::bake::{BakeError, Layout, Snapshot, err};

    #[derive(Default)]
    struct Call {
        operation: Vec<u8>,
        payload: Vec<u8>,
        response: Vec<u8>,
        error: Option<String>,
    }

    fn memory(caller: &mut Caller<'_, Call>) -> wasmtime::Result<wasmtime::Memory> {
        caller
            .get_export("memory")
            .and_then(wasmtime::Extern::into_memory)
            .ok_or_else(|| wasmtime::Error::msg("the guest exports no memory"))
    }

    fn read(caller: &mut Caller<'_, Call>, ptr: i32, len: i32) -> wasmtime::Result<Vec<u8>> {
        let memory = memory(caller)?;
        let start = ptr as u32 as usize;
        memory
            .data(&caller)
            .get(start..start.saturating_add(len as u32 as usize))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| wasmtime::Error::msg("a guest buffer lies outside its memory"))
    }

    fn write(caller: &mut Caller<'_, Call>, ptr: i32, bytes: &[u8]) -> wasmtime::Result<()> {
        let memory = memory(caller)?;
        memory
            .write(caller, ptr as u32 as usize, bytes)
            .map_err(|e| wasmtime::Error::msg(e.to_string()))
    }

    fn linker(engine: &Engine) -> wasmtime::Result<Linker<Call>> {
        let mut linker = Linker::new(engine);
        linker.func_wrap(
            "wapc",
            "__guest_request",
            |mut caller: Caller<'_, Call>, op_ptr: i32, ptr: i32| -> wasmtime::Result<()> {
                let operation = caller.data().operation.clone();
                let payload = caller.data().payload.clone();
                write(&mut caller, op_ptr, &operation)?;
                write(&mut caller, ptr, &payload)
            },
        )?;
        linker.func_wrap(
            "wapc",
            "__guest_response",
            |mut caller: Caller<'_, Call>, ptr: i32, len: i32| -> wasmtime::Result<()> {
                caller.data_mut().response = read(&mut caller, ptr, len)?;
                Ok(())
            },
        )?;
        linker.func_wrap(
            "wapc",
            "__guest_error",
            |mut caller: Caller<'_, Call>, ptr: i32, len: i32| -> wasmtime::Result<()> {
                let bytes = read(&mut caller, ptr, len)?;
                caller.data_mut().error = Some(String::from_utf8_lossy(&bytes).into_owned());
                Ok(())
            },
        )?;
        linker.func_wrap(
            "wapc",
            "__host_call",
            |_: Caller<'_, Call>,
             _: i32,
             _: i32,
             _: i32,
             _: i32,
             _: i32,
             _: i32,
             _: i32,
             _: i32|
             -> i32 { 0 },
        )?;
        linker.func_wrap(
            "wapc",
            "__host_response_len",
            |_: Caller<'_, Call>| -> i32 { 0 },
        )?;
        linker.func_wrap("wapc", "__host_response", |_: Caller<'_, Call>, _: i32| {})?;
        linker.func_wrap("wapc", "__host_error_len", |_: Caller<'_, Call>| -> i32 {
            0
        })?;
        linker.func_wrap("wapc", "__host_error", |_: Caller<'_, Call>, _: i32| {})?;
        linker.func_wrap(
            "wapc",
            "__console_log",
            |_: Caller<'_, Call>, _: i32, _: i32| {},
        )?;
        Ok(linker)
    }

    /// The instrumented guest, compiled once.
    pub(super) struct Guest {
        module: Module,
        linker: Linker<Call>,
    }

    fn wasm_err(e: wasmtime::Error) -> BakeError {
        err(format!("the waPC guest failed: {e}"))
    }

    impl Guest {
        pub(super) fn new(engine: &Engine, instrumented: &[u8]) -> Result<Self, BakeError> {
            Ok(Self {
                module: Module::new(engine, instrumented).map_err(wasm_err)?,
                linker: linker(engine).map_err(wasm_err)?,
            })
        }

        /// Instantiate the guest, run its waPC init and `validate_settings(bundle)`, and snapshot it.
        pub(super) fn configure(
            &self,
            layout: &Layout,
            bundle_json: &[u8],
        ) -> Result<Snapshot, BakeError> {
            let mut store = Store::new(self.module.engine(), Call::default());
            // the runtime's engine interrupts by epoch: compiling a bundle gets a generous deadline
            store.set_epoch_deadline(60_000);
            let instance = self
                .linker
                .instantiate(&mut store, &self.module)
                .map_err(wasm_err)?;
            snapshot_after_settings(store, instance, layout, bundle_json)
        }
    }

    fn snapshot_after_settings(
        mut store: Store<Call>,
        instance: wasmtime::Instance,
        layout: &Layout,
        bundle_json: &[u8],
    ) -> Result<Snapshot, BakeError> {
        for init in ["_start", "wapc_init"] {
            if let Ok(f) = instance.get_typed_func::<(), ()>(&mut store, init) {
                f.call(&mut store, ()).map_err(wasm_err)?;
            }
        }
        let guest_call = instance
            .get_typed_func::<(i32, i32), i32>(&mut store, "__guest_call")
            .map_err(wasm_err)?;
        let operation = palisade::kubewarden::VALIDATE_SETTINGS.as_bytes().to_vec();
        let (op_len, len) = (
            i32::try_from(operation.len()).map_err(|_| err("operation name too long"))?,
            i32::try_from(bundle_json.len()).map_err(|_| err("settings too large"))?,
        );
        *store.data_mut() = Call {
            operation,
            payload: bundle_json.to_vec(),
            ..Call::default()
        };
        let ok = guest_call
            .call(&mut store, (op_len, len))
            .map_err(wasm_err)?;
        if ok != 1 {
            let why = store.data().error.clone().unwrap_or_default();
            return Err(err(format!("validate_settings failed: {why}")));
        }
        let answer: palisade::kubewarden::SettingsValidationResponse =
            serde_json::from_slice(&store.data().response)
                .map_err(|e| err(format!("validate_settings answered garbage: {e}")))?;
        if !answer.valid {
            let message = answer.message.as_deref().unwrap_or("invalid settings");
            return Err(err(format!("the bundle does not compile: {message}")));
        }
        seal_and_snapshot(&mut store, &instance, layout, wasm_err)
    }
}

/// Just enough of a WASI host to call the WASI command's `palisade_bake` (the harness's WASI host only runs `_start`):
/// WASI preview 1 with no arguments, no environment, no directory and no stdio, since compiling a bundle reads
/// nothing, and random bytes from a fixed seed. `_start` is never called, so the image holds no state of a run.
mod wasi {
    use rand::SeedableRng as _;
    use wasmtime::{Engine, Linker, Module, Store};
    use wasmtime_wasi::WasiCtxBuilder;
    use wasmtime_wasi::p1::WasiP1Ctx;

    use super::seal_and_snapshot;
    use crate::bake::{BakeError, Layout, Snapshot, err};

    /// The instrumented command, compiled once.
    pub(super) struct Guest {
        module: Module,
        linker: Linker<WasiP1Ctx>,
    }

    fn wasm_err(e: wasmtime::Error) -> BakeError {
        err(format!("the WASI command failed: {e}"))
    }

    impl Guest {
        pub(super) fn new(engine: &Engine, instrumented: &[u8]) -> Result<Self, BakeError> {
            let mut linker = Linker::new(engine);
            wasmtime_wasi::p1::add_to_linker_sync(&mut linker, |cx: &mut WasiP1Ctx| cx)
                .map_err(wasm_err)?;
            Ok(Self {
                module: Module::new(engine, instrumented).map_err(wasm_err)?,
                linker,
            })
        }

        /// Instantiate the command, hand `palisade_bake` the bundle, and snapshot it.
        pub(super) fn configure(
            &self,
            layout: &Layout,
            bundle_json: &[u8],
        ) -> Result<Snapshot, BakeError> {
            // random bytes from a fixed seed (the standard library's hash keys are drawn while compiling), so that a
            // bundle always bakes into the same module
            let seeded = || rand::rngs::StdRng::seed_from_u64(0);
            let ctx = WasiCtxBuilder::new()
                .secure_random(seeded())
                .insecure_random(seeded())
                .insecure_random_seed(0)
                .build_p1();
            let mut store = Store::new(self.module.engine(), ctx);
            // the runtime's engine interrupts by epoch: compiling a bundle gets a generous deadline
            store.set_epoch_deadline(60_000);
            let instance = self
                .linker
                .instantiate(&mut store, &self.module)
                .map_err(wasm_err)?;
            let missing = |name: &str| {
                err(format!(
                    "the module has no `{name}`: not palisade-wasi.wasm as host-harness/build.rs builds it"
                ))
            };
            let alloc = instance
                .get_typed_func::<i32, i32>(&mut store, "palisade_bake_alloc")
                .map_err(|_| missing("palisade_bake_alloc"))?;
            let bake = instance
                .get_typed_func::<(i32, i32), i64>(&mut store, "palisade_bake")
                .map_err(|_| missing("palisade_bake"))?;
            let memory = instance
                .get_memory(&mut store, "memory")
                .ok_or_else(|| missing("memory"))?;
            let len =
                i32::try_from(bundle_json.len()).map_err(|_| err("the bundle is too large"))?;
            let ptr = alloc.call(&mut store, len).map_err(wasm_err)?;
            memory
                .write(&mut store, ptr as u32 as usize, bundle_json)
                .map_err(|e| err(format!("cannot write the bundle into the module: {e}")))?;
            let packed = bake.call(&mut store, (ptr, len)).map_err(wasm_err)? as u64;
            let (at, n) = ((packed >> 32) as usize, (packed & 0xffff_ffff) as usize);
            // configure's answer: `{"valid": true}`, or `{"valid": false, "message": …}`
            let answer: serde_json::Value = memory
                .data(&store)
                .get(at..at.saturating_add(n))
                .and_then(|bytes| serde_json::from_slice(bytes).ok())
                .ok_or_else(|| err("palisade_bake answered garbage"))?;
            if answer.get("valid") != Some(&serde_json::Value::Bool(true)) {
                let message = answer
                    .get("message")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("invalid bundle");
                return Err(err(format!("the bundle does not compile: {message}")));
            }
            seal_and_snapshot(&mut store, &instance, layout, wasm_err)
        }
    }
}
