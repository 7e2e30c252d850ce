//! The `allowed` and `constraints` evaluators (approver-policy
//! `pkg/internal/approver/{allowed,constraints}/evaluator.go`).

use crate::cel::CrVars;
use crate::csr::{AttrValue, Csr, PublicKey, RawSans, unmarshal_sans};
use crate::gofmt::GoDuration;
use crate::policy::{
    Allowed, AllowedSlice, AllowedString, Constraints, NAMED_SUBJECT_OIDS, OidEntry, Policy,
    PrivateKey, Rule, Subject,
};
use crate::wildcard;
use palisade_cel_kubernetes::field::{BadValue, Error as FieldErr, Path, aggregate};

/// The CertificateRequest fields the evaluators read, borrowed from the request's document.
#[derive(Debug, Clone, Default)]
pub(crate) struct Request<'a> {
    pub(crate) name: &'a str,
    pub(crate) namespace: &'a str,
    pub(crate) username: &'a str,
    pub(crate) groups: Vec<&'a str>,
    pub(crate) uid: &'a str,
    pub(crate) extra: std::collections::BTreeMap<String, Vec<String>>,
    pub(crate) is_ca: bool,
    pub(crate) usages: Vec<&'a str>,
    /// `spec.duration`: `None` when absent.
    pub(crate) duration: Option<GoDuration>,
    pub(crate) request: &'a str,
    pub(crate) issuer_name: &'a str,
    pub(crate) issuer_kind: &'a str,
    pub(crate) issuer_group: &'a str,
}

/// One evaluator's answer.
pub(crate) enum Outcome {
    NotDenied,
    Denied(String),
}

const NON_STRING: &str = "<non-string value>";
const NON_STRING_DETAIL: &str = "subject attribute uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject";

fn vals<S: AsRef<str>>(slice: &[S]) -> BadValue {
    BadValue::strings(slice)
}

/// Where a check is in the policy (`spec.allowed.dnsNames.validations[0]`): a chain of borrowed steps, rendered into
/// a [`Path`] only when a problem there is reported. Every request runs every check and most of them pass, so their
/// paths are not built up front.
#[derive(Debug, Clone, Copy)]
enum At<'a> {
    /// `field.NewPath(name)`.
    Root(&'a str),
    /// `Child(name)`.
    Child(&'a At<'a>, &'a str),
    /// `Index(i)`.
    Index(&'a At<'a>, usize),
    /// `Key(key)`.
    Key(&'a At<'a>, &'a str),
}

/// The root of every path the evaluators report.
const SPEC: At<'static> = At::Root("spec");

impl<'a> At<'a> {
    fn child(&'a self, name: &'a str) -> At<'a> {
        At::Child(self, name)
    }

    fn index(&'a self, i: usize) -> At<'a> {
        At::Index(self, i)
    }

    fn key(&'a self, key: &'a str) -> At<'a> {
        At::Key(self, key)
    }

    /// The path as [`Path`] renders it, built step by step through its own methods.
    fn path(&self) -> Path {
        match *self {
            At::Root(name) => Path::new(name),
            At::Child(parent, name) => parent.path().child(name),
            At::Index(parent, i) => parent.path().index(i),
            At::Key(parent, key) => parent.path().key(key),
        }
    }
}

struct Ctx<'r> {
    cr: CrVars<'r>,
}

