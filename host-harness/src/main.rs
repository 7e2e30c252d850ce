//! `palisade`: replays AdmissionReviews against the built `palisade.wasm` in wasmtime, checks
//! case files, compiles bundles, benchmarks, and scaffolds reviews (docs/architecture.md, "The harness CLI").

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand, ValueEnum};
use serde_json::Value;

use palisade_harness::backend::Backend;
use palisade_harness::host::{CAbiBackend, DEFAULT_DEADLINE, Runtime, WasmHost, bundle_bytes};
use palisade_harness::kubewarden::{self, KubewardenBackend};
use palisade_harness::wasi::WasiBackend;
use palisade_harness::{artifacts, bake, bench, documents, replay, runner, scaffold};

/// `print!` that ends the program quietly when the reader has gone away (`palisade eval … | head`), as Unix tools do,
/// instead of panicking on the closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        if let Err(e) = write!(stdout, $($arg)*).and_then(|()| stdout.flush()) {
            exit_on_closed_pipe(&e);
        }
    }};
}

/// `println!` with [`out!`]'s handling of a closed pipe.
macro_rules! outln {
    () => { out!("\n") };
    ($($arg:tt)*) => {{
        out!($($arg)*);
        out!("\n");
    }};
}

/// A closed stdout ends the program with success; any other write error is reported once.
fn exit_on_closed_pipe(e: &std::io::Error) {
    if e.kind() != std::io::ErrorKind::BrokenPipe {
        eprintln!("error: cannot write to stdout: {e}");
    }
    std::process::exit(if e.kind() == std::io::ErrorKind::BrokenPipe {
        0
    } else {
        2
    });
}

#[derive(Parser)]
#[command(
    name = "palisade",
    version,
    about = "Run Palisade's wasm modules: case files, reviews, bundles, benchmarks"
)]
struct Cli {
    /// The C ABI module to load (default: target/wasm/palisade.wasm next to this binary,
    /// or $PALISADE_WASM_DIR/palisade.wasm)
    #[arg(long, global = true, value_name = "WASM")]
    module: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

/// How `eval --explain` prints the trace.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ExplainFormat {
    Json,
    Text,
}

#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Junit,
}

