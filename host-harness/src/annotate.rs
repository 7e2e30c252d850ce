//! `palisade annotate`: embed `metadata.yml` into a waPC module as the `io.kubewarden.metadata` custom section, as
//! `kwctl annotate` does (kubewarden-controller `crates/kwctl/src/annotate.rs`).
//!
//! The YAML is read into the shape of policy-evaluator's `Metadata`, checked as kwctl checks it (protocol version,
//! rules, context-aware resources, host capabilities) and written as that struct's JSON: every field in upstream's
//! order, defaults filled in (`backgroundAudit: true`, `executionMode: kubewarden-wapc`, `policyType: kubernetes`,
//! `contextAwareResources: []`), sets sorted. policy-server reads the first section of that name, so an existing one
//! is replaced, never duplicated.
//!
//! This file is also compiled into the harness's build script (through `#[path]`) to annotate the freshly built
//! `palisade-kubewarden.wasm`, so it only uses std, serde, serde_json, palisade-yaml, wasmparser and wasm-encoder.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};
use wasm_encoder::Section as _;

/// The custom section policy-server and kwctl read the policy's metadata from.
pub const METADATA_SECTION: &str = "io.kubewarden.metadata";
/// The annotation kwctl fills from `--usage-path`.
pub const USAGE_ANNOTATION: &str = "io.kubewarden.policy.usage";

/// Why a module could not be annotated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnnotateError {
    /// A file could not be read.
    Read { path: String, reason: String },
    /// The output could not be written.
    Write { path: String, reason: String },
    /// `metadata.yml` is not YAML of the metadata's shape.
    Syntax(String),
    /// The metadata reads, but kwctl would refuse it: every problem, each with its field path.
    Invalid(Vec<String>),
    /// The module is not a WebAssembly module we can annotate.
    Module(String),
}

impl fmt::Display for AnnotateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { path, reason } => write!(f, "cannot read `{path}`: {reason}"),
            Self::Write { path, reason } => write!(f, "cannot write `{path}`: {reason}"),
            Self::Syntax(reason) => write!(f, "the metadata is not valid: {reason}"),
            Self::Invalid(problems) => {
                write!(f, "the metadata is invalid: {}", problems.join("; "))
            }
            Self::Module(reason) => write!(f, "cannot annotate the module: {reason}"),
        }
    }
}

impl std::error::Error for AnnotateError {}

/// policy-evaluator's `Rule`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Rule {
    api_groups: Vec<String>,
    api_versions: Vec<String>,
    resources: Vec<String>,
    operations: Vec<String>,
}

/// policy-evaluator's `ContextAwareResource`; ordered by apiVersion then kind, as upstream's derived `Ord`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ContextAwareResource {
    api_version: String,
    kind: String,
}

/// policy-evaluator's `Metadata`, field for field and in its order (the order of the JSON kwctl writes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Metadata {
    #[serde(default)]
    protocol_version: Option<String>,
    rules: Vec<Rule>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "annotation_values"
    )]
    annotations: Option<BTreeMap<String, String>>,
    mutating: bool,
    #[serde(default = "default_true")]
    background_audit: bool,
    #[serde(default = "default_execution_mode")]
    execution_mode: String,
    #[serde(default = "default_policy_type")]
    policy_type: String,
    #[serde(default)]
    context_aware_resources: BTreeSet<ContextAwareResource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    host_capabilities: Option<BTreeSet<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    minimum_kubewarden_version: Option<String>,
}

/// kwctl reads metadata.yml with serde_yaml, which gives a string field the text of whatever scalar is there
/// (`io.kubewarden.policy.version: 1.0` is `"1.0"`); palisade-yaml resolves scalars first, so an annotation written as
/// a number or a boolean is turned back into text here (as JSON writes the number: `1.10` reads as `"1.1"`).
fn annotation_values<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<BTreeMap<String, String>>, D::Error> {
    let map: Option<BTreeMap<String, serde_json::Value>> = Option::deserialize(d)?;
    map.map(|m| {
        m.into_iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => Ok((k, s)),
                serde_json::Value::Number(n) => Ok((k, n.to_string())),
                serde_json::Value::Bool(b) => Ok((k, b.to_string())),
                other => Err(serde::de::Error::custom(format!(
                    "annotation `{k}` must be a string, not `{other}`"
                ))),
            })
            .collect()
    })
    .transpose()
}

