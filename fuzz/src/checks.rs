//! The checks of every fuzz target, shared by the libFuzzer targets (`fuzz/fuzz_targets/*.rs`, nightly, through
//! `fuzz/src/lib.rs`) and by the stable replay of the committed corpora (`host-harness/tests/fuzz_corpus.rs`, which
//! includes this file with `#[path]`). Each `check_*` function takes one raw input and panics (through `assert!`)
//! only when Palisade breaks its promise: every input, however malformed, gets a well-formed answer.
//!
//! Dependencies: `palisade`, `palisade-harness`, `palisade-cel`, `palisade-certificates`, `serde_json`, `arbitrary`.

use std::cell::RefCell;

use serde_json::{Value, json};

/// The targets, in the order of `fuzz/README.md`; each has a corpus directory `fuzz/corpus/<name>/`.
pub const TARGETS: &[&str] = &[
    "review_reader",
    "bundle_json",
    "bundle_yaml",
    "csr_decoder",
    "cel",
    "api",
    "differential",
    "webhook",
    "kubewarden",
];

/// Runs the check of `target` on `data` (the stable corpus replay dispatches through this).
pub fn check(target: &str, data: &[u8]) {
    match target {
        "review_reader" => check_review_reader(data),
        "bundle_json" => check_bundle_json(data),
        "bundle_yaml" => check_bundle_yaml(data),
        "csr_decoder" => check_csr_decoder(data),
        "cel" => check_cel(data),
        "api" => check_api(data),
        "differential" => check_differential(data),
        "webhook" => check_webhook(data),
        "kubewarden" => check_kubewarden(data),
        other => unreachable!("no fuzz target `{other}`"),
    }
}

/// A small, valid review the bundle targets run through every engine they manage to build.
pub const FIXED_REVIEW: &str = r#"{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"fixed-uid","kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},"namespace":"default","operation":"CREATE","userInfo":{"username":"alice","groups":["system:authenticated"]},"object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default","labels":{"app":"web"}},"spec":{"replicas":3,"containers":[{"name":"c","image":"registry.example.com/app:1","securityContext":{"privileged":false}}]}}}}"#;

/// The answer of `validate` must be an AdmissionReview: `kind`, a string `apiVersion`, a `response` object with a
/// bool `allowed` and a string `uid`; when the input carries a `request.uid` string readable by
/// [`palisade::review::identity`], the answer echoes it, and the apiVersion too when it is one Palisade speaks.
pub fn check_answer(input: &[u8], answer: &str) -> Value {
    let review: Value = match serde_json::from_str(answer) {
        Ok(v) => v,
        Err(e) => unreachable!("the answer is not JSON ({e}): {answer}"),
    };
    assert_eq!(
        review.get("kind").and_then(Value::as_str),
        Some("AdmissionReview"),
        "{answer}"
    );
    let api_version = review.get("apiVersion").and_then(Value::as_str);
    assert!(
        api_version == Some("admission.k8s.io/v1")
            || api_version == Some("admission.k8s.io/v1beta1"),
        "{answer}"
    );
    let response = review.get("response");
    assert!(
        response.is_some_and(Value::is_object),
        "no response object: {answer}"
    );
    let response = response.unwrap_or(&Value::Null);
    assert!(
        response.get("allowed").is_some_and(Value::is_boolean),
        "response.allowed is not a bool: {answer}"
    );
    let uid = response.get("uid").and_then(Value::as_str);
    assert!(uid.is_some(), "response.uid is not a string: {answer}");
    let identity = palisade::review::identity(input);
    if let Some(expected) = &identity.uid {
        assert_eq!(
            uid,
            Some(expected.as_str()),
            "the answer does not echo the request uid: {answer}"
        );
    }
    if let Some(expected) = identity
        .api_version
        .as_deref()
        .filter(|v| *v == "admission.k8s.io/v1" || *v == "admission.k8s.io/v1beta1")
    {
        assert_eq!(
            api_version,
            Some(expected),
            "the answer is not in the review's apiVersion: {answer}"
        );
    }
    review
}

/// The answer of `configure` must be JSON with a bool `valid`, true exactly when the bundle compiled.
pub fn check_configure_answer(configured: &palisade::api::Configured) {
    let answer = configured.answer();
    let parsed: Value = match serde_json::from_str(&answer) {
        Ok(v) => v,
        Err(e) => unreachable!("the configure answer is not JSON ({e}): {answer}"),
    };
    assert_eq!(
        parsed.get("valid").and_then(Value::as_bool),
        Some(configured.engine().is_some()),
        "{answer}"
    );
    if configured.engine().is_none() {
        assert!(
            parsed.get("message").is_some_and(Value::is_string),
            "{answer}"
        );
    }
}

/// A configured engine decides [`FIXED_REVIEW`] with a well-formed answer.
fn check_engine_answers(engine: palisade::Engine) {
    let answer = palisade::api::Configured::Ready(engine).validate(FIXED_REVIEW.as_bytes());
    check_answer(FIXED_REVIEW.as_bytes(), &answer);
}

thread_local! {
    static EMPTY_ENGINE: RefCell<Option<palisade::api::Configured>> = const { RefCell::new(None) };
}

/// `review_reader`: arbitrary bytes through `validate` with the empty bundle `{}`.
pub fn check_review_reader(data: &[u8]) {
    EMPTY_ENGINE.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            match palisade::api::configure(b"{}") {
                ready @ palisade::api::Configured::Ready(_) => *slot = Some(ready),
                other => unreachable!("the empty bundle must compile: {}", other.answer()),
            }
        }
        if let Some(configured) = slot.as_ref() {
            let answer = configured.validate(data);
            check_answer(data, &answer);
        }
    });
    check_deep_reader(data);
    check_tape_reader(data);
    if let Err(e) = palisade::api::check_tape_reading(data) {
        panic!("the review read from its tape differs from serde_json's reading: {e}");
    }
}

