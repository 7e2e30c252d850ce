//! cert-manager approver-policy's `CertificateRequestPolicy` evaluated at admission time.
//!
//! [`Policies::compile`] reads and validates CertificateRequestPolicy documents as the API
//! server and approver-policy's webhook would; [`Policies::evaluate`] answers a
//! CertificateRequest CREATE as approver-policy v0.27's manager would review it: selection by
//! `issuerRef` and `namespace`, the RBAC `use` check, then the `allowed` and `constraints`
//! evaluators on every selected policy in name order, the first that nothing denies approving.
//! Messages are approver-policy's, to the letter.
//!
//! Pure: no I/O, no clock; cluster knowledge (namespace labels, authorization answers) comes
//! from the host's [`Cluster`].

mod asn1;
mod cel;
mod csr;
mod ec;
mod evaluate;
mod gofmt;
mod gourl;
mod policy;
mod wildcard;

use std::collections::BTreeMap;

use palisade_json::{Doc, Item, Ref};
use serde_json::Value;

use crate::evaluate::{Outcome, Request};
use crate::gofmt::GoDuration;
use crate::policy::Policy;
use palisade_cel_kubernetes::cluster::{AccessQuery, Cluster};
use palisade_cel_kubernetes::field::{self, Error as FieldErr};

/// What to answer when no CertificateRequestPolicy exists or none selects the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unmatched {
    /// Deny with approver-policy's "No CertificateRequestPolicies …" message (default).
    #[default]
    Deny,
    /// Let the request through ([`Decision::Unmatched`]).
    Allow,
}

/// The bundle's `certificateRequests:` settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub unmatched: Unmatched,
    /// approver-policy's RBAC check that the requester may `use` a policy (default true).
    pub require_use_permission: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            unmatched: Unmatched::Deny,
            require_use_permission: true,
        }
    }
}

/// A problem in a CertificateRequestPolicy: `path` relative to the document
/// (`spec.allowed.dnsNames.values`), `message` in Kubernetes field-error wording without the
/// path (`Required value: …`, `Invalid value: "x": …`). `Display` joins them with `: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for FieldError {}

impl From<FieldErr> for FieldError {
    fn from(e: FieldErr) -> Self {
        FieldError {
            path: e.field.clone(),
            message: e.body(),
        }
    }
}

/// The verdict on one CertificateRequest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Approved by the named policy.
    Approved { policy: String },
    /// Denied, with approver-policy's message (including `No CertificateRequestPolicies …`
    /// under `unmatched: Deny`).
    Denied { message: String },
    /// The request could not be evaluated (undecodable CSR, missing namespace, host error…):
    /// approver-policy would neither approve nor deny. Palisade denies with code 403 (docs/architecture.md).
    Error { message: String },
    /// No policy exists or selects the request and the bundle says `unmatched: Allow`;
    /// the message is approver-policy's reason.
    Unmatched { message: String },
}

/// Compiled CertificateRequestPolicies of one bundle.
#[derive(Debug, Clone)]
pub struct Policies {
    /// sorted by name, as the API server lists them
    policies: Vec<Compiled>,
    settings: Settings,
}

#[derive(Debug, Clone)]
struct Compiled {
    policy: Policy,
    labels: Option<palisade_matching::LabelSelector>,
}

const NO_POLICIES: &str = "No CertificateRequestPolicies exist";
const NONE_APPLICABLE: &str = "No CertificateRequestPolicies bound or applicable";

impl Policies {
    /// `docs` = (index in the bundle's `policies` list, the CertificateRequestPolicy JSON).
    /// Validates each as the CRD schema and approver-policy's webhook do; every problem,
    /// with its path relative to the document.
    pub fn compile(
        docs: &[(usize, &Value)],
        settings: Settings,
    ) -> Result<Self, Vec<(usize, FieldError)>> {
        let mut all: Vec<(usize, FieldError)> = Vec::new();
        Self::compile_reporting(docs, settings, usize::MAX, |doc, e| all.push((doc, e))).ok_or(all)
    }

