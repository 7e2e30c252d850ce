//! upstream: cert-manager/approver-policy v0.27 pkg/internal/webhook/validator_test.go Test_validate
//! and pkg/internal/approver/allowed/validation_test.go Test_Validate — bundle-time validation.
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
fn unregistered_plugins_and_missing_selector() {
    // upstream: Test_validate "if the CertificateRequestPolicy refers to a plugin that is not registered return an error"
    // Palisade registers no plugins, so every name is unsupported (no supported values listed).
    let doc = policy(
        "test-policy",
        json!({"plugins": {"foo": {}, "bar": {}}, "selector": {}}),
    );
    assert_eq!(
        compile_errors(&doc),
        vec![
            r#"spec.plugins: Unsupported value: "bar""#,
            r#"spec.plugins: Unsupported value: "foo""#,
            "spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything",
        ]
    );
}

#[test]
fn neither_issuer_ref_nor_namespace() {
    // upstream: Test_validate "if neither issuer ref nor namespace are defined, return error"
    let doc = policy("test-policy", json!({"selector": {}}));
    assert_eq!(
        compile_errors(&doc),
        vec![
            "spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything"
        ]
    );
}

#[test]
fn invalid_namespace_label_selector() {
    // upstream: Test_validate "if an invalid namespace label selector is defined, return error"
    let doc = policy(
        "test-policy",
        json!({"selector": {"namespace": {"matchLabels": {"$%234": "8dsdk"}}}}),
    );
    assert_eq!(
        compile_errors(&doc),
        vec![
            r#"spec.selector.namespace.matchLabels: Invalid value: {"$%234":"8dsdk"}: key: Invalid value: "$%234": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#
        ]
    );
}

#[test]
fn issuer_ref_selector_passes() {
    // upstream: Test_validate "if a  CertificateRequestPolicy with a defined issuer ref passes validation, allow it"
    assert!(
        compile_errors(&policy(
            "test-policy",
            json!({"selector": {"issuerRef": {}}})
        ))
        .is_empty()
    );
}

#[test]
fn namespace_selector_passes() {
    // upstream: Test_validate "if a  CertificateRequestPolicy with a defined namespace selector passes validation, allow it"
    assert!(
        compile_errors(&policy(
            "test-policy",
            json!({"selector": {"namespace": {}}})
        ))
        .is_empty()
    );
}

#[test]
fn selector_missing_is_required_by_the_crd() {
    assert_eq!(
        compile_errors(&policy("p", json!({}))),
        vec!["spec.selector: Required value"]
    );
}

#[test]
fn allowed_no_allowed_ok() {
    // upstream: allowed Test_Validate "if policy contains no allowed, expect a Allowed=true response"
    assert!(compile_errors(&open_policy("p", json!({}))).is_empty());
}

#[test]
fn allowed_required_without_values() {
    // upstream: allowed Test_Validate "if policy contains 'required' validation errors, expect an Allowed=false response"
    let doc = open_policy(
        "p",
        json!({"allowed": {
            "commonName": {"required": true},
            "dnsNames": {"required": true},
            "ipAddresses": {"required": true},
            "uris": {"required": true},
            "emailAddresses": {"required": true},
            "subject": {
                "organizations": {"required": true}, "countries": {"required": true},
                "organizationalUnits": {"required": true}, "localities": {"required": true},
                "provinces": {"required": true}, "streetAddresses": {"required": true},
                "postalCodes": {"required": true}, "serialNumber": {"required": true}
            }
        }}),
    );
    let v = "Required value: at least one of 'values' or 'validations' must be defined if field is 'required'";
    let s = "Required value: at least one of 'value' or 'validations' must be defined if field is 'required'";
    let want: Vec<String> = [
        "spec.allowed.dnsNames.values",
        "spec.allowed.ipAddresses.values",
        "spec.allowed.uris.values",
        "spec.allowed.emailAddresses.values",
        "spec.allowed.subject.organizations.values",
        "spec.allowed.subject.countries.values",
        "spec.allowed.subject.organizationalUnits.values",
        "spec.allowed.subject.localities.values",
        "spec.allowed.subject.provinces.values",
        "spec.allowed.subject.streetAddresses.values",
        "spec.allowed.subject.postalCodes.values",
    ]
    .iter()
    .map(|p| format!("{p}: {v}"))
    .chain(
        [
            "spec.allowed.commonName.value",
            "spec.allowed.subject.serialNumber.value",
        ]
        .iter()
        .map(|p| format!("{p}: {s}")),
    )
    .collect();
    assert_eq!(compile_errors(&doc), want);
}

