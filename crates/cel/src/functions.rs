//! Operators and functions: the standard library, cel-go's extensions Kubernetes enables
//! (strings, math, encoders, optionals, sets, lists) and the Kubernetes lists/regex/authz
//! libraries. Dispatch is on the name and the runtime kinds of the arguments.

use std::cmp::Ordering;
use std::rc::Rc;

use base64::Engine as _;
use cel_core::BinaryOp;
use palisade_cel_kubernetes::{lists, regex as re2, sets};
use regex::Regex;

use crate::authz::{self, AuthzValue};
use crate::cost::Meter;
use crate::error::EvalError;
use crate::strings;
use crate::time::{Duration, Timestamp};
use crate::value::key_display;
use crate::value::{Const, List, Type, Value};

/// cel-go common/cost.go
const STRING_TRAVERSAL_FACTOR: f64 = 0.1;
const REGEX_LENGTH_FACTOR: f64 = 0.25;

fn ceil_cost(n: u64, factor: f64) -> u64 {
    (n as f64 * factor).ceil() as u64
}

fn nso<T>() -> Result<T, EvalError> {
    Err(EvalError::no_such_overload())
}

/// Names that are called as `ns.fn(...)` rather than on a receiver.
pub(crate) fn is_namespaced(name: &str) -> bool {
    matches!(
        name.split_once('.').map(|(ns, _)| ns),
        Some("math" | "base64" | "strings" | "sets" | "lists" | "optional" | "format" | "ip")
    )
}

pub(crate) fn negate(v: Value<'_>) -> Result<Value<'_>, EvalError> {
    match v {
        Value::Int(i) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(EvalError::overflow),
        Value::Double(d) => Ok(Value::Double(-d)),
        _ => nso(),
    }
}

/// The cost of an operator (cel-go `CostTracker.costCall`), given the sizes of its operands
/// (`actualSize`: characters of a string, bytes, elements, entries; 1 for anything else).
pub(crate) fn binary_cost(op: BinaryOp, l: &Value<'_>, r: &Value<'_>, ls: u64, rs: u64) -> u64 {
    match op {
        // `Equals`, `NotEquals` and the string/bytes orderings: O(min(m, n)); on scalars 1
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            match (l, r) {
                (Value::String(_), Value::String(_))
                | (Value::Bytes(_), Value::Bytes(_))
                | (Value::List(_), Value::List(_))
                | (Value::Map(_), Value::Map(_)) => ceil_cost(ls.min(rs), STRING_TRAVERSAL_FACTOR),
                _ => 1,
            }
        }
        BinaryOp::Add => match (l, r) {
            // `AddString`, `AddBytes`: O(m + n)
            (Value::String(_), Value::String(_)) | (Value::Bytes(_), Value::Bytes(_)) => {
                ceil_cost(ls.saturating_add(rs), STRING_TRAVERSAL_FACTOR)
            }
            // `AddList`: O(1), as cel-go concatenates without copying (so do we); only a chain
            // of more than MAX_CONCAT_DEPTH `+` is copied, and the copy is charged
            (Value::List(a), Value::List(b)) if List::concat_copies(a, b) => {
                1 + (a.len() + b.len()) as u64
            }
            (Value::List(_), Value::List(_)) => 1,
            (Value::Map(a), Value::Map(b)) => 1 + (a.len() + b.len()) as u64,
            _ => 1,
        },
        // `InList`: O(n) (a constant list of primitives is a set: eval.rs, not charged)
        BinaryOp::In => match r {
            Value::List(_) => rs,
            _ => 1,
        },
        _ => 1,
    }
}

pub(crate) fn binary<'a>(op: BinaryOp, l: Value<'a>, r: Value<'a>) -> Result<Value<'a>, EvalError> {
    match op {
        BinaryOp::Eq => Ok(Value::Bool(l.equals(&r)?)),
        BinaryOp::Ne => Ok(Value::Bool(!l.equals(&r)?)),
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            let o = l.compare(&r)?;
            Ok(Value::Bool(match (op, o) {
                (_, None) => false,
                (BinaryOp::Lt, Some(o)) => o == Ordering::Less,
                (BinaryOp::Le, Some(o)) => o != Ordering::Greater,
                (BinaryOp::Gt, Some(o)) => o == Ordering::Greater,
                (_, Some(o)) => o != Ordering::Less,
            }))
        }
        BinaryOp::In => contains_elem(&r, &l).map(Value::Bool),
        BinaryOp::Add => add(l, r),
        BinaryOp::Sub => sub(l, r),
        BinaryOp::Mul => match (l, r) {
            (Value::Int(a), Value::Int(b)) => a
                .checked_mul(b)
                .map(Value::Int)
                .ok_or_else(EvalError::overflow),
            (Value::Uint(a), Value::Uint(b)) => a
                .checked_mul(b)
                .map(Value::Uint)
                .ok_or_else(EvalError::uint_overflow),
            (Value::Double(a), Value::Double(b)) => Ok(Value::Double(a * b)),
            _ => nso(),
        },
        BinaryOp::Div => match (l, r) {
            (Value::Int(_), Value::Int(0)) | (Value::Uint(_), Value::Uint(0)) => {
                Err(EvalError::new("division by zero"))
            }
            (Value::Int(a), Value::Int(b)) => a
                .checked_div(b)
                .map(Value::Int)
                .ok_or_else(EvalError::overflow),
            (Value::Uint(a), Value::Uint(b)) => a
                .checked_div(b)
                .map(Value::Uint)
                .ok_or_else(EvalError::uint_overflow),
            (Value::Double(a), Value::Double(b)) => Ok(Value::Double(a / b)),
            _ => nso(),
        },
        BinaryOp::Mod => match (l, r) {
            (Value::Int(_), Value::Int(0)) | (Value::Uint(_), Value::Uint(0)) => {
                Err(EvalError::new("modulus by zero"))
            }
            (Value::Int(a), Value::Int(b)) => a
                .checked_rem(b)
                .map(Value::Int)
                .ok_or_else(EvalError::overflow),
            (Value::Uint(a), Value::Uint(b)) => a
                .checked_rem(b)
                .map(Value::Uint)
                .ok_or_else(EvalError::uint_overflow),
            _ => nso(),
        },
        BinaryOp::And | BinaryOp::Or => nso(),
    }
}

