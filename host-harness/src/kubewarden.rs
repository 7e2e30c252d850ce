//! The Kubewarden runner: `palisade-kubewarden.wasm` driven through the waPC host crates Kubewarden itself uses
//! (`wapc` 2.2 over `wasmtime-provider` 2.25), the way policy-server does (kubewarden-controller
//! `crates/policy-evaluator/src/runtimes/wapc`):
//!
//! * one compiled module and one `WasmtimeEngineProviderPre` per process, **a fresh instance per request**
//!   (`rehydrate`), with an epoch deadline on `wapc_init` and on every call, and a memory cap;
//! * **the settings with every call**: `validate_settings` with the bundle, then `validate` with
//!   `{"request": …, "settings": bundle}`;
//! * **host capabilities** (binding `kubewarden`) answered from the case's `context` (docs/architecture.md, "The context"):
//!   `kubernetes/get_resource` for v1 Namespace objects and `kubernetes/can_i`, gated as policy-server gates them by
//!   the module's `io.kubewarden.metadata` (`hostCapabilities`, `contextAwareResources`) and worded as policy-server
//!   words its refusals; or, instead of a context, replayed from a session recorded by kwctl
//!   ([`crate::replay`], `kwctl run --replay-host-capabilities-interactions`);
//! * the ValidationResponse mapped back onto an AdmissionReview as policy-evaluator's
//!   `AdmissionResponse::from_policy_validation_response` does (`accepted` → `allowed`, `message`/`code` →
//!   `status`, warnings, audit annotations), so cases compare with the C ABI backend's answers. A ValidationResponse
//!   has no `reason` and no `details`, so neither does the answer: `status.reason` is not comparable through
//!   Kubewarden. `authorizer.path(…)` checks cannot be asked through `kubernetes/can_i` (its SubjectAccessReview has
//!   only resource attributes), so they are evaluation errors here.
//!
//! The context is answered with the engine crate's own [`palisade::StaticContext`], the same matching the C ABI
//! module applies to a `context` object, so both backends see the same cluster.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use palisade::kubewarden::{
    BINDING, CALLBACK_FAILURE_PREFIX, CAN_I, CanIRequest, GET_RESOURCE, GetResourceRequest,
    KUBERNETES, PROTOCOL_VERSION, SettingsValidationResponse, SubjectAccessReviewStatus, VALIDATE,
    VALIDATE_SETTINGS, ValidationRequest, ValidationResponse,
};
use palisade::{Cluster, StaticContext};
use serde_json::{Map, Value, json};
use wasmtime_provider::{
    EpochDeadlines, ResourceLimits, WasmtimeEngineProviderBuilder, WasmtimeEngineProviderPre,
};

use crate::annotate;
use crate::backend::{Backend, HostError};
use crate::host::{DEFAULT_DEADLINE, DEFAULT_MEMORY_LIMIT, Runtime, TICK, read_module};
use crate::replay;

/// What wasmtime-provider says when a call ran past its epoch deadline (policy-evaluator matches the same text).
const EPOCH_INTERRUPTED: &str = "guest code interrupted, execution deadline exceeded";
/// What wasmtime-provider says when `wapc_init` ran past its epoch deadline.
const INIT_INTERRUPTED: &str = "init interrupted, execution deadline exceeded";
const ADMISSION_V1: &str = "admission.k8s.io/v1";
const ADMISSION_V1BETA1: &str = "admission.k8s.io/v1beta1";

/// What policy-server lets the policy ask, from the module's metadata. `None` grants everything.
#[derive(Debug, Clone, Default)]
struct Grants {
    host_capabilities: Option<Vec<String>>,
    context_aware_resources: Option<Vec<(String, String)>>,
}

impl Grants {
    fn from_metadata(metadata: &Value) -> Self {
        let host_capabilities = metadata
            .get("hostCapabilities")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            });
        let context_aware_resources = Some(
            metadata
                .get("contextAwareResources")
                .and_then(Value::as_array)
                .map(|list| {
                    list.iter()
                        .filter_map(|r| {
                            Some((
                                r.get("apiVersion")?.as_str()?.to_owned(),
                                r.get("kind")?.as_str()?.to_owned(),
                            ))
                        })
                        .collect()
                })
                .unwrap_or_default(),
        );
        Self {
            host_capabilities,
            context_aware_resources,
        }
    }

    /// policy-evaluator's host-capability patterns: `*`, `<prefix>/*`, or the exact `namespace/operation`.
    fn allows_capability(&self, path: &str) -> bool {
        let Some(patterns) = &self.host_capabilities else {
            return true;
        };
        patterns.iter().any(|p| {
            p == "*"
                || p == path
                || p.strip_suffix("/*").is_some_and(|prefix| {
                    path.strip_prefix(prefix)
                        .is_some_and(|rest| rest.starts_with('/'))
                })
        })
    }

    fn allows_resource(&self, api_version: &str, kind: &str) -> bool {
        self.context_aware_resources
            .as_ref()
            .is_none_or(|list| list.iter().any(|(v, k)| v == api_version && k == kind))
    }
}

/// What answers a waPC guest's host calls: `(binding, namespace, operation, payload)` to the answer's bytes, or the
/// host's message.
pub type HostAnswer = dyn Fn(&str, &str, &str, &[u8]) -> Result<Vec<u8>, String> + Send + Sync;

/// Everything the host callback of one instance answers from.
#[derive(Debug)]
struct HostState {
    context: StaticContext,
    /// A kwctl session that answers the Kubernetes capabilities instead of `context`.
    replay: Option<Arc<replay::Session>>,
    grants: Grants,
}

