//! upstream: cert-manager/approver-policy v0.27 pkg/internal/approver/allowed/evaluator_test.go
//! Test_Evaluate, evaluator_rawbypass_test.go, evaluator_stringtypes_test.go — through the
//! public API (one policy selecting everything, requester allowed to use it).
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

fn full_csr() -> CsrSpec {
    CsrSpec::default()
        .rdn(C, &["country-1", "country-2"])
        .rdn(O, &["company-1", "company-2"])
        .rdn(OU, &["org-1", "org-2"])
        .rdn(L, &["loc-1", "loc-2"])
        .rdn(ST, &["prov-1", "prov-2"])
        .rdn(STREET, &["street-1", "street-2"])
        .rdn(POSTAL, &["post-1", "post-2"])
        .rdn(SERIAL, &["serial-1"])
        .cn("hello-world")
        .dns(&["example.com", "foo.bar"])
        .ips(&["1.1.1.1", "2.3.4.5"])
        .uris(&["spiffe://cluster.local/ns/foo/sa/bar", "foo.bar.com"])
        .emails(&["foo@example.com", "bar@example.com"])
}

fn full_cr() -> Cr {
    Cr::of(&full_csr())
        .set("/spec/isCA", json!(true))
        .set("/spec/usages", json!(["crl sign", "client auth"]))
}

#[test]
fn no_allowed_no_attributes_not_denied() {
    // upstream: Test_Evaluate "if no allowed defined, no attributes set in request, return NotDenied"
    assert_eq!(
        eval_one(json!({}), &Cr::of(&CsrSpec::default())),
        Ok(String::new())
    );
}

#[test]
fn no_allowed_all_attributes_denied() {
    // upstream: Test_Evaluate "if no allowed defined, all attributes set in request, return Denied"
    let want = agg(&[
        r#"spec.allowed.commonName: Invalid value: "hello-world": no allowed value"#,
        r#"spec.allowed.dnsNames: Invalid value: ["example.com","foo.bar"]: no allowed values"#,
        r#"spec.allowed.ipAddresses: Invalid value: ["1.1.1.1","2.3.4.5"]: no allowed values"#,
        r#"spec.allowed.uris: Invalid value: ["spiffe://cluster.local/ns/foo/sa/bar","foo.bar.com"]: no allowed values"#,
        r#"spec.allowed.emailAddresses: Invalid value: ["foo@example.com","bar@example.com"]: no allowed values"#,
        r#"spec.allowed.isCA: Invalid value: true: nil"#,
        r#"spec.allowed.usages: Invalid value: ["crl sign","client auth"]: nil"#,
        r#"spec.allowed.subject.organizations: Invalid value: ["company-1","company-2"]: no allowed values"#,
        r#"spec.allowed.subject.countries: Invalid value: ["country-1","country-2"]: no allowed values"#,
        r#"spec.allowed.subject.organizationalUnits: Invalid value: ["org-1","org-2"]: no allowed values"#,
        r#"spec.allowed.subject.localities: Invalid value: ["loc-1","loc-2"]: no allowed values"#,
        r#"spec.allowed.subject.provinces: Invalid value: ["prov-1","prov-2"]: no allowed values"#,
        r#"spec.allowed.subject.streetAddresses: Invalid value: ["street-1","street-2"]: no allowed values"#,
        r#"spec.allowed.subject.postalCodes: Invalid value: ["post-1","post-2"]: no allowed values"#,
        r#"spec.allowed.subject.serialNumber: Invalid value: "serial-1": no allowed value"#,
    ]);
    assert_eq!(eval_one(json!({}), &full_cr()), Ok(want));
}

