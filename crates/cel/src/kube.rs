//! The Kubernetes value libraries (quantity, semver, ip, cidr, url, format) from
//! `palisade-cel-kubernetes`: their value type ([`KubeValue`]) and their declarations for the checker. Their
//! evaluation is [`crate::functions`].
//! Upstream: k8s.io/apiserver/pkg/cel/library/{quantity,semverlib,ip,cidr,urls,format}.go

use std::fmt;

use cel_core::{CelType, FunctionDecl, OverloadDecl};
use palisade_cel_kubernetes::cidr::Cidr;
use palisade_cel_kubernetes::format::Format;
use palisade_cel_kubernetes::ip::Ip;
use palisade_cel_kubernetes::quantity::Quantity;
use palisade_cel_kubernetes::semver::Semver;
use palisade_cel_kubernetes::url::Url;

pub(crate) const T_QUANTITY: &str = "kubernetes.Quantity";
pub(crate) const T_SEMVER: &str = "kubernetes.Semver";
pub(crate) const T_IP: &str = "net.IP";
pub(crate) const T_CIDR: &str = "net.CIDR";
pub(crate) const T_URL: &str = "kubernetes.URL";
pub(crate) const T_FORMAT: &str = "kubernetes.NamedFormat";

/// Type names usable as type constants (`type(ip("::1")) == net.IP`).
pub(crate) const TYPE_NAMES: &[&str] = &[T_QUANTITY, T_SEMVER, T_IP, T_CIDR, T_URL, T_FORMAT];

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

    pub(crate) fn equals(&self, other: &KubeValue) -> bool {
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
    pub(crate) fn to_cel_string(&self) -> Option<String> {
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

fn abs(name: &str) -> CelType {
    CelType::abstract_type(name, &[])
}

fn f(name: &str, id: &str, params: Vec<CelType>, result: CelType) -> FunctionDecl {
    FunctionDecl::new(name).with_overload(OverloadDecl::function(id, params, result))
}

fn m(name: &str, id: &str, params: Vec<CelType>, result: CelType) -> FunctionDecl {
    FunctionDecl::new(name).with_overload(OverloadDecl::method(id, params, result))
}

/// Checker declarations, with upstream's overload ids.
pub(crate) fn decls() -> Vec<FunctionDecl> {
    use CelType::{Bool, Double, Int, String as Str};
    let q = || abs(T_QUANTITY);
    let s = || abs(T_SEMVER);
    let ipt = || abs(T_IP);
    let c = || abs(T_CIDR);
    let u = || abs(T_URL);
    let fm = || abs(T_FORMAT);
    let mut v = vec![
        // quantity.go
        f("quantity", "string_to_quantity", vec![Str], q()),
        f("isQuantity", "is_quantity_string", vec![Str], Bool),
        m("sign", "quantity_sign", vec![q()], Int),
        m("isInteger", "quantity_is_integer", vec![q()], Bool),
        m("asInteger", "quantity_as_integer", vec![q()], Int),
        m("asApproximateFloat", "quantity_as_float", vec![q()], Double),
        FunctionDecl::new("add")
            .with_overload(OverloadDecl::method("quantity_add", vec![q(), q()], q()))
            .with_overload(OverloadDecl::method(
                "quantity_add_int",
                vec![q(), Int],
                q(),
            )),
        FunctionDecl::new("sub")
            .with_overload(OverloadDecl::method("quantity_sub", vec![q(), q()], q()))
            .with_overload(OverloadDecl::method(
                "quantity_sub_int",
                vec![q(), Int],
                q(),
            )),
        FunctionDecl::new("isLessThan")
            .with_overload(OverloadDecl::method(
                "quantity_is_less_than",
                vec![q(), q()],
                Bool,
            ))
            .with_overload(OverloadDecl::method(
                "semver_is_less_than",
                vec![s(), s()],
                Bool,
            )),
        FunctionDecl::new("isGreaterThan")
            .with_overload(OverloadDecl::method(
                "quantity_is_greater_than",
                vec![q(), q()],
                Bool,
            ))
            .with_overload(OverloadDecl::method(
                "semver_is_greater_than",
                vec![s(), s()],
                Bool,
            )),
        FunctionDecl::new("compareTo")
            .with_overload(OverloadDecl::method(
                "quantity_compare_to",
                vec![q(), q()],
                Int,
            ))
            .with_overload(OverloadDecl::method(
                "semver_compare_to",
                vec![s(), s()],
                Int,
            )),
        // semverlib.go
        FunctionDecl::new("semver")
            .with_overload(OverloadDecl::function("string_to_semver", vec![Str], s()))
            .with_overload(OverloadDecl::function(
                "string_bool_to_semver",
                vec![Str, Bool],
                s(),
            )),
        FunctionDecl::new("isSemver")
            .with_overload(OverloadDecl::function("is_semver_string", vec![Str], Bool))
            .with_overload(OverloadDecl::function(
                "is_semver_string_bool",
                vec![Str, Bool],
                Bool,
            )),
        m("major", "semver_major", vec![s()], Int),
        m("minor", "semver_minor", vec![s()], Int),
        m("patch", "semver_patch", vec![s()], Int),
        // ip.go
        f("ip", "string_to_ip", vec![Str], ipt()),
        f("isIP", "is_ip", vec![Str], Bool),
        f("ip.isCanonical", "ip_is_canonical", vec![Str], Bool),
        m("family", "ip_family", vec![ipt()], Int),
        m("isUnspecified", "ip_is_unspecified", vec![ipt()], Bool),
        m("isLoopback", "ip_is_loopback", vec![ipt()], Bool),
        m(
            "isLinkLocalMulticast",
            "ip_is_link_local_multicast",
            vec![ipt()],
            Bool,
        ),
        m(
            "isLinkLocalUnicast",
            "ip_is_link_local_unicast",
            vec![ipt()],
            Bool,
        ),
        m("isGlobalUnicast", "ip_is_global_unicast", vec![ipt()], Bool),
        FunctionDecl::new("string")
            .with_overload(OverloadDecl::function("ip_to_string", vec![ipt()], Str))
            .with_overload(OverloadDecl::function("cidr_to_string", vec![c()], Str)),
        // cidr.go
        f("cidr", "string_to_cidr", vec![Str], c()),
        f("isCIDR", "is_cidr", vec![Str], Bool),
        FunctionDecl::new("containsIP")
            .with_overload(OverloadDecl::method(
                "cidr_contains_ip_string",
                vec![c(), Str],
                Bool,
            ))
            .with_overload(OverloadDecl::method(
                "cidr_contains_ip_ip",
                vec![c(), ipt()],
                Bool,
            )),
        FunctionDecl::new("containsCIDR")
            .with_overload(OverloadDecl::method(
                "cidr_contains_cidr_string",
                vec![c(), Str],
                Bool,
            ))
            .with_overload(OverloadDecl::method(
                "cidr_contains_cidr",
                vec![c(), c()],
                Bool,
            )),
        m("ip", "cidr_ip", vec![c()], ipt()),
        m("prefixLength", "cidr_prefix_length", vec![c()], Int),
        m("masked", "cidr_masked", vec![c()], c()),
        // urls.go
        f("url", "string_to_url", vec![Str], u()),
        f("isURL", "is_url_string", vec![Str], Bool),
        m("getScheme", "url_get_scheme", vec![u()], Str),
        m("getHost", "url_get_host", vec![u()], Str),
        m("getHostname", "url_get_hostname", vec![u()], Str),
        m("getPort", "url_get_port", vec![u()], Str),
        m("getEscapedPath", "url_get_escaped_path", vec![u()], Str),
        m(
            "getQuery",
            "url_get_query",
            vec![u()],
            CelType::map(Str, CelType::list(Str)),
        ),
        // format.go
        f(
            "format.named",
            "format-named",
            vec![Str],
            CelType::optional(fm()),
        ),
        m(
            "validate",
            "format-validate",
            vec![fm(), Str],
            CelType::optional(CelType::list(Str)),
        ),
    ];
    for format in Format::all() {
        let name = format!("format.{}", format.cel_name());
        v.push(f(
            &name,
            &format!("format-{}", format.cel_name()),
            vec![],
            fm(),
        ));
    }
    v
}
