//! Code layout (`src/layout.rs`): the functions a request runs moved first, every reference renumbered, the same
//! answers; the profiler that finds them; and the shipped modules laid out by the committed profile.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests fail loudly"
)]

mod common;

use palisade_harness::layout::{self, Layout};
use wasmtime::{Engine, Instance, Module, Store};

/// Three functions that call each other directly, through a table and through `ref.func`, an export and a start
/// function, each function named.
const MODULE: &str = r#"
(module
  (type $t (func (result i32)))
  (table 2 funcref)
  (elem (i32.const 0) $a $b)
  (global $started (mut i32) (i32.const 0))
  (func $a (result i32) i32.const 1)
  (func $b (result i32) call $a i32.const 10 i32.add)
  (func $c (export "c") (result i32)
    ;; slot 1 of the table becomes $a, through ref.func
    i32.const 1
    ref.func $a
    table.set 0
    call $b
    i32.const 0
    call_indirect (type $t)
    i32.add
    i32.const 1
    call_indirect (type $t)
    i32.add
    global.get $started
    i32.add)
  (func $start i32.const 100 global.set $started)
  (start $start))
"#;

fn run_c(bytes: &[u8]) -> i32 {
    let engine = Engine::default();
    let module = Module::new(&engine, bytes).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let c = instance.get_typed_func::<(), i32>(&mut store, "c").unwrap();
    c.call(&mut store, ()).unwrap()
}

/// The defined functions' indices of each export, and whether a `name` section is left.
fn exports_and_names(bytes: &[u8]) -> (Vec<(String, u32)>, bool) {
    let mut exports = Vec::new();
    let mut names = false;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload.unwrap() {
            wasmparser::Payload::ExportSection(s) => {
                for e in s {
                    let e = e.unwrap();
                    exports.push((e.name.to_owned(), e.index));
                }
            }
            wasmparser::Payload::CustomSection(c) if c.name() == "name" => names = true,
            _ => {}
        }
    }
    (exports, names)
}

#[test]
fn the_profiled_functions_move_first_and_every_reference_follows() {
    let original = wat::parse_str(MODULE).unwrap();
    assert_eq!(run_c(&original), 113);
    let (laid_out, report) = layout::hot_first(&original, &["c", "b", "start"]).unwrap();
    assert_eq!(
        report,
        Layout {
            functions: 4,
            moved: 3
        }
    );
    wasmparser::Validator::new()
        .validate_all(&laid_out)
        .unwrap();
    // c, b and start first, then a: a wrong call, table entry, ref.func or start function would call c again, or
    // start with a function of the wrong type
    let (exports, names) = exports_and_names(&laid_out);
    assert_eq!(exports, vec![("c".to_owned(), 0)]);
    assert!(!names, "the name section is dropped");
    assert_eq!(run_c(&laid_out), 113);
}

#[test]
fn a_module_without_names_or_a_profile_keeps_its_order() {
    let original = wat::parse_str(MODULE).unwrap();
    let (laid_out, report) = layout::hot_first(&original, &[]).unwrap();
    assert_eq!(report.moved, 0);
    assert_eq!(exports_and_names(&laid_out).0, vec![("c".to_owned(), 2)]);
    // without its names, the module is the same bytes again
    let (again, report) = layout::hot_first(&laid_out, &["c"]).unwrap();
    assert_eq!(report.moved, 0);
    assert_eq!(again, laid_out);
}

#[test]
fn the_profiler_lists_the_functions_a_call_runs_in_the_order_it_first_runs_them() {
    let original = wat::parse_str(MODULE).unwrap();
    let instrumented = layout::instrumented(&original).unwrap();
    let engine = Engine::default();
    let module = Module::new(&engine, &instrumented).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let profile = instance
        .get_memory(&mut store, layout::PROFILE_MEMORY)
        .unwrap();
    // instantiating ran the start function
    let ran = layout::first_runs(&original, profile.data(&store)).unwrap();
    assert_eq!(ran, ["start"]);
    profile.data_mut(&mut store).fill(0);
    let c = instance.get_typed_func::<(), i32>(&mut store, "c").unwrap();
    assert_eq!(
        c.call(&mut store, ()).unwrap(),
        113,
        "instrumenting changes no answer"
    );
    let ran = layout::first_runs(&original, profile.data(&store)).unwrap();
    assert_eq!(ran, ["c", "b", "a"]);
}