#[test]
fn all_allowed_different_denied() {
    // upstream: Test_Evaluate "if all allowed defined, all attributes set in request but are different, return Denied"
    let spec = json!({"allowed": {
        "commonName": {"value": "hello-world2"},
        "dnsNames": {"values": ["example.com2", "foo.bar2"]},
        "ipAddresses": {"values": ["1.1.1.12", "2.3.4.52"]},
        "uris": {"values": ["spiffe://cluster.local/ns/foo/sa/bar2", "foo.bar.com2"]},
        "emailAddresses": {"values": ["foo@example.com2", "bar@example.com2"]},
        "isCA": false,
        "usages": ["crl sign", "server auth"],
        "subject": {
            "organizations": {"values": ["company-3", "company-4"]},
            "countries": {"values": ["country-3", "country-4"]},
            "organizationalUnits": {"values": ["org-3", "org-4"]},
            "localities": {"values": ["loc-3", "loc-4"]},
            "provinces": {"values": ["prov-3", "prov-4"]},
            "streetAddresses": {"values": ["street-3", "street-4"]},
            "postalCodes": {"values": ["post-3", "post-4"]},
            "serialNumber": {"value": "serial-2"}
        }
    }});
    let want = agg(&[
        r#"spec.allowed.commonName.value: Invalid value: "hello-world": hello-world2"#,
        r#"spec.allowed.dnsNames.values: Invalid value: ["example.com","foo.bar"]: example.com2, foo.bar2"#,
        r#"spec.allowed.ipAddresses.values: Invalid value: ["1.1.1.1","2.3.4.5"]: 1.1.1.12, 2.3.4.52"#,
        r#"spec.allowed.uris.values: Invalid value: ["spiffe://cluster.local/ns/foo/sa/bar","foo.bar.com"]: spiffe://cluster.local/ns/foo/sa/bar2, foo.bar.com2"#,
        r#"spec.allowed.emailAddresses.values: Invalid value: ["foo@example.com","bar@example.com"]: foo@example.com2, bar@example.com2"#,
        r#"spec.allowed.isCA: Invalid value: true: false"#,
        r#"spec.allowed.usages: Invalid value: ["crl sign","client auth"]: crl sign, server auth"#,
        r#"spec.allowed.subject.organizations.values: Invalid value: ["company-1","company-2"]: company-3, company-4"#,
        r#"spec.allowed.subject.countries.values: Invalid value: ["country-1","country-2"]: country-3, country-4"#,
        r#"spec.allowed.subject.organizationalUnits.values: Invalid value: ["org-1","org-2"]: org-3, org-4"#,
        r#"spec.allowed.subject.localities.values: Invalid value: ["loc-1","loc-2"]: loc-3, loc-4"#,
        r#"spec.allowed.subject.provinces.values: Invalid value: ["prov-1","prov-2"]: prov-3, prov-4"#,
        r#"spec.allowed.subject.streetAddresses.values: Invalid value: ["street-1","street-2"]: street-3, street-4"#,
        r#"spec.allowed.subject.postalCodes.values: Invalid value: ["post-1","post-2"]: post-3, post-4"#,
        r#"spec.allowed.subject.serialNumber.value: Invalid value: "serial-1": serial-2"#,
    ]);
    assert_eq!(eval_one(spec, &full_cr()), Ok(want));
}

#[test]
fn all_allowed_exact_not_denied() {
    // upstream: Test_Evaluate "if all allowed defined, all attributes set in request and match exactly, return Not-Denied"
    let csr = full_csr().dns(&["*.example.com"]);
    let cr = Cr::of(&csr)
        .set("/spec/isCA", json!(true))
        .set("/spec/usages", json!(["crl sign", "client auth"]));
    let spec = json!({"allowed": {
        "commonName": {"value": "hello-world"},
        "dnsNames": {"values": ["example.com", "foo.bar", "*.example.com"]},
        "ipAddresses": {"values": ["1.1.1.1", "2.3.4.5"]},
        "uris": {"values": ["spiffe://cluster.local/ns/foo/sa/bar", "foo.bar.com"]},
        "emailAddresses": {"values": ["foo@example.com", "bar@example.com"]},
        "isCA": true,
        "usages": ["crl sign", "client auth"],
        "subject": {
            "organizations": {"values": ["company-1", "company-2"]},
            "countries": {"values": ["country-1", "country-2"]},
            "organizationalUnits": {"values": ["org-1", "org-2"]},
            "localities": {"values": ["loc-1", "loc-2"]},
            "provinces": {"values": ["prov-1", "prov-2"]},
            "streetAddresses": {"values": ["street-1", "street-2"]},
            "postalCodes": {"values": ["post-1", "post-2"]},
            "serialNumber": {"value": "serial-1"}
        }
    }});
    assert_eq!(eval_one(spec, &cr), Ok(String::new()));
}