fn default_true() -> bool {
    true
}

fn default_execution_mode() -> String {
    "kubewarden-wapc".to_owned()
}

fn default_policy_type() -> String {
    "kubernetes".to_owned()
}

const EXECUTION_MODES: [&str; 4] = ["kubewarden-wapc", "opa", "gatekeeper", "wasi"];
const OPERATIONS: [&str; 5] = ["CREATE", "UPDATE", "DELETE", "CONNECT", "*"];
/// policy-evaluator's host-capability tree: every addressable operation.
const HOST_CAPABILITIES: [&str; 11] = [
    "oci/v1/verify",
    "oci/v1/manifest_digest",
    "oci/v1/oci_manifest",
    "oci/v1/oci_manifest_config",
    "oci/v2/verify",
    "net/v1/dns_lookup_host",
    "crypto/v1/is_certificate_trusted",
    "kubernetes/list_resources_by_namespace",
    "kubernetes/list_resources_all",
    "kubernetes/get_resource",
    "kubernetes/can_i",
];

/// A list with `*` must hold nothing else (policy-evaluator `validate_asterisk_usage`).
fn check_asterisk(path: &str, values: &[String], problems: &mut Vec<String>) {
    if values.is_empty() {
        problems.push(format!("{path}: must not be empty"));
    } else if values.len() > 1 && values.iter().any(|v| v == "*") {
        problems.push(format!(
            "{path}: No other elements can be defined when '*' is used"
        ));
    }
}

/// policy-evaluator `validate_resources`, itself a transposition of kube-apiserver's check; upstream's wording.
fn check_resources(path: &str, resources: &[String], problems: &mut Vec<String>) {
    if resources.is_empty() {
        problems.push(format!("{path}: must not be empty"));
        return;
    }
    let mut with_wildcard_subresource = BTreeSet::new();
    let mut subresource_with_wildcard_resource = BTreeSet::new();
    let mut has_double_wildcard = false;
    let mut has_single_wildcard = false;
    let mut has_resource_without_subresource = false;
    for resource in resources {
        if resource.is_empty() {
            problems.push(format!("{path}: empty resource is not allowed"));
            return;
        }
        match resource.as_str() {
            "*/*" => has_double_wildcard = true,
            "*" => has_single_wildcard = true,
            _ => {}
        }
        let Some((res, sub)) = resource.split_once('/') else {
            has_resource_without_subresource = resource != "*";
            continue;
        };
        if with_wildcard_subresource.contains(res) {
            problems.push(format!(
                "{path}: if '{resource}/*' is present, must not specify {res}"
            ));
            return;
        }
        if subresource_with_wildcard_resource.contains(sub) {
            problems.push(format!(
                "{path}: if '*/{sub}' is present, must not specify {resource}"
            ));
            return;
        }
        if sub == "*" {
            with_wildcard_subresource.insert(res);
        }
        if res == "*" {
            subresource_with_wildcard_resource.insert(sub);
        }
    }
    if resources.len() > 1 && has_double_wildcard {
        problems.push(format!(
            "{path}: if '*/*' is present, must not specify other resources"
        ));
    }
    if has_single_wildcard && has_resource_without_subresource {
        problems.push(format!(
            "{path}: if '*' is present, must not specify other resources without subresources"
        ));
    }
}

/// `*`, a known operation, or a known prefix followed by `/*`.
fn is_known_capability(pattern: &str) -> bool {
    if pattern == "*" {
        return true;
    }
    match pattern.strip_suffix("/*") {
        Some(prefix) => HOST_CAPABILITIES.iter().any(|c| {
            c.strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/'))
        }),
        None => HOST_CAPABILITIES.contains(&pattern),
    }
}