/// The host callback: policy-evaluator's `host_callback` for the capabilities a case's context can answer, with
/// policy-server's wording for refusals.
fn answer(
    state: &HostState,
    binding: &str,
    namespace: &str,
    operation: &str,
    payload: &[u8],
) -> Result<Vec<u8>, String> {
    if binding != BINDING {
        return Err(format!("unknown binding: {binding}"));
    }
    if namespace != "tracing" {
        let path = format!("{namespace}/{operation}");
        if !state.grants.allows_capability(&path) {
            return Err(format!(
                "Policy has not been granted access to the '{path}' host capability. The violation has been reported."
            ));
        }
    }
    match (namespace, operation) {
        ("tracing", "log") => Ok(Vec::new()),
        (KUBERNETES, GET_RESOURCE) => get_resource(state, payload),
        (KUBERNETES, CAN_I) => can_i(state, payload),
        ("kubernetes", "list_resources_by_namespace" | "list_resources_all")
        | (
            "oci",
            "v1/verify"
            | "v2/verify"
            | "v1/manifest_digest"
            | "v1/oci_manifest"
            | "v1/oci_manifest_config",
        )
        | ("net", "v1/dns_lookup_host")
        | ("crypto", "v1/is_certificate_trusted") => Err(format!(
            "the harness cannot answer `{namespace}/{operation}` from a case's context"
        )),
        ("tracing" | "kubernetes" | "oci" | "net" | "crypto", _) => {
            Err(format!("unknown operation: {operation}"))
        }
        _ => Err(format!("unknown namespace: {namespace}")),
    }
}

fn get_resource(state: &HostState, payload: &[u8]) -> Result<Vec<u8>, String> {
    let request: GetResourceRequest = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
    let (api_version, kind, name) = (&request.api_version, &request.kind, &request.name);
    if !state.grants.allows_resource(api_version, kind) {
        return Err(format!(
            "Policy has not been granted access to Kubernetes {api_version}/{kind} resources. The violation has been reported."
        ));
    }
    if let Some(session) = &state.replay {
        let payload: Value = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
        return session
            .replay(&replay::Request::get_resource(&payload))
            .map_err(callback_failure);
    }
    if (api_version.as_str(), kind.as_str()) != ("v1", "Namespace") {
        return Err(format!(
            "the harness context holds only v1/Namespace objects, not `{api_version}/{kind}`"
        ));
    }
    match state
        .context
        .namespace(name)
        .map_err(|e| callback_failure(e.to_string()))?
    {
        Some(object) => serde_json::to_vec(&object).map_err(|e| e.to_string()),
        // policy-evaluator's kubernetes client, word for word, as its callback runtime hands it over.
        None => Err(callback_failure(format!(
            "Cannot find {api_version}/{kind} named '{name}' inside of namespace '{:?}'",
            request.namespace.as_deref()
        ))),
    }
}

/// An error of a capability's handler as policy-evaluator's callback runtime hands it to the guest
/// (`crates/policy-evaluator/src/runtimes/callback.rs`); refusals by the capability allow-list stay bare.
/// The guest reads it back with the same [`CALLBACK_FAILURE_PREFIX`].
fn callback_failure(error: String) -> String {
    format!("{CALLBACK_FAILURE_PREFIX}{error}")
}

fn can_i(state: &HostState, payload: &[u8]) -> Result<Vec<u8>, String> {
    let request: CanIRequest = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
    if let Some(session) = &state.replay {
        let payload: Value = serde_json::from_slice(payload).map_err(|e| e.to_string())?;
        return session
            .replay(&replay::Request::can_i(&payload))
            .map_err(callback_failure);
    }
    let query = request.into_query();
    let decision = state
        .context
        .authorize(&query)
        .map_err(|e| callback_failure(e.to_string()))?;
    // A SubjectAccessReviewStatus, as policy-server answers.
    serde_json::to_vec(&SubjectAccessReviewStatus {
        allowed: decision.allowed,
        reason: (!decision.reason.is_empty()).then_some(decision.reason),
        ..SubjectAccessReviewStatus::default()
    })
    .map_err(|e| e.to_string())
}

/// `palisade-kubewarden.wasm` (or any waPC guest) compiled once, run on a fresh instance per request.
pub struct KubewardenBackend {
    path: PathBuf,
    pre: WasmtimeEngineProviderPre,
    grants: Grants,
    metadata: Option<Value>,
    compile_time: Duration,
    replay: Option<Arc<replay::Session>>,
}

impl std::fmt::Debug for KubewardenBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubewardenBackend")
            .field("path", &self.path)
            .field("grants", &self.grants)
            .field("compile_time", &self.compile_time)
            .field("replay", &self.replay.as_ref().map(|s| s.source()))
            .finish_non_exhaustive()
    }
}

/// One instance of the module, for the reused-instance (kwctl bench) mode.
#[derive(Debug)]
pub struct KubewardenInstance {
    host: wapc::WapcHost,
    deadline: Duration,
    /// Every host call the guest made, as `namespace/operation`, in order.
    calls: Arc<std::sync::Mutex<Vec<String>>>,
}

impl KubewardenInstance {
    /// The host calls the guest made on this instance so far, as `namespace/operation`, in order.
    pub fn host_calls(&self) -> Vec<String> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Call one waPC operation; the answer's bytes, or why there is none.
    pub fn call(&self, operation: &str, payload: &[u8]) -> Result<Vec<u8>, HostError> {
        self.host
            .call(operation, payload)
            .map_err(|e| call_error(operation, &e.to_string(), self.deadline))
    }
}

fn epoch_ticks(deadline: Duration) -> u64 {
    u64::try_from(deadline.as_nanos().div_ceil(TICK.as_nanos().max(1)))
        .unwrap_or(u64::MAX)
        .max(1)
}

/// A waPC call error as a [`HostError`]: the deadline, a trap, or a waPC error the guest answered.
fn call_error(call: &str, message: &str, deadline: Duration) -> HostError {
    if message.contains(EPOCH_INTERRUPTED) {
        HostError::Timeout {
            call: call.to_owned(),
            deadline,
        }
    } else if message.contains("wasm trap") || message.contains("wasm backtrace") {
        HostError::Trap {
            call: call.to_owned(),
            reason: message.to_owned(),
        }
    } else {
        HostError::BadOutput {
            call: call.to_owned(),
            reason: format!("the guest answered a waPC error: {message}"),
        }
    }
}

fn bad_output(call: &str, reason: impl Into<String>) -> HostError {
    HostError::BadOutput {
        call: call.to_owned(),
        reason: reason.into(),
    }
}

/// `{"request": review.request, "settings": bundle}`, the payload policy-server sends to `validate`.
pub fn validation_payload(bundle: &Value, review: &Value) -> Result<Vec<u8>, HostError> {
    let request = review.get("request").unwrap_or(&Value::Null);
    serde_json::to_vec(&ValidationRequest {
        request,
        settings: bundle,
    })
    .map_err(|e| HostError::Host(format!("cannot encode the validation request: {e}")))
}

