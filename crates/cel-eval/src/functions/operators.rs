//! The operators (cel-go's standard library overloads of `-x`, `==`, `<`, `+`, `in` …) and
//! their cost.

use std::cmp::Ordering;
use std::rc::Rc;

use cel_core::BinaryOp;

use super::args::{STRING_TRAVERSAL_FACTOR, ceil_cost, nso};
use super::strings;
use crate::error::EvalError;
use crate::value::key_display;
use crate::value::{List, Map, OwnedMap, Value};

pub fn negate(v: Value<'_>) -> Result<Value<'_>, EvalError> {
    match v {
        Value::Int(i) => i
            .checked_neg()
            .map(Value::Int)
            .ok_or_else(EvalError::overflow),
        Value::Double(d) => Ok(Value::Double(-d)),
        _ => nso(),
    }
}

/// The cost of an operator (cel-go `CostTracker.costCall`), given how to size its operands
/// (`actualSize`: characters of a string, bytes, elements, entries; 1 for anything else).
pub fn binary_cost<'a>(
    op: BinaryOp,
    l: &Value<'a>,
    r: &Value<'a>,
    mut size: impl FnMut(&Value<'a>) -> u64,
) -> u64 {
    // operands sized only where the cost depends on it: counting a map's entries reads all its keys
    match op {
        // `Equals`, `NotEquals` and the string/bytes orderings: O(min(m, n)); on scalars 1
        BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
            match (l, r) {
                (Value::String(_), Value::String(_))
                | (Value::Bytes(_), Value::Bytes(_))
                | (Value::List(_), Value::List(_))
                | (Value::Map(_), Value::Map(_)) => {
                    ceil_cost(size(l).min(size(r)), STRING_TRAVERSAL_FACTOR)
                }
                _ => 1,
            }
        }
        BinaryOp::Add => match (l, r) {
            // `AddString`, `AddBytes`: O(m + n)
            (Value::String(_), Value::String(_)) | (Value::Bytes(_), Value::Bytes(_)) => {
                ceil_cost(size(l).saturating_add(size(r)), STRING_TRAVERSAL_FACTOR)
            }
            // `AddList`: O(1), as cel-go concatenates without copying (so do we); only a chain
            // of more than MAX_CONCAT_DEPTH `+` is copied, and the copy is charged
            (Value::List(a), Value::List(b)) if List::concat_copies(a, b) => {
                1 + (a.len() + b.len()) as u64
            }
            (Value::List(_), Value::List(_)) => 1,
            _ => 1,
        },
        // `InList`: O(n) (a constant list of primitives is a set: eval.rs, not charged)
        BinaryOp::In => match r {
            Value::List(_) => size(r),
            _ => 1,
        },
        _ => 1,
    }
}

pub fn binary<'a>(op: BinaryOp, l: Value<'a>, r: Value<'a>) -> Result<Value<'a>, EvalError> {
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

pub fn add<'a>(l: Value<'a>, r: Value<'a>) -> Result<Value<'a>, EvalError> {
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
pub fn contains_elem(container: &Value<'_>, elem: &Value<'_>) -> Result<bool, EvalError> {
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

/// cel-go's `cel.@mapInsert` (`transformMap`, `transformMapEntry`): `(map, key, value)` or `(map, entries)`, the map with
/// them added. The map is changed in place when it is the only reference to it (a loop's accumulator).
pub fn map_insert(args: Vec<Value<'_>>) -> Result<Value<'_>, EvalError> {
    let mut args = args.into_iter();
    let (Some(Value::Map(m)), Some(first), second, None) =
        (args.next(), args.next(), args.next(), args.next())
    else {
        return nso();
    };
    let mut m = match m {
        Map::Owned(m) => m,
        other => {
            let mut own = OwnedMap::default();
            for (k, v) in other.entries() {
                let _ = own.insert(k, v);
            }
            Rc::new(own)
        }
    };
    let own = Rc::make_mut(&mut m);
    match (first, second) {
        (Value::Map(entries), None) => {
            for (k, v) in entries.entries() {
                insert_entry(own, k, v)?;
            }
        }
        (key, Some(value)) => insert_entry(own, key, value)?,
        _ => return nso(),
    }
    Ok(Value::Map(Map::Owned(m)))
}

/// cel-go's `InsertMapKeyValue`: `insert failed: key k already exists` when `k` is there.
fn insert_entry<'a>(m: &mut OwnedMap<'a>, k: Value<'a>, v: Value<'a>) -> Result<(), EvalError> {
    m.insert(k, v).map_err(|k| {
        EvalError::new(format!(
            "insert failed: key {} already exists",
            key_display(&k)
        ))
    })
}