    /// [`Policies::compile`], handing each problem to `report` as it is found, not keeping any: a caller that lists
    /// only so many (Palisade's bundle) keeps only those. `None` when there was one. The policies' CEL rules may
    /// come to at most `cel_budget` bytes (in Palisade's bundle, palisade-cel's `MAX_BUNDLE_SOURCE_BYTES`, less what
    /// the rest of the bundle spent): the policy whose rules go past it is reported and none after it is compiled.
    pub fn compile_reporting(
        docs: &[(usize, &Value)],
        settings: Settings,
        mut cel_budget: usize,
        mut report: impl FnMut(usize, FieldError),
    ) -> Option<Self> {
        let mut failed = false;
        let mut past_budget = false;
        let mut policies: Vec<Compiled> = Vec::new();
        // names seen, with the document each was first seen in (a map, as a bundle may hold tens of thousands of
        // policies; the map type the CEL parser already links, with only the methods it uses, for palisade.wasm's size)
        let mut names: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for (idx, doc) in docs {
            let mut errs: Vec<FieldErr> = Vec::new();
            let parsed = policy::read(doc, &mut errs);
            if let Some(mut p) = parsed {
                if p.cel_bytes > cel_budget {
                    // not compiled: past the bundle's CEL limit
                    failed = true;
                    cel_budget = 0;
                    if !past_budget {
                        past_budget = true;
                        report(
                            *idx,
                            FieldError {
                                path: "spec.allowed".to_owned(),
                                message: cel::past_bundle_limit(),
                            },
                        );
                    }
                    continue;
                }
                cel_budget -= p.cel_bytes;
                if errs.is_empty() {
                    policy::validate(&mut p, &mut errs);
                }
                let taken = names.contains_key(&p.name);
                if !taken {
                    names.insert(p.name.clone(), *idx);
                }
                if !p.name.is_empty() && taken {
                    errs.push(FieldErr::invalid(
                        &field::Path::new("metadata.name"),
                        field::BadValue::Str(p.name.clone()),
                        "a CertificateRequestPolicy with this name is already in the bundle",
                    ));
                }
                let labels = match p.namespace.as_ref().and_then(|n| n.match_labels.as_ref()) {
                    Some(l) if errs.is_empty() => {
                        let json = serde_json::json!({ "matchLabels": policy::labels_json(l) });
                        match palisade_matching::LabelSelector::parse(
                            &json,
                            "spec.selector.namespace",
                        ) {
                            Ok(s) => Some(s),
                            Err(es) => {
                                for e in es {
                                    failed = true;
                                    report(
                                        *idx,
                                        FieldError {
                                            path: e.path.clone(),
                                            message: e.to_string(),
                                        },
                                    );
                                }
                                None
                            }
                        }
                    }
                    _ => None,
                };
                if errs.is_empty() {
                    policies.push(Compiled { policy: p, labels });
                }
            }
            // duplicates collapsed, as ToAggregate does
            let texts: Vec<String> = errs.iter().map(ToString::to_string).collect();
            let keep = palisade_cel_kubernetes::errors::first_of_each(&texts);
            let mut keep = keep.into_iter().peekable();
            for (i, e) in errs.into_iter().enumerate() {
                if keep.next_if_eq(&i).is_some() {
                    failed = true;
                    report(*idx, e.into());
                }
            }
        }
        if failed {
            return None;
        }
        palisade_json::sort::sort_by(&mut policies, |a, b| a.policy.name.cmp(&b.policy.name));
        Some(Policies { policies, settings })
    }

    /// No CertificateRequestPolicy in the bundle.
    pub fn is_empty(&self) -> bool {
        self.policies.is_empty()
    }

    /// Names of the compiled policies, in evaluation order.
    pub fn names(&self) -> Vec<&str> {
        self.policies
            .iter()
            .map(|p| p.policy.name.as_str())
            .collect()
    }

    /// `cr` = the CertificateRequest object (cert-manager.io/v1) from a CREATE request.
    ///
    /// As approver-policy's manager reviews it: the policies that select the request (issuerRef, namespace, RBAC
    /// `use`), then the evaluators on each in name order; the first that nothing denies approves.
    pub fn evaluate(&self, cr: &Value, host: &dyn Cluster) -> Decision {
        match Doc::from_value(cr) {
            Ok(doc) => self.evaluate_doc(doc.root(), host),
            Err(e) => Decision::Error {
                message: format!("{READ_PREFIX}{}", e.message),
            },
        }
    }