/// The tape (`palisade::json::Doc`, what `object` and `oldObject` are read into) against serde_json as the oracle:
/// within serde_json's depth it accepts exactly what serde_json's `Value` accepts, to the same value (numbers as
/// serde_json prints them, so `-0.0` and big integers count, a double exact where serde_json's default reading may be
/// one unit in the last place off); at any depth it accepts what the deep reader accepts.
fn check_tape_reader(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let shallow = palisade::json::Doc::parse_with_depth(text, palisade::review::deep::SERDE_DEPTH);
    match serde_json::from_str::<Value>(text) {
        Ok(theirs) => {
            let ours = shallow.as_ref().ok().map(|d| d.to_value().to_string());
            assert!(
                ours.as_deref()
                    .is_some_and(|ours| palisade::json::same_but_doubles(
                        ours,
                        &theirs.to_string()
                    )),
                "the tape must read what serde_json reads, to the same value (a double exact): {ours:?}, {theirs}"
            );
        }
        Err(e) => assert!(
            shallow.is_err(),
            "the tape must refuse what serde_json refuses ({e})"
        ),
    }
    let deep = palisade::json::Doc::parse_with_depth(
        text,
        palisade::review::deep::MAX_DEPTH + palisade::review::deep::ENVELOPE_DEPTH,
    );
    let oracle = palisade::review::deep::parse(text);
    assert_eq!(
        deep.is_ok(),
        oracle.is_ok(),
        "the tape must accept what the deep reader accepts, at any depth"
    );
    if let Ok(value) = oracle {
        palisade::review::deep::release(value);
    }
}

/// The deep reader (`palisade::review::deep`, for objects nested deeper than serde_json's 128 levels) against
/// serde_json as the oracle: what serde_json reads, it reads to the same value (a double exact); what serde_json refuses for any reason
/// but depth, it refuses too; and it never panics.
fn check_deep_reader(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ours = palisade::review::deep::parse(text);
    match serde_json::from_str::<Value>(text) {
        Ok(theirs) => assert!(
            ours.as_ref()
                .is_ok_and(|ours| palisade::json::same_but_doubles(
                    &ours.to_string(),
                    &theirs.to_string()
                )),
            "the deep reader must read what serde_json reads (a double exact): {ours:?}"
        ),
        Err(e) if e.to_string().starts_with("recursion limit exceeded") => {}
        Err(e) => assert!(
            ours.is_err(),
            "the deep reader must refuse what serde_json refuses ({e})"
        ),
    }
    if let Ok(value) = ours {
        palisade::review::deep::release(value);
    }
}

/// `bundle_json`: arbitrary bytes through `configure`; a bundle that compiles then decides [`FIXED_REVIEW`].
pub fn check_bundle_json(data: &[u8]) {
    let configured = palisade::api::configure(data);
    check_configure_answer(&configured);
    if let palisade::api::Configured::Ready(engine) = configured {
        check_engine_answers(engine);
    }
}

/// `bundle_yaml`: arbitrary text read as the harness reads a bundle file (JSON or a YAML stream), then compiled.
pub fn check_bundle_yaml(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(docs) = palisade_harness::documents::parse_documents(text) else {
        return;
    };
    let bundle = palisade_harness::documents::bundle_from_documents(docs);
    let configured = palisade::api::configure_value(&bundle);
    check_configure_answer(&configured);
    if let palisade::api::Configured::Ready(engine) = configured {
        check_engine_answers(engine);
    }
}

/// The policies the CSR target evaluates every request against: public-ingress's constraints and an open policy
/// whose `allowed` block reads every field of the CSR.
fn csr_policies() -> Value {
    json!([
        {
            "apiVersion": "policy.cert-manager.io/v1alpha1",
            "kind": "CertificateRequestPolicy",
            "metadata": {"name": "a-constrained"},
            "spec": {
                "allowed": {
                    "commonName": {"value": "*.example.com"},
                    "dnsNames": {"required": true, "values": ["example.com", "*.example.com"]},
                    "usages": ["digital signature", "key encipherment", "server auth"]
                },
                "constraints": {
                    "minDuration": "720h",
                    "maxDuration": "2160h",
                    "privateKey": {"algorithm": "RSA", "minSize": 2048, "maxSize": 4096}
                },
                "selector": {"issuerRef": {}}
            }
        },
        {
            "apiVersion": "policy.cert-manager.io/v1alpha1",
            "kind": "CertificateRequestPolicy",
            "metadata": {"name": "b-open"},
            "spec": {
                "allowed": {
                    "commonName": {"value": "*", "validations": [{"rule": "self.size() < 200", "message": "long"}]},
                    "dnsNames": {"values": ["*"], "validations": [{"rule": "!self.startsWith('x')"}]},
                    "ipAddresses": {"values": ["*"]},
                    "uris": {"values": ["*"]},
                    "emailAddresses": {"values": ["*"]},
                    "isCA": true,
                    "usages": ["signing", "digital signature", "content commitment", "key encipherment", "key agreement",
                               "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any",
                               "server auth", "client auth", "code signing", "email protection", "s/mime",
                               "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing",
                               "microsoft sgc", "netscape sgc"],
                    "subject": {
                        "organizations": {"values": ["*"]},
                        "countries": {"values": ["*"]},
                        "organizationalUnits": {"values": ["*"]},
                        "localities": {"values": ["*"]},
                        "provinces": {"values": ["*"]},
                        "streetAddresses": {"values": ["*"]},
                        "postalCodes": {"values": ["*"]},
                        "serialNumber": {"value": "*"}
                    }
                },
                "selector": {"issuerRef": {}}
            }
        }
    ])
}

