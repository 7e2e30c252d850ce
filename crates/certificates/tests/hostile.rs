//! Hostile `spec.request` inputs: each is a committed fixture under `tests/fixtures/hostile/`
//! (regenerate with `BLESS=1 cargo test -p palisade-certificates --test hostile`) and each
//! must end in a clean verdict with a reason, never a panic.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed expectation is a test failure"
)]

mod common;

use std::path::PathBuf;

use common::*;
use palisade_certificates::Decision;
use serde_json::{Value, json};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile")
}

fn valid_der() -> Vec<u8> {
    CsrSpec::default()
        .cn("ok.example.com")
        .dns(&["ok.example.com"])
        .der()
}

fn pem_b64(der: &[u8]) -> String {
    b64(pem("CERTIFICATE REQUEST", der).as_bytes())
}

/// (name, description, spec.request, expected kind, expected message fragment)
fn generate() -> Vec<(&'static str, &'static str, Value, &'static str, String)> {
    let der = valid_der();
    let mut out = Vec::new();
    let mut add =
        |name, desc, req: Value, kind, msg: &str| out.push((name, desc, req, kind, msg.to_owned()));

    add(
        "garbage-base64",
        "spec.request is not base64",
        json!("!!!not base64!!!"),
        "error",
        "spec.request: illegal base64 data at input byte 0",
    );
    add(
        "not-pem",
        "base64 of text without any PEM block",
        json!(b64(b"hello world")),
        "error",
        "error decoding certificate request PEM block: no PEM data was found in given input",
    );
    add(
        "empty",
        "empty spec.request",
        json!(""),
        "error",
        "error decoding certificate request PEM block: no PEM data was found in given input",
    );
    add(
        "pem-without-end",
        "a BEGIN line and no END line",
        json!(b64(
            b"-----BEGIN CERTIFICATE REQUEST-----\nMIIBszCCAVkCAQAw\n"
        )),
        "error",
        "no PEM data was found in given input",
    );
    add(
        "pem-bad-body",
        "a PEM block whose body is not base64",
        json!(b64(
            b"-----BEGIN CERTIFICATE REQUEST-----\n****\n-----END CERTIFICATE REQUEST-----\n"
        )),
        "error",
        "no PEM data was found in given input",
    );
    add(
        "truncated-der",
        "a valid CSR cut in half",
        json!(pem_b64(&der[..der.len() / 2])),
        "error",
        "asn1: syntax error: data truncated",
    );
    let mut trailing = der.clone();
    trailing.extend([0, 0]);
    add(
        "trailing-data",
        "garbage after the CSR",
        json!(pem_b64(&trailing)),
        "error",
        "asn1: syntax error: trailing data",
    );
    add(
        "huge-length",
        "a SEQUENCE claiming 2 GiB",
        json!(pem_b64(&[0x30, 0x84, 0x7f, 0xff, 0xff, 0xff, 0x00])),
        "error",
        "asn1: syntax error: data truncated",
    );
    add(
        "overlong-length",
        "a length of five bytes",
        json!(pem_b64(&[0x30, 0x85, 0x01, 0xff, 0xff, 0xff, 0xff, 0x00])),
        "error",
        "asn1: structure error: length too large",
    );
    add(
        "indefinite-length",
        "BER indefinite length",
        json!(pem_b64(&[0x30, 0x80, 0x00, 0x00])),
        "error",
        "asn1: syntax error: indefinite length found (not DER)",
    );
    add(
        "not-a-sequence",
        "a CSR that is an INTEGER",
        json!(pem_b64(&[0x02, 0x01, 0x00])),
        "error",
        "asn1: structure error: tags don't match",
    );
    // 3000 nested SEQUENCEs as the CN's value: never descended into, read as a non-string
    let mut nested = utf8("x");
    for _ in 0..3000 {
        nested = tlv(0x30, &nested);
    }
    let deep = CsrSpec::default().raw_attr(CN, nested);
    add(
        "deep-nesting",
        "3000 nested SEQUENCEs as the common name",
        json!(deep.request()),
        "denied",
        "subject attribute 2.5.4.3 uses an unsupported ASN.1 type or string encoding",
    );
    let big = CsrSpec::default()
        .dns(&["a.example.com"; 1])
        .cn(&"x".repeat(1 << 20));
    add(
        "megabyte-csr",
        "a 1 MiB common name",
        json!(big.request()),
        "error",
        "error decoding certificate request PEM block: provided PEM data was larger than the maximum 36500B",
    );
    add(
        "universal-string-cn",
        "CN as UniversalString (tag 28)",
        json!(
            CsrSpec::default()
                .raw_attr(CN, tlv(0x1c, &[0, 0, 0, b'a']))
                .request()
        ),
        "denied",
        "spec.allowed.commonName: Invalid value: \"<non-string value>\": subject attribute 2.5.4.3 uses an unsupported ASN.1 type or string encoding",
    );
    add(
        "bmp-string-organization",
        "O as BMPString reads as text",
        json!(
            CsrSpec::default()
                .raw_attr(O, tlv(0x1e, &[0, b'o', 0, b'k']))
                .request()
        ),
        "approved",
        "",
    );
    add(
        "odd-bmp-string",
        "O as an odd-length BMPString",
        json!(
            CsrSpec::default()
                .raw_attr(O, tlv(0x1e, &[0, b'o', 0]))
                .request()
        ),
        "error",
        "pkcs12: odd-length BMP string",
    );
    add(
        "invalid-utf8-cn",
        "CN as UTF8String with invalid UTF-8",
        json!(
            CsrSpec::default()
                .raw_attr(CN, tlv(0x0c, &[0xff, 0xfe]))
                .request()
        ),
        "error",
        "asn1: syntax error: invalid UTF-8 string",
    );
    add(
        "bad-printable-string",
        "CN as PrintableString containing '@'",
        json!(CsrSpec::default().raw_attr(CN, tlv(0x13, b"a@b")).request()),
        "error",
        "asn1: syntax error: PrintableString contains invalid character",
    );
    add(
        "non-ascii-dns-san",
        "dNSName with a byte >= 0x80",
        json!(
            CsrSpec::default()
                .san(tlv(0x82, &[b'a', 0xc3, 0xa9]))
                .request()
        ),
        "error",
        "x509: SAN dNSName is malformed",
    );
    add(
        "bad-ip-san",
        "iPAddress of 5 bytes",
        json!(CsrSpec::default().san(ip(&[1, 2, 3, 4, 5])).request()),
        "error",
        "x509: cannot parse IP address of length 5",
    );
    add(
        "bad-uri-san",
        "URI with an invalid escape",
        json!(CsrSpec::default().uris(&["http://a/%zz"]).request()),
        "error",
        "x509: cannot parse URI \"http://a/%zz\": parse \"http://a/%zz\": invalid URL escape \"%zz\"",
    );
    add(
        "bad-san-choice",
        "GeneralName tag [9], which does not exist",
        json!(CsrSpec::default().san(tlv(0x89, b"x")).request()),
        "denied",
        "subjectAltName (SAN) extension could not be decoded: asn1: structure error: bad SAN choice",
    );
    add(
        "broken-other-name",
        "otherName without its [0] value",
        json!(CsrSpec::default().san(tlv(0xa0, &oid(UPN))).request()),
        "denied",
        "subjectAltName (SAN) extension could not be decoded: asn1: syntax error: sequence truncated",
    );
    let mut dup = CsrSpec::default().dns(&["a.example.com"]);
    dup.extra_extensions.push(seq(&[
        oid("2.5.29.17"),
        tlv(0x04, &seq(&[dns("b.example.com")])),
    ]));
    add(
        "duplicate-san-extension",
        "two SAN extensions",
        json!(dup.request()),
        "error",
        "x509: certificate request contains duplicate requested extensions",
    );
    let neg_rsa = seq(&[
        seq(&[oid("1.2.840.113549.1.1.1"), vec![0x05, 0x00]]),
        tlv(
            0x03,
            &[
                vec![0u8],
                seq(&[tlv(0x02, &[0x80, 1]), tlv(0x02, &[1, 0, 1])]),
            ]
            .concat(),
        ),
    ]);
    add(
        "negative-rsa-modulus",
        "RSA key with a negative modulus",
        json!(CsrSpec::default().key(Key::Raw(neg_rsa)).request()),
        "error",
        "x509: RSA modulus is not a positive number",
    );
    add(
        "bad-ec-point",
        "ECDSA P-256 key with a short point",
        json!(
            CsrSpec::default()
                .key(Key::EcPoint(P256, vec![4; 21]))
                .request()
        ),
        "error",
        "x509: failed to unmarshal elliptic curve point",
    );
    add(
        "request-not-a-string",
        "spec.request is a number",
        json!(42),
        "error",
        "the CertificateRequest cannot be read: spec.request: must be a string",
    );
    out
}