#[test]
fn all_allowed_wildcard_not_denied() {
    // upstream: Test_Evaluate "if all allowed defined, all attributes set in request and match with wildcard, return Not-Denied"
    let spec = json!({"allowed": {
        "commonName": {"value": "hello-*"},
        "dnsNames": {"values": ["example.*", "*.bar"]},
        "ipAddresses": {"values": ["1.1*", "*2.3.4.5"]},
        "uris": {"values": ["spiffe://cluster.local/*/foo/sa/bar", "*.bar.com"]},
        "emailAddresses": {"values": ["foo@*", "*r@example.com"]},
        "isCA": true,
        "usages": ["crl sign", "client auth"],
        "subject": {
            "organizations": {"values": ["company*"]},
            "countries": {"values": ["country*"]},
            "organizationalUnits": {"values": ["*-1", "*-2"]},
            "localities": {"values": ["loc-*", "*-2"]},
            "provinces": {"values": ["prov*"]},
            "streetAddresses": {"values": ["street-1", "street-*"]},
            "postalCodes": {"values": ["post-1", "post-2"]},
            "serialNumber": {"value": "serial-*"}
        }
    }});
    assert_eq!(eval_one(spec, &full_cr()), Ok(String::new()));
}

fn required_star_spec() -> serde_json::Value {
    json!({"allowed": {
        "commonName": {"required": true, "value": "*"},
        "dnsNames": {"required": true, "values": ["*"]},
        "ipAddresses": {"required": true, "values": ["*"]},
        "uris": {"required": true, "values": ["*"]},
        "emailAddresses": {"required": true, "values": ["*"]},
        "subject": {
            "organizations": {"required": true, "values": ["*"]},
            "countries": {"required": true, "values": ["*"]},
            "organizationalUnits": {"required": true, "values": ["*"]},
            "localities": {"required": true, "values": ["*"]},
            "provinces": {"required": true, "values": ["*"]},
            "streetAddresses": {"required": true, "values": ["*"]},
            "postalCodes": {"required": true, "values": ["*"]},
            "serialNumber": {"required": true, "value": "*"}
        }
    }})
}

#[test]
fn all_required_none_set_denied() {
    // upstream: Test_Evaluate "if all allowed defined as required, none of the attributes are set, return Denied"
    let want = agg(&[
        "spec.allowed.commonName.required: Required value: true",
        "spec.allowed.dnsNames.required: Required value: true",
        "spec.allowed.ipAddresses.required: Required value: true",
        "spec.allowed.uris.required: Required value: true",
        "spec.allowed.emailAddresses.required: Required value: true",
        "spec.allowed.subject.organizations.required: Required value: true",
        "spec.allowed.subject.countries.required: Required value: true",
        "spec.allowed.subject.organizationalUnits.required: Required value: true",
        "spec.allowed.subject.localities.required: Required value: true",
        "spec.allowed.subject.provinces.required: Required value: true",
        "spec.allowed.subject.streetAddresses.required: Required value: true",
        "spec.allowed.subject.postalCodes.required: Required value: true",
        "spec.allowed.subject.serialNumber.required: Required value: true",
    ]);
    assert_eq!(
        eval_one(required_star_spec(), &Cr::of(&CsrSpec::default())),
        Ok(want)
    );
}

#[test]
fn all_required_all_set_not_denied() {
    // upstream: Test_Evaluate "if all allowed defined as required, all of the attributes are set, return Not-Denied"
    assert_eq!(
        eval_one(required_star_spec(), &Cr::of(&full_csr())),
        Ok(String::new())
    );
}

fn validations_spec() -> serde_json::Value {
    json!({"allowed": {
        "commonName": {"validations": [{"rule": "self.contains('cn-1')"}]},
        "dnsNames": {"validations": [{"rule": "self.endsWith(cr.namespace + '.svc')", "message": "only local namespace DNS names are allowed"}]},
        "ipAddresses": {"validations": [{"rule": "self.startsWith('10.0.1.')"}]},
        "uris": {"validations": [{"rule": "self.startsWith('spiffe://cluster.local/ns/' + cr.namespace + '/sa/')", "message": "must be a namespced SPIFFE ID in local trust domain"}]},
        "emailAddresses": {"validations": [{"rule": "self == cr.namespace + '@example.com'"}]},
        "subject": {
            "organizations": {"validations": [{"rule": "self == 'company-1'"}]},
            "countries": {"validations": [{"rule": "self == 'country-1'"}]},
            "organizationalUnits": {"validations": [{"rule": "self == 'org-1'"}]},
            "localities": {"validations": [{"rule": "self == 'loc-1'"}]},
            "provinces": {"validations": [{"rule": "self == 'prov-1'"}]},
            "streetAddresses": {"validations": [{"rule": "self == 'street-1'"}]},
            "postalCodes": {"validations": [{"rule": "self == 'post-1'"}]},
            "serialNumber": {"validations": [{"rule": "self == 'serial-2'"}]}
        }
    }})
}