#[test]
fn profile_keys_drop_the_legacy_hash_only() {
    assert_eq!(
        layout::profile_key("_ZN13palisade_json3Doc12parse_shared17h5282e6d257f5ba29E"),
        "_ZN13palisade_json3Doc12parse_shared"
    );
    for kept in [
        "validate",
        "_RNvCsfLfy6EI15iL_7___rustc12___rust_alloc",
        "_ZN3foo3barE",
    ] {
        assert_eq!(layout::profile_key(kept), kept);
    }
}

/// The build lays the two shipped engine modules out by the committed profile: each one's code is its named copy's code
/// laid out so. And the profile still names the engine's functions: when most of its names no longer exist, the layout
/// is lost silently, and `examples/layout_profile.rs` must run again.
#[test]
fn the_shipped_modules_are_laid_out_by_a_current_profile() {
    if std::env::var_os("PALISADE_WASM_DIR").is_some() {
        // modules built elsewhere: their named copies are not in this target directory
        eprintln!("skipped: PALISADE_WASM_DIR is set");
        return;
    }
    let profile = layout::profile_names(layout::HOT_FUNCTIONS);
    for module in ["palisade", "palisade-kubewarden"] {
        let named = common::workspace().join(format!("target/wasm-build/{module}.named.wasm"));
        let named = std::fs::read(&named).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (build.rs leaves it next to the modules)",
                named.display()
            )
        });
        let shipped = std::fs::read(common::artifact(&format!("{module}.wasm"))).unwrap();
        let (laid_out, report) = layout::hot_first(&named, &profile).unwrap();
        assert!(
            code_section(&shipped) == code_section(&laid_out),
            "{module}.wasm is not laid out by build/hot-functions.txt: was it built by another checkout's build \
             script? (README, \"Development\")"
        );
        let names = function_names(&named);
        let keys: std::collections::HashSet<&str> =
            names.iter().map(|n| layout::profile_key(n)).collect();
        let found = profile.iter().filter(|n| keys.contains(*n)).count();
        assert!(
            found * 10 >= profile.len() * 9,
            "{module}.wasm: only {found} of the profile's {} functions exist: run `cargo run --release -p \
             palisade-harness --example layout_profile`",
            profile.len()
        );
        assert!(report.moved >= found);
    }
}

fn code_section(bytes: &[u8]) -> Vec<u8> {
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        if let wasmparser::Payload::CodeSectionStart { range, .. } = payload.unwrap() {
            return bytes[range].to_vec();
        }
    }
    panic!("no code section");
}

fn function_names(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        if let wasmparser::Payload::CustomSection(c) = payload.unwrap()
            && let wasmparser::KnownCustom::Name(reader) = c.as_known()
        {
            for name in reader {
                if let Ok(wasmparser::Name::Function(map)) = name {
                    out.extend(map.into_iter().map(|n| n.unwrap().name.to_owned()));
                }
            }
        }
    }
    out
}

/// What the layout cannot renumber it refuses, rather than write a module whose references point elsewhere.
#[test]
fn a_function_reference_it_cannot_renumber_is_refused() {
    for wat in [
        "(module (func $f) (func $g) (global funcref (ref.func $g)))",
        "(module (func $f) (func $g) (table 1 funcref) (elem (i32.const 0) funcref (ref.func $g)))",
    ] {
        let module = wat::parse_str(wat).unwrap();
        let refused = layout::hot_first(&module, &["g"]).unwrap_err();
        assert!(refused.contains("not laid out"), "{wat}: {refused}");
    }
}
