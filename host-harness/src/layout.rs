//! Code layout: the functions a request runs, placed first and together in the module.
//!
//! wasmtime lays a module's compiled functions out in the order the module defines them. A review touches a few hundred
//! of palisade's two thousand functions, spread over two megabytes of machine code; when the caches are cold (the first
//! request after other work, every request of a host that runs other code between them) each code page the request
//! touches costs a page-table walk, each line a fetch from memory. [`hot_first`] moves the functions named in a profile
//! ([`HOT_FUNCTIONS`]) to the front, in the order a request first runs them, and renumbers every reference to a
//! function. Nothing else changes: the same code, the same answers.
//!
//! The build (`build.rs`, through `build/layout_hook.rs`) applies it to `palisade.wasm` and `palisade-kubewarden.wasm`
//! after `wasm-opt`, which keeps the function names (`-g`) for it; the names are dropped here. The profile is written
//! by `examples/layout_profile.rs`, which runs the named modules [`instrumented`] and reads back their [`first_runs`]
//! (README, "Performance").

use std::collections::HashMap;

use wasm_encoder::Section as _;

/// The profile the build applies: one function name per line (`#` starts a comment), in the order a request first runs
/// them ([`profile_names`]).
pub const HOT_FUNCTIONS: &str = include_str!("../build/hot-functions.txt");

/// The name of a function as the profile keeps it: its symbol without the legacy mangling's hash (`17h…E`), so that a
/// profile outlives changes to the code that do not rename the function. Generic functions of one path share a name;
/// all of them move.
pub fn profile_key(symbol: &str) -> &str {
    match symbol.len().checked_sub(20) {
        Some(at)
            if symbol.starts_with("_ZN")
                && symbol.get(at..at + 3) == Some("17h")
                && symbol.ends_with('E') =>
        {
            symbol.get(..at).unwrap_or(symbol)
        }
        _ => symbol,
    }
}

/// The names of [`HOT_FUNCTIONS`] (or any profile text), in order.
pub fn profile_names(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// What [`hot_first`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Functions the module defines.
    pub functions: usize,
    /// Of them, those the profile names, now first.
    pub moved: usize,
}

/// The parts of a module [`hot_first`] reads before it writes.
struct Parsed<'a> {
    imported: u32,
    types: Vec<u32>,
    bodies: Vec<wasmparser::FunctionBody<'a>>,
    names: HashMap<u32, &'a str>,
}

fn invalid(e: impl std::fmt::Display) -> String {
    format!("not a valid WebAssembly module: {e}")
}

