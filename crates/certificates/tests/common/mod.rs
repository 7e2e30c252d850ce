//! Test helpers: a small DER writer to build PKCS#10 CSRs of any shape (the signature is
//! never verified, by approver-policy nor by us, so it is a placeholder), CertificateRequest
//! objects, CertificateRequestPolicy documents and a fake [`Cluster`].
#![allow(
    dead_code,
    reason = "each test crate uses a different part of the helpers"
)]

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine as _;
use palisade_cel_kubernetes::cluster::{AccessDecision, AccessQuery, Cluster, HostError, Question};
use palisade_certificates::{Decision, Policies, Settings};
use serde_json::{Value, json};

pub fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = content.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes: Vec<u8> = n
            .to_be_bytes()
            .iter()
            .copied()
            .skip_while(|b| *b == 0)
            .collect();
        out.push(0x80 | bytes.len() as u8);
        out.extend(bytes);
    }
    out.extend_from_slice(content);
    out
}

pub fn seq(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}
pub fn set(parts: &[Vec<u8>]) -> Vec<u8> {
    tlv(0x31, &parts.concat())
}

pub fn oid(dotted: &str) -> Vec<u8> {
    let arcs: Vec<u64> = dotted.split('.').map(|a| a.parse().unwrap()).collect();
    let mut body = Vec::new();
    let mut push = |mut v: u64| {
        let mut tmp = vec![(v & 0x7f) as u8];
        v >>= 7;
        while v > 0 {
            tmp.push(0x80 | (v & 0x7f) as u8);
            v >>= 7;
        }
        tmp.reverse();
        body.extend(tmp);
    };
    push(arcs[0] * 40 + arcs[1]);
    for a in &arcs[2..] {
        push(*a);
    }
    tlv(0x06, &body)
}

pub fn utf8(s: &str) -> Vec<u8> {
    tlv(0x0c, s.as_bytes())
}
pub fn printable(s: &str) -> Vec<u8> {
    tlv(0x13, s.as_bytes())
}

/// One attribute of a subject: (OID, fully encoded value).
pub type Attr = (String, Vec<u8>);

pub fn attr(o: &str, value: &str) -> Attr {
    (o.to_owned(), utf8(value))
}

pub const CN: &str = "2.5.4.3";
pub const SERIAL: &str = "2.5.4.5";
pub const C: &str = "2.5.4.6";
pub const L: &str = "2.5.4.7";
pub const ST: &str = "2.5.4.8";
pub const STREET: &str = "2.5.4.9";
pub const O: &str = "2.5.4.10";
pub const OU: &str = "2.5.4.11";
pub const POSTAL: &str = "2.5.4.17";
pub const EMAIL_ADDRESS: &str = "1.2.840.113549.1.9.1";
pub const UPN: &str = "1.3.6.1.4.1.311.20.2.3";

