//! The harness case files under `tests/cases/cert-manager/` and their recorded AdmissionReviews,
//! generated from the table below (`BLESS=1 cargo test -p palisade-certificates --test cases`
//! rewrites them) and checked here natively: each expectation is written by hand as
//! approver-policy would answer, and the native evaluation must agree. The harness later runs
//! the same files through `palisade.wasm`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed expectation is a test failure"
)]

mod common;

use std::path::{Path, PathBuf};

use common::*;
use palisade_cel_kubernetes::cluster::{AccessDecision, AccessQuery, Cluster, HostError, Question};
use palisade_certificates::{Decision, Policies, Settings, Unmatched};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example_csr(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/openssl/examples")
        .join(name);
    b64(&std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

const CERT_MANAGER: &str = "system:serviceaccount:cert-manager:cert-manager";

#[derive(Clone)]
struct Case {
    suite: &'static str,
    file: &'static str,
    name: String,
    /// a path relative to the repository root, or an inline bundle
    bundle: Value,
    cr: Value,
    user: String,
    groups: Vec<String>,
    context: Value,
    expect: Value,
}

fn cr(name: &str, ns: &str, request: &str, issuer: Value, extra_spec: Value) -> Value {
    let mut spec = json!({"request": request, "issuerRef": issuer});
    for (k, v) in extra_spec.as_object().unwrap() {
        spec[k] = v.clone();
    }
    json!({"apiVersion": "cert-manager.io/v1", "kind": "CertificateRequest",
           "metadata": {"name": name, "namespace": ns}, "spec": spec})
}

fn ns(name: &str, labels: Value) -> Value {
    let mut l = json!({"kubernetes.io/metadata.name": name});
    for (k, v) in labels.as_object().unwrap() {
        l[k] = v.clone();
    }
    json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": l}})
}

fn grant(user: &str, policy: &str, namespace: Option<&str>) -> Value {
    let mut g = json!({"subject": {"user": user}, "verb": "use", "apiGroup": "policy.cert-manager.io",
                       "resource": "certificaterequestpolicies", "name": policy, "allowed": true});
    if let Some(n) = namespace {
        g["namespace"] = json!(n);
    }
    g
}

fn denied(message: &str) -> Value {
    json!({"allowed": false, "code": 403, "message": message})
}
fn denied_contains(fragment: &str) -> Value {
    json!({"allowed": false, "code": 403, "messageContains": fragment})
}

fn svc_cases() -> Vec<Case> {
    let bundle = json!("policies/cert-manager/namespaced-services/bundle.yaml");
    let issuer =
        json!({"name": "cluster-local-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"});
    let ctx = json!({
        "namespaces": [ns("team-a", json!({"palisade.dev/service-certificates": "enabled"})), ns("team-b", json!({"palisade.dev/service-certificates": "enabled"})), ns("scratch", json!({}))],
        "authorizations": [grant(CERT_MANAGER, "namespaced-services", None)]
    });
    let good = json!({"duration": "2160h", "usages": ["digital signature", "key encipherment", "server auth"]});
    let base =
        |file: &'static str, name: &str, ns: &str, csr: &str, spec: Value, expect: Value| Case {
            suite: "namespaced-services",
            file,
            name: name.to_owned(),
            bundle: bundle.clone(),
            cr: cr(
                &format!("{file}-1"),
                ns,
                &example_csr(csr),
                issuer.clone(),
                spec,
            ),
            user: CERT_MANAGER.to_owned(),
            groups: vec![
                "system:serviceaccounts".into(),
                "system:serviceaccounts:cert-manager".into(),
                "system:authenticated".into(),
            ],
            context: ctx.clone(),
            expect,
        };
    let p = "No policy approved this request: [namespaced-services: ";
    vec![
        base("allow-service-in-own-namespace", "a Service certificate in its own namespace is approved", "team-a", "svc-ok.csr", good.clone(), json!({"allowed": true})),
        base(
            "deny-service-of-another-namespace",
            "a DNS name of another namespace's Service fails the CEL rule on cr.namespace",
            "team-a",
            "svc-other-namespace.csr",
            good.clone(),
            denied(&format!(r#"{p}spec.allowed.dnsNames.validations[0]: Invalid value: "db.team-b.svc": DNS names must be Services in the CertificateRequest's namespace]"#)),
        ),
        base(
            "deny-same-names-from-another-namespace",
            "team-a's names requested from team-b fail both CEL rules",
            "team-b",
            "svc-ok.csr",
            good.clone(),
            denied(&format!(
                r#"{p}[spec.allowed.commonName.validations[0]: Invalid value: "web.team-a.svc.cluster.local": the common name must be a Service in the CertificateRequest's namespace, spec.allowed.dnsNames.validations[0]: Invalid value: "web.team-a.svc": DNS names must be Services in the CertificateRequest's namespace, spec.allowed.dnsNames.validations[0]: Invalid value: "web.team-a.svc.cluster.local": DNS names must be Services in the CertificateRequest's namespace]]"#
            )),
        ),
        base(
            "deny-rsa-key",
            "an RSA key is refused: the policy requires ECDSA",
            "team-a",
            "svc-rsa.csr",
            good.clone(),
            denied(&format!(r#"{p}spec.constraints.privateKey.algorithm: Invalid value: "RSA": ECDSA]"#)),
        ),
        base(
            "deny-ip-address",
            "IP SANs are not allowed (omitted from the policy)",
            "team-a",
            "svc-with-ip.csr",
            good.clone(),
            denied(&format!(r#"{p}spec.allowed.ipAddresses: Invalid value: ["10.96.0.12"]: no allowed values]"#)),
        ),
        base(
            "deny-without-duration",
            "maxDuration set: a request without spec.duration is denied with \"nil\"",
            "team-a",
            "svc-ok.csr",
            json!({"usages": ["server auth"]}),
            denied(&format!(r#"{p}spec.constraints.maxDuration: Invalid value: "nil": 2160h0m0s]"#)),
        ),
        base(
            "deny-too-long",
            "a year-long certificate exceeds maxDuration (printed the Go way)",
            "team-a",
            "svc-ok.csr",
            json!({"duration": "8760h", "usages": ["server auth"]}),
            denied(&format!(r#"{p}spec.constraints.maxDuration: Invalid value: "8760h0m0s": 2160h0m0s]"#)),
        ),
        base(
            "deny-ca-and-cert-sign",
            "isCA and cert sign are not allowed",
            "team-a",
            "svc-ok.csr",
            json!({"duration": "24h", "isCA": true, "usages": ["cert sign", "server auth"]}),
            denied(&format!(
                r#"{p}[spec.allowed.isCA: Invalid value: true: nil, spec.allowed.usages: Invalid value: ["cert sign","server auth"]: digital signature, key encipherment, server auth, client auth]]"#
            )),
        ),
        base(
            "deny-unlabelled-namespace",
            "a namespace without the label is not selected: nothing applies",
            "scratch",
            "svc-ok.csr",
            good.clone(),
            denied("No CertificateRequestPolicies bound or applicable"),
        ),
        Case {
            name: "a requester without `use` on the policy is not bound".into(),
            user: "system:serviceaccount:team-a:builder".into(),
            groups: vec!["system:serviceaccounts".into(), "system:authenticated".into()],
            ..base("deny-requester-not-bound", "", "team-a", "svc-ok.csr", good.clone(), denied("No CertificateRequestPolicies bound or applicable"))
        },
        Case {
            name: "another issuer is not this policy's business: nothing applies, unmatched: Deny".into(),
            cr: cr("other-issuer-1", "team-a", &example_csr("svc-ok.csr"), json!({"name": "vault"}), good.clone()),
            ..base("deny-other-issuer", "", "team-a", "svc-ok.csr", good.clone(), denied("No CertificateRequestPolicies bound or applicable"))
        },
        Case {
            name: "namespace labels are needed but the namespace is not in the context: evaluation error".into(),
            context: json!({"namespaces": [], "authorizations": [grant(CERT_MANAGER, "namespaced-services", None)]}),
            ..base(
                "error-namespace-unknown",
                "",
                "team-a",
                "svc-ok.csr",
                good.clone(),
                denied(r#"failed to perform predicate on policies: failed to get request's namespace to determine namespace selector: namespaces "team-a" not found"#),
            )
        },
        Case {
            name: "a RoleBinding in the request's namespace grants use".into(),
            user: "system:serviceaccount:team-a:builder".into(),
            context: json!({
                "namespaces": [ns("team-a", json!({"palisade.dev/service-certificates": "enabled"}))],
                "authorizations": [grant("system:serviceaccount:team-a:builder", "namespaced-services", Some("team-a"))]
            }),
            ..base("allow-namespaced-rolebinding", "", "team-a", "svc-ok.csr", good.clone(), json!({"allowed": true}))
        },
    ]
}

fn ingress_cases() -> Vec<Case> {
    let bundle = json!("policies/cert-manager/public-ingress/bundle.yaml");
    let issuer = json!({"name": "letsencrypt-production", "kind": "ClusterIssuer", "group": "cert-manager.io"});
    let ctx = json!({"authorizations": [grant(CERT_MANAGER, "public-ingress", None)]});
    let good = json!({"duration": "2160h", "usages": ["digital signature", "key encipherment", "server auth"]});
    let base =
        |file: &'static str, name: &str, ns: &str, csr: &str, spec: Value, expect: Value| Case {
            suite: "public-ingress",
            file,
            name: name.to_owned(),
            bundle: bundle.clone(),
            cr: cr(
                &format!("{file}-1"),
                ns,
                &example_csr(csr),
                issuer.clone(),
                spec,
            ),
            user: CERT_MANAGER.to_owned(),
            groups: vec![
                "system:serviceaccounts".into(),
                "system:authenticated".into(),
            ],
            context: ctx.clone(),
            expect,
        };
    let p = "No policy approved this request: [public-ingress: ";
    vec![
        base("allow-shop", "an RSA-2048 certificate for shop.example.com and www.shop.example.com (`*` matches dots)", "ingress-public", "ingress-ok.csr", good.clone(), json!({"allowed": true})),
        base("allow-rsa4096-apex", "RSA 4096 (maxSize is inclusive) for the apex and www", "storefront", "ingress-rsa4096.csr", good.clone(), json!({"allowed": true})),
        Case {
            name: "an issuerRef without kind and group reads as Issuer / cert-manager.io: not the ClusterIssuer".into(),
            cr: cr("defaults-1", "storefront", &example_csr("ingress-ok.csr"), json!({"name": "letsencrypt-production"}), good.clone()),
            ..base("deny-issuer-defaults", "", "storefront", "ingress-ok.csr", good.clone(), denied("No CertificateRequestPolicies bound or applicable"))
        },
        base(
            "deny-foreign-domain",
            "a DNS name outside example.com",
            "ingress-public",
            "ingress-foreign-domain.csr",
            good.clone(),
            denied(&format!(r#"{p}spec.allowed.dnsNames.values: Invalid value: ["shop.example.com","shop.example.net"]: example.com, *.example.com]"#)),
        ),
        base(
            "deny-ip-and-organization",
            "IP SANs and subject organizations are not allowed",
            "ingress-public",
            "ingress-ip-and-org.csr",
            good.clone(),
            denied(&format!(
                r#"{p}[spec.allowed.ipAddresses: Invalid value: ["203.0.113.10"]: no allowed values, spec.allowed.subject.organizations: Invalid value: ["Example Inc"]: no allowed values]]"#
            )),
        ),
        base(
            "deny-ecdsa",
            "ECDSA keys are refused: RSA only",
            "ingress-public",
            "ingress-ecdsa.csr",
            good.clone(),
            denied(&format!(
                r#"{p}[spec.constraints.privateKey.algorithm: Invalid value: "ECDSA": RSA, spec.constraints.privateKey.minSize: Invalid value: "256": 2048]]"#
            )),
        ),
        base(
            "deny-rsa1024",
            "RSA 1024 is below minSize",
            "ingress-public",
            "ingress-rsa1024.csr",
            good.clone(),
            denied(&format!(r#"{p}spec.constraints.privateKey.minSize: Invalid value: "1024": 2048]"#)),
        ),
        base(
            "deny-upn-other-name",
            "a smuggled UPN otherName SAN is denied (approver-policy v0.27 fail-closed)",
            "ingress-public",
            "ingress-upn.csr",
            good.clone(),
            denied(&format!(r#"{p}spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3]: Invalid value: ["admin@example.com"]: no allowed values]"#)),
        ),
        base(
            "deny-no-dns-names",
            "dnsNames is required",
            "ingress-public",
            "ingress-no-sans.csr",
            good.clone(),
            denied(&format!("{p}spec.allowed.dnsNames.required: Required value: true]")),
        ),
        base(
            "deny-short-duration",
            "24h is below minDuration (720h)",
            "ingress-public",
            "ingress-ok.csr",
            json!({"duration": "24h", "usages": ["server auth"]}),
            denied(&format!(r#"{p}spec.constraints.minDuration: Invalid value: "24h0m0s": 720h0m0s]"#)),
        ),
        base(
            "deny-client-auth",
            "client auth is not an allowed usage",
            "ingress-public",
            "ingress-ok.csr",
            json!({"duration": "1000h", "usages": ["server auth", "client auth"]}),
            denied(&format!(r#"{p}spec.allowed.usages: Invalid value: ["server auth","client auth"]: digital signature, key encipherment, server auth]"#)),
        ),
        base("deny-namespace-not-matched", "a namespace outside matchNames: nothing applies", "team-a", "ingress-ok.csr", good.clone(), denied("No CertificateRequestPolicies bound or applicable")),
        Case {
            name: "no `authorizations` in the context: the RBAC check cannot be answered (evaluation error)".into(),
            context: json!({}),
            ..base(
                "error-no-authorizations",
                "",
                "ingress-public",
                "ingress-ok.csr",
                good.clone(),
                denied_contains("failed to perform predicate on policies: failed to create subjectaccessreview: "),
            )
        },
    ]
}

/// Upstream table cases run through the artifact (inline bundles).
fn upstream_cases() -> Vec<Case> {
    let any_issuer = json!({"name": "test-name", "kind": "test-kind", "group": "test-group"});
    let everyone = json!({"authorizations": [{"subject": {"group": "system:authenticated"}, "verb": "use", "apiGroup": "policy.cert-manager.io", "resource": "certificaterequestpolicies", "allowed": true}]});
    let cn_x = CsrSpec::default().cn("x").request();
    let empty = CsrSpec::default().request();
    let mk = |file: &'static str, name: &str, bundle: Value, request: &str, expect: Value| Case {
        suite: "upstream",
        file,
        name: name.to_owned(),
        bundle,
        cr: cr(
            file,
            "test-namespace",
            request,
            any_issuer.clone(),
            json!({}),
        ),
        user: "example".into(),
        groups: vec!["system:authenticated".into()],
        context: everyone.clone(),
        expect,
    };
    let crp = |name: &str, spec: Value| {
        let mut s = spec;
        if s.get("selector").is_none() {
            s["selector"] = json!({"issuerRef": {}});
        }
        policy(name, s)
    };
    let d = r#"spec.allowed.commonName: Invalid value: "x": no allowed value"#;
    vec![
        mk(
            "review-no-policies-exist",
            "upstream Test_Review: if no CertificateRequestPolicies exist (certificateRequests settings, no policy)",
            json!({"policies": [], "certificateRequests": {"unmatched": "Deny"}}),
            &cn_x,
            denied("No CertificateRequestPolicies exist"),
        ),
        mk(
            "review-single-policy-denies",
            "upstream Test_Review: if single policy returns but evaluator denies",
            json!({"policies": [crp("test-policy-a", json!({}))]}),
            &cn_x,
            denied(&format!(
                "No policy approved this request: [test-policy-a: {d}]"
            )),
        ),
        mk(
            "review-single-policy-approves",
            "upstream Test_Review: if single policy returns and evaluator returns not-denied",
            json!({"policies": [crp("test-policy-a", json!({}))]}),
            &empty,
            json!({"allowed": true}),
        ),
        mk(
            "review-second-policy-approves",
            "upstream Test_Review: if two policies returned and evaluator returns one not-denied",
            json!({"policies": [crp("test-policy-a", json!({})), crp("test-policy-b", json!({"allowed": {"commonName": {"value": "x"}}}))]}),
            &cn_x,
            json!({"allowed": true}),
        ),
        mk(
            "review-both-deny",
            "upstream Test_Review: if two policies returned and both return denied (sorted by name)",
            json!({"policies": [crp("test-policy-b", json!({})), crp("test-policy-a", json!({}))]}),
            &cn_x,
            denied(&format!(
                "No policy approved this request: [test-policy-a: {d}] [test-policy-b: {d}]"
            )),
        ),
        mk(
            "unmatched-allow",
            "unmatched: Allow lets through a request no policy selects",
            json!({"policies": [crp("p", json!({"selector": {"issuerRef": {"name": "other"}}}))], "certificateRequests": {"unmatched": "Allow"}}),
            &cn_x,
            json!({"allowed": true}),
        ),
        Case {
            name: "requireUsePermission: false skips the RBAC check (no authorizations needed)"
                .into(),
            context: json!({}),
            ..mk(
                "no-use-permission-needed",
                "",
                json!({"policies": [crp("p", json!({"allowed": {"commonName": {"value": "*"}}}))], "certificateRequests": {"requireUsePermission": false}}),
                &cn_x,
                json!({"allowed": true}),
            )
        },
        mk(
            "constraints-duration-not-requested",
            "upstream constraints Test_Evaluate: if constraints contains duration but duration wasn't requested",
            json!({"policies": [crp("p", json!({"constraints": {"minDuration": "1h", "maxDuration": "24h"}}))]}),
            &empty,
            denied(
                r#"No policy approved this request: [p: [spec.constraints.maxDuration: Invalid value: "nil": 24h0m0s, spec.constraints.minDuration: Invalid value: "nil": 1h0m0s]]"#,
            ),
        ),
        mk(
            "validate-selector-required",
            "upstream webhook Test_validate: if neither issuer ref nor namespace are defined",
            json!({"policies": [policy("p", json!({"selector": {}}))]}),
            &empty,
            json!({"bundleError": true, "messageContains": "spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything"}),
        ),
        mk(
            "validate-constraint-errors",
            "upstream constraints Test_Validate: if policy contains validation errors",
            json!({"policies": [crp("p", json!({"constraints": {"privateKey": {"algorithm": "bad-alg", "minSize": 9999, "maxSize": -1}, "minDuration": "-1m", "maxDuration": "-2m"}}))]}),
            &empty,
            json!({"bundleError": true, "messageContains": [
                r#"spec.constraints.privateKey.algorithm: Unsupported value: "bad-alg": supported values: "RSA", "ECDSA", "Ed25519""#,
                "spec.constraints.privateKey.maxSize: Invalid value: -1: must be between 0 and 8192 inclusive",
                "spec.constraints.privateKey.minSize: Invalid value: 9999: must be between 0 and 8192 inclusive",
                r#"spec.constraints.maxDuration: Invalid value: "-2m0s": maxDuration must be a value greater or equal to 0"#
            ]}),
        ),
        mk(
            "validate-required-without-values",
            "upstream allowed Test_Validate: 'required' without values or validations",
            json!({"policies": [crp("p", json!({"allowed": {"dnsNames": {"required": true}}}))]}),
            &empty,
            json!({"bundleError": true, "messageContains": "spec.allowed.dnsNames.values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required'"}),
        ),
        mk(
            "validate-cel-does-not-compile",
            "upstream allowed Test_Validate: invalid CEL validations",
            json!({"policies": [crp("p", json!({"allowed": {"commonName": {"validations": [{"rule": "cel"}]}}}))]}),
            &empty,
            json!({"bundleError": true, "messageContains": ["spec.allowed.commonName.validations[0]", "undeclared reference to 'cel'"]}),
        ),
        mk(
            "validate-unknown-plugin",
            "upstream webhook Test_validate: a plugin that is not registered",
            json!({"policies": [crp("p", json!({"plugins": {"foo": {}}}))]}),
            &empty,
            json!({"bundleError": true, "messageContains": r#"spec.plugins: Unsupported value: "foo""#}),
        ),
        mk(
            "validate-bad-other-name-oid",
            "upstream allowed Test_Validate: a malformed otherNames OID",
            json!({"policies": [crp("p", json!({"allowed": {"otherNames": [{"oid": "not-an-oid", "values": ["*"]}]}}))]}),
            &empty,
            json!({"bundleError": true, "messageContains": r#"spec.allowed.otherNames[0].oid: Invalid value: "not-an-oid": must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#}),
        ),
        mk(
            "dual-cn-denied",
            "upstream TestEvaluate_SubjectDualCNDenied: every CN attribute is checked",
            json!({"policies": [crp("p", json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}}}))]}),
            &CsrSpec::default()
                .cn("kubernetes-admin")
                .cn("app.tenant.example.com")
                .request(),
            denied(
                r#"No policy approved this request: [p: spec.allowed.commonName[0].value: Invalid value: "kubernetes-admin": *.tenant.example.com]"#,
            ),
        ),
        mk(
            "unknown-subject-attribute-denied",
            "upstream TestEvaluate_SubjectUnknownOIDDeniedByDefault",
            json!({"policies": [crp("p", json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}}}))]}),
            &CsrSpec::default()
                .cn("app.tenant.example.com")
                .rdn(EMAIL_ADDRESS, &["root@victim.corp"])
                .request(),
            denied(
                r#"No policy approved this request: [p: spec.allowed.subject.otherAttributes[1.2.840.113549.1.9.1]: Invalid value: ["root@victim.corp"]: no allowed values]"#,
            ),
        ),
        mk(
            "question-mark-is-literal",
            "wildcards: `?` is a literal character, `*` the only wildcard",
            json!({"policies": [crp("p", json!({"allowed": {"dnsNames": {"values": ["a?.example.com"]}}}))]}),
            &CsrSpec::default().dns(&["ab.example.com"]).request(),
            denied(
                r#"No policy approved this request: [p: spec.allowed.dnsNames.values: Invalid value: ["ab.example.com"]: a?.example.com]"#,
            ),
        ),
    ]
}

fn hostile_cases() -> Vec<Case> {
    let bundle = json!({"policies": [policy("open", json!({"selector": {"issuerRef": {}}, "allowed": {"commonName": {"value": "*"}, "dnsNames": {"values": ["*"]}}}))]});
    let ctx = json!({"authorizations": [{"subject": {"group": "system:authenticated"}, "verb": "use", "apiGroup": "policy.cert-manager.io", "resource": "certificaterequestpolicies", "allowed": true}]});
    let mk = |file: &'static str, name: &str, request: &str, fragment: &str| Case {
        suite: "hostile",
        file,
        name: name.to_owned(),
        bundle: bundle.clone(),
        cr: cr(file, "team-a", request, json!({"name": "ca"}), json!({})),
        user: "alice".into(),
        groups: vec!["system:authenticated".into()],
        context: ctx.clone(),
        expect: denied_contains(fragment),
    };
    let der = CsrSpec::default().cn("ok").der();
    let big = CsrSpec::default().cn(&"x".repeat(40_000)).request();
    vec![
        mk(
            "garbage-base64",
            "spec.request that is not base64",
            "%%%%",
            "spec.request: illegal base64 data at input byte 0",
        ),
        mk(
            "not-pem",
            "spec.request without a PEM block",
            &b64(b"just some text"),
            "error decoding certificate request PEM block: no PEM data was found in given input",
        ),
        mk(
            "truncated-der",
            "a CSR cut in half",
            &b64(pem("CERTIFICATE REQUEST", &der[..der.len() / 2]).as_bytes()),
            "asn1: syntax error: data truncated",
        ),
        mk(
            "too-large",
            "a 40 kB CSR, over cert-manager's PEM size cap",
            &big,
            "provided PEM data was larger than the maximum 36500B",
        ),
        mk(
            "universal-string-cn",
            "a UniversalString common name fails closed",
            &CsrSpec::default()
                .raw_attr(CN, tlv(0x1c, &[0, 0, 0, b'a']))
                .request(),
            "subject attribute 2.5.4.3 uses an unsupported ASN.1 type or string encoding",
        ),
        mk(
            "invalid-utf8",
            "a UTF8String that is not UTF-8",
            &CsrSpec::default()
                .raw_attr(CN, tlv(0x0c, &[0xc3, 0x28]))
                .request(),
            "asn1: syntax error: invalid UTF-8 string",
        ),
        mk(
            "bad-san-choice",
            "an undecodable SAN entry fails closed",
            &CsrSpec::default()
                .dns(&["a.example.com"])
                .san(tlv(0x89, b"x"))
                .request(),
            "subjectAltName (SAN) extension could not be decoded: asn1: structure error: bad SAN choice",
        ),
    ]
}

/// approver-policy's CEL environment as cel-go v0.30 builds it: `format` rendered and checked at its latest version
/// (`ext/formatting_v2.go`, `stringFormatValidatorV2`), through the module as well as natively.
fn cel_cases() -> Vec<Case> {
    let issuer = json!({"name": "ca", "kind": "Issuer", "group": "cert-manager.io"});
    let ctx = json!({"authorizations": [{"subject": {"group": "system:authenticated"}, "verb": "use", "apiGroup": "policy.cert-manager.io", "resource": "certificaterequestpolicies", "allowed": true}]});
    let mk = |file: &'static str, name: &str, rule: &str, dns: &str, expect: Value| Case {
        suite: "cel",
        file,
        name: name.to_owned(),
        bundle: json!({"policies": [policy("services", json!({
            "selector": {"issuerRef": {}},
            "allowed": {"dnsNames": {"values": ["*"], "validations": [{"rule": rule, "message": "not this namespace's Service"}]}},
        }))]}),
        cr: cr(
            file,
            "team-a",
            &CsrSpec::default().dns(&[dns]).request(),
            issuer.clone(),
            json!({}),
        ),
        user: "alice".into(),
        groups: vec!["system:authenticated".into()],
        context: ctx.clone(),
        expect,
    };
    let rule = "self.endsWith('.%s.svc'.format([cr.namespace]))";
    vec![
        mk(
            "format-allows",
            "a DNS name built with format from cr.namespace is approved",
            rule,
            "db.team-a.svc",
            json!({"allowed": true}),
        ),
        mk(
            "format-denies",
            "a DNS name of another namespace fails the format rule with the validation's message",
            rule,
            "db.team-b.svc",
            denied(
                r#"No policy approved this request: [services: spec.allowed.dnsNames.validations[0]: Invalid value: "db.team-b.svc": not this namespace's Service]"#,
            ),
        ),
        mk(
            "format-checked-when-compiled",
            "a literal format clause that cannot take its literal argument is refused when the bundle loads (cel-go stringFormatValidatorV2)",
            "self.endsWith('.%d.svc'.format([cr.namespace]))",
            "db.team-a.svc",
            json!({"bundleError": true, "messageContains": ["spec.allowed.dnsNames.validations[0]", "ERROR: <input>:1:35: error during formatting: decimal clause can only be used on ints, uints, and doubles, was given string"]}),
        ),
        mk(
            "format-precision-over-100",
            "a precision above 100 is refused when the bundle loads (cel-go's maximum at strings version 5)",
            "self != '%.101f'.format([1.0])",
            "db.team-a.svc",
            json!({"bundleError": true, "messageContains": ["spec.allowed.dnsNames.validations[0]", "precision 101 exceeds maximum allowed precision 100"]}),
        ),
        mk(
            "escaped-identifier",
            "a field written in backticks is read, as cel-go's parser reads it by default from v0.28 (approver-policy v0.27: cel-go v0.30)",
            "self.endsWith('.' + cr.`namespace` + '.svc')",
            "db.team-a.svc",
            json!({"allowed": true}),
        ),
        mk(
            "index-of-empty-substring-clamped",
            "an empty substring is found at the offset clamped to the end of the string (cel-go 14f6746a, in v0.30)",
            "self.indexOf('', 100) == size(self) && self.lastIndexOf('', 100) == size(self)",
            "db.team-a.svc",
            json!({"allowed": true}),
        ),
    ]
}

fn all_cases() -> Vec<Case> {
    [
        svc_cases(),
        ingress_cases(),
        upstream_cases(),
        hostile_cases(),
        cel_cases(),
    ]
    .concat()
}

fn uid(file: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in file.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    let h2 = h.rotate_left(17) ^ 0x9e3779b97f4a7c15;
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xfff,
        h2 >> 52,
        h2 & 0xffff_ffff_ffff
    )
}

fn review(c: &Case) -> Value {
    let mut obj = c.cr.clone();
    obj["spec"]["username"] = json!(c.user);
    obj["spec"]["groups"] = json!(c.groups);
    let ns = obj["metadata"]["namespace"].clone();
    let name = obj["metadata"]["name"].clone();
    let gvk = json!({"group": "cert-manager.io", "version": "v1", "kind": "CertificateRequest"});
    let gvr =
        json!({"group": "cert-manager.io", "version": "v1", "resource": "certificaterequests"});
    json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid(c.file),
            "kind": gvk, "resource": gvr, "requestKind": gvk, "requestResource": gvr,
            "name": name, "namespace": ns, "operation": "CREATE",
            "userInfo": {"username": c.user, "groups": c.groups},
            "object": obj, "oldObject": null, "dryRun": false,
            "options": {"apiVersion": "meta.k8s.io/v1", "kind": "CreateOptions"}
        }
    })
}

/// The case file, keys in the order tests/README.md writes them (nested maps come out sorted).
fn case_yaml(c: &Case) -> String {
    let mut out =
        String::from("# generated by crates/certificates/tests/cases.rs (BLESS=1 to rewrite)\n");
    let mut put = |key: &str, v: &Value| {
        let mut one = serde_json::Map::new();
        one.insert(key.to_owned(), v.clone());
        out.push_str(&palisade_yaml::to_string(&Value::Object(one)));
    };
    put("name", &json!(c.name));
    match &c.bundle {
        Value::String(p) => put("bundle", &json!(format!("../../../../{p}"))),
        inline => put("bundle", inline),
    }
    if c.expect.get("bundleError").is_none() {
        put("review", &json!(format!("reviews/{}.json", c.file)));
        if c.context.as_object().is_some_and(|o| !o.is_empty()) {
            put("context", &c.context);
        }
    }
    let mut expect = serde_json::Map::new();
    for key in [
        "bundleError",
        "allowed",
        "code",
        "message",
        "messageContains",
    ] {
        if let Some(v) = c.expect.get(key) {
            expect.insert(key.to_owned(), v.clone());
        }
    }
    out.push_str("expect:\n");
    for (k, v) in expect {
        let mut one = serde_json::Map::new();
        one.insert(k, v);
        for line in palisade_yaml::to_string(&Value::Object(one)).lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The context semantics of docs/architecture.md, for the native check.
struct ContextHost(Value);

impl Cluster for ContextHost {
    fn namespace(&self, namespace: &str) -> Result<Option<Value>, HostError> {
        let Some(list) = self.0.get("namespaces").and_then(Value::as_array) else {
            return Err(HostError::NotProvided(Question::Namespace(
                namespace.to_owned(),
            )));
        };
        Ok(list
            .iter()
            .find(|n| n["metadata"]["name"] == json!(namespace))
            .cloned())
    }
    fn authorize(&self, q: &AccessQuery) -> Result<AccessDecision, HostError> {
        let Some(list) = self.0.get("authorizations").and_then(Value::as_array) else {
            return Err(HostError::NotProvided(Question::Access(Box::new(
                q.clone(),
            ))));
        };
        let field = |a: &Value, k: &str, v: &str| {
            a.get(k)
                .and_then(Value::as_str)
                .is_none_or(|x| x == "*" || x == v)
        };
        for a in list {
            let subject_ok = match (a["subject"].get("user"), a["subject"].get("group")) {
                (Some(u), _) => u == &json!(q.user),
                (_, Some(g)) => q.groups.iter().any(|x| g == &json!(x)),
                _ => false,
            };
            if subject_ok
                && field(a, "verb", &q.verb)
                && field(a, "apiGroup", &q.api_group)
                && field(a, "resource", &q.resource)
                && field(a, "name", &q.name)
                && field(a, "namespace", &q.namespace)
            {
                return Ok(a["allowed"].as_bool().unwrap_or(false).into());
            }
        }
        Ok(false.into())
    }
}

fn load_bundle(c: &Case) -> Value {
    match &c.bundle {
        Value::String(p) => {
            let text = std::fs::read_to_string(repo().join(p)).unwrap();
            palisade_yaml::from_str(&text).unwrap()
        }
        inline => inline.clone(),
    }
}

fn native(c: &Case) -> Value {
    let bundle = load_bundle(c);
    let docs: Vec<Value> = bundle["policies"].as_array().cloned().unwrap_or_default();
    let refs: Vec<(usize, &Value)> = docs.iter().enumerate().collect();
    let s = &bundle["certificateRequests"];
    let settings = Settings {
        unmatched: if s["unmatched"] == json!("Allow") {
            Unmatched::Allow
        } else {
            Unmatched::Deny
        },
        require_use_permission: s["requireUsePermission"].as_bool().unwrap_or(true),
    };
    match Policies::compile(&refs, settings) {
        Err(errs) => {
            let all: Vec<String> = errs
                .iter()
                .map(|(i, e)| format!("policies[{i}].{e}"))
                .collect();
            json!({"bundleError": true, "all": all})
        }
        Ok(p) => match p.evaluate(
            &review(c)["request"]["object"],
            &ContextHost(c.context.clone()),
        ) {
            Decision::Approved { .. } | Decision::Unmatched { .. } => json!({"allowed": true}),
            Decision::Denied { message } | Decision::Error { message } => {
                json!({"allowed": false, "code": 403, "message": message})
            }
        },
    }
}

fn check(c: &Case, got: &Value) {
    let want = &c.expect;
    let ctx = format!("{}/{}", c.suite, c.file);
    if want.get("bundleError").is_some() {
        assert_eq!(got["bundleError"], json!(true), "{ctx}: {got}");
        let all = got["all"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
            .join("\n");
        let frags: Vec<String> = match &want["messageContains"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a.iter().map(|v| v.as_str().unwrap().to_owned()).collect(),
            _ => vec![],
        };
        for f in frags {
            assert!(all.contains(&f), "{ctx}: {all:?} should contain {f:?}");
        }
        return;
    }
    assert_eq!(got["allowed"], want["allowed"], "{ctx}: {got}");
    if let Some(m) = want.get("message") {
        assert_eq!(&got["message"], m, "{ctx}");
    }
    if let Some(m) = want.get("messageContains").and_then(Value::as_str) {
        assert!(got["message"].as_str().unwrap().contains(m), "{ctx}: {got}");
    }
    if let Some(code) = want.get("code") {
        assert_eq!(&got["code"], code, "{ctx}");
    }
}

/// Writes `content` under BLESS; always compares what is on disk with it as data (YAML or
/// JSON parsed), so the check does not depend on how serde_json orders map keys.
fn write_or_compare(path: &Path, content: &str, bless: bool) {
    if bless {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let on_disk = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1)", path.display()));
    let parse = |t: &str| -> Value { palisade_yaml::from_str(t).unwrap() };
    assert_eq!(
        parse(&on_disk),
        parse(content),
        "{} differs from its generator (run with BLESS=1)",
        path.display()
    );
}

#[test]
fn case_files_match_and_agree_natively() {
    let bless = std::env::var_os("BLESS").is_some();
    let root = repo().join("tests/cases/cert-manager");
    let cases = all_cases();
    for c in &cases {
        check(c, &native(c));
        let dir = root.join(c.suite);
        let yaml = case_yaml(c);
        write_or_compare(&dir.join(format!("{}.yaml", c.file)), &yaml, bless);
        if c.expect.get("bundleError").is_none() {
            write_or_compare(
                &dir.join("reviews").join(format!("{}.json", c.file)),
                &(serde_json::to_string_pretty(&review(c)).unwrap() + "\n"),
                bless,
            );
        }
    }
    // nothing stale
    for suite in [
        "namespaced-services",
        "public-ingress",
        "upstream",
        "hostile",
        "cel",
    ] {
        let n_yaml = std::fs::read_dir(root.join(suite))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "yaml")
            })
            .count();
        assert_eq!(
            n_yaml,
            cases.iter().filter(|c| c.suite == suite).count(),
            "stale case files in {suite}"
        );
    }
}
