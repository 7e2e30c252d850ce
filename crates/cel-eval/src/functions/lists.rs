//! List functions: cel-go's lists extension (`slice`, `flatten`, `distinct`, `reverse`, `sort`, `sortBy`,
//! `first`, `last`, `lists.range`), the strings extension's `join`, and the Kubernetes lists
//! library (`isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`;
//! k8s.io/apiserver/pkg/cel/library/lists.go); with their cost.

use std::cmp::Ordering;
use std::rc::Rc;

use palisade_cel_kubernetes::{gosort, lists};

use super::args::{
    STRING_TRAVERSAL_FACTOR, arg, ceil_cost, equality, int_arg, nso, or_err, ordering, str_arg,
};
use super::names::Method;
use super::operators::add;
use crate::cost::{Dialect, Meter};
use crate::error::EvalError;
use crate::time::Duration;
use crate::value::{List, Type, Value};

/// What every call of cel-go's lists extension that builds a list pays besides its work: the call (1) and the new
/// list (`ListCreateBaseCost`, 10) (ext/lists.go `trackAllocatingListCall`).
const ALLOCATING_CALL: u64 = 1 + 10;

/// The cost of a call of cel-go's lists extension whose work is `work` (`uint64(work)` in Go: truncated, and
/// saturated here) and that builds a list.
fn allocating(work: f64) -> u64 {
    // `as` saturates (and maps NaN to 0)
    (work as u64).saturating_add(ALLOCATING_CALL)
}

/// The cost of `method` on the list `l` of `size` elements with `args`: the lists extension as kube-apiserver enables
/// it since 1.34 (cel-go's `ext.Lists(ext.ListsVersion(3))`, whose trackers charge by the size of what is built, and
/// `sort` and `distinct` as n² comparisons), the Kubernetes lists library's traversals, the rest 1.
pub fn member_cost(method: Method, l: &List<'_>, size: u64, args: &[Value<'_>]) -> u64 {
    match method {
        Method::Size | Method::First | Method::Last => 1,
        // library/cost.go `join`: ceil(size(result) * 2 * 0.1), charged in [`member`] from the
        // size the result will have, before it is built
        Method::Join => 0,
        // trackListOutputSize: the result has the list's size
        Method::Reverse => allocating(size as f64),
        // trackListOutputSize: the result is `b - a` long (a call that fails costs nothing that matters)
        Method::Slice => match (args.first(), args.get(1)) {
            (Some(Value::Int(a)), Some(Value::Int(b))) if 0 <= *a && a <= b => {
                allocating(b.saturating_sub(*a) as f64)
            }
            _ => 1,
        },
        // trackListFlatten: the input's size times the depth (1 without one)
        Method::Flatten => {
            let depth = match args.first() {
                Some(Value::Int(d)) => *d as f64,
                _ => 1.0,
            };
            allocating(size as f64 * depth)
        }
        Method::Sort | Method::Distinct => self_compare_cost(l, size),
        // trackListSortBy: the keys' self-comparison
        Method::SortByAssociatedKeys => match args.first() {
            Some(Value::List(keys)) => self_compare_cost(keys, keys.len() as u64),
            _ => 1,
        },
        // library/cost.go: these O(n) functions cost one traversal of the list (the estimate replaces the call's 1)
        Method::IsSorted
        | Method::Sum
        | Method::Min
        | Method::Max
        | Method::IndexOf
        | Method::LastIndexOf => traversal_cost(&Value::List(l.clone())),
        _ => 1,
    }
}

/// cel-go's `trackListSelfCompare`: n² comparisons at 2 each, 2.1 when the first element is a string or bytes.
fn self_compare_cost(l: &List<'_>, size: u64) -> u64 {
    let factor = match l.get(0) {
        Some(Value::String(_) | Value::Bytes(_)) => 2.0 + STRING_TRAVERSAL_FACTOR,
        _ => 2.0,
    };
    allocating(size.saturating_mul(size) as f64 * factor)
}

/// library/cost.go `traversalCost`: a string or bytes 0.1 a byte (truncated), a list the sum of its elements', a map
/// the sum of its keys' and values', anything else 1. Walked with a stack of its own, so that no nesting depth can
/// overflow the call stack.
fn traversal_cost(v: &Value<'_>) -> u64 {
    let mut cost: u64 = 0;
    let mut pending: Vec<Value<'_>> = vec![v.clone()];
    while let Some(v) = pending.pop() {
        let own = match v {
            Value::String(s) => (s.as_str().len() as f64 * STRING_TRAVERSAL_FACTOR) as u64,
            Value::Bytes(b) => (b.len() as f64 * STRING_TRAVERSAL_FACTOR) as u64,
            Value::List(l) => {
                pending.extend(l.iter());
                0
            }
            Value::Map(m) => {
                for (k, x) in m.entries() {
                    pending.push(k);
                    pending.push(x);
                }
                0
            }
            _ => 1,
        };
        cost = cost.saturating_add(own);
    }
    cost
}