#[derive(Clone, Debug)]
pub enum Key {
    Rsa(usize),
    /// a named curve (OID) with its generator as the public point
    Ec(&'static str),
    /// a named curve with an arbitrary point encoding
    EcPoint(&'static str, Vec<u8>),
    Ed25519,
    Raw(Vec<u8>),
}

/// The shape of a test CSR.
#[derive(Clone, Debug)]
pub struct CsrSpec {
    /// RDNs, each a set of attributes
    pub subject: Vec<Vec<Attr>>,
    /// encoded GeneralNames of the SAN extension (None: no SAN extension)
    pub sans: Option<Vec<Vec<u8>>>,
    pub key: Key,
    /// extra raw extensions (already encoded `Extension` SEQUENCEs)
    pub extra_extensions: Vec<Vec<u8>>,
}

impl Default for CsrSpec {
    fn default() -> Self {
        CsrSpec {
            subject: Vec::new(),
            sans: None,
            key: Key::Ec(P256),
            extra_extensions: Vec::new(),
        }
    }
}

pub const P224: &str = "1.3.132.0.33";
pub const P256: &str = "1.2.840.10045.3.1.7";
pub const P384: &str = "1.3.132.0.34";
pub const P521: &str = "1.3.132.0.35";

/// The uncompressed generator point of each curve (openssl ecparam -param_enc explicit).
pub fn generator(curve: &str) -> &'static str {
    match curve {
        P224 => {
            "04b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34"
        }
        P256 => {
            "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"
        }
        P384 => {
            "04aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab73617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f"
        }
        P521 => {
            "0400c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650"
        }
        other => panic!("no generator for {other}"),
    }
}

pub fn hex(h: &str) -> Vec<u8> {
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect()
}

pub fn dns(name: &str) -> Vec<u8> {
    tlv(0x82, name.as_bytes())
}
pub fn email(name: &str) -> Vec<u8> {
    tlv(0x81, name.as_bytes())
}
pub fn uri(name: &str) -> Vec<u8> {
    tlv(0x86, name.as_bytes())
}
pub fn ip(b: &[u8]) -> Vec<u8> {
    tlv(0x87, b)
}
pub fn ipv4(s: &str) -> Vec<u8> {
    let a: std::net::Ipv4Addr = s.parse().unwrap();
    ip(&a.octets())
}
pub fn other_name(type_id: &str, value: Vec<u8>) -> Vec<u8> {
    tlv(0xa0, &[oid(type_id), tlv(0xa0, &value)].concat())
}

impl CsrSpec {
    pub fn cn(mut self, v: &str) -> Self {
        self.subject.push(vec![attr(CN, v)]);
        self
    }
    pub fn rdn(mut self, o: &str, values: &[&str]) -> Self {
        for v in values {
            self.subject.push(vec![attr(o, v)]);
        }
        self
    }
    pub fn raw_attr(mut self, o: &str, encoded: Vec<u8>) -> Self {
        self.subject.push(vec![(o.to_owned(), encoded)]);
        self
    }
    pub fn san(mut self, gn: Vec<u8>) -> Self {
        self.sans.get_or_insert_with(Vec::new).push(gn);
        self
    }
    pub fn dns(self, names: &[&str]) -> Self {
        names.iter().fold(self, |s, n| s.san(dns(n)))
    }
    pub fn ips(self, v: &[&str]) -> Self {
        v.iter().fold(self, |s, n| s.san(ipv4(n)))
    }
    pub fn uris(self, v: &[&str]) -> Self {
        v.iter().fold(self, |s, n| s.san(uri(n)))
    }
    pub fn emails(self, v: &[&str]) -> Self {
        v.iter().fold(self, |s, n| s.san(email(n)))
    }
    pub fn key(mut self, k: Key) -> Self {
        self.key = k;
        self
    }

    pub fn spki(&self) -> Vec<u8> {
        match &self.key {
            Key::Rsa(bits) => {
                let mut n = vec![0u8; bits / 8];
                n[0] = 0x80;
                n[bits / 8 - 1] |= 1;
                let mut modulus = vec![0u8];
                modulus.extend(n);
                let rsa = seq(&[tlv(0x02, &modulus), tlv(0x02, &[1, 0, 1])]);
                let mut bits_content = vec![0u8];
                bits_content.extend(rsa);
                seq(&[
                    seq(&[oid("1.2.840.113549.1.1.1"), vec![0x05, 0x00]]),
                    tlv(0x03, &bits_content),
                ])
            }
            Key::Ec(curve) => {
                let mut point = vec![0u8];
                point.extend(hex(generator(curve)));
                seq(&[
                    seq(&[oid("1.2.840.10045.2.1"), oid(curve)]),
                    tlv(0x03, &point),
                ])
            }
            Key::EcPoint(curve, p) => {
                let mut point = vec![0u8];
                point.extend(p);
                seq(&[
                    seq(&[oid("1.2.840.10045.2.1"), oid(curve)]),
                    tlv(0x03, &point),
                ])
            }
            Key::Ed25519 => {
                let mut k = vec![0u8];
                k.extend([9u8; 32]);
                seq(&[seq(&[oid("1.3.101.112")]), tlv(0x03, &k)])
            }
            Key::Raw(r) => r.clone(),
        }
    }

