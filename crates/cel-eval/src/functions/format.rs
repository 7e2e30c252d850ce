//! The strings extension's `format`, in the two renderings cel-go has:
//!
//! - [`Rendering::Localized`], cel-go's `ext/formatting.go`, which the strings extension uses below version 4 and so
//!   kube-apiserver (`ext.Strings(ext.StringsVersion(2))`): `%f` and `%e` go through golang.org/x/text's printer for
//!   `en_US` (`1,234.500000`, `2.718280 × 10⁰⁰`, `∞`), and `%s` writes the elements of a list or map as CEL
//!   literals (`["a", 1.500000, duration("60s")]`, `{"k":true}`);
//! - [`Rendering::Spec`], cel-go's `ext/formatting_v2.go`, which the strings extension uses from version 4, so in
//!   `ext.Strings()` as cert-manager approver-policy declares it, and which cel-spec documents: numbers as Go's
//!   `strconv` writes them (`1.5`, `1e20` as `100000000000000000000`, `Infinity`), `%d`, `%f` and `%e` of any number,
//!   list and map elements as `%s` writes them (`[a, 1.5, 60s]`, `{k: true}`), precision at most 100.
//!
//! Both read a format string with the same clause syntax and errors (cel-go `parseFormatString`), here once, and cel-go
//! checks a literal format string against a literal argument list when the expression compiles (`stringFormatValidator`,
//! `stringFormatValidatorV2`), with the same parser and each rendering's type rules: [`check`].

use super::strings::{check_len, fixed, format_double_g, non_finite, sci, to_string};
use crate::error::{EvalError, EvalErrorKind};
use crate::value::{MAX_VALUE_DEPTH, Type, Value};

/// Which of cel-go's renderings a `format` call uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rendering {
    /// `ext/formatting.go` (strings extension versions 1 to 3: kube-apiserver's)
    Localized,
    /// `ext/formatting_v2.go` (version 4 and later: approver-policy's, cel-spec's)
    Spec,
}

/// The largest precision `formatting_v2.go` takes (cel-go's default from strings extension version 5).
const SPEC_MAX_PRECISION: u64 = 100;

/// One clause of a format string, after its `%`.
struct Clause {
    verb: u8,
    precision: Option<usize>,
    /// bytes the clause takes after its `%`
    len: usize,
}

fn error(parts: &[&str]) -> EvalError {
    EvalError::new(parts.concat())
}

/// cel-go `parseFormattingClause`: the clause at the start of `rest`, or cel-go's error for it.
fn clause(rendering: Rendering, rest: &[u8]) -> Result<Clause, EvalError> {
    const UNPARSED: &str = "could not parse formatting clause: ";
    const PRECISION: &str = "error while parsing precision: ";
    let mut at = 0;
    let mut precision = None;
    if rest.first() == Some(&b'.') {
        // Go's `strconv.Atoi` of the digits
        let mut n = Some(0u64);
        at = 1;
        while let Some(d) = rest.get(at).filter(|c| c.is_ascii_digit()) {
            n = n
                .and_then(|n| n.checked_mul(10))
                .and_then(|n| n.checked_add(u64::from(d - b'0')))
                .filter(|n| i64::try_from(*n).is_ok());
            at += 1;
        }
        if at >= rest.len() {
            return Err(error(&[
                UNPARSED,
                PRECISION,
                "could not find end of precision specifier",
            ]));
        }
        let Some(n) = n.filter(|_| at > 1) else {
            let digits =
                std::str::from_utf8(rest.get(1..at).unwrap_or_default()).unwrap_or_default();
            let why = if at == 1 {
                "invalid syntax"
            } else {
                "value out of range"
            };
            return Err(error(&[
                UNPARSED,
                PRECISION,
                "error while converting precision to integer: strconv.Atoi: parsing \"",
                digits,
                "\": ",
                why,
            ]));
        };
        if rendering == Rendering::Spec && n > SPEC_MAX_PRECISION {
            return Err(error(&[
                UNPARSED,
                PRECISION,
                "precision ",
                &n.to_string(),
                " exceeds maximum allowed precision ",
                &SPEC_MAX_PRECISION.to_string(),
            ]));
        }
        precision = Some(usize::try_from(n).unwrap_or(usize::MAX));
    }
    match rest.get(at) {
        Some(&verb) if b"sdfebxXo".contains(&verb) => Ok(Clause {
            verb,
            precision,
            len: at + 1,
        }),
        // Go reads the byte as a rune: a byte of a multi-byte character is written as its Latin-1 letter
        other => {
            let letter = char::from(other.copied().unwrap_or_default());
            Err(error(&[
                UNPARSED,
                "unrecognized formatting clause \"",
                letter.encode_utf8(&mut [0; 4]),
                "\"",
            ]))
        }
    }
}

