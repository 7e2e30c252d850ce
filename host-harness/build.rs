//! Builds the shipped wasm artifacts, so that `cargo build --release -p palisade-harness` (and
//! `cargo test`) leave them at the fixed paths of docs/architecture.md ("Artifacts"):
//!
//! ```text
//! target/wasm/palisade.wasm              package `palisade`, feature `c-abi`
//! target/wasm/palisade-kubewarden.wasm   package `palisade`, feature `kubewarden`, io.kubewarden.metadata embedded
//! target/wasm/floor-scan.wasm            bench floors (host-harness/floors, features `scan` / `dom`)
//! target/wasm/floor-dom.wasm
//! target/wasm/floor-wapc.wasm            waPC bench floor (host-harness/floors/wapc-floor)
//! target/wasm/web/palisade.js            package `palisade`, feature `web`, through wasm-bindgen (target `web`):
//! target/wasm/web/palisade_bg.wasm       the browser module and its glue (the playground loads them)
//! target/wasm/palisade-wasi.wasm         package `palisade`, bin `palisade-wasi`, feature `wasi` (wasm32-wasip1)
//! target/wasm/floor-wasi.wasm            the WASI bench floor (host-harness/floors, bin `wasi-floor`, feature `scan`)
//! ```
//!
//! The inner cargo runs with its own `CARGO_TARGET_DIR=<workspace>/target/wasm-build` (a nested
//! cargo on the outer target dir would wait forever on its lock) and without the `CARGO_*` /
//! `RUSTFLAGS` variables the outer build leaks. `wasm-opt -Oz --converge` runs afterwards when it is on PATH. The two
//! engine modules are then laid out with the functions a request runs first (`src/layout.rs`, by the profile in
//! `build/hot-functions.txt`); their copies with function names stay in `target/wasm-build/*.named.wasm`.
//! Set `PALISADE_SKIP_WASM_BUILD=1` to skip all of this (the artifacts already there are kept).

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const WASM_TARGET: &str = "wasm32-unknown-unknown";
/// The target of the WASI command.
const WASI_TARGET: &str = "wasm32-wasip1";
const TARGET_HINT: &str = "rustup target add wasm32-unknown-unknown wasm32-wasip1";

