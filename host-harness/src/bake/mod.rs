//! Baked modules (`palisade bake`): a module whose initial memory and globals already hold a configured engine, so a
//! fresh instance answers `validate` without compiling the bundle again (the Wizer technique, done here with
//! wasmparser and wasm-encoder, which fit the pinned wasmtime).
//!
//! 1. [`instrument`] exports every mutable global of the module, so the host can read them;
//! 2. the instrumented module is instantiated in wasmtime and configured with the bundle — through the C ABI's
//!    `configure`, or through waPC's `validate_settings` for the Kubewarden module ([`crate::kubewarden`]);
//! 3. [`apply`] writes the *original* module again with that instance's linear memory as its data segments, its
//!    memory's minimum size, and its mutable globals' values as their initializers. Every other section — code,
//!    exports, custom sections such as `io.kubewarden.metadata` — is copied byte for byte.
//!
//! A baked C ABI module still accepts `configure`, which replaces the baked bundle. The guest must not use passive
//! data segments (`memory.init`): their indices would change, so such a module is refused.

mod driver;

use std::fmt;

use wasm_encoder::Section as _;
use wasmparser::{Parser, Payload};

pub use driver::{Baker, Protocol, bake};

/// The export name under which [`instrument`] exposes defined global `index` (an absolute global index).
pub fn global_export_name(index: u32) -> String {
    format!("__palisade_bake_global_{index}")
}

/// A mutable global's value at snapshot time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GlobalValue {
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
}

/// What an instance holds after configuring: its linear memory and its mutable globals (absolute index, value).
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub memory: Vec<u8>,
    pub globals: Vec<(u32, GlobalValue)>,
}

/// Why a module cannot be baked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BakeError(pub String);

impl fmt::Display for BakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BakeError {}

/// The words of a bake error, for the section rewriter's callbacks (`crate::layout::rewrite`), whose errors are text.
impl From<BakeError> for String {
    fn from(e: BakeError) -> String {
        e.0
    }
}

fn err(message: impl Into<String>) -> BakeError {
    BakeError(message.into())
}

fn parse_err(e: wasmparser::BinaryReaderError) -> BakeError {
    err(format!("not a valid WebAssembly module: {e}"))
}

/// What the baker needs to know of a module before it runs it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Absolute indices of the module's own mutable globals.
    pub mutable_globals: Vec<u32>,
    /// Functions the module keeps for tools without exporting them (`palisade_seal`): name and function index, from
    /// the custom section [`TOOL_EXPORTS_SECTION`] that host-harness/build.rs writes into `palisade.wasm`.
    pub tool_exports: Vec<(String, u32)>,
    /// The stack pointer and the top of the stack, when the module lays its stack out first (rust-lld's default for
    /// wasm32): the index of its first global, a mutable `i32` defined by the module, and that global's initial value,
    /// when every data segment lies at or above it (the stack grows down from there to address 0).
    pub stack_first: Option<(u32, usize)>,
}

impl Layout {
    /// Clears what lies below the stack pointer in a snapshot taken between calls: stack frames of calls that have
    /// returned (`configure`'s), dead bytes a fresh instance would otherwise carry in its image and copy when a
    /// request's frames overwrite them (a zeroed page is not in the image at all). Only for a module whose stack
    /// comes first ([`Layout::stack_first`]), whose pointer is then back at its initial value.
    pub fn clear_dead_stack(&self, snapshot: &mut Snapshot) {
        let Some((index, top)) = self.stack_first else {
            return;
        };
        let sp = snapshot.globals.iter().find_map(|(i, v)| match v {
            GlobalValue::I32(sp) if *i == index => usize::try_from(*sp as u32).ok(),
            _ => None,
        });
        if let Some(dead) = sp.and_then(|sp| snapshot.memory.get_mut(..sp.min(top))) {
            dead.fill(0);
        }
    }
}

/// The custom section listing a module's unexported tool functions as `name=index` lines (host-harness/build.rs).
pub const TOOL_EXPORTS_SECTION: &str = "palisade.tool-exports";

/// The export run before a snapshot when the module has it (crate/src/abi/seal.rs).
pub const SEAL: &str = "palisade_seal";

