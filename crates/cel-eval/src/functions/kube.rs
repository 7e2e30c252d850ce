//! The Kubernetes value libraries' functions (quantity, semver, ip, cidr, url, format) and
//! approver-policy's service-account library over [`KubeValue`]s; their declarations and the
//! value type are in [`crate::kube`].
//! Upstream: k8s.io/apiserver/pkg/cel/library/{quantity,semverlib,ip,cidr,urls,format}.go

use std::fmt;
use std::rc::Rc;

use palisade_cel_kubernetes::cidr::{self, Cidr};
use palisade_cel_kubernetes::format::Format;
use palisade_cel_kubernetes::ip::{self, Ip};
use palisade_cel_kubernetes::quantity::{self, Quantity};
use palisade_cel_kubernetes::semver::{self, Semver};
use palisade_cel_kubernetes::url::{self, Url};

use super::args::{REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, ceil_cost, nso, str_arg};
use super::names::{KubeFn, Method};
use crate::cost::Meter;
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

/// library/cost.go `CallCost` for a global function, its first argument of `size`: the parsers
/// (`quantity`, `isQuantity`, `semver`, `isSemver`, `ip`, `isIP`, `cidr`, `isCIDR`, `url`) one
/// traversal of the string, `ip.isCanonical` two (it parses, then compares with the original);
/// `format.named` is a lookup, and the others (`isURL`, `format.<name>()`) are left at 1.
pub fn global_cost(f: KubeFn, size: u64) -> u64 {
    match f {
        KubeFn::Quantity
        | KubeFn::IsQuantity
        | KubeFn::Semver
        | KubeFn::IsSemver
        | KubeFn::Ip
        | KubeFn::IsIp
        | KubeFn::Cidr
        | KubeFn::IsCidr
        | KubeFn::Url => ceil_cost(size, STRING_TRAVERSAL_FACTOR),
        KubeFn::IpIsCanonical => ceil_cost(size, 2.0 * STRING_TRAVERSAL_FACTOR),
        KubeFn::IsUrl | KubeFn::FormatNamed | KubeFn::Format(_) => 1,
    }
}

/// library/cost.go `CallCost` for a method of a Kubernetes value. `containsIP` and
/// `containsCIDR` compare up to the prefix's bytes (the CIDR's size: its prefix length in
/// bytes, rounded up) twice, `containsCIDR` masks and traverses them once more, plus 1, and a
/// string argument is parsed (one traversal). `validate` is a regex match of the string
/// against a pattern of the format's `MaxRegexSize`. The accessors are 1.
pub fn member_cost<'a>(
    ctx: &mut Meter<'_, 'a>,
    method: Method,
    recv: &KubeValue,
    args: &[Value<'a>],
) -> u64 {
    match (recv, method, args.first()) {
        (KubeValue::Cidr(c), Method::ContainsIp | Method::ContainsCidr, Some(arg)) => {
            let bytes = u64::try_from(c.prefix_length()).unwrap_or(0).div_ceil(8);
            let mut cost = ceil_cost(bytes.saturating_mul(2), STRING_TRAVERSAL_FACTOR);
            if method == Method::ContainsCidr {
                cost = cost.saturating_add(ceil_cost(bytes, STRING_TRAVERSAL_FACTOR) + 1);
            }
            if let Value::String(_) = arg {
                cost = cost.saturating_add(ceil_cost(ctx.size(arg), STRING_TRAVERSAL_FACTOR));
            }
            cost
        }
        (KubeValue::Format(f), Method::Validate, Some(arg)) => {
            let s = ctx.size(arg);
            ceil_cost(s.saturating_add(1), STRING_TRAVERSAL_FACTOR)
                .saturating_mul(ceil_cost(f.max_regex_size(), REGEX_LENGTH_FACTOR))
        }
        _ => 1,
    }
}

