//! String functions: the standard library's (`size`, `contains`, `startsWith`, `endsWith`, the
//! regex ones through [`super::regex`]), cel-go's strings extension (indices count code points),
//! `strings.quote`, and the number formatting `string(x)` and `format` use; with their cost.

use palisade_cel_kubernetes::regex::Regex;

use super::args::{REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR, ceil_cost, int_arg, nso, str_arg};
use super::format::{Rendering, format};
use super::names::Method;
use super::regex as re;
use crate::cost::{Dialect, Meter};
use crate::error::EvalError;
use crate::value::Value;
use palisade_json::char_count;

/// The largest string an expression may build (8 MiB).
pub const MAX_STRING_BYTES: u64 = 8 << 20;

pub fn check_len(n: u64) -> Result<(), EvalError> {
    if n > MAX_STRING_BYTES {
        return Err(EvalError::new(format!(
            "string of {n} bytes exceeds the limit of {MAX_STRING_BYTES} bytes"
        )));
    }
    Ok(())
}

/// The size `replace` (`replace` true) / `format` will produce, checked against the limit.
fn output_len(replace: bool, s: &str, args: &[Value<'_>]) -> Result<u64, EvalError> {
    let n = match replace {
        true => {
            let (Some(from), Some(to)) = (str_arg(args, 0).ok(), str_arg(args, 1).ok()) else {
                return Ok(0);
            };
            let count = if from.is_empty() {
                char_count(s) as u64 + 1
            } else {
                s.matches(from).count() as u64
            };
            let limit = match args.get(2) {
                Some(Value::Int(n)) if *n >= 0 => (*n as u64).min(count),
                _ => count,
            };
            (s.len() as u64).saturating_add(limit.saturating_mul(to.len() as u64))
        }
        // the clauses render their arguments: bounded by the rendered size of the list,
        // which `format` checks as it goes
        false => s.len() as u64,
    };
    check_len(n)?;
    Ok(n)
}

/// Byte offset of code point `cp` (== len in code points gives the string's byte length).
fn byte_at(s: &str, cp: usize) -> Option<usize> {
    if cp == 0 {
        return Some(0);
    }
    let mut n = 0;
    for (i, _) in s.char_indices() {
        if n == cp {
            return Some(i);
        }
        n += 1;
    }
    if n == cp { Some(s.len()) } else { None }
}

fn cp_index_of(s: &str, byte: usize) -> i64 {
    i64::try_from(s.get(..byte).map(char_count).unwrap_or(0)).unwrap_or(-1)
}

/// The cost of `method` on a string of `size` characters (cel-go `costCall`, library/cost.go).
pub fn member_cost<'a>(
    ctx: &mut Meter<'_, 'a>,
    method: Method,
    s: &str,
    size: u64,
    args: &[Value<'a>],
) -> u64 {
    if ctx.dialect == Dialect::CelGo
        && let Some(cost) = cel_go_cost(ctx, method, size, args)
    {
        return cost;
    }
    match method {
        // `StartsWithString`, `EndsWithString`, `ExtQuoteString`: O(n)
        Method::StartsWith | Method::EndsWith => ceil_cost(size, STRING_TRAVERSAL_FACTOR),
        // `ContainsString`: O(n * m)
        Method::Contains => {
            let sub = args.first().map(|v| ctx.size(v)).unwrap_or(1);
            ceil_cost(size, STRING_TRAVERSAL_FACTOR) * ceil_cost(sub, STRING_TRAVERSAL_FACTOR)
        }
        // `MatchesString`; library/cost.go `find`, `findAll`
        Method::Matches | Method::Find | Method::FindAll => {
            let pat = args.first().map(|p| ctx.size(p)).unwrap_or(1);
            ceil_cost(1 + size, STRING_TRAVERSAL_FACTOR) * ceil_cost(pat, REGEX_LENGTH_FACTOR)
        }
        Method::Size => 1,
        // library/cost.go: `lowerAscii`, `upperAscii`, `substring`, `trim` one traversal,
        // `replace`, `split` two
        Method::LowerAscii | Method::UpperAscii | Method::Substring | Method::Trim => {
            ceil_cost(size, STRING_TRAVERSAL_FACTOR)
        }
        Method::Replace | Method::Split => ceil_cost(size, 2.0 * STRING_TRAVERSAL_FACTOR),
        // `indexOf`, `lastIndexOf`: library/cost.go traversalCost (bytes * 0.1, truncated)
        Method::IndexOf | Method::LastIndexOf => (s.len() as f64 * STRING_TRAVERSAL_FACTOR) as u64,
        // `ExtFormatString`: O(n) in the format string
        Method::Format | Method::FormatLocalized => ceil_cost(size, STRING_TRAVERSAL_FACTOR),
        // functions upstream leaves at 1 (charAt, reverse …) still read the string here: one
        // traversal more, so the work stays bounded by the budget
        _ => 1 + ceil_cost(size, STRING_TRAVERSAL_FACTOR),
    }
}

/// cel-go's price of the strings extension's `method` at version 5 (`ext/strings.go` trackers) on a string of `size`
/// characters, the part known before the call: the call (1), the traversal (`indexOf` and `lastIndexOf` the receiver's
/// characters times the substring's, `replace` the receiver's times the needle's, each at least 1), and the size of
/// the result where it is the receiver's (`lowerAscii`, `upperAscii`, `reverse`) or one character (`charAt`). The size
/// of a result that depends on the work (`trim`, `substring`, `replace`, `split`) is charged by [`member`] once it is
/// built, with `split`'s new list (10) charged here. `None`: a function the extension does not price (`format`, and
/// the standard library's, priced as in kube-apiserver).
fn cel_go_cost<'a>(
    ctx: &mut Meter<'_, 'a>,
    method: Method,
    size: u64,
    args: &[Value<'a>],
) -> Option<u64> {
    let traversal = ceil_cost(size, STRING_TRAVERSAL_FACTOR);
    let arg_size = |ctx: &mut Meter<'_, 'a>| args.first().map_or(1, |v| ctx.size(v));
    Some(match method {
        Method::CharAt => traversal.saturating_add(2),
        Method::IndexOf | Method::LastIndexOf => {
            let sub = arg_size(ctx);
            ceil_cost(size.saturating_mul(sub), STRING_TRAVERSAL_FACTOR).saturating_add(1)
        }
        Method::LowerAscii | Method::UpperAscii | Method::Reverse => {
            traversal.saturating_add(size).saturating_add(1)
        }
        Method::Trim | Method::Substring => traversal.saturating_add(1),
        Method::Replace => {
            let needle = arg_size(ctx).max(1);
            ceil_cost(size.max(1).saturating_mul(needle), STRING_TRAVERSAL_FACTOR).saturating_add(1)
        }
        Method::Split => ceil_cost(size.saturating_add(1), STRING_TRAVERSAL_FACTOR)
            .saturating_add(1 + crate::eval::LIST_CREATE_COST),
        _ => return None,
    })
}

/// `startsWith`: the prefix compared a word at a time ([`palisade_json::equal_bytes`]; `str::starts_with` is `memcmp`, a
/// byte loop on wasm32, and a policy's prefix is read for every container).
fn starts_with(s: &str, prefix: &str) -> bool {
    s.as_bytes()
        .get(..prefix.len())
        .is_some_and(|head| palisade_json::equal_bytes(head, prefix.as_bytes()))
}

/// `endsWith`, compared as [`starts_with`] compares.
fn ends_with(s: &str, suffix: &str) -> bool {
    s.len()
        .checked_sub(suffix.len())
        .and_then(|at| s.as_bytes().get(at..))
        .is_some_and(|tail| palisade_json::equal_bytes(tail, suffix.as_bytes()))
}

/// `method` on the string `s` (of `size` characters), its cost already charged; `regex` is the
/// literal pattern compiled with the program.
pub fn member<'a>(
    ctx: &mut Meter<'_, 'a>,
    method: Method,
    s: &str,
    size: u64,
    args: &[Value<'a>],
    regex: Option<&Regex>,
) -> Result<Value<'a>, EvalError> {
    let cel_go = ctx.dialect == Dialect::CelGo;
    if method == Method::Replace && !cel_go {
        // upstream charges two traversals of the receiver whatever the replacement; an
        // output beyond four times the input (`'a'.replace('', long)`) is charged for
        // the excess too, before it is built, so the work stays bounded by the budget
        let out = output_len(true, s, args)?;
        let within = (s.len() as u64).saturating_mul(4);
        ctx.budget.charge(ceil_cost(
            out.saturating_sub(within),
            STRING_TRAVERSAL_FACTOR,
        ))?;
    }
    let format = matches!(method, Method::Format | Method::FormatLocalized);
    if format {
        output_len(false, s, args)?;
    }
    if method == Method::Size && args.is_empty() {
        return Ok(Value::Int(
            i64::try_from(size).map_err(|_| EvalError::overflow())?,
        ));
    }
    let out = match (method, args.len()) {
        (Method::Size, 0) => {
            Value::Int(i64::try_from(char_count(s)).map_err(|_| EvalError::overflow())?)
        }
        (Method::Contains, 1) => Value::Bool(s.contains(str_arg(args, 0)?)),
        (Method::StartsWith, 1) => Value::Bool(starts_with(s, str_arg(args, 0)?)),
        (Method::EndsWith, 1) => Value::Bool(ends_with(s, str_arg(args, 0)?)),
        (Method::Matches | Method::Find | Method::FindAll, _) => {
            re::member(method, s, args, regex)?
        }
        _ => ext_member(method, s, args, ctx.dialect)?,
    };
    if cel_go
        && matches!(
            method,
            Method::Trim | Method::Substring | Method::Replace | Method::Split
        )
    {
        // cel-go's trackers charge what these built, by its size
        let built = ctx.size(&out);
        ctx.budget.charge(built)?;
    }
    if format && let Value::String(o) = &out {
        // the same for what `format` renders from its arguments (bounded by the string
        // cap as it is built): the excess over four times the format string is charged
        let within = (s.len() as u64).saturating_mul(4);
        ctx.budget.charge(ceil_cost(
            (o.as_str().len() as u64).saturating_sub(within),
            STRING_TRAVERSAL_FACTOR,
        ))?;
    }
    Ok(out)
}

