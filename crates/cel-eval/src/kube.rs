//! The Kubernetes value libraries (quantity, semver, ip, cidr, url, format) from
//! `palisade-cel-kubernetes`: their value type ([`KubeValue`]) and their declarations for the checker. Their
//! evaluation is [`crate::functions`].
//! Upstream: k8s.io/apiserver/pkg/cel/library/{quantity,semverlib,ip,cidr,urls,format}.go

use std::fmt;

use cel_core::{CelType, FunctionDecl, OverloadDecl};

use crate::{rows, signature};
use palisade_cel_kubernetes::cidr::Cidr;
use palisade_cel_kubernetes::format::Format;
use palisade_cel_kubernetes::ip::Ip;
use palisade_cel_kubernetes::quantity::Quantity;
use palisade_cel_kubernetes::semver::Semver;
use palisade_cel_kubernetes::url::Url;

pub const T_QUANTITY: &str = "kubernetes.Quantity";
pub const T_SEMVER: &str = "kubernetes.Semver";
pub const T_IP: &str = "net.IP";
pub const T_CIDR: &str = "net.CIDR";
pub const T_URL: &str = "kubernetes.URL";
pub const T_FORMAT: &str = "kubernetes.NamedFormat";

/// Type names usable as type constants (`type(ip("::1")) == net.IP`).
pub const TYPE_NAMES: &[&str] = &[T_QUANTITY, T_SEMVER, T_IP, T_CIDR, T_URL, T_FORMAT];

/// A Kubernetes library value.
#[derive(Clone, Debug)]
pub enum KubeValue {
    Quantity(Quantity),
    Semver(Semver),
    Ip(Ip),
    Cidr(Cidr),
    Url(Url),
    Format(Format),
    /// approver-policy's `ServiceAccount` (`serviceAccount(username)`).
    ServiceAccount(crate::approver::ServiceAccount),
}

impl KubeValue {
    pub fn type_name(&self) -> &'static str {
        match self {
            KubeValue::Quantity(_) => T_QUANTITY,
            KubeValue::Semver(_) => T_SEMVER,
            KubeValue::Ip(_) => T_IP,
            KubeValue::Cidr(_) => T_CIDR,
            KubeValue::Url(_) => T_URL,
            KubeValue::Format(_) => T_FORMAT,
            KubeValue::ServiceAccount(_) => crate::approver::T_SERVICE_ACCOUNT,
        }
    }

    pub fn equals(&self, other: &KubeValue) -> bool {
        match (self, other) {
            (KubeValue::Quantity(a), KubeValue::Quantity(b)) => a == b,
            (KubeValue::Semver(a), KubeValue::Semver(b)) => a == b,
            (KubeValue::Ip(a), KubeValue::Ip(b)) => a == b,
            (KubeValue::Cidr(a), KubeValue::Cidr(b)) => a == b,
            (KubeValue::Url(a), KubeValue::Url(b)) => a == b,
            (KubeValue::Format(a), KubeValue::Format(b)) => a == b,
            (KubeValue::ServiceAccount(a), KubeValue::ServiceAccount(b)) => a == b,
            _ => false,
        }
    }

    /// `string(ip)`, `string(cidr)`
    pub fn to_cel_string(&self) -> Option<String> {
        match self {
            KubeValue::Ip(i) => Some(i.to_string()),
            KubeValue::Cidr(c) => Some(c.to_string()),
            _ => None,
        }
    }
}

impl fmt::Display for KubeValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KubeValue::Quantity(q) => write!(f, "quantity({:?})", q.to_string()),
            KubeValue::Semver(s) => write!(f, "semver({}.{}.{})", s.major(), s.minor(), s.patch()),
            KubeValue::Ip(i) => write!(f, "ip({:?})", i.to_string()),
            KubeValue::Cidr(c) => write!(f, "cidr({:?})", c.to_string()),
            KubeValue::Url(u) => write!(f, "url({:?})", u.to_string()),
            KubeValue::Format(x) => write!(f, "format.{}()", x.cel_name()),
            KubeValue::ServiceAccount(sa) => {
                write!(
                    f,
                    "serviceAccount({:?})",
                    format!("system:serviceaccount:{}:{}", sa.namespace, sa.name)
                )
            }
        }
    }
}