fn main() {
    if let Err(message) = run() {
        // One line per problem, so cargo shows the whole story.
        for line in message.lines() {
            println!("cargo::error={line}");
        }
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR unset")?);
    let workspace = manifest_dir
        .parent()
        .ok_or("host-harness has no parent directory")?
        .to_path_buf();

    println!("cargo::rerun-if-env-changed=PALISADE_SKIP_WASM_BUILD");
    println!("cargo::rerun-if-env-changed=PATH");
    for watched in [
        workspace.join("crate"),
        workspace.join("crates"),
        workspace.join("vendor"),
        workspace.join("Cargo.toml"),
        workspace.join("Cargo.lock"),
        manifest_dir.join("floors/src"),
        manifest_dir.join("floors/Cargo.toml"),
        manifest_dir.join("floors/wapc-floor/src"),
        manifest_dir.join("floors/wapc-floor/Cargo.toml"),
        manifest_dir.join("src/annotate.rs"),
        manifest_dir.join("src/layout.rs"),
        manifest_dir.join("build/hot-functions.txt"),
    ] {
        if watched.exists() {
            println!("cargo::rerun-if-changed={}", watched.display());
        }
    }
    let metadata = workspace.join("policies/kubewarden/metadata.yml");
    if metadata.exists() {
        println!("cargo::rerun-if-changed={}", metadata.display());
    } else {
        // Rerun when it appears.
        let policies = workspace.join("policies");
        if policies.exists() {
            println!("cargo::rerun-if-changed={}", policies.display());
        }
    }

    if env::var_os("PALISADE_SKIP_WASM_BUILD").is_some_and(|v| v != "0" && !v.is_empty()) {
        println!(
            "cargo::warning=PALISADE_SKIP_WASM_BUILD is set: the wasm artifacts in target/wasm were not rebuilt"
        );
        return Ok(());
    }

    let out_dir = workspace.join("target/wasm");
    let build_dir = workspace.join("target/wasm-build");
    fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;

    check_wasm_target()?;
    let inner = Inner::new(build_dir.clone())?;
    let built = build_dir.join(WASM_TARGET).join("wasm");
    // The layout profile of the two engine modules (src/layout.rs), read from this checkout (build/layout_hook.rs).
    let profile = manifest_dir.join("build/hot-functions.txt");

    // 1. The C ABI module.
    inner.build(
        &workspace.join("Cargo.toml"),
        &["-p", "palisade", "--lib", "--features", "c-abi"],
    )?;
    install_laid_out(
        &built.join("palisade.wasm"),
        &out_dir.join("palisade.wasm"),
        &build_dir.join("palisade.named.wasm"),
        &profile,
    )?;
    keep_only_exports(&out_dir.join("palisade.wasm"), &C_ABI_EXPORTS)?;

    // 2. The Kubewarden waPC module, annotated with metadata.yml.
    inner.build(
        &workspace.join("Cargo.toml"),
        &["-p", "palisade", "--lib", "--features", "kubewarden"],
    )?;
    let kubewarden = out_dir.join("palisade-kubewarden.wasm");
    install_laid_out(
        &built.join("palisade.wasm"),
        &kubewarden,
        &build_dir.join("palisade-kubewarden.named.wasm"),
        &profile,
    )?;
    annotate_kubewarden(&kubewarden, &metadata)?;

    // 3. The bench floors (their own workspace: host-harness/floors).
    let floors = manifest_dir.join("floors/Cargo.toml");
    for floor in ["scan", "dom"] {
        inner.build(&floors, &["--lib", "--features", floor])?;
        install(
            &built.join("palisade_bench_floors.wasm"),
            &out_dir.join(format!("floor-{floor}.wasm")),
        )?;
        keep_only_exports(&out_dir.join(format!("floor-{floor}.wasm")), &C_ABI_EXPORTS)?;
    }

    // 3b. The browser module: the `web` feature build, through wasm-bindgen (target `web`), then wasm-opt. A separate
    // feature build, so that palisade.wasm keeps zero imports.
    inner.build(
        &workspace.join("Cargo.toml"),
        &["-p", "palisade", "--lib", "--features", "web"],
    )?;
    bindgen_web(&built.join("palisade.wasm"), &out_dir.join("web"))?;

    // 4. The waPC floor of `palisade bench --kubewarden` (host-harness/floors/wapc-floor).
    let wapc_floor = manifest_dir.join("floors/wapc-floor/Cargo.toml");
    if wapc_floor.exists() {
        inner.build(&wapc_floor, &["--lib"])?;
        install(
            &built.join("palisade_wapc_floor.wasm"),
            &out_dir.join("floor-wapc.wasm"),
        )?;
    }

    // 5. The WASI command (`palisade-wasi validate < review.json`).
    inner.build_for(
        WASI_TARGET,
        &workspace.join("Cargo.toml"),
        &[
            "-p",
            "palisade",
            "--bin",
            "palisade-wasi",
            "--features",
            "wasi",
        ],
    )?;
    install(
        &build_dir
            .join(WASI_TARGET)
            .join("wasm")
            .join("palisade-wasi.wasm"),
        &out_dir.join("palisade-wasi.wasm"),
    )?;
    keep_only_exports(&out_dir.join("palisade-wasi.wasm"), &WASI_EXPORTS)?;

    // 6. The WASI floor of `palisade bench --wasi`: the scan floor as a WASI command.
    inner.build_for(
        WASI_TARGET,
        &floors,
        &["--bin", "wasi-floor", "--features", "scan"],
    )?;
    install(
        &build_dir
            .join(WASI_TARGET)
            .join("wasm")
            .join("wasi-floor.wasm"),
        &out_dir.join("floor-wasi.wasm"),
    )?;
    // the library's C ABI functions, linked in, are not the command's
    keep_only_exports(&out_dir.join("floor-wasi.wasm"), &WASI_EXPORTS)?;
    Ok(())
}

/// Embeds `metadata.yml` as the `io.kubewarden.metadata` custom section, as `kwctl annotate` does.
///
/// HOOK for the Kubewarden side: `src/annotate.rs` (owned by the Kubewarden work) is compiled
/// into this build script when it exists, through `annotate_hook.rs`; until then the module is
/// left unannotated and a warning says so.
fn annotate_kubewarden(module: &Path, metadata: &Path) -> Result<(), String> {
    if !metadata.exists() {
        println!(
            "cargo::warning=policies/kubewarden/metadata.yml is missing: palisade-kubewarden.wasm is not annotated (policy-server will refuse it)"
        );
        return Ok(());
    }
    annotate_hook::annotate_file(module, metadata)
}

/// wasm-bindgen (`wasm-bindgen-cli-support`, the same version as the `wasm-bindgen` crate) with `--target web`:
/// `palisade.js` and `palisade_bg.wasm` in `out`. `wasm-opt -Oz` (when on PATH) runs on the module before
/// wasm-bindgen: run after it, Debian's binaryen turns wasm-bindgen's externref table into a funcref one, which the
/// glue cannot initialize.
fn bindgen_web(module: &Path, out: &Path) -> Result<(), String> {
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let optimized = out.join("palisade_web.opt.wasm");
    install(module, &optimized)?;
    let mut bindgen = wasm_bindgen_cli_support::Bindgen::new();
    let result = bindgen
        .input_path(&optimized)
        .web(true)
        .map_err(|e| format!("wasm-bindgen: {e}"))?
        .typescript(false)
        .out_name("palisade")
        .generate(out)
        .map_err(|e| format!("wasm-bindgen on {}: {e:#}", module.display()));
    fs::remove_file(&optimized)
        .map_err(|e| format!("cannot remove {}: {e}", optimized.display()))?;
    result
}

#[path = "build/annotate_hook.rs"]
mod annotate_hook;

#[path = "build/layout_hook.rs"]
mod layout_hook;

struct Inner {
    cargo: PathBuf,
    target_dir: PathBuf,
    env: Vec<(OsString, OsString)>,
}

impl Inner {
    fn new(target_dir: PathBuf) -> Result<Self, String> {
        let cargo = env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from);
        // Everything the outer cargo set for this build script must not reach the inner cargo:
        // CARGO_* (incl. CARGO_ENCODED_RUSTFLAGS, CARGO_MAKEFLAGS, CARGO_TARGET_DIR, CARGO_BUILD_*),
        // RUSTFLAGS/RUSTC/RUSTDOC wrappers, and the build-script variables.
        let strip = |k: &str| {
            (k.starts_with("CARGO_") && k != "CARGO_HOME")
                || k == "CARGO"
                || k.starts_with("RUSTC")
                || k.starts_with("RUSTDOC")
                || k == "RUSTFLAGS"
                || matches!(
                    k,
                    "TARGET"
                        | "HOST"
                        | "OUT_DIR"
                        | "OPT_LEVEL"
                        | "PROFILE"
                        | "DEBUG"
                        | "NUM_JOBS"
                        | "MAKEFLAGS"
                        | "MFLAGS"
                )
        };
        let env = env::vars_os()
            .filter(|(k, _)| !k.to_str().is_some_and(strip))
            .collect();
        Ok(Self {
            cargo,
            target_dir,
            env,
        })
    }

    fn build(&self, manifest: &Path, args: &[&str]) -> Result<(), String> {
        self.build_for(WASM_TARGET, manifest, args)
    }

    fn build_for(&self, target: &str, manifest: &Path, args: &[&str]) -> Result<(), String> {
        let mut cmd = Command::new(&self.cargo);
        cmd.env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("CARGO_TARGET_DIR", &self.target_dir)
            .arg("build")
            .arg("--manifest-path")
            .arg(manifest)
            .args(["--target", target, "--profile", "wasm"])
            .args(args);
        let what = format!("cargo build {} ({})", args.join(" "), manifest.display());
        let output = cmd
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.cargo.display()))?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut message = format!("building the wasm artifacts failed: {what}");
        if stderr.contains("may not be installed") || stderr.contains("can't find crate for `core`")
        {
            message.push_str(&format!(
                "\nthe wasm target is missing: run `{TARGET_HINT}`"
            ));
        }
        for line in stderr.lines().filter(|l| !l.trim().is_empty()) {
            message.push('\n');
            message.push_str(line);
        }
        Err(message)
    }
}