fn tool_exports(data: &[u8]) -> Vec<(String, u32)> {
    String::from_utf8_lossy(data)
        .lines()
        .filter_map(|line| {
            let (name, index) = line.split_once('=')?;
            Some((name.to_owned(), index.parse().ok()?))
        })
        .collect()
}

/// The module with every mutable global it defines exported under [`global_export_name`]. Nothing else changes.
pub fn instrument(module: &[u8]) -> Result<(Vec<u8>, Layout), BakeError> {
    let layout = layout(module)?;
    let mut exported = false;
    let out = crate::layout::rewrite(module, |payload, out| {
        let Payload::ExportSection(reader) = payload else {
            return Ok(false);
        };
        let mut exports = wasm_encoder::ExportSection::new();
        let mut names = Vec::new();
        for export in reader.clone() {
            let export = export.map_err(parse_err)?;
            exports.export(
                export.name,
                crate::layout::export_kind(export.kind),
                export.index,
            );
            names.push(export.name.to_owned());
        }
        for &index in &layout.mutable_globals {
            exports.export(
                &global_export_name(index),
                wasm_encoder::ExportKind::Global,
                index,
            );
        }
        for (name, index) in &layout.tool_exports {
            if !names.contains(name) {
                exports.export(name, wasm_encoder::ExportKind::Func, *index);
            }
        }
        exports.append_to(out);
        exported = true;
        Ok(true)
    })
    .map_err(BakeError)?;
    if !exported {
        return Err(err("the module has no export section"));
    }
    Ok((out, layout))
}