/// A ValidationResponse as the AdmissionReview policy-server answers (policy-evaluator
/// `AdmissionResponse::from_policy_validation_response`): same apiVersion as the review, `request.uid` echoed.
pub fn admission_review(review: &Value, validation_response: &[u8]) -> Result<Value, HostError> {
    let response: ValidationResponse = serde_json::from_slice(validation_response)
        .map_err(|e| bad_output(VALIDATE, format!("not a ValidationResponse: {e}")))?;
    if response.mutated_object.is_some() {
        return Err(bad_output(
            VALIDATE,
            "the ValidationResponse mutates the object, but Palisade never mutates",
        ));
    }
    let mut out = Map::new();
    let uid = review
        .pointer("/request/uid")
        .and_then(Value::as_str)
        .unwrap_or_default();
    out.insert("uid".into(), json!(uid));
    out.insert("allowed".into(), json!(response.accepted));
    if response.message.is_some() || response.code.is_some() {
        let mut status = Map::new();
        if let Some(message) = response.message {
            status.insert("message".into(), json!(message));
        }
        if let Some(code) = response.code {
            status.insert("code".into(), json!(code));
        }
        out.insert("status".into(), Value::Object(status));
    }
    if let Some(annotations) = response.audit_annotations {
        out.insert("auditAnnotations".into(), json!(annotations));
    }
    if let Some(warnings) = response.warnings {
        out.insert("warnings".into(), json!(warnings));
    }
    let api_version = review
        .get("apiVersion")
        .and_then(Value::as_str)
        .filter(|v| *v == ADMISSION_V1 || *v == ADMISSION_V1BETA1)
        .unwrap_or(ADMISSION_V1);
    Ok(
        json!({ "apiVersion": api_version, "kind": "AdmissionReview", "response": Value::Object(out) }),
    )
}

/// A `validate_settings` answer: `Ok(None)` valid, `Ok(Some(message))` invalid.
fn settings_answer(bytes: &[u8]) -> Result<Option<String>, HostError> {
    let answer: SettingsValidationResponse = serde_json::from_slice(bytes).map_err(|e| {
        bad_output(
            VALIDATE_SETTINGS,
            format!("not a SettingsValidationResponse: {e}"),
        )
    })?;
    Ok((!answer.valid).then(|| answer.message.unwrap_or_default()))
}

impl KubewardenBackend {
    /// Load a policy as policy-server does: the module must carry `io.kubewarden.metadata` with protocolVersion v1
    /// and answer `protocol_version` with `"v1"`.
    pub fn load(path: &Path) -> Result<Self, HostError> {
        Self::load_in(&Runtime::shared()?, path)
    }

    /// [`KubewardenBackend::load`] in `runtime` (e.g. [`Runtime::pooled`]).
    pub fn load_in(runtime: &Runtime, path: &Path) -> Result<Self, HostError> {
        let bytes = read_module(path)?;
        let backend = Self::compile(runtime, path, &bytes)?;
        let load_err = |reason: String| HostError::Load {
            module: path.display().to_string(),
            reason,
        };
        let Some(metadata) = &backend.metadata else {
            return Err(load_err(format!(
                "the module has no `{}` section, so policy-server would refuse it (annotate it with `palisade annotate`)",
                annotate::METADATA_SECTION
            )));
        };
        if metadata.get("protocolVersion").and_then(Value::as_str) != Some("v1") {
            return Err(load_err(
                "the module's metadata does not say protocolVersion v1".to_owned(),
            ));
        }
        let version = backend
            .instantiate(None, DEFAULT_DEADLINE)?
            .call(PROTOCOL_VERSION, &[])?;
        if serde_json::from_slice::<Value>(&version).ok() != Some(json!("v1")) {
            return Err(bad_output(
                PROTOCOL_VERSION,
                format!(
                    "expected `\"v1\"`, got `{}`",
                    String::from_utf8_lossy(&version)
                ),
            ));
        }
        Ok(backend)
    }

    /// Load a waPC guest without metadata checks, e.g. the bench floor; its host capabilities are not gated.
    pub fn load_unannotated(path: &Path) -> Result<Self, HostError> {
        Self::load_unannotated_in(&Runtime::shared()?, path)
    }

    /// [`KubewardenBackend::load_unannotated`] in `runtime`.
    pub fn load_unannotated_in(runtime: &Runtime, path: &Path) -> Result<Self, HostError> {
        Self::compile(runtime, path, &read_module(path)?)
    }

