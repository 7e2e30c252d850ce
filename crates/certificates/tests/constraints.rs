//! upstream: cert-manager/approver-policy v0.27 pkg/internal/approver/constraints/evaluator_test.go
//! Test_Evaluate and validation_test.go Test_Validate.
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

#[test]
fn passes_ed25519_with_private_key_constraints() {
    // upstream: Test_Evaluate "passes on Ed25519 CSR with private key constraints set"
    let cr = Cr::of(&CsrSpec::default().key(Key::Ed25519));
    assert_eq!(
        eval_one(
            json!({"constraints": {"privateKey": {"algorithm": "Ed25519"}}}),
            &cr
        ),
        Ok(String::new())
    );
}

#[test]
fn no_constraints_not_denied() {
    // upstream: Test_Evaluate "if no constraints defined, should return NotDenied"
    assert_eq!(
        eval_one(json!({}), &Cr::of(&CsrSpec::default())),
        Ok(String::new())
    );
}

#[test]
fn duration_not_requested_denied() {
    // upstream: Test_Evaluate "if constraints contains duration but duration wasn't requested, return Denied"
    let spec = json!({"constraints": {"minDuration": "1h", "maxDuration": "24h"}});
    assert_eq!(
        eval_one(spec, &Cr::of(&CsrSpec::default())).unwrap(),
        agg(&[
            r#"spec.constraints.maxDuration: Invalid value: "nil": 24h0m0s"#,
            r#"spec.constraints.minDuration: Invalid value: "nil": 1h0m0s"#
        ])
    );
}

#[test]
fn duration_too_small_denied() {
    // upstream: Test_Evaluate "if constraints contains duration but requested duration is too small, return Denied"
    let spec = json!({"constraints": {"minDuration": "1h", "maxDuration": "24h"}});
    let cr = Cr::of(&CsrSpec::default()).set("/spec/duration", json!("1m"));
    assert_eq!(
        eval_one(spec, &cr).unwrap(),
        r#"spec.constraints.minDuration: Invalid value: "1m0s": 1h0m0s"#
    );
}

#[test]
fn duration_too_large_denied() {
    // upstream: Test_Evaluate "if constraints contains duration but requested duration is too large, return Denied"
    let spec = json!({"constraints": {"minDuration": "1h", "maxDuration": "24h"}});
    let cr = Cr::of(&CsrSpec::default()).set("/spec/duration", json!("48h"));
    assert_eq!(
        eval_one(spec, &cr).unwrap(),
        r#"spec.constraints.maxDuration: Invalid value: "48h0m0s": 24h0m0s"#
    );
}

#[test]
fn duration_bounds_inclusive() {
    let spec = json!({"constraints": {"minDuration": "1h", "maxDuration": "1h"}});
    let cr = Cr::of(&CsrSpec::default()).set("/spec/duration", json!("60m"));
    assert_eq!(eval_one(spec, &cr), Ok(String::new()));
}

#[test]
fn private_key_csr_fails_to_decode_error() {
    // upstream: Test_Evaluate "if constraints contains private key but CSR fails to decode, return error"
    let cr = Cr::new("");
    let r = eval_one(json!({"constraints": {"privateKey": {}}}), &cr);
    assert_eq!(
        r,
        Err(
            "error decoding certificate request PEM block: no PEM data was found in given input"
                .to_owned()
        )
    );
}

#[test]
fn private_key_wrong_type_too_small() {
    // upstream: Test_Evaluate "if constraints contains private key but CSR uses the wrong key type and is too small, return error"
    let cr = Cr::of(&CsrSpec::default().key(Key::Rsa(2048)));
    let spec = json!({"constraints": {"privateKey": {"algorithm": "ECDSA", "minSize": 4000}}});
    assert_eq!(
        eval_one(spec, &cr).unwrap(),
        agg(&[
            r#"spec.constraints.privateKey.algorithm: Invalid value: "RSA": ECDSA"#,
            r#"spec.constraints.privateKey.minSize: Invalid value: "2048": 4000"#
        ])
    );
}

#[test]
fn private_key_wrong_type_too_large() {
    // upstream: Test_Evaluate "if constraints contains private key but CSR uses the wrong key type and is too large, return error"
    let cr = Cr::of(&CsrSpec::default().key(Key::Ec(P256)));
    let spec = json!({"constraints": {"privateKey": {"algorithm": "RSA", "maxSize": 200}}});
    assert_eq!(
        eval_one(spec, &cr).unwrap(),
        agg(&[
            r#"spec.constraints.privateKey.algorithm: Invalid value: "ECDSA": RSA"#,
            r#"spec.constraints.privateKey.maxSize: Invalid value: "256": 200"#
        ])
    );
}