struct AllowAll;

impl palisade::Cluster for AllowAll {
    fn namespace(&self, name: &str) -> Result<Option<Value>, palisade::HostError> {
        Ok(Some(json!({"metadata": {"name": name}})))
    }
    fn authorize(
        &self,
        _query: &palisade::AccessQuery,
    ) -> Result<palisade::AccessDecision, palisade::HostError> {
        Ok(true.into())
    }
}

thread_local! {
    static CSR_POLICIES: RefCell<Option<palisade_certificates::Policies>> = const { RefCell::new(None) };
}

/// Standard base64 with padding (Go's `StdEncoding`, what `spec.request` holds).
pub fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let symbol = |i: u32| char::from(ALPHABET[(i & 63) as usize]);
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b0 = u32::from(chunk[0]);
        let b1 = u32::from(chunk.get(1).copied().unwrap_or(0));
        let b2 = u32::from(chunk.get(2).copied().unwrap_or(0));
        let n = (b0 << 16) | (b1 << 8) | b2;
        out.push(symbol(n >> 18));
        out.push(symbol(n >> 12));
        out.push(if chunk.len() > 1 { symbol(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { symbol(n) } else { '=' });
    }
    out
}

/// A PEM `CERTIFICATE REQUEST` block around `der`, 64 columns as Go writes it.
pub fn pem_csr(der: &[u8]) -> String {
    let body = base64(der);
    let mut out = String::from("-----BEGIN CERTIFICATE REQUEST-----\n");
    let mut rest = body.as_str();
    while !rest.is_empty() {
        let (line, tail) = rest.split_at(rest.len().min(64));
        out.push_str(line);
        out.push('\n');
        rest = tail;
    }
    out.push_str("-----END CERTIFICATE REQUEST-----\n");
    out
}

/// `csr_decoder`: arbitrary bytes as a CSR in a CertificateRequest's `spec.request`: bytes that start like PEM are
/// taken as the PEM text, anything else as DER wrapped in a PEM block. The decision must be one of the four verdicts,
/// each with its message (never a panic); the CR also goes through the whole engine as a review.
pub fn check_csr_decoder(data: &[u8]) {
    let pem = if data.starts_with(b"-----BEGIN") {
        data.to_vec()
    } else {
        pem_csr(data).into_bytes()
    };
    let cr = json!({
        "apiVersion": "cert-manager.io/v1",
        "kind": "CertificateRequest",
        "metadata": {"name": "fuzz", "namespace": "default"},
        "spec": {
            "request": base64(&pem),
            "username": "alice",
            "groups": ["system:authenticated"],
            "duration": "1000h",
            "isCA": false,
            "usages": ["digital signature", "key encipherment", "server auth"],
            "issuerRef": {"name": "issuer", "kind": "ClusterIssuer", "group": "cert-manager.io"}
        }
    });
    CSR_POLICIES.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let docs = csr_policies();
            let list: Vec<(usize, &Value)> = docs
                .as_array()
                .map(|a| a.iter().enumerate().collect())
                .unwrap_or_default();
            match palisade_certificates::Policies::compile(
                &list,
                palisade_certificates::Settings::default(),
            ) {
                Ok(p) => *slot = Some(p),
                Err(e) => unreachable!("the CSR target's policies must compile: {e:?}"),
            }
        }
        if let Some(policies) = slot.as_ref() {
            match policies.evaluate(&cr, &AllowAll) {
                palisade_certificates::Decision::Approved { policy } => {
                    assert!(!policy.is_empty());
                }
                palisade_certificates::Decision::Denied { message }
                | palisade_certificates::Decision::Error { message }
                | palisade_certificates::Decision::Unmatched { message } => {
                    assert!(!message.is_empty());
                }
            }
        }
    });
}

/// The object, old object, request and params a fuzzed CEL expression is evaluated against.
fn cel_fixture() -> (Value, Value, Value, Value) {
    let object = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web", "tier": "front"},
                     "annotations": {"a": "1"}, "creationTimestamp": "2024-01-01T00:00:00Z"},
        "spec": {"replicas": 3, "ratio": 0.5, "paused": false, "quantity": "100Mi",
                 "template": {"spec": {"containers": [
                     {"name": "c", "image": "registry.example.com/app:1", "ports": [{"containerPort": 80}],
                      "resources": {"limits": {"cpu": "500m", "memory": "1Gi"}}},
                     {"name": "d", "image": "docker.io/library/nginx", "securityContext": {"privileged": true}}
                 ]}}},
        "status": null
    });
    let old =
        json!({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"replicas": 2}});
    let request = json!({
        "uid": "u", "operation": "UPDATE", "namespace": "default", "name": "web",
        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
        "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
        "dryRun": false
    });
    let params =
        json!({"data": {"max": "5", "registry": "registry.example.com"}, "maxReplicas": 5});
    (object, old, request, params)
}

/// `cel`: arbitrary text compiled in the admission environment (any result type); when it compiles, evaluated
/// against a small deployment under the Kubernetes budget; and compiled in approver-policy's environment (its own
/// `format`, cost model and unfolded literals), evaluated with `self` and `cr` when it compiles there. Any `Ok`/`Err`
/// is fine; a panic or overflow is not. On a wasm-sized stack ([`on_a_wasm_sized_stack`]).
pub fn check_cel(data: &[u8]) {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    let source = source.to_owned();
    on_a_wasm_sized_stack(move || compile_and_evaluate(&source));
}