#[test]
fn all_validations_invalid_denied() {
    // upstream: Test_Evaluate "if all has validation, but all attributes are invalid, return Denied"
    let want = agg(&[
        r#"spec.allowed.commonName.validations[0]: Invalid value: "hello-world": failed rule: self.contains('cn-1')"#,
        r#"spec.allowed.dnsNames.validations[0]: Invalid value: "example.com": only local namespace DNS names are allowed"#,
        r#"spec.allowed.dnsNames.validations[0]: Invalid value: "foo.bar": only local namespace DNS names are allowed"#,
        r#"spec.allowed.ipAddresses.validations[0]: Invalid value: "1.1.1.1": failed rule: self.startsWith('10.0.1.')"#,
        r#"spec.allowed.ipAddresses.validations[0]: Invalid value: "2.3.4.5": failed rule: self.startsWith('10.0.1.')"#,
        r#"spec.allowed.uris.validations[0]: Invalid value: "foo.bar.com": must be a namespced SPIFFE ID in local trust domain"#,
        r#"spec.allowed.emailAddresses.validations[0]: Invalid value: "bar@example.com": failed rule: self == cr.namespace + '@example.com'"#,
        r#"spec.allowed.subject.organizations.validations[0]: Invalid value: "company-2": failed rule: self == 'company-1'"#,
        r#"spec.allowed.subject.countries.validations[0]: Invalid value: "country-2": failed rule: self == 'country-1'"#,
        r#"spec.allowed.subject.organizationalUnits.validations[0]: Invalid value: "org-2": failed rule: self == 'org-1'"#,
        r#"spec.allowed.subject.localities.validations[0]: Invalid value: "loc-2": failed rule: self == 'loc-1'"#,
        r#"spec.allowed.subject.provinces.validations[0]: Invalid value: "prov-2": failed rule: self == 'prov-1'"#,
        r#"spec.allowed.subject.streetAddresses.validations[0]: Invalid value: "street-2": failed rule: self == 'street-1'"#,
        r#"spec.allowed.subject.postalCodes.validations[0]: Invalid value: "post-2": failed rule: self == 'post-1'"#,
        r#"spec.allowed.subject.serialNumber.validations[0]: Invalid value: "serial-1": failed rule: self == 'serial-2'"#,
    ]);
    assert_eq!(
        eval_one(validations_spec(), &Cr::of(&full_csr()).namespace("foo")),
        Ok(want)
    );
}

#[test]
fn all_validations_valid_not_denied() {
    // upstream: Test_Evaluate "if all has validation, and all attributes are valid, return Not-Denied"
    let csr = CsrSpec::default()
        .rdn(C, &["country-1"])
        .rdn(O, &["company-1"])
        .rdn(OU, &["org-1"])
        .rdn(L, &["loc-1"])
        .rdn(ST, &["prov-1"])
        .rdn(STREET, &["street-1"])
        .rdn(POSTAL, &["post-1"])
        .rdn(SERIAL, &["serial-2"])
        .cn("cn-1.foo.svc")
        .dns(&["cn-1.foo.svc"])
        .ips(&["10.0.1.14"])
        .uris(&["spiffe://cluster.local/ns/foo/sa/bar"])
        .emails(&["foo@example.com"]);
    assert_eq!(
        eval_one(validations_spec(), &Cr::of(&csr).namespace("foo")),
        Ok(String::new())
    );
}

#[test]
fn values_and_validations_both_apply() {
    // upstream: Test_Evaluate "if has values AND validations, both should apply"
    let csr = CsrSpec::default()
        .cn("hello-world")
        .dns(&["foo.com"])
        .uris(&["spiffe://cluster.local/ns/foo/sa/bar"])
        .emails(&["foo@example.com", "bar@example.com"]);
    let spec = json!({"allowed": {
        "commonName": {"value": "hello-world2", "validations": [{"rule": "self.contains('hello')", "message": "should contain namespace"}]},
        "dnsNames": {"values": ["*.com"], "validations": [{"rule": "self.endsWith(cr.namespace + '.com')"}]},
        "uris": {"values": ["spiffe://*"], "validations": [{"rule": "self.startsWith('spiffe://foo.bar/ns/')"}]},
        "emailAddresses": {"values": ["foo@example.com"], "validations": [{"rule": "self == cr.namespace + '@example.com'"}]}
    }});
    let want = agg(&[
        r#"spec.allowed.commonName.value: Invalid value: "hello-world": hello-world2"#,
        r#"spec.allowed.uris.validations[0]: Invalid value: "spiffe://cluster.local/ns/foo/sa/bar": failed rule: self.startsWith('spiffe://foo.bar/ns/')"#,
        r#"spec.allowed.emailAddresses.values: Invalid value: ["foo@example.com","bar@example.com"]: foo@example.com"#,
        r#"spec.allowed.emailAddresses.validations[0]: Invalid value: "bar@example.com": failed rule: self == cr.namespace + '@example.com'"#,
    ]);
    assert_eq!(eval_one(spec, &Cr::of(&csr).namespace("foo")), Ok(want));
}

