//! cel-go's optional library: `optional.of`, `optional.none`, `optional.ofNonZeroValue`, and the
//! methods `hasValue`, `value`, `or`, `orValue` (the lazy `or`/`orValue` on a present value are
//! short-circuited by the evaluator).

use std::rc::Rc;

use super::args::nso;
use super::names::{Method, OptionalFn};
use crate::error::EvalError;
use crate::value::Value;

pub fn call<'a>(f: OptionalFn, mut args: Vec<Value<'a>>) -> Result<Value<'a>, EvalError> {
    match (f, args.len()) {
        (OptionalFn::Of, 1) => Ok(Value::Optional(Some(Rc::new(args.swap_remove(0))))),
        (OptionalFn::None, 0) => Ok(Value::Optional(None)),
        (OptionalFn::OfNonZeroValue, 1) => {
            let v = args.swap_remove(0);
            Ok(Value::Optional(if is_zero(&v) {
                None
            } else {
                Some(Rc::new(v))
            }))
        }
        _ => nso(),
    }
}

pub fn member<'a>(
    method: Method,
    o: Option<Rc<Value<'a>>>,
    mut args: Vec<Value<'a>>,
) -> Result<Value<'a>, EvalError> {
    match (method, args.len()) {
        (Method::HasValue, 0) => Ok(Value::Bool(o.is_some())),
        (Method::Value, 0) => o
            .map(|v| (*v).clone())
            .ok_or_else(|| EvalError::new("optional.none() dereference")),
        (Method::Or, 1) => match (o, args.swap_remove(0)) {
            (Some(v), _) => Ok(Value::Optional(Some(v))),
            (None, other @ Value::Optional(_)) => Ok(other),
            _ => nso(),
        },
        (Method::OrValue, 1) => match o {
            Some(v) => Ok((*v).clone()),
            None => Ok(args.swap_remove(0)),
        },
        _ => nso(),
    }
}

/// The zero value of its type (`optional.ofNonZeroValue`; proto3 presence of approver-policy's
/// `cr` fields).
pub fn is_zero(v: &Value<'_>) -> bool {
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