fn add<'a>(l: Value<'a>, r: Value<'a>) -> Result<Value<'a>, EvalError> {
    match (l, r) {
        (Value::Int(a), Value::Int(b)) => a
            .checked_add(b)
            .map(Value::Int)
            .ok_or_else(EvalError::overflow),
        (Value::Uint(a), Value::Uint(b)) => a
            .checked_add(b)
            .map(Value::Uint)
            .ok_or_else(EvalError::uint_overflow),
        (Value::Double(a), Value::Double(b)) => Ok(Value::Double(a + b)),
        (Value::String(a), Value::String(b)) => {
            strings::check_len((a.as_str().len() + b.as_str().len()) as u64)?;
            let mut s = String::with_capacity(a.as_str().len() + b.as_str().len());
            s.push_str(a.as_str());
            s.push_str(b.as_str());
            Ok(Value::string(s))
        }
        (Value::Bytes(a), Value::Bytes(b)) => {
            let mut v = a.to_vec();
            v.extend_from_slice(&b);
            Ok(Value::Bytes(Rc::from(v)))
        }
        (Value::List(a), Value::List(b)) => Ok(Value::List(List::concat(a, b))),
        (Value::Map(a), Value::Map(b)) => {
            let mut m = crate::value::OwnedMap::default();
            for (k, v) in a.entries().into_iter().chain(b.entries()) {
                if let Err(k) = m.insert(k, v) {
                    return Err(EvalError::new(format!(
                        "insert failed: key {} already exists",
                        key_display(&k)
                    )));
                }
            }
            Ok(Value::Map(crate::value::Map::Owned(Rc::new(m))))
        }
        (Value::Timestamp(t), Value::Duration(d)) | (Value::Duration(d), Value::Timestamp(t)) => {
            t.add(&d).map(Value::Timestamp)
        }
        (Value::Duration(a), Value::Duration(b)) => a.add(&b).map(Value::Duration),
        _ => nso(),
    }
}

fn sub<'a>(l: Value<'a>, r: Value<'a>) -> Result<Value<'a>, EvalError> {
    match (l, r) {
        (Value::Int(a), Value::Int(b)) => a
            .checked_sub(b)
            .map(Value::Int)
            .ok_or_else(EvalError::overflow),
        (Value::Uint(a), Value::Uint(b)) => a
            .checked_sub(b)
            .map(Value::Uint)
            .ok_or_else(EvalError::uint_overflow),
        (Value::Double(a), Value::Double(b)) => Ok(Value::Double(a - b)),
        (Value::Timestamp(a), Value::Timestamp(b)) => a.diff(&b).map(Value::Duration),
        (Value::Timestamp(a), Value::Duration(b)) => a.sub(&b).map(Value::Timestamp),
        (Value::Duration(a), Value::Duration(b)) => a.sub(&b).map(Value::Duration),
        _ => nso(),
    }
}

/// `elem in container`
pub(crate) fn contains_elem(container: &Value<'_>, elem: &Value<'_>) -> Result<bool, EvalError> {
    match container {
        Value::List(l) => {
            for v in l.iter() {
                if v.equals(elem)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Value::Map(m) => match elem {
            Value::String(_)
            | Value::Int(_)
            | Value::Uint(_)
            | Value::Bool(_)
            | Value::Double(_) => Ok(m.contains_key(elem)),
            _ => nso(),
        },
        _ => nso(),
    }
}

fn arg<'v, 'a>(args: &'v [Value<'a>], i: usize) -> Result<&'v Value<'a>, EvalError> {
    args.get(i).ok_or_else(EvalError::no_such_overload)
}

fn int_arg(args: &[Value<'_>], i: usize) -> Result<i64, EvalError> {
    match arg(args, i)? {
        Value::Int(v) => Ok(*v),
        _ => nso(),
    }
}

fn str_arg<'v>(args: &'v [Value<'_>], i: usize) -> Result<&'v str, EvalError> {
    match arg(args, i)? {
        Value::String(s) => Ok(s.as_str()),
        _ => nso(),
    }
}

fn list_arg<'v, 'a>(args: &'v [Value<'a>], i: usize) -> Result<&'v List<'a>, EvalError> {
    match arg(args, i)? {
        Value::List(l) => Ok(l),
        _ => nso(),
    }
}

/// `size()`: O(1) (a long string's length in characters and a large object's entry count are
/// counted once per evaluation, `Meter::size`).
fn size_of<'a>(ctx: &mut Meter<'_, 'a>, v: &Value<'a>) -> Result<Value<'static>, EvalError> {
    match v {
        Value::String(_) | Value::Bytes(_) | Value::List(_) | Value::Map(_) => Ok(Value::Int(
            i64::try_from(ctx.size(v)).map_err(|_| EvalError::overflow())?,
        )),
        _ => nso(),
    }
}

