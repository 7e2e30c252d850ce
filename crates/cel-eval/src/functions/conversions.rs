//! The standard type conversions (`int`, `uint`, `double`, `string`, `bytes`, `bool`,
//! `timestamp`, `duration`), at run time and, for a constant, when the program is compiled.

use std::rc::Rc;

use super::args::nso;
use super::names::{Conversion, Function};
use super::strings;
use crate::cost::Dialect;
use crate::error::EvalError;
use crate::time::{Duration, Timestamp};
use crate::value::{Const, Value};

/// `int(v)`, `string(v)` …, as `dialect`'s cel-go release converts.
pub fn convert(conv: Conversion, v: Value<'_>, dialect: Dialect) -> Result<Value<'_>, EvalError> {
    match conv {
        Conversion::Int => to_int(v),
        Conversion::Uint => to_uint(v),
        Conversion::Double => to_double(v),
        Conversion::String => strings::to_string(v),
        Conversion::Bytes => match v {
            Value::Bytes(b) => Ok(Value::Bytes(b)),
            Value::String(s) => Ok(Value::Bytes(Rc::from(s.as_str().as_bytes()))),
            _ => nso(),
        },
        Conversion::Bool => match v {
            Value::Bool(b) => Ok(Value::Bool(b)),
            Value::String(s) => match s.as_str() {
                "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Value::Bool(true)),
                "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Value::Bool(false)),
                _ => Err(EvalError::conversion("string", "bool")),
            },
            _ => nso(),
        },
        Conversion::Timestamp => match v {
            Value::Timestamp(t) => Ok(Value::Timestamp(t)),
            Value::String(s) => Timestamp::parse(s.as_str()).map(Value::Timestamp),
            Value::Int(i) => Timestamp::from_secs(i).map(Value::Timestamp),
            _ => nso(),
        },
        Conversion::Duration => match v {
            Value::Duration(d) => Ok(Value::Duration(d)),
            Value::String(s) => Duration::parse(s.as_str()).map(Value::Duration),
            // cel-go before v0.28 (kube-apiserver's v0.27) declares `duration(int)` and fails every call of it; from
            // v0.28 (339269b4) no such overload is declared
            Value::Int(_) if dialect == Dialect::Kubernetes => {
                Err(EvalError::conversion("int", "google.protobuf.Duration"))
            }
            _ => nso(),
        },
    }
}

/// A type conversion (`overloads.IsTypeConversionFunction`, but `type`) of a constant, done
/// when the program is compiled; `None` when it is not one or fails.
pub fn convert_const(function: Function, c: Const) -> Option<Const> {
    match function {
        Function::Dyn => Some(c),
        // a conversion that fails is left to run time, so the dialect, which words failures only, does not matter
        Function::Convert(conv) => {
            Const::scalar(&convert(conv, c.to_value(), Dialect::default()).ok()?)
        }
        _ => None,
    }
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
            .map_err(|_| EvalError::conversion("string", "int")),
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
            .map_err(|_| EvalError::conversion("string", "uint")),
        _ => nso(),
    }
}

fn to_double(v: Value<'_>) -> Result<Value<'static>, EvalError> {
    match v {
        Value::Double(d) => Ok(Value::Double(d)),
        Value::Int(i) => Ok(Value::Double(i as f64)),
        Value::Uint(u) => Ok(Value::Double(u as f64)),
        Value::String(s) => cel_core::parse_f64(s.as_str())
            .map(Value::Double)
            .ok_or_else(|| EvalError::conversion("string", "double")),
        _ => nso(),
    }
}

#[cfg(test)]
mod tests {
    /// `double(string)` reads as `str::parse::<f64>` did (cel-core's `parse_f64`, tested at length in cel-core, whose
    /// tests the workspace does not run).
    #[test]
    fn doubles_read_as_the_standard_library_reads_them() {
        let same = |s: &str| {
            let (ours, theirs) = (cel_core::parse_f64(s), s.parse::<f64>().ok());
            assert_eq!(ours.map(f64::to_bits), theirs.map(f64::to_bits), "{s:?}");
        };
        for s in [
            "",
            "-",
            "+",
            ".",
            "1.",
            ".5",
            "1e",
            "1e+",
            "1e5",
            "-0",
            "inf",
            "-Infinity",
            "NaN",
            "nan1",
            " 1",
            "1_0",
            "0.30000000000000004",
            "9007199254740993",
            "2.4703282292062328e-324",
            "2.4703282292062327e-324",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e-400",
            "1e400",
        ] {
            same(s);
        }
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x);
            same(&format!("{f:e}"));
            same(&format!("{f:.20e}"));
            same(&f.to_string());
        }
    }
}