/// `indexOf` and `lastIndexOf` (`method`) on `s`, offsets in characters, as `dialect`'s release answers them
/// ([`Dialect`]: cel-go `indexOfOffset`/`lastIndexOfOffset` in kube-apiserver's and approver-policy's, the
/// cel-spec suite's errors in the conformance environment).
fn index_of<'a>(
    dialect: Dialect,
    method: Method,
    s: &str,
    args: &[Value<'a>],
) -> Result<Value<'a>, EvalError> {
    let last = method == Method::LastIndexOf;
    let sub = str_arg(args, 0)?;
    let len = char_count(s);
    let len_i = i64::try_from(len).map_err(|_| EvalError::overflow())?;
    let offset = if args.len() == 2 {
        Some(int_arg(args, 1)?)
    } else {
        None
    };
    let out_of_range = |at: i64| Err(EvalError::new(format!("index out of range: {at}")));
    // where the search starts (`indexOf`), or the last character a match may start at (`lastIndexOf`)
    let at = match (dialect, offset) {
        (Dialect::Spec, at) => {
            let at = at.unwrap_or(if last { len_i } else { 0 });
            if !(0..=len_i).contains(&at) {
                return out_of_range(at);
            }
            at
        }
        // cel-go's `lastIndexOf` without an offset: '' is found at the end, a longer text (in bytes) nowhere
        (_, None) if last => {
            if sub.is_empty() {
                return Ok(Value::Int(len_i));
            }
            if s.len() < sub.len() {
                return Ok(Value::Int(-1));
            }
            len_i - 1
        }
        (_, at) => {
            let at = at.unwrap_or(0);
            if sub.is_empty() && dialect == Dialect::Kubernetes {
                return Ok(Value::Int(at));
            }
            if at < 0 {
                return out_of_range(at);
            }
            if sub.is_empty() {
                return Ok(Value::Int(at.min(len_i)));
            }
            if at >= len_i {
                return Ok(Value::Int(-1));
            }
            at
        }
    };
    let at = usize::try_from(at).map_err(|_| EvalError::overflow())?;
    let found = if last {
        let limit = byte_at(s, at.saturating_add(char_count(sub)).min(len)).unwrap_or(s.len());
        s.get(..limit)
            .unwrap_or("")
            .rfind(sub)
            .map(|pos| cp_index_of(s, pos))
    } else {
        let from = byte_at(s, at).unwrap_or(s.len());
        s.get(from..)
            .unwrap_or("")
            .find(sub)
            .map(|pos| cp_index_of(s, from + pos))
    };
    Ok(Value::Int(found.unwrap_or(-1)))
}