/// [`check_cel`]'s work, on its thread.
fn compile_and_evaluate(source: &str) {
    if let Ok(program) =
        palisade_cel::Env::certificate_request().compile(source, palisade_cel::Expect::Any)
    {
        let text = |s: &'static str| palisade_cel::Value::string(s);
        let cr = palisade_cel::Value::map(vec![
            (text("name"), text("req")),
            (text("namespace"), text("team-a")),
            (text("username"), text("system:serviceaccount:team-a:app")),
            (
                text("groups"),
                palisade_cel::Value::list(vec![text("system:authenticated")]),
            ),
        ]);
        let act = palisade_cel::Activation::new()
            .bind("self", text("db.team-a.svc"))
            .bind("cr", cr);
        let _ = program.eval(&act, &mut palisade_cel::Budget::kubernetes());
    }
    let env = palisade_cel::Env::admission();
    let Ok(program) = env.compile(source, palisade_cel::Expect::Any) else {
        return;
    };
    let (object, old, request, params) = cel_fixture();
    let act = palisade_cel::Activation::new()
        .bind_json("object", Some(&object))
        .bind_json("oldObject", Some(&old))
        .bind_json("request", Some(&request))
        .bind_json("params", Some(&params));
    let mut budget = palisade_cel::Budget::kubernetes();
    let _ = program.eval(&act, &mut budget);
}

/// One fuzzed policy + binding + review, as JSON texts. Drawn from an `arbitrary::Unstructured`, so libFuzzer's
/// mutations of the raw bytes move through the space of well-shaped bundles.
pub struct Structured {
    pub bundle: String,
    pub review: String,
}

const CEL_ATOMS: &[&str] = &[
    "object",
    "oldObject",
    "request",
    "params",
    "namespaceObject",
    "variables.v",
    "object.metadata.name",
    "object.metadata.labels",
    "object.spec.replicas",
    "object.spec.containers",
    "request.operation",
    "request.userInfo.username",
    "params.max",
    "1",
    "0",
    "-1",
    "9223372036854775807",
    "1u",
    "2.5",
    "'a'",
    "\"web\"",
    "b'x'",
    "true",
    "false",
    "null",
    "[]",
    "{}",
    "[1, 2, 3]",
    "{'a': 1}",
    "duration('1h')",
    "timestamp('2024-01-01T00:00:00Z')",
    "quantity('1Gi')",
];

const CEL_OPS: &[&str] = &[
    " == ", " != ", " < ", " <= ", " > ", " >= ", " && ", " || ", " + ", " - ", " * ", " / ",
    " % ", " in ",
];

const CEL_CALLS: &[&str] = &[
    "size(#)",
    "has(#.metadata)",
    "!#",
    "-#",
    "(#)",
    "#.all(x, x == x)",
    "#.exists(x, true)",
    "#.map(x, x)",
    "#.filter(x, false)",
    "#.exists_one(x, true)",
    "string(#)",
    "int(#)",
    "double(#)",
    "type(#)",
    "#.startsWith('a')",
    "#.matches('^[a-z]+$')",
    "#.split(',')",
    "#.lowerAscii()",
    "#.size()",
    "#[0]",
    "#['a']",
    "#.?a.orValue(1)",
    "#.transformMapEntry(k, v, {v: k})",
    "#.transformMap(k, v, v)",
    "# ? 1 : 2",
    "isURL(#)",
    "#.isSorted()",
    "#.sum()",
    "#.sortBy(x, x)",
    "lists.range(14).sortBy(i, #)",
    "dyn(#)",
    "[#, #]",
    "{'k': #}",
];

