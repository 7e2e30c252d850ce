//! The timestamp and duration getters (`getFullYear`, `getHours` …; cel-go's standard library),
//! over [`crate::time`]'s values.

use super::args::nso;
use super::names::Method;
use crate::cost::Dialect;
use crate::error::EvalError;
use crate::time::{Duration, Timestamp};
use crate::value::Value;

/// `t.getX()` and `t.getX(tz)`.
pub fn timestamp_member<'a>(
    t: &Timestamp,
    method: Method,
    args: &[Value<'a>],
    dialect: Dialect,
) -> Result<Value<'a>, EvalError> {
    let tz = match args.first() {
        None => None,
        Some(Value::String(z)) => Some(z.as_str()),
        Some(_) => return nso(),
    };
    let component = match method {
        Method::Time(c) => Some(c),
        _ => None,
    };
    // cel-go v0.30 (approver-policy's) refuses an offset's minutes outside 0 to 59; v0.27 (kube-apiserver's) adds them
    t.component(component, tz, dialect == Dialect::CelGo)
        .map(Value::Int)
}

/// `d.getX()`
pub fn duration_member<'a>(
    d: &Duration,
    method: Method,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    if !args.is_empty() {
        return nso();
    }
    match method {
        Method::Time(c) => d.component(c).map(Value::Int),
        _ => nso(),
    }
}