/// The strings extension's methods.
fn ext_member<'a>(
    method: Method,
    s: &str,
    args: &[Value<'a>],
    dialect: Dialect,
) -> Result<Value<'a>, EvalError> {
    match (method, args.len()) {
        (Method::CharAt, 1) => {
            let i = int_arg(args, 0)?;
            let len = char_count(s);
            match usize::try_from(i) {
                Ok(u) if u < len => Ok(Value::string(
                    s.chars().nth(u).map(|c| c.to_string()).unwrap_or_default(),
                )),
                Ok(u) if u == len => Ok(Value::string("")),
                _ => Err(EvalError::new(format!("index out of range: {i}"))),
            }
        }
        (Method::IndexOf | Method::LastIndexOf, 1 | 2) => index_of(dialect, method, s, args),
        (Method::LowerAscii, 0) => Ok(Value::string(s.to_ascii_lowercase())),
        (Method::UpperAscii, 0) => Ok(Value::string(s.to_ascii_uppercase())),
        (Method::Replace, 2 | 3) => {
            let from = str_arg(args, 0)?;
            let to = str_arg(args, 1)?;
            let n = if args.len() == 3 {
                int_arg(args, 2)?
            } else {
                -1
            };
            Ok(Value::string(if n < 0 {
                s.replace(from, to)
            } else {
                s.replacen(from, to, usize::try_from(n).unwrap_or(0))
            }))
        }
        (Method::Split, 1 | 2) => {
            let sep = str_arg(args, 0)?;
            let n = if args.len() == 2 {
                int_arg(args, 1)?
            } else {
                -1
            };
            Ok(Value::list(
                split(s, sep, n).into_iter().map(Value::string).collect(),
            ))
        }
        (Method::Substring, 1 | 2) => {
            let len = char_count(s);
            let start = int_arg(args, 0)?;
            let end = if args.len() == 2 {
                int_arg(args, 1)?
            } else {
                i64::try_from(len).unwrap_or(i64::MAX)
            };
            let su = usize::try_from(start).ok().filter(|u| *u <= len);
            let eu = usize::try_from(end).ok().filter(|u| *u <= len);
            match (su, eu) {
                (None, _) => Err(EvalError::new(format!("index out of range: {start}"))),
                (_, None) => Err(EvalError::new(format!("index out of range: {end}"))),
                (Some(a), Some(b)) if a > b => Err(EvalError::new(format!(
                    "invalid substring range. start: {start}, end: {end}"
                ))),
                (Some(a), Some(b)) => {
                    let ba = byte_at(s, a).unwrap_or(0);
                    let bb = byte_at(s, b).unwrap_or(s.len());
                    Ok(Value::string(s.get(ba..bb).unwrap_or("")))
                }
            }
        }
        (Method::Trim, 0) => Ok(Value::string(s.trim())),
        (Method::Reverse, 0) => Ok(Value::string(s.chars().rev().collect::<String>())),
        (Method::Format | Method::FormatLocalized, 1) => match args.first() {
            Some(Value::List(l)) => {
                let rendering = match method {
                    Method::FormatLocalized => Rendering::Localized,
                    _ => Rendering::Spec,
                };
                format(rendering, s, &l.to_vec()).map(Value::string)
            }
            _ => nso(),
        },
        _ => nso(),
    }
}