fn pick<'a>(u: &mut arbitrary::Unstructured<'_>, from: &[&'a str]) -> arbitrary::Result<&'a str> {
    u.choose(from).copied()
}

/// A CEL expression: a small random tree over atoms, operators and calls, or (sometimes) raw fuzzed text.
fn cel_expr(u: &mut arbitrary::Unstructured<'_>, depth: u32) -> arbitrary::Result<String> {
    let choice: u8 = u.int_in_range(0..=9)?;
    if depth > 4 || choice < 3 {
        return Ok(pick(u, CEL_ATOMS)?.to_owned());
    }
    match choice {
        3 | 4 => {
            let a = cel_expr(u, depth + 1)?;
            let op = pick(u, CEL_OPS)?;
            let b = cel_expr(u, depth + 1)?;
            Ok(format!("{a}{op}{b}"))
        }
        5..=7 => {
            let call = pick(u, CEL_CALLS)?;
            let inner = cel_expr(u, depth + 1)?;
            Ok(call.replace('#', &inner))
        }
        8 => {
            let raw: String = u.arbitrary()?;
            Ok(raw.chars().take(64).collect())
        }
        _ => Ok(format!("{}.{}", cel_expr(u, depth + 1)?, ident(u)?)),
    }
}

fn ident(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<String> {
    Ok(pick(
        u,
        &[
            "metadata",
            "name",
            "labels",
            "spec",
            "a",
            "b",
            "x",
            "replicas",
            "namespace",
            "image",
            "kind",
            "f-g",
            "__dot__",
            "in",
            "",
        ],
    )?
    .to_owned())
}

fn small_string(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<String> {
    if u.ratio(3, 4)? {
        return Ok(pick(
            u,
            &[
                "",
                "*",
                "a",
                "web",
                "app",
                "default",
                "kube-system",
                "v1",
                "apps",
                "pods",
                "deployments",
                "pods/status",
                "*/scale",
                "CREATE",
                "UPDATE",
                "DELETE",
                "CONNECT",
                "Deny",
                "Warn",
                "Audit",
                "Fail",
                "Ignore",
                "Equivalent",
                "Exact",
                "In",
                "NotIn",
                "Exists",
                "DoesNotExist",
                "example.com/x",
                "-bad-",
                "a.b/c",
            ],
        )?
        .to_owned());
    }
    let raw: String = u.arbitrary()?;
    Ok(raw.chars().take(32).collect())
}

fn string_list(u: &mut arbitrary::Unstructured<'_>, max: usize) -> arbitrary::Result<Value> {
    let n = u.int_in_range(0..=max)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        out.push(Value::String(small_string(u)?));
    }
    Ok(Value::Array(out))
}

fn selector(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Value> {
    let mut sel = serde_json::Map::new();
    if u.arbitrary()? {
        let mut labels = serde_json::Map::new();
        for _ in 0..u.int_in_range(0..=2)? {
            labels.insert(small_string(u)?, Value::String(small_string(u)?));
        }
        sel.insert("matchLabels".into(), Value::Object(labels));
    }
    if u.arbitrary()? {
        let mut exprs = Vec::new();
        for _ in 0..u.int_in_range(0..=2)? {
            let mut e = serde_json::Map::new();
            e.insert("key".into(), Value::String(small_string(u)?));
            e.insert("operator".into(), Value::String(small_string(u)?));
            if u.arbitrary()? {
                e.insert("values".into(), string_list(u, 3)?);
            }
            exprs.push(Value::Object(e));
        }
        sel.insert("matchExpressions".into(), Value::Array(exprs));
    }
    Ok(Value::Object(sel))
}

fn rules(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Value> {
    let mut out = Vec::new();
    for _ in 0..u.int_in_range(0..=2)? {
        let mut r = serde_json::Map::new();
        r.insert("apiGroups".into(), string_list(u, 2)?);
        r.insert("apiVersions".into(), string_list(u, 2)?);
        r.insert("operations".into(), string_list(u, 2)?);
        r.insert("resources".into(), string_list(u, 2)?);
        if u.arbitrary()? {
            r.insert("scope".into(), Value::String(small_string(u)?));
        }
        if u.arbitrary()? {
            r.insert("resourceNames".into(), string_list(u, 2)?);
        }
        out.push(Value::Object(r));
    }
    Ok(Value::Array(out))
}

fn match_resources(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Value> {
    let mut m = serde_json::Map::new();
    m.insert("resourceRules".into(), rules(u)?);
    if u.arbitrary()? {
        m.insert("excludeResourceRules".into(), rules(u)?);
    }
    if u.arbitrary()? {
        m.insert("namespaceSelector".into(), selector(u)?);
    }
    if u.arbitrary()? {
        m.insert("objectSelector".into(), selector(u)?);
    }
    if u.arbitrary()? {
        m.insert("matchPolicy".into(), Value::String(small_string(u)?));
    }
    Ok(Value::Object(m))
}

impl Structured {
    /// Draws a bundle (one ValidatingAdmissionPolicy with fuzzed CEL, its binding, maybe a ConfigMap param) and a
    /// review (a pod or deployment, maybe with an old object and a context).
    pub fn draw(u: &mut arbitrary::Unstructured<'_>) -> arbitrary::Result<Self> {
        let mut spec = serde_json::Map::new();
        spec.insert("failurePolicy".into(), Value::String(small_string(u)?));
        spec.insert("matchConstraints".into(), match_resources(u)?);
        let with_params = u.arbitrary()?;
        if with_params {
            spec.insert(
                "paramKind".into(),
                json!({"apiVersion": "v1", "kind": "ConfigMap"}),
            );
        }
        let mut variables = Vec::new();
        for _ in 0..u.int_in_range(0..=2)? {
            variables
                .push(json!({"name": pick(u, &["v", "w", "x"])?, "expression": cel_expr(u, 0)?}));
        }
        spec.insert("variables".into(), Value::Array(variables));
        let mut conditions = Vec::new();
        for i in 0..u.int_in_range(0..=2)? {
            conditions.push(json!({"name": format!("c{i}"), "expression": cel_expr(u, 0)?}));
        }
        spec.insert("matchConditions".into(), Value::Array(conditions));
        let mut validations = Vec::new();
        for _ in 0..u.int_in_range(1..=3)? {
            let mut v = serde_json::Map::new();
            v.insert("expression".into(), Value::String(cel_expr(u, 0)?));
            if u.arbitrary()? {
                v.insert("message".into(), Value::String(small_string(u)?));
            }
            if u.arbitrary()? {
                v.insert("messageExpression".into(), Value::String(cel_expr(u, 0)?));
            }
            if u.arbitrary()? {
                v.insert("reason".into(), Value::String(small_string(u)?));
            }
            validations.push(Value::Object(v));
        }
        spec.insert("validations".into(), Value::Array(validations));
        if u.arbitrary()? {
            spec.insert(
                "auditAnnotations".into(),
                json!([{"key": small_string(u)?, "valueExpression": cel_expr(u, 0)?}]),
            );
        }
        let policy = json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": "fuzz"},
            "spec": spec,
        });
        let mut binding_spec = serde_json::Map::new();
        binding_spec.insert("policyName".into(), json!("fuzz"));
        binding_spec.insert(
            "validationActions".into(),
            if u.arbitrary()? {
                json!(["Deny"])
            } else {
                string_list(u, 2)?
            },
        );
        if u.arbitrary()? {
            binding_spec.insert("matchResources".into(), match_resources(u)?);
        }
        if with_params {
            let param_ref = if u.arbitrary()? {
                json!({"name": "p", "namespace": "default"})
            } else {
                json!({"selector": selector(u)?, "parameterNotFoundAction": small_string(u)?})
            };
            binding_spec.insert("paramRef".into(), param_ref);
        }
        let binding = json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "fuzz-binding"},
            "spec": binding_spec,
        });
        let params = json!([{
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "p", "namespace": "default", "labels": {"app": "web"}},
            "data": {"max": small_string(u)?}
        }]);
        let bundle = json!({"policies": [policy, binding], "params": params});

        let (group, kind, resource) = if u.arbitrary()? {
            ("", "Pod", "pods")
        } else {
            ("apps", "Deployment", "deployments")
        };
        let operation = pick(u, &["CREATE", "UPDATE", "DELETE", "CONNECT"])?;
        let mut labels = serde_json::Map::new();
        for _ in 0..u.int_in_range(0..=2)? {
            labels.insert(small_string(u)?, Value::String(small_string(u)?));
        }
        let replicas: i64 = u.arbitrary()?;
        let object = json!({
            "apiVersion": if group.is_empty() { "v1".to_owned() } else { format!("{group}/v1") },
            "kind": kind,
            "metadata": {"name": small_string(u)?, "namespace": "default", "labels": labels},
            "spec": {"replicas": replicas, "containers": [{"name": "c", "image": small_string(u)?}]}
        });
        let mut request = json!({
            "uid": small_string(u)?,
            "kind": {"group": group, "version": "v1", "kind": kind},
            "resource": {"group": group, "version": "v1", "resource": resource},
            "namespace": "default",
            "name": "web",
            "operation": operation,
            "userInfo": {"username": small_string(u)?, "groups": string_list(u, 2)?},
        });
        if operation != "DELETE"
            && let Some(r) = request.as_object_mut()
        {
            r.insert("object".into(), object.clone());
        }
        if operation != "CREATE"
            && let Some(r) = request.as_object_mut()
        {
            r.insert("oldObject".into(), object);
        }
        let mut review = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request});
        if u.arbitrary()? {
            review = json!({
                "review": review,
                "context": {"namespaces": [{"metadata": {"name": "default", "labels": {"env": small_string(u)?}}}]}
            });
        }
        Ok(Structured {
            bundle: bundle.to_string(),
            review: review.to_string(),
        })
    }
}