impl Ctx<'_> {
    fn run_validations(&self, rules: &[Rule], s: &str, path: &At<'_>) -> Vec<FieldErr> {
        let mut el = Vec::new();
        for (i, v) in rules.iter().enumerate() {
            let ip = path.index(i);
            let Some(program) = &v.program else {
                el.push(FieldErr::internal(&ip.path(), "rule was not compiled"));
                continue;
            };
            match program.validate(s, &self.cr) {
                Err(e) => el.push(FieldErr::internal(&ip.path(), e)),
                Ok(true) => {}
                Ok(false) => {
                    let detail = v
                        .message
                        .clone()
                        .unwrap_or_else(|| format!("failed rule: {}", v.rule));
                    el.push(FieldErr::invalid(
                        &ip.path(),
                        BadValue::Str(s.to_owned()),
                        detail,
                    ));
                }
            }
        }
        el
    }

    fn evaluate_string(
        &self,
        s: &str,
        crp: Option<&AllowedString>,
        path: &At<'_>,
    ) -> Vec<FieldErr> {
        if s.is_empty() {
            if let Some(c) = crp
                && c.required == Some(true)
            {
                return vec![FieldErr::required(&path.child("required").path(), "true")];
            }
            return Vec::new();
        }
        let Some(c) = crp.filter(|c| c.value.is_some() || !c.validations.is_empty()) else {
            return vec![FieldErr::invalid(
                &path.path(),
                BadValue::Str(s.to_owned()),
                "no allowed value",
            )];
        };
        let mut el = Vec::new();
        if let Some(v) = &c.value
            && !wildcard::matches(v, s)
        {
            el.push(FieldErr::invalid(
                &path.child("value").path(),
                BadValue::Str(s.to_owned()),
                v.clone(),
            ));
        }
        if !c.validations.is_empty() {
            el.extend(self.run_validations(&c.validations, s, &path.child("validations")));
        }
        el
    }

    fn evaluate_slice(
        &self,
        s: &[String],
        crp: Option<&AllowedSlice>,
        path: &At<'_>,
    ) -> Vec<FieldErr> {
        if s.is_empty() {
            if let Some(c) = crp
                && c.required == Some(true)
            {
                return vec![FieldErr::required(&path.child("required").path(), "true")];
            }
            return Vec::new();
        }
        let Some(c) = crp.filter(|c| c.values.is_some() || !c.validations.is_empty()) else {
            return vec![FieldErr::invalid(
                &path.path(),
                vals(s),
                "no allowed values",
            )];
        };
        let mut el = Vec::new();
        if let Some(v) = &c.values
            && !wildcard::subset(v, s)
        {
            el.push(FieldErr::invalid(
                &path.child("values").path(),
                vals(s),
                v.join(", "),
            ));
        }
        if !c.validations.is_empty() {
            let vp = path.child("validations");
            for item in s {
                el.extend(self.run_validations(&c.validations, item, &vp));
            }
        }
        el
    }

    /// CN / serialNumber: every attribute of `oid` in the raw subject.
    fn evaluate_single(
        &self,
        csr: &Csr,
        oid: &str,
        crp: Option<&AllowedString>,
        path: &At<'_>,
    ) -> Vec<FieldErr> {
        let attributes = || csr.rdns.iter().flatten().filter(|a| a.oid == oid);
        if attributes().any(|a| a.value == AttrValue::NonString) {
            return vec![FieldErr::invalid(
                &path.path(),
                BadValue::Str(NON_STRING.to_owned()),
                format!(
                    "subject attribute {oid} uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"
                ),
            )];
        }
        // the values borrowed from the CSR, read twice rather than collected (there is one CN, nearly always)
        let values = || {
            attributes().filter_map(|a| match &a.value {
                AttrValue::Str(s) => Some(s.as_str()),
                AttrValue::NonString => None,
            })
        };
        let mut first_two = values();
        match (first_two.next(), first_two.next()) {
            (None, _) => self.evaluate_string("", crp, path),
            (Some(one), None) => self.evaluate_string(one, crp, path),
            (Some(_), Some(_)) => values()
                .enumerate()
                .flat_map(|(i, v)| self.evaluate_string(v, crp, &path.index(i)))
                .collect(),
        }
    }

    fn evaluate_oid_entries(
        &self,
        found: &[(String, Vec<String>)],
        entries: &[OidEntry],
        path: &At<'_>,
    ) -> Vec<FieldErr> {
        let mut el = Vec::new();
        for (oid, values) in found {
            let ep = path.key(oid);
            // the last entry with an OID wins, as Go's map build does
            match entries.iter().rev().find(|e| e.oid == *oid) {
                None => el.push(FieldErr::invalid(
                    &ep.path(),
                    vals(values),
                    "no allowed values",
                )),
                Some(e) => el.extend(self.evaluate_slice(values, Some(&e.slice), &ep)),
            }
        }
        el
    }
}

