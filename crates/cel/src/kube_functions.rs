//! The evaluation of the Kubernetes value libraries' functions (quantity, semver, ip, cidr, url, format) over
//! [`KubeValue`]s; their declarations and the value type are in [`crate::kube`].
//! Upstream: k8s.io/apiserver/pkg/cel/library/{quantity,semverlib,ip,cidr,urls,format}.go

use std::fmt;
use std::rc::Rc;

use palisade_cel_kubernetes::cidr::{self, Cidr};
use palisade_cel_kubernetes::format::Format;
use palisade_cel_kubernetes::ip::{self, Ip};
use palisade_cel_kubernetes::quantity::{self, Quantity};
use palisade_cel_kubernetes::semver::{self, Semver};
use palisade_cel_kubernetes::url::{self, Url};

use crate::error::EvalError;
use crate::kube::KubeValue;
use crate::value::Value;

fn kv<'a>(k: KubeValue) -> Value<'a> {
    Value::Kube(Rc::new(k))
}

fn err(e: impl fmt::Display) -> EvalError {
    EvalError::new(e.to_string())
}

fn s_arg<'v>(args: &'v [Value<'_>], i: usize) -> Option<&'v str> {
    match args.get(i) {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => None,
    }
}

fn optional_list<'a>(problems: Vec<String>) -> Value<'a> {
    if problems.is_empty() {
        Value::Optional(None)
    } else {
        Value::Optional(Some(Rc::new(Value::list(
            problems.into_iter().map(Value::string).collect(),
        ))))
    }
}

/// Global functions; `None` when `name` is not one of ours.
pub(crate) fn global<'a>(name: &str, args: &[Value<'a>]) -> Option<Result<Value<'a>, EvalError>> {
    let s0 = s_arg(args, 0);
    let r = match (name, args.len(), s0) {
        ("quantity", 1, Some(s)) => Quantity::parse(s)
            .map(|q| kv(KubeValue::Quantity(q)))
            .map_err(err),
        ("isQuantity", 1, Some(s)) => Ok(Value::Bool(quantity::is_quantity(s))),
        ("semver", 1, Some(s)) => Semver::parse(s)
            .map(|v| kv(KubeValue::Semver(v)))
            .map_err(err),
        ("semver", 2, Some(s)) => match args.get(1) {
            Some(Value::Bool(n)) => Semver::parse_with(s, *n)
                .map(|v| kv(KubeValue::Semver(v)))
                .map_err(err),
            _ => return None,
        },
        ("isSemver", 1, Some(s)) => Ok(Value::Bool(semver::is_semver(s, false))),
        ("isSemver", 2, Some(s)) => match args.get(1) {
            Some(Value::Bool(n)) => Ok(Value::Bool(semver::is_semver(s, *n))),
            _ => return None,
        },
        ("ip", 1, Some(s)) => Ip::parse(s).map(|v| kv(KubeValue::Ip(v))).map_err(err),
        ("isIP", 1, Some(s)) => Ok(Value::Bool(ip::is_ip(s))),
        ("ip.isCanonical", 1, Some(s)) => ip::is_canonical(s).map(Value::Bool).map_err(err),
        ("cidr", 1, Some(s)) => Cidr::parse(s).map(|v| kv(KubeValue::Cidr(v))).map_err(err),
        ("isCIDR", 1, Some(s)) => Ok(Value::Bool(cidr::is_cidr(s))),
        ("url", 1, Some(s)) => Url::parse(s).map(|v| kv(KubeValue::Url(v))).map_err(err),
        ("isURL", 1, Some(s)) => Ok(Value::Bool(url::is_url(s))),
        ("format.named", 1, Some(s)) => Ok(Value::Optional(
            Format::named(s).map(|f| Rc::new(kv(KubeValue::Format(f)))),
        )),
        (n, 0, _) if n.starts_with("format.") => {
            let f = Format::named(n.trim_start_matches("format."))?;
            Ok(kv(KubeValue::Format(f)))
        }
        _ => return None,
    };
    Some(r)
}