/// `api`: a structured bundle and review (see [`Structured::draw`]) through `api::review_json`.
pub fn check_api(data: &[u8]) {
    let mut u = arbitrary::Unstructured::new(data);
    let Ok(drawn) = Structured::draw(&mut u) else {
        return;
    };
    check_configure_answer(&palisade::api::configure(drawn.bundle.as_bytes()));
    let answer = palisade::api::review_json(&drawn.bundle, &drawn.review);
    check_answer(drawn.review.as_bytes(), &answer);
}

/// `webhook`: a ValidatingWebhookConfiguration (or a JSON list of documents to pick it from), a review and an optional
/// context, JSON texts split at `0xFF`, through kube-apiserver's dispatch (`palisade::webhook`) with a webhook that
/// allows, as the harness and the playground run it. Never a panic; an admission answer has a bool `allowed` and
/// echoes the review's string uid; a skip or an error says why.
pub fn check_webhook(data: &[u8]) {
    let mut parts = data.split(|b| *b == 0xFF);
    let (Some(configuration), Some(review)) = (parts.next(), parts.next()) else {
        return;
    };
    let (Ok(configuration), Ok(review)) = (
        serde_json::from_slice::<Value>(configuration),
        serde_json::from_slice::<Value>(review),
    ) else {
        return;
    };
    let context = parts
        .next()
        .and_then(|c| serde_json::from_slice::<Value>(c).ok());
    let documents = match configuration {
        Value::Array(documents) => documents,
        one => vec![one],
    };
    let Ok(configuration) = palisade::webhook::pick_configuration(documents) else {
        return;
    };
    let mut allow = |call: &palisade::webhook::Call<'_>| {
        Ok(json!({
            "apiVersion": call.review.get("apiVersion").cloned().unwrap_or(Value::Null),
            "kind": "AdmissionReview",
            "response": {
                "uid": call.review.pointer("/request/uid").cloned().unwrap_or(Value::Null),
                "allowed": true
            }
        }))
    };
    match palisade::webhook::apply(&configuration, &review, context.as_ref(), &mut allow) {
        Ok(palisade::webhook::Dispatched::Response(response)) => {
            assert!(
                response.get("allowed").and_then(Value::as_bool).is_some(),
                "{response}"
            );
            if let Some(uid) = review.pointer("/request/uid").and_then(Value::as_str) {
                assert_eq!(
                    response.get("uid").and_then(Value::as_str),
                    Some(uid),
                    "{response}"
                );
            }
        }
        Ok(palisade::webhook::Dispatched::Skipped(why)) => assert!(!why.is_empty()),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Splits a differential input into (bundle, review): the bytes before the first `0xFF` (never part of UTF-8) are
/// the bundle, those after it the review; without an `0xFF` the bundle is `{}` and everything is the review.
pub fn split_differential(data: &[u8]) -> (String, String) {
    match data.iter().position(|b| *b == 0xFF) {
        Some(at) => (
            String::from_utf8_lossy(data.get(..at).unwrap_or_default()).into_owned(),
            String::from_utf8_lossy(data.get(at + 1..).unwrap_or_default()).into_owned(),
        ),
        None => ("{}".to_owned(), String::from_utf8_lossy(data).into_owned()),
    }
}

/// Where the built module `name` is: `$PALISADE_WASM_DIR/<name>` (as the harness tests), or `target/wasm/<name>` of
/// this checkout (both crates that include this file lie one level below it).
fn built_module(name: &str) -> std::path::PathBuf {
    match std::env::var_os("PALISADE_WASM_DIR") {
        Some(dir) => std::path::PathBuf::from(dir).join(name),
        None => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../target/wasm")
            .join(name),
    }
}

/// Where the built C ABI module is: `$PALISADE_WASM`, else [`built_module`]'s `palisade.wasm`.
pub fn wasm_path() -> std::path::PathBuf {
    match std::env::var_os("PALISADE_WASM") {
        Some(p) => p.into(),
        None => built_module("palisade.wasm"),
    }
}

fn wasm_host() -> &'static palisade_harness::WasmHost {
    static HOST: std::sync::OnceLock<palisade_harness::WasmHost> = std::sync::OnceLock::new();
    HOST.get_or_init(|| {
        let path = wasm_path();
        match palisade_harness::WasmHost::load(&path) {
            Ok(host) => host,
            Err(e) => unreachable!("cannot load {}: {e}", path.display()),
        }
    })
}