    /// [`Policies::evaluate`] of a CertificateRequest read into a tape (the engine's reading of the review): the
    /// fields approver-policy reads are taken from it directly, nothing else is converted.
    pub fn evaluate_doc(&self, cr: Ref<'_>, host: &dyn Cluster) -> Decision {
        if self.policies.is_empty() {
            return self.unmatched(NO_POLICIES);
        }
        let req = match read_request(cr) {
            Ok(r) => r,
            Err(message) => return Decision::Error { message },
        };
        let selected = match self.select(&req, host) {
            Ok(selected) => selected,
            Err(message) => return Decision::Error { message },
        };
        if selected.is_empty() {
            return self.unmatched(NONE_APPLICABLE);
        }
        match review(&selected, &req) {
            Ok(decision) => decision,
            Err(message) => Decision::Error { message },
        }
    }

    /// The policies that select the request, by the manager's predicates in order: issuerRef, namespace, then (when
    /// required) RBAC `use`. `Err` is the message of a predicate the host could not answer.
    fn select(&self, req: &Request<'_>, host: &dyn Cluster) -> Result<Vec<&Compiled>, String> {
        let by_issuer = self
            .policies
            .iter()
            .filter(|p| issuer_matches(&p.policy, req));
        let mut labels: Option<BTreeMap<String, String>> = None;
        let mut selected = Vec::new();
        for p in by_issuer {
            if namespace_matches(p, req, &mut labels, host)? {
                selected.push(p);
            }
        }
        if !self.settings.require_use_permission {
            return Ok(selected);
        }
        let mut bound = Vec::with_capacity(selected.len());
        for p in selected {
            if may_use(&p.policy, req, host)? {
                bound.push(p);
            }
        }
        Ok(bound)
    }

    fn unmatched(&self, message: &str) -> Decision {
        match self.settings.unmatched {
            Unmatched::Deny => Decision::Denied {
                message: message.to_owned(),
            },
            Unmatched::Allow => Decision::Unmatched {
                message: message.to_owned(),
            },
        }
    }
}

/// The evaluators on each selected policy in name order: the first that nothing denies approves; otherwise a denial
/// naming every policy with its messages. `Err` is an evaluation error (a CSR that cannot be decoded, an
/// unrecognised key).
fn review(selected: &[&Compiled], req: &Request<'_>) -> Result<Decision, String> {
    let csr = csr::decode_spec_request(req.request)?;
    let mut denials: Vec<(String, String)> = Vec::new();
    for p in selected {
        match evaluate_policy(&p.policy, req, &csr)? {
            None => {
                return Ok(Decision::Approved {
                    policy: p.policy.name.clone(),
                });
            }
            Some(message) => denials.push((p.policy.name.clone(), message)),
        }
    }
    Ok(Decision::Denied {
        message: denied_message(denials),
    })
}

/// One policy's evaluators, `allowed` then `constraints`: `None` when neither denies, otherwise their messages.
fn evaluate_policy(
    policy: &Policy,
    req: &Request<'_>,
    csr: &csr::Csr,
) -> Result<Option<String>, String> {
    let mut messages: Vec<String> = Vec::new();
    if let Outcome::Denied(m) = evaluate::evaluate_allowed(policy, req, csr) {
        messages.push(m);
    }
    if let Outcome::Denied(m) = evaluate::evaluate_constraints(policy, req, Ok(csr))? {
        messages.push(m);
    }
    Ok(if messages.is_empty() {
        None
    } else {
        Some(messages.join(", "))
    })
}

/// approver-policy's denial: `No policy approved this request: [name: messages] …`, by policy name.
fn denied_message(mut denials: Vec<(String, String)>) -> String {
    palisade_json::sort::sort_by(&mut denials, |a, b| a.0.cmp(&b.0));
    let parts: Vec<String> = denials.iter().map(|(n, m)| format!("[{n}: {m}]")).collect();
    format!("No policy approved this request: {}", parts.join(" "))
}

/// The namespace predicate: `matchNames` (wildcards), then `matchLabels` against the request namespace's labels,
/// asked of the host once (`labels` keeps them for the next policy). A policy without a namespace selector matches.
fn namespace_matches(
    p: &Compiled,
    req: &Request<'_>,
    labels: &mut Option<BTreeMap<String, String>>,
    host: &dyn Cluster,
) -> Result<bool, String> {
    let Some(ns) = &p.policy.namespace else {
        return Ok(true);
    };
    let name_ok = ns.match_names.is_empty()
        || ns
            .match_names
            .iter()
            .any(|m| wildcard::matches(m, req.namespace));
    if !name_ok {
        return Ok(false);
    }
    if ns.match_labels.is_none() {
        return Ok(true);
    }
    if labels.is_none() {
        *labels = Some(namespace_labels(req, host)?);
    }
    Ok(match (&p.labels, labels.as_ref()) {
        (Some(sel), Some(l)) => sel.matches(l),
        _ => false,
    })
}