/// The compiled pattern: the one compiled with the program for a literal pattern, else
/// compiled now. An invalid pattern is Go's error, for `find`/`findAll` after upstream's
/// `Illegal regex: ` (regex.go), for `matches` as is (cel-go `String.Match`).
fn regex_for<'r>(
    pattern: &str,
    pre: Option<&'r Regex>,
    own: &'r mut Option<Regex>,
    illegal: bool,
) -> Result<&'r Regex, EvalError> {
    if let Some(r) = pre {
        return Ok(r);
    }
    let r = re2::compile(pattern)
        .map_err(|e| EvalError::new(if illegal { e.illegal() } else { e.to_string() }))?;
    Ok(own.insert(r))
}

/// CEL equality for the Kubernetes helpers, which take a plain predicate: the first error
/// (a value nested too deeply) is kept in `err` and the comparison counts as unequal.
fn equality<'e>(err: &'e mut Option<EvalError>) -> impl FnMut(&Value<'_>, &Value<'_>) -> bool + 'e {
    move |a, b| match a.equals(b) {
        Ok(eq) => eq,
        Err(e) => {
            err.get_or_insert(e);
            false
        }
    }
}

/// CEL ordering for the Kubernetes helpers: `None` where CEL's comparison has no answer.
fn ordering(a: &Value<'_>, b: &Value<'_>) -> Option<Ordering> {
    a.compare(b).ok().flatten()
}

fn or_err<T>(v: T, err: Option<EvalError>) -> Result<T, EvalError> {
    match err {
        Some(e) => Err(e),
        None => Ok(v),
    }
}

/// Calls `name` with an optional receiver.
pub(crate) fn call<'a>(
    ctx: &mut Meter<'_, 'a>,
    name: &str,
    recv: Option<Value<'a>>,
    args: Vec<Value<'a>>,
    regex: Option<&Regex>,
) -> Result<Value<'a>, EvalError> {
    match recv {
        None => global(ctx, name, args, regex),
        Some(r) => member(ctx, name, r, args, regex),
    }
}