    pub fn subject_der(&self) -> Vec<u8> {
        let rdns: Vec<Vec<u8>> = self
            .subject
            .iter()
            .map(|rdn| {
                set(&rdn
                    .iter()
                    .map(|(o, v)| seq(&[oid(o), v.clone()]))
                    .collect::<Vec<_>>())
            })
            .collect();
        seq(&rdns)
    }

    pub fn der(&self) -> Vec<u8> {
        let mut exts: Vec<Vec<u8>> = Vec::new();
        if let Some(sans) = &self.sans {
            exts.push(seq(&[oid("2.5.29.17"), tlv(0x04, &seq(sans))]));
        }
        exts.extend(self.extra_extensions.iter().cloned());
        let attrs = if exts.is_empty() {
            tlv(0xa0, &[])
        } else {
            tlv(
                0xa0,
                &seq(&[oid("1.2.840.113549.1.9.14"), set(&[seq(&exts)])]),
            )
        };
        let tbs = seq(&[tlv(0x02, &[0]), self.subject_der(), self.spki(), attrs]);
        seq(&[
            tbs,
            seq(&[oid("1.2.840.10045.4.3.2")]),
            tlv(0x03, &[0, 0x30, 0x00]),
        ])
    }

    pub fn pem(&self) -> String {
        pem("CERTIFICATE REQUEST", &self.der())
    }

    pub fn request(&self) -> String {
        b64(self.pem().as_bytes())
    }
}

pub fn pem(label: &str, der: &[u8]) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n");
    for chunk in body.as_bytes().chunks(64) {
        out.push_str(std::str::from_utf8(chunk).unwrap());
        out.push('\n');
    }
    out.push_str(&format!("-----END {label}-----\n"));
    out
}

pub fn b64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// A CertificateRequest (cert-manager.io/v1).
#[derive(Clone, Debug)]
pub struct Cr {
    pub v: Value,
}

impl Cr {
    pub fn new(request_b64: &str) -> Cr {
        Cr {
            v: json!({
                "apiVersion": "cert-manager.io/v1",
                "kind": "CertificateRequest",
                "metadata": {"name": "test-req", "namespace": "test-namespace"},
                "spec": {
                    "request": request_b64,
                    "username": "example",
                    "issuerRef": {"name": "test-name", "kind": "test-kind", "group": "test-group"}
                }
            }),
        }
    }
    pub fn of(spec: &CsrSpec) -> Cr {
        Cr::new(&spec.request())
    }
    pub fn set(mut self, pointer: &str, value: Value) -> Cr {
        let mut parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
        let last = parts.pop().unwrap();
        let mut cur = &mut self.v;
        for p in parts {
            cur = cur
                .as_object_mut()
                .unwrap()
                .entry(p)
                .or_insert_with(|| json!({}));
        }
        cur.as_object_mut().unwrap().insert(last.to_owned(), value);
        self
    }
    pub fn remove(mut self, pointer: &str) -> Cr {
        let mut parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
        let last = parts.pop().unwrap();
        let mut cur = &mut self.v;
        for p in parts {
            cur = cur.get_mut(p).unwrap();
        }
        cur.as_object_mut().unwrap().remove(last);
        self
    }
    pub fn namespace(self, ns: &str) -> Cr {
        self.set("/metadata/namespace", json!(ns))
    }
}

/// A CertificateRequestPolicy named `name` with `spec`.
pub fn policy(name: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "policy.cert-manager.io/v1alpha1",
        "kind": "CertificateRequestPolicy",
        "metadata": {"name": name},
        "spec": spec
    })
}

/// A policy selecting every request, with `allowed` / `constraints` from `spec`.
pub fn open_policy(name: &str, mut spec: Value) -> Value {
    spec.as_object_mut()
        .unwrap()
        .insert("selector".into(), json!({"issuerRef": {}}));
    policy(name, spec)
}