/// Reads the module's globals, data and tool functions: which globals a snapshot must carry, which function seals
/// the heap before it, and whether the module can be baked at all.
pub fn layout(module: &[u8]) -> Result<Layout, BakeError> {
    let mut imported_globals = 0u32;
    let mut layout = Layout::default();
    let mut memories = 0u32;
    // the first global's initial value when it is a mutable i32 the module defines, and the lowest data segment
    let mut stack_top: Option<i64> = None;
    let mut lowest_data: Option<i64> = None;
    for payload in Parser::new(0).parse_all(module) {
        match payload.map_err(parse_err)? {
            Payload::Version { encoding, .. } if encoding != wasmparser::Encoding::Module => {
                return Err(err("a component, not a core WebAssembly module"));
            }
            Payload::ImportSection(reader) => {
                for import in reader {
                    match import.map_err(parse_err)?.ty {
                        wasmparser::TypeRef::Global(_) => imported_globals += 1,
                        wasmparser::TypeRef::Memory(_) => {
                            return Err(err(
                                "the module imports its memory; only a module's own memory is baked",
                            ));
                        }
                        _ => {}
                    }
                }
            }
            Payload::MemorySection(reader) => memories += reader.count(),
            Payload::GlobalSection(reader) => {
                for (i, global) in reader.into_iter().enumerate() {
                    let global = global.map_err(parse_err)?;
                    if i == 0
                        && imported_globals == 0
                        && global.ty.mutable
                        && global.ty.content_type == wasmparser::ValType::I32
                    {
                        stack_top = const_i32(&global.init_expr);
                    }
                    if global.ty.mutable {
                        let index = imported_globals
                            + u32::try_from(i).map_err(|_| err("too many globals"))?;
                        layout.mutable_globals.push(index);
                    }
                }
            }
            Payload::CustomSection(section) if section.name() == TOOL_EXPORTS_SECTION => {
                layout.tool_exports = tool_exports(section.data());
            }
            Payload::DataSection(reader) => {
                for segment in reader {
                    match segment.map_err(parse_err)?.kind {
                        wasmparser::DataKind::Passive => {
                            return Err(err(
                                "the module has passive data segments (memory.init); it cannot be baked",
                            ));
                        }
                        wasmparser::DataKind::Active { offset_expr, .. } => {
                            // a segment placed by an expression other than a constant: no stack layout is assumed
                            let at = const_i32(&offset_expr).unwrap_or(i64::MIN);
                            lowest_data = Some(lowest_data.map_or(at, |low| low.min(at)));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if memories != 1 {
        return Err(err(format!(
            "the module defines {memories} memories; exactly one is baked"
        )));
    }
    if let Some(top) = stack_top
        && top > 0
        && lowest_data.is_none_or(|low| low >= top)
    {
        layout.stack_first = usize::try_from(top).ok().map(|top| (imported_globals, top));
    }
    Ok(layout)
}

/// The value of a constant expression that is one `i32.const` (as an unsigned address).
fn const_i32(expr: &wasmparser::ConstExpr<'_>) -> Option<i64> {
    let mut ops = expr.get_operators_reader();
    match (ops.read().ok()?, ops.read().ok()?) {
        (wasmparser::Operator::I32Const { value }, wasmparser::Operator::End) => {
            Some(i64::from(value as u32))
        }
        _ => None,
    }
}

/// Zero bytes tolerated inside one data segment before it is split in two (each segment costs a few bytes of
/// header, so short runs of zeros are cheaper kept).
const MAX_ZERO_GAP: usize = 32;

/// The non-zero regions of `memory` as (offset, bytes) segments.
pub fn segments(memory: &[u8]) -> Vec<(usize, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < memory.len() {
        let Some(start) = memory
            .get(i..)
            .and_then(|rest| rest.iter().position(|b| *b != 0))
            .map(|p| p + i)
        else {
            break;
        };
        let mut end = start;
        let mut zeros = 0;
        let mut j = start;
        while let Some(b) = memory.get(j) {
            if *b == 0 {
                zeros += 1;
                if zeros > MAX_ZERO_GAP {
                    break;
                }
            } else {
                zeros = 0;
                end = j + 1;
            }
            j += 1;
        }
        if let Some(bytes) = memory.get(start..end) {
            out.push((start, bytes));
        }
        i = end;
    }
    out
}

/// The original `module` with `snapshot` as its initial state (see the module documentation).
pub fn apply(module: &[u8], snapshot: &Snapshot) -> Result<Vec<u8>, BakeError> {
    const PAGE: usize = 64 * 1024;
    if !snapshot.memory.len().is_multiple_of(PAGE) {
        return Err(err("the snapshot's memory is not a whole number of pages"));
    }
    let pages = (snapshot.memory.len() / PAGE) as u64;
    let segments = segments(&snapshot.memory);
    let mut data = wasm_encoder::DataSection::new();
    for (offset, bytes) in &segments {
        let offset =
            i32::try_from(*offset).map_err(|_| err("memory larger than 2 GiB cannot be baked"))?;
        data.active(
            0,
            &wasm_encoder::ConstExpr::i32_const(offset),
            bytes.iter().copied(),
        );
    }
    let data_count = u32::try_from(segments.len()).map_err(|_| err("too many data segments"))?;

    let mut imported_globals = 0u32;
    let mut wrote_data = false;
    let mut after_code = false;
    let mut out = crate::layout::rewrite(module, |payload, out| {
        match payload {
            Payload::ImportSection(reader) => {
                for import in reader.clone() {
                    if let wasmparser::TypeRef::Global(_) = import.map_err(parse_err)?.ty {
                        imported_globals += 1;
                    }
                }
            }
            Payload::MemorySection(reader) => {
                let mut memories = wasm_encoder::MemorySection::new();
                for memory in reader.clone() {
                    let memory = memory.map_err(parse_err)?;
                    if memory.maximum.is_some_and(|max| max < pages) {
                        return Err(format!(
                            "the configured instance uses {pages} pages, more than the module's maximum"
                        ));
                    }
                    memories.memory(wasm_encoder::MemoryType {
                        minimum: memory.initial.max(pages),
                        maximum: memory.maximum,
                        memory64: memory.memory64,
                        shared: memory.shared,
                        page_size_log2: memory.page_size_log2,
                    });
                }
                memories.append_to(out);
                return Ok(true);
            }
            Payload::GlobalSection(reader) => {
                let mut globals = wasm_encoder::GlobalSection::new();
                let mut items = reader.clone().into_iter_with_offsets().peekable();
                let section_end = reader.range().end;
                let mut i = 0u32;
                while let Some(item) = items.next() {
                    let (start, global) = item.map_err(parse_err)?;
                    let end = match items.peek() {
                        Some(Ok((next, _))) => *next,
                        _ => section_end,
                    };
                    let index = imported_globals + i;
                    i += 1;
                    let value = snapshot
                        .globals
                        .iter()
                        .find(|(g, _)| *g == index)
                        .map(|(_, v)| *v);
                    match (global.ty.mutable, value) {
                        (true, Some(value)) => {
                            globals.global(
                                wasm_encoder::GlobalType {
                                    val_type: val_type(global.ty.content_type)?,
                                    mutable: true,
                                    shared: global.ty.shared,
                                },
                                &const_expr(value),
                            );
                        }
                        (true, None) => {
                            return Err(format!(
                                "the snapshot has no value for mutable global {index}"
                            ));
                        }
                        (false, _) => {
                            globals.raw(slice(module, start..end)?);
                        }
                    }
                }
                globals.append_to(out);
                return Ok(true);
            }
            Payload::DataCountSection { .. } => {
                wasm_encoder::DataCountSection { count: data_count }.append_to(out);
                return Ok(true);
            }
            Payload::DataSection(_) => {
                data.append_to(out);
                wrote_data = true;
                return Ok(true);
            }
            Payload::CodeSectionStart { .. } => after_code = true,
            // a module without a data section gets one right after its code section
            _ if after_code && !wrote_data && payload.as_section().is_some() => {
                data.append_to(out);
                wrote_data = true;
            }
            _ => {}
        }
        Ok(false)
    })
    .map_err(BakeError)?;
    if !wrote_data {
        data.append_to(&mut out);
    }
    wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::all())
        .validate_all(&out)
        .map_err(|e| err(format!("the baked module does not validate: {e}")))?;
    Ok(out)
}

fn slice(module: &[u8], range: std::ops::Range<usize>) -> Result<&[u8], BakeError> {
    module
        .get(range)
        .ok_or_else(|| err("a section runs past the end of the module"))
}

fn val_type(t: wasmparser::ValType) -> Result<wasm_encoder::ValType, BakeError> {
    Ok(match t {
        wasmparser::ValType::I32 => wasm_encoder::ValType::I32,
        wasmparser::ValType::I64 => wasm_encoder::ValType::I64,
        wasmparser::ValType::F32 => wasm_encoder::ValType::F32,
        wasmparser::ValType::F64 => wasm_encoder::ValType::F64,
        other => {
            return Err(err(format!(
                "a mutable global of type {other} cannot be baked"
            )));
        }
    })
}

fn const_expr(value: GlobalValue) -> wasm_encoder::ConstExpr {
    match value {
        GlobalValue::I32(v) => wasm_encoder::ConstExpr::i32_const(v),
        GlobalValue::I64(v) => wasm_encoder::ConstExpr::i64_const(v),
        GlobalValue::F32(bits) => wasm_encoder::ConstExpr::f32_const(f32::from_bits(bits).into()),
        GlobalValue::F64(bits) => wasm_encoder::ConstExpr::f64_const(f64::from_bits(bits).into()),
    }
}

/// The custom section a baked module carries: the hash ([`bundle_hash`]) of the bundle baked into it, so a host can
/// skip `configure` when it would send the same bundle.
pub const BAKED_SECTION: &str = "palisade.baked";

/// FNV-1a (64 bits) of the bundle's JSON bytes, in hex: stable across builds and platforms.
pub fn bundle_hash(bundle_json: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bundle_json {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Whether a module that carries the bundle hash `baked` ([`baked_bundle_hash`]) was baked with this bundle.
pub fn is_baked_with(baked: Option<&str>, bundle_json: &[u8]) -> bool {
    baked.is_some_and(|h| h == bundle_hash(bundle_json))
}

/// The bundle hash a baked module carries, `None` for a module that is not baked.
pub fn baked_bundle_hash(module: &[u8]) -> Option<String> {
    Parser::new(0)
        .parse_all(module)
        .filter_map(Result::ok)
        .find_map(|payload| match payload {
            Payload::CustomSection(c) if c.name() == BAKED_SECTION => {
                Some(String::from_utf8_lossy(c.data()).into_owned())
            }
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUEST: &str = r#"(module
        (global $sp (mut i32) (i32.const 1024))
        (global $base i32 (i32.const 4096))
        (memory (export "memory") 1)
        (data (i32.const 16) "\01\02")
        (func (export "set") (global.set $sp (i32.const 77)) (i32.store (i32.const 70000) (i32.const 9)) )
    )"#;

    #[test]
    fn segments_cover_every_nonzero_byte_and_merge_short_gaps() {
        let mut memory = vec![0u8; 300];
        memory[5] = 1;
        memory[10] = 2;
        memory[200] = 3;
        let segs = segments(&memory);
        assert_eq!(segs.len(), 2);
        assert_eq!(segs[0], (5, &memory[5..11]));
        assert_eq!(segs[1], (200, &memory[200..201]));
        assert!(segments(&[0; 100]).is_empty());
    }

    fn instance(wasm: &[u8]) -> (wasmtime::Store<()>, wasmtime::Instance) {
        let engine = wasmtime::Engine::default();
        let module = wasmtime::Module::new(&engine, wasm).unwrap();
        let mut store = wasmtime::Store::new(&engine, ());
        let instance = wasmtime::Instance::new(&mut store, &module, &[]).unwrap();
        (store, instance)
    }

    #[test]
    fn instrument_exports_mutable_globals_only() {
        let wasm = wat::parse_str(GUEST).unwrap();
        let (out, layout) = instrument(&wasm).unwrap();
        assert_eq!(layout.mutable_globals, vec![0]);
        let (mut store, instance) = instance(&out);
        let sp = instance
            .get_global(&mut store, "__palisade_bake_global_0")
            .unwrap();
        assert_eq!(sp.get(&mut store).i32(), Some(1024));
        assert!(
            instance
                .get_global(&mut store, "__palisade_bake_global_1")
                .is_none()
        );
    }

    /// Run the guest's `set`, snapshot it, bake: a fresh instance of the baked module starts where `set` left off.
    #[test]
    fn a_fresh_instance_of_a_baked_module_starts_from_the_snapshot() {
        let wasm = wat::parse_str(GUEST).unwrap();
        let (instrumented, layout) = instrument(&wasm).unwrap();
        let (mut store, live) = instance(&instrumented);
        let memory = live.get_memory(&mut store, "memory").unwrap();
        memory.grow(&mut store, 1).unwrap();
        let set = live.get_typed_func::<(), ()>(&mut store, "set").unwrap();
        set.call(&mut store, ()).unwrap();
        let snapshot = Snapshot {
            memory: memory.data(&store).to_vec(),
            globals: layout
                .mutable_globals
                .iter()
                .map(|&g| {
                    let v = live.get_global(&mut store, &global_export_name(g)).unwrap();
                    (g, GlobalValue::I32(v.get(&mut store).i32().unwrap()))
                })
                .collect(),
        };
        let baked = apply(&wasm, &snapshot).unwrap();
        assert!(
            layout_exports(&baked)
                .iter()
                .all(|n| !n.starts_with("__palisade_bake"))
        );
        let (mut store, fresh) = instance(&baked);
        let memory = fresh.get_memory(&mut store, "memory").unwrap();
        assert_eq!(memory.data_size(&store), 2 * 65536);
        assert_eq!(memory.data(&store)[16..18], [1, 2]);
        assert_eq!(memory.data(&store)[70000], 9);
        // the global was 1024 at start and 77 after `set`: the baked module starts at 77
        let (instrumented_baked, _) = instrument(&baked).unwrap();
        let (mut store, fresh) = instance(&instrumented_baked);
        let sp = fresh
            .get_global(&mut store, "__palisade_bake_global_0")
            .unwrap();
        assert_eq!(sp.get(&mut store).i32(), Some(77));
        // and the immutable global is untouched
        let _ = fresh;
    }

    fn layout_exports(wasm: &[u8]) -> Vec<String> {
        let mut names = Vec::new();
        for payload in Parser::new(0).parse_all(wasm) {
            if let Ok(Payload::ExportSection(reader)) = payload {
                for e in reader.into_iter().flatten() {
                    names.push(e.name.to_owned());
                }
            }
        }
        names
    }

    #[test]
    fn passive_segments_and_imported_memories_are_refused() {
        let passive = wat::parse_str(r#"(module (memory 1) (data "x"))"#).unwrap();
        assert!(layout(&passive).unwrap_err().0.contains("passive"));
        let imported = wat::parse_str(r#"(module (import "a" "m" (memory 1)))"#).unwrap();
        assert!(
            layout(&imported)
                .unwrap_err()
                .0
                .contains("imports its memory")
        );
    }
}