/// `differential`: the same bundle and review through the native library (`api::review_json`) and through the real
/// `palisade.wasm` in wasmtime (a fresh instance: `configure`, then `validate`): the answers must be byte-identical,
/// and the module must neither trap nor time out.
pub fn check_differential(data: &[u8]) {
    let (bundle, review) = split_differential(data);
    let native = palisade::api::review_json(&bundle, &review);
    let mut session = match wasm_host().instantiate() {
        Ok(s) => s,
        Err(e) => unreachable!("cannot instantiate the module: {e}"),
    };
    let configured = session.call(palisade_harness::host::Entry::Configure, bundle.as_bytes());
    assert!(configured.is_ok(), "wasm configure failed: {configured:?}");
    let answer = session.call(palisade_harness::host::Entry::Validate, review.as_bytes());
    let wasm = match answer {
        Ok(bytes) => bytes,
        Err(e) => unreachable!("wasm validate failed where native answered {native}: {e}"),
    };
    assert!(
        wasm == native.as_bytes(),
        "native and wasm disagree:\nnative: {native}\nwasm:   {}",
        String::from_utf8_lossy(&wasm)
    );
    check_answer(review.as_bytes(), &native);
}

/// `kubewarden`: the Kubewarden module's doors. The bytes, split at `0xFF`, are the settings, a request and what the
/// host capabilities answer (those bytes, or a failure with their text when they start with `!`).
///
/// One instance checks the settings (`validate_settings`, as policy-server does first) and then gets three payloads,
/// each twice: policy-server's `{"request":R,"settings":S}`, the same with the settings as serde_json writes them
/// (equal in value, other bytes), and the request bytes as a whole payload. So the settings compiled last are
/// recognised at a payload's end without being read, and found again by value. That instance is the guest run
/// natively (`palisade::abi::kubewarden`, everything but the waPC glue), and then the real `palisade-kubewarden.wasm`
/// through the harness's waPC host (wapc and wasmtime-provider, as policy-server runs it), given the same host: the
/// module must neither trap nor time out, and answer what the native guest answers, byte for byte. Every answer must
/// be what an instance that has compiled nothing answers to that payload, and well-formed: a rejection says why, and
/// the guest asks the host only `kubernetes/get_resource` and `kubernetes/can_i`, in JSON.
pub fn check_kubewarden(data: &[u8]) {
    let mut parts = data.splitn(3, |b| *b == 0xFF);
    let settings = parts.next().unwrap_or_default().to_vec();
    let Some(request) = parts.next() else {
        return;
    };
    let host = parts.next().unwrap_or_default().to_vec();
    let payload = |settings: &[u8]| {
        [
            b"{\"request\":".as_slice(),
            request,
            b",\"settings\":",
            settings,
            b"}",
        ]
        .concat()
    };
    let mut payloads = vec![payload(&settings)];
    if let Ok(value) = serde_json::from_slice::<Value>(&settings)
        && let Ok(rewritten) = serde_json::to_vec(&value)
        && rewritten != settings
    {
        payloads.push(payload(&rewritten));
    }
    payloads.push(request.to_vec());

    let (checked, answers) = {
        let (settings, payloads, host) = (settings.clone(), payloads.clone(), host.clone());
        on_a_wasm_sized_stack(move || {
            let checked = palisade::abi::kubewarden::validate_settings(&settings);
            let call = kubewarden_host(host);
            let answers: Vec<[Vec<u8>; 2]> = payloads
                .iter()
                .map(|p| {
                    let once = palisade::abi::kubewarden::validate(p, &call).to_bytes();
                    [
                        once,
                        palisade::abi::kubewarden::validate(p, &call).to_bytes(),
                    ]
                })
                .collect();
            (checked, answers)
        })
    };
    assert!(
        checked.valid || checked.message.as_deref().is_some_and(|m| !m.is_empty()),
        "settings refused without a message"
    );
    let wasm = kubewarden_module_answers(&settings, &payloads, host.clone());
    let native_checked = serde_json::to_vec(&checked).unwrap_or_default();
    let shown = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    assert!(
        wasm.0 == native_checked,
        "validate_settings: the module answers {}, the native guest {}",
        shown(&wasm.0),
        shown(&native_checked)
    );
    for ((payload, native), module) in payloads.iter().zip(&answers).zip(&wasm.1) {
        assert!(
            native == module,
            "the module answers otherwise than the native guest\npayload: {}\nnative:  {} / {}\nmodule:  {} / {}",
            shown(payload),
            shown(&native[0]),
            shown(&native[1]),
            shown(&module[0]),
            shown(&module[1])
        );
    }
    for (payload, [once, again]) in payloads.into_iter().zip(answers) {
        let fresh = {
            let (payload, host) = (payload.clone(), host.clone());
            on_a_wasm_sized_stack(move || {
                palisade::abi::kubewarden::validate(&payload, &kubewarden_host(host)).to_bytes()
            })
        };
        assert!(
            once == fresh && again == fresh,
            "an instance that compiled the settings answers otherwise than a fresh one\npayload: {}\nfresh:   {}\nonce:    {}\nagain:   {}",
            shown(&payload),
            shown(&fresh),
            shown(&once),
            shown(&again)
        );
        check_validation_response(&fresh);
    }
}