/// Go's `strings.SplitN`.
fn split(s: &str, sep: &str, n: i64) -> Vec<String> {
    if n == 0 {
        return Vec::new();
    }
    let parts: Vec<String> = if sep.is_empty() {
        s.chars().map(|c| c.to_string()).collect()
    } else {
        s.split(sep).map(str::to_string).collect()
    };
    if n < 0 {
        return parts;
    }
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    if parts.len() <= n {
        return parts;
    }
    if sep.is_empty() {
        let mut out: Vec<String> = parts.iter().take(n - 1).cloned().collect();
        out.push(parts.iter().skip(n - 1).cloned().collect::<String>());
        return out;
    }
    s.splitn(n, sep).map(str::to_string).collect()
}

/// `strings.quote`
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `%g` (and `%v`) of a double, `strconv.FormatFloat(d, 'g', -1, 64)`, as cel-go's `string(double)` writes it
/// (common/types/double.go `fmt.Sprintf("%g", …)`) and its errors print a key: the shortest digits, in exponent form
/// when the exponent is below -4 or at least 6 (strconv/ftoa.go: "if precision was the shortest possible, use
/// precision 6 for this decision"), so `string(1e6)` is `1e+06` and `string(123456.5)` is `123456.5`.
pub fn format_double_g(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    // The shortest digits that read back as `d`, from `Display` (which serde's messages link in anyway: `{:e}` would
    // link a second formatter).
    let (mut digits, exp) = decimal_digits(&d.abs().to_string());
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    let sign = if d.is_sign_negative() { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        let frac = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{frac}e{esign}{:02}", exp.abs());
    }
    // plain decimal
    let nd = i32::try_from(digits.len()).unwrap_or(0);
    if exp >= 0 {
        if exp + 1 >= nd {
            let zeros = "0".repeat(usize::try_from(exp + 1 - nd).unwrap_or(0));
            format!("{sign}{digits}{zeros}")
        } else {
            let (a, b) = digits.split_at(usize::try_from(exp + 1).unwrap_or(0));
            format!("{sign}{a}.{b}")
        }
    } else {
        let zeros = "0".repeat(usize::try_from(-exp - 1).unwrap_or(0));
        format!("{sign}0.{zeros}{digits}")
    }
}