/// What cel-go says when a clause is given a value of type `given` it does not take, after `error during formatting:
/// ` (`during`).
fn refused(rendering: Rendering, verb: u8, given: &Type, during: bool) -> EvalError {
    let spec = rendering == Rendering::Spec;
    let what = match verb {
        b'd' if spec => "decimal clause can only be used on ints, uints, and doubles",
        b'f' if spec => "fixed-point clause can only be used on ints, uints, and doubles",
        b'e' if spec => "scientific clause can only be used on ints, uints, and doubles",
        b'b' if spec => "only ints, uints, and bools can be formatted as binary",
        b'o' if spec => "octal clause can only be used on ints and uints",
        b'x' | b'X' if spec => "only ints, uints, bytes, and strings can be formatted as hex",
        b'd' => "decimal clause can only be used on integers",
        b'f' => "fixed-point clause can only be used on doubles",
        b'e' => "scientific clause can only be used on doubles",
        b'b' => "only integers and bools can be formatted as binary",
        b'o' => "octal clause can only be used on integers",
        b'x' | b'X' => "only integers, byte buffers, and strings can be formatted as hex",
        _ => {
            "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, \
             and timestamps"
        }
    };
    let during = if during { DURING } else { "" };
    error(&[during, what, ", was given ", given.name()])
}

const DURING: &str = "error during formatting: ";

/// Whether `rendering`'s clause `verb` takes a value of type `t` (cel-go's `stringFormatChecker` and
/// `stringFormatCheckerV2`, which compare kinds only: `list(int)` is a list).
fn takes(rendering: Rendering, verb: u8, t: &Type) -> bool {
    use Type as T;
    let spec = rendering == Rendering::Spec;
    match verb {
        b'd' | b'f' | b'e' if spec => matches!(t, T::Int | T::Uint | T::Double),
        b'd' | b'o' => matches!(t, T::Int | T::Uint),
        b'f' | b'e' => matches!(t, T::Double | T::String),
        b'b' => matches!(t, T::Int | T::Uint | T::Bool),
        b'x' | b'X' => matches!(t, T::Int | T::Uint | T::String | T::Bytes),
        _ => !matches!(t, T::Optional | T::Named(_)),
    }
}

/// cel-go `parseFormatString`: `fmt` with each clause replaced by what `render` writes for it and its argument's
/// index. `args` is how many arguments there are; `checking` follows the compile-time checker, which reads the
/// clause before it looks for its argument (the runtime looks first).
fn interpolate(
    rendering: Rendering,
    fmt: &str,
    args: usize,
    checking: bool,
    render: &mut dyn FnMut(&Clause, usize) -> Result<String, EvalError>,
) -> Result<String, EvalError> {
    let mut out = String::new();
    let mut rest = fmt;
    let mut index = 0;
    while let Some(at) = rest.find('%') {
        out.push_str(rest.get(..at).unwrap_or_default());
        let after = rest.get(at + 1..).unwrap_or_default();
        if let Some(r) = after.strip_prefix('%') {
            out.push('%');
            rest = r;
            continue;
        }
        let missing = index >= args;
        if missing && (!checking || !after.is_empty()) {
            return Err(error(&["index ", &index.to_string(), " out of range"]));
        }
        if after.is_empty() {
            return Err(EvalError::new("unexpected end of string"));
        }
        let c = clause(rendering, after.as_bytes())?;
        out.push_str(&render(&c, index)?);
        check_len(out.len() as u64)?;
        index += 1;
        rest = after.get(c.len..).unwrap_or_default();
    }
    out.push_str(rest);
    Ok(out)
}