fn kubewarden_module() -> &'static palisade_harness::kubewarden::KubewardenBackend {
    static MODULE: std::sync::OnceLock<palisade_harness::kubewarden::KubewardenBackend> =
        std::sync::OnceLock::new();
    MODULE.get_or_init(|| {
        let path = built_module("palisade-kubewarden.wasm");
        match palisade_harness::kubewarden::KubewardenBackend::load(&path) {
            Ok(module) => module,
            Err(e) => unreachable!("cannot load {}: {e}", path.display()),
        }
    })
}

/// What one fresh instance of `palisade-kubewarden.wasm` answers to `validate_settings` of `settings`, then to
/// `validate` of each payload, twice, its host capabilities answered by [`kubewarden_host`] of `host`. A trap, a
/// timeout or a waPC error fails the check.
fn kubewarden_module_answers(
    settings: &[u8],
    payloads: &[Vec<u8>],
    host: Vec<u8>,
) -> (Vec<u8>, Vec<[Vec<u8>; 2]>) {
    let host = kubewarden_host(host);
    let answer = move |binding: &str, namespace: &str, operation: &str, payload: &[u8]| {
        assert_eq!(binding, "kubewarden");
        host(namespace, operation, payload)
    };
    let instance = match kubewarden_module().instantiate_answering(
        std::sync::Arc::new(answer),
        std::time::Duration::from_secs(5),
    ) {
        Ok(instance) => instance,
        Err(e) => unreachable!("cannot instantiate palisade-kubewarden.wasm: {e}"),
    };
    let call = |operation: &str, payload: &[u8]| match instance.call(operation, payload) {
        Ok(bytes) => bytes,
        Err(e) => unreachable!(
            "palisade-kubewarden.wasm failed `{operation}` of {}: {e}",
            String::from_utf8_lossy(payload)
        ),
    };
    let checked = call("validate_settings", settings);
    let answers = payloads
        .iter()
        .map(|p| [call("validate", p), call("validate", p)])
        .collect();
    (checked, answers)
}

/// `f` in a thread of its own, with the stack a wasm guest has (rust-lld's 1 MiB), so that what would overflow it in
/// the module overflows here, and Rust's overflow handler aborts the process where libFuzzer can save the input (an
/// overflow of the fuzzing thread's own stack kills the process in libFuzzer's handler, with nothing saved). The
/// Kubewarden guest keeps the settings it compiled last per thread, so a new thread is also a fresh instance. A panic
/// in it is the caller's.
fn on_a_wasm_sized_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let thread = std::thread::Builder::new().stack_size(1 << 20).spawn(f);
    match thread.map(std::thread::JoinHandle::join) {
        Ok(Ok(v)) => v,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(e) => unreachable!("cannot start a thread: {e}"),
    }
}

/// The host capabilities of the `kubewarden` target: every call answers `answer`, or fails with its text when it
/// starts with `!`. Each call must be one the guest makes, with a JSON request.
fn kubewarden_host(answer: Vec<u8>) -> impl Fn(&str, &str, &[u8]) -> Result<Vec<u8>, String> {
    move |namespace: &str, operation: &str, payload: &[u8]| {
        assert_eq!(namespace, "kubernetes");
        assert!(
            operation == "get_resource" || operation == "can_i",
            "the guest called kubernetes/{operation}"
        );
        assert!(
            serde_json::from_slice::<Value>(payload).is_ok(),
            "the guest's kubernetes/{operation} request is not JSON: {}",
            String::from_utf8_lossy(payload)
        );
        match answer.strip_prefix(b"!") {
            Some(failure) => Err(String::from_utf8_lossy(failure).into_owned()),
            None => Ok(answer.clone()),
        }
    }
}

/// A ValidationResponse as policy-server reads it: JSON with a bool `accepted`; a rejection has a message and, when it
/// has a code, an HTTP status code.
fn check_validation_response(bytes: &[u8]) {
    let shown = String::from_utf8_lossy(bytes);
    let response: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => unreachable!("the ValidationResponse is not JSON ({e}): {shown}"),
    };
    let accepted = response.get("accepted").and_then(Value::as_bool);
    assert!(accepted.is_some(), "`accepted` is not a bool: {shown}");
    if accepted == Some(false) {
        assert!(
            response
                .get("message")
                .and_then(Value::as_str)
                .is_some_and(|m| !m.is_empty()),
            "a rejection without a message: {shown}"
        );
    }
    if let Some(code) = response.get("code").filter(|c| !c.is_null()) {
        assert!(
            code.as_u64().is_some_and(|c| (100..600).contains(&c)),
            "`code` is not an HTTP status: {shown}"
        );
    }
}
