//! The `allowed` and `constraints` evaluators (approver-policy
//! `pkg/internal/approver/{allowed,constraints}/evaluator.go`).

use crate::cel::CrVars;
use crate::csr::{AttrValue, Csr, PublicKey, unmarshal_sans};
use crate::gofmt::GoDuration;
use crate::policy::{
    Allowed, AllowedSlice, AllowedString, NAMED_SUBJECT_OIDS, OidEntry, Policy, Rule, Subject,
};
use crate::wildcard;
use palisade_cel_kubernetes::field::{BadValue, Error as FieldErr, Path, aggregate};

/// The CertificateRequest fields the evaluators read.
#[derive(Debug, Clone, Default)]
pub(crate) struct Request {
    pub(crate) name: String,
    pub(crate) namespace: String,
    pub(crate) username: String,
    pub(crate) groups: Vec<String>,
    pub(crate) uid: String,
    pub(crate) extra: std::collections::BTreeMap<String, Vec<String>>,
    pub(crate) is_ca: bool,
    pub(crate) usages: Vec<String>,
    /// `spec.duration`: `None` when absent.
    pub(crate) duration: Option<GoDuration>,
    pub(crate) request: String,
    pub(crate) issuer_name: String,
    pub(crate) issuer_kind: String,
    pub(crate) issuer_group: String,
}

/// One evaluator's answer.
pub(crate) enum Outcome {
    NotDenied,
    Denied(String),
}

const NON_STRING: &str = "<non-string value>";
const NON_STRING_DETAIL: &str = "subject attribute uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject";

fn vals(slice: &[String]) -> BadValue {
    BadValue::strings(slice)
}

struct Ctx {
    cr: CrVars,
}

impl Ctx {
    fn run_validations(&self, rules: &[Rule], s: &str, path: &Path) -> Vec<FieldErr> {
        let mut el = Vec::new();
        for (i, v) in rules.iter().enumerate() {
            let ip = path.index(i);
            let Some(program) = &v.program else {
                el.push(FieldErr::internal(&ip, "rule was not compiled"));
                continue;
            };
            match program.validate(s, &self.cr) {
                Err(e) => el.push(FieldErr::internal(&ip, e)),
                Ok(true) => {}
                Ok(false) => {
                    let detail = v
                        .message
                        .clone()
                        .unwrap_or_else(|| format!("failed rule: {}", v.rule));
                    el.push(FieldErr::invalid(&ip, BadValue::Str(s.to_owned()), detail));
                }
            }
        }
        el
    }