#[test]
fn ecdsa_curve_sizes_and_ed25519_minus_one() {
    for (curve, bits) in [(P384, "384"), (P521, "521"), (P224, "224"), (P256, "256")] {
        let cr = Cr::of(&CsrSpec::default().key(Key::Ec(curve)));
        let spec = json!({"constraints": {"privateKey": {"maxSize": 1}}});
        assert_eq!(
            eval_one(spec, &cr).unwrap(),
            format!(r#"spec.constraints.privateKey.maxSize: Invalid value: "{bits}": 1"#)
        );
    }
    let cr = Cr::of(&CsrSpec::default().key(Key::Ed25519));
    let spec = json!({"constraints": {"privateKey": {"minSize": 0}}});
    assert_eq!(
        eval_one(spec, &cr).unwrap(),
        r#"spec.constraints.privateKey.minSize: Invalid value: "-1": 0"#
    );
}

#[test]
fn unknown_key_type_is_evaluation_error() {
    let raw = seq(&[seq(&[oid("1.2.3.4")]), tlv(0x03, &[0, 1, 2])]);
    let cr = Cr::of(&CsrSpec::default().key(Key::Raw(raw)));
    assert_eq!(
        eval_one(
            json!({"constraints": {"privateKey": {"algorithm": "RSA"}}}),
            &cr
        ),
        Err("unrecognised public key type <nil>".to_owned())
    );
}

#[test]
fn allowed_and_constraints_messages_joined() {
    // manager/review.go: evaluator messages for one policy joined with ", "
    let cr = Cr::of(&CsrSpec::default().cn("x"));
    let spec = json!({"constraints": {"maxDuration": "1h"}});
    assert_eq!(
        eval_one(spec, &cr).unwrap(),
        r#"spec.allowed.commonName: Invalid value: "x": no allowed value, spec.constraints.maxDuration: Invalid value: "nil": 1h0m0s"#
    );
}

// ---- validation_test.go Test_Validate (webhook) ----

#[test]
fn validate_no_constraints_allowed() {
    // upstream: Test_Validate "if policy contains no constraints, expect a Allowed=true response"
    assert!(compile_errors(&open_policy("p", json!({}))).is_empty());
}

#[test]
fn validate_constraint_errors() {
    // upstream: Test_Validate "if policy contains validation errors, expect a Allowed=false response"
    // (the CRD enum would reject `bad-alg` with the same NotSupported error)
    let doc = open_policy(
        "p",
        json!({"constraints": {
            "privateKey": {"algorithm": "bad-alg", "minSize": 9999, "maxSize": -1},
            "minDuration": "-1m", "maxDuration": "-2m"
        }}),
    );
    assert_eq!(
        compile_errors(&doc),
        vec![
            r#"spec.constraints.privateKey.algorithm: Unsupported value: "bad-alg": supported values: "RSA", "ECDSA", "Ed25519""#,
            "spec.constraints.privateKey.maxSize: Invalid value: -1: must be between 0 and 8192 inclusive",
            "spec.constraints.privateKey.minSize: Invalid value: 9999: must be between 0 and 8192 inclusive",
            "spec.constraints.privateKey.maxSize: Invalid value: -1: maxSize must be the same value as minSize or larger",
            r#"spec.constraints.maxDuration: Invalid value: "-2m0s": maxDuration must be the same value as minDuration or larger"#,
            r#"spec.constraints.maxDuration: Invalid value: "-2m0s": maxDuration must be a value greater or equal to 0"#,
            r#"spec.constraints.minDuration: Invalid value: "-1m0s": minDuration must be a value greater or equal to 0"#,
        ]
    );
}

#[test]
fn validate_ed25519_with_sizes() {
    // upstream: Test_Validate "if policy is using Ed25519 constraints but defined min and max key sizes, expect a Allowed=false response"
    let doc = open_policy(
        "p",
        json!({"constraints": {"privateKey": {"algorithm": "Ed25519", "minSize": 100, "maxSize": 500}}}),
    );
    assert_eq!(
        compile_errors(&doc),
        vec![
            "spec.constraints.privateKey.maxSize: Invalid value: 500: maxSize cannot be defined with algorithm constraint Ed25519",
            "spec.constraints.privateKey.minSize: Invalid value: 100: minSize cannot be defined with algorithm constraint Ed25519",
        ]
    );
}

#[test]
fn validate_valid_constraints() {
    // upstream: Test_Validate "if policy contains no validation errors, expect a Allowed=true response"
    let doc = open_policy(
        "p",
        json!({"constraints": {"privateKey": {"algorithm": "RSA", "minSize": 100, "maxSize": 500}, "minDuration": "0s", "maxDuration": "2m"}}),
    );
    assert!(compile_errors(&doc).is_empty());
}

#[test]
fn validate_bad_duration_syntax() {
    let doc = open_policy("p", json!({"constraints": {"maxDuration": "1 day"}}));
    assert_eq!(
        compile_errors(&doc),
        vec![
            r#"spec.constraints.maxDuration: Invalid value: "1 day": time: unknown unit " day" in duration "1 day""#
        ]
    );
}

#[test]
fn ecdsa_point_must_be_on_the_curve() {
    // Go's x509 rejects a point that is not on the named curve (elliptic.Unmarshal)
    let mut g = hex(generator(P256));
    let last = g.len() - 1;
    g[last] ^= 1;
    let cr = Cr::of(&CsrSpec::default().key(Key::EcPoint(P256, g)));
    assert_eq!(
        eval_one(json!({}), &cr),
        Err("x509: failed to unmarshal elliptic curve point".to_owned())
    );
    // a coordinate >= p
    let mut big = vec![4u8];
    big.extend([0xff; 64]);
    let cr = Cr::of(&CsrSpec::default().key(Key::EcPoint(P256, big)));
    assert_eq!(
        eval_one(json!({}), &cr),
        Err("x509: failed to unmarshal elliptic curve point".to_owned())
    );
    // compressed points are not accepted
    let mut compressed = vec![2u8];
    compressed.extend(&hex(generator(P256))[1..33]);
    let cr = Cr::of(&CsrSpec::default().key(Key::EcPoint(P256, compressed)));
    assert_eq!(
        eval_one(json!({}), &cr),
        Err("x509: failed to unmarshal elliptic curve point".to_owned())
    );
    // an unknown curve
    let cr = Cr::of(&CsrSpec::default().key(Key::EcPoint("1.3.132.0.10", vec![4, 1, 2])));
    assert_eq!(
        eval_one(json!({}), &cr),
        Err("x509: unsupported elliptic curve".to_owned())
    );
}