/// The labels of the request's namespace; `Err` in approver-policy's words when it does not exist or the host
/// cannot answer.
fn namespace_labels(
    req: &Request<'_>,
    host: &dyn Cluster,
) -> Result<BTreeMap<String, String>, String> {
    const PREFIX: &str = "failed to perform predicate on policies: failed to get request's namespace to determine namespace selector";
    match host.namespace_labels(req.namespace) {
        Ok(Some(l)) => Ok(l),
        Ok(None) => Err(format!(
            "{PREFIX}: namespaces {} not found",
            gofmt::go_quote(req.namespace)
        )),
        Err(e) => Err(format!("{PREFIX}: {e}")),
    }
}

/// The RBAC predicate: may the requester `use` the policy in the request's namespace (one SubjectAccessReview).
fn may_use(policy: &Policy, req: &Request<'_>, host: &dyn Cluster) -> Result<bool, String> {
    // the SubjectAccessReview approver-policy creates for each candidate policy: a single review with the namespace
    // set, as v0.27's `RBACBound` predicate does (Kubernetes answers it from the namespace's RoleBindings and from
    // ClusterRoleBindings alike, so a host must consult both)
    let check = AccessQuery {
        user: req.username.to_owned(),
        groups: req.groups.iter().map(|g| (*g).to_owned()).collect(),
        uid: req.uid.to_owned(),
        extra: req.extra.clone(),
        verb: "use".to_owned(),
        api_group: "policy.cert-manager.io".to_owned(),
        resource: "certificaterequestpolicies".to_owned(),
        name: policy.name.clone(),
        namespace: req.namespace.to_owned(),
        ..AccessQuery::default()
    };
    host.authorize(&check)
        .map(|access| access.allowed)
        .map_err(|e| {
            format!(
                "failed to perform predicate on policies: failed to create subjectaccessreview: {e}"
            )
        })
}

fn issuer_matches(p: &Policy, req: &Request<'_>) -> bool {
    let Some(sel) = &p.issuer_ref else {
        return true;
    };
    let kind = if req.issuer_kind.is_empty() {
        "Issuer"
    } else {
        req.issuer_kind
    };
    let group = if req.issuer_group.is_empty() {
        "cert-manager.io"
    } else {
        req.issuer_group
    };
    sel.name
        .as_ref()
        .is_none_or(|n| wildcard::matches(n, req.issuer_name))
        && sel.kind.as_ref().is_none_or(|k| wildcard::matches(k, kind))
        && sel
            .group
            .as_ref()
            .is_none_or(|g| wildcard::matches(g, group))
}

/// What a refused CertificateRequest's message starts with.
const READ_PREFIX: &str = "the CertificateRequest cannot be read: ";

/// The object `r` is, if it is one.
fn object(r: Ref<'_>) -> Option<Ref<'_>> {
    matches!(r.item(), Item::Object(_)).then_some(r)
}

/// The string at `key` of the object `v` (at `path`), borrowed: empty when absent or null.
fn str_at<'a>(v: Option<Ref<'a>>, path: &str, key: &str) -> Result<&'a str, String> {
    match v.and_then(|v| v.member(key)).map(Ref::item) {
        None | Some(Item::Null) => Ok(""),
        Some(Item::Str(s)) => Ok(s),
        Some(_) => Err(format!(
            "{}: must be a string",
            field::Path::new(path).child(key)
        )),
    }
}

/// The list of strings at `key` of the object `v` (at `path`), borrowed: empty when absent or null.
fn strings_at<'a>(v: Option<Ref<'a>>, path: &str, key: &str) -> Result<Vec<&'a str>, String> {
    let wrong = || {
        format!(
            "{}: must be a list of strings",
            field::Path::new(path).child(key)
        )
    };
    match v.and_then(|v| v.member(key)).map(Ref::item) {
        None | Some(Item::Null) => Ok(Vec::new()),
        Some(Item::Array(a)) => a.elements().map(|x| x.as_str().ok_or_else(wrong)).collect(),
        Some(_) => Err(wrong()),
    }
}