/// The strings extension's `format` of `fmt` with `args`, as `rendering` writes it.
pub fn format(rendering: Rendering, fmt: &str, args: &[Value<'_>]) -> Result<String, EvalError> {
    interpolate(rendering, fmt, args.len(), false, &mut |c, i| {
        if let Some(n) = c.precision.filter(|n| *n > 1000) {
            // Palisade's own bound on the localized rendering: cel-go would build the string
            return Err(error(&["precision ", &n.to_string(), " is too large"]));
        }
        match args.get(i) {
            Some(arg) => render(rendering, c, arg),
            None => Err(EvalError::no_such_overload()),
        }
    })
}

/// One clause of `rendering` with its argument.
fn render(rendering: Rendering, c: &Clause, a: &Value<'_>) -> Result<String, EvalError> {
    let t = a.type_of();
    let localized = rendering == Rendering::Localized;
    if !takes(rendering, c.verb, &t) {
        return Err(refused(rendering, c.verb, &t, true));
    }
    let precision = c.precision.unwrap_or(6);
    let number = match a {
        Value::Double(d) => Some(*d),
        Value::Int(i) if !localized => Some(*i as f64),
        Value::Uint(u) if !localized => Some(*u as f64),
        Value::String(s) if localized => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    };
    let (neg, n) = match a {
        Value::Int(i) => (*i < 0, i.unsigned_abs()),
        Value::Uint(u) => (false, *u),
        Value::Bool(b) => (false, u64::from(*b)),
        _ => (false, 0),
    };
    let radix = match c.verb {
        b'b' => 2,
        b'o' => 8,
        _ => 16,
    };
    let mut digits = match (c.verb, a) {
        (b's', _) => {
            return text(rendering, a, false, 0).map_err(|e| match e.kind() {
                EvalErrorKind::DepthExceeded => e,
                _ => error(&[DURING, e.message()]),
            });
        }
        // cel-go builds `%.<precision>f` and `%<precision>e`: for `%e` the precision is the printer's width (`%0e`:
        // none)
        (b'f' | b'e', _) if localized && number.is_some() => {
            return Ok(localized_number(
                c.verb,
                number.unwrap_or_default(),
                precision,
            ));
        }
        (b'f', _) if number.is_some() => return Ok(fixed(number.unwrap_or_default(), precision)),
        (b'e', _) if number.is_some() => return Ok(sci(number.unwrap_or_default(), precision)),
        // `formatting_v2.go`: a double's shortest digits, never an exponent
        (b'd', Value::Double(d)) => return Ok(shortest(*d)),
        (b'd', Value::Int(_) | Value::Uint(_)) => n.to_string(),
        (b'b', Value::Int(_) | Value::Uint(_) | Value::Bool(_))
        | (b'o' | b'x' | b'X', Value::Int(_) | Value::Uint(_)) => {
            let mut rev = Vec::new();
            let mut n = n;
            loop {
                rev.push(HEX.get((n % radix) as usize).copied().unwrap_or(b'0'));
                n /= radix;
                if n == 0 {
                    break;
                }
            }
            rev.reverse();
            String::from_utf8(rev).unwrap_or_default()
        }
        (b'x' | b'X', Value::String(_) | Value::Bytes(_)) => {
            let bytes = match a {
                Value::String(s) => s.as_str().as_bytes(),
                Value::Bytes(b) => b,
                _ => &[],
            };
            let mut s = String::new();
            for b in bytes {
                for nibble in [b >> 4, b & 15] {
                    s.push(char::from(
                        HEX.get(usize::from(nibble)).copied().unwrap_or(b'0'),
                    ));
                }
            }
            s
        }
        _ => return Err(refused(rendering, c.verb, &t, true)),
    };
    if neg {
        digits.insert(0, '-');
    }
    if c.verb == b'X' {
        digits.make_ascii_uppercase();
    }
    Ok(digits)
}

/// A double as Go's `strconv.FormatFloat(d, 'f', -1, 64)` writes it, as `formatting_v2.go` writes one for `%s` and
/// `%d`: the shortest digits that read back as `d`, never an exponent (`1e20` is `100000000000000000000`), and
/// `NaN`, `Infinity`, `-Infinity`.
fn shortest(d: f64) -> String {
    non_finite(d).map_or_else(|| d.to_string(), str::to_owned)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// `%s` of `v` (`inner`: as an element of a list or map, which the localized rendering writes as a CEL literal), `depth`
/// lists and maps down: deeper than [`MAX_VALUE_DEPTH`] is `max recursion depth exceeded` (a request object may nest
/// 10,000 levels, more than a wasm stack holds frames of this).
fn text(
    rendering: Rendering,
    v: &Value<'_>,
    inner: bool,
    depth: usize,
) -> Result<String, EvalError> {
    if depth > MAX_VALUE_DEPTH {
        return Err(EvalError::depth());
    }
    let localized = rendering == Rendering::Localized;
    let literal = inner && localized;
    let quote = palisade_cel_kubernetes::goquote::quote;
    let mut parts: Vec<(String, String)> = Vec::new();
    let mut total = 0u64;
    let (open, close) = match v {
        Value::List(l) => {
            for x in l.iter() {
                let x = text(rendering, &x, true, depth + 1)?;
                total += x.len() as u64 + 2;
                check_len(total)?;
                parts.push((String::new(), x));
            }
            ('[', ']')
        }
        Value::Map(m) => {
            for (k, x) in m.entries() {
                if localized
                    && !matches!(
                        k,
                        Value::String(_) | Value::Bool(_) | Value::Int(_) | Value::Uint(_)
                    )
                {
                    return Err(error(&[
                        "no formatting function for map key of type ",
                        k.type_of().name(),
                    ]));
                }
                let k = text(rendering, &k, true, depth + 1)?;
                let x = String::from(if localized { ":" } else { ": " })
                    + &text(rendering, &x, true, depth + 1)?;
                total += (k.len() + x.len()) as u64 + 2;
                check_len(total)?;
                parts.push((k, x));
            }
            palisade_json::sort::sort_by(&mut parts, |a, b| a.0.cmp(&b.0));
            ('{', '}')
        }
        Value::String(s) if literal => return Ok(quote(s.as_str())),
        Value::Bytes(b) if !localized => return Ok(String::from_utf8_lossy(b).into_owned()),
        Value::Bytes(_) if inner => {
            return Ok(String::from("b") + &quote(&text(rendering, v, false, depth)?));
        }
        // Go's `%.6f` in a list or map, not the printer's
        Value::Double(d) if literal => {
            return Ok(match non_finite(*d) {
                Some(_) => quote(&format_double_g(*d)),
                None => fixed(*d, 6),
            });
        }
        Value::Double(d) if !localized => return Ok(shortest(*d)),
        // Go's `Duration.Seconds()`, a double, written as `%d` writes one
        Value::Duration(d) if !localized => {
            let nanos = d.nanos();
            let seconds = (nanos / 1_000_000_000) as f64 + (nanos % 1_000_000_000) as f64 / 1e9;
            return Ok(shortest(seconds) + "s");
        }
        Value::Timestamp(_) | Value::Duration(_) if literal => {
            let name = if let Value::Timestamp(_) = v {
                "timestamp("
            } else {
                "duration("
            };
            return Ok(String::from(name) + &quote(&text(rendering, v, false, depth)?) + ")");
        }
        Value::Optional(_) | Value::Authz(_) | Value::Kube(_) => {
            return Err(if literal {
                error(&["no formatting function for ", v.type_of().name()])
            } else {
                refused(rendering, b's', &v.type_of(), false)
            });
        }
        other => {
            return match to_string(other.clone()) {
                Ok(s) => Ok(s.as_str().unwrap_or_default().to_owned()),
                Err(e) if localized => Err(error(&[
                    "could not convert argument \"",
                    e.message(),
                    "\" to string",
                ])),
                Err(e) => Err(e),
            };
        }
    };
    let mut out = String::from(open);
    for (i, (k, x)) in parts.into_iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&k);
        out.push_str(&x);
    }
    out.push(close);
    Ok(out)
}