#[derive(Subcommand)]
enum Command {
    /// Run case files (directories are searched recursively); exit non-zero on any failure
    Test {
        /// Case files or directories (default: tests/cases)
        paths: Vec<PathBuf>,
        /// Rewrite the `expect` block of each failing case with what was observed
        #[arg(long)]
        bless: bool,
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
        /// Drive palisade-kubewarden.wasm through the waPC host instead
        #[arg(long, conflicts_with = "wasi")]
        kubewarden: bool,
        /// Run palisade-wasi.wasm, the WASI command, instead (`validate -p BUNDLE < REVIEW` per case)
        #[arg(long)]
        wasi: bool,
    },
    /// Print the AdmissionReview answers to recorded reviews
    Eval {
        /// The policy bundle (JSON or YAML, bundle document or stream of policies)
        #[arg(short = 'p', long = "policy", value_name = "BUNDLE")]
        bundle: PathBuf,
        /// AdmissionReview files (JSON or YAML)
        #[arg(required = true)]
        reviews: Vec<PathBuf>,
        /// A context file (namespaces, authorizations)
        #[arg(long)]
        context: Option<PathBuf>,
        #[arg(long, conflicts_with = "wasi")]
        kubewarden: bool,
        /// Run palisade-wasi.wasm, the WASI command, instead
        #[arg(long, conflicts_with = "replay_host_capabilities_interactions")]
        wasi: bool,
        /// Answer the host capabilities from a session recorded by `kwctl run
        /// --record-host-capabilities-interactions FILE`, as `kwctl run --replay-host-capabilities-interactions FILE`
        /// does (with --kubewarden; instead of --context)
        #[arg(
            long,
            value_name = "FILE",
            requires = "kubewarden",
            conflicts_with = "context"
        )]
        replay_host_capabilities_interactions: Option<PathBuf>,
        /// Also print how each answer came about: every policy and binding, whether it matched and why not, every
        /// expression's value and CEL cost (computed natively through the library; the answer is the module's).
        /// `--explain` and `--explain=json` print it as JSON, `--explain=text` as a tree to read
        #[arg(
            long,
            value_enum,
            value_name = "FORMAT",
            num_args = 0..=1,
            require_equals = true,
            default_missing_value = "json"
        )]
        explain: Option<ExplainFormat>,
    },
    /// Serve the browser playground (built by `npm run build:playground`) on localhost
    Play {
        /// The port (0: any free port)
        #[arg(long, default_value_t = 8080)]
        port: u16,
        /// The built page (default: target/playground)
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Compile a bundle and print every problem
    Check {
        bundle: PathBuf,
        #[arg(long)]
        kubewarden: bool,
    },
    /// Latency percentiles and throughput in wasmtime, next to the scan and DOM floors
    Bench {
        #[arg(short = 'p', long = "policy", value_name = "BUNDLE")]
        bundle: PathBuf,
        #[arg(required = true)]
        reviews: Vec<PathBuf>,
        #[arg(long)]
        context: Option<PathBuf>,
        /// Measured rounds (each round runs every module on every review, interleaved)
        #[arg(long, default_value_t = 300)]
        iterations: usize,
        #[arg(long, default_value_t = 30)]
        warmup: usize,
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
        #[arg(long, conflicts_with = "wasi")]
        kubewarden: bool,
        /// Measure fresh runs of palisade-wasi.wasm, the WASI command, as shipped (reading the bundle's file) and baked
        /// with the bundle, instead
        #[arg(long)]
        wasi: bool,
        /// Also measure fresh instances of the baked module and of the floor from wasmtime's pooling allocator, as a
        /// server making an instance per request would configure it, beside the same modules allocated on demand
        #[arg(long, conflicts_with = "wasi")]
        pooling: bool,
        /// Fail when this run is slower than a run saved with `--format json`: every ratio to the floor is compared
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// How much slower than the baseline a ratio may be, in percent
        #[arg(
            long,
            value_name = "PCT",
            default_value_t = 10.0,
            requires = "baseline"
        )]
        max_regression: f64,
    },
    /// Pre-compile a bundle into a module: a fresh instance of OUT answers `validate` without `configure` (with
    /// --kubewarden: without compiling its settings, when a call sends the baked ones; with --wasi: without a bundle
    /// file)
    Bake {
        #[arg(short = 'p', long = "policy", value_name = "BUNDLE")]
        bundle: PathBuf,
        /// Bake palisade-kubewarden.wasm (default: palisade.wasm; --module picks another)
        #[arg(long, conflicts_with = "wasi")]
        kubewarden: bool,
        /// Bake palisade-wasi.wasm, the WASI command: `validate` and `explain` then need no `-p` and no directory
        #[arg(long)]
        wasi: bool,
        /// Where to write the baked module
        #[arg(short = 'o', long, value_name = "OUT.wasm")]
        output: PathBuf,
    },
    /// Embed metadata.yml into a waPC module as the io.kubewarden.metadata section, as `kwctl annotate` does
    Annotate {
        /// The waPC module to annotate
        wasm: PathBuf,
        /// The policy metadata (metadata.yml)
        #[arg(short = 'm', long)]
        metadata: PathBuf,
        /// A usage text (README) to embed as the io.kubewarden.policy.usage annotation
        #[arg(short = 'u', long)]
        usage: Option<PathBuf>,
        /// Where to write the annotated module (may be WASM itself)
        #[arg(short = 'o', long)]
        output: PathBuf,
    },
    /// Make inputs
    Scaffold {
        #[command(subcommand)]
        what: Scaffold,
    },
}

#[derive(Subcommand)]
enum Scaffold {
    /// An admission.k8s.io/v1 AdmissionReview for each object of a manifest
    Review {
        manifest: PathBuf,
        #[arg(long, default_value = "CREATE")]
        operation: String,
        /// The old object (UPDATE, DELETE)
        #[arg(long)]
        old: Option<PathBuf>,
        #[arg(long)]
        namespace: Option<String>,
        #[arg(long, default_value = "kubernetes-admin")]
        user: String,
        /// Groups of the user (repeatable; default system:masters, system:authenticated)
        #[arg(long = "group")]
        groups: Vec<String>,
        #[arg(long)]
        dry_run: bool,
        #[arg(long, default_value = "")]
        subresource: String,
    },
}