/// The global functions; `no such overload` for arguments they do not take.
pub fn global<'a>(f: KubeFn, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let s0 = s_arg(args, 0);
    match (f, args.len(), s0) {
        (KubeFn::Quantity, 1, Some(s)) => Quantity::parse(s)
            .map(|q| kv(KubeValue::Quantity(q)))
            .map_err(err),
        (KubeFn::IsQuantity, 1, Some(s)) => Ok(Value::Bool(quantity::is_quantity(s))),
        (KubeFn::Semver, 1, Some(s)) => Semver::parse(s)
            .map(|v| kv(KubeValue::Semver(v)))
            .map_err(err),
        (KubeFn::Semver, 2, Some(s)) => match args.get(1) {
            Some(Value::Bool(n)) => Semver::parse_with(s, *n)
                .map(|v| kv(KubeValue::Semver(v)))
                .map_err(err),
            _ => nso(),
        },
        (KubeFn::IsSemver, 1, Some(s)) => Ok(Value::Bool(semver::is_semver(s, false))),
        (KubeFn::IsSemver, 2, Some(s)) => match args.get(1) {
            Some(Value::Bool(n)) => Ok(Value::Bool(semver::is_semver(s, *n))),
            _ => nso(),
        },
        (KubeFn::Ip, 1, Some(s)) => Ip::parse(s).map(|v| kv(KubeValue::Ip(v))).map_err(err),
        (KubeFn::IsIp, 1, Some(s)) => Ok(Value::Bool(ip::is_ip(s))),
        (KubeFn::IpIsCanonical, 1, Some(s)) => ip::is_canonical(s).map(Value::Bool).map_err(err),
        (KubeFn::Cidr, 1, Some(s)) => Cidr::parse(s).map(|v| kv(KubeValue::Cidr(v))).map_err(err),
        (KubeFn::IsCidr, 1, Some(s)) => Ok(Value::Bool(cidr::is_cidr(s))),
        (KubeFn::Url, 1, Some(s)) => Url::parse(s).map(|v| kv(KubeValue::Url(v))).map_err(err),
        (KubeFn::IsUrl, 1, Some(s)) => Ok(Value::Bool(url::is_url(s))),
        (KubeFn::FormatNamed, 1, Some(s)) => Ok(Value::Optional(
            Format::named(s).map(|f| Rc::new(kv(KubeValue::Format(f)))),
        )),
        // `format.named()` names the format `named`, if there were one
        (KubeFn::FormatNamed, 0, _) => match Format::named("named") {
            Some(f) => Ok(kv(KubeValue::Format(f))),
            None => nso(),
        },
        (KubeFn::Format(Some(f)), 0, _) => Ok(kv(KubeValue::Format(f))),
        _ => nso(),
    }
}

/// approver-policy's `serviceAccount(string)` (declared only in `Env::certificate_request`).
pub fn service_account<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    if args.len() != 1 {
        return nso();
    }
    crate::approver::service_account(str_arg(args, 0)?).map(|sa| kv(KubeValue::ServiceAccount(sa)))
}

/// approver-policy's `isServiceAccount(string)`.
pub fn is_service_account<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    if args.len() != 1 {
        return nso();
    }
    Ok(Value::Bool(crate::approver::is_service_account(str_arg(
        args, 0,
    )?)))
}

