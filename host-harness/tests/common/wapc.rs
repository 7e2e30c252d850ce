//! The least waPC host that runs a Kubewarden module with no host capabilities (every other import traps): what the
//! tests use to count a guest's pages, stack and wasm instructions, which `palisade_harness::kubewarden` (wapc +
//! wasmtime-provider, as policy-server) keeps out of reach.

use wasmtime::{Caller, Config, Engine, Instance, Linker, Memory, Module, Store, TypedFunc};

/// The operation and payload the host hands the guest, and the guest's response.
#[derive(Default)]
struct Exchange {
    operation: Vec<u8>,
    payload: Vec<u8>,
    response: Vec<u8>,
}

/// One instance of a waPC guest, wasm instructions counted (wasmtime's fuel).
pub struct Guest {
    store: Store<Exchange>,
    instance: Instance,
    memory: Memory,
    init: TypedFunc<(), ()>,
    guest_call: TypedFunc<(i32, i32), i32>,
}

fn memory_of(caller: &mut Caller<'_, Exchange>) -> Memory {
    caller
        .get_export("memory")
        .and_then(wasmtime::Extern::into_memory)
        .unwrap()
}

/// `module` compiled once, for [`Guest::of`], instructions counted.
pub fn compile(module: &[u8]) -> (Engine, Module) {
    let engine = Engine::new(Config::new().consume_fuel(true)).unwrap();
    let module = Module::new(&engine, module).unwrap();
    (engine, module)
}

impl Guest {
    /// A fresh instance of `module` (its bytes), `wapc_init` called, as a waPC host starts one.
    pub fn new(module: &[u8]) -> Guest {
        let mut guest = Guest::instantiate(module);
        guest.init();
        guest
    }

    /// A fresh instance of `module`, `wapc_init` not called yet.
    pub fn instantiate(module: &[u8]) -> Guest {
        Guest::instantiate_compiled(&compile(module))
    }

    /// A fresh instance of a module compiled once for many ([`compile`]), `wapc_init` called.
    pub fn of(compiled: &(Engine, Module)) -> Guest {
        let mut guest = Guest::instantiate_compiled(compiled);
        guest.init();
        guest
    }

    fn instantiate_compiled((engine, module): &(Engine, Module)) -> Guest {
        let mut linker: Linker<Exchange> = Linker::new(engine);
        linker
            .func_wrap(
                "wapc",
                "__guest_request",
                |mut caller: Caller<'_, Exchange>, op: i32, ptr: i32| {
                    let (operation, payload) = (
                        caller.data().operation.clone(),
                        caller.data().payload.clone(),
                    );
                    let memory = memory_of(&mut caller);
                    memory.write(&mut caller, op as usize, &operation).unwrap();
                    memory.write(&mut caller, ptr as usize, &payload).unwrap();
                },
            )
            .unwrap();
        linker
            .func_wrap(
                "wapc",
                "__guest_response",
                |mut caller: Caller<'_, Exchange>, ptr: i32, len: i32| {
                    let memory = memory_of(&mut caller);
                    let (from, to) = (ptr as usize, ptr as usize + len as usize);
                    caller.data_mut().response = memory.data(&caller)[from..to].to_vec();
                },
            )
            .unwrap();
        linker.define_unknown_imports_as_traps(module).unwrap();
        let mut store = Store::new(engine, Exchange::default());
        store.set_fuel(u64::MAX / 2).unwrap();
        let instance = linker.instantiate(&mut store, module).unwrap();
        let init = instance
            .get_typed_func::<(), ()>(&mut store, "wapc_init")
            .unwrap();
        let memory = instance.get_memory(&mut store, "memory").unwrap();
        let guest_call = instance
            .get_typed_func::<(i32, i32), i32>(&mut store, "__guest_call")
            .unwrap();
        Guest {
            store,
            instance,
            memory,
            init,
            guest_call,
        }
    }

    /// `wapc_init`, which registers the guest's operations (it calls no import).
    pub fn init(&mut self) {
        self.init.call(&mut self.store, ()).unwrap();
    }

    /// The guest's linear memory.
    pub fn memory(&self) -> &[u8] {
        self.memory.data(&self.store)
    }

    /// Another memory the guest exports, as `name` (an instrumented module's profile: `layout::PROFILE_MEMORY`).
    pub fn exported_memory(&mut self, name: &str) -> &mut [u8] {
        let memory = self.instance.get_memory(&mut self.store, name).unwrap();
        memory.data_mut(&mut self.store)
    }

    /// `operation` with `payload` and at most `fuel` wasm instructions: the guest's response, or `None` when the call
    /// trapped, ran out of fuel or answered a waPC error.
    pub fn try_call(&mut self, operation: &str, payload: &[u8], fuel: u64) -> Option<Vec<u8>> {
        self.store.set_fuel(fuel).unwrap();
        match self.guest_call(operation, payload) {
            Ok(1) => Some(std::mem::take(&mut self.store.data_mut().response)),
            _ => None,
        }
    }

    /// `operation` with `payload`: the guest's response and the wasm instructions the call ran. A waPC error fails.
    pub fn call(&mut self, operation: &str, payload: &[u8]) -> (Vec<u8>, u64) {
        let fuel = self.store.get_fuel().unwrap();
        let ok = self.guest_call(operation, payload).unwrap();
        assert_eq!(ok, 1, "{operation} answered a waPC error");
        let ran = fuel - self.store.get_fuel().unwrap();
        (std::mem::take(&mut self.store.data_mut().response), ran)
    }

    /// `__guest_call` with `operation` and `payload` handed over: what it returned (1: a response), or its trap.
    fn guest_call(&mut self, operation: &str, payload: &[u8]) -> wasmtime::Result<i32> {
        *self.store.data_mut() = Exchange {
            operation: operation.as_bytes().to_vec(),
            payload: payload.to_vec(),
            response: Vec::new(),
        };
        let lengths = (
            i32::try_from(operation.len()).unwrap(),
            i32::try_from(payload.len()).unwrap(),
        );
        self.guest_call.call(&mut self.store, lengths)
    }
}