/// Makes sure the toolchain has the wasm32-unknown-unknown and wasm32-wasip1 standard libraries. rustup does not add a toolchain file's
/// `targets` to a toolchain that is already installed, so on a fresh machine they are added here, through rustup, for
/// the toolchain this build runs with; without rustup, the build stops with the command that fixes it.
fn check_wasm_target() -> Result<(), String> {
    if has_wasm_target().is_ok() {
        return Ok(());
    }
    let mut rustup = Command::new("rustup");
    rustup.args(["target", "add", WASM_TARGET, WASI_TARGET]);
    if let Some(toolchain) = env::var_os("RUSTUP_TOOLCHAIN") {
        rustup.arg("--toolchain").arg(toolchain);
    }
    match rustup.output() {
        Ok(out) if out.status.success() => {
            println!("cargo::warning=added the wasm targets to this toolchain (`{TARGET_HINT}`)");
        }
        Ok(out) => println!(
            "cargo::warning=`{TARGET_HINT}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => println!("cargo::warning=cannot run rustup to add the wasm targets: {e}"),
    }
    has_wasm_target()
}

/// Fails, with the fix, when the toolchain lacks the wasm32-unknown-unknown or the wasm32-wasip1 standard library.
fn has_wasm_target() -> Result<(), String> {
    let rustc = env::var_os("RUSTC").map_or_else(|| PathBuf::from("rustc"), PathBuf::from);
    for target in [WASM_TARGET, WASI_TARGET] {
        let output = Command::new(&rustc)
            .args(["--print", "target-libdir", "--target", target])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", rustc.display()))?;
        let libdir = String::from_utf8_lossy(&output.stdout).trim().to_string();
        let has_core = fs::read_dir(&libdir).is_ok_and(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| e.file_name().to_string_lossy().starts_with("libcore-"))
        });
        if !(output.status.success() && has_core) {
            return Err(format!(
                "the {target} target is not installed for this toolchain: run `{TARGET_HINT}`"
            ));
        }
    }
    Ok(())
}