    fn evaluate_string(&self, s: &str, crp: Option<&AllowedString>, path: &Path) -> Vec<FieldErr> {
        if s.is_empty() {
            if let Some(c) = crp
                && c.required == Some(true)
            {
                return vec![FieldErr::required(&path.child("required"), "true")];
            }
            return Vec::new();
        }
        let Some(c) = crp.filter(|c| c.value.is_some() || !c.validations.is_empty()) else {
            return vec![FieldErr::invalid(
                &path.clone(),
                BadValue::Str(s.to_owned()),
                "no allowed value",
            )];
        };
        let mut el = Vec::new();
        if let Some(v) = &c.value
            && !wildcard::matches(v, s)
        {
            el.push(FieldErr::invalid(
                &path.child("value"),
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
        path: &Path,
    ) -> Vec<FieldErr> {
        if s.is_empty() {
            if let Some(c) = crp
                && c.required == Some(true)
            {
                return vec![FieldErr::required(&path.child("required"), "true")];
            }
            return Vec::new();
        }
        let Some(c) = crp.filter(|c| c.values.is_some() || !c.validations.is_empty()) else {
            return vec![FieldErr::invalid(
                &path.clone(),
                vals(s),
                "no allowed values",
            )];
        };
        let mut el = Vec::new();
        if let Some(v) = &c.values
            && !wildcard::subset(v, s)
        {
            el.push(FieldErr::invalid(
                &path.child("values"),
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
        path: &Path,
    ) -> Vec<FieldErr> {
        let mut values = Vec::new();
        for atv in csr.rdns.iter().flatten().filter(|a| a.oid == oid) {
            match &atv.value {
                AttrValue::Str(s) => values.push(s.clone()),
                AttrValue::NonString => {
                    return vec![FieldErr::invalid(
                        &path.clone(),
                        BadValue::Str(NON_STRING.to_owned()),
                        format!(
                            "subject attribute {oid} uses an unsupported ASN.1 type or string encoding; re-issue the certificate with a UTF8String or PrintableString subject"
                        ),
                    )];
                }
            }
        }
        match values.as_slice() {
            [] => self.evaluate_string("", crp, path),
            [one] => self.evaluate_string(one, crp, path),
            many => many
                .iter()
                .enumerate()
                .flat_map(|(i, v)| self.evaluate_string(v, crp, &path.index(i)))
                .collect(),
        }
    }

    fn evaluate_oid_entries(
        &self,
        found: &[(String, Vec<String>)],
        entries: &[OidEntry],
        path: &Path,
    ) -> Vec<FieldErr> {
        let mut el = Vec::new();
        for (oid, values) in found {
            let ep = path.key(oid);
            // the last entry with an OID wins, as Go's map build does
            match entries.iter().rev().find(|e| e.oid == *oid) {
                None => el.push(FieldErr::invalid(&ep, vals(values), "no allowed values")),
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

/// The `allowed` evaluator.
pub(crate) fn evaluate_allowed(policy: &Policy, req: &Request, csr: &Csr) -> Outcome {
    let default = Allowed::default();
    let allowed = policy.allowed.as_ref().unwrap_or(&default);
    let fp = Path::new("spec").child("allowed");

    // raw SAN extension walk (cert-manager's UnmarshalSANs), fail closed
    let mut sans = crate::csr::RawSans::default();
    for (i, ext) in csr.san_extensions.iter().enumerate() {
        if i >= 1 {
            return Outcome::Denied(
                "CSR contains multiple SAN extensions; at most one is permitted".to_owned(),
            );
        }
        match unmarshal_sans(ext) {
            Ok(s) => sans = s,
            Err(e) => {
                return Outcome::Denied(format!(
                    "subjectAltName (SAN) extension could not be decoded: {e}"
                ));
            }
        }
    }

    let ctx = Ctx {
        cr: CrVars {
            name: req.name.clone(),
            namespace: req.namespace.clone(),
            username: req.username.clone(),
            groups: req.groups.clone(),
        },
    };
    let mut el: Vec<FieldErr> = Vec::new();

    // CommonName
    el.extend(ctx.evaluate_single(
        csr,
        "2.5.4.3",
        allowed.common_name.as_ref(),
        &fp.child("commonName"),
    ));
    el.extend(ctx.evaluate_slice(
        &csr.dns_names,
        allowed.dns_names.as_ref(),
        &fp.child("dnsNames"),
    ));
    el.extend(ctx.evaluate_slice(
        &csr.ips,
        allowed.ip_addresses.as_ref(),
        &fp.child("ipAddresses"),
    ));
    el.extend(ctx.evaluate_slice(&csr.uris, allowed.uris.as_ref(), &fp.child("uris")));
    el.extend(ctx.evaluate_slice(
        &csr.emails,
        allowed.email_addresses.as_ref(),
        &fp.child("emailAddresses"),
    ));
    // IsCA
    if req.is_ca {
        match allowed.is_ca {
            None => el.push(FieldErr::invalid(
                &fp.child("isCA"),
                BadValue::Bool(true),
                "nil",
            )),
            Some(false) => el.push(FieldErr::invalid(
                &fp.child("isCA"),
                BadValue::Bool(true),
                "false",
            )),
            Some(true) => {}
        }
    }
    // Usages
    if !req.usages.is_empty() {
        match &allowed.usages {
            None => el.push(FieldErr::invalid(
                &fp.child("usages"),
                vals(&req.usages),
                "nil",
            )),
            Some(pol) => {
                if !wildcard::subset(pol, &req.usages) {
                    el.push(FieldErr::invalid(
                        &fp.child("usages"),
                        vals(&req.usages),
                        pol.join(", "),
                    ));
                }
            }
        }
    }
    // OtherNames
    let sp = fp.child("subjectAltName");
    for _ in 0..sans.directory_names {
        el.push(FieldErr::invalid(
            &sp.child("directoryName"),
            BadValue::Str("directoryName".into()),
            "directoryName SAN entries are not permitted",
        ));
    }
    for _ in 0..sans.x400_addresses {
        el.push(FieldErr::invalid(
            &sp.child("x400Address"),
            BadValue::Str("x400Address".into()),
            "x400Address SAN entries are not permitted",
        ));
    }
    for _ in 0..sans.edi_party_names {
        el.push(FieldErr::invalid(
            &sp.child("ediPartyName"),
            BadValue::Str("ediPartyName".into()),
            "ediPartyName SAN entries are not permitted",
        ));
    }
    for _ in 0..sans.registered_ids {
        el.push(FieldErr::invalid(
            &sp.child("registeredID"),
            BadValue::Str("registeredID".into()),
            "registeredID SAN entries are not permitted",
        ));
    }
    let mut by_oid: Vec<(String, Vec<String>)> = Vec::new();
    for (oid, value) in &sans.other_names {
        group_push(&mut by_oid, oid, value.clone());
    }
    let onp = fp.child("otherNames");
    el.extend(ctx.evaluate_oid_entries(&by_oid, &allowed.other_names, &onp));
    for e in &allowed.other_names {
        if e.slice.required == Some(true) && !by_oid.iter().any(|(k, _)| *k == e.oid) {
            el.push(FieldErr::required(
                &onp.key(&e.oid).child("required"),
                "true",
            ));
        }
    }

    // Subject
    let default_sub = Subject::default();
    let sub = allowed.subject.as_ref().unwrap_or(&default_sub);
    let subp = fp.child("subject");
    for (oid, key, slot) in [
        ("2.5.4.10", "organizations", &sub.organizations),
        ("2.5.4.6", "countries", &sub.countries),
        ("2.5.4.11", "organizationalUnits", &sub.organizational_units),
        ("2.5.4.7", "localities", &sub.localities),
        ("2.5.4.8", "provinces", &sub.provinces),
        ("2.5.4.9", "streetAddresses", &sub.street_addresses),
        ("2.5.4.17", "postalCodes", &sub.postal_codes),
    ] {
        el.extend(ctx.evaluate_slice(&csr.subject_strings(oid), slot.as_ref(), &subp.child(key)));
    }
    el.extend(ctx.evaluate_single(
        csr,
        "2.5.4.5",
        sub.serial_number.as_ref(),
        &subp.child("serialNumber"),
    ));
    // OtherAttributes
    let oap = subp.child("otherAttributes");
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut seen: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    for atv in csr.rdns.iter().flatten() {
        if NAMED_SUBJECT_OIDS.contains(&atv.oid.as_str()) {
            if atv.oid == "2.5.4.3" || atv.oid == "2.5.4.5" {
                continue;
            }
            if atv.value == AttrValue::NonString {
                el.push(FieldErr::invalid(
                    &named_path(&subp, &atv.oid),
                    BadValue::Str(NON_STRING.into()),
                    NON_STRING_DETAIL,
                ));
            }
            continue;
        }
        seen.insert(atv.oid.clone());
        match &atv.value {
            AttrValue::NonString => {
                el.push(FieldErr::invalid(
                    &oap.key(&atv.oid),
                    BadValue::Str(NON_STRING.into()),
                    NON_STRING_DETAIL,
                ));
            }
            AttrValue::Str(s) => group_push(&mut found, &atv.oid, s.clone()),
        }
    }
    el.extend(ctx.evaluate_oid_entries(&found, &sub.other_attributes, &oap));
    for e in &sub.other_attributes {
        if e.slice.required == Some(true) && !seen.contains(&e.oid) {
            el.push(FieldErr::required(
                &oap.key(&e.oid).child("required"),
                "true",
            ));
        }
    }

    match aggregate(&el) {
        Some(msg) => Outcome::Denied(msg),
        None => Outcome::NotDenied,
    }
}

fn named_path(subject: &Path, oid: &str) -> Path {
    match oid {
        "2.5.4.3" => Path::new("spec").child("allowed").child("commonName"),
        "2.5.4.5" => subject.child("serialNumber"),
        "2.5.4.6" => subject.child("countries"),
        "2.5.4.7" => subject.child("localities"),
        "2.5.4.8" => subject.child("provinces"),
        "2.5.4.9" => subject.child("streetAddresses"),
        "2.5.4.10" => subject.child("organizations"),
        "2.5.4.11" => subject.child("organizationalUnits"),
        "2.5.4.17" => subject.child("postalCodes"),
        other => subject.child("otherAttributes").key(other),
    }
}

/// The `constraints` evaluator; `Err` is an evaluation error.
pub(crate) fn evaluate_constraints(
    policy: &Policy,
    req: &Request,
    csr: Result<&Csr, &String>,
) -> Result<Outcome, String> {
    let Some(c) = &policy.constraints else {
        return Ok(Outcome::NotDenied);
    };
    let fp = Path::new("spec").child("constraints");
    let mut el = Vec::new();
    let requested = req
        .duration
        .map(|d| d.to_string())
        .unwrap_or_else(|| "nil".to_owned());
    if let Some(max) = c.max_duration
        && req.duration.is_none_or(|d| max < d)
    {
        el.push(FieldErr::invalid(
            &fp.child("maxDuration"),
            BadValue::Str(requested.clone()),
            max.to_string(),
        ));
    }
    if let Some(min) = c.min_duration
        && req.duration.is_none_or(|d| min > d)
    {
        el.push(FieldErr::invalid(
            &fp.child("minDuration"),
            BadValue::Str(requested.clone()),
            min.to_string(),
        ));
    }
    if let Some(k) = &c.private_key {
        let kp = fp.child("privateKey");
        let csr = csr.map_err(Clone::clone)?;
        let (alg, size): (&str, i64) = match &csr.public_key {
            PublicKey::Rsa(bits) => ("RSA", i64::try_from(*bits).unwrap_or(i64::MAX)),
            PublicKey::Ecdsa(bits) => ("ECDSA", i64::try_from(*bits).unwrap_or(i64::MAX)),
            PublicKey::Ed25519 => ("Ed25519", -1),
            PublicKey::Other(t) => return Err(format!("unrecognised public key type {t}")),
        };
        if let Some(want) = &k.algorithm
            && want != alg
        {
            el.push(FieldErr::invalid(
                &kp.child("algorithm"),
                BadValue::Str(alg.to_owned()),
                want.clone(),
            ));
        }
        if let Some(max) = k.max_size
            && max < size
        {
            el.push(FieldErr::invalid(
                &kp.child("maxSize"),
                BadValue::Str(size.to_string()),
                max.to_string(),
            ));
        }
        if let Some(min) = k.min_size
            && min > size
        {
            el.push(FieldErr::invalid(
                &kp.child("minSize"),
                BadValue::Str(size.to_string()),
                min.to_string(),
            ));
        }
    }
    Ok(match aggregate(&el) {
        Some(m) => Outcome::Denied(m),
        None => Outcome::NotDenied,
    })
}