fn parse(bytes: &[u8]) -> Result<Parsed<'_>, String> {
    let mut parsed = Parsed {
        imported: 0,
        types: Vec::new(),
        bodies: Vec::new(),
        names: HashMap::new(),
    };
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload.map_err(invalid)? {
            wasmparser::Payload::ImportSection(imports) => {
                for import in imports {
                    if matches!(import.map_err(invalid)?.ty, wasmparser::TypeRef::Func(_)) {
                        parsed.imported += 1;
                    }
                }
            }
            wasmparser::Payload::FunctionSection(functions) => {
                for ty in functions {
                    parsed.types.push(ty.map_err(invalid)?);
                }
            }
            wasmparser::Payload::CodeSectionEntry(body) => parsed.bodies.push(body),
            wasmparser::Payload::CustomSection(c) => {
                if let wasmparser::KnownCustom::Name(reader) = c.as_known() {
                    for name in reader {
                        if let Ok(wasmparser::Name::Function(map)) = name {
                            for naming in map.into_iter().flatten() {
                                parsed.names.insert(naming.index, naming.name);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if parsed.types.len() != parsed.bodies.len() {
        return Err(invalid("the function and code sections disagree"));
    }
    Ok(parsed)
}

/// `bytes` with the functions `hot` names first, in `hot`'s order (the others after them, in their order), and every
/// reference to a function renumbered: calls, `ref.func`, exports, the start function and element segments. The `name`
/// section is dropped (the shipped modules carry none). A module without function names keeps its order. A module
/// this cannot renumber (an element segment of expressions, a global holding a function reference: neither rustc nor
/// wasm-opt writes one) is refused.
pub fn hot_first(bytes: &[u8], hot: &[&str]) -> Result<(Vec<u8>, Layout), String> {
    let parsed = parse(bytes)?;
    let rank: HashMap<&str, usize> = hot.iter().enumerate().rev().map(|(i, n)| (*n, i)).collect();
    let defined = u32::try_from(parsed.types.len()).map_err(invalid)?;
    let rank_of = |d: u32| {
        parsed
            .names
            .get(&(d + parsed.imported))
            .and_then(|n| rank.get(profile_key(n)))
            .copied()
    };
    let mut order: Vec<u32> = (0..defined).collect();
    order.sort_by_key(|&d| (rank_of(d).map_or((1, 0), |r| (0, r)), d));
    let moved = order.iter().filter(|&&d| rank_of(d).is_some()).count();
    // old index → new index, imports unchanged
    let mut renumber: Vec<u32> = (0..parsed.imported + defined).collect();
    for (new, &old) in order.iter().enumerate() {
        let new = u32::try_from(new).map_err(invalid)?;
        if let Some(slot) = renumber.get_mut((old + parsed.imported) as usize) {
            *slot = new + parsed.imported;
        }
    }
    let map = |f: u32| -> Result<u32, String> {
        renumber
            .get(f as usize)
            .copied()
            .ok_or_else(|| invalid(format!("function {f} does not exist")))
    };

    let out = rewrite(bytes, |payload, out| {
        match payload {
            wasmparser::Payload::FunctionSection(_) => {
                let mut section = wasm_encoder::FunctionSection::new();
                for &old in &order {
                    section.function(*parsed.types.get(old as usize).ok_or("no such function")?);
                }
                section.append_to(out);
            }
            wasmparser::Payload::CodeSectionStart { .. } => {
                let mut section = wasm_encoder::CodeSection::new();
                for &old in &order {
                    let body = parsed.bodies.get(old as usize).ok_or("no such body")?;
                    section.raw(&renumbered_body(bytes, body, &map)?);
                }
                section.append_to(out);
            }
            wasmparser::Payload::CodeSectionEntry(_) => {}
            wasmparser::Payload::CustomSection(c) if c.name() == "name" => {}
            wasmparser::Payload::ExportSection(exports) => {
                let mut section = wasm_encoder::ExportSection::new();
                for export in exports.clone() {
                    let export = export.map_err(invalid)?;
                    let index = match export.kind {
                        wasmparser::ExternalKind::Func => map(export.index)?,
                        _ => export.index,
                    };
                    section.export(export.name, export_kind(export.kind), index);
                }
                section.append_to(out);
            }
            wasmparser::Payload::StartSection { func, .. } => {
                wasm_encoder::StartSection {
                    function_index: map(*func)?,
                }
                .append_to(out);
            }
            wasmparser::Payload::ElementSection(elements) => {
                renumbered_elements(bytes, elements.clone(), &map)?.append_to(out);
            }
            wasmparser::Payload::GlobalSection(globals) => {
                // copied as they are, which is right unless one holds a function reference
                for global in globals.clone() {
                    let mut ops = global.map_err(invalid)?.init_expr.get_operators_reader();
                    while !ops.eof() {
                        if let wasmparser::Operator::RefFunc { .. } = ops.read().map_err(invalid)? {
                            return Err(
                                "a global initialized with ref.func is not laid out".to_owned()
                            );
                        }
                    }
                }
                return Ok(false);
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok((
        out,
        Layout {
            functions: order.len(),
            moved,
        },
    ))
}

/// A function body (its locals and code, without the size) with the function index of every `call`, `return_call` and
/// `ref.func` renumbered; every other byte copied.
fn renumbered_body(
    bytes: &[u8],
    body: &wasmparser::FunctionBody<'_>,
    map: &impl Fn(u32) -> Result<u32, String>,
) -> Result<Vec<u8>, String> {
    let range = body.range();
    let mut out = Vec::with_capacity(range.len());
    let mut ops = body.get_operators_reader().map_err(invalid)?;
    let mut copied = ops.original_position();
    out.extend_from_slice(bytes.get(range.start..copied).ok_or("truncated locals")?);
    while !ops.eof() {
        let (op, at) = ops.read_with_offset().map_err(invalid)?;
        let opcode = match op {
            wasmparser::Operator::Call { function_index } => Some((0x10, function_index)),
            wasmparser::Operator::ReturnCall { function_index } => Some((0x12, function_index)),
            wasmparser::Operator::RefFunc { function_index } => Some((0xd2, function_index)),
            _ => None,
        };
        if let Some((opcode, f)) = opcode {
            out.extend_from_slice(bytes.get(copied..at).ok_or("a body runs past the module")?);
            out.push(opcode);
            leb128(&mut out, map(f)?);
            copied = ops.original_position();
        }
    }
    out.extend_from_slice(
        bytes
            .get(copied..range.end)
            .ok_or("a body runs past the module")?,
    );
    Ok(out)
}

/// The element section with its function indices renumbered: segments that list functions (what rustc and wasm-opt
/// write for a function table). A segment of expressions is refused: the build stops and says so.
fn renumbered_elements(
    bytes: &[u8],
    elements: wasmparser::ElementSectionReader<'_>,
    map: &impl Fn(u32) -> Result<u32, String>,
) -> Result<wasm_encoder::ElementSection, String> {
    let mut section = wasm_encoder::ElementSection::new();
    for element in elements {
        let element = element.map_err(invalid)?;
        let wasmparser::ElementItems::Functions(functions) = element.items else {
            return Err("an element segment of expressions is not laid out".to_owned());
        };
        let functions = functions
            .into_iter()
            .map(|f| map(f.map_err(invalid)?))
            .collect::<Result<Vec<u32>, String>>()?;
        let items = wasm_encoder::Elements::Functions(functions.into());
        match element.kind {
            wasmparser::ElementKind::Active {
                table_index,
                offset_expr,
            } => {
                // the expression's bytes without its `end`, as wasm-encoder's raw constant expression takes them
                let mut ops = offset_expr.get_operators_reader();
                let (start, mut end) = (ops.original_position(), ops.original_position());
                while !ops.eof() {
                    end = ops.original_position();
                    if matches!(ops.read().map_err(invalid)?, wasmparser::Operator::End) {
                        break;
                    }
                }
                let offset = wasm_encoder::ConstExpr::raw(
                    bytes
                        .get(start..end)
                        .ok_or("truncated offset")?
                        .iter()
                        .copied(),
                );
                section.active(table_index, &offset, items);
            }
            wasmparser::ElementKind::Passive => {
                section.passive(items);
            }
            wasmparser::ElementKind::Declared => {
                section.declared(items);
            }
        }
    }
    Ok(section)
}

fn leb128(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// The export of an [`instrumented`] module's second memory: word 0 counts the functions run so far, word `1 + i` says
/// when defined function `i` first ran (0: never).
pub const PROFILE_MEMORY: &str = "palisade_profile";

/// `bytes` with a second memory ([`PROFILE_MEMORY`]) and, at the start of every function, code that notes when the
/// function first runs: what [`first_runs`] reads back. The memory's first word counts; nothing else changes.
pub fn instrumented(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let parsed = parse(bytes)?;
    let words = u64::try_from(parsed.bodies.len() + 1).map_err(invalid)?;
    let profile = wasm_encoder::MemoryType {
        minimum: (words * 4).div_ceil(65536),
        maximum: None,
        memory64: false,
        shared: false,
        page_size_log2: None,
    };
    // the new memory's index: after the memories imported and defined
    let mut memories = 0u32;
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        match payload.map_err(invalid)? {
            wasmparser::Payload::ImportSection(imports) => {
                for import in imports {
                    if matches!(import.map_err(invalid)?.ty, wasmparser::TypeRef::Memory(_)) {
                        memories += 1;
                    }
                }
            }
            wasmparser::Payload::MemorySection(reader) => memories += reader.count(),
            _ => {}
        }
    }
    let mut memory_written = false;
    rewrite(bytes, |payload, out| {
        // sections after the memory section's place (custom sections go anywhere): a module without memories gets its
        // memory section before the first of them
        let after_memory = matches!(
            payload,
            wasmparser::Payload::GlobalSection(_)
                | wasmparser::Payload::TagSection(_)
                | wasmparser::Payload::ExportSection(_)
                | wasmparser::Payload::StartSection { .. }
                | wasmparser::Payload::ElementSection(_)
                | wasmparser::Payload::DataCountSection { .. }
                | wasmparser::Payload::CodeSectionStart { .. }
                | wasmparser::Payload::DataSection(_)
        );
        if after_memory && !memory_written {
            let mut section = wasm_encoder::MemorySection::new();
            section.memory(profile);
            section.append_to(out);
            memory_written = true;
        }
        match payload {
            wasmparser::Payload::MemorySection(reader) => {
                let mut section = wasm_encoder::MemorySection::new();
                for memory in reader.clone() {
                    let m = memory.map_err(invalid)?;
                    section.memory(wasm_encoder::MemoryType {
                        minimum: m.initial,
                        maximum: m.maximum,
                        memory64: m.memory64,
                        shared: m.shared,
                        page_size_log2: m.page_size_log2,
                    });
                }
                section.memory(profile);
                section.append_to(out);
                memory_written = true;
            }
            wasmparser::Payload::ExportSection(reader) => {
                let mut section = wasm_encoder::ExportSection::new();
                for export in reader.clone() {
                    let e = export.map_err(invalid)?;
                    section.export(e.name, export_kind(e.kind), e.index);
                }
                section.export(PROFILE_MEMORY, wasm_encoder::ExportKind::Memory, memories);
                section.append_to(out);
            }
            wasmparser::Payload::CodeSectionStart { .. } => {
                let mut section = wasm_encoder::CodeSection::new();
                for (i, body) in parsed.bodies.iter().enumerate() {
                    let at = u32::try_from(4 * (i + 1)).map_err(invalid)?;
                    let range = body.range();
                    let code = body
                        .get_operators_reader()
                        .map_err(invalid)?
                        .original_position();
                    let mut f = bytes
                        .get(range.start..code)
                        .ok_or("truncated locals")?
                        .to_vec();
                    note_first_run(&mut f, at, memories);
                    f.extend_from_slice(bytes.get(code..range.end).ok_or("truncated body")?);
                    section.raw(&f);
                }
                section.append_to(out);
            }
            wasmparser::Payload::CodeSectionEntry(_) => {}
            _ => return Ok(false),
        }
        Ok(true)
    })
}

/// A module rewritten section by section: `section` writes what it rewrites of each payload into the output and says
/// whether it did; every other section is copied as it is (the header always). What the layout, the profiler and the
/// build's export filter share.
pub fn rewrite(
    bytes: &[u8],
    mut section: impl FnMut(&wasmparser::Payload<'_>, &mut Vec<u8>) -> Result<bool, String>,
) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(bytes.len());
    for payload in wasmparser::Parser::new(0).parse_all(bytes) {
        let payload = payload.map_err(invalid)?;
        if let wasmparser::Payload::Version { range, .. } = &payload {
            out.extend_from_slice(bytes.get(range.clone()).ok_or("truncated header")?);
            continue;
        }
        if section(&payload, &mut out)? {
            continue;
        }
        if let Some((id, range)) = payload.as_section() {
            let data = bytes
                .get(range)
                .ok_or("a section runs past the end of the module")?;
            wasm_encoder::RawSection { id, data }.append_to(&mut out);
        }
    }
    Ok(out)
}

/// wasmparser's kind of export as wasm-encoder writes it.
pub fn export_kind(kind: wasmparser::ExternalKind) -> wasm_encoder::ExportKind {
    match kind {
        wasmparser::ExternalKind::Func => wasm_encoder::ExportKind::Func,
        wasmparser::ExternalKind::Table => wasm_encoder::ExportKind::Table,
        wasmparser::ExternalKind::Memory => wasm_encoder::ExportKind::Memory,
        wasmparser::ExternalKind::Global => wasm_encoder::ExportKind::Global,
        wasmparser::ExternalKind::Tag => wasm_encoder::ExportKind::Tag,
    }
}

/// `if mem[at] == 0 { mem[0] += 1; mem[at] = mem[0] }`, on memory `memory`.
fn note_first_run(f: &mut Vec<u8>, at: u32, memory: u32) {
    use wasm_encoder::{Encode as _, Instruction as I, MemArg};
    let word = MemArg {
        offset: 0,
        align: 2,
        target: wasm_encoder::MemArgTarget::Memory(memory),
        ordering: None,
    };
    let at = at.cast_signed();
    for i in [
        I::I32Const(at),
        I::I32Load(word),
        I::I32Eqz,
        I::If(wasm_encoder::BlockType::Empty),
        I::I32Const(0),
        I::I32Const(0),
        I::I32Load(word),
        I::I32Const(1),
        I::I32Add,
        I::I32Store(word),
        I::I32Const(at),
        I::I32Const(0),
        I::I32Load(word),
        I::I32Store(word),
        I::End,
    ] {
        i.encode(f);
    }
}

/// The names of the functions an [`instrumented`] module ran (`profile`: its [`PROFILE_MEMORY`]), in the order they
/// first ran, as [`profile_key`]s; `bytes` is the module before instrumenting (its names).
pub fn first_runs(bytes: &[u8], profile: &[u8]) -> Result<Vec<String>, String> {
    let parsed = parse(bytes)?;
    let mut ran: Vec<(u32, u32)> = (0..parsed.bodies.len())
        .filter_map(|i| {
            let word = profile.get(4 * (i + 1)..4 * (i + 2))?;
            let when = u32::from_le_bytes(word.try_into().ok()?);
            let f = u32::try_from(i).ok()? + parsed.imported;
            (when > 0).then_some((when, f))
        })
        .collect();
    ran.sort_unstable();
    let mut seen = std::collections::HashSet::new();
    Ok(ran
        .into_iter()
        .filter_map(|(_, f)| parsed.names.get(&f).map(|n| profile_key(n).to_owned()))
        .filter(|k| seen.insert(k.clone()))
        .collect())
}