fn backend(module: Option<&Path>, kubewarden: bool, wasi: bool) -> Result<Box<dyn Backend>> {
    if wasi {
        let path = module.map_or_else(|| artifacts::artifact(artifacts::WASI), Path::to_path_buf);
        return Ok(Box::new(WasiBackend::load(&path)?));
    }
    if kubewarden {
        let path = module.map_or_else(
            || artifacts::artifact(artifacts::KUBEWARDEN),
            Path::to_path_buf,
        );
        return Ok(Box::new(KubewardenBackend::load(&path)?));
    }
    let path = module.map_or_else(|| artifacts::artifact(artifacts::C_ABI), Path::to_path_buf);
    Ok(Box::new(CAbiBackend::load(&path)?))
}

/// Review files: each path, or every AdmissionReview (JSON/YAML) of a directory, sorted, as recorded traffic to
/// replay.
fn review_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| anyhow::anyhow!("cannot read `{}`: {e}", path.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.extension()
                        .is_some_and(|x| x == "json" || x == "yaml" || x == "yml")
                })
                // only AdmissionReviews: a bundle or a context kept beside them is not traffic
                .filter(|p| {
                    documents::read_document(p)
                        .is_ok_and(|d| d.get("request").is_some() || d.get("review").is_some())
                })
                .collect();
            files.sort();
            if files.is_empty() {
                anyhow::bail!("no review files (.json, .yaml) in `{}`", path.display());
            }
            out.extend(files);
        } else {
            out.push(path.clone());
        }
    }
    Ok(out)
}