#[test]
fn allowed_required_with_empty_values_ok() {
    // upstream: allowed Test_Validate "if policy contains all non-subject required and they have values" and
    // "... all subject required and they have values": `values: []` / `value: ""` count as defined
    let doc = open_policy(
        "p",
        json!({"allowed": {
            "commonName": {"required": true, "value": ""},
            "dnsNames": {"required": true, "values": []},
            "ipAddresses": {"required": true, "values": []},
            "uris": {"required": true, "values": []},
            "emailAddresses": {"required": true, "values": []},
            "subject": {
                "organizations": {"required": true, "values": []}, "countries": {"required": true, "values": []},
                "organizationalUnits": {"required": true, "values": []}, "localities": {"required": true, "values": []},
                "provinces": {"required": true, "values": []}, "streetAddresses": {"required": true, "values": []},
                "postalCodes": {"required": true, "values": []}, "serialNumber": {"required": true, "value": ""}
            }
        }}),
    );
    assert!(compile_errors(&doc).is_empty());
}

#[test]
fn allowed_invalid_cel_rejected() {
    // upstream: allowed Test_Validate "if policy contains invalid CEL validations, expect an Allowed=false response"
    // The paths and order are upstream's; the detail is palisade-cel's compile error (cel-go's text differs).
    let doc = open_policy(
        "p",
        json!({"allowed": {
            "commonName": {"validations": [{"rule": "cel"}]},
            "dnsNames": {"validations": [{"rule": "self > 2"}]},
            "ipAddresses": {"validations": [{"rule": "self && false"}]},
            "uris": {"validations": [{"rule": "self.exists(x, p)"}]},
            "emailAddresses": {"validations": [{"rule": "self"}]},
            "subject": {
                "organizations": {"validations": [{"rule": "self == '"}]},
                "countries": {"validations": [{"rule": "self.length < 24"}]},
                "organizationalUnits": {"validations": [{"rule": ""}]},
                "provinces": {"validations": [{"rule": "cel"}]},
                "streetAddresses": {"validations": [{"rule": "cel"}]},
                "postalCodes": {"validations": [{"rule": "cel"}]},
                "serialNumber": {"validations": [{"rule": "cel"}]}
            }
        }}),
    );
    let errs = compile_errors(&doc);
    let prefixes = [
        r#"spec.allowed.dnsNames.validations[0]: Invalid value: "self > 2": "#,
        r#"spec.allowed.ipAddresses.validations[0]: Invalid value: "self && false": "#,
        r#"spec.allowed.uris.validations[0]: Invalid value: "self.exists(x, p)": "#,
        r#"spec.allowed.emailAddresses.validations[0]: Invalid value: "self": "#,
        r#"spec.allowed.subject.organizations.validations[0]: Invalid value: "self == '": "#,
        r#"spec.allowed.subject.countries.validations[0]: Invalid value: "self.length < 24": "#,
        r#"spec.allowed.subject.organizationalUnits.validations[0]: Invalid value: "": "#,
        r#"spec.allowed.subject.provinces.validations[0]: Invalid value: "cel": "#,
        r#"spec.allowed.subject.streetAddresses.validations[0]: Invalid value: "cel": "#,
        r#"spec.allowed.subject.postalCodes.validations[0]: Invalid value: "cel": "#,
        r#"spec.allowed.commonName.validations[0]: Invalid value: "cel": "#,
        r#"spec.allowed.subject.serialNumber.validations[0]: Invalid value: "cel": "#,
    ];
    assert_eq!(errs.len(), prefixes.len(), "{errs:#?}");
    for (e, p) in errs.iter().zip(prefixes) {
        assert!(e.starts_with(p), "{e} should start with {p}");
    }
    assert!(
        errs[7].contains("undeclared reference to 'cel'"),
        "{}",
        errs[7]
    );
}

#[test]
fn allowed_invalid_cel_typed_cr() {
    // upstream: allowed Test_Validate "if policy contains invalid CEL validations" (localities entry) and
    // validation/validator_test.go Test_Validator_Compile "err-invalid-property"
    for rule in [
        "cr.name[1] > 2",
        "size(cr.foo) < 24",
        "cr.name",
        "[1, 'a'][0]",
    ] {
        let doc = open_policy(
            "p",
            json!({"allowed": {"subject": {"localities": {"validations": [{"rule": rule}]}}}}),
        );
        assert_eq!(compile_errors(&doc).len(), 1, "{rule}");
    }
}

#[test]
fn allowed_valid_cel_ok() {
    // upstream: allowed Test_Validate "if policy contains valid CEL validations, expect a Allowed=true response"
    let r = json!([{"rule": "self.size() > 2"}]);
    let doc = open_policy(
        "p",
        json!({"allowed": {
            "commonName": {"validations": r}, "dnsNames": {"validations": r}, "ipAddresses": {"validations": r},
            "uris": {"validations": r}, "emailAddresses": {"validations": r},
            "subject": {
                "organizations": {"validations": r}, "countries": {"validations": r},
                "organizationalUnits": {"validations": r}, "localities": {"validations": r},
                "provinces": {"validations": r}, "streetAddresses": {"validations": r},
                "postalCodes": {"validations": r}, "serialNumber": {"validations": r}
            }
        }}),
    );
    assert_eq!(compile_errors(&doc), Vec::<String>::new());
}