/// The CertificateRequest fields approver-policy reads; `Err` when the object is not one
/// the API server would have accepted.
fn read_request(cr: Ref<'_>) -> Result<Request<'_>, String> {
    let wrap = |e: String| format!("{READ_PREFIX}{e}");
    let Some(cr) = object(cr) else {
        return Err(wrap("it is not an object".to_owned()));
    };
    let meta = cr.member("metadata").and_then(object);
    let spec = cr
        .member("spec")
        .and_then(object)
        .ok_or_else(|| wrap("spec: Required value".to_owned()))?;
    let issuer = spec.member("issuerRef").and_then(object);
    let duration = match spec.member("duration").map(Ref::item) {
        None | Some(Item::Null) => None,
        Some(Item::Str(s)) => {
            Some(GoDuration::parse(s).map_err(|e| wrap(format!("spec.duration: {e}")))?)
        }
        Some(_) => return Err(wrap("spec.duration: must be a string".to_owned())),
    };
    let is_ca = match spec.member("isCA").map(Ref::item) {
        None | Some(Item::Null) => false,
        Some(Item::Bool(b)) => b,
        Some(_) => return Err(wrap("spec.isCA: must be a boolean".to_owned())),
    };
    // a key written twice: its last value, as serde_json reads it
    let mut extra = BTreeMap::new();
    if let Some(m) = spec.member("extra").and_then(object) {
        for (k, v) in m.members() {
            let list = match v.item() {
                Item::Array(a) => a
                    .elements()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .collect(),
                Item::Str(s) => vec![s.to_owned()],
                _ => Vec::new(),
            };
            extra.insert(k.to_owned(), list);
        }
    }
    let spec = Some(spec);
    Ok(Request {
        name: str_at(meta, "metadata", "name").map_err(wrap)?,
        namespace: str_at(meta, "metadata", "namespace").map_err(wrap)?,
        username: str_at(spec, "spec", "username").map_err(wrap)?,
        groups: strings_at(spec, "spec", "groups").map_err(wrap)?,
        uid: str_at(spec, "spec", "uid").map_err(wrap)?,
        extra,
        is_ca,
        usages: strings_at(spec, "spec", "usages").map_err(wrap)?,
        duration,
        request: str_at(spec, "spec", "request").map_err(wrap)?,
        issuer_name: str_at(issuer, "spec.issuerRef", "name").map_err(wrap)?,
        issuer_kind: str_at(issuer, "spec.issuerRef", "kind").map_err(wrap)?,
        issuer_group: str_at(issuer, "spec.issuerRef", "group").map_err(wrap)?,
    })
}

/// Building blocks exposed for this crate's integration tests (the ported upstream tables);
/// not part of the supported API.
#[doc(hidden)]
pub mod internals {
    /// approver-policy `util.WildcardMatches`.
    pub fn wildcard_matches(pattern: &str, s: &str) -> bool {
        crate::wildcard::matches(pattern, s)
    }
    /// approver-policy `util.WildcardContains`.
    pub fn wildcard_contains(patterns: &[String], s: &str) -> bool {
        crate::wildcard::contains(patterns, s)
    }
    /// approver-policy `util.WildcardSubset`.
    pub fn wildcard_subset(patterns: &[String], members: &[String]) -> bool {
        crate::wildcard::subset(patterns, members)
    }
    /// `time.ParseDuration` then `Duration.String()`.
    pub fn go_duration_roundtrip(s: &str) -> Result<String, String> {
        crate::gofmt::GoDuration::parse(s).map(|d| d.to_string())
    }
    /// `strconv.Quote`.
    pub fn go_quote(s: &str) -> String {
        crate::gofmt::go_quote(s)
    }
    /// `url.Parse(s).String()`.
    pub fn go_url(s: &str) -> Result<String, String> {
        crate::gourl::parse(s).map(|u| u.string)
    }
    /// `net.IP(b).String()`.
    pub fn go_ip(b: &[u8]) -> Option<String> {
        crate::gofmt::go_ip_string(b)
    }
    /// Decodes `spec.request` the way approver-policy does; `Ok` with a summary
    /// (DNS names, IPs, URIs, emails) or the error.
    pub fn decode_request(b64: &str) -> Result<Vec<String>, String> {
        let c = crate::csr::decode_spec_request(b64)?;
        let mut out = Vec::new();
        out.extend(c.dns_names.iter().map(|d| format!("dns:{d}")));
        out.extend(c.ips.iter().map(|d| format!("ip:{d}")));
        out.extend(c.uris.iter().map(|d| format!("uri:{d}")));
        out.extend(c.emails.iter().map(|d| format!("email:{d}")));
        Ok(out)
    }
}