#[test]
fn empty_values_list_denies_any_value() {
    // approver-policy semantics: `values: []` allows nothing (but omitting the value is fine)
    let spec = json!({"allowed": {"dnsNames": {"values": []}}});
    assert_eq!(
        eval_one(
            spec.clone(),
            &Cr::of(&CsrSpec::default().dns(&["a.example.com"]))
        ),
        Ok(r#"spec.allowed.dnsNames.values: Invalid value: ["a.example.com"]"#.to_owned())
    );
    assert_eq!(
        eval_one(spec, &Cr::of(&CsrSpec::default())),
        Ok(String::new())
    );
}

// ---- evaluator_rawbypass_test.go ----

fn dns_policy(extra: serde_json::Value) -> serde_json::Value {
    let mut allowed = json!({"dnsNames": {"values": ["allowed.example.com"]}});
    for (k, v) in extra.as_object().unwrap() {
        allowed
            .as_object_mut()
            .unwrap()
            .insert(k.clone(), v.clone());
    }
    json!({ "allowed": allowed })
}

#[test]
fn san_other_name_denied_by_default() {
    // upstream: TestEvaluate_SANOtherNameDeniedByDefault
    let csr = CsrSpec::default()
        .dns(&["allowed.example.com"])
        .san(other_name(UPN, utf8("administrator@victim.corp")));
    let m = eval_one(dns_policy(json!({})), &Cr::of(&csr)).unwrap();
    assert_eq!(
        m,
        r#"spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3]: Invalid value: ["administrator@victim.corp"]: no allowed values"#
    );
}

#[test]
fn san_other_name_allowed_by_policy() {
    // upstream: TestEvaluate_SANOtherNameAllowedByPolicy
    let csr = CsrSpec::default()
        .dns(&["allowed.example.com"])
        .san(other_name(UPN, utf8("user@tenant.example.com")));
    let spec =
        dns_policy(json!({"otherNames": [{"oid": UPN, "values": ["*@tenant.example.com"]}]}));
    assert_eq!(eval_one(spec, &Cr::of(&csr)), Ok(String::new()));
}

#[test]
fn san_other_name_value_mismatch() {
    // upstream: TestEvaluate_SANOtherNameValueMismatch
    let csr = CsrSpec::default()
        .dns(&["allowed.example.com"])
        .san(other_name(UPN, utf8("administrator@victim.corp")));
    let spec =
        dns_policy(json!({"otherNames": [{"oid": UPN, "values": ["*@tenant.example.com"]}]}));
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3].values: Invalid value: ["administrator@victim.corp"]: *@tenant.example.com"#
    );
}

#[test]
fn san_other_name_required() {
    // upstream: TestEvaluate_SANOtherNameRequired
    let csr = CsrSpec::default().dns(&["allowed.example.com"]);
    let spec = dns_policy(
        json!({"otherNames": [{"oid": UPN, "values": ["*@tenant.example.com"], "required": true}]}),
    );
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        "spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3].required: Required value: true"
    );
}

#[test]
fn san_other_name_non_text_value_is_hex() {
    // approver-policy otherNameValueString: non-string payloads are the hex of their DER
    let csr = CsrSpec::default().san(other_name(UPN, tlv(0x04, &[1, 2])));
    let m = eval_one(json!({}), &Cr::of(&csr)).unwrap();
    assert_eq!(
        m,
        r#"spec.allowed.otherNames[1.3.6.1.4.1.311.20.2.3]: Invalid value: ["04020102"]: no allowed values"#
    );
}