fn open() -> Value {
    open_policy(
        "open",
        json!({"allowed": {
            "commonName": {"value": "*"}, "dnsNames": {"values": ["*"]}, "uris": {"values": ["*"]},
            "ipAddresses": {"values": ["*"]}, "subject": {"organizations": {"values": ["*"]}}
        }}),
    )
}

#[test]
fn hostile_fixtures() {
    let dir = fixtures_dir();
    let bless = std::env::var_os("BLESS").is_some();
    if bless {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let policies = compile(&[open()]);
    let generated = generate();
    for (name, desc, request, kind, msg) in &generated {
        let path = dir.join(format!("{name}.json"));
        let fixture = json!({"description": desc, "request": request, "expect": {"decision": kind, "messageContains": msg}});
        if bless {
            std::fs::write(
                &path,
                serde_json::to_string_pretty(&fixture).unwrap() + "\n",
            )
            .unwrap();
        }
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (run with BLESS=1)", path.display()));
        let committed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            committed, fixture,
            "{name}: fixture differs from its generator (run with BLESS=1)"
        );
        let cr = Cr::new("").set("/spec/request", committed["request"].clone());
        let d = policies.evaluate(&cr.v, &FakeHost::allow_all());
        let (got_kind, got_msg) = match &d {
            Decision::Approved { .. } => ("approved", String::new()),
            Decision::Denied { message } => ("denied", message.clone()),
            Decision::Error { message } => ("error", message.clone()),
            Decision::Unmatched { message } => ("unmatched", message.clone()),
        };
        assert_eq!(got_kind, *kind, "{name}: {d:?}");
        assert!(
            got_msg.contains(msg.as_str()),
            "{name}: {got_msg:?} should contain {msg:?}"
        );
    }
    let on_disk = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        on_disk,
        generated.len(),
        "stale fixtures in {}",
        dir.display()
    );
}

