//! cel-go's sets extension: `sets.contains`, `sets.equivalent`, `sets.intersects` (over
//! `palisade_cel_kubernetes::sets`), with their cost.

use palisade_cel_kubernetes::sets;

use super::args::{equality, list_arg, nso, or_err};
use super::names::SetsFn;
use crate::error::EvalError;
use crate::value::Value;

/// cel-go ext/sets.go `trackSetsCost`: 1 for the call plus the product of the two lists' sizes,
/// twice that for `sets.equivalent` (a containment each way).
pub fn cost(f: SetsFn, args: &[Value<'_>]) -> u64 {
    match args.first() {
        Some(Value::List(a)) => {
            let b = args.get(1).map(|v| v.cost_size()).unwrap_or(1);
            let factor = if f == SetsFn::Equivalent { 2 } else { 1 };
            (a.len() as u64)
                .saturating_mul(b)
                .saturating_mul(factor)
                .saturating_add(1)
        }
        _ => 1,
    }
}

pub fn call<'a>(f: SetsFn, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    if args.len() != 2 {
        return nso();
    }
    let a = list_arg(args, 0)?.to_vec();
    let b = list_arg(args, 1)?.to_vec();
    let mut err = None;
    let eq = equality(&mut err);
    let r = match f {
        SetsFn::Contains => sets::contains(&a, &b, eq),
        SetsFn::Equivalent => sets::equivalent(&a, &b, eq),
        SetsFn::Intersects => sets::intersects(&a, &b, eq),
    };
    or_err(Value::Bool(r), err)
}
