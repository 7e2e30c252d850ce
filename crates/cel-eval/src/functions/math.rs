//! cel-go's math extension (`math.greatest`, `math.least`, `math.abs`, the rounding, the
//! floating-point tests and the bit operations).

use std::cmp::Ordering;

use super::args::{arg, int_arg, nso};
use super::names::MathFn;
use crate::error::EvalError;
use crate::value::Value;

pub fn call<'a>(f: MathFn, args: Vec<Value<'a>>) -> Result<Value<'a>, EvalError> {
    match f {
        MathFn::Greatest | MathFn::Least => extreme(f == MathFn::Greatest, args),
        _ => math(f, &args),
    }
}

/// `math.greatest` (`greatest`) or `math.least` of the arguments or of one list argument.
fn extreme<'a>(greatest: bool, args: Vec<Value<'a>>) -> Result<Value<'a>, EvalError> {
    let name = if greatest {
        "math.greatest"
    } else {
        "math.least"
    };
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

fn math<'a>(func: MathFn, args: &[Value<'a>]) -> Result<Value<'a>, EvalError> {
    let a0 = arg(args, 0)?;
    let f = |g: fn(f64) -> f64| -> Result<Value<'a>, EvalError> {
        match a0 {
            Value::Double(d) => Ok(Value::Double(g(*d))),
            _ => nso(),
        }
    };
    match (func, args.len()) {
        (MathFn::Ceil, 1) => f(f64::ceil),
        (MathFn::Floor, 1) => f(f64::floor),
        (MathFn::Round, 1) => f(f64::round),
        (MathFn::Trunc, 1) => f(f64::trunc),
        (MathFn::IsNaN, 1) => match a0 {
            Value::Double(d) => Ok(Value::Bool(d.is_nan())),
            _ => nso(),
        },
        (MathFn::IsInf, 1) => match a0 {
            Value::Double(d) => Ok(Value::Bool(d.is_infinite())),
            _ => nso(),
        },
        (MathFn::IsFinite, 1) => match a0 {
            Value::Double(d) => Ok(Value::Bool(d.is_finite())),
            _ => nso(),
        },
        (MathFn::Abs, 1) => match a0 {
            Value::Int(i) => i
                .checked_abs()
                .map(Value::Int)
                .ok_or_else(EvalError::overflow),
            Value::Uint(u) => Ok(Value::Uint(*u)),
            Value::Double(d) => Ok(Value::Double(d.abs())),
            _ => nso(),
        },
        (MathFn::Sign, 1) => match a0 {
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
        (MathFn::BitNot, 1) => match a0 {
            Value::Int(i) => Ok(Value::Int(!i)),
            Value::Uint(u) => Ok(Value::Uint(!u)),
            _ => nso(),
        },
        (MathFn::BitAnd | MathFn::BitOr | MathFn::BitXor, 2) => match (a0, arg(args, 1)?) {
            (Value::Int(a), Value::Int(b)) => Ok(Value::Int(match func {
                MathFn::BitAnd => a & b,
                MathFn::BitOr => a | b,
                _ => a ^ b,
            })),
            (Value::Uint(a), Value::Uint(b)) => Ok(Value::Uint(match func {
                MathFn::BitAnd => a & b,
                MathFn::BitOr => a | b,
                _ => a ^ b,
            })),
            _ => nso(),
        },
        (MathFn::BitShiftLeft | MathFn::BitShiftRight, 2) => {
            let n = int_arg(args, 1)?;
            if n < 0 {
                return Err(EvalError::new(format!(
                    "math.{}() negative offset: {n}",
                    if func == MathFn::BitShiftLeft {
                        "bitShiftLeft"
                    } else {
                        "bitShiftRight"
                    }
                )));
            }
            let left = func == MathFn::BitShiftLeft;
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
