//! A CertificateRequestPolicy read from JSON, checked as the API server (CRD schema) and
//! approver-policy's webhook (`pkg/internal/webhook`, `allowed/validation.go`,
//! `constraints/validation.go`) would check it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::cel::Validator;
use crate::gofmt::GoDuration;
use palisade_cel_kubernetes::field::{BadValue, Error as FieldErr, Path};
use palisade_cel_kubernetes::validation::{is_qualified_name, is_valid_label_value};

#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub(crate) rule: String,
    pub(crate) message: Option<String>,
    /// `None` when the rule did not compile (the policy is then rejected).
    pub(crate) program: Option<Validator>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct AllowedString {
    pub(crate) value: Option<String>,
    pub(crate) required: Option<bool>,
    pub(crate) validations: Vec<Rule>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct AllowedSlice {
    pub(crate) values: Option<Vec<String>>,
    pub(crate) required: Option<bool>,
    pub(crate) validations: Vec<Rule>,
}

#[derive(Debug, Clone)]
pub(crate) struct OidEntry {
    pub(crate) oid: String,
    pub(crate) slice: AllowedSlice,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Subject {
    pub(crate) organizations: Option<AllowedSlice>,
    pub(crate) countries: Option<AllowedSlice>,
    pub(crate) organizational_units: Option<AllowedSlice>,
    pub(crate) localities: Option<AllowedSlice>,
    pub(crate) provinces: Option<AllowedSlice>,
    pub(crate) street_addresses: Option<AllowedSlice>,
    pub(crate) postal_codes: Option<AllowedSlice>,
    pub(crate) serial_number: Option<AllowedString>,
    pub(crate) other_attributes: Vec<OidEntry>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Allowed {
    pub(crate) common_name: Option<AllowedString>,
    pub(crate) dns_names: Option<AllowedSlice>,
    pub(crate) ip_addresses: Option<AllowedSlice>,
    pub(crate) uris: Option<AllowedSlice>,
    pub(crate) email_addresses: Option<AllowedSlice>,
    pub(crate) is_ca: Option<bool>,
    pub(crate) usages: Option<Vec<String>>,
    pub(crate) subject: Option<Subject>,
    pub(crate) other_names: Vec<OidEntry>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct PrivateKey {
    pub(crate) algorithm: Option<String>,
    pub(crate) min_size: Option<i64>,
    pub(crate) max_size: Option<i64>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Constraints {
    pub(crate) min_duration: Option<GoDuration>,
    pub(crate) max_duration: Option<GoDuration>,
    pub(crate) private_key: Option<PrivateKey>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct IssuerRefSelector {
    pub(crate) name: Option<String>,
    pub(crate) kind: Option<String>,
    pub(crate) group: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct NamespaceSelector {
    pub(crate) match_names: Vec<String>,
    /// `None` when omitted (or `null`); `Some(empty)` for `{}`.
    pub(crate) match_labels: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Clone)]
pub(crate) struct Policy {
    pub(crate) name: String,
    pub(crate) allowed: Option<Allowed>,
    pub(crate) constraints: Option<Constraints>,
    pub(crate) issuer_ref: Option<IssuerRefSelector>,
    pub(crate) namespace: Option<NamespaceSelector>,
    /// `spec.plugins` names, sorted
    pub(crate) plugins: Vec<String>,
    /// Bytes of its CEL rules, all together.
    pub(crate) cel_bytes: usize,
}

const USAGES: &[&str] = &[
    "signing",
    "digital signature",
    "content commitment",
    "key encipherment",
    "key agreement",
    "data encipherment",
    "cert sign",
    "crl sign",
    "encipher only",
    "decipher only",
    "any",
    "server auth",
    "client auth",
    "code signing",
    "email protection",
    "s/mime",
    "ipsec end system",
    "ipsec tunnel",
    "ipsec user",
    "timestamping",
    "ocsp signing",
    "microsoft sgc",
    "netscape sgc",
];

const ALGORITHMS: &[&str] = &["RSA", "ECDSA", "Ed25519"];

/// Named subject attribute OIDs (`namedSubjectOIDs`).
pub(crate) const NAMED_SUBJECT_OIDS: &[&str] = &[
    "2.5.4.3", "2.5.4.5", "2.5.4.6", "2.5.4.7", "2.5.4.8", "2.5.4.9", "2.5.4.10", "2.5.4.11",
    "2.5.4.17",
];

/// Structural reading with the API server's wording for wrong types.
struct Reader<'e> {
    errs: &'e mut Vec<FieldErr>,
    /// Bytes of the CEL rules read.
    cel_bytes: usize,
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl Reader<'_> {
    fn wrong_type(&mut self, path: &Path, want: &str, got: &Value) {
        let t = json_type(got);
        self.errs.push(FieldErr::type_invalid(
            &path.clone(),
            BadValue::Str(t.to_owned()),
            format!("{} in body must be of type {want}: \"{t}\"", path.as_str()),
        ));
    }

    /// A present, non-null member.
    fn member<'v>(
        &mut self,
        obj: &'v serde_json::Map<String, Value>,
        key: &str,
    ) -> Option<&'v Value> {
        obj.get(key).filter(|v| !v.is_null())
    }

    fn object<'v>(
        &mut self,
        v: &'v Value,
        path: &Path,
    ) -> Option<&'v serde_json::Map<String, Value>> {
        match v {
            Value::Object(m) => Some(m),
            other => {
                self.wrong_type(path, "object", other);
                None
            }
        }
    }

    fn string(&mut self, v: &Value, path: &Path) -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            other => {
                self.wrong_type(path, "string", other);
                None
            }
        }
    }

    fn boolean(&mut self, v: &Value, path: &Path) -> Option<bool> {
        match v {
            Value::Bool(b) => Some(*b),
            other => {
                self.wrong_type(path, "boolean", other);
                None
            }
        }
    }

    fn integer(&mut self, v: &Value, path: &Path) -> Option<i64> {
        match v.as_i64() {
            Some(i) => Some(i),
            None => {
                self.wrong_type(path, "integer", v);
                None
            }
        }
    }

    fn string_list(&mut self, v: &Value, path: &Path) -> Option<Vec<String>> {
        let Value::Array(items) = v else {
            self.wrong_type(path, "array", v);
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match self.string(item, &path.index(i)) {
                Some(s) => out.push(s),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn field_str(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        key: &str,
        path: &Path,
    ) -> Option<String> {
        let v = self.member(obj, key)?;
        self.string(v, &path.child(key))
    }
    fn field_bool(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        key: &str,
        path: &Path,
    ) -> Option<bool> {
        let v = self.member(obj, key)?;
        self.boolean(v, &path.child(key))
    }

    fn rules(&mut self, obj: &serde_json::Map<String, Value>, path: &Path) -> Vec<Rule> {
        let Some(v) = self.member(obj, "validations") else {
            return Vec::new();
        };
        let path = path.child("validations");
        let Value::Array(items) = v else {
            self.wrong_type(&path, "array", v);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let ip = path.index(i);
            let Some(o) = self.object(item, &ip) else {
                continue;
            };
            let Some(rule) = self.member(o, "rule") else {
                self.errs.push(FieldErr::required(&ip.child("rule"), ""));
                continue;
            };
            let Some(rule) = self.string(rule, &ip.child("rule")) else {
                continue;
            };
            let message = self.field_str(o, "message", &ip);
            self.cel_bytes = self.cel_bytes.saturating_add(rule.len());
            out.push(Rule {
                rule,
                message,
                program: None,
            });
        }
        out
    }

    fn allowed_string(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        key: &str,
        path: &Path,
    ) -> Option<AllowedString> {
        let v = self.member(obj, key)?;
        let path = path.child(key);
        let o = self.object(v, &path)?;
        Some(AllowedString {
            value: self.field_str(o, "value", &path),
            required: self.field_bool(o, "required", &path),
            validations: self.rules(o, &path),
        })
    }

    fn slice_fields(&mut self, o: &serde_json::Map<String, Value>, path: &Path) -> AllowedSlice {
        let values = match self.member(o, "values") {
            Some(v) => self.string_list(v, &path.child("values")),
            None => None,
        };
        AllowedSlice {
            values,
            required: self.field_bool(o, "required", path),
            validations: self.rules(o, path),
        }
    }

    fn allowed_slice(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        key: &str,
        path: &Path,
    ) -> Option<AllowedSlice> {
        let v = self.member(obj, key)?;
        let path = path.child(key);
        let o = self.object(v, &path)?;
        Some(self.slice_fields(o, &path))
    }

    fn oid_entries(
        &mut self,
        obj: &serde_json::Map<String, Value>,
        key: &str,
        path: &Path,
    ) -> Vec<OidEntry> {
        let Some(v) = self.member(obj, key) else {
            return Vec::new();
        };
        let path = path.child(key);
        let Value::Array(items) = v else {
            self.wrong_type(&path, "array", v);
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let ip = path.index(i);
            let Some(o) = self.object(item, &ip) else {
                continue;
            };
            let oid = match self.member(o, "oid") {
                Some(v) => self.string(v, &ip.child("oid")),
                None => {
                    self.errs.push(FieldErr::required(&ip.child("oid"), ""));
                    None
                }
            };
            let slice = self.slice_fields(o, &ip);
            if let Some(oid) = oid {
                out.push(OidEntry { oid, slice });
            }
        }
        out
    }
}

/// Reads one document; structural problems are pushed to `errs`.
pub(crate) fn read(doc: &Value, errs: &mut Vec<FieldErr>) -> Option<Policy> {
    let mut r = Reader { errs, cel_bytes: 0 };
    let root = Path::new("");
    let top = r.object(doc, &Path::new("<root>"))?;
    if let Some(api) = top.get("apiVersion").and_then(Value::as_str)
        && api != "policy.cert-manager.io/v1alpha1"
    {
        r.errs.push(FieldErr::not_supported(
            &Path::new("apiVersion"),
            api,
            &["policy.cert-manager.io/v1alpha1"],
        ));
    }
    let name = top
        .get("metadata")
        .and_then(Value::as_object)
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if name.is_empty() {
        r.errs.push(FieldErr::required(
            &Path::new("metadata.name"),
            "name or generateName is required",
        ));
    }
    let Some(spec_v) = r.member(top, "spec") else {
        r.errs.push(FieldErr::required(&Path::new("spec"), ""));
        return None;
    };
    let spec_path = root.child("spec");
    let spec = r.object(spec_v, &spec_path)?;

    let allowed = match r.member(spec, "allowed") {
        None => None,
        Some(v) => {
            let p = spec_path.child("allowed");
            r.object(v, &p).map(|o| read_allowed(&mut r, o, &p))
        }
    };
    let constraints = match r.member(spec, "constraints") {
        None => None,
        Some(v) => {
            let p = spec_path.child("constraints");
            r.object(v, &p).map(|o| read_constraints(&mut r, o, &p))
        }
    };
    // plugins: none are compiled into Palisade, so every name is unsupported
    let mut plugins: Vec<String> = Vec::new();
    if let Some(v) = r.member(spec, "plugins") {
        let p = spec_path.child("plugins");
        if let Some(o) = r.object(v, &p) {
            plugins = o.keys().cloned().collect();
            palisade_json::sort::sort(&mut plugins);
        }
    }
    let sel_path = spec_path.child("selector");
    let (issuer_ref, namespace) = match r.member(spec, "selector") {
        None => {
            r.errs.push(FieldErr::required(&sel_path, ""));
            (None, None)
        }
        Some(v) => match r.object(v, &sel_path) {
            None => (None, None),
            Some(sel) => read_selector(&mut r, sel, &sel_path),
        },
    };
    Some(Policy {
        name,
        allowed,
        constraints,
        issuer_ref,
        namespace,
        plugins,
        cel_bytes: r.cel_bytes,
    })
}

fn read_allowed(r: &mut Reader<'_>, o: &serde_json::Map<String, Value>, p: &Path) -> Allowed {
    let usages = match r.member(o, "usages") {
        None => None,
        Some(v) => {
            let up = p.child("usages");
            let list = r.string_list(v, &up);
            if let Some(list) = &list {
                for (i, u) in list.iter().enumerate() {
                    if !USAGES.contains(&u.as_str()) {
                        r.errs
                            .push(FieldErr::not_supported(&up.index(i), u, USAGES));
                    }
                }
            }
            list
        }
    };
    let subject = match r.member(o, "subject") {
        None => None,
        Some(v) => {
            let sp = p.child("subject");
            r.object(v, &sp).map(|s| Subject {
                organizations: r.allowed_slice(s, "organizations", &sp),
                countries: r.allowed_slice(s, "countries", &sp),
                organizational_units: r.allowed_slice(s, "organizationalUnits", &sp),
                localities: r.allowed_slice(s, "localities", &sp),
                provinces: r.allowed_slice(s, "provinces", &sp),
                street_addresses: r.allowed_slice(s, "streetAddresses", &sp),
                postal_codes: r.allowed_slice(s, "postalCodes", &sp),
                serial_number: r.allowed_string(s, "serialNumber", &sp),
                other_attributes: r.oid_entries(s, "otherAttributes", &sp),
            })
        }
    };
    Allowed {
        common_name: r.allowed_string(o, "commonName", p),
        dns_names: r.allowed_slice(o, "dnsNames", p),
        ip_addresses: r.allowed_slice(o, "ipAddresses", p),
        uris: r.allowed_slice(o, "uris", p),
        email_addresses: r.allowed_slice(o, "emailAddresses", p),
        is_ca: r.field_bool(o, "isCA", p),
        usages,
        subject,
        other_names: r.oid_entries(o, "otherNames", p),
    }
}

fn read_duration(
    r: &mut Reader<'_>,
    o: &serde_json::Map<String, Value>,
    key: &str,
    p: &Path,
) -> Option<GoDuration> {
    let s = r.field_str(o, key, p)?;
    match GoDuration::parse(&s) {
        Ok(d) => Some(d),
        Err(e) => {
            r.errs
                .push(FieldErr::invalid(&p.child(key), BadValue::Str(s), e));
            None
        }
    }
}

fn read_constraints(
    r: &mut Reader<'_>,
    o: &serde_json::Map<String, Value>,
    p: &Path,
) -> Constraints {
    let private_key = match r.member(o, "privateKey") {
        None => None,
        Some(v) => {
            let kp = p.child("privateKey");
            r.object(v, &kp).map(|k| PrivateKey {
                algorithm: r.field_str(k, "algorithm", &kp),
                min_size: r
                    .member(k, "minSize")
                    .and_then(|v| r.integer(v, &kp.child("minSize"))),
                max_size: r
                    .member(k, "maxSize")
                    .and_then(|v| r.integer(v, &kp.child("maxSize"))),
            })
        }
    };
    Constraints {
        min_duration: read_duration(r, o, "minDuration", p),
        max_duration: read_duration(r, o, "maxDuration", p),
        private_key,
    }
}

fn read_selector(
    r: &mut Reader<'_>,
    sel: &serde_json::Map<String, Value>,
    p: &Path,
) -> (Option<IssuerRefSelector>, Option<NamespaceSelector>) {
    let issuer_ref = match r.member(sel, "issuerRef") {
        None => None,
        Some(v) => {
            let ip = p.child("issuerRef");
            r.object(v, &ip).map(|o| IssuerRefSelector {
                name: r.field_str(o, "name", &ip),
                kind: r.field_str(o, "kind", &ip),
                group: r.field_str(o, "group", &ip),
            })
        }
    };
    let namespace = match r.member(sel, "namespace") {
        None => None,
        Some(v) => {
            let np = p.child("namespace");
            r.object(v, &np).map(|o| {
                let match_names = match r.member(o, "matchNames") {
                    Some(v) => r
                        .string_list(v, &np.child("matchNames"))
                        .unwrap_or_default(),
                    None => Vec::new(),
                };
                let match_labels = match r.member(o, "matchLabels") {
                    None => None,
                    Some(v) => {
                        let lp = np.child("matchLabels");
                        r.object(v, &lp).map(|m| {
                            let mut out = BTreeMap::new();
                            for (k, v) in m {
                                if let Some(s) = r.string(v, &lp.key(k)) {
                                    out.insert(k.clone(), s);
                                }
                            }
                            out
                        })
                    }
                };
                NamespaceSelector {
                    match_names,
                    match_labels,
                }
            })
        }
    };
    (issuer_ref, namespace)
}

/// cert-manager's `ParseObjectIdentifier` (arcs as `strconv.Atoi` reads them) and
/// approver-policy's canonical-form and non-negative checks.
fn validate_oid(path: &Path, oid: &str) -> Option<FieldErr> {
    let arcs: Option<Vec<i64>> = oid.split('.').map(|a| a.parse::<i64>().ok()).collect();
    let canonical = arcs.as_ref().is_some_and(|arcs| {
        !oid.is_empty()
            && arcs
                .iter()
                .map(i64::to_string)
                .collect::<Vec<_>>()
                .join(".")
                == oid
    });
    if !canonical {
        return Some(FieldErr::invalid(
            &path.clone(),
            BadValue::Str(oid.to_owned()),
            "must be a valid, canonical dotted ASN.1 object identifier (e.g. \"1.3.6.1.4.1.311.20.2.3\")",
        ));
    }
    if arcs.is_some_and(|a| a.iter().any(|x| *x < 0)) {
        return Some(FieldErr::invalid(
            &path.clone(),
            BadValue::Str(oid.to_owned()),
            "OID arcs must be non-negative",
        ));
    }
    None
}

fn compile_rules(rules: &mut [Rule], path: &Path, errs: &mut Vec<FieldErr>) {
    for (i, rule) in rules.iter_mut().enumerate() {
        match Validator::compile(&rule.rule) {
            Ok(v) => rule.program = Some(v),
            Err(e) => errs.push(FieldErr::invalid(
                &path.child("validations").index(i),
                BadValue::Str(rule.rule.clone()),
                e,
            )),
        }
    }
}

fn check_slice(s: &mut AllowedSlice, path: &Path, errs: &mut Vec<FieldErr>) {
    if s.required == Some(true) && s.values.is_none() && s.validations.is_empty() {
        errs.push(FieldErr::required(
            &path.child("values"),
            "at least one of 'values' or 'validations' must be defined if field is 'required'",
        ));
    }
    compile_rules(&mut s.validations, path, errs);
}

fn check_string(s: &mut AllowedString, path: &Path, errs: &mut Vec<FieldErr>) {
    if s.required == Some(true) && s.value.is_none() && s.validations.is_empty() {
        errs.push(FieldErr::required(
            &path.child("value"),
            "at least one of 'value' or 'validations' must be defined if field is 'required'",
        ));
    }
    compile_rules(&mut s.validations, path, errs);
}

/// approver-policy's webhook: base checks, then the `allowed` and `constraints` approvers'
/// `Validate`, in registry order. Compiles every CEL rule.
pub(crate) fn validate(p: &mut Policy, errs: &mut Vec<FieldErr>) {
    let spec = Path::new("spec");
    validate_base(p, &spec, errs);
    if let Some(a) = &mut p.allowed {
        validate_allowed(a, &spec.child("allowed"), errs);
    }
    if let Some(c) = &p.constraints {
        validate_constraints(c, &spec.child("constraints"), errs);
    }
}

/// `matchLabels` as a JSON object. Inserted one by one: collecting into a map sorts, and every call site that does
/// links its own copy of the standard library's sort.
pub(crate) fn labels_json(labels: &BTreeMap<String, String>) -> serde_json::Map<String, Value> {
    let mut out = serde_json::Map::new();
    for (k, v) in labels {
        out.insert(k.clone(), Value::String(v.clone()));
    }
    out
}

/// The webhook's own checks: no plugins (none is registered), a selector (issuerRef or namespace), namespace
/// matchLabels a label selector accepts.
fn validate_base(p: &Policy, spec: &Path, errs: &mut Vec<FieldErr>) {
    for name in &p.plugins {
        errs.push(FieldErr::not_supported::<&str>(
            &spec.child("plugins"),
            name,
            &[],
        ));
    }
    if p.issuer_ref.is_none() && p.namespace.is_none() {
        errs.push(FieldErr::required(
            &spec.child("selector"),
            "one of issuerRef or namespace must be defined, hint: `{}` on either matches everything",
        ));
    }
    if let Some(ns) = &p.namespace
        && let Some(labels) = &ns.match_labels
        && let Some(problem) = labels.iter().find_map(|(k, v)| label_problem(k, v))
    {
        errs.push(FieldErr::invalid(
            &spec
                .child("selector")
                .child("namespace")
                .child("matchLabels"),
            BadValue::Json(Value::Object(labels_json(labels))),
            problem,
        ));
    }
}

/// The `allowed` approver's `Validate`: each slice and string family (a required one needs values or
/// validations; its CEL rules compile), then otherNames and subject.otherAttributes.
fn validate_allowed(a: &mut Allowed, ap: &Path, errs: &mut Vec<FieldErr>) {
    for (key, slot) in [
        ("dnsNames", &mut a.dns_names),
        ("ipAddresses", &mut a.ip_addresses),
        ("uris", &mut a.uris),
        ("emailAddresses", &mut a.email_addresses),
    ] {
        if let Some(s) = slot {
            check_slice(s, &ap.child(key), errs);
        }
    }
    let sp = ap.child("subject");
    if let Some(sub) = &mut a.subject {
        validate_subject_slices(sub, &sp, errs);
    }
    if let Some(cn) = &mut a.common_name {
        check_string(cn, &ap.child("commonName"), errs);
    }
    if let Some(sub) = &mut a.subject
        && let Some(sn) = &mut sub.serial_number
    {
        check_string(sn, &sp.child("serialNumber"), errs);
    }
    validate_other_names(&mut a.other_names, &ap.child("otherNames"), errs);
    if let Some(sub) = &mut a.subject {
        validate_other_attributes(
            &mut sub.other_attributes,
            &sp.child("otherAttributes"),
            errs,
        );
    }
}

/// The subject's slice families, organizations … postalCodes.
fn validate_subject_slices(sub: &mut Subject, sp: &Path, errs: &mut Vec<FieldErr>) {
    for (key, slot) in [
        ("organizations", &mut sub.organizations),
        ("countries", &mut sub.countries),
        ("organizationalUnits", &mut sub.organizational_units),
        ("localities", &mut sub.localities),
        ("provinces", &mut sub.provinces),
        ("streetAddresses", &mut sub.street_addresses),
        ("postalCodes", &mut sub.postal_codes),
    ] {
        if let Some(s) = slot {
            check_slice(s, &sp.child(key), errs);
        }
    }
}

/// `allowed.otherNames`: each type-id an OID, each entry a slice family.
fn validate_other_names(entries: &mut [OidEntry], onp: &Path, errs: &mut Vec<FieldErr>) {
    for (i, e) in entries.iter_mut().enumerate() {
        let ep = onp.index(i);
        if let Some(err) = validate_oid(&ep.child("oid"), &e.oid) {
            errs.push(err);
        }
        check_slice(&mut e.slice, &ep, errs);
    }
}

/// `allowed.subject.otherAttributes`: each an OID not covered by a named subject field, each a slice family.
fn validate_other_attributes(entries: &mut [OidEntry], oap: &Path, errs: &mut Vec<FieldErr>) {
    for (i, e) in entries.iter_mut().enumerate() {
        let ep = oap.index(i);
        if let Some(err) = validate_oid(&ep.child("oid"), &e.oid) {
            errs.push(err);
        } else if NAMED_SUBJECT_OIDS.contains(&e.oid.as_str()) {
            errs.push(FieldErr::invalid(
                &ep.child("oid"),
                BadValue::Str(e.oid.clone()),
                "this OID is covered by a dedicated allowed.commonName / allowed.subject.* field; configure it there instead of otherAttributes",
            ));
        }
        check_slice(&mut e.slice, &ep, errs);
    }
}

/// The `constraints` approver's `Validate`: the private key, then the durations.
fn validate_constraints(c: &Constraints, cp: &Path, errs: &mut Vec<FieldErr>) {
    if let Some(k) = &c.private_key {
        validate_private_key(k, &cp.child("privateKey"), errs);
    }
    validate_durations(c, cp, errs);
}

/// `constraints.privateKey`: a known algorithm (Ed25519 without sizes), sizes within 0..=8192, max ≥ min.
fn validate_private_key(k: &PrivateKey, kp: &Path, errs: &mut Vec<FieldErr>) {
    if let Some(alg) = &k.algorithm {
        if !ALGORITHMS.contains(&alg.as_str()) {
            errs.push(FieldErr::not_supported(
                &kp.child("algorithm"),
                alg,
                ALGORITHMS,
            ));
        }
        if alg == "Ed25519" {
            if let Some(m) = k.max_size {
                errs.push(FieldErr::invalid(
                    &kp.child("maxSize"),
                    BadValue::Int(m),
                    "maxSize cannot be defined with algorithm constraint Ed25519",
                ));
            }
            if let Some(m) = k.min_size {
                errs.push(FieldErr::invalid(
                    &kp.child("minSize"),
                    BadValue::Int(m),
                    "minSize cannot be defined with algorithm constraint Ed25519",
                ));
            }
        }
    }
    for (key, size) in [("maxSize", k.max_size), ("minSize", k.min_size)] {
        if let Some(m) = size
            && !(0..=8192).contains(&m)
        {
            errs.push(FieldErr::invalid(
                &kp.child(key),
                BadValue::Int(m),
                "must be between 0 and 8192 inclusive",
            ));
        }
    }
    if let (Some(max), Some(min)) = (k.max_size, k.min_size)
        && max < min
    {
        errs.push(FieldErr::invalid(
            &kp.child("maxSize"),
            BadValue::Int(max),
            "maxSize must be the same value as minSize or larger",
        ));
    }
}

/// `constraints.maxDuration` and `minDuration`: max ≥ min, neither negative.
fn validate_durations(c: &Constraints, cp: &Path, errs: &mut Vec<FieldErr>) {
    if let (Some(max), Some(min)) = (c.max_duration, c.min_duration)
        && max < min
    {
        errs.push(FieldErr::invalid(
            &cp.child("maxDuration"),
            BadValue::Str(max.to_string()),
            "maxDuration must be the same value as minDuration or larger",
        ));
    }
    for (key, duration) in [
        ("maxDuration", c.max_duration),
        ("minDuration", c.min_duration),
    ] {
        if let Some(d) = duration
            && d.0 < 0
        {
            errs.push(FieldErr::invalid(
                &cp.child(key),
                BadValue::Str(d.to_string()),
                format!("{key} must be a value greater or equal to 0"),
            ));
        }
    }
}

/// `metav1.LabelSelectorAsSelector` on matchLabels: the first key or value apimachinery's
/// `labels.NewRequirement` rejects (keys in sorted order; Go's map order is random), as its
/// `validateLabelKey` / `validateLabelValue` word it (the messages joined with `; `).
fn label_problem(key: &str, value: &str) -> Option<String> {
    let key_errs = is_qualified_name(key);
    if !key_errs.is_empty() {
        return Some(FieldErr::invalid(&Path::new("key"), key, key_errs.join("; ")).to_string());
    }
    let value_errs = is_valid_label_value(value);
    if !value_errs.is_empty() {
        let path = Path::new("values").index(0).key(key);
        return Some(FieldErr::invalid(&path, value, value_errs.join("; ")).to_string());
    }
    None
}