/// A tiny deterministic generator (no dependency needed).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn random_mutations_never_panic() {
    let policies = compile(&[
        open(),
        open_policy("c", json!({"constraints": {"privateKey": {"minSize": 1}}})),
    ]);
    let base = CsrSpec::default()
        .cn("a")
        .rdn(O, &["o"])
        .dns(&["a.example.com"])
        .uris(&["spiffe://a/b"])
        .san(other_name(UPN, utf8("u@x")))
        .key(Key::Rsa(1024))
        .der();
    let mut rng = Lcg(42);
    for _ in 0..3000 {
        let mut der = base.clone();
        let edits = 1 + rng.next() % 4;
        for _ in 0..edits {
            let i = (rng.next() as usize) % der.len();
            match rng.next() % 3 {
                0 => der[i] = rng.next() as u8,
                1 => {
                    der.truncate(i.max(1));
                }
                _ => der.insert(i, rng.next() as u8),
            }
        }
        let cr = Cr::new(&pem_b64(&der));
        let _ = policies.evaluate(&cr.v, &FakeHost::allow_all());
    }
}

#[test]
fn arbitrary_cr_json_never_panics() {
    let policies = compile(&[open()]);
    for v in [
        json!(null),
        json!([]),
        json!({"spec": null}),
        json!({"spec": {"request": []}}),
        json!({"spec": {"duration": 5}}),
        json!({"spec": {"duration": "forever"}}),
        json!({"spec": {"isCA": "yes"}}),
        json!({"spec": {"usages": "a"}}),
        json!({"spec": {"groups": [1]}}),
        json!({"metadata": {"namespace": 1}, "spec": {}}),
        json!({"spec": {"issuerRef": {"name": []}}}),
    ] {
        match policies.evaluate(&v, &FakeHost::allow_all()) {
            Decision::Error { message } => assert!(
                message.starts_with("the CertificateRequest cannot be read: "),
                "{message}"
            ),
            other => panic!("{v}: {other:?}"),
        }
    }
}

#[test]
fn arbitrary_policy_json_never_panics() {
    let docs = [
        json!(null),
        json!("x"),
        json!({"spec": []}),
        json!({"metadata": {"name": "p"}, "spec": {"selector": {"issuerRef": []}}}),
        json!({"metadata": {"name": "p"}, "spec": {"selector": {"namespace": {"matchLabels": {"a": 1}, "matchNames": "x"}}}}),
        json!({"metadata": {"name": "p"}, "spec": {"selector": {"issuerRef": {}}, "allowed": {"subject": {"otherAttributes": [{"values": 1}]}, "otherNames": {}}}}),
        json!({"metadata": {"name": "p"}, "spec": {"selector": {"issuerRef": {}}, "constraints": {"privateKey": {"minSize": 1.5, "maxSize": "1"}}}}),
        json!({"metadata": {"name": "p"}, "spec": {"selector": {"issuerRef": {}}, "allowed": {"commonName": {"validations": [{"message": "m"}, 3]}}}}),
    ];
    for d in &docs {
        assert!(!compile_errors(d).is_empty(), "{d}");
    }
}

#[test]
fn many_attributes_near_the_size_cap_stay_fast() {
    // ~2400 distinct unknown subject OIDs and as many DNS names, just under the 36,500-byte PEM cap
    let mut spec = CsrSpec::default();
    for i in 0..1200u32 {
        spec = spec.raw_attr(&format!("1.2.3.{i}"), utf8("v"));
    }
    for i in 0..700u32 {
        spec = spec.dns(&[&format!("h{i}.x")]);
    }
    let request = spec.request();
    assert!(request.len() > 30_000, "{}", request.len());
    let pem_len = spec.pem().len();
    assert!(pem_len < 36_500, "{pem_len}");
    let policies = compile(&[open_policy(
        "p",
        json!({"allowed": {"dnsNames": {"validations": [{"rule": "self.endsWith('.x')"}]}}}),
    )]);
    let start = std::time::Instant::now();
    let d = policies.evaluate(&Cr::new(&request).v, &FakeHost::allow_all());
    assert!(matches!(d, Decision::Denied { .. }), "{d:?}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}