/// The digits of a non-negative decimal as `Display` writes it (`0.00125`, `1250`), from the first that is not zero,
/// and the power of ten of that first digit: `("125", -3)`, `("1250", 3)`. Zero is `("", 0)`.
fn decimal_digits(s: &str) -> (String, i32) {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let int = int.trim_start_matches('0');
    if !int.is_empty() {
        let exp = i32::try_from(int.len()).unwrap_or(i32::MAX) - 1;
        return (format!("{int}{frac}"), exp);
    }
    let digits = frac.trim_start_matches('0');
    if digits.is_empty() {
        return (String::new(), 0);
    }
    let zeros = i32::try_from(frac.len() - digits.len()).unwrap_or(i32::MAX);
    (digits.to_owned(), -zeros - 1)
}

/// How `format` writes a double that is not finite (`%f`, `%e`, `%s`): `NaN`, `Infinity`, `-Infinity`.
pub(super) fn non_finite(d: f64) -> Option<&'static str> {
    if d.is_nan() {
        Some("NaN")
    } else if d.is_infinite() {
        Some(if d > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        None
    }
}

pub(super) fn fixed(d: f64, prec: usize) -> String {
    if let Some(s) = non_finite(d) {
        return s.into();
    }
    format!("{d:.prec$}")
}

pub(super) fn sci(d: f64, prec: usize) -> String {
    if let Some(s) = non_finite(d) {
        return s.into();
    }
    // Every double is a decimal of at most 1,074 places: written out whole, it is rounded here to `prec + 1` digits,
    // a tie to the even digit, as Go's `strconv` rounds.
    let (digits, mut exp) = decimal_digits(&format!("{:.1074}", d.abs()));
    let mut kept = digits
        .as_bytes()
        .get(..=prec)
        .unwrap_or(digits.as_bytes())
        .to_vec();
    kept.resize(prec + 1, b'0');
    let rest = digits.as_bytes().get(prec + 1..).unwrap_or_default();
    let round_up = match rest.split_first() {
        Some((&first, tail))
            if first > b'5' || (first == b'5' && tail.iter().any(|&c| c != b'0')) =>
        {
            true
        }
        Some((b'5', _)) => kept.last().is_some_and(|&c| (c - b'0') % 2 == 1),
        _ => false,
    };
    if round_up {
        let mut carry = true;
        for c in kept.iter_mut().rev() {
            if *c == b'9' {
                *c = b'0';
            } else {
                *c += 1;
                carry = false;
                break;
            }
        }
        if carry {
            kept.insert(0, b'1');
            kept.pop();
            exp += 1;
        }
    }
    let mut out = String::with_capacity(prec + 8);
    if d.is_sign_negative() {
        out.push('-');
    }
    let (first, frac) = kept.split_at(1);
    out.push_str(&String::from_utf8_lossy(first));
    if !frac.is_empty() {
        out.push('.');
        out.push_str(&String::from_utf8_lossy(frac));
    }
    let sign = if exp < 0 { '-' } else { '+' };
    out.push_str(&format!("e{sign}{:02}", exp.abs()));
    out
}