/// A double as x/text's `en` printer writes it for cel-go's `%.<precision>f` (`f`: `-1,234.500`) and `%<width>e`
/// (`e`: six decimals and an exponent of at least two superscript digits, `1.052033 × 10⁰³`, the spaces U+202F, padded
/// with spaces to `width` characters): `∞`, `NaN`, and no sign for `-0`.
fn localized_number(verb: u8, d: f64, precision: usize) -> String {
    let mut out = String::new();
    if d < 0.0 {
        out.push('-');
    }
    if d.is_nan() {
        out.push_str("NaN");
    } else if d.is_infinite() {
        out.push('∞');
    } else if verb == b'f' {
        let digits = fixed(d.abs(), precision);
        let int = digits.split('.').next().unwrap_or_default().len();
        for (i, c) in digits.char_indices() {
            if i > 0 && i < int && (int - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
    } else {
        let s = sci(d.abs(), 6);
        let (mantissa, exp) = s.split_once('e').unwrap_or_default();
        out.push_str(mantissa);
        out.push_str("\u{202f}×\u{202f}10");
        for c in exp.chars().skip_while(|c| *c == '+') {
            out.push(match c {
                '-' => '⁻',
                '1' => '¹',
                '2' => '²',
                '3' => '³',
                d => char::from_u32(0x2070 + d.to_digit(10).unwrap_or(0)).unwrap_or('⁰'),
            });
        }
    }
    if verb == b'e' {
        let pad = precision.saturating_sub(out.chars().count());
        out.insert_str(0, &" ".repeat(pad));
    }
    out
}

/// cel-go's compile-time check of `'…'.format([…])` in `rendering` (`stringFormatValidator`, kube-apiserver's;
/// `stringFormatValidatorV2`): the first issue of the format string `fmt` against the elements `args` of a literal list,
/// with the node it is reported at (`None`: the call). `type_of` gives a node's type (`None` for `dyn`); `nested` adds
/// the elements, or keys and values, of a node that is a list or map literal, which `%s` checks too, to a stack (last
/// first).
pub fn check<'n, A>(
    rendering: Rendering,
    fmt: &str,
    args: &[&'n A],
    type_of: &dyn Fn(&A) -> Option<Type>,
    nested: &dyn Fn(&'n A, &mut Vec<&'n A>),
) -> Option<(Option<&'n A>, String)> {
    let mut bad = None;
    let mut requested = 0;
    let result = interpolate(rendering, fmt, args.len(), true, &mut |c, i| {
        requested = i + 1;
        let mut stack: Vec<&'n A> = Vec::new();
        stack.extend(args.get(i));
        while let Some(a) = stack.pop() {
            if let Some(t) = type_of(a).filter(|t| !takes(rendering, c.verb, t)) {
                bad = Some(a);
                return Err(refused(rendering, c.verb, &t, true));
            }
            if c.verb == b's' {
                nested(a, &mut stack);
            }
        }
        Ok(String::new())
    });
    match result {
        Err(e) => Some((bad, e.message().to_owned())),
        Ok(_) if args.len() > requested => Some((
            None,
            format!(
                "too many arguments supplied to string.format (expected {requested}, got {})",
                args.len()
            ),
        )),
        Ok(_) => None,
    }
}