impl Metadata {
    fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !EXECUTION_MODES.contains(&self.execution_mode.as_str()) {
            problems.push(format!(
                "executionMode: unknown execution mode `{}`: expected one of {}",
                self.execution_mode,
                EXECUTION_MODES.join(", ")
            ));
        }
        if !["kubernetes", "raw"].contains(&self.policy_type.as_str()) {
            problems.push(format!(
                "policyType: unknown policy type `{}`: expected kubernetes or raw",
                self.policy_type
            ));
        }
        if self.execution_mode == "kubewarden-wapc" {
            match self.protocol_version.as_deref() {
                Some("v1") => {}
                None => problems
                    .push("protocolVersion: required for executionMode kubewarden-wapc".to_owned()),
                Some(other) => problems.push(format!(
                    "protocolVersion: Must specify a valid protocol version, not `{other}`"
                )),
            }
        }
        for (i, rule) in self.rules.iter().enumerate() {
            check_asterisk(
                &format!("rules[{i}].apiGroups"),
                &rule.api_groups,
                &mut problems,
            );
            check_asterisk(
                &format!("rules[{i}].apiVersions"),
                &rule.api_versions,
                &mut problems,
            );
            check_resources(
                &format!("rules[{i}].resources"),
                &rule.resources,
                &mut problems,
            );
            check_asterisk(
                &format!("rules[{i}].operations"),
                &rule.operations,
                &mut problems,
            );
            for op in rule
                .operations
                .iter()
                .filter(|op| !OPERATIONS.contains(&op.as_str()))
            {
                problems.push(format!("rules[{i}].operations: unknown operation `{op}`"));
            }
        }
        for (i, resource) in self.context_aware_resources.iter().enumerate() {
            if resource.api_version.is_empty() {
                problems.push(format!(
                    "contextAwareResources[{i}].apiVersion: must not be empty"
                ));
            }
            if resource.kind.is_empty() {
                problems.push(format!(
                    "contextAwareResources[{i}].kind: must not be empty"
                ));
            }
        }
        for capability in self
            .host_capabilities
            .iter()
            .flatten()
            .filter(|c| !is_known_capability(c))
        {
            problems.push(format!(
                "hostCapabilities: unknown host capability `{capability}`: expected `*`, `<prefix>/*` or one of {}",
                HOST_CAPABILITIES.join(", ")
            ));
        }
        problems
    }
}

/// `metadata.yml` (and an optional usage text, kwctl's `--usage-path`) as the JSON kwctl embeds.
pub fn metadata_json(metadata_yaml: &str, usage: Option<&str>) -> Result<Vec<u8>, AnnotateError> {
    let mut metadata: Metadata = palisade_yaml::from_str_as(metadata_yaml)
        .map_err(|e| AnnotateError::Syntax(e.to_string()))?;
    if metadata.execution_mode != "kubewarden-wapc" {
        // kwctl records `Unknown` for modules that do not speak the waPC protocol.
        metadata.protocol_version = Some("Unknown".to_owned());
    }
    if let Some(usage) = usage {
        metadata
            .annotations
            .get_or_insert_default()
            .insert(USAGE_ANNOTATION.to_owned(), usage.to_owned());
    }
    let problems = metadata.problems();
    if !problems.is_empty() {
        return Err(AnnotateError::Invalid(problems));
    }
    serde_json::to_vec(&metadata).map_err(|e| AnnotateError::Syntax(e.to_string()))
}