/// [`install`] with the function names kept (a copy at `named`, what `examples/layout_profile.rs` profiles), then the
/// functions a request runs moved first and the names dropped (`src/layout.rs`).
fn install_laid_out(from: &Path, to: &Path, named: &Path, profile: &Path) -> Result<(), String> {
    install_with(from, to, true)?;
    fs::copy(to, named)
        .map_err(|e| format!("cannot copy {} to {}: {e}", to.display(), named.display()))?;
    layout_hook::hot_first_file(to, profile)
}

/// Copies a built module into target/wasm, through `wasm-opt -Oz --converge` when it is on PATH.
fn install(from: &Path, to: &Path) -> Result<(), String> {
    install_with(from, to, false)
}

/// [`install`]; `names` keeps the function names through `wasm-opt` (`-g`: the same code, a name section).
fn install_with(from: &Path, to: &Path, names: bool) -> Result<(), String> {
    if !from.exists() {
        return Err(format!("the inner build left no {}", from.display()));
    }
    if let Some(wasm_opt) = find_on_path("wasm-opt") {
        let status = Command::new(wasm_opt)
            // `--converge` runs the passes again until the module stops shrinking: palisade.wasm ~1 KB gzip smaller.
            // A function with one caller is inlined into it only when it is small (binaryen inlines every one by
            // default): the evaluator's arms and builtin dispatch, the review's readers and the policy loop stay
            // functions of their own, not one 73 KB `eval`. Same wasm instructions per request; wasmtime compiles the
            // smaller functions better: pod-baseline 7-8 % faster reused, side by side (December 2026).
            .args([
                "-Oz",
                "--converge",
                "--one-caller-inline-max-function-size",
                "1000",
            ])
            .args(names.then_some("-g"))
            .args([
                "--enable-bulk-memory",
                "--enable-sign-ext",
                "--enable-mutable-globals",
                "--enable-nontrapping-float-to-int",
                "--enable-reference-types",
                "--enable-multivalue",
            ])
            .arg(from)
            .arg("-o")
            .arg(to)
            .status();
        match status {
            Ok(s) if s.success() => return Ok(()),
            Ok(s) => println!(
                "cargo::warning=wasm-opt failed ({s}) on {}: installed unoptimized",
                from.display()
            ),
            Err(e) => println!("cargo::warning=cannot run wasm-opt: {e}: installed unoptimized"),
        }
    }
    fs::copy(from, to)
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    Ok(())
}

