//! What every family shares: reading arguments, `no such overload`, and cel-go's cost factors.

use std::cmp::Ordering;

use crate::error::EvalError;
use crate::value::{List, Value};

/// cel-go common/cost.go
pub const STRING_TRAVERSAL_FACTOR: f64 = 0.1;
pub const REGEX_LENGTH_FACTOR: f64 = 0.25;

pub fn ceil_cost(n: u64, factor: f64) -> u64 {
    (n as f64 * factor).ceil() as u64
}

pub fn nso<T>() -> Result<T, EvalError> {
    Err(EvalError::no_such_overload())
}

pub fn arg<'v, 'a>(args: &'v [Value<'a>], i: usize) -> Result<&'v Value<'a>, EvalError> {
    args.get(i).ok_or_else(EvalError::no_such_overload)
}

pub fn int_arg(args: &[Value<'_>], i: usize) -> Result<i64, EvalError> {
    match arg(args, i)? {
        Value::Int(v) => Ok(*v),
        _ => nso(),
    }
}

pub fn str_arg<'v>(args: &'v [Value<'_>], i: usize) -> Result<&'v str, EvalError> {
    match arg(args, i)? {
        Value::String(s) => Ok(s.as_str()),
        _ => nso(),
    }
}

pub fn list_arg<'v, 'a>(args: &'v [Value<'a>], i: usize) -> Result<&'v List<'a>, EvalError> {
    match arg(args, i)? {
        Value::List(l) => Ok(l),
        _ => nso(),
    }
}

/// CEL equality for the Kubernetes helpers, which take a plain predicate: the first error
/// (a value nested too deeply) is kept in `err` and the comparison counts as unequal.
pub fn equality<'e>(
    err: &'e mut Option<EvalError>,
) -> impl FnMut(&Value<'_>, &Value<'_>) -> bool + 'e {
    move |a, b| match a.equals(b) {
        Ok(eq) => eq,
        Err(e) => {
            err.get_or_insert(e);
            false
        }
    }
}

/// CEL ordering for the Kubernetes helpers: `None` where CEL's comparison has no answer.
pub fn ordering(a: &Value<'_>, b: &Value<'_>) -> Option<Ordering> {
    a.compare(b).ok().flatten()
}

pub fn or_err<T>(v: T, err: Option<EvalError>) -> Result<T, EvalError> {
    match err {
        Some(e) => Err(e),
        None => Ok(v),
    }
}