#[test]
fn other_names_invalid() {
    // upstream: allowed Test_Validate "if policy contains invalid allowed.otherNames entries, expect an Allowed=false response"
    let doc = open_policy(
        "p",
        json!({"allowed": {"otherNames": [
            {"oid": "1.3.6.1.4.1.311.20.2.3", "required": true},
            {"oid": "1.2.840.113549.1.9.1", "validations": [{"rule": "cel"}]}
        ]}}),
    );
    let errs = compile_errors(&doc);
    assert_eq!(errs.len(), 2);
    assert_eq!(
        errs[0],
        "spec.allowed.otherNames[0].values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required'"
    );
    assert!(
        errs[1].starts_with(r#"spec.allowed.otherNames[1].validations[0]: Invalid value: "cel": "#),
        "{}",
        errs[1]
    );
}

#[test]
fn other_names_valid() {
    // upstream: allowed Test_Validate "if policy contains valid allowed.otherNames entries, expect a Allowed=true response"
    let doc = open_policy(
        "p",
        json!({"allowed": {"otherNames": [{"oid": "1.3.6.1.4.1.311.20.2.3", "required": true, "values": ["*@example.com"], "validations": [{"rule": "self.size() > 2"}]}]}}),
    );
    assert!(compile_errors(&doc).is_empty());
}

#[test]
fn other_names_bad_oid() {
    // upstream: allowed Test_Validate "if allowed.otherNames has a malformed or non-canonical OID, expect an Allowed=false response"
    let doc = open_policy(
        "p",
        json!({"allowed": {"otherNames": [
            {"oid": "1.3.6.1.4.1.311.20.02.3", "values": ["*"]},
            {"oid": "not-an-oid", "values": ["*"]}
        ]}}),
    );
    assert_eq!(
        compile_errors(&doc),
        vec![
            r#"spec.allowed.otherNames[0].oid: Invalid value: "1.3.6.1.4.1.311.20.02.3": must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#,
            r#"spec.allowed.otherNames[1].oid: Invalid value: "not-an-oid": must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#,
        ]
    );
}

#[test]
fn other_attributes_invalid() {
    // upstream: allowed Test_Validate "if policy contains invalid allowed.subject.otherAttributes entries, expect an Allowed=false response"
    let doc = open_policy(
        "p",
        json!({"allowed": {"subject": {"otherAttributes": [
            {"oid": "1.2.840.113549.1.9.1", "required": true},
            {"oid": "0.9.2342.19200300.100.1.25", "validations": [{"rule": "cel"}]}
        ]}}}),
    );
    let errs = compile_errors(&doc);
    assert_eq!(errs.len(), 2);
    assert_eq!(
        errs[0],
        "spec.allowed.subject.otherAttributes[0].values: Required value: at least one of 'values' or 'validations' must be defined if field is 'required'"
    );
    assert!(errs[1].starts_with(
        r#"spec.allowed.subject.otherAttributes[1].validations[0]: Invalid value: "cel": "#
    ));
}

#[test]
fn other_attributes_valid() {
    // upstream: allowed Test_Validate "if policy contains valid allowed.subject.otherAttributes entries, expect a Allowed=true response"
    let doc = open_policy(
        "p",
        json!({"allowed": {"subject": {"otherAttributes": [{"oid": "1.2.840.113549.1.9.1", "required": true, "values": ["*@example.com"], "validations": [{"rule": "self.size() > 2"}]}]}}}),
    );
    assert!(compile_errors(&doc).is_empty());
}

#[test]
fn other_attributes_named_or_malformed_oid() {
    // upstream: allowed Test_Validate "if allowed.subject.otherAttributes has a named or malformed OID, expect an Allowed=false response"
    let doc = open_policy(
        "p",
        json!({"allowed": {"subject": {"otherAttributes": [
            {"oid": "2.5.4.3", "values": ["*"]},
            {"oid": "1.2.3.04", "values": ["*"]},
            {"oid": "not-an-oid", "values": ["*"]},
            {"oid": "1.2.3.-4", "values": ["*"]}
        ]}}}),
    );
    assert_eq!(
        compile_errors(&doc),
        vec![
            r#"spec.allowed.subject.otherAttributes[0].oid: Invalid value: "2.5.4.3": this OID is covered by a dedicated allowed.commonName / allowed.subject.* field; configure it there instead of otherAttributes"#,
            r#"spec.allowed.subject.otherAttributes[1].oid: Invalid value: "1.2.3.04": must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#,
            r#"spec.allowed.subject.otherAttributes[2].oid: Invalid value: "not-an-oid": must be a valid, canonical dotted ASN.1 object identifier (e.g. "1.3.6.1.4.1.311.20.2.3")"#,
            r#"spec.allowed.subject.otherAttributes[3].oid: Invalid value: "1.2.3.-4": OID arcs must be non-negative"#,
        ]
    );
}

#[test]
fn structural_errors_named_with_paths() {
    let doc = open_policy(
        "p",
        json!({"allowed": {"isCA": "yes", "dnsNames": {"values": "a"}, "usages": ["server auth", "bogus"]}}),
    );
    assert_eq!(
        compile_errors(&doc),
        vec![
            r#"spec.allowed.usages[1]: Unsupported value: "bogus": supported values: "signing", "digital signature", "content commitment", "key encipherment", "key agreement", "data encipherment", "cert sign", "crl sign", "encipher only", "decipher only", "any", "server auth", "client auth", "code signing", "email protection", "s/mime", "ipsec end system", "ipsec tunnel", "ipsec user", "timestamping", "ocsp signing", "microsoft sgc", "netscape sgc""#,
            r#"spec.allowed.dnsNames.values: Invalid value: "string": spec.allowed.dnsNames.values in body must be of type array: "string""#,
            r#"spec.allowed.isCA: Invalid value: "string": spec.allowed.isCA in body must be of type boolean: "string""#,
        ]
    );
}

#[test]
fn every_problem_of_every_document_listed() {
    let a = policy("a", json!({"selector": {}}));
    let b = open_policy("b", json!({"constraints": {"maxDuration": "-1h"}}));
    let c = open_policy("a", json!({}));
    let docs = [a, b, c];
    let refs: Vec<(usize, &serde_json::Value)> =
        docs.iter().enumerate().map(|(i, d)| (i + 3, d)).collect();
    let errs = palisade_certificates::Policies::compile(&refs, Default::default()).unwrap_err();
    let rendered: Vec<(usize, String)> = errs.iter().map(|(i, e)| (*i, e.to_string())).collect();
    assert_eq!(
        rendered,
        vec![
            (3, "spec.selector: Required value: one of issuerRef or namespace must be defined, hint: `{}` on either matches everything".to_owned()),
            (4, r#"spec.constraints.maxDuration: Invalid value: "-1h0m0s": maxDuration must be a value greater or equal to 0"#.to_owned()),
            (5, r#"metadata.name: Invalid value: "a": a CertificateRequestPolicy with this name is already in the bundle"#.to_owned()),
        ]
    );
    assert_eq!(errs[0].1.path, "spec.selector");
}

#[test]
fn label_selector_key_and_value_wording() {
    // apimachinery validation.IsQualifiedName / IsValidLabelValue through LabelSelectorAsSelector
    let err = |labels: serde_json::Value| {
        compile_errors(&policy(
            "p",
            json!({"selector": {"namespace": {"matchLabels": labels}}}),
        ))
    };
    assert_eq!(
        err(json!({"Example.com/x": "v"})),
        vec![
            r#"spec.selector.namespace.matchLabels: Invalid value: {"Example.com/x":"v"}: key: Invalid value: "Example.com/x": prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"#
        ]
    );
    assert_eq!(
        err(json!({"a/": "v"})),
        vec![
            r#"spec.selector.namespace.matchLabels: Invalid value: {"a/":"v"}: key: Invalid value: "a/": name part must be non-empty; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#
        ]
    );
    assert_eq!(
        err(json!({"env": "-prod"})),
        vec![
            r#"spec.selector.namespace.matchLabels: Invalid value: {"env":"-prod"}: values[0][env]: Invalid value: "-prod": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"#
        ]
    );
    // apimachinery v0.36 (approver-policy v0.27's): content.IsLabelKey / IsLabelValue count bytes, and a key with
    // two slashes is "a valid label key" (older versions said "characters" and "a qualified name")
    let long = "v".repeat(64);
    assert_eq!(
        err(json!({ "env": long })),
        vec![format!(
            r#"spec.selector.namespace.matchLabels: Invalid value: {{"env":"{long}"}}: values[0][env]: Invalid value: "{long}": must be no more than 63 bytes"#
        )]
    );
    assert_eq!(
        err(json!({"a/b/c": "v"})),
        vec![
            r#"spec.selector.namespace.matchLabels: Invalid value: {"a/b/c":"v"}: key: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"#
        ]
    );
    assert!(err(json!({"example.com/env": "", "a.b/c_d": "x.y-z"})).is_empty());
}