fn other<'v>(args: &'v [Value<'_>]) -> Option<&'v KubeValue> {
    match args.first() {
        Some(Value::Kube(k)) => Some(k),
        _ => None,
    }
}

/// Methods on a Kubernetes value.
pub fn member<'a>(
    method: Method,
    recv: &KubeValue,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    match (recv, method, args.len()) {
        (KubeValue::Quantity(q), _, 0) => match method {
            Method::Sign => Ok(Value::Int(q.sign())),
            Method::IsInteger => Ok(Value::Bool(q.is_integer())),
            Method::AsInteger => q.as_integer().map(Value::Int).map_err(err),
            Method::AsApproximateFloat => Ok(Value::Double(q.as_approximate_float())),
            _ => nso(),
        },
        (KubeValue::Quantity(q), _, 1) => match (method, other(args), args.first()) {
            (Method::Add, Some(KubeValue::Quantity(o)), _) => {
                q.add(o).map(|r| kv(KubeValue::Quantity(r))).map_err(err)
            }
            (Method::Add, None, Some(Value::Int(i))) => q
                .add_int(*i)
                .map(|r| kv(KubeValue::Quantity(r)))
                .map_err(err),
            (Method::Sub, Some(KubeValue::Quantity(o)), _) => {
                q.sub(o).map(|r| kv(KubeValue::Quantity(r))).map_err(err)
            }
            (Method::Sub, None, Some(Value::Int(i))) => q
                .sub_int(*i)
                .map(|r| kv(KubeValue::Quantity(r)))
                .map_err(err),
            (Method::IsLessThan, Some(KubeValue::Quantity(o)), _) => {
                Ok(Value::Bool(q.is_less_than(o)))
            }
            (Method::IsGreaterThan, Some(KubeValue::Quantity(o)), _) => {
                Ok(Value::Bool(q.is_greater_than(o)))
            }
            (Method::CompareTo, Some(KubeValue::Quantity(o)), _) => Ok(Value::Int(q.compare_to(o))),
            _ => nso(),
        },
        (KubeValue::Semver(v), _, 0) => match method {
            Method::Major => Ok(Value::Int(v.major())),
            Method::Minor => Ok(Value::Int(v.minor())),
            Method::Patch => Ok(Value::Int(v.patch())),
            _ => nso(),
        },
        (KubeValue::Semver(v), _, 1) => match (method, other(args)) {
            (Method::IsLessThan, Some(KubeValue::Semver(o))) => Ok(Value::Bool(v.is_less_than(o))),
            (Method::IsGreaterThan, Some(KubeValue::Semver(o))) => {
                Ok(Value::Bool(v.is_greater_than(o)))
            }
            (Method::CompareTo, Some(KubeValue::Semver(o))) => Ok(Value::Int(v.compare_to(o))),
            _ => nso(),
        },
        (KubeValue::Ip(i), _, 0) => match method {
            Method::Family => Ok(Value::Int(i.family())),
            Method::IsUnspecified => Ok(Value::Bool(i.is_unspecified())),
            Method::IsLoopback => Ok(Value::Bool(i.is_loopback())),
            Method::IsLinkLocalMulticast => Ok(Value::Bool(i.is_link_local_multicast())),
            Method::IsLinkLocalUnicast => Ok(Value::Bool(i.is_link_local_unicast())),
            Method::IsGlobalUnicast => Ok(Value::Bool(i.is_global_unicast())),
            _ => nso(),
        },
        (KubeValue::Cidr(c), _, 0) => match method {
            Method::Ip => Ok(kv(KubeValue::Ip(c.ip()))),
            Method::PrefixLength => Ok(Value::Int(c.prefix_length())),
            Method::Masked => Ok(kv(KubeValue::Cidr(c.masked()))),
            _ => nso(),
        },
        (KubeValue::Cidr(c), _, 1) => match (method, args.first()) {
            (Method::ContainsIp, Some(Value::String(s))) => {
                c.contains_ip_str(s.as_str()).map(Value::Bool).map_err(err)
            }
            (Method::ContainsIp, Some(Value::Kube(k))) => match &**k {
                KubeValue::Ip(i) => Ok(Value::Bool(c.contains_ip(i))),
                _ => nso(),
            },
            (Method::ContainsCidr, Some(Value::String(s))) => c
                .contains_cidr_str(s.as_str())
                .map(Value::Bool)
                .map_err(err),
            (Method::ContainsCidr, Some(Value::Kube(k))) => match &**k {
                KubeValue::Cidr(o) => Ok(Value::Bool(c.contains_cidr(o))),
                _ => nso(),
            },
            _ => nso(),
        },
        (KubeValue::Url(u), _, 0) => match method {
            Method::GetScheme => Ok(Value::string(u.scheme())),
            Method::GetHost => Ok(Value::string(u.host())),
            Method::GetHostname => Ok(Value::string(u.hostname())),
            Method::GetPort => Ok(Value::string(u.port())),
            Method::GetEscapedPath => Ok(Value::string(u.escaped_path())),
            Method::GetQuery => Ok(Value::map(
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
        (KubeValue::ServiceAccount(sa), Method::GetName, 0) => Ok(Value::string(sa.name.clone())),
        (KubeValue::ServiceAccount(sa), Method::GetNamespace, 0) => {
            Ok(Value::string(sa.namespace.clone()))
        }
        (KubeValue::Format(f), Method::Validate, 1) => match args.first() {
            Some(Value::String(s)) => Ok(optional_list(f.validate(s.as_str()))),
            _ => nso(),
        },
        _ => nso(),
    }
}