/// `method` on the list `l`, its cost ([`member_cost`]) already charged.
pub fn member<'a>(
    ctx: &mut Meter<'_, 'a>,
    method: Method,
    l: &List<'a>,
    args: &mut Vec<Value<'a>>,
) -> Result<Value<'a>, EvalError> {
    if method == Method::Join && args.len() <= 1 {
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
        let cost = match ctx.dialect {
            Dialect::Kubernetes | Dialect::Spec => ceil_cost(chars, 2.0 * STRING_TRAVERSAL_FACTOR),
            // ext/strings.go `trackStringJoinCost`: the call, a traversal of the list, and the string built
            Dialect::CelGo => ceil_cost(l.len() as u64 + 1, STRING_TRAVERSAL_FACTOR)
                .saturating_add(chars.saturating_add(1)),
        };
        ctx.budget.charge(cost)?;
        let sep_bytes = match args.first() {
            Some(Value::String(st)) => st.as_str().len() as u64,
            _ => 0,
        };
        super::strings::check_len(bytes.saturating_add(seps.saturating_mul(sep_bytes)))?;
    }
    list_member(method, l, args)
}

fn list_member<'a>(
    method: Method,
    l: &List<'a>,
    args: &mut Vec<Value<'a>>,
) -> Result<Value<'a>, EvalError> {
    match (method, args.len()) {
        (Method::Size, 0) => Ok(Value::Int(
            i64::try_from(l.len()).map_err(|_| EvalError::overflow())?,
        )),
        (Method::Join, 0 | 1) => {
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
        (Method::Slice, 2) => {
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
        (Method::Flatten, 0 | 1) => {
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
        (Method::Distinct, 0) => {
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
        (Method::Reverse, 0) => {
            let mut v = l.to_vec();
            v.reverse();
            Ok(Value::list(v))
        }
        (Method::Sort, 0) => {
            let mut v = l.to_vec();
            check_sortable(&v)?;
            let mut err = None;
            palisade_json::sort::sort_by(&mut v, |a, b| match a.compare(b) {
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
        (Method::SortByAssociatedKeys, 1) => match args.first() {
            Some(Value::List(keys)) => sort_by_keys(l, keys),
            _ => nso(),
        },
        (Method::First, 0) => Ok(Value::Optional(l.get(0).map(Rc::new))),
        (Method::Last, 0) => Ok(Value::Optional(
            l.len().checked_sub(1).and_then(|i| l.get(i)).map(Rc::new),
        )),
        (Method::IsSorted, 0) => Ok(Value::Bool(lists::is_sorted(&l.to_vec(), ordering))),
        (Method::Sum, 0) => {
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
        (Method::Min | Method::Max, 0) => {
            let items = l.to_vec();
            let r = if method == Method::Min {
                lists::min(&items, ordering)
            } else {
                lists::max(&items, ordering)
            };
            r.map_err(|e| EvalError::new(e.to_string()))
        }
        (Method::IndexOf | Method::LastIndexOf, 1) => {
            let items = l.to_vec();
            let target = arg(args, 0)?;
            let mut err = None;
            let eq = equality(&mut err);
            let i = if method == Method::IndexOf {
                lists::index_of(&items, target, eq)
            } else {
                lists::last_index_of(&items, target, eq)
            };
            or_err(Value::Int(i), err)
        }
        _ => nso(),
    }
}

/// cel-go's `@sortByAssociatedKeys` (ext/lists.go `sortListByAssociatedKeys`), what `sortBy` expands to: the
/// elements of `l` in the order Go's `sort.Slice` puts their `keys` in, equal keys included ([`gosort`]).
///
/// The keys are the list's own, mapped (no expression can name `@sortByAssociatedKeys`): as many as its elements, so
/// cel-go's error for lists of different sizes cannot arise.
fn sort_by_keys<'a>(l: &List<'a>, keys: &List<'a>) -> Result<Value<'a>, EvalError> {
    let n = l.len();
    let keys = keys.to_vec();
    let Some(first) = keys.first() else {
        return Ok(Value::List(l.clone()));
    };
    // the types that implement cel-go's `traits.Comparer`
    if !matches!(
        first,
        Value::Bool(_)
            | Value::Int(_)
            | Value::Uint(_)
            | Value::Double(_)
            | Value::String(_)
            | Value::Bytes(_)
            | Value::Duration(_)
            | Value::Timestamp(_)
    ) {
        return Err(EvalError::new("list elements must be comparable"));
    }
    // one variant of `Value` for each of these types
    let kind = std::mem::discriminant(first);
    let mut mixed = false;
    let order = gosort::slice_order(n, &mut |a, b| match (keys.get(a), keys.get(b)) {
        (Some(x), Some(y))
            if std::mem::discriminant(x) == kind && std::mem::discriminant(y) == kind =>
        {
            // a NaN compares as an error in cel-go, so not less
            matches!(x.compare(y), Ok(Some(Ordering::Less)))
        }
        _ => {
            mixed = true;
            false
        }
    });
    if mixed {
        return Err(EvalError::new("list elements must have the same type"));
    }
    let items = l.to_vec();
    Ok(Value::list(
        order
            .into_iter()
            .filter_map(|i| items.get(i).cloned())
            .collect(),
    ))
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

/// The cost of `lists.range(n)`: trackListOutputSize, the `n` elements it builds (none when `n` is negative).
pub fn range_cost(n: i64) -> u64 {
    allocating(n.max(0) as f64)
}

/// `lists.range(n)`
pub fn range<'a>(args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    if args.len() != 1 {
        return nso();
    }
    let n = int_arg(args, 0)?;
    // the cost limit normally stops this first; the cap holds even without a budget
    if n > 10_000_000 {
        return Err(EvalError::new(format!("lists.range({n}) is too large")));
    }
    Ok(Value::list((0..n.max(0)).map(Value::Int).collect()))
}