fn global<'a>(
    ctx: &mut Meter<'_, 'a>,
    name: &str,
    mut args: Vec<Value<'a>>,
    regex: Option<&Regex>,
) -> Result<Value<'a>, EvalError> {
    let cost = match (name, args.first()) {
        // `StringToBytes`, `BytesToString`: O(n); other conversions (string(string) is the
        // value itself) 1
        ("string", Some(v @ Value::Bytes(_))) | ("bytes", Some(v @ Value::String(_))) => {
            ceil_cost(ctx.size(v), STRING_TRAVERSAL_FACTOR)
        }
        ("matches", Some(v)) => {
            let pat = args.get(1).map(|p| ctx.size(p)).unwrap_or(1);
            ceil_cost(1 + ctx.size(v), STRING_TRAVERSAL_FACTOR)
                * ceil_cost(pat, REGEX_LENGTH_FACTOR)
        }
        ("lists.range", Some(Value::Int(n))) => u64::try_from(*n).unwrap_or(0).max(1),
        ("sets.contains" | "sets.equivalent" | "sets.intersects", Some(Value::List(a))) => {
            let b = args.get(1).map(|v| v.cost_size()).unwrap_or(1);
            (a.len() as u64).saturating_mul(b).max(1)
        }
        ("base64.encode" | "base64.decode" | "strings.quote", Some(v)) => {
            ceil_cost(ctx.size(v), STRING_TRAVERSAL_FACTOR).max(1)
        }
        _ => 1,
    };
    ctx.budget.charge(cost)?;
    let argc = args.len();
    match (name, argc) {
        ("size", 1) => size_of(ctx, arg(&args, 0)?),
        ("matches", 2) => {
            let s = str_arg(&args, 0)?;
            let p = str_arg(&args, 1)?;
            let mut own = None;
            Ok(Value::Bool(
                regex_for(p, regex, &mut own, false)?.is_match(s),
            ))
        }
        ("dyn", 1) => Ok(args.swap_remove(0)),
        // approver-policy ServiceAccountLib (declared only in `Env::certificate_request`)
        ("serviceAccount", 1) => crate::approver::service_account(str_arg(&args, 0)?)
            .map(|sa| Value::Kube(Rc::new(crate::kube::KubeValue::ServiceAccount(sa)))),
        ("isServiceAccount", 1) => Ok(Value::Bool(crate::approver::is_service_account(str_arg(
            &args, 0,
        )?))),
        ("type", 1) => Ok(Value::Type(arg(&args, 0)?.type_of())),
        ("int", 1) => to_int(args.swap_remove(0)),
        ("uint", 1) => to_uint(args.swap_remove(0)),
        ("double", 1) => to_double(args.swap_remove(0)),
        ("string", 1) => strings::to_string(args.swap_remove(0)),
        ("bytes", 1) => match args.swap_remove(0) {
            Value::Bytes(b) => Ok(Value::Bytes(b)),
            Value::String(s) => Ok(Value::Bytes(Rc::from(s.as_str().as_bytes()))),
            _ => nso(),
        },
        ("bool", 1) => match args.swap_remove(0) {
            Value::Bool(b) => Ok(Value::Bool(b)),
            Value::String(s) => match s.as_str() {
                "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Value::Bool(true)),
                "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Value::Bool(false)),
                other => Err(EvalError::new(format!(
                    "type conversion error from 'string' to 'bool': {other:?}"
                ))),
            },
            _ => nso(),
        },
        ("timestamp", 1) => match args.swap_remove(0) {
            Value::Timestamp(t) => Ok(Value::Timestamp(t)),
            Value::String(s) => Timestamp::parse(s.as_str()).map(Value::Timestamp),
            Value::Int(i) => Timestamp::from_secs(i).map(Value::Timestamp),
            _ => nso(),
        },
        ("duration", 1) => match args.swap_remove(0) {
            Value::Duration(d) => Ok(Value::Duration(d)),
            Value::String(s) => Duration::parse(s.as_str()).map(Value::Duration),
            Value::Int(i) => Duration::from_nanos(i128::from(i)).map(Value::Duration),
            _ => nso(),
        },
        ("optional.of", 1) => Ok(Value::Optional(Some(Rc::new(args.swap_remove(0))))),
        ("optional.none", 0) => Ok(Value::Optional(None)),
        ("optional.ofNonZeroValue", 1) => {
            let v = args.swap_remove(0);
            Ok(Value::Optional(if is_zero(&v) {
                None
            } else {
                Some(Rc::new(v))
            }))
        }
        ("math.greatest" | "math.least", _) => {
            let greatest = name == "math.greatest";
            let items: Vec<Value<'a>> = match args.as_slice() {
                [Value::List(l)] => l.to_vec(),
                _ => args,
            };
            if items.is_empty() {
                return Err(EvalError::new(format!(
                    "{name}(list) argument must not be empty"
                )));
            }
            let mut best: Option<Value<'a>> = None;
            for v in items {
                if v.as_number().is_none() {
                    return nso();
                }
                best = Some(match best {
                    None => v,
                    Some(b) => {
                        let o = v.compare(&b)?;
                        let better = if greatest {
                            o == Some(Ordering::Greater)
                        } else {
                            o == Some(Ordering::Less)
                        };
                        if better { v } else { b }
                    }
                });
            }
            best.ok_or_else(EvalError::no_such_overload)
        }
        (n, _) if n.starts_with("math.") => math(n, &args),
        ("base64.encode", 1) => match arg(&args, 0)? {
            Value::Bytes(b) => Ok(Value::string(
                base64::engine::general_purpose::STANDARD.encode(b),
            )),
            _ => nso(),
        },
        ("base64.decode", 1) => {
            let s = str_arg(&args, 0)?;
            let std = base64::engine::general_purpose::STANDARD;
            let nopad = base64::engine::general_purpose::STANDARD_NO_PAD;
            let out = std
                .decode(s)
                .or_else(|_| nopad.decode(s))
                .map_err(|e| EvalError::new(format!("illegal base64 data: {e}")))?;
            Ok(Value::Bytes(Rc::from(out)))
        }
        ("strings.quote", 1) => Ok(Value::string(strings::quote(str_arg(&args, 0)?))),
        ("sets.contains" | "sets.equivalent" | "sets.intersects", 2) => {
            let a = list_arg(&args, 0)?.to_vec();
            let b = list_arg(&args, 1)?.to_vec();
            let mut err = None;
            let eq = equality(&mut err);
            let r = match name {
                "sets.contains" => sets::contains(&a, &b, eq),
                "sets.equivalent" => sets::equivalent(&a, &b, eq),
                _ => sets::intersects(&a, &b, eq),
            };
            or_err(Value::Bool(r), err)
        }
        ("lists.range", 1) => {
            let n = int_arg(&args, 0)?;
            // the cost limit normally stops this first; the cap holds even without a budget
            if n > 10_000_000 {
                return Err(EvalError::new(format!("lists.range({n}) is too large")));
            }
            Ok(Value::list((0..n.max(0)).map(Value::Int).collect()))
        }
        _ => crate::kube_functions::global(name, &args).unwrap_or_else(nso),
    }
}

pub(crate) fn is_zero(v: &Value<'_>) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Int(i) => *i == 0,
        Value::Uint(u) => *u == 0,
        Value::Double(d) => *d == 0.0,
        Value::String(s) => s.as_str().is_empty(),
        Value::Bytes(b) => b.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        Value::Duration(d) => d.nanos() == 0,
        Value::Timestamp(t) => t.nanos() == 0,
        Value::Optional(o) => o.is_none(),
        _ => false,
    }
}