/// Checker declarations of the libraries, with upstream's overload ids (besides one `format.<name>()` per format).
#[rustfmt::skip]
const ROWS: &str = rows![
    // quantity.go
    ("quantity", "string_to_quantity", false, "string", "kubernetes.Quantity", &[]),
    ("isQuantity", "is_quantity_string", false, "string", "bool", &[]),
    ("sign", "quantity_sign", true, "kubernetes.Quantity", "int", &[]),
    ("isInteger", "quantity_is_integer", true, "kubernetes.Quantity", "bool", &[]),
    ("asInteger", "quantity_as_integer", true, "kubernetes.Quantity", "int", &[]),
    ("asApproximateFloat", "quantity_as_float", true, "kubernetes.Quantity", "double", &[]),
    ("add", "quantity_add", true, "kubernetes.Quantity, kubernetes.Quantity", "kubernetes.Quantity", &[]),
    ("add", "quantity_add_int", true, "kubernetes.Quantity, int", "kubernetes.Quantity", &[]),
    ("sub", "quantity_sub", true, "kubernetes.Quantity, kubernetes.Quantity", "kubernetes.Quantity", &[]),
    ("sub", "quantity_sub_int", true, "kubernetes.Quantity, int", "kubernetes.Quantity", &[]),
    ("isLessThan", "quantity_is_less_than", true, "kubernetes.Quantity, kubernetes.Quantity", "bool", &[]),
    ("isLessThan", "semver_is_less_than", true, "kubernetes.Semver, kubernetes.Semver", "bool", &[]),
    ("isGreaterThan", "quantity_is_greater_than", true, "kubernetes.Quantity, kubernetes.Quantity", "bool", &[]),
    ("isGreaterThan", "semver_is_greater_than", true, "kubernetes.Semver, kubernetes.Semver", "bool", &[]),
    ("compareTo", "quantity_compare_to", true, "kubernetes.Quantity, kubernetes.Quantity", "int", &[]),
    ("compareTo", "semver_compare_to", true, "kubernetes.Semver, kubernetes.Semver", "int", &[]),
    // semverlib.go
    ("semver", "string_to_semver", false, "string", "kubernetes.Semver", &[]),
    ("semver", "string_bool_to_semver", false, "string, bool", "kubernetes.Semver", &[]),
    ("isSemver", "is_semver_string", false, "string", "bool", &[]),
    ("isSemver", "is_semver_string_bool", false, "string, bool", "bool", &[]),
    ("major", "semver_major", true, "kubernetes.Semver", "int", &[]),
    ("minor", "semver_minor", true, "kubernetes.Semver", "int", &[]),
    ("patch", "semver_patch", true, "kubernetes.Semver", "int", &[]),
    // ip.go
    ("ip", "string_to_ip", false, "string", "net.IP", &[]),
    ("isIP", "is_ip", false, "string", "bool", &[]),
    ("ip.isCanonical", "ip_is_canonical", false, "string", "bool", &[]),
    ("family", "ip_family", true, "net.IP", "int", &[]),
    ("isUnspecified", "ip_is_unspecified", true, "net.IP", "bool", &[]),
    ("isLoopback", "ip_is_loopback", true, "net.IP", "bool", &[]),
    ("isLinkLocalMulticast", "ip_is_link_local_multicast", true, "net.IP", "bool", &[]),
    ("isLinkLocalUnicast", "ip_is_link_local_unicast", true, "net.IP", "bool", &[]),
    ("isGlobalUnicast", "ip_is_global_unicast", true, "net.IP", "bool", &[]),
    ("string", "ip_to_string", false, "net.IP", "string", &[]),
    ("string", "cidr_to_string", false, "net.CIDR", "string", &[]),
    // cidr.go
    ("cidr", "string_to_cidr", false, "string", "net.CIDR", &[]),
    ("isCIDR", "is_cidr", false, "string", "bool", &[]),
    ("containsIP", "cidr_contains_ip_string", true, "net.CIDR, string", "bool", &[]),
    ("containsIP", "cidr_contains_ip_ip", true, "net.CIDR, net.IP", "bool", &[]),
    ("containsCIDR", "cidr_contains_cidr_string", true, "net.CIDR, string", "bool", &[]),
    ("containsCIDR", "cidr_contains_cidr", true, "net.CIDR, net.CIDR", "bool", &[]),
    ("ip", "cidr_ip", true, "net.CIDR", "net.IP", &[]),
    ("prefixLength", "cidr_prefix_length", true, "net.CIDR", "int", &[]),
    ("masked", "cidr_masked", true, "net.CIDR", "net.CIDR", &[]),
    // urls.go
    ("url", "string_to_url", false, "string", "kubernetes.URL", &[]),
    ("isURL", "is_url_string", false, "string", "bool", &[]),
    ("getScheme", "url_get_scheme", true, "kubernetes.URL", "string", &[]),
    ("getHost", "url_get_host", true, "kubernetes.URL", "string", &[]),
    ("getHostname", "url_get_hostname", true, "kubernetes.URL", "string", &[]),
    ("getPort", "url_get_port", true, "kubernetes.URL", "string", &[]),
    ("getEscapedPath", "url_get_escaped_path", true, "kubernetes.URL", "string", &[]),
    ("getQuery", "url_get_query", true, "kubernetes.URL", "map(string, list(string))", &[]),
    // format.go
    ("format.named", "format-named", false, "string", "optional_type(kubernetes.NamedFormat)", &[]),
    ("validate", "format-validate", true, "kubernetes.NamedFormat, string", "optional_type(list(string))", &[]),
];

/// Checker declarations, with upstream's overload ids.
pub fn decls() -> Vec<FunctionDecl> {
    let mut v = signature::declare(ROWS);
    for format in Format::all() {
        let name = format!("format.{}", format.cel_name());
        v.push(
            FunctionDecl::new(&name).with_overload(OverloadDecl::function(
                format!("format-{}", format.cel_name()),
                vec![],
                CelType::abstract_type(T_FORMAT, &[]),
            )),
        );
    }
    v
}

#[cfg(test)]
mod tests {
    use cel_core::CelType;

    #[test]
    fn every_declared_type_is_a_library_type() {
        for decl in super::decls() {
            for o in &decl.overloads {
                for t in o.params.iter().chain([&o.result]) {
                    let mut t = t;
                    while let CelType::Optional(inner) | CelType::List(inner) = t {
                        t = inner;
                    }
                    if let CelType::Abstract { name, .. } = t {
                        assert!(super::TYPE_NAMES.contains(&&**name), "{}: {name}", o.id);
                    }
                }
            }
        }
    }
}