fn group_push(groups: &mut Vec<(String, Vec<String>)>, key: &str, value: String) {
    match groups.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => v.push(value),
        None => groups.push((key.to_owned(), vec![value])),
    }
}

/// The `allowed` evaluator: each family of `spec.allowed` checked in approver-policy's order (commonName, the SAN
/// values, isCA, usages, the SAN types never allowed, otherNames, the subject, its other attributes), every problem
/// aggregated into one denial. A CSR whose SAN extension cannot be read is denied before any family.
pub(crate) fn evaluate_allowed(policy: &Policy, req: &Request<'_>, csr: &Csr) -> Outcome {
    let default = Allowed::default();
    let allowed = policy.allowed.as_ref().unwrap_or(&default);
    let sans = match raw_sans(csr) {
        Ok(sans) => sans,
        Err(message) => return Outcome::Denied(message),
    };
    let ctx = Ctx::new(req);
    let fp = SPEC.child("allowed");
    let default_subject = Subject::default();
    let subject = allowed.subject.as_ref().unwrap_or(&default_subject);
    let subject_path = fp.child("subject");

    let mut el: Vec<FieldErr> = Vec::new();
    el.extend(ctx.evaluate_single(
        csr,
        COMMON_NAME,
        allowed.common_name.as_ref(),
        &fp.child("commonName"),
    ));
    el.extend(ctx.san_values(csr, allowed, &fp));
    el.extend(is_ca(req, allowed.is_ca, &fp.child("isCA")));
    el.extend(usages(req, allowed.usages.as_deref(), &fp.child("usages")));
    el.extend(forbidden_sans(&sans, &fp.child("subjectAltName")));
    el.extend(ctx.other_names(&sans, &allowed.other_names, &fp.child("otherNames")));
    el.extend(ctx.subject_attributes(csr, subject, &subject_path));
    el.extend(ctx.other_attributes(csr, &subject.other_attributes, &subject_path));
    outcome(&el)
}

/// The subject attribute `commonName` (CN).
const COMMON_NAME: &str = "2.5.4.3";
/// The subject attribute `serialNumber`.
const SERIAL_NUMBER: &str = "2.5.4.5";

/// One denial with every problem (`ToAggregate`), or none.
fn outcome(el: &[FieldErr]) -> Outcome {
    match aggregate(el) {
        Some(message) => Outcome::Denied(message),
        None => Outcome::NotDenied,
    }
}

/// The CSR's one subjectAltName extension, walked as cert-manager's `UnmarshalSANs` does (fail closed): `Err` is the
/// denial when it cannot be decoded or there is more than one.
fn raw_sans(csr: &Csr) -> Result<RawSans, String> {
    let [first, rest @ ..] = csr.san_extensions.as_slice() else {
        return Ok(RawSans::default());
    };
    let sans = unmarshal_sans(first)
        .map_err(|e| format!("subjectAltName (SAN) extension could not be decoded: {e}"))?;
    if rest.is_empty() {
        Ok(sans)
    } else {
        Err("CSR contains multiple SAN extensions; at most one is permitted".to_owned())
    }
}

impl<'r> Ctx<'r> {
    /// The CEL variables of the request (`cr.name`, `cr.namespace`, `cr.username`, `cr.groups`), borrowed from it.
    fn new(req: &'r Request<'_>) -> Self {
        Ctx {
            cr: CrVars::new(req.name, req.namespace, req.username, &req.groups),
        }
    }