fn math<'a>(name: &str, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let a0 = arg(args, 0)?;
    let f = |g: fn(f64) -> f64| -> Result<Value<'a>, EvalError> {
        match a0 {
            Value::Double(d) => Ok(Value::Double(g(*d))),
            _ => nso(),
        }
    };
    match (name, args.len()) {
        ("math.ceil", 1) => f(f64::ceil),
        ("math.floor", 1) => f(f64::floor),
        ("math.round", 1) => f(f64::round),
        ("math.trunc", 1) => f(f64::trunc),
        ("math.isNaN", 1) => match a0 {
            Value::Double(d) => Ok(Value::Bool(d.is_nan())),
            _ => nso(),
        },
        ("math.isInf", 1) => match a0 {
            Value::Double(d) => Ok(Value::Bool(d.is_infinite())),
            _ => nso(),
        },
        ("math.isFinite", 1) => match a0 {
            Value::Double(d) => Ok(Value::Bool(d.is_finite())),
            _ => nso(),
        },
        ("math.abs", 1) => match a0 {
            Value::Int(i) => i
                .checked_abs()
                .map(Value::Int)
                .ok_or_else(EvalError::overflow),
            Value::Uint(u) => Ok(Value::Uint(*u)),
            Value::Double(d) => Ok(Value::Double(d.abs())),
            _ => nso(),
        },
        ("math.sign", 1) => match a0 {
            Value::Int(i) => Ok(Value::Int(i.signum())),
            Value::Uint(u) => Ok(Value::Uint(u64::from(*u > 0))),
            Value::Double(d) => Ok(Value::Double(if d.is_nan() {
                f64::NAN
            } else if *d > 0.0 {
                1.0
            } else if *d < 0.0 {
                -1.0
            } else {
                0.0
            })),
            _ => nso(),
        },
        ("math.bitNot", 1) => match a0 {
            Value::Int(i) => Ok(Value::Int(!i)),
            Value::Uint(u) => Ok(Value::Uint(!u)),
            _ => nso(),
        },
        ("math.bitAnd" | "math.bitOr" | "math.bitXor", 2) => match (a0, arg(args, 1)?) {
            (Value::Int(a), Value::Int(b)) => Ok(Value::Int(match name {
                "math.bitAnd" => a & b,
                "math.bitOr" => a | b,
                _ => a ^ b,
            })),
            (Value::Uint(a), Value::Uint(b)) => Ok(Value::Uint(match name {
                "math.bitAnd" => a & b,
                "math.bitOr" => a | b,
                _ => a ^ b,
            })),
            _ => nso(),
        },
        ("math.bitShiftLeft" | "math.bitShiftRight", 2) => {
            let n = int_arg(args, 1)?;
            if n < 0 {
                return Err(EvalError::new(format!(
                    "math.{}() negative offset: {n}",
                    name.trim_start_matches("math.")
                )));
            }
            let left = name == "math.bitShiftLeft";
            match a0 {
                Value::Int(a) => Ok(Value::Int(if n > 63 {
                    0
                } else if left {
                    a << n
                } else {
                    ((*a as u64) >> n) as i64
                })),
                Value::Uint(a) => Ok(Value::Uint(if n > 63 {
                    0
                } else if left {
                    a << n
                } else {
                    a >> n
                })),
                _ => nso(),
            }
        }
        _ => nso(),
    }
}

/// A type conversion (`overloads.IsTypeConversionFunction`, but `type`) of a constant, done
/// when the program is compiled; `None` when it is not one or fails.
pub(crate) fn convert_const(name: &str, c: Const) -> Option<Const> {
    let v = c.to_value();
    let out = match (name, v) {
        ("dyn", _) => return Some(c),
        ("int", v) => to_int(v).ok()?,
        ("uint", v) => to_uint(v).ok()?,
        ("double", v) => to_double(v).ok()?,
        (
            "string",
            v @ (Value::String(_)
            | Value::Bytes(_)
            | Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::Bool(_)
            | Value::Null
            | Value::Timestamp(_)
            | Value::Duration(_)),
        ) => strings::to_string(v).ok()?,
        ("bytes", Value::String(s)) => Value::Bytes(Rc::from(s.as_str().as_bytes())),
        ("bytes", v @ Value::Bytes(_)) | ("bool", v @ Value::Bool(_)) => v,
        ("bool", Value::String(s)) => match s.as_str() {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Value::Bool(true),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Value::Bool(false),
            _ => return None,
        },
        ("timestamp", Value::String(s)) => Value::Timestamp(Timestamp::parse(s.as_str()).ok()?),
        ("timestamp", Value::Int(i)) => Value::Timestamp(Timestamp::from_secs(i).ok()?),
        ("timestamp", v @ Value::Timestamp(_)) | ("duration", v @ Value::Duration(_)) => v,
        ("duration", Value::String(s)) => Value::Duration(Duration::parse(s.as_str()).ok()?),
        ("duration", Value::Int(i)) => Value::Duration(Duration::from_nanos(i128::from(i)).ok()?),
        _ => return None,
    };
    Const::scalar(&out)
}

fn to_int(v: Value<'_>) -> Result<Value<'static>, EvalError> {
    match v {
        Value::Int(i) => Ok(Value::Int(i)),
        Value::Uint(u) => i64::try_from(u)
            .map(Value::Int)
            .map_err(|_| EvalError::overflow()),
        Value::Double(d) => {
            if !d.is_finite()
                || d <= -9_223_372_036_854_775_808.0
                || d >= 9_223_372_036_854_775_807.0
            {
                return Err(EvalError::overflow());
            }
            Ok(Value::Int(d.trunc() as i64))
        }
        Value::String(s) => s
            .as_str()
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|_| EvalError::new(format!("cannot convert {:?} to int", s.as_str()))),
        Value::Timestamp(t) => Ok(Value::Int(t.secs())),
        _ => nso(),
    }
}