    /// Compile a module from bytes; `path` only names it. Metadata, when present, gates host capabilities.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, HostError> {
        Self::compile(&Runtime::shared()?, path, bytes)
    }

    fn compile(runtime: &Runtime, path: &Path, bytes: &[u8]) -> Result<Self, HostError> {
        let load_err = |reason: String| HostError::Load {
            module: path.display().to_string(),
            reason,
        };
        // Text (`.wat`) test guests carry no custom sections.
        let metadata = if bytes.starts_with(b"\0asm") {
            annotate::read_metadata(bytes).map_err(|e| load_err(e.to_string()))?
        } else {
            None
        };
        let started = Instant::now();
        let module = wasmtime_provider::wasmtime::Module::new(runtime.engine(), bytes)
            .map_err(|e| load_err(format!("{e:#}")))?;
        let compile_time = started.elapsed();
        let pre = WasmtimeEngineProviderBuilder::new()
            .engine(runtime.engine().clone())
            .module(module)
            .enable_resource_limits(ResourceLimits {
                max_memory_size: Some(DEFAULT_MEMORY_LIMIT),
                max_table_elements: Some(100_000),
            })
            .build_pre()
            .map_err(|e| load_err(e.to_string()))?;
        let grants = metadata
            .as_ref()
            .map(Grants::from_metadata)
            .unwrap_or_default();
        Ok(Self {
            path: path.to_path_buf(),
            pre,
            grants,
            metadata,
            compile_time,
            replay: None,
        })
    }

    /// Answer the Kubernetes host capabilities of every instance from a session recorded by kwctl, consumed in order
    /// across the run, instead of from a context (which must then not be given).
    #[must_use]
    pub fn replaying(mut self, session: Arc<replay::Session>) -> Self {
        self.replay = Some(session);
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The module's `io.kubewarden.metadata`, when it has one.
    pub fn metadata(&self) -> Option<&Value> {
        self.metadata.as_ref()
    }

    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }

    /// A fresh instance (`wapc_init` run) whose host capabilities answer from `context`; every call has `deadline`.
    pub fn instantiate(
        &self,
        context: Option<&Value>,
        deadline: Duration,
    ) -> Result<KubewardenInstance, HostError> {
        if context.is_some() && self.replay.is_some() {
            return Err(HostError::Host(
                "the host capabilities are replayed from a recorded session, so a context cannot answer them too"
                    .to_owned(),
            ));
        }
        let context: StaticContext = match context {
            None => StaticContext::default(),
            Some(value) => serde_json::from_value(value.clone())
                .map_err(|e| HostError::Host(format!("the context is not valid: {e}")))?,
        };
        let state = HostState {
            context,
            replay: self.replay.clone(),
            grants: self.grants.clone(),
        };
        self.instantiate_answering(
            Arc::new(
                move |binding: &str, namespace: &str, operation: &str, payload: &[u8]| {
                    answer(&state, binding, namespace, operation, payload)
                },
            ),
            deadline,
        )
    }

    /// A fresh instance (`wapc_init` run) whose host calls `answer` answers; every call has `deadline`.
    /// [`Self::instantiate`] answers from a case's context; the `kubewarden` fuzz target gives the module the very host
    /// it gives the guest's native half, to compare the two.
    pub fn instantiate_answering(
        &self,
        answer: Arc<HostAnswer>,
        deadline: Duration,
    ) -> Result<KubewardenInstance, HostError> {
        let ticks = epoch_ticks(deadline);
        let provider = self
            .pre
            .rehydrate(Some(EpochDeadlines {
                wapc_init: ticks,
                wapc_func: ticks,
            }))
            .map_err(|e| HostError::Load {
                module: self.path.display().to_string(),
                reason: e.to_string(),
            })?;
        let calls = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = Arc::clone(&calls);
        let callback =
            move |_id: u64, binding: &str, namespace: &str, operation: &str, payload: &[u8]| {
                if let Ok(mut calls) = seen.lock() {
                    calls.push(format!("{namespace}/{operation}"));
                }
                answer(binding, namespace, operation, payload).map_err(Into::into)
            };
        let host =
            wapc::WapcHost::new(Box::new(provider), Some(Box::new(callback))).map_err(|e| {
                let message = e.to_string();
                if message.contains(INIT_INTERRUPTED) {
                    HostError::Timeout {
                        call: "wapc_init".into(),
                        deadline,
                    }
                } else if message.contains("Initialization failed: ") {
                    HostError::Trap {
                        call: "wapc_init".into(),
                        reason: message,
                    }
                } else {
                    HostError::Load {
                        module: self.path.display().to_string(),
                        reason: message,
                    }
                }
            })?;
        Ok(KubewardenInstance {
            host,
            deadline,
            calls,
        })
    }

    /// policy-server's request path: a fresh instance, then `validate` with the settings (no `validate_settings`,
    /// which policy-server runs once at start-up). The ValidationResponse bytes.
    pub fn validate_fresh(
        &self,
        payload: &[u8],
        context: Option<&Value>,
        deadline: Duration,
    ) -> Result<Vec<u8>, HostError> {
        self.instantiate(context, deadline)?.call(VALIDATE, payload)
    }
}

fn settings_bytes(bundle: &Value) -> Result<Vec<u8>, HostError> {
    serde_json::to_vec(bundle)
        .map_err(|e| HostError::Host(format!("cannot encode the bundle: {e}")))
}

impl Backend for KubewardenBackend {
    fn name(&self) -> &'static str {
        "kubewarden"
    }

    /// A fresh instance; `validate_settings` with the bundle, then `validate` with request and settings. Invalid
    /// settings are still sent to `validate`, which then answers 500 `palisade is not configured: …` as the C ABI
    /// module does.
    fn evaluate(
        &self,
        bundle: &Value,
        review: &Value,
        context: Option<&Value>,
        deadline: Duration,
    ) -> Result<Value, HostError> {
        let instance = self.instantiate(context, deadline)?;
        settings_answer(&instance.call(VALIDATE_SETTINGS, &settings_bytes(bundle)?)?)?;
        let answer = instance.call(VALIDATE, &validation_payload(bundle, review)?)?;
        admission_review(review, &answer)
    }

    fn check(&self, bundle: &Value) -> Result<Option<String>, HostError> {
        let instance = self.instantiate(None, DEFAULT_DEADLINE)?;
        settings_answer(&instance.call(VALIDATE_SETTINGS, &settings_bytes(bundle)?)?)
    }
}

/// Latency samples of one module, from [`bench_samples`].
#[derive(Debug, Clone, Default)]
pub struct BenchSamples {
    /// policy-server's mode: a fresh instance + `validate` (with the settings) per request.
    pub fresh: Vec<Duration>,
    /// kwctl bench's mode: `validate` (with the settings) on one instance.
    pub reused: Vec<Duration>,
}