    /// `dnsNames`, `ipAddresses`, `uris` and `emailAddresses`: the CSR's values of each against its allowed slice.
    fn san_values(&self, csr: &Csr, allowed: &Allowed, fp: &At<'_>) -> Vec<FieldErr> {
        let mut el = Vec::new();
        for (values, slice, key) in [
            (&csr.dns_names, &allowed.dns_names, "dnsNames"),
            (&csr.ips, &allowed.ip_addresses, "ipAddresses"),
            (&csr.uris, &allowed.uris, "uris"),
            (&csr.emails, &allowed.email_addresses, "emailAddresses"),
        ] {
            el.extend(self.evaluate_slice(values, slice.as_ref(), &fp.child(key)));
        }
        el
    }

    /// `otherNames`: the CSR's otherName SANs grouped by type-id against the policy's entries, then each required
    /// entry the CSR lacks.
    fn other_names(&self, sans: &RawSans, entries: &[OidEntry], path: &At<'_>) -> Vec<FieldErr> {
        let mut by_oid: Vec<(String, Vec<String>)> = Vec::new();
        for (oid, value) in &sans.other_names {
            group_push(&mut by_oid, oid, value.clone());
        }
        let mut el = self.evaluate_oid_entries(&by_oid, entries, path);
        for e in entries {
            if e.slice.required == Some(true) && !by_oid.iter().any(|(k, _)| *k == e.oid) {
                el.push(FieldErr::required(
                    &path.key(&e.oid).child("required").path(),
                    "true",
                ));
            }
        }
        el
    }

    /// The named subject attributes: organizations … postalCodes as slices, then serialNumber.
    fn subject_attributes(&self, csr: &Csr, sub: &Subject, path: &At<'_>) -> Vec<FieldErr> {
        let mut el = Vec::new();
        for (oid, key, slot) in [
            ("2.5.4.10", "organizations", &sub.organizations),
            ("2.5.4.6", "countries", &sub.countries),
            ("2.5.4.11", "organizationalUnits", &sub.organizational_units),
            ("2.5.4.7", "localities", &sub.localities),
            ("2.5.4.8", "provinces", &sub.provinces),
            ("2.5.4.9", "streetAddresses", &sub.street_addresses),
            ("2.5.4.17", "postalCodes", &sub.postal_codes),
        ] {
            el.extend(self.evaluate_slice(
                &csr.subject_strings(oid),
                slot.as_ref(),
                &path.child(key),
            ));
        }
        el.extend(self.evaluate_single(
            csr,
            SERIAL_NUMBER,
            sub.serial_number.as_ref(),
            &path.child("serialNumber"),
        ));
        el
    }

    /// `subject.otherAttributes`: a named attribute (other than CN and serialNumber) that is not a string, an
    /// unnamed one that is not a string, the unnamed ones grouped by OID against the entries, then each required
    /// entry the subject lacks.
    fn other_attributes(&self, csr: &Csr, entries: &[OidEntry], subject: &At<'_>) -> Vec<FieldErr> {
        let path = subject.child("otherAttributes");
        let mut el = Vec::new();
        let mut found: Vec<(String, Vec<String>)> = Vec::new();
        // a CSR's subject has a handful of attributes: a list, not a set (no set type linked for it)
        let mut seen: Vec<&str> = Vec::new();
        for atv in csr.rdns.iter().flatten() {
            if NAMED_SUBJECT_OIDS.contains(&atv.oid.as_str()) {
                if atv.oid == COMMON_NAME || atv.oid == SERIAL_NUMBER {
                    continue;
                }
                if atv.value == AttrValue::NonString {
                    el.push(FieldErr::invalid(
                        &named_path(subject, &atv.oid),
                        BadValue::Str(NON_STRING.into()),
                        NON_STRING_DETAIL,
                    ));
                }
                continue;
            }
            seen.push(&atv.oid);
            match &atv.value {
                AttrValue::NonString => {
                    el.push(FieldErr::invalid(
                        &path.key(&atv.oid).path(),
                        BadValue::Str(NON_STRING.into()),
                        NON_STRING_DETAIL,
                    ));
                }
                AttrValue::Str(s) => group_push(&mut found, &atv.oid, s.clone()),
            }
        }
        el.extend(self.evaluate_oid_entries(&found, entries, &path));
        for e in entries {
            if e.slice.required == Some(true) && !seen.contains(&e.oid.as_str()) {
                el.push(FieldErr::required(
                    &path.key(&e.oid).child("required").path(),
                    "true",
                ));
            }
        }
        el
    }
}