fn to_uint(v: Value<'_>) -> Result<Value<'static>, EvalError> {
    match v {
        Value::Uint(u) => Ok(Value::Uint(u)),
        Value::Int(i) => u64::try_from(i)
            .map(Value::Uint)
            .map_err(|_| EvalError::uint_overflow()),
        Value::Double(d) => {
            if !d.is_finite() || !(0.0..18_446_744_073_709_551_615.0).contains(&d) {
                return Err(EvalError::uint_overflow());
            }
            Ok(Value::Uint(d.trunc() as u64))
        }
        Value::String(s) => s
            .as_str()
            .parse::<u64>()
            .map(Value::Uint)
            .map_err(|_| EvalError::new(format!("cannot convert {:?} to uint", s.as_str()))),
        _ => nso(),
    }
}

fn to_double(v: Value<'_>) -> Result<Value<'static>, EvalError> {
    match v {
        Value::Double(d) => Ok(Value::Double(d)),
        Value::Int(i) => Ok(Value::Double(i as f64)),
        Value::Uint(u) => Ok(Value::Double(u as f64)),
        Value::String(s) => s
            .as_str()
            .parse::<f64>()
            .map(Value::Double)
            .map_err(|_| EvalError::new(format!("cannot convert {:?} to double", s.as_str()))),
        _ => nso(),
    }
}

fn member<'a>(
    ctx: &mut Meter<'_, 'a>,
    name: &str,
    recv: Value<'a>,
    mut args: Vec<Value<'a>>,
    regex: Option<&Regex>,
) -> Result<Value<'a>, EvalError> {
    let size = ctx.size(&recv);
    let cost = match (&recv, name) {
        // cel-go costCall: `StartsWithString`, `EndsWithString`, `ExtQuoteString`: O(n)
        (Value::String(_), "startsWith" | "endsWith") => ceil_cost(size, STRING_TRAVERSAL_FACTOR),
        // `ContainsString`: O(n * m)
        (Value::String(_), "contains") => {
            let sub = args.first().map(|v| ctx.size(v)).unwrap_or(1);
            ceil_cost(size, STRING_TRAVERSAL_FACTOR) * ceil_cost(sub, STRING_TRAVERSAL_FACTOR)
        }
        // `MatchesString`; library/cost.go `find`, `findAll`
        (Value::String(_), "matches" | "find" | "findAll") => {
            let pat = args.first().map(|p| ctx.size(p)).unwrap_or(1);
            ceil_cost(1 + size, STRING_TRAVERSAL_FACTOR) * ceil_cost(pat, REGEX_LENGTH_FACTOR)
        }
        (Value::String(_), "size") => 1,
        // library/cost.go: `lowerAscii`, `upperAscii`, `substring`, `trim` one traversal,
        // `replace`, `split` two
        (Value::String(_), "lowerAscii" | "upperAscii" | "substring" | "trim") => {
            ceil_cost(size, STRING_TRAVERSAL_FACTOR)
        }
        (Value::String(_), "replace" | "split") => ceil_cost(size, 2.0 * STRING_TRAVERSAL_FACTOR),
        // `indexOf`, `lastIndexOf`: library/cost.go traversalCost (bytes * 0.1, truncated)
        (Value::String(s), "indexOf" | "lastIndexOf") => {
            (s.as_str().len() as f64 * STRING_TRAVERSAL_FACTOR) as u64
        }
        // `ExtFormatString`: O(n) in the format string
        (Value::String(_), "format") => ceil_cost(size, STRING_TRAVERSAL_FACTOR),
        // functions upstream leaves at 1 (charAt, reverse …) still read the string here: one
        // traversal more, so the work stays bounded by the budget
        (Value::String(_), _) => 1 + ceil_cost(size, STRING_TRAVERSAL_FACTOR),
        (Value::List(_), "size" | "first" | "last") => 1,
        (Value::List(_), "sort") => 1 + size.saturating_mul(64 - size.leading_zeros() as u64),
        // library/cost.go `join`: ceil(size(result) * 2 * 0.1), charged below from the size
        // the result will have, before it is built
        (Value::List(_), "join") => 0,
        (Value::List(_), _) => 1 + size,
        _ => 1,
    };
    ctx.budget.charge(cost)?;
    match recv {
        Value::String(s) => {
            if name == "replace" {
                // upstream charges two traversals of the receiver whatever the replacement; an
                // output beyond four times the input (`'a'.replace('', long)`) is charged for
                // the excess too, before it is built, so the work stays bounded by the budget
                let out = strings::output_len(name, s.as_str(), &args)?;
                let within = (s.as_str().len() as u64).saturating_mul(4);
                ctx.budget.charge(ceil_cost(
                    out.saturating_sub(within),
                    STRING_TRAVERSAL_FACTOR,
                ))?;
            }
            if name == "format" {
                strings::output_len(name, s.as_str(), &args)?;
            }
            if name == "size" && args.is_empty() {
                return Ok(Value::Int(
                    i64::try_from(size).map_err(|_| EvalError::overflow())?,
                ));
            }
            let out = string_member(name, s.as_str(), &args, regex)?;
            if name == "format"
                && let Value::String(o) = &out
            {
                // the same for what `format` renders from its arguments (bounded by the string
                // cap as it is built): the excess over four times the format string is charged
                let within = (s.as_str().len() as u64).saturating_mul(4);
                ctx.budget.charge(ceil_cost(
                    (o.as_str().len() as u64).saturating_sub(within),
                    STRING_TRAVERSAL_FACTOR,
                ))?;
            }
            Ok(out)
        }
        Value::List(l) => {
            if name == "join" && args.len() <= 1 {
                let sep = match args.first() {
                    Some(v) => ctx.size(v),
                    None => 0,
                };
                let mut chars: u64 = 0;
                let mut bytes: u64 = 0;
                for v in l.iter() {
                    if let Value::String(st) = &v {
                        bytes = bytes.saturating_add(st.as_str().len() as u64);
                    }
                    chars = chars.saturating_add(ctx.size(&v));
                }
                let seps = (l.len() as u64).saturating_sub(1);
                chars = chars.saturating_add(seps.saturating_mul(sep));
                ctx.budget
                    .charge(ceil_cost(chars, 2.0 * STRING_TRAVERSAL_FACTOR))?;
                let sep_bytes = match args.first() {
                    Some(Value::String(st)) => st.as_str().len() as u64,
                    _ => 0,
                };
                strings::check_len(bytes.saturating_add(seps.saturating_mul(sep_bytes)))?;
            }
            list_member(name, &l, &mut args)
        }
        Value::Map(m) => match name {
            "size" if args.is_empty() => size_of(ctx, &Value::Map(m)),
            _ => nso(),
        },
        Value::Bytes(b) => match name {
            "size" if args.is_empty() => size_of(ctx, &Value::Bytes(b)),
            _ => nso(),
        },
        Value::Timestamp(t) => {
            let tz = match args.first() {
                None => None,
                Some(Value::String(z)) => Some(z.as_str()),
                Some(_) => return nso(),
            };
            t.component(name, tz).map(Value::Int)
        }
        Value::Duration(d) => {
            if !args.is_empty() {
                return nso();
            }
            d.component(name).map(Value::Int)
        }
        Value::Optional(o) => match (name, args.len()) {
            ("hasValue", 0) => Ok(Value::Bool(o.is_some())),
            ("value", 0) => o
                .map(|v| (*v).clone())
                .ok_or_else(|| EvalError::new("optional.none() dereference")),
            ("or", 1) => match (o, args.swap_remove(0)) {
                (Some(v), _) => Ok(Value::Optional(Some(v))),
                (None, other @ Value::Optional(_)) => Ok(other),
                _ => nso(),
            },
            ("orValue", 1) => match o {
                Some(v) => Ok((*v).clone()),
                None => Ok(args.swap_remove(0)),
            },
            _ => nso(),
        },
        Value::Authz(a) => authz_member(name, &a, &args),
        Value::Kube(k) => crate::kube_functions::member(name, &k, &args),
        _ => nso(),
    }
}

