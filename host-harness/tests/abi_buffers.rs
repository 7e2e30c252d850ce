//! The C ABI's buffers, driven call by call through wasmtime (docs/architecture.md, "The C ABI"): `validate` reads its
//! input where the host wrote it and keeps that buffer until `palisade_free`. A host that writes into a buffer again
//! without freeing it, with other bytes (even invalid UTF-8), gets an answer for the bytes it wrote; buffers freed in
//! any order are freed (memory stops growing).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use common::{artifact, workspace};
use serde_json::Value;
use wasmtime::{Engine, Instance, Memory, Module, Store, TypedFunc};

struct Raw {
    store: Store<()>,
    memory: Memory,
    alloc: TypedFunc<i32, i32>,
    free: TypedFunc<(i32, i32), ()>,
    validate: TypedFunc<(i32, i32), i64>,
}

impl Raw {
    fn new() -> Raw {
        let engine = Engine::default();
        let module = Module::from_file(&engine, artifact("palisade.wasm")).unwrap();
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        let configure = instance
            .get_typed_func::<(i32, i32), i64>(&mut store, "configure")
            .unwrap();
        let mut raw = Raw {
            memory: instance.get_memory(&mut store, "memory").unwrap(),
            alloc: instance
                .get_typed_func(&mut store, "palisade_alloc")
                .unwrap(),
            free: instance
                .get_typed_func(&mut store, "palisade_free")
                .unwrap(),
            validate: instance.get_typed_func(&mut store, "validate").unwrap(),
            store,
        };
        let bundle = br#"{"policies": []}"#;
        let at = raw.buffer(bundle);
        let answer = configure
            .call(&mut raw.store, (at, bundle.len() as i32))
            .unwrap();
        assert_eq!(raw.take(answer)["valid"], true);
        raw.free
            .call(&mut raw.store, (at, bundle.len() as i32))
            .unwrap();
        raw
    }

    /// A new buffer holding `bytes`.
    fn buffer(&mut self, bytes: &[u8]) -> i32 {
        let at = self
            .alloc
            .call(&mut self.store, bytes.len() as i32)
            .unwrap();
        self.write(at, bytes);
        at
    }

    fn write(&mut self, at: i32, bytes: &[u8]) {
        self.memory
            .write(&mut self.store, at as usize, bytes)
            .unwrap();
    }

    /// `validate` on the buffer at `at` (not freed).
    fn validate(&mut self, at: i32, len: usize) -> Value {
        let answer = self
            .validate
            .call(&mut self.store, (at, len as i32))
            .unwrap();
        self.take(answer)
    }

    /// Read and free an answer.
    fn take(&mut self, packed: i64) -> Value {
        let (at, len) = (
            (packed as u64 >> 32) as usize,
            packed as u64 as u32 as usize,
        );
        let mut out = vec![0; len];
        self.memory.read(&self.store, at, &mut out).unwrap();
        self.free
            .call(&mut self.store, (at as i32, len as i32))
            .unwrap();
        serde_json::from_slice(&out).unwrap()
    }
}

fn review() -> Vec<u8> {
    std::fs::read(workspace().join("bench/pod-review.json")).unwrap()
}

#[test]
fn a_buffer_written_again_without_being_freed_is_read_again() {
    let mut raw = Raw::new();
    let good = review();
    let at = raw.buffer(&good);
    let first = raw.validate(at, good.len());
    assert_eq!(first["response"]["allowed"], true, "{first}");
    assert_eq!(
        first["response"]["uid"],
        "705ab4f5-6393-11e8-b7cc-42010a800002"
    );

    // the same buffer, another uid: the answer is for the bytes now there
    let other = String::from_utf8(good.clone())
        .unwrap()
        .replace("705ab4f5-6393-11e8", "11111111-2222-3333");
    assert_eq!(other.len(), good.len());
    raw.write(at, other.as_bytes());
    let second = raw.validate(at, good.len());
    assert_eq!(
        second["response"]["uid"],
        "11111111-2222-3333-b7cc-42010a800002"
    );

    // the same buffer, now not UTF-8: a 400 that says so, no trap
    let mut broken = good.clone();
    broken[good.len() / 2] = 0xff;
    raw.write(at, &broken);
    let third = raw.validate(at, good.len());
    assert_eq!(third["response"]["allowed"], false, "{third}");
    assert_eq!(third["response"]["status"]["code"], 400, "{third}");
    let message = third["response"]["status"]["message"].as_str().unwrap();
    assert!(message.contains("UTF-8"), "{message}");

    raw.free
        .call(&mut raw.store, (at, good.len() as i32))
        .unwrap();
}

#[test]
fn buffers_freed_in_any_order_are_freed() {
    let mut raw = Raw::new();
    let good = review();
    let pages = |raw: &Raw| raw.memory.size(&raw.store);
    let mut settled = 0;
    for round in 0..2_000 {
        // two inputs validated before either is freed, freed in the other order
        let a = raw.buffer(&good);
        let b = raw.buffer(&good);
        assert_eq!(raw.validate(a, good.len())["response"]["allowed"], true);
        assert_eq!(raw.validate(b, good.len())["response"]["allowed"], true);
        raw.free
            .call(&mut raw.store, (b, good.len() as i32))
            .unwrap();
        raw.free
            .call(&mut raw.store, (a, good.len() as i32))
            .unwrap();
        if round == 100 {
            settled = pages(&raw);
        }
    }
    assert_eq!(
        pages(&raw),
        settled,
        "memory grew: a held input was not freed"
    );
}