/// `string(x)`: the CEL string conversion of a value.
pub fn to_string(v: Value<'_>) -> Result<Value<'_>, EvalError> {
    Ok(match v {
        Value::String(s) => Value::String(s),
        Value::Int(i) => Value::string(i.to_string()),
        Value::Uint(u) => Value::string(u.to_string()),
        Value::Double(d) => Value::string(format_double_g(d)),
        Value::Bool(b) => Value::string(if b { "true" } else { "false" }),
        Value::Bytes(b) => Value::string(
            std::str::from_utf8(&b)
                .map_err(|_| EvalError::new("invalid UTF-8 in bytes, cannot convert to string"))?,
        ),
        Value::Timestamp(t) => Value::string(t.to_string()),
        Value::Duration(d) => Value::string(d.to_string()),
        Value::Type(t) => Value::string(t.name()),
        Value::Null => Value::string("null"),
        Value::Kube(k) => match k.to_cel_string() {
            Some(s) => Value::string(s),
            None => return nso(),
        },
        _ => return nso(),
    })
}

#[cfg(test)]
mod tests {
    use super::{format_double_g, sci};

    /// Rust's `{:e}` writes the same digits as Go's `%e` and `'g'`; only the exponent is spelled differently.
    fn go_exponent(rust: &str) -> (String, i32) {
        let (mant, exp) = rust.split_once('e').unwrap();
        (mant.to_owned(), exp.parse().unwrap())
    }

    fn doubles() -> impl Iterator<Item = f64> {
        let special = [
            0.5,
            1.5,
            2.5,
            0.125,
            9.5,
            99.5,
            0.95,
            9.999_999_5,
            1e21,
            1e20,
            123_456_789.0,
            1e-4,
            1e-5,
            5e-324,
            2.225_073_858_507_201e-308,
            f64::MAX,
            f64::MIN_POSITIVE,
            0.1,
            0.3,
            1.0 / 3.0,
            2.0_f64.powi(60),
            -0.0,
            0.0,
        ];
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let random = (0..20_000).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            f64::from_bits(x)
        });
        special
            .into_iter()
            .chain(special.into_iter().map(|d| -d))
            .chain(random)
            .filter(|d| d.is_finite())
    }

    #[test]
    fn scientific_notation_is_rounded_as_rust_rounds_the_exact_value() {
        for d in doubles() {
            for prec in [0, 1, 2, 3, 6, 16, 17, 25] {
                let (mant, exp) = go_exponent(&format!("{d:.prec$e}"));
                let sign = if exp < 0 { '-' } else { '+' };
                assert_eq!(
                    sci(d, prec),
                    format!("{mant}e{sign}{:02}", exp.abs()),
                    "{d:e} with {prec} digits"
                );
            }
        }
    }

    #[test]
    fn shortest_form_has_the_digits_of_rust_shortest_exponent_form() {
        for d in doubles().filter(|d| *d != 0.0) {
            let (mant, exp) = go_exponent(&format!("{d:e}"));
            let ours = format_double_g(d);
            let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
            let ours_digits: String = ours
                .split('e')
                .next()
                .unwrap()
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
            assert_eq!(
                ours_digits.trim_start_matches('0').trim_end_matches('0'),
                digits.trim_end_matches('0'),
                "{d:e}"
            );
            assert_eq!(ours.starts_with('-'), d < 0.0, "{d:e}");
            if (-4..6).contains(&exp) {
                assert!(!ours.contains('e'), "{ours} for {d:e}");
                assert_eq!(ours.parse::<f64>().unwrap(), d);
            } else {
                let sign = if exp < 0 { '-' } else { '+' };
                assert!(
                    ours.ends_with(&format!("e{sign}{:02}", exp.abs())),
                    "{ours} for {d:e}"
                );
            }
        }
        assert_eq!(format_double_g(1e21), "1e+21");
        // Go: fmt.Sprintf("%g", 1e20) is 1e+20, and 1e6 is 1e+06 (the shortest form decides at precision 6)
        assert_eq!(format_double_g(1e20), "1e+20");
        assert_eq!(format_double_g(1e6), "1e+06");
        assert_eq!(format_double_g(999999.0), "999999");
        assert_eq!(format_double_g(123456.5), "123456.5");
        assert_eq!(format_double_g(1234567.0), "1.234567e+06");
        assert_eq!(format_double_g(-12300.0), "-12300");
        assert_eq!(format_double_g(1.5e-5), "1.5e-05");
        assert_eq!(format_double_g(-0.0001), "-0.0001");
        assert_eq!(format_double_g(123.456), "123.456");
    }
}