#[test]
fn san_forbidden_types_always_denied() {
    // upstream: TestEvaluate_SANForbiddenTypesAlwaysDenied
    let dummy = utf8("dummy");
    let cases = [
        (
            "x400Address",
            tlv(0xa3, &dummy),
            Some(
                "spec.allowed.subjectAltName.x400Address: Invalid value: \"x400Address\": x400Address SAN entries are not permitted",
            ),
        ),
        ("directoryName", tlv(0xa4, &dummy), None),
        ("ediPartyName", tlv(0xa5, &dummy), None),
        (
            "registeredID",
            tlv(0x88, &oid("1.2.3.4.5")[2..]),
            Some(
                "spec.allowed.subjectAltName.registeredID: Invalid value: \"registeredID\": registeredID SAN entries are not permitted",
            ),
        ),
    ];
    for (name, gn, exact) in cases {
        let csr = CsrSpec::default().dns(&["allowed.example.com"]).san(gn);
        let m = eval_one(dns_policy(json!({})), &Cr::of(&csr)).unwrap();
        assert!(!m.is_empty(), "{name} must be denied");
        match exact {
            Some(e) => assert_eq!(m, e, "{name}"),
            // a [4]/[5] wrapper around a bare string does not decode as cert-manager reads it
            None => assert!(
                m.starts_with("subjectAltName (SAN) extension could not be decoded: "),
                "{name}: {m}"
            ),
        }
    }
}

#[test]
fn san_directory_name_well_formed_denied() {
    // directoryName whose content decodes (RDN SETs) reaches the "not permitted" rule
    let rdn = set(&[seq(&[oid(CN), utf8("x")])]);
    let csr = CsrSpec::default().san(tlv(0xa4, &rdn));
    assert_eq!(
        eval_one(json!({}), &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.subjectAltName.directoryName: Invalid value: "directoryName": directoryName SAN entries are not permitted"#
    );
}

#[test]
fn san_dns_only_unaffected() {
    // upstream: TestEvaluate_SANDNSOnlyUnaffected
    let csr = CsrSpec::default().dns(&["allowed.example.com", "api.allowed.example.com"]);
    let spec =
        json!({"allowed": {"dnsNames": {"values": ["*.example.com", "allowed.example.com"]}}});
    assert_eq!(eval_one(spec, &Cr::of(&csr)), Ok(String::new()));
}

#[test]
fn crypto_x509_drops_non_standard_san_tags() {
    // upstream: TestCryptoX509_DropsNonStandardSANTags — Go's parsed slices only carry tags 1, 2, 6, 7
    let dummy = utf8("dummy");
    let csr = CsrSpec::default()
        .dns(&["canary.example.com"])
        .san(other_name(UPN, utf8("user@example.com")))
        .san(tlv(0xa3, &dummy))
        .san(tlv(0xa4, &dummy))
        .san(tlv(0xa5, &dummy))
        .san(tlv(0x88, &oid("1.2.3.4.5")[2..]));
    let parsed = palisade_certificates::internals::decode_request(&csr.request()).unwrap();
    assert_eq!(parsed, vec!["dns:canary.example.com".to_owned()]);
}

#[test]
fn subject_dual_cn_denied() {
    // upstream: TestEvaluate_SubjectDualCNDenied
    let csr = CsrSpec::default()
        .cn("kubernetes-admin")
        .cn("app.tenant.example.com");
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.commonName[0].value: Invalid value: "kubernetes-admin": *.tenant.example.com"#
    );
}

#[test]
fn subject_dual_cn_both_allowed() {
    // upstream: TestEvaluate_SubjectDualCNBothAllowed
    let csr = CsrSpec::default()
        .cn("a.tenant.example.com")
        .cn("b.tenant.example.com");
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}}});
    assert_eq!(eval_one(spec, &Cr::of(&csr)), Ok(String::new()));
}

#[test]
fn subject_dual_serial_number_denied() {
    // upstream: TestEvaluate_SubjectDualSerialNumberDenied
    let csr = CsrSpec::default()
        .cn("app.tenant.example.com")
        .rdn(SERIAL, &["legit-001", "smuggled-002"]);
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}, "subject": {"serialNumber": {"value": "legit-*"}}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.subject.serialNumber[1].value: Invalid value: "smuggled-002": legit-*"#
    );
}

#[test]
fn subject_unknown_oid_denied_by_default() {
    // upstream: TestEvaluate_SubjectUnknownOIDDeniedByDefault
    let csr = CsrSpec::default()
        .cn("app.tenant.example.com")
        .rdn(EMAIL_ADDRESS, &["root@victim.corp"]);
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.subject.otherAttributes[1.2.840.113549.1.9.1]: Invalid value: ["root@victim.corp"]: no allowed values"#
    );
}