/// The module with `metadata_json` as its `io.kubewarden.metadata` section, replacing any it had. Every other section
/// is copied byte for byte, in order.
pub fn annotate(module: &[u8], metadata_json: &[u8]) -> Result<Vec<u8>, AnnotateError> {
    let mut out = Vec::with_capacity(module.len() + metadata_json.len() + 32);
    let mut exports_guest_call = false;
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        let payload = payload
            .map_err(|e| AnnotateError::Module(format!("not a valid WebAssembly module: {e}")))?;
        match &payload {
            wasmparser::Payload::Version {
                encoding, range, ..
            } => {
                if *encoding != wasmparser::Encoding::Module {
                    return Err(AnnotateError::Module(
                        "a component, not a core WebAssembly module".to_owned(),
                    ));
                }
                out.extend_from_slice(module.get(range.clone()).unwrap_or_default());
                continue;
            }
            wasmparser::Payload::ExportSection(exports) => {
                for export in exports.clone() {
                    let export = export
                        .map_err(|e| AnnotateError::Module(format!("unreadable export: {e}")))?;
                    exports_guest_call |= export.name == "__guest_call";
                }
            }
            wasmparser::Payload::CustomSection(custom) if custom.name() == METADATA_SECTION => {
                continue;
            }
            _ => {}
        }
        if let Some((id, range)) = payload.as_section() {
            let data = module.get(range).ok_or_else(|| {
                AnnotateError::Module("a section runs past the end of the module".to_owned())
            })?;
            wasm_encoder::RawSection { id, data }.append_to(&mut out);
        }
    }
    let is_wapc_metadata = serde_json::from_slice::<serde_json::Value>(metadata_json)
        .ok()
        .and_then(|m| {
            m.get("executionMode")
                .and_then(|v| v.as_str())
                .map(|v| v == "kubewarden-wapc")
        })
        .unwrap_or(true);
    if is_wapc_metadata && !exports_guest_call {
        return Err(AnnotateError::Module(
            "executionMode is kubewarden-wapc but the module is not a waPC guest (it does not export `__guest_call`)"
                .to_owned(),
        ));
    }
    wasm_encoder::CustomSection {
        name: METADATA_SECTION.into(),
        data: metadata_json.into(),
    }
    .append_to(&mut out);
    Ok(out)
}

/// The metadata embedded in a module, as policy-evaluator reads it: the first `io.kubewarden.metadata` section.
pub fn read_metadata(module: &[u8]) -> Result<Option<serde_json::Value>, AnnotateError> {
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        let payload = payload
            .map_err(|e| AnnotateError::Module(format!("not a valid WebAssembly module: {e}")))?;
        if let wasmparser::Payload::CustomSection(custom) = payload
            && custom.name() == METADATA_SECTION
        {
            return serde_json::from_slice(custom.data())
                .map(Some)
                .map_err(|e| {
                    AnnotateError::Module(format!(
                        "the `{METADATA_SECTION}` section is not JSON: {e}"
                    ))
                });
        }
    }
    Ok(None)
}

