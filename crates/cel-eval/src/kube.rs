//! The Kubernetes value libraries (quantity, semver, ip, cidr, url, format) from
//! `palisade-cel-kubernetes`: their value type ([`KubeValue`]) and their declarations for the checker. Their
//! evaluation is [`crate::functions`].
//! Upstream: k8s.io/apiserver/pkg/cel/library/{quantity,semverlib,ip,cidr,urls,format}.go

use std::fmt;

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