#[test]
fn subject_unknown_oid_allowed_by_policy() {
    // upstream: TestEvaluate_SubjectUnknownOIDAllowedByPolicy
    let csr = CsrSpec::default()
        .cn("app.tenant.example.com")
        .rdn(EMAIL_ADDRESS, &["ops@tenant.example.com"]);
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"},
        "subject": {"otherAttributes": [{"oid": EMAIL_ADDRESS, "values": ["*@tenant.example.com"]}]}}});
    assert_eq!(eval_one(spec, &Cr::of(&csr)), Ok(String::new()));
}

#[test]
fn subject_unknown_oid_value_mismatch() {
    // upstream: TestEvaluate_SubjectUnknownOIDValueMismatch
    let csr = CsrSpec::default()
        .cn("app.tenant.example.com")
        .rdn(EMAIL_ADDRESS, &["root@victim.corp"]);
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"},
        "subject": {"otherAttributes": [{"oid": EMAIL_ADDRESS, "values": ["*@tenant.example.com"]}]}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.subject.otherAttributes[1.2.840.113549.1.9.1].values: Invalid value: ["root@victim.corp"]: *@tenant.example.com"#
    );
}

#[test]
fn subject_other_attributes_required() {
    // upstream: TestEvaluate_SubjectOtherAttributesRequired
    let csr = CsrSpec::default().cn("app.tenant.example.com");
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"},
        "subject": {"otherAttributes": [{"oid": EMAIL_ADDRESS, "values": ["*"], "required": true}]}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        "spec.allowed.subject.otherAttributes[1.2.840.113549.1.9.1].required: Required value: true"
    );
}

#[test]
fn subject_non_string_named_oid_denied() {
    // upstream: TestEvaluate_SubjectNonStringNamedOIDDenied (an INTEGER-valued O=)
    let csr = CsrSpec::default()
        .cn("app.tenant.example.com")
        .raw_attr(O, tlv(0x02, &[42]));
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}, "subject": {"organizations": {"values": ["*"]}}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.subject.organizations: Invalid value: "<non-string value>": subject attribute uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"#
    );
}

#[test]
fn subject_multi_string_organization_still_works() {
    // upstream: TestEvaluate_SubjectMultiStringOrganizationStillWorks
    let csr = CsrSpec::default()
        .cn("app.tenant.example.com")
        .rdn(O, &["org-a", "org-b"]);
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}, "subject": {"organizations": {"values": ["org-*"]}}}});
    assert_eq!(eval_one(spec, &Cr::of(&csr)), Ok(String::new()));
}

// ---- evaluator_stringtypes_test.go ----

fn bmp(s: &str) -> Vec<u8> {
    tlv(
        0x1e,
        &s.encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect::<Vec<u8>>(),
    )
}
fn teletex(s: &str) -> Vec<u8> {
    tlv(0x14, s.as_bytes())
}
fn universal(s: &str) -> Vec<u8> {
    tlv(
        0x1c,
        &s.chars()
            .flat_map(|c| (c as u32).to_be_bytes())
            .collect::<Vec<u8>>(),
    )
}
fn general(s: &str) -> Vec<u8> {
    tlv(0x1b, s.as_bytes())
}
fn cn_wildcard() -> serde_json::Value {
    json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}}})
}
const UNSUPPORTED: &str = "unsupported ASN.1 type or string encoding";

#[test]
fn cn_supported_string_encodings() {
    // upstream: TestEvaluate_CN_SupportedStringEncodings (+ PrintableString, IA5String)
    for (name, v) in [
        ("UTF8String", utf8("app.tenant.example.com")),
        ("BMPString", bmp("app.tenant.example.com")),
        ("TeletexString", teletex("app.tenant.example.com")),
        ("PrintableString", printable("app.tenant.example.com")),
        ("IA5String", tlv(0x16, b"app.tenant.example.com")),
    ] {
        let csr = CsrSpec::default().raw_attr(CN, v);
        assert_eq!(
            eval_one(cn_wildcard(), &Cr::of(&csr)),
            Ok(String::new()),
            "{name}"
        );
    }
}