/// Benchmarks waPC modules side by side (e.g. `palisade-kubewarden.wasm` and the floor `floor-wapc.wasm`), their
/// runs interleaved round by round so that machine noise hits them alike. As `palisade bench` does for the C ABI, each
/// round runs every module's reused instance, then every module fresh, each pass starting with the next module in
/// turn ([`crate::bench::round_order`]): a reused call right after a fresh instance of the same module would find the
/// caches as that instance left them (an unbaked one compiles its settings, 1.3 ms of other code and data). The
/// reused instances are given the settings first (`validate_settings`, as kwctl bench and policy-server do before
/// evaluating), so that they compile them on their own, not in the middle of a first request. Each payload is a
/// [`validation_payload`] of those settings. Every answer is checked to be a ValidationResponse.
pub fn bench_samples(
    backends: &[&KubewardenBackend],
    settings: &Value,
    payloads: &[Vec<u8>],
    context: Option<&Value>,
    warmup: usize,
    iterations: usize,
) -> Result<Vec<BenchSamples>, HostError> {
    let settings = settings_bytes(settings)?;
    let reused: Vec<KubewardenInstance> = backends
        .iter()
        .map(|b| {
            let instance = b.instantiate(context, DEFAULT_DEADLINE)?;
            match settings_answer(&instance.call(VALIDATE_SETTINGS, &settings)?)? {
                None => Ok(instance),
                Some(message) => Err(HostError::Host(format!(
                    "{} refuses the settings: {message}",
                    b.path().display()
                ))),
            }
        })
        .collect::<Result<_, HostError>>()?;
    let mut samples = vec![BenchSamples::default(); backends.len()];
    let check = |bytes: &[u8]| admission_review(&Value::Null, bytes).map(|_| ());
    let progress = crate::bench::Progress::new(warmup.saturating_add(iterations));
    for round in 0..warmup.saturating_add(iterations) {
        progress.tick(round);
        let record = round >= warmup;
        for i in crate::bench::round_order(round, backends.len()) {
            let (Some(instance), Some(out)) = (reused.get(i), samples.get_mut(i)) else {
                continue;
            };
            for payload in payloads {
                let started = Instant::now();
                let answer = instance.call("validate", payload)?;
                let took = started.elapsed();
                check(&answer)?;
                if record {
                    out.reused.push(took);
                }
            }
        }
        for i in crate::bench::round_order(round, backends.len()) {
            let (Some(backend), Some(out)) = (backends.get(i), samples.get_mut(i)) else {
                continue;
            };
            for payload in payloads {
                let started = Instant::now();
                let answer = backend.validate_fresh(payload, context, DEFAULT_DEADLINE)?;
                let took = started.elapsed();
                check(&answer)?;
                if record {
                    out.fresh.push(took);
                }
            }
        }
    }
    progress.tick(warmup.saturating_add(iterations));
    Ok(samples)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(context: Value, metadata: Option<Value>) -> HostState {
        HostState {
            context: serde_json::from_value(context).unwrap(),
            replay: None,
            grants: metadata
                .as_ref()
                .map(Grants::from_metadata)
                .unwrap_or_default(),
        }
    }

    fn shipped_metadata() -> Value {
        let yaml = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/kubewarden/metadata.yml"),
        )
        .unwrap();
        serde_json::from_slice(&annotate::metadata_json(&yaml, None).unwrap()).unwrap()
    }

    fn get(state: &HostState, name: &str) -> Result<Value, String> {
        let payload = json!({"api_version": "v1", "kind": "Namespace", "name": name, "namespace": null, "disable_cache": false});
        answer(
            state,
            "kubewarden",
            "kubernetes",
            "get_resource",
            payload.to_string().as_bytes(),
        )
        .map(|b| serde_json::from_slice(&b).unwrap())
    }

    #[test]
    fn get_resource_answers_namespaces_from_the_context() {
        let s = state(
            json!({"namespaces": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"env": "prod"}}}]}),
            Some(shipped_metadata()),
        );
        assert_eq!(
            get(&s, "team-a").unwrap()["metadata"]["labels"]["env"],
            "prod"
        );
        // policy-evaluator's wording for a missing object; the guest reads it as "no such namespace".
        let missing = get(&s, "nope").unwrap_err();
        assert_eq!(
            missing,
            "Callback evaluation failure: Cannot find v1/Namespace named 'nope' inside of namespace 'None'"
        );
        assert!(
            missing
                .trim_start_matches("Callback evaluation failure: ")
                .starts_with(palisade_kubewarden_not_found_prefix())
        );
        // No `namespaces` in the context: the same message the C ABI module gives, as policy-evaluator hands it over.
        let empty = state(json!({}), None);
        assert_eq!(
            get(&empty, "a").unwrap_err(),
            format!(
                "Callback evaluation failure: {}",
                StaticContext::default().namespace("a").unwrap_err()
            )
        );
    }

    /// A replayed session answers behind the same gates, handed over as policy-evaluator hands a handler's answer;
    /// a refused call never reaches the recording (kwctl's replay sits behind the gates too).
    #[test]
    fn replayed_sessions_answer_behind_the_gates() {
        let session = Arc::new(
            replay::Session::parse(
                Path::new("s.yml"),
                "- type: Exchange\n  request: |\n    !KubernetesGetResource\n    api_version: v1\n    kind: Namespace\n    \
                 name: team-a\n    namespace: null\n    disable_cache: false\n  response:\n    type: Success\n    \
                 payload: '{\"metadata\":{\"name\":\"team-a\"}}'\n",
            )
            .unwrap(),
        );
        let mut refused = state(json!({}), Some(json!({"contextAwareResources": []})));
        refused.replay = Some(Arc::clone(&session));
        assert!(
            get(&refused, "team-a")
                .unwrap_err()
                .starts_with("Policy has not been granted access to Kubernetes v1/Namespace")
        );
        assert_eq!(session.leftovers().len(), 1);
        let mut granted = state(json!({}), Some(shipped_metadata()));
        granted.replay = Some(Arc::clone(&session));
        assert_eq!(
            get(&granted, "team-a").unwrap()["metadata"]["name"],
            "team-a"
        );
        assert_eq!(
            get(&granted, "team-a").unwrap_err(),
            "Callback evaluation failure: the list of recorded responses is empty"
        );
    }

    /// The prefix the guest reads as "not found".
    fn palisade_kubewarden_not_found_prefix() -> &'static str {
        palisade::kubewarden::NAMESPACE_NOT_FOUND_PREFIX
    }

    #[test]
    fn capabilities_and_resources_are_gated_by_the_metadata() {
        let mut metadata = shipped_metadata();
        let s = state(json!({"namespaces": []}), Some(metadata.clone()));
        let pods = json!({"api_version": "v1", "kind": "Pod", "name": "p", "namespace": "a", "disable_cache": false});
        assert_eq!(
            answer(
                &s,
                "kubewarden",
                "kubernetes",
                "get_resource",
                pods.to_string().as_bytes()
            )
            .unwrap_err(),
            "Policy has not been granted access to Kubernetes v1/Pod resources. The violation has been reported."
        );
        assert_eq!(
            answer(&s, "kubewarden", "kubernetes", "list_resources_all", b"{}").unwrap_err(),
            "Policy has not been granted access to the 'kubernetes/list_resources_all' host capability. The violation has been reported."
        );
        assert_eq!(
            answer(&s, "other", "kubernetes", "can_i", b"{}").unwrap_err(),
            "unknown binding: other"
        );
        assert_eq!(
            answer(&s, "kubewarden", "tracing", "log", b"{}").unwrap(),
            Vec::<u8>::new()
        );
        metadata["hostCapabilities"] = json!(["kubernetes/*"]);
        let s = state(json!({}), Some(metadata.clone()));
        assert!(
            answer(&s, "kubewarden", "kubernetes", "list_resources_all", b"{}")
                .unwrap_err()
                .contains("cannot answer")
        );
        assert!(
            answer(&s, "kubewarden", "oci", "v1/verify", b"{}")
                .unwrap_err()
                .contains("'oci/v1/verify' host capability")
        );
        metadata["hostCapabilities"] = json!(["*"]);
        let s = state(json!({}), Some(metadata));
        assert_eq!(
            answer(&s, "kubewarden", "nope", "x", b"{}").unwrap_err(),
            "unknown namespace: nope"
        );
        assert_eq!(
            answer(&s, "kubewarden", "kubernetes", "x", b"{}").unwrap_err(),
            "unknown operation: x"
        );
    }

    #[test]
    fn can_i_answers_from_the_context_authorizations() {
        let s = state(
            json!({"authorizations": [{"subject": {"group": "devs"}, "verb": "use", "apiGroup": "policy.cert-manager.io",
                   "resource": "certificaterequestpolicies", "name": "team-a-certs", "allowed": true}]}),
            Some(shipped_metadata()),
        );
        let ask = |user: &str, groups: Value| {
            let payload = json!({"subject_access_review": {"groups": groups, "resource_attributes": {
                "group": "policy.cert-manager.io", "name": "team-a-certs", "namespace": "team-a",
                "resource": "certificaterequestpolicies", "subresource": null, "verb": "use", "version": null},
                "user": user}, "disable_cache": false});
            answer(
                &s,
                "kubewarden",
                "kubernetes",
                "can_i",
                payload.to_string().as_bytes(),
            )
            .map(|b| serde_json::from_slice::<Value>(&b).unwrap())
        };
        assert_eq!(
            ask("alice", json!(["devs"])).unwrap(),
            json!({"allowed": true})
        );
        assert_eq!(
            ask("alice", Value::Null).unwrap(),
            json!({"allowed": false})
        );
        let none = state(json!({}), None);
        let payload = json!({"subject_access_review": {"groups": null, "resource_attributes": {"resource": "r", "verb": "v"}, "user": "u"}, "disable_cache": false});
        let err = answer(
            &none,
            "kubewarden",
            "kubernetes",
            "can_i",
            payload.to_string().as_bytes(),
        )
        .unwrap_err();
        assert!(err.contains("context has no `authorizations`"), "{err}");
        assert!(answer(&none, "kubewarden", "kubernetes", "can_i", b"{}").is_err());
    }

    #[test]
    fn validation_responses_map_onto_admission_reviews() {
        let review = json!({"apiVersion": "admission.k8s.io/v1beta1", "request": {"uid": "u1"}});
        let out = admission_review(
            &review,
            br#"{"accepted":false,"message":"no","code":403,"mutated_object":null,"audit_annotations":{"a/b":"c"},"warnings":["w"]}"#,
        )
        .unwrap();
        assert_eq!(
            out,
            json!({"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "response": {
                "uid": "u1", "allowed": false, "status": {"message": "no", "code": 403},
                "auditAnnotations": {"a/b": "c"}, "warnings": ["w"]}})
        );
        let allowed = admission_review(
            &json!({"request": {"uid": "u2"}}),
            br#"{"accepted":true,"message":null,"code":null}"#,
        )
        .unwrap();
        assert_eq!(
            allowed,
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "u2", "allowed": true}})
        );
        for bad in [
            &b"nope"[..],
            br#"{"message":"x"}"#,
            br#"{"accepted":true,"mutated_object":{}}"#,
            br#"{"accepted":true,"warnings":[1]}"#,
            br#"{"accepted":false,"code":"x"}"#,
        ] {
            assert!(
                matches!(
                    admission_review(&review, bad),
                    Err(HostError::BadOutput { .. })
                ),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn wapc_errors_are_named() {
        let d = Duration::from_millis(5);
        assert!(matches!(
            call_error(
                "validate",
                "Guest call failure: guest code interrupted, execution deadline exceeded",
                d
            ),
            HostError::Timeout { .. }
        ));
        assert!(matches!(
            call_error(
                "validate",
                "error while executing at wasm backtrace:\n 0: ...",
                d
            ),
            HostError::Trap { .. }
        ));
        assert!(matches!(
            call_error("validate", "No handler registered for function validate", d),
            HostError::BadOutput { .. }
        ));
        assert_eq!(epoch_ticks(Duration::from_secs(1)), 1000);
        assert_eq!(epoch_ticks(Duration::ZERO), 1);
    }

    /// A waPC guest in text form: `__guest_call` runs `body`; `wapc_init` does nothing.
    fn wat_guest(body: &str) -> Vec<u8> {
        format!(
            r#"(module
                 (memory (export "memory") 1)
                 (func (export "wapc_init"))
                 (func (export "__guest_call") (param i32 i32) (result i32) {body}))"#
        )
        .into_bytes()
    }

    #[test]
    fn endless_guests_time_out_with_the_deadline() {
        let backend = KubewardenBackend::from_bytes(
            Path::new("loop.wat"),
            &wat_guest("(loop (br 0)) (i32.const 1)"),
        )
        .unwrap();
        let deadline = Duration::from_millis(50);
        let started = Instant::now();
        let err = backend
            .instantiate(None, deadline)
            .unwrap()
            .call("validate", b"{}")
            .unwrap_err();
        assert_eq!(
            err,
            HostError::Timeout {
                call: "validate".into(),
                deadline
            }
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        let trap = KubewardenBackend::from_bytes(Path::new("trap.wat"), &wat_guest("unreachable"))
            .unwrap();
        let err = trap.check(&json!({})).unwrap_err();
        assert!(
            matches!(err, HostError::Trap { ref call, .. } if call == "validate_settings"),
            "{err}"
        );
    }

    #[test]
    fn a_module_without_metadata_is_refused_as_policy_server_would() {
        let dir = std::env::temp_dir().join(format!("palisade-kw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("plain.wasm");
        std::fs::write(&path, wat_guest("(i32.const 1)")).unwrap();
        let err = KubewardenBackend::load(&path).unwrap_err();
        assert!(err.to_string().contains("io.kubewarden.metadata"), "{err}");
        assert!(KubewardenBackend::load_unannotated(&path).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The real artifact, annotated here from metadata.yml (so this holds whether or not the build annotated it).
    pub(super) fn shipped_backend() -> KubewardenBackend {
        let module = crate::artifacts::artifact(crate::artifacts::KUBEWARDEN);
        let bytes = std::fs::read(&module)
            .unwrap_or_else(|e| panic!("{}: {e} (built by build.rs)", module.display()));
        let metadata = serde_json::to_vec(&shipped_metadata()).unwrap();
        let annotated = annotate::annotate(&bytes, &metadata).unwrap();
        let dir = std::env::temp_dir().join(format!(
            "palisade-kw-shipped-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("palisade-kubewarden.wasm");
        std::fs::write(&path, annotated).unwrap();
        let backend = KubewardenBackend::load(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        backend
    }

    const POD_REVIEW: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5",
        "kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},
        "namespace":"team-a","operation":"CREATE","userInfo":{"username":"alice"},"object":{"metadata":{"name":"web"}}}}"#;

    #[test]
    fn the_shipped_module_runs_through_the_wapc_host() {
        let backend = shipped_backend();
        let review: Value = serde_json::from_str(POD_REVIEW).unwrap();
        let out = backend
            .evaluate(&json!({}), &review, None, DEFAULT_DEADLINE)
            .unwrap();
        assert_eq!(
            out,
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "705ab4f5", "allowed": true}})
        );
        assert_eq!(backend.check(&json!({})).unwrap(), None);
        let broken = json!({"policies": [{"kind": "X"}, {}]});
        let message = backend.check(&broken).unwrap().unwrap();
        assert!(
            message.starts_with("the bundle has 2 problems: "),
            "{message}"
        );
        let out = backend
            .evaluate(&broken, &review, None, DEFAULT_DEADLINE)
            .unwrap();
        assert_eq!(out["response"]["allowed"], false);
        assert_eq!(out["response"]["status"]["code"], 500);
        assert_eq!(
            out["response"]["status"]["message"],
            format!("palisade is not configured: the last bundle was rejected: {message}")
        );
        // A review without a request reaches the guest, which rejects it with 400.
        let out = backend
            .evaluate(
                &json!({}),
                &json!({"apiVersion": "admission.k8s.io/v1"}),
                None,
                DEFAULT_DEADLINE,
            )
            .unwrap();
        assert_eq!(out["response"]["status"]["code"], 400);
        assert_eq!(
            out["response"]["status"]["message"],
            "the AdmissionReview has no `request`"
        );
    }

    /// Settings past the bundle limit (`palisade::bundle::MAX_BUNDLE_BYTES`) are refused through the real module in
    /// `validate_settings` and in `validate` alike, with the same problem, as the C ABI refuses such a bundle; the
    /// instance is not left with them.
    #[test]
    fn the_shipped_module_refuses_over_large_settings_on_both_paths() {
        let backend = shipped_backend();
        let limit = palisade::bundle::MAX_BUNDLE_BYTES;
        let big = json!({"policies": [], "params": [{"data": "x".repeat(limit)}]});
        let size = settings_bytes(&big).unwrap().len();
        let message = backend.check(&big).unwrap().unwrap();
        assert_eq!(
            message,
            format!(
                "the bundle has 1 problem: : the settings are {size} bytes, more than the {limit} bytes \
                 Palisade reads: split them into several policies"
            )
        );
        let review: Value = serde_json::from_str(POD_REVIEW).unwrap();
        // policy-server's request path: `validate` alone, with the settings, on a fresh instance.
        let answer = backend
            .validate_fresh(
                &validation_payload(&big, &review).unwrap(),
                None,
                DEFAULT_DEADLINE,
            )
            .unwrap();
        let out = admission_review(&review, &answer).unwrap();
        assert_eq!(out["response"]["allowed"], false, "{out}");
        assert_eq!(out["response"]["status"]["code"], 500);
        assert_eq!(
            out["response"]["status"]["message"],
            format!("palisade is not configured: the last bundle was rejected: {message}")
        );
        // The C ABI module refuses the same bundle with the same code.
        let c_abi =
            crate::host::CAbiBackend::load(&crate::artifacts::artifact(crate::artifacts::C_ABI))
                .unwrap();
        let same = c_abi
            .evaluate(&big, &review, None, DEFAULT_DEADLINE)
            .unwrap();
        assert_eq!(same["response"]["status"]["code"], 500);
        assert!(
            c_abi
                .check(&big)
                .unwrap()
                .unwrap()
                .contains(&format!("more than the {limit} bytes"))
        );
        // One instance: the refused settings are not kept, good settings after them decide.
        let instance = backend.instantiate(None, DEFAULT_DEADLINE).unwrap();
        for (bundle, allowed) in [(&big, false), (&json!({}), true), (&big, false)] {
            let answer = instance
                .call(VALIDATE, &validation_payload(bundle, &review).unwrap())
                .unwrap();
            let out = admission_review(&review, &answer).unwrap();
            assert_eq!(out["response"]["allowed"], allowed, "{out}");
        }
    }

    /// Both artifacts answer the same for what the C ABI's hostile and foundation inputs look like through waPC.
    #[test]
    fn the_shipped_module_agrees_with_the_c_abi_module() {
        let kubewarden = shipped_backend();
        let c_abi =
            crate::host::CAbiBackend::load(&crate::artifacts::artifact(crate::artifacts::C_ABI))
                .unwrap();
        let review: Value = serde_json::from_str(POD_REVIEW).unwrap();
        for bundle in [
            json!({}),
            json!({"policies": []}),
            json!({"policies": [{"kind": "X"}]}),
            json!([1]),
        ] {
            let a = kubewarden
                .evaluate(&bundle, &review, None, DEFAULT_DEADLINE)
                .unwrap();
            let b = c_abi
                .evaluate(&bundle, &review, None, DEFAULT_DEADLINE)
                .unwrap();
            assert_eq!(
                a["response"]["allowed"], b["response"]["allowed"],
                "{bundle}"
            );
            assert_eq!(
                a["response"]["status"]["code"], b["response"]["status"]["code"],
                "{bundle}"
            );
            assert_eq!(
                a["response"]["status"]["message"], b["response"]["status"]["message"],
                "{bundle}"
            );
            assert_eq!(
                kubewarden.check(&bundle).unwrap(),
                c_abi.check(&bundle).unwrap(),
                "{bundle}"
            );
        }
    }

    /// Through the real module: namespace labels and an authorization needed by two policies each are asked once.
    #[test]
    fn host_capabilities_are_asked_once_per_request_and_key() {
        let backend = shipped_backend();
        let policy = |name: &str| {
            json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
                "metadata": {"name": name},
                "spec": {"matchConstraints": {
                    "namespaceSelector": {"matchLabels": {"env": "prod"}},
                    "resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}]},
                  "validations": [
                    {"expression": "namespaceObject.metadata.labels.env == 'prod'"},
                    {"expression": "authorizer.group('').resource('pods').namespace('team-a').check('create').allowed()"}]}})
        };
        let binding = |name: &str| {
            json!({"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
                "metadata": {"name": name}, "spec": {"policyName": name, "validationActions": ["Deny"]}})
        };
        let bundle = json!({"policies": [policy("a"), binding("a"), policy("b"), binding("b")]});
        let context = json!({
            "namespaces": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"env": "prod"}}}],
            "authorizations": [{"subject": {"user": "alice"}, "verb": "create", "resource": "pods", "allowed": true}]});
        let review: Value = serde_json::from_str(POD_REVIEW).unwrap();
        assert_eq!(backend.check(&bundle).unwrap(), None);
        let instance = backend
            .instantiate(Some(&context), DEFAULT_DEADLINE)
            .unwrap();
        let answer = instance
            .call("validate", &validation_payload(&bundle, &review).unwrap())
            .unwrap();
        let out = admission_review(&review, &answer).unwrap();
        assert_eq!(out["response"]["allowed"], true, "{out}");
        assert_eq!(
            instance.host_calls(),
            ["kubernetes/get_resource", "kubernetes/can_i"]
        );
        // The same decision through the C ABI module, which reads the context object itself.
        let c_abi =
            crate::host::CAbiBackend::load(&crate::artifacts::artifact(crate::artifacts::C_ABI))
                .unwrap();
        let same = c_abi
            .evaluate(&bundle, &review, Some(&context), DEFAULT_DEADLINE)
            .unwrap();
        assert_eq!(same["response"], out["response"]);
        // Without the authorization the request is denied, still with one question per key.
        let denied = json!({"namespaces": context["namespaces"], "authorizations": []});
        let instance = backend
            .instantiate(Some(&denied), DEFAULT_DEADLINE)
            .unwrap();
        let answer = instance
            .call("validate", &validation_payload(&bundle, &review).unwrap())
            .unwrap();
        let out = admission_review(&review, &answer).unwrap();
        assert_eq!(out["response"]["allowed"], false, "{out}");
        assert_eq!(
            instance.host_calls(),
            ["kubernetes/get_resource", "kubernetes/can_i"]
        );
        let same = c_abi
            .evaluate(&bundle, &review, Some(&denied), DEFAULT_DEADLINE)
            .unwrap();
        assert_eq!(
            same["response"]["status"]["message"],
            out["response"]["status"]["message"]
        );
    }

    #[test]
    fn bench_samples_interleave_fresh_and_reused() {
        let backend = shipped_backend();
        let review: Value = serde_json::from_str(POD_REVIEW).unwrap();
        let payload = validation_payload(&json!({}), &review).unwrap();
        let samples =
            bench_samples(&[&backend, &backend], &json!({}), &[payload], None, 1, 3).unwrap();
        assert_eq!(samples.len(), 2);
        assert!(
            samples
                .iter()
                .all(|s| s.fresh.len() == 3 && s.reused.len() == 3)
        );
    }
}

