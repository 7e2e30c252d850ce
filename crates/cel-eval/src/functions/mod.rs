//! Operators and functions: the standard library, cel-go's extensions Kubernetes enables
//! (strings, math, encoders, optionals, sets, lists) and the Kubernetes libraries (lists, regex,
//! authz, quantity, semver, ip, cidr, url, format), one module per library, as cel-go and
//! k8s.io/apiserver/pkg/cel/library split them.
//!
//! A call is resolved once, when the program is compiled, into a [`Call`]: the [`Function`] or
//! [`Method`] it names (from the checker's reference, or for an unchecked program the callee's
//! name) and its literal regex compiled. Evaluation dispatches on that identifier; among the
//! overloads of one function the runtime kinds of the receiver and arguments decide, as cel-go's
//! dynamic dispatch does for `dyn` operands. `no such overload` is the answer for any other call.

mod args;
mod authz;
mod conversions;
#[cfg(feature = "extensions")]
mod encoders;
mod format;
mod kube;
mod lists;
#[cfg(feature = "extensions")]
mod math;
mod names;
mod operators;
mod optional;
mod regex;
mod sets;
mod strings;
mod time;

use palisade_cel_kubernetes::regex::Regex;

use crate::cost::Meter;
use crate::error::EvalError;
use crate::value::Value;
use args::{STRING_TRAVERSAL_FACTOR, ceil_cost, nso};

pub use conversions::convert_const;
pub use format::{Rendering, check as check_format};
#[cfg(feature = "extensions")]
pub use names::MathFn;
pub use names::{Function, KubeFn, MAP_INSERT, Method, is_namespaced};
pub use operators::{binary, binary_cost, map_insert, negate};
pub use optional::is_zero;
pub use strings::format_double_g;

/// What a call expression calls, resolved when the program is compiled.
#[derive(Debug)]
pub struct Call {
    pub target: Target,
    /// The literal pattern of `matches`, `find` or `findAll`, compiled with the program.
    pub regex: Option<Regex>,
}

/// The function a call names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// `f(args)`, or a namespaced `ns.f(args)`.
    Global(Function),
    /// `recv.f(args)`.
    Method(Method),
    /// In a program compiled without the checker, `a.f(args)` where `a.f` is a namespaced
    /// function (`math.abs`) unless `a` is a comprehension variable: decided when evaluated.
    GlobalUnlessBound(Function, Method),
    /// A callee that is neither a name nor a selection.
    Unsupported,
}

/// Calls `f` (global or namespaced).
pub fn global<'a>(
    ctx: &mut Meter<'_, 'a>,
    f: Function,
    mut args: Vec<Value<'a>>,
    regex: Option<&Regex>,
) -> Result<Value<'a>, EvalError> {
    let cost = match (f, args.first()) {
        // `StringToBytes`, `BytesToString`: O(n); other conversions (string(string) is the
        // value itself) 1
        (Function::Convert(names::Conversion::String), Some(v @ Value::Bytes(_)))
        | (Function::Convert(names::Conversion::Bytes), Some(v @ Value::String(_))) => {
            ceil_cost(ctx.size(v), STRING_TRAVERSAL_FACTOR)
        }
        (Function::Matches, Some(v)) => {
            let pat = args.get(1).map(|p| ctx.size(p)).unwrap_or(1);
            ceil_cost(1 + ctx.size(v), STRING_TRAVERSAL_FACTOR)
                * ceil_cost(pat, args::REGEX_LENGTH_FACTOR)
        }
        (Function::Range, Some(Value::Int(n))) => lists::range_cost(*n),
        (Function::Sets(s), _) => sets::cost(s, &args),
        #[cfg(feature = "extensions")]
        (Function::Base64(_), Some(v)) => ceil_cost(ctx.size(v), STRING_TRAVERSAL_FACTOR).max(1),
        (Function::Quote, Some(v)) => ceil_cost(ctx.size(v), STRING_TRAVERSAL_FACTOR).max(1),
        (Function::Kube(k), Some(v)) => kube::global_cost(k, ctx.size(v)),
        _ => 1,
    };
    ctx.budget.charge(cost)?;
    match f {
        Function::Size => match args.as_slice() {
            [v] => size_of(ctx, v),
            _ => nso(),
        },
        Function::Matches => regex::matches(&args, regex),
        Function::Dyn if args.len() == 1 => Ok(args.swap_remove(0)),
        Function::Type => match args.as_slice() {
            [v] => Ok(Value::Type(v.type_of())),
            _ => nso(),
        },
        Function::Convert(c) if args.len() == 1 => {
            conversions::convert(c, args.swap_remove(0), ctx.dialect)
        }
        Function::Optional(o) => optional::call(o, args),
        #[cfg(feature = "extensions")]
        Function::Math(m) => math::call(m, args),
        #[cfg(feature = "extensions")]
        Function::Base64(b) => encoders::call(b, &args),
        Function::Quote => match args.as_slice() {
            [Value::String(s)] => Ok(Value::string(strings::quote(s.as_str()))),
            _ => nso(),
        },
        Function::Sets(s) => sets::call(s, &args),
        Function::Range => lists::range(&args),
        Function::MapInsert => map_insert(args),
        Function::ServiceAccount => kube::service_account(&args),
        Function::IsServiceAccount => kube::is_service_account(&args),
        Function::Kube(k) => kube::global(k, &args),
        Function::Dyn | Function::Convert(_) | Function::Unknown => nso(),
    }
}

/// Calls `method` on `recv`: the receiver's kind picks the library.
pub fn member<'a>(
    ctx: &mut Meter<'_, 'a>,
    method: Method,
    recv: Value<'a>,
    mut args: Vec<Value<'a>>,
    regex: Option<&Regex>,
) -> Result<Value<'a>, EvalError> {
    let size = ctx.size(&recv);
    let cost = match &recv {
        Value::String(s) => strings::member_cost(ctx, method, s.as_str(), size, &args),
        Value::List(l) => lists::member_cost(method, l, size, &args),
        Value::Authz(_) => authz::cost(ctx, method, &args),
        Value::Kube(k) => kube::member_cost(ctx, method, k, &args),
        _ => 1,
    };
    ctx.budget.charge(cost)?;
    match recv {
        Value::String(s) => strings::member(ctx, method, s.as_str(), size, &args, regex),
        Value::List(l) => lists::member(ctx, method, &l, &mut args),
        v @ (Value::Map(_) | Value::Bytes(_)) => match method {
            Method::Size if args.is_empty() => size_of(ctx, &v),
            _ => nso(),
        },
        Value::Timestamp(t) => time::timestamp_member(&t, method, &args, ctx.dialect),
        Value::Duration(d) => time::duration_member(&d, method, &args),
        Value::Optional(o) => optional::member(method, o, args),
        Value::Authz(a) => authz::member(method, &a, &args),
        Value::Kube(k) => kube::member(method, &k, &args),
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