/// `isCA`: a CA request needs `isCA: true`.
fn is_ca(req: &Request<'_>, allowed: Option<bool>, path: &At<'_>) -> Option<FieldErr> {
    if !req.is_ca {
        return None;
    }
    match allowed {
        None => Some(FieldErr::invalid(&path.path(), BadValue::Bool(true), "nil")),
        Some(false) => Some(FieldErr::invalid(
            &path.path(),
            BadValue::Bool(true),
            "false",
        )),
        Some(true) => None,
    }
}

/// `usages`: the requested key usages, a subset of the allowed ones (wildcards match).
fn usages(req: &Request<'_>, allowed: Option<&[String]>, path: &At<'_>) -> Option<FieldErr> {
    if req.usages.is_empty() {
        return None;
    }
    match allowed {
        None => Some(FieldErr::invalid(&path.path(), vals(&req.usages), "nil")),
        Some(pol) if !wildcard::subset(pol, &req.usages) => Some(FieldErr::invalid(
            &path.path(),
            vals(&req.usages),
            pol.join(", "),
        )),
        Some(_) => None,
    }
}

/// The SAN types no policy allows: one problem per directoryName, x400Address, ediPartyName and registeredID entry.
fn forbidden_sans(sans: &RawSans, path: &At<'_>) -> Vec<FieldErr> {
    let mut el = Vec::new();
    for (count, kind) in [
        (sans.directory_names, "directoryName"),
        (sans.x400_addresses, "x400Address"),
        (sans.edi_party_names, "ediPartyName"),
        (sans.registered_ids, "registeredID"),
    ] {
        for _ in 0..count {
            el.push(FieldErr::invalid(
                &path.child(kind).path(),
                BadValue::Str(kind.into()),
                format!("{kind} SAN entries are not permitted"),
            ));
        }
    }
    el
}

fn named_path(subject: &At<'_>, oid: &str) -> Path {
    match oid {
        "2.5.4.3" => SPEC.child("allowed").child("commonName").path(),
        "2.5.4.5" => subject.child("serialNumber").path(),
        "2.5.4.6" => subject.child("countries").path(),
        "2.5.4.7" => subject.child("localities").path(),
        "2.5.4.8" => subject.child("provinces").path(),
        "2.5.4.9" => subject.child("streetAddresses").path(),
        "2.5.4.10" => subject.child("organizations").path(),
        "2.5.4.11" => subject.child("organizationalUnits").path(),
        "2.5.4.17" => subject.child("postalCodes").path(),
        other => subject.child("otherAttributes").key(other).path(),
    }
}

/// The `constraints` evaluator: the requested duration, then the CSR's private key; `Err` is an evaluation error.
pub(crate) fn evaluate_constraints(
    policy: &Policy,
    req: &Request<'_>,
    csr: Result<&Csr, &String>,
) -> Result<Outcome, String> {
    let Some(c) = &policy.constraints else {
        return Ok(Outcome::NotDenied);
    };
    let fp = SPEC.child("constraints");
    let mut el = duration(req, c, &fp);
    if let Some(k) = &c.private_key {
        el.extend(private_key(
            csr.map_err(Clone::clone)?,
            k,
            &fp.child("privateKey"),
        )?);
    }
    Ok(outcome(&el))
}