fn read_context(path: Option<&Path>) -> Result<Option<Value>> {
    path.map(documents::read_document).transpose()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let module = cli.module.as_deref();
    match cli.command {
        Command::Test {
            paths,
            bless,
            format,
            kubewarden,
            wasi,
        } => {
            let paths = if paths.is_empty() {
                vec![PathBuf::from("tests/cases")]
            } else {
                paths
            };
            let files = runner::discover(&paths)?;
            if files.is_empty() {
                anyhow::bail!(
                    "no case files under {}",
                    paths
                        .iter()
                        .map(|p| format!("`{}`", p.display()))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            let backend = backend(module, kubewarden, wasi)?;
            let report = runner::run_all(&files, backend.as_ref(), bless);
            let format = match format {
                FormatArg::Text => runner::Format::Text,
                FormatArg::Json => runner::Format::Json,
                FormatArg::Junit => runner::Format::Junit,
            };
            out!("{}", runner::render(&report, format));
            if format != runner::Format::Text {
                eprintln!("{}", report.summary());
            }
            Ok(if report.failed() == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Eval {
            bundle,
            reviews,
            context,
            kubewarden,
            wasi,
            replay_host_capabilities_interactions: replay,
            explain,
        } => {
            let bundle_value = documents::read_bundle(&bundle)?;
            let context = read_context(context.as_deref())?;
            let session = replay
                .as_deref()
                .map(replay::Session::load)
                .transpose()
                .map_err(anyhow::Error::msg)?
                .map(Arc::new);
            let backend: Box<dyn Backend> = match &session {
                Some(session) => {
                    let path = module.map_or_else(
                        || artifacts::artifact(artifacts::KUBEWARDEN),
                        Path::to_path_buf,
                    );
                    Box::new(KubewardenBackend::load(&path)?.replaying(Arc::clone(session)))
                }
                None => backend(module, kubewarden, wasi)?,
            };
            let rejected = backend.check(&bundle_value)?;
            if let Some(message) = &rejected {
                eprintln!(
                    "error: the bundle `{}` was rejected: {message}",
                    bundle.display()
                );
            }
            for path in &reviews {
                let review = documents::read_document(path)?;
                let answer =
                    backend.evaluate(&bundle_value, &review, context.as_ref(), DEFAULT_DEADLINE)?;
                if let Some(format) = explain {
                    let trace = explained(
                        &bundle_value,
                        &review,
                        context.as_ref(),
                        answer,
                        !kubewarden && session.is_none(),
                    )?;
                    match format {
                        ExplainFormat::Json => {
                            outln!("{}", serde_json::to_string_pretty(&trace)?);
                        }
                        ExplainFormat::Text => {
                            if reviews.len() > 1 {
                                outln!("{}:", path.display());
                            }
                            out!("{}", palisade::explain::to_text(&trace));
                        }
                    }
                } else {
                    outln!("{}", serde_json::to_string_pretty(&answer)?);
                }
            }
            let mut replay_failed = false;
            if let Some(session) = &session {
                // kwctl warns of what was recorded but not asked; a call the recording cannot answer fails the run.
                let leftovers = session.leftovers();
                if !leftovers.is_empty() {
                    eprintln!(
                        "warning: {} recorded exchange(s) of `{}` have not been replayed: {}",
                        leftovers.len(),
                        session.source().display(),
                        leftovers.join("; ")
                    );
                }
                for miss in session.misses() {
                    eprintln!(
                        "error: `{}` cannot answer a host call: {miss}",
                        session.source().display()
                    );
                    replay_failed = true;
                }
            }
            Ok(if rejected.is_some() || replay_failed {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Play { port, dir } => {
            let dir = dir.unwrap_or_else(palisade_harness::play::default_dir);
            if !dir.join("index.html").is_file() {
                anyhow::bail!(
                    "no playground at `{}`: build it with `npm ci && npm run build:playground`",
                    dir.display()
                );
            }
            let listener = palisade_harness::play::bind(port)?;
            outln!(
                "serving the playground ({}) at http://{}/",
                dir.display(),
                listener.local_addr()?
            );
            palisade_harness::play::serve(&listener, &dir)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check { bundle, kubewarden } => {
            let file = bundle.display().to_string();
            let text = std::fs::read_to_string(&bundle)
                .with_context(|| format!("cannot read `{file}`"))?;
            let source = match documents::BundleSource::parse(&text) {
                Ok(source) => source,
                Err(e) => return Ok(print_check(&palisade_harness::check::unreadable(&file, &e))),
            };
            let count = source
                .bundle
                .get("policies")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let answer = if kubewarden {
                // Kubewarden's settings validation answers with a message only
                let backend = backend(module, true, false)?;
                match backend.check(&source.bundle)? {
                    None => serde_json::json!({"valid": true}),
                    Some(message) => serde_json::json!({"valid": false, "message": message}),
                }
            } else {
                // Through the session directly, for the structured problems and warnings of `configure`.
                let path =
                    module.map_or_else(|| artifacts::artifact(artifacts::C_ABI), Path::to_path_buf);
                let host = WasmHost::load(&path)?;
                let mut session = host.instantiate()?;
                session.call_json(
                    palisade_harness::host::Entry::Configure,
                    &bundle_bytes(&source.bundle)?,
                )?
            };
            answer
                .get("valid")
                .and_then(Value::as_bool)
                .context("`configure` answered without `valid`")?;
            Ok(print_check(&palisade_harness::check::report(
                &file,
                Some(&source),
                &answer,
                count,
            )))
        }
        Command::Bench {
            bundle,
            reviews,
            context,
            iterations,
            warmup,
            format,
            kubewarden,
            wasi,
            pooling,
            baseline,
            max_regression,
        } => {
            let bundle_value = documents::read_bundle(&bundle)?;
            let context = read_context(context.as_deref())?;
            let opts = bench::Options {
                iterations,
                warmup,
                pooling,
            };
            let reviews = review_files(&reviews)?;
            let report = if kubewarden {
                let reviews: Vec<Value> = reviews
                    .iter()
                    .map(|p| documents::read_document(p))
                    .collect::<Result<_>>()?;
                let path = module.map_or_else(
                    || artifacts::artifact(artifacts::KUBEWARDEN),
                    Path::to_path_buf,
                );
                bench_kubewarden(&path, &bundle_value, &reviews, context.as_ref(), &opts)?
            } else if wasi {
                let path =
                    module.map_or_else(|| artifacts::artifact(artifacts::WASI), Path::to_path_buf);
                let inputs: Vec<Vec<u8>> = reviews
                    .iter()
                    .map(|p| bench::input_for(p, context.as_ref()))
                    .collect::<Result<_>>()?;
                let floor = artifacts::artifact(artifacts::FLOOR_WASI);
                palisade_harness::wasi::bench(&path, &floor, &bundle_value, &inputs, &opts)?
            } else {
                let path =
                    module.map_or_else(|| artifacts::artifact(artifacts::C_ABI), Path::to_path_buf);
                let scan = artifacts::artifact(artifacts::FLOOR_SCAN);
                let dom = artifacts::artifact(artifacts::FLOOR_DOM);
                let inputs: Vec<Vec<u8>> = reviews
                    .iter()
                    .map(|p| bench::input_for(p, context.as_ref()))
                    .collect::<Result<_>>()?;
                bench::run(&path, [&scan, &dom], &bundle_value, &inputs, &opts)?
            };
            match format {
                FormatArg::Json => out!("{}", bench::render_json(&report)),
                _ => out!("{}", bench::render_text(&report)),
            }
            if let Some(baseline) = baseline {
                let saved = documents::read_document(&baseline)?;
                let regressions = bench::regressions(&report, &saved, max_regression);
                if !regressions.is_empty() {
                    eprintln!(
                        "slower than the baseline `{}`:\n  {}",
                        baseline.display(),
                        regressions.join("\n  ")
                    );
                    return Ok(ExitCode::FAILURE);
                }
                eprintln!(
                    "within {max_regression}% of the baseline `{}`",
                    baseline.display()
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bake {
            bundle,
            kubewarden,
            wasi,
            output,
        } => {
            let (protocol, artifact) = if kubewarden {
                (bake::Protocol::Kubewarden, artifacts::KUBEWARDEN)
            } else if wasi {
                (bake::Protocol::Wasi, artifacts::WASI)
            } else {
                (bake::Protocol::CAbi, artifacts::C_ABI)
            };
            let source = module.map_or_else(|| artifacts::artifact(artifact), Path::to_path_buf);
            let wasm = std::fs::read(&source)
                .map_err(|e| anyhow::anyhow!("cannot read `{}`: {e}", source.display()))?;
            let bundle_json = bundle_bytes(&documents::read_bundle(&bundle)?)?;
            let baked = bake::bake(&wasm, protocol, &bundle_json)
                .map_err(|e| anyhow::anyhow!("cannot bake `{}`: {e}", bundle.display()))?;
            std::fs::write(&output, &baked)
                .map_err(|e| anyhow::anyhow!("cannot write `{}`: {e}", output.display()))?;
            outln!(
                "baked `{}` into `{}` ({} bytes, from {} bytes)",
                bundle.display(),
                output.display(),
                baked.len(),
                wasm.len()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Annotate {
            wasm,
            metadata,
            usage,
            output,
        } => {
            palisade_harness::annotate::annotate_paths(
                &wasm,
                &metadata,
                usage.as_deref(),
                &output,
            )?;
            outln!(
                "annotated `{}` with `{}` into `{}`",
                wasm.display(),
                metadata.display(),
                output.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Scaffold {
            what:
                Scaffold::Review {
                    manifest,
                    operation,
                    old,
                    namespace,
                    user,
                    groups,
                    dry_run,
                    subresource,
                },
        } => {
            let docs = documents::read_documents(&manifest)?;
            let old_object = old.as_deref().map(documents::read_document).transpose()?;
            let mut opts = scaffold::Options {
                operation,
                old_object,
                username: user,
                namespace,
                dry_run,
                subresource,
                ..scaffold::Options::default()
            };
            if !groups.is_empty() {
                opts.groups = groups;
            }
            for doc in &docs {
                let review = scaffold::review(doc, &opts)?;
                outln!("{}", serde_json::to_string_pretty(&review)?);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `eval --explain`: the trace computed natively (`palisade::api::explain_json`), with the module's answer as its
/// `verdict`. Through the C ABI (`compare`), a native verdict that differs from the module's is reported, never
/// hidden; a waPC answer carries less than an AdmissionReview (no `status.reason`), so it is not compared.
fn explained(
    bundle: &Value,
    review: &Value,
    context: Option<&Value>,
    answer: Value,
    compare: bool,
) -> Result<Value> {
    let input = match context {
        Some(context) => serde_json::json!({ "review": review, "context": context }),
        None => review.clone(),
    };
    let mut trace: Value = serde_json::from_str(&palisade::api::explain_json(
        &bundle.to_string(),
        &input.to_string(),
    ))?;
    if let Some(map) = trace.as_object_mut() {
        if compare && map.get("verdict").is_some_and(|native| *native != answer) {
            eprintln!(
                "warning: the native library and the module answer differently; the module's answer is shown"
            );
            map.insert(
                "nativeVerdict".into(),
                map.get("verdict").cloned().unwrap_or_default(),
            );
        }
        map.insert("verdict".into(), answer);
    }
    Ok(trace)
}

fn print_check(report: &palisade_harness::check::Report) -> ExitCode {
    out!("{}", report.text);
    if report.errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `bench --kubewarden`: palisade-kubewarden.wasm next to the waPC floor, interleaved, both
/// modes (fresh instance per request as policy-server; one instance as kwctl bench).
fn bench_kubewarden(
    path: &Path,
    bundle: &Value,
    reviews: &[Value],
    context: Option<&Value>,
    opts: &bench::Options,
) -> Result<bench::BenchReport> {
    let floor_path = artifacts::artifact(artifacts::FLOOR_WAPC);
    let palisade = KubewardenBackend::load(path)?;
    let floor = KubewardenBackend::load_unannotated(&floor_path)?;
    if let Some(message) = palisade.check(bundle)? {
        anyhow::bail!("the bundle was rejected: {message}");
    }
    // the same module baked with the bundle (policy-server's fresh instances then skip compiling the settings)
    let baked = bake::bake(
        &std::fs::read(path)?,
        bake::Protocol::Kubewarden,
        &bundle_bytes(bundle)?,
    )
    .map_err(|e| anyhow::anyhow!("cannot bake the bundle: {e}"))?;
    let baked_path =
        std::env::temp_dir().join(format!("palisade-bench-baked-{}.wasm", std::process::id()));
    std::fs::write(&baked_path, &baked)?;
    let mut backends = vec![
        ("palisade".to_owned(), palisade),
        (
            "palisade, baked".to_owned(),
            KubewardenBackend::load(&baked_path)?,
        ),
        ("waPC floor".to_owned(), floor),
    ];
    if opts.pooling {
        let pooled = Runtime::pooled()?;
        backends.push((
            format!("palisade, baked{}", bench::POOLED),
            KubewardenBackend::load_in(&pooled, &baked_path)?,
        ));
        backends.push((
            format!("waPC floor{}", bench::POOLED),
            KubewardenBackend::load_unannotated_in(&pooled, &floor_path)?,
        ));
    }
    let payloads: Vec<Vec<u8>> = reviews
        .iter()
        .map(|r| kubewarden::validation_payload(bundle, r))
        .collect::<Result<_, _>>()?;
    let samples = kubewarden::bench_samples(
        &backends.iter().map(|(_, b)| b).collect::<Vec<_>>(),
        bundle,
        &payloads,
        context,
        opts.warmup,
        opts.iterations,
    )?;
    let mut modules = Vec::new();
    for ((label, backend), s) in backends.into_iter().zip(samples) {
        let bytes = std::fs::read(backend.path())?;
        // a reused instance runs the same code whichever allocator made it: a pooled module's reused calls are made
        // (bench_samples makes them for every module) but not reported
        let reused =
            (!label.ends_with(bench::POOLED)).then(|| bench::Stats::from_samples(s.reused));
        modules.push(bench::ModuleFigures {
            label,
            path: backend.path().to_path_buf(),
            raw_size: bytes.len() as u64,
            gzip_size: bench::gzip9_len(&bytes)?,
            compile_time: backend.compile_time(),
            reused,
            fresh: bench::Stats::from_samples(s.fresh),
        });
    }
    let _ = std::fs::remove_file(&baked_path);
    Ok(bench::BenchReport {
        reviews: reviews.len(),
        review_bytes: payloads.iter().map(Vec::len).collect(),
        iterations: opts.iterations,
        modules,
        sample_answer: None,
    })
}