fn read(path: &Path) -> Result<Vec<u8>, AnnotateError> {
    std::fs::read(path).map_err(|e| AnnotateError::Read {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

fn read_text(path: &Path) -> Result<String, AnnotateError> {
    String::from_utf8(read(path)?).map_err(|e| AnnotateError::Read {
        path: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// Write through a temporary file beside the destination, so a reader never sees half a module.
fn write(path: &Path, bytes: &[u8]) -> Result<(), AnnotateError> {
    let error = |e: std::io::Error| AnnotateError::Write {
        path: path.display().to_string(),
        reason: e.to_string(),
    };
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".annotating");
    std::fs::write(&tmp, bytes).map_err(error)?;
    std::fs::rename(&tmp, path).map_err(error)
}

/// `palisade annotate -m METADATA [-u USAGE] -o OUTPUT MODULE`: read, annotate, write (OUTPUT may be MODULE).
pub fn annotate_paths(
    module: &Path,
    metadata: &Path,
    usage: Option<&Path>,
    output: &Path,
) -> Result<(), AnnotateError> {
    let usage = usage.map(read_text).transpose()?;
    let json = metadata_json(&read_text(metadata)?, usage.as_deref())?;
    let annotated = annotate(&read(module)?, &json)?;
    write(output, &annotated)
}

/// Annotate `module` in place with `metadata` (what the build script calls on `palisade-kubewarden.wasm`).
pub fn annotate_file(module: &Path, metadata: &Path) -> Result<(), AnnotateError> {
    annotate_paths(module, metadata, None, module)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A waPC-shaped module: exports `__guest_call`, with a custom section before and after it.
    fn wapc_module() -> Vec<u8> {
        let mut module = wasm_encoder::Module::new();
        module.section(&wasm_encoder::CustomSection {
            name: "before".into(),
            data: b"1".as_slice().into(),
        });
        let mut types = wasm_encoder::TypeSection::new();
        types.ty().function(
            [wasm_encoder::ValType::I32, wasm_encoder::ValType::I32],
            [wasm_encoder::ValType::I32],
        );
        module.section(&types);
        let mut functions = wasm_encoder::FunctionSection::new();
        functions.function(0);
        module.section(&functions);
        let mut exports = wasm_encoder::ExportSection::new();
        exports.export("__guest_call", wasm_encoder::ExportKind::Func, 0);
        module.section(&exports);
        let mut code = wasm_encoder::CodeSection::new();
        let mut f = wasm_encoder::Function::new([]);
        f.instructions().i32_const(1).end();
        code.function(&f);
        module.section(&code);
        module.section(&wasm_encoder::CustomSection {
            name: "after".into(),
            data: b"2".as_slice().into(),
        });
        module.finish()
    }

    fn custom_sections(module: &[u8]) -> Vec<(String, Vec<u8>)> {
        wasmparser::Parser::new(0)
            .parse_all(module)
            .filter_map(|p| match p.unwrap() {
                wasmparser::Payload::CustomSection(c) => {
                    Some((c.name().to_owned(), c.data().to_vec()))
                }
                _ => None,
            })
            .collect()
    }

    const MINIMAL: &str = "rules:\n- apiGroups: ['']\n  apiVersions: [v1]\n  resources: [pods]\n  operations: [CREATE]\nmutating: false\nprotocolVersion: v1\n";

    // upstream: kubewarden-controller crates/policy-evaluator/src/policy_metadata.rs metadata_init (the defaults a
    // metadata document gets: backgroundAudit true, executionMode kubewarden-wapc, policyType kubernetes)
    #[test]
    fn metadata_gets_upstream_defaults_and_field_order() {
        let json = metadata_json(MINIMAL, None).unwrap();
        assert_eq!(
            std::str::from_utf8(&json).unwrap(),
            r#"{"protocolVersion":"v1","rules":[{"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"operations":["CREATE"]}],"mutating":false,"backgroundAudit":true,"executionMode":"kubewarden-wapc","policyType":"kubernetes","contextAwareResources":[]}"#
        );
    }

    #[test]
    fn scalar_annotations_are_text_as_kwctl_reads_them() {
        let yaml = format!(
            "{MINIMAL}annotations:\n  io.kubewarden.policy.version: 1.0\n  a: true\n  b: 7\n"
        );
        let value: serde_json::Value =
            serde_json::from_slice(&metadata_json(&yaml, None).unwrap()).unwrap();
        assert_eq!(
            value["annotations"],
            serde_json::json!({"io.kubewarden.policy.version": "1.0", "a": "true", "b": "7"})
        );
        assert!(metadata_json(&format!("{MINIMAL}annotations: {{a: [1]}}\n"), None).is_err());
    }

    #[test]
    fn usage_becomes_an_annotation() {
        let json = metadata_json(MINIMAL, Some("# usage")).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(value["annotations"][USAGE_ANNOTATION], "# usage");
    }

    // upstream: kubewarden-controller crates/policy-evaluator/src/policy_metadata.rs metadata_validation_failure,
    // metadata_with_kubewarden_execution_mode_must_have_a_valid_protocol, validate_resource_* and
    // validate_context_aware_resource_without_{api_group,kind}
    #[test]
    fn invalid_metadata_lists_every_problem() {
        let cases = [
            (
                "rules:\n- apiGroups: ['', '*']\n  apiVersions: [v1]\n  resources: [pods]\n  operations: [CREATE]\nmutating: false\nprotocolVersion: v1\n",
                "rules[0].apiGroups: No other elements can be defined when '*' is used",
            ),
            (
                "rules:\n- apiGroups: []\n  apiVersions: [v1]\n  resources: [pods]\n  operations: [CREATE]\nmutating: false\nprotocolVersion: v1\n",
                "rules[0].apiGroups: must not be empty",
            ),
            (
                "rules:\n- apiGroups: ['']\n  apiVersions: [v1]\n  resources: [pods]\n  operations: ['*', CREATE]\nmutating: false\nprotocolVersion: v1\n",
                "rules[0].operations: No other elements can be defined when '*' is used",
            ),
            (
                "rules:\n- apiGroups: ['']\n  apiVersions: [v1]\n  resources: ['*', pods]\n  operations: [CREATE]\nmutating: false\nprotocolVersion: v1\n",
                "rules[0].resources: if '*' is present, must not specify other resources without subresources",
            ),
            (
                "rules:\n- apiGroups: ['']\n  apiVersions: [v1]\n  resources: ['*/*', pods]\n  operations: [CREATE]\nmutating: false\nprotocolVersion: v1\n",
                "rules[0].resources: if '*/*' is present, must not specify other resources",
            ),
            (
                "rules:\n- apiGroups: ['']\n  apiVersions: [v1]\n  resources: ['pods/*', pods/log]\n  operations: [CREATE]\nmutating: false\nprotocolVersion: v1\n",
                "rules[0].resources: if 'pods/log/*' is present, must not specify pods",
            ),
            (
                "rules:\n- apiGroups: ['']\n  apiVersions: [v1]\n  resources: ['*/a', b/a]\n  operations: [CREATE]\nmutating: false\nprotocolVersion: v1\n",
                "rules[0].resources: if '*/a' is present, must not specify b/a",
            ),
            (
                "rules: []\nmutating: false\nprotocolVersion: Unknown\n",
                "protocolVersion: Must specify a valid protocol version",
            ),
            ("rules: []\nmutating: false\n", "protocolVersion: required"),
            (
                "rules: []\nmutating: false\nprotocolVersion: v1\ncontextAwareResources: [{apiVersion: '', kind: Pod}]\n",
                "contextAwareResources[0].apiVersion: must not be empty",
            ),
            (
                "rules: []\nmutating: false\nprotocolVersion: v1\ncontextAwareResources: [{apiVersion: v1, kind: ''}]\n",
                "contextAwareResources[0].kind: must not be empty",
            ),
            (
                "rules: []\nmutating: false\nprotocolVersion: v1\nhostCapabilities: [kubernetes/get_resources]\n",
                "hostCapabilities: unknown host capability `kubernetes/get_resources`",
            ),
        ];
        for (yaml, needle) in cases {
            let err = metadata_json(yaml, None).unwrap_err();
            assert!(
                err.to_string().contains(needle),
                "`{err}` should contain `{needle}`"
            );
        }
        // upstream validate_resource_asterisk_can_coexist_with_resources_that_have_subresources and
        // validate_resource_foo_slash_asterisk_can_mix_with_foo
        for resources in ["['*', a/b, '*/a', 'c/*']", "['a/*', a]"] {
            let yaml = format!(
                "rules:\n- apiGroups: ['']\n  apiVersions: [v1]\n  resources: {resources}\n  operations: [CREATE]\nmutating: false\nprotocolVersion: v1\n"
            );
            metadata_json(&yaml, None).unwrap();
        }
        let two = metadata_json(
            "rules: []\nmutating: false\nexecutionMode: nope\npolicyType: weird\n",
            None,
        )
        .unwrap_err();
        let AnnotateError::Invalid(problems) = two else {
            panic!("{two:?}")
        };
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(matches!(
            metadata_json("rules: []\nmutating: false\nprotocolVersoin: v1\n", None),
            Err(AnnotateError::Syntax(_))
        ));
        assert!(matches!(
            metadata_json("rules: []\n", None),
            Err(AnnotateError::Syntax(_))
        ));
    }

    #[test]
    fn known_host_capability_patterns() {
        for ok in [
            "*",
            "kubernetes/*",
            "oci/*",
            "oci/v1/*",
            "kubernetes/can_i",
            "crypto/v1/is_certificate_trusted",
        ] {
            assert!(is_known_capability(ok), "{ok}");
        }
        for bad in [
            "kube/*",
            "oci/v3/*",
            "kubernetes/can",
            "kubernetes",
            "o*",
            "",
        ] {
            assert!(!is_known_capability(bad), "{bad}");
        }
    }

    #[test]
    fn annotating_adds_one_section_and_keeps_the_rest() {
        let module = wapc_module();
        let json = metadata_json(MINIMAL, None).unwrap();
        let once = annotate(&module, &json).unwrap();
        let twice = annotate(&once, &json).unwrap();
        assert_eq!(once, twice, "re-annotating replaces the section");
        assert!(
            once.starts_with(&module),
            "every original byte is kept, in order"
        );
        let sections = custom_sections(&once);
        assert_eq!(
            sections.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
            ["before", "after", METADATA_SECTION]
        );
        assert_eq!(
            read_metadata(&once).unwrap().unwrap(),
            serde_json::from_slice::<serde_json::Value>(&json).unwrap()
        );
        assert_eq!(read_metadata(&module).unwrap(), None);
        wasmparser::Validator::new().validate_all(&once).unwrap();
    }

    #[test]
    fn only_wapc_guests_take_wapc_metadata() {
        let not_wapc = wasm_encoder::Module::new().finish();
        let err = annotate(&not_wapc, &metadata_json(MINIMAL, None).unwrap()).unwrap_err();
        assert!(err.to_string().contains("not a waPC guest"), "{err}");
        let wasi =
            metadata_json("rules: []\nmutating: false\nexecutionMode: wasi\n", None).unwrap();
        assert!(
            std::str::from_utf8(&wasi)
                .unwrap()
                .contains(r#""protocolVersion":"Unknown""#)
        );
        annotate(&not_wapc, &wasi).unwrap();
        assert!(matches!(
            annotate(b"not wasm", &wasi),
            Err(AnnotateError::Module(_))
        ));
    }

    #[test]
    fn files_are_annotated_in_place() {
        let dir = std::env::temp_dir().join(format!("palisade-annotate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let module = dir.join("m.wasm");
        let metadata = dir.join("metadata.yml");
        std::fs::write(&module, wapc_module()).unwrap();
        std::fs::write(&metadata, MINIMAL).unwrap();
        annotate_file(&module, &metadata).unwrap();
        let annotated = std::fs::read(&module).unwrap();
        assert_eq!(
            read_metadata(&annotated).unwrap().unwrap()["protocolVersion"],
            "v1"
        );
        let missing = annotate_file(&dir.join("nope.wasm"), &metadata).unwrap_err();
        assert!(matches!(missing, AnnotateError::Read { .. }), "{missing}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The shipped metadata.yml is valid and declares what the guest uses.
    #[test]
    fn shipped_metadata_is_valid() {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../policies/kubewarden/metadata.yml");
        let json = metadata_json(&std::fs::read_to_string(path).unwrap(), None).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(value["protocolVersion"], "v1");
        assert_eq!(value["executionMode"], "kubewarden-wapc");
        assert_eq!(value["mutating"], false);
        assert_eq!(
            value["contextAwareResources"],
            serde_json::json!([{"apiVersion": "v1", "kind": "Namespace"}])
        );
        assert_eq!(
            value["hostCapabilities"],
            serde_json::json!(["kubernetes/can_i", "kubernetes/get_resource"])
        );
        for key in ["title", "description", "source", "license", "usage"] {
            let annotation = format!("io.kubewarden.policy.{key}");
            assert!(
                value["annotations"][&annotation]
                    .as_str()
                    .is_some_and(|s| !s.is_empty()),
                "{annotation}"
            );
        }
    }
}