/// A host with namespace labels and a set of (user or group, policy, namespace or "") grants.
#[derive(Default, Clone)]
pub struct FakeHost {
    pub namespaces: BTreeMap<String, BTreeMap<String, String>>,
    /// (subject, policy name, namespace; "" = cluster-wide)
    pub grants: BTreeSet<(String, String, String)>,
    pub everyone: bool,
    pub fail_sar: Option<String>,
    pub fail_ns: Option<String>,
    pub checks: std::cell::RefCell<Vec<AccessQuery>>,
}

impl FakeHost {
    pub fn allow_all() -> Self {
        FakeHost {
            everyone: true,
            ..Default::default()
        }
    }
    pub fn ns(mut self, name: &str, labels: &[(&str, &str)]) -> Self {
        self.namespaces.insert(
            name.to_owned(),
            labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        self
    }
    pub fn grant(mut self, subject: &str, policy: &str, ns: &str) -> Self {
        self.grants
            .insert((subject.to_owned(), policy.to_owned(), ns.to_owned()));
        self
    }
}

impl Cluster for FakeHost {
    fn namespace(&self, namespace: &str) -> Result<Option<Value>, HostError> {
        panic!("only the labels of namespace `{namespace}` are asked for")
    }
    fn namespace_labels(
        &self,
        namespace: &str,
    ) -> Result<Option<BTreeMap<String, String>>, HostError> {
        if let Some(e) = &self.fail_ns {
            return Err(HostError::Failed {
                question: Question::Namespace(namespace.to_owned()),
                message: e.clone(),
            });
        }
        Ok(self.namespaces.get(namespace).cloned())
    }
    fn authorize(&self, req: &AccessQuery) -> Result<AccessDecision, HostError> {
        self.checks.borrow_mut().push(req.clone());
        if let Some(e) = &self.fail_sar {
            return Err(HostError::Failed {
                question: Question::Access(Box::new(req.clone())),
                message: e.clone(),
            });
        }
        if self.everyone {
            return Ok(true.into());
        }
        let subjects: Vec<&String> = std::iter::once(&req.user)
            .chain(req.groups.iter())
            .collect();
        Ok(self
            .grants
            .iter()
            .any(|(s, p, ns)| {
                subjects.contains(&s) && *p == req.name && (ns.is_empty() || *ns == req.namespace)
            })
            .into())
    }
}

pub fn compile(docs: &[Value]) -> Policies {
    compile_with(docs, Settings::default())
}

pub fn compile_with(docs: &[Value], settings: Settings) -> Policies {
    let refs: Vec<(usize, &Value)> = docs.iter().enumerate().collect();
    match Policies::compile(&refs, settings) {
        Ok(p) => p,
        Err(e) => panic!("bundle did not compile: {e:?}"),
    }
}

/// The compile errors of one document, rendered `path: message`, joined as k8s aggregates.
pub fn compile_errors(doc: &Value) -> Vec<String> {
    match Policies::compile(&[(0, doc)], Settings::default()) {
        Ok(_) => Vec::new(),
        Err(errs) => errs.into_iter().map(|(_, e)| e.to_string()).collect(),
    }
}

/// Evaluates one policy against a CR, everyone allowed to use it: the allowed+constraints
/// message ("" when approved), or `Err` for an evaluation error.
pub fn eval_one(spec: Value, cr: &Cr) -> Result<String, String> {
    let p = compile(&[open_policy("p", spec)]);
    match p.evaluate(&cr.v, &FakeHost::allow_all()) {
        Decision::Approved { .. } => Ok(String::new()),
        Decision::Denied { message } => {
            let m = message
                .strip_prefix("No policy approved this request: [p: ")
                .expect(&message);
            Ok(m.strip_suffix(']').unwrap().to_owned())
        }
        Decision::Error { message } => Err(message),
        Decision::Unmatched { message } => panic!("unmatched: {message}"),
    }
}

/// k8s `field.ErrorList.ToAggregate().Error()` over rendered errors.
pub fn agg(errs: &[&str]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errs {
        if !seen.contains(e) {
            seen.push(e);
        }
    }
    if seen.len() == 1 {
        seen[0].to_owned()
    } else {
        format!("[{}]", seen.join(", "))
    }
}