/// `maxDuration` and `minDuration` against `spec.duration` (an absent duration fails both).
fn duration(req: &Request<'_>, c: &Constraints, fp: &At<'_>) -> Vec<FieldErr> {
    let mut el = Vec::new();
    // written out only for a problem: most requests have none
    let requested = || {
        req.duration
            .map(|d| d.to_string())
            .unwrap_or_else(|| "nil".to_owned())
    };
    if let Some(max) = c.max_duration
        && req.duration.is_none_or(|d| max < d)
    {
        el.push(FieldErr::invalid(
            &fp.child("maxDuration").path(),
            BadValue::Str(requested()),
            max.to_string(),
        ));
    }
    if let Some(min) = c.min_duration
        && req.duration.is_none_or(|d| min > d)
    {
        el.push(FieldErr::invalid(
            &fp.child("minDuration").path(),
            BadValue::Str(requested()),
            min.to_string(),
        ));
    }
    el
}

/// `privateKey`: the CSR's key algorithm and size; `Err` for a key type approver-policy does not recognise.
fn private_key(csr: &Csr, k: &PrivateKey, kp: &At<'_>) -> Result<Vec<FieldErr>, String> {
    let (alg, size): (&str, i64) = match &csr.public_key {
        PublicKey::Rsa(bits) => ("RSA", i64::try_from(*bits).unwrap_or(i64::MAX)),
        PublicKey::Ecdsa(bits) => ("ECDSA", i64::try_from(*bits).unwrap_or(i64::MAX)),
        PublicKey::Ed25519 => ("Ed25519", -1),
        PublicKey::Other(t) => return Err(format!("unrecognised public key type {t}")),
    };
    let mut el = Vec::new();
    if let Some(want) = &k.algorithm
        && want != alg
    {
        el.push(FieldErr::invalid(
            &kp.child("algorithm").path(),
            BadValue::Str(alg.to_owned()),
            want.clone(),
        ));
    }
    if let Some(max) = k.max_size
        && max < size
    {
        el.push(FieldErr::invalid(
            &kp.child("maxSize").path(),
            BadValue::Str(size.to_string()),
            max.to_string(),
        ));
    }
    if let Some(min) = k.min_size
        && min > size
    {
        el.push(FieldErr::invalid(
            &kp.child("minSize").path(),
            BadValue::Str(size.to_string()),
            min.to_string(),
        ));
    }
    Ok(el)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(el: &[FieldErr]) -> Vec<String> {
        el.iter().map(ToString::to_string).collect()
    }

    fn csr(san_extensions: Vec<Vec<u8>>) -> Csr {
        Csr {
            rdns: Vec::new(),
            dns_names: Vec::new(),
            emails: Vec::new(),
            ips: Vec::new(),
            uris: Vec::new(),
            san_extensions,
            public_key: PublicKey::Ed25519,
        }
    }

    #[test]
    fn lazy_paths_render_as_field_paths_do() {
        let allowed = SPEC.child("allowed");
        let subject = allowed.child("subject");
        let attributes = subject.child("otherAttributes");
        let entry = attributes.key("1.2.3");
        let validations = entry.child("validations");
        assert_eq!(
            validations.index(1).path(),
            Path::new("spec")
                .child("allowed")
                .child("subject")
                .child("otherAttributes")
                .key("1.2.3")
                .child("validations")
                .index(1)
        );
        assert_eq!(
            validations.index(1).path().as_str(),
            "spec.allowed.subject.otherAttributes[1.2.3].validations[1]"
        );
        let cn = allowed.child("commonName");
        assert_eq!(
            cn.child("validations").index(0).path().as_str(),
            "spec.allowed.commonName.validations[0]"
        );
        assert_eq!(
            named_path(&subject, "2.5.4.3").as_str(),
            "spec.allowed.commonName"
        );
        assert_eq!(
            named_path(&subject, "2.5.4.999").as_str(),
            "spec.allowed.subject.otherAttributes[2.5.4.999]"
        );
    }

    #[test]
    fn a_csr_without_san_extension_has_no_raw_sans_and_two_are_denied() {
        let none = raw_sans(&csr(Vec::new())).unwrap();
        assert!(none.other_names.is_empty() && none.directory_names == 0);
        // an empty GeneralNames sequence, twice: the count is checked after the first decodes
        let empty = vec![0x30, 0x00];
        assert_eq!(
            raw_sans(&csr(vec![empty.clone(), empty])).err().unwrap(),
            "CSR contains multiple SAN extensions; at most one is permitted"
        );
        let broken = raw_sans(&csr(vec![vec![0x04, 0x00], vec![0x30, 0x00]]));
        assert!(
            broken
                .err()
                .unwrap()
                .starts_with("subjectAltName (SAN) extension could not be decoded: ")
        );
    }

    #[test]
    fn is_ca_needs_is_ca_true() {
        let allowed = SPEC.child("allowed");
        let path = allowed.child("isCA");
        let ca = Request {
            is_ca: true,
            ..Request::default()
        };
        assert!(is_ca(&Request::default(), None, &path).is_none());
        assert!(is_ca(&ca, Some(true), &path).is_none());
        assert_eq!(
            is_ca(&ca, None, &path).unwrap().to_string(),
            "spec.allowed.isCA: Invalid value: true: nil"
        );
        assert_eq!(
            is_ca(&ca, Some(false), &path).unwrap().to_string(),
            "spec.allowed.isCA: Invalid value: true: false"
        );
    }

    #[test]
    fn usages_are_a_subset_of_the_allowed_ones() {
        let allowed = SPEC.child("allowed");
        let path = allowed.child("usages");
        let req = Request {
            usages: vec!["digital signature", "server auth"],
            ..Request::default()
        };
        assert!(usages(&Request::default(), None, &path).is_none());
        assert!(usages(&req, Some(&["*".to_owned()]), &path).is_none());
        assert_eq!(
            usages(&req, None, &path).unwrap().to_string(),
            r#"spec.allowed.usages: Invalid value: ["digital signature","server auth"]: nil"#
        );
        assert_eq!(
            usages(&req, Some(&["server auth".to_owned()]), &path)
                .unwrap()
                .to_string(),
            r#"spec.allowed.usages: Invalid value: ["digital signature","server auth"]: server auth"#
        );
    }

    #[test]
    fn forbidden_san_types_are_one_problem_per_entry_in_order() {
        let sans = RawSans {
            directory_names: 1,
            registered_ids: 2,
            ..RawSans::default()
        };
        let allowed = SPEC.child("allowed");
        let path = allowed.child("subjectAltName");
        assert_eq!(
            messages(&forbidden_sans(&sans, &path)),
            [
                r#"spec.allowed.subjectAltName.directoryName: Invalid value: "directoryName": directoryName SAN entries are not permitted"#,
                r#"spec.allowed.subjectAltName.registeredID: Invalid value: "registeredID": registeredID SAN entries are not permitted"#,
                r#"spec.allowed.subjectAltName.registeredID: Invalid value: "registeredID": registeredID SAN entries are not permitted"#,
            ]
        );
    }

    #[test]
    fn an_absent_duration_fails_both_bounds() {
        let hour = GoDuration::parse("1h").unwrap();
        let c = Constraints {
            min_duration: Some(hour),
            max_duration: Some(hour),
            private_key: None,
        };
        let fp = SPEC.child("constraints");
        assert_eq!(
            messages(&duration(&Request::default(), &c, &fp)),
            [
                r#"spec.constraints.maxDuration: Invalid value: "nil": 1h0m0s"#,
                r#"spec.constraints.minDuration: Invalid value: "nil": 1h0m0s"#,
            ]
        );
        let exact = Request {
            duration: Some(hour),
            ..Request::default()
        };
        assert!(duration(&exact, &c, &fp).is_empty());
    }
}