fn other<'v>(args: &'v [Value<'_>]) -> Option<&'v KubeValue> {
    match args.first() {
        Some(Value::Kube(k)) => Some(k),
        _ => None,
    }
}

/// Methods on a Kubernetes value.
pub(crate) fn member<'a>(
    name: &str,
    recv: &KubeValue,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    let nso = || Err(EvalError::no_such_overload());
    match (recv, name, args.len()) {
        (KubeValue::Quantity(q), _, 0) => match name {
            "sign" => Ok(Value::Int(q.sign())),
            "isInteger" => Ok(Value::Bool(q.is_integer())),
            "asInteger" => q.as_integer().map(Value::Int).map_err(err),
            "asApproximateFloat" => Ok(Value::Double(q.as_approximate_float())),
            _ => nso(),
        },
        (KubeValue::Quantity(q), _, 1) => match (name, other(args), args.first()) {
            ("add", Some(KubeValue::Quantity(o)), _) => {
                q.add(o).map(|r| kv(KubeValue::Quantity(r))).map_err(err)
            }
            ("add", None, Some(Value::Int(i))) => q
                .add_int(*i)
                .map(|r| kv(KubeValue::Quantity(r)))
                .map_err(err),
            ("sub", Some(KubeValue::Quantity(o)), _) => {
                q.sub(o).map(|r| kv(KubeValue::Quantity(r))).map_err(err)
            }
            ("sub", None, Some(Value::Int(i))) => q
                .sub_int(*i)
                .map(|r| kv(KubeValue::Quantity(r)))
                .map_err(err),
            ("isLessThan", Some(KubeValue::Quantity(o)), _) => Ok(Value::Bool(q.is_less_than(o))),
            ("isGreaterThan", Some(KubeValue::Quantity(o)), _) => {
                Ok(Value::Bool(q.is_greater_than(o)))
            }
            ("compareTo", Some(KubeValue::Quantity(o)), _) => Ok(Value::Int(q.compare_to(o))),
            _ => nso(),
        },
        (KubeValue::Semver(v), _, 0) => match name {
            "major" => Ok(Value::Int(v.major())),
            "minor" => Ok(Value::Int(v.minor())),
            "patch" => Ok(Value::Int(v.patch())),
            _ => nso(),
        },
        (KubeValue::Semver(v), _, 1) => match (name, other(args)) {
            ("isLessThan", Some(KubeValue::Semver(o))) => Ok(Value::Bool(v.is_less_than(o))),
            ("isGreaterThan", Some(KubeValue::Semver(o))) => Ok(Value::Bool(v.is_greater_than(o))),
            ("compareTo", Some(KubeValue::Semver(o))) => Ok(Value::Int(v.compare_to(o))),
            _ => nso(),
        },
        (KubeValue::Ip(i), _, 0) => match name {
            "family" => Ok(Value::Int(i.family())),
            "isUnspecified" => Ok(Value::Bool(i.is_unspecified())),
            "isLoopback" => Ok(Value::Bool(i.is_loopback())),
            "isLinkLocalMulticast" => Ok(Value::Bool(i.is_link_local_multicast())),
            "isLinkLocalUnicast" => Ok(Value::Bool(i.is_link_local_unicast())),
            "isGlobalUnicast" => Ok(Value::Bool(i.is_global_unicast())),
            _ => nso(),
        },
        (KubeValue::Cidr(c), _, 0) => match name {
            "ip" => Ok(kv(KubeValue::Ip(c.ip()))),
            "prefixLength" => Ok(Value::Int(c.prefix_length())),
            "masked" => Ok(kv(KubeValue::Cidr(c.masked()))),
            _ => nso(),
        },
        (KubeValue::Cidr(c), _, 1) => match (name, args.first()) {
            ("containsIP", Some(Value::String(s))) => {
                c.contains_ip_str(s.as_str()).map(Value::Bool).map_err(err)
            }
            ("containsIP", Some(Value::Kube(k))) => match &**k {
                KubeValue::Ip(i) => Ok(Value::Bool(c.contains_ip(i))),
                _ => nso(),
            },
            ("containsCIDR", Some(Value::String(s))) => c
                .contains_cidr_str(s.as_str())
                .map(Value::Bool)
                .map_err(err),
            ("containsCIDR", Some(Value::Kube(k))) => match &**k {
                KubeValue::Cidr(o) => Ok(Value::Bool(c.contains_cidr(o))),
                _ => nso(),
            },
            _ => nso(),
        },
        (KubeValue::Url(u), _, 0) => match name {
            "getScheme" => Ok(Value::string(u.scheme())),
            "getHost" => Ok(Value::string(u.host())),
            "getHostname" => Ok(Value::string(u.hostname())),
            "getPort" => Ok(Value::string(u.port())),
            "getEscapedPath" => Ok(Value::string(u.escaped_path())),
            "getQuery" => Ok(Value::map(
                u.query()
                    .into_iter()
                    .map(|(k, vs)| {
                        (
                            Value::string(k),
                            Value::list(vs.into_iter().map(Value::string).collect()),
                        )
                    })
                    .collect(),
            )),
            _ => nso(),
        },
        (KubeValue::ServiceAccount(sa), "getName", 0) => Ok(Value::string(sa.name.clone())),
        (KubeValue::ServiceAccount(sa), "getNamespace", 0) => {
            Ok(Value::string(sa.namespace.clone()))
        }
        (KubeValue::Format(f), "validate", 1) => match args.first() {
            Some(Value::String(s)) => Ok(optional_list(f.validate(s.as_str()))),
            _ => nso(),
        },
        _ => nso(),
    }
}