fn find_on_path(tool: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

/// The exports of the C ABI (docs/architecture.md, "The C ABI"), and nothing else: rustc's wasm linker
/// also exports the globals `__data_end` and `__heap_base`, which the contract does not list.
const C_ABI_EXPORTS: [&str; 5] = [
    "memory",
    "palisade_alloc",
    "palisade_free",
    "configure",
    "validate",
];

/// The exports of the WASI command as rustc links it: what a WASI host runs, and nothing of bake's.
const WASI_EXPORTS: [&str; 3] = ["memory", "_start", "__main_void"];

/// Functions the shipped modules do not export (the C ABI is exactly [`C_ABI_EXPORTS`], the WASI command
/// [`WASI_EXPORTS`]) but `palisade bake` calls on the copy it runs: their indices are kept in the custom section
/// [`TOOL_EXPORTS_SECTION`] as `name=index` lines (host-harness/src/bake/mod.rs reads it).
const TOOL_EXPORTS: [&str; 3] = ["palisade_seal", "palisade_bake_alloc", "palisade_bake"];
const TOOL_EXPORTS_SECTION: &str = "palisade.tool-exports";

fn keep_only_exports(path: &Path, keep: &[&str]) -> Result<(), String> {
    let bytes = fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let rewritten = filter_exports(&bytes, keep).map_err(|e| format!("{}: {e}", path.display()))?;
    fs::write(path, rewritten).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Rewrites the export section of a module, keeping the exports named in `keep`, and drops the `producers` and
/// `target_features` custom sections; every other section is copied byte for byte, in order. The functions of [`TOOL_EXPORTS`] it leaves out are listed in [`TOOL_EXPORTS_SECTION`].
fn filter_exports(bytes: &[u8], keep: &[&str]) -> Result<Vec<u8>, String> {
    use wasm_encoder::Section as _;
    let mut tools = String::new();
    let mut out = layout_hook::rewrite(bytes, |payload, out| {
        // the toolchain's records, which no host reads: dropped (~150 B gzip of palisade.wasm; wasm-opt's own
        // `--strip-producers` re-encodes the module, 1.5 KB larger)
        if let wasmparser::Payload::CustomSection(custom) = &payload
            && matches!(custom.name(), "producers" | "target_features")
        {
            return Ok(true);
        }
        let wasmparser::Payload::ExportSection(exports) = payload else {
            return Ok(false);
        };
        let mut kept = wasm_encoder::ExportSection::new();
        for export in exports.clone() {
            let export = export.map_err(|e| format!("unreadable export: {e}"))?;
            if !keep.contains(&export.name) {
                if TOOL_EXPORTS.contains(&export.name)
                    && export.kind == wasmparser::ExternalKind::Func
                {
                    tools.push_str(&format!("{}={}\n", export.name, export.index));
                }
                continue;
            }
            kept.export(
                export.name,
                layout_hook::export_kind(export.kind),
                export.index,
            );
        }
        kept.append_to(out);
        Ok(true)
    })?;
    if !tools.is_empty() {
        wasm_encoder::CustomSection {
            name: TOOL_EXPORTS_SECTION.into(),
            data: tools.into_bytes().into(),
        }
        .append_to(&mut out);
    }
    Ok(out)
}