fn string_member<'a>(
    name: &str,
    s: &str,
    args: &[Value<'a>],
    regex: Option<&Regex>,
) -> Result<Value<'a>, EvalError> {
    match (name, args.len()) {
        ("size", 0) => Ok(Value::Int(
            i64::try_from(s.chars().count()).map_err(|_| EvalError::overflow())?,
        )),
        ("contains", 1) => Ok(Value::Bool(s.contains(str_arg(args, 0)?))),
        ("startsWith", 1) => Ok(Value::Bool(s.starts_with(str_arg(args, 0)?))),
        ("endsWith", 1) => Ok(Value::Bool(s.ends_with(str_arg(args, 0)?))),
        ("matches", 1) => {
            let mut own = None;
            Ok(Value::Bool(
                regex_for(str_arg(args, 0)?, regex, &mut own, false)?.is_match(s),
            ))
        }
        ("find", 1) => {
            let mut own = None;
            let re = regex_for(str_arg(args, 0)?, regex, &mut own, true)?;
            Ok(Value::string(re2::find(re, s)))
        }
        ("findAll", 1 | 2) => {
            let mut own = None;
            let re = regex_for(str_arg(args, 0)?, regex, &mut own, true)?;
            let limit = if args.len() == 2 {
                int_arg(args, 1)?
            } else {
                -1
            };
            let out = re2::find_all(re, s, limit)
                .into_iter()
                .map(Value::string)
                .collect();
            Ok(Value::list(out))
        }
        _ => strings::member(name, s, args),
    }
}

fn list_member<'a>(
    name: &str,
    l: &List<'a>,
    args: &mut Vec<Value<'a>>,
) -> Result<Value<'a>, EvalError> {
    match (name, args.len()) {
        ("size", 0) => Ok(Value::Int(
            i64::try_from(l.len()).map_err(|_| EvalError::overflow())?,
        )),
        ("join", 0 | 1) => {
            let sep = if args.is_empty() {
                ""
            } else {
                str_arg(args, 0)?
            };
            let mut out = String::new();
            for (i, v) in l.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                match &v {
                    Value::String(s) => out.push_str(s.as_str()),
                    _ => return nso(),
                }
            }
            Ok(Value::string(out))
        }
        ("slice", 2) => {
            let a = int_arg(args, 0)?;
            let b = int_arg(args, 1)?;
            let len = i64::try_from(l.len()).unwrap_or(i64::MAX);
            if a < 0 || b < 0 {
                return Err(EvalError::new(format!(
                    "cannot slice({a}, {b}), negative indexes not supported"
                )));
            }
            if a > b {
                return Err(EvalError::new(format!(
                    "cannot slice({a}, {b}), start index must be less than or equal to end index"
                )));
            }
            if b > len {
                return Err(EvalError::new(format!(
                    "cannot slice({a}, {b}), list is length {len}"
                )));
            }
            let v: Vec<Value<'a>> = l.iter().skip(a as usize).take((b - a) as usize).collect();
            Ok(Value::list(v))
        }
        ("flatten", 0 | 1) => {
            let depth = if args.is_empty() {
                1
            } else {
                int_arg(args, 0)?
            };
            if depth < 0 {
                return Err(EvalError::new("level must be non-negative"));
            }
            let mut out = Vec::new();
            flatten(l, depth.min(64), &mut out);
            Ok(Value::list(out))
        }
        ("distinct", 0) => {
            let mut out: Vec<Value<'a>> = Vec::new();
            for v in l.iter() {
                let mut seen = false;
                for o in &out {
                    if o.equals(&v)? {
                        seen = true;
                        break;
                    }
                }
                if !seen {
                    out.push(v);
                }
            }
            Ok(Value::list(out))
        }
        ("reverse", 0) => {
            let mut v = l.to_vec();
            v.reverse();
            Ok(Value::list(v))
        }
        ("sort", 0) => {
            let mut v = l.to_vec();
            check_sortable(&v)?;
            let mut err = None;
            palisade_cel_kubernetes::sort::sort_by(&mut v, |a, b| match a.compare(b) {
                Ok(Some(o)) => o,
                Ok(None) => Ordering::Equal,
                Err(e) => {
                    err.get_or_insert(e);
                    Ordering::Equal
                }
            });
            if let Some(e) = err {
                return Err(e);
            }
            Ok(Value::list(v))
        }
        ("first", 0) => Ok(Value::Optional(l.get(0).map(Rc::new))),
        ("last", 0) => Ok(Value::Optional(
            l.len().checked_sub(1).and_then(|i| l.get(i)).map(Rc::new),
        )),
        ("isSorted", 0) => Ok(Value::Bool(lists::is_sorted(&l.to_vec(), ordering))),
        ("sum", 0) => {
            let items = l.to_vec();
            // the zero of the element type (lists.go); an empty list's is int's
            let zero = match items.first() {
                Some(Value::Uint(_)) => Value::Uint(0),
                Some(Value::Double(_)) => Value::Double(0.0),
                Some(Value::Duration(_)) => Value::Duration(Duration::from_nanos(0)?),
                _ => Value::Int(0),
            };
            lists::sum(&items, zero, |a, b| add(a.clone(), b.clone()))
        }
        ("min" | "max", 0) => {
            let items = l.to_vec();
            let r = if name == "min" {
                lists::min(&items, ordering)
            } else {
                lists::max(&items, ordering)
            };
            r.map_err(|e| EvalError::new(e.to_string()))
        }
        ("indexOf" | "lastIndexOf", 1) => {
            let items = l.to_vec();
            let target = arg(args, 0)?;
            let mut err = None;
            let eq = equality(&mut err);
            let i = if name == "indexOf" {
                lists::index_of(&items, target, eq)
            } else {
                lists::last_index_of(&items, target, eq)
            };
            or_err(Value::Int(i), err)
        }
        _ => nso(),
    }
}

