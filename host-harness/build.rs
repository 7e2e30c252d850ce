//! Builds the shipped wasm artifacts, so that `cargo build --release -p palisade-harness` (and
//! `cargo test`) leave them at the fixed paths of DESIGN.md ("Artifacts"):
//!
//! ```text
//! target/wasm/palisade.wasm              package `palisade`, feature `c-abi`
//! target/wasm/palisade-kubewarden.wasm   package `palisade`, feature `kubewarden`, io.kubewarden.metadata embedded
//! target/wasm/floor-scan.wasm            bench floors (host-harness/floors, features `scan` / `dom`)
//! target/wasm/floor-dom.wasm
//! ```
//!
//! The inner cargo runs with its own `CARGO_TARGET_DIR=<workspace>/target/wasm-build` (a nested
//! cargo on the outer target dir would wait forever on its lock) and without the `CARGO_*` /
//! `RUSTFLAGS` variables the outer build leaks. `wasm-opt -Oz` runs afterwards when it is on PATH.
//! Set `PALISADE_SKIP_WASM_BUILD=1` to skip all of this (the artifacts already there are kept).

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const WASM_TARGET: &str = "wasm32-unknown-unknown";
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
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR unset")?);
    let workspace = manifest_dir
        .parent()
        .ok_or("host-harness has no parent directory")?
        .to_path_buf();

    println!("cargo::rerun-if-env-changed=PALISADE_SKIP_WASM_BUILD");
    println!("cargo::rerun-if-env-changed=PATH");
    for watched in [
        workspace.join("crate"),
        workspace.join("crates"),
        workspace.join("Cargo.toml"),
        workspace.join("Cargo.lock"),
        manifest_dir.join("floors/src"),
        manifest_dir.join("floors/Cargo.toml"),
        manifest_dir.join("src/annotate.rs"),
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
        println!("cargo::warning=PALISADE_SKIP_WASM_BUILD is set: the wasm artifacts in target/wasm were not rebuilt");
        return Ok(());
    }

    let out_dir = workspace.join("target/wasm");
    let build_dir = workspace.join("target/wasm-build");
    fs::create_dir_all(&out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;

    let inner = Inner::new(build_dir.clone())?;
    let built = build_dir.join(WASM_TARGET).join("wasm");

    // 1. The C ABI module.
    inner.build(&workspace.join("Cargo.toml"), &["-p", "palisade", "--lib", "--features", "c-abi"])?;
    install(&built.join("palisade.wasm"), &out_dir.join("palisade.wasm"))?;

    // 2. The Kubewarden waPC module, annotated with metadata.yml.
    inner.build(&workspace.join("Cargo.toml"), &["-p", "palisade", "--lib", "--features", "kubewarden"])?;
    let kubewarden = out_dir.join("palisade-kubewarden.wasm");
    install(&built.join("palisade.wasm"), &kubewarden)?;
    annotate_kubewarden(&kubewarden, &metadata)?;

    // 3. The bench floors (their own workspace: host-harness/floors).
    let floors = manifest_dir.join("floors/Cargo.toml");
    for floor in ["scan", "dom"] {
        inner.build(&floors, &["--lib", "--features", floor])?;
        install(
            &built.join("palisade_bench_floors.wasm"),
            &out_dir.join(format!("floor-{floor}.wasm")),
        )?;
    }
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

#[path = "build/annotate_hook.rs"]
mod annotate_hook;

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
                    "TARGET" | "HOST" | "OUT_DIR" | "OPT_LEVEL" | "PROFILE" | "DEBUG" | "NUM_JOBS" | "MAKEFLAGS" | "MFLAGS"
                )
        };
        let env = env::vars_os()
            .filter(|(k, _)| !k.to_str().is_some_and(strip))
            .collect();
        Ok(Self { cargo, target_dir, env })
    }

    fn build(&self, manifest: &Path, args: &[&str]) -> Result<(), String> {
        let mut cmd = Command::new(&self.cargo);
        cmd.env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("CARGO_TARGET_DIR", &self.target_dir)
            .arg("build")
            .arg("--manifest-path")
            .arg(manifest)
            .args(["--target", WASM_TARGET, "--profile", "wasm"])
            .args(args);
        let what = format!("cargo build {} ({})", args.join(" "), manifest.display());
        let output = cmd.output().map_err(|e| format!("cannot run {}: {e}", self.cargo.display()))?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut message = format!("building the wasm artifacts failed: {what}");
        if stderr.contains("may not be installed") || stderr.contains("can't find crate for `core`") {
            message.push_str(&format!("\nthe wasm target is missing: run `{TARGET_HINT}`"));
        }
        for line in stderr.lines().filter(|l| !l.trim().is_empty()) {
            message.push('\n');
            message.push_str(line);
        }
        Err(message)
    }
}

/// Copies a built module into target/wasm, through `wasm-opt -Oz` when it is on PATH.
fn install(from: &Path, to: &Path) -> Result<(), String> {
    if !from.exists() {
        return Err(format!("the inner build left no {}", from.display()));
    }
    if let Some(wasm_opt) = find_on_path("wasm-opt") {
        let status = Command::new(wasm_opt)
            .arg("-Oz")
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
            Ok(s) => println!("cargo::warning=wasm-opt failed ({s}) on {}: installed unoptimized", from.display()),
            Err(e) => println!("cargo::warning=cannot run wasm-opt: {e}: installed unoptimized"),
        }
    }
    fs::copy(from, to).map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))?;
    Ok(())
}

fn find_on_path(tool: &str) -> Option<PathBuf> {
    let path = env::var_os("PATH")?;
    env::split_paths(&path).map(|dir| dir.join(tool)).find(|p| p.is_file())
}
