//! Real OpenSSL-made CSRs (tests/fixtures/openssl) through the whole evaluation.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed expectation is a test failure"
)]

mod common;

use common::*;
use serde_json::json;

fn fixture(name: &str) -> Cr {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/openssl")
        .join(name);
    let pem = std::fs::read(path).unwrap();
    Cr::new(&b64(&pem))
}

#[test]
fn rsa_with_every_san_kind() {
    let m = eval_one(json!({}), &fixture("rsa2048-sans.csr")).unwrap();
    assert_eq!(
        m,
        agg(&[
            r#"spec.allowed.commonName: Invalid value: "web.team-a.svc.cluster.local": no allowed value"#,
            r#"spec.allowed.dnsNames: Invalid value: ["web.team-a.svc.cluster.local","web.team-a.svc"]: no allowed values"#,
            r#"spec.allowed.ipAddresses: Invalid value: ["10.0.0.7","10.0.0.8"]: no allowed values"#,
            r#"spec.allowed.uris: Invalid value: ["spiffe://cluster.local/ns/team-a/sa/web"]: no allowed values"#,
            r#"spec.allowed.emailAddresses: Invalid value: ["ops@example.com"]: no allowed values"#,
            r#"spec.allowed.subject.organizations: Invalid value: ["Example Ltd"]: no allowed values"#,
            r#"spec.allowed.subject.countries: Invalid value: ["GB"]: no allowed values"#,
            r#"spec.allowed.subject.organizationalUnits: Invalid value: ["Platform"]: no allowed values"#,
            r#"spec.allowed.subject.localities: Invalid value: ["London"]: no allowed values"#,
            r#"spec.allowed.subject.provinces: Invalid value: ["London"]: no allowed values"#,
            r#"spec.allowed.subject.serialNumber: Invalid value: "42": no allowed value"#,
        ])
    );
    let spec = json!({
        "allowed": {
            "commonName": {"value": "*.svc.cluster.local"},
            "dnsNames": {"values": ["*.team-a.svc", "*.team-a.svc.cluster.local"]},
            "ipAddresses": {"values": ["10.0.0.*"]},
            "uris": {"values": ["spiffe://cluster.local/ns/team-a/sa/*"]},
            "emailAddresses": {"values": ["*@example.com"]},
            "subject": {
                "organizations": {"values": ["Example Ltd"]}, "countries": {"values": ["GB"]},
                "organizationalUnits": {"values": ["*"]}, "localities": {"values": ["London"]},
                "provinces": {"values": ["London"]}, "serialNumber": {"value": "4?"}
            }
        },
        "constraints": {"privateKey": {"algorithm": "RSA", "minSize": 2048, "maxSize": 2048}}
    });
    // `?` is literal, so "4?" does not match "42"
    assert_eq!(
        eval_one(spec.clone(), &fixture("rsa2048-sans.csr")).unwrap(),
        r#"spec.allowed.subject.serialNumber.value: Invalid value: "42": 4?"#
    );
    let mut ok = spec;
    ok["allowed"]["subject"]["serialNumber"]["value"] = json!("4*");
    assert_eq!(
        eval_one(ok, &fixture("rsa2048-sans.csr")),
        Ok(String::new())
    );
}

#[test]
fn rsa4096_upn_and_email_attribute() {
    let m = eval_one(
        json!({"allowed": {"commonName": {"value": "*"}, "dnsNames": {"values": ["*"]}}}),
        &fixture("rsa4096-upn.csr"),
    )
    .unwrap();
    assert_eq!(
        m,
        agg(&[
            r#"spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3]: Invalid value: ["alice@corp.example.com"]: no allowed values"#,
            r#"spec.allowed.subject.otherAttributes[1.2.840.113549.1.9.1]: Invalid value: ["alice@corp.example.com"]: no allowed values"#,
        ])
    );
    let spec = json!({"allowed": {
        "commonName": {"value": "*"}, "dnsNames": {"values": ["*"]},
        "otherNames": [{"oid": "1.3.6.1.4.1.311.20.2.3", "values": ["*@corp.example.com"]}],
        "subject": {"otherAttributes": [{"oid": "1.2.840.113549.1.9.1", "values": ["*@corp.example.com"]}]}
    }, "constraints": {"privateKey": {"minSize": 4096}}});
    assert_eq!(
        eval_one(spec, &fixture("rsa4096-upn.csr")),
        Ok(String::new())
    );
}

#[test]
fn key_algorithms_and_sizes() {
    for (file, alg, size) in [
        ("ecdsa-p256.csr", "ECDSA", "256"),
        ("ecdsa-p384.csr", "ECDSA", "384"),
        ("ed25519.csr", "Ed25519", "-1"),
        ("rsa2048-sans.csr", "RSA", "2048"),
    ] {
        let valid = json!({"allowed": {"commonName": {"value": "*"}, "dnsNames": {"values": ["*"]}, "ipAddresses": {"values": ["*"]},
            "uris": {"values": ["*"]}, "emailAddresses": {"values": ["*"]}, "subject": {"organizations": {"values": ["*"]}, "countries": {"values": ["*"]},
            "organizationalUnits": {"values": ["*"]}, "localities": {"values": ["*"]}, "provinces": {"values": ["*"]}, "serialNumber": {"value": "*"}}},
            "constraints": {"privateKey": {"maxSize": 0}}});
        let want_alg = if alg == "RSA" { "ECDSA" } else { "RSA" };
        let mut with_alg = valid.clone();
        with_alg["constraints"]["privateKey"]["algorithm"] = json!(want_alg);
        if alg == "Ed25519" {
            assert_eq!(
                eval_one(json!({"allowed": {"commonName": {"value": "*"}, "dnsNames": {"values": ["*"]}}, "constraints": {"privateKey": {"algorithm": "RSA"}}}), &fixture(file)).unwrap(),
                r#"spec.constraints.privateKey.algorithm: Invalid value: "Ed25519": RSA"#
            );
            continue;
        }
        assert_eq!(
            eval_one(with_alg, &fixture(file)).unwrap(),
            agg(&[
                &format!(
                    r#"spec.constraints.privateKey.algorithm: Invalid value: "{alg}": {want_alg}"#
                ),
                &format!(r#"spec.constraints.privateKey.maxSize: Invalid value: "{size}": 0"#),
            ])
        );
    }
}

#[test]
fn utf8_subject() {
    let spec = json!({"allowed": {"commonName": {"value": "bmp.example.com"}, "subject": {"organizations": {"values": ["Ünïcode Org"]}}}});
    assert_eq!(
        eval_one(spec, &fixture("utf8-subject.csr")),
        Ok(String::new())
    );
}