#[test]
fn cn_supported_encoding_still_policed() {
    // upstream: TestEvaluate_CN_SupportedEncodingStillPoliced
    let csr = CsrSpec::default().raw_attr(CN, bmp("kubernetes-admin"));
    assert_eq!(
        eval_one(cn_wildcard(), &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.commonName.value: Invalid value: "kubernetes-admin": *.tenant.example.com"#
    );
}

#[test]
fn cn_unsupported_encodings_denied() {
    // upstream: TestEvaluate_CN_UnsupportedEncodingsDenied
    for (name, v) in [
        ("UniversalString", universal("app.tenant.example.com")),
        ("GeneralString", general("app.tenant.example.com")),
    ] {
        let csr = CsrSpec::default().raw_attr(CN, v);
        assert_eq!(
            eval_one(cn_wildcard(), &Cr::of(&csr)).unwrap(),
            r#"spec.allowed.commonName: Invalid value: "<non-string value>": subject attribute 2.5.4.3 uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"#,
            "{name}"
        );
    }
}

#[test]
fn serial_number_unsupported_encoding_denied() {
    let csr = CsrSpec::default().raw_attr(SERIAL, general("x"));
    let spec = json!({"allowed": {"subject": {"serialNumber": {"value": "*"}}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.subject.serialNumber: Invalid value: "<non-string value>": subject attribute 2.5.4.5 uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"#
    );
}

#[test]
fn named_slice_unsupported_encoding_denied() {
    // upstream: TestEvaluate_NamedSlice_UnsupportedEncodingDenied
    let csr = CsrSpec::default()
        .cn("app.tenant.example.com")
        .raw_attr(O, universal("tenant-a"));
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"}, "subject": {"organizations": {"values": ["tenant-a"]}}}});
    let m = eval_one(spec, &Cr::of(&csr)).unwrap();
    assert_eq!(
        m,
        r#"spec.allowed.subject.organizations: Invalid value: "<non-string value>": subject attribute uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"#
    );
}

#[test]
fn named_oid_truly_non_string_still_denied() {
    // upstream: TestEvaluate_NamedOID_TrulyNonStringStillDenied
    for (name, v) in [
        ("OctetString", tlv(0x04, b"evil-corp")),
        ("Integer", tlv(0x02, &[0x2a])),
    ] {
        let csr = CsrSpec::default()
            .cn("app.tenant.example.com")
            .raw_attr(O, v);
        let m = eval_one(cn_wildcard(), &Cr::of(&csr)).unwrap();
        assert!(m.contains(UNSUPPORTED), "{name}: {m}");
        assert!(
            m.starts_with("spec.allowed.subject.organizations: "),
            "{name}: {m}"
        );
    }
}

#[test]
fn other_attribute_unsupported_encoding_denied() {
    // upstream: TestEvaluate_OtherAttribute_UnsupportedEncodingDenied
    let csr = CsrSpec::default()
        .cn("app.tenant.example.com")
        .raw_attr(EMAIL_ADDRESS, universal("ops@tenant.example.com"));
    let spec = json!({"allowed": {"commonName": {"value": "*.tenant.example.com"},
        "subject": {"otherAttributes": [{"oid": EMAIL_ADDRESS, "values": ["*@tenant.example.com"]}]}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.subject.otherAttributes[1.2.840.113549.1.9.1]: Invalid value: "<non-string value>": subject attribute uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"#
    );
}

#[test]
fn duplicates_collapsed_in_aggregate() {
    // ToAggregate drops repeated messages: two identical DNS names failing one rule print once
    let csr = CsrSpec::default().dns(&["a.example.com", "a.example.com"]);
    let spec =
        json!({"allowed": {"dnsNames": {"validations": [{"rule": "self.endsWith('.svc')"}]}}});
    assert_eq!(
        eval_one(spec, &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.dnsNames.validations[0]: Invalid value: "a.example.com": failed rule: self.endsWith('.svc')"#
    );
}

#[test]
fn ipv4_mapped_ipv6_reads_as_ipv4_and_uri_reserialised() {
    let mut mapped = vec![0u8; 10];
    mapped.extend([0xff, 0xff, 10, 0, 0, 1]);
    let csr = CsrSpec::default()
        .san(ip(&mapped))
        .san(ip(&[
            0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
        ]))
        .uris(&["SPIFFE://Example.org/a b"]);
    let m = eval_one(json!({}), &Cr::of(&csr)).unwrap();
    assert_eq!(
        m,
        agg(&[
            r#"spec.allowed.ipAddresses: Invalid value: ["10.0.0.1","2001:db8::1"]: no allowed values"#,
            r#"spec.allowed.uris: Invalid value: ["spiffe://Example.org/a%20b"]: no allowed values"#,
        ])
    );
}

#[test]
fn json_list_escapes_html_like_go() {
    let csr = CsrSpec::default().rdn(O, &["a<b>&\"c\""]);
    assert_eq!(
        eval_one(json!({}), &Cr::of(&csr)).unwrap(),
        r#"spec.allowed.subject.organizations: Invalid value: ["a\u003cb\u003e\u0026\"c\""]: no allowed values"#
    );
}