#[cfg(test)]
mod manifests {
    use super::*;

    fn manifest(name: &str) -> Value {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../policies/kubewarden")
            .join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        palisade_yaml::from_str(&text).unwrap()
    }

    /// Each shipped ClusterAdmissionPolicy is one policy-server accepts, and its settings are a bundle that compiles.
    #[test]
    fn cluster_admission_policies_carry_bundles_that_compile() {
        for name in ["pod-baseline.yaml", "cert-manager-requests.yaml"] {
            let policy = manifest(name);
            assert_eq!(policy["apiVersion"], "policies.kubewarden.io/v1", "{name}");
            assert_eq!(policy["kind"], "ClusterAdmissionPolicy", "{name}");
            let spec = &policy["spec"];
            assert!(
                spec["module"].as_str().unwrap().starts_with("registry://"),
                "{name}"
            );
            assert_eq!(spec["mutating"], false, "{name}");
            assert_eq!(
                spec["contextAwareResources"],
                json!([{"apiVersion": "v1", "kind": "Namespace"}]),
                "{name}"
            );
            let settings = &spec["settings"];
            assert!(
                !settings["policies"].as_array().unwrap().is_empty(),
                "{name}"
            );
            if let Err(e) = palisade::Engine::new(settings) {
                panic!("{name}: the settings do not compile: {e}");
            }
        }
    }

    #[test]
    fn pod_baseline_settings_are_the_benchmark_bundle() {
        let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bench/pod-baseline.yaml");
        let Ok(text) = std::fs::read_to_string(&bench) else {
            panic!("{} is missing", bench.display());
        };
        let bundle: Value = palisade_yaml::from_str(&text).unwrap();
        assert_eq!(manifest("pod-baseline.yaml")["spec"]["settings"], bundle);
    }

    /// The shipped module refuses nothing the native engine accepts in these manifests.
    #[test]
    fn the_shipped_module_accepts_the_manifest_settings() {
        let backend = tests::shipped_backend();
        for name in ["pod-baseline.yaml", "cert-manager-requests.yaml"] {
            assert_eq!(
                backend.check(&manifest(name)["spec"]["settings"]).unwrap(),
                None,
                "{name}"
            );
        }
    }
}