fn check_sortable(v: &[Value<'_>]) -> Result<(), EvalError> {
    let mut kind: Option<Type> = None;
    for x in v {
        let t = x.type_of();
        match (&x, &kind) {
            (
                Value::Map(_) | Value::List(_) | Value::Null | Value::Optional(_) | Value::Type(_),
                _,
            ) => {
                return Err(EvalError::new(format!(
                    "list elements must be comparable, got {t}"
                )));
            }
            (_, None) => kind = Some(t),
            (_, Some(k)) if *k != t => {
                return Err(EvalError::new("list elements must have the same type"));
            }
            _ => {}
        }
    }
    Ok(())
}

fn flatten<'a>(l: &List<'a>, depth: i64, out: &mut Vec<Value<'a>>) {
    for v in l.iter() {
        match v {
            Value::List(inner) if depth > 0 => flatten(&inner, depth - 1, out),
            other => out.push(other),
        }
    }
}

fn authz_member<'a>(
    name: &str,
    a: &AuthzValue<'a>,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    let wrap = |v: AuthzValue<'a>| Ok(Value::Authz(Rc::new(v)));
    // the builder's own errors (authz.go: `path must not be empty` …) fail the call
    let invalid = |e: palisade_cel_kubernetes::authz::AuthzError| EvalError::new(e.to_string());
    match (a, name, args.len()) {
        (AuthzValue::Authorizer { authz, authorizer }, "path", 1) => wrap(AuthzValue::Path {
            authz: *authz,
            check: authorizer.path(str_arg(args, 0)?).map_err(invalid)?,
        }),
        (AuthzValue::Authorizer { authz, authorizer }, "group", 1) => wrap(AuthzValue::Group {
            authz: *authz,
            check: authorizer.group(str_arg(args, 0)?),
        }),
        (AuthzValue::Authorizer { authz, authorizer }, "serviceAccount", 2) => {
            wrap(AuthzValue::Authorizer {
                authz: *authz,
                authorizer: authorizer
                    .service_account(str_arg(args, 0)?, str_arg(args, 1)?)
                    .map_err(invalid)?,
            })
        }
        (AuthzValue::Group { authz, check }, "resource", 1) => wrap(AuthzValue::Resource {
            authz: *authz,
            check: Box::new(check.resource(str_arg(args, 0)?).map_err(invalid)?),
        }),
        (AuthzValue::Resource { authz, check }, _, 1)
            if matches!(
                name,
                "subresource" | "namespace" | "name" | "fieldSelector" | "labelSelector"
            ) =>
        {
            let v = str_arg(args, 0)?;
            let c = (**check).clone();
            let check = match name {
                "subresource" => c.subresource(v),
                "namespace" => c.namespace(v),
                "name" => c.name(v),
                "fieldSelector" => c.field_selector(v),
                _ => c.label_selector(v),
            };
            wrap(AuthzValue::Resource {
                authz: *authz,
                check: Box::new(check),
            })
        }
        (AuthzValue::Resource { authz, check }, "check", 1) => wrap(AuthzValue::Decision(
            authz::run(*authz, &check.check(str_arg(args, 0)?)),
        )),
        (AuthzValue::Path { authz, check }, "check", 1) => wrap(AuthzValue::Decision(authz::run(
            *authz,
            &check.check(str_arg(args, 0)?),
        ))),
        (AuthzValue::Decision(d), _, 0) => match name {
            "allowed" => Ok(Value::Bool(d.allowed())),
            "reason" => Ok(Value::string(d.reason())),
            "errored" => Ok(Value::Bool(d.errored())),
            "error" => Ok(Value::string(d.error())),
            _ => nso(),
        },
        _ => nso(),
    }
}
