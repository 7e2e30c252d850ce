//! The shipped C ABI module has exactly the interface of docs/architecture.md ("The C ABI"): no
//! imports, and the exports `memory`, `palisade_alloc`, `palisade_free`, `configure`,
//! `validate` with their signatures — nothing more.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use std::collections::BTreeMap;

use wasmparser::{ExternalKind, Parser, Payload, TypeRef, ValType};

#[derive(Debug, PartialEq)]
enum Export {
    Memory,
    Func(Vec<ValType>, Vec<ValType>),
    Other(ExternalKind),
}

fn interface(bytes: &[u8]) -> (Vec<String>, BTreeMap<String, Export>) {
    let mut types: Vec<(Vec<ValType>, Vec<ValType>)> = Vec::new();
    let mut func_types: Vec<u32> = Vec::new();
    let mut imports = Vec::new();
    let mut exports = Vec::new();
    for payload in Parser::new(0).parse_all(bytes) {
        match payload.unwrap() {
            Payload::TypeSection(reader) => {
                for ty in reader.into_iter_err_on_gc_types() {
                    let f = ty.unwrap();
                    types.push((f.params().to_vec(), f.results().to_vec()));
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader {
                    let import = import.unwrap();
                    if let TypeRef::Func(t) = import.ty {
                        func_types.push(t);
                    }
                    imports.push(format!("{}::{}", import.module, import.name));
                }
            }
            Payload::FunctionSection(reader) => {
                for t in reader {
                    func_types.push(t.unwrap());
                }
            }
            Payload::ExportSection(reader) => {
                for e in reader {
                    let e = e.unwrap();
                    exports.push((e.name.to_string(), e.kind, e.index));
                }
            }
            _ => {}
        }
    }
    let exports = exports
        .into_iter()
        .map(|(name, kind, index)| {
            let export = match kind {
                ExternalKind::Memory => Export::Memory,
                ExternalKind::Func => {
                    let t = func_types[index as usize];
                    let (p, r) = types[t as usize].clone();
                    Export::Func(p, r)
                }
                other => Export::Other(other),
            };
            (name, export)
        })
        .collect();
    (imports, exports)
}

fn expected() -> BTreeMap<String, Export> {
    use ValType::{I32, I64};
    BTreeMap::from([
        ("memory".to_string(), Export::Memory),
        (
            "palisade_alloc".to_string(),
            Export::Func(vec![I32], vec![I32]),
        ),
        (
            "palisade_free".to_string(),
            Export::Func(vec![I32, I32], vec![]),
        ),
        (
            "configure".to_string(),
            Export::Func(vec![I32, I32], vec![I64]),
        ),
        (
            "validate".to_string(),
            Export::Func(vec![I32, I32], vec![I64]),
        ),
    ])
}

#[test]
fn palisade_wasm_has_zero_imports_and_exactly_the_design_exports() {
    let bytes = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    let (imports, exports) = interface(&bytes);
    assert!(
        imports.is_empty(),
        "palisade.wasm must import nothing, it imports {imports:?}"
    );
    assert_eq!(exports, expected());
}

#[test]
fn the_bench_floors_speak_the_same_abi() {
    for floor in ["floor-scan.wasm", "floor-dom.wasm"] {
        let bytes = std::fs::read(common::artifact(floor)).unwrap();
        let (imports, exports) = interface(&bytes);
        assert!(imports.is_empty(), "{floor} imports {imports:?}");
        assert_eq!(exports, expected(), "{floor}");
    }
}

#[test]
fn the_module_validates_as_wasm() {
    let bytes = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    wasmparser::Validator::new().validate_all(&bytes).unwrap();
}

/// The size budget of `palisade.wasm` after `gzip -9` (issue 12: the goal is 400 KB). The figure of December 2026
/// is in docs/architecture.md ("Artifacts"), with what it is made of; lower this budget when the module shrinks,
/// never raise it without saying why in the commit (536,000: +11.7 KB for the tape reader of request objects, whose
/// CEL views and refusal path sit beside the serde_json ones; 449,000: `regex-lite` instead of `regex`, 446,954 with the
/// one-pass object reader; 400,000, the goal: 395,510 with checker declarations as data, generated simple case
/// mappings, one sort and opt-level "z" for the crates off the per-request path; 397,802 with the tape parser of the
/// whole review, paid for by opt-level "z" for the engine package, palisade-matching and serde_json).
const PALISADE_WASM_GZIP_BUDGET: u64 = 400_000;

#[test]
fn palisade_wasm_stays_within_its_gzip_budget() {
    let bytes = std::fs::read(common::artifact("palisade.wasm")).unwrap();
    let gzip = palisade_harness::bench::gzip9_len(&bytes).unwrap();
    assert!(
        gzip <= PALISADE_WASM_GZIP_BUDGET,
        "palisade.wasm is {gzip} bytes after gzip -9 ({} raw), over its budget of {PALISADE_WASM_GZIP_BUDGET}: \
         find what grew with `twiggy top` on a build with names (docs/architecture.md, \"Artifacts\")",
        bytes.len()
    );
}
