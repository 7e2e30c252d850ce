//! Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource.Quantity`) and the
//! CEL `quantity` library (`k8s.io/apiserver/pkg/cel/library/quantity.go`).
//!
//! A quantity keeps the same two internal representations as upstream: a fast `int64` with a
//! decimal scale, and an arbitrary-precision decimal. The distinction is observable from CEL
//! (`quantity("1.5Ki").isInteger()` is `false` upstream because the value is held as a
//! decimal), so it is kept here too.
//!
//! | CEL | Rust |
//! |---|---|
//! | `quantity(s)` | [`Quantity::parse`] |
//! | `isQuantity(s)` | [`is_quantity`] |
//! | `q.sign()` | [`Quantity::sign`] |
//! | `q.isLessThan(o)` / `q.isGreaterThan(o)` / `q.compareTo(o)` | [`Quantity::is_less_than`] / [`Quantity::is_greater_than`] / [`Quantity::compare_to`] |
//! | `q.add(o)` / `q.sub(o)` | [`Quantity::add`] / [`Quantity::sub`] |
//! | `q.add(i)` / `q.sub(i)` | [`Quantity::add_int`] / [`Quantity::sub_int`] |
//! | `q.asInteger()` / `q.isInteger()` | [`Quantity::as_integer`] / [`Quantity::is_integer`] |
//! | `q.asApproximateFloat()` | [`Quantity::as_approximate_float`] |
//! | `q == o` | [`PartialEq`] (numeric equality, like `Quantity.Equal`) |
//! | `string(q)` | [`std::fmt::Display`] (`Quantity.String()`) |

use std::cmp::Ordering;
use std::fmt;

use crate::bigint::{BigInt, BigUint, Dec, TooLarge};

/// The regular expression upstream's error message quotes.
const SPLIT_RE: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/// Errors from parsing and arithmetic, worded as upstream.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    /// `resource.ErrFormatWrong`.
    #[error("quantities must match the regular expression '{SPLIT_RE}'")]
    FormatWrong,
    /// `resource.ErrNumeric`.
    #[error("unable to parse numeric part of quantity")]
    Numeric,
    /// `resource.ErrSuffix`.
    #[error("unable to parse quantity's suffix")]
    Suffix,
    /// `asInteger()` on a quantity that is not an `int64` (quantity.go `quantityGetValue`).
    #[error("cannot convert value to integer")]
    NotInteger,
    /// Ours: the value would need more than 4096 decimal digits (upstream would allocate
    /// without bound).
    #[error("quantity is too large to represent")]
    TooLarge,
}

impl From<TooLarge> for QuantityError {
    fn from(_: TooLarge) -> Self {
        Self::TooLarge
    }
}

/// The format a quantity was written in, which its canonical string keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `12e6`
    DecimalExponent,
    /// `12Mi` (12 × 2^20)
    BinarySI,
    /// `12M` (12 × 10^6)
    DecimalSI,
}

#[derive(Clone, Debug)]
enum Amount {
    /// `value × 10^scale` (upstream `int64Amount`).
    Int { value: i64, scale: i32 },
    /// Upstream `infDecAmount`.
    Dec(Dec),
}

/// A Kubernetes resource quantity.
#[derive(Clone, Debug)]
pub struct Quantity {
    amount: Amount,
    format: Format,
    /// The original text when upstream caches it as the canonical form.
    cached: Option<String>,
}

/// `isQuantity(s)`: whether `s` parses as a quantity.
pub fn is_quantity(s: &str) -> bool {
    Quantity::parse(s).is_ok()
}

struct Parts<'a> {
    positive: bool,
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// Upstream `parseQuantityString`.
fn split(s: &str) -> Result<Parts<'_>, QuantityError> {
    let bytes = s.as_bytes();
    let end = bytes.len();
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let sub = |a: usize, b: usize| s.get(a..b).unwrap_or("");
    let mut positive = true;
    let mut pos = 0;
    match at(0) {
        b'-' if end > 0 => {
            positive = false;
            pos += 1;
        }
        b'+' if end > 0 => pos += 1,
        _ => {}
    }
    // leading zeroes
    loop {
        if pos >= end {
            return Ok(Parts {
                positive,
                value: "0",
                num: "0",
                denom: "",
                suffix: "",
            });
        }
        if at(pos) == b'0' {
            pos += 1;
        } else {
            break;
        }
    }
    let num_start = pos;
    let mut i = pos;
    while i < end && is_digit(at(i)) {
        i += 1;
    }
    if i >= end {
        return Ok(Parts {
            positive,
            value: s,
            num: sub(num_start, end),
            denom: "",
            suffix: "",
        });
    }
    let mut num = sub(num_start, i);
    pos = i;
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if pos < end && at(pos) == b'.' {
        pos += 1;
        let start = pos;
        let mut j = pos;
        while j < end && is_digit(at(j)) {
            j += 1;
        }
        if j >= end {
            return Ok(Parts {
                positive,
                value: s,
                num,
                denom: sub(start, end),
                suffix: "",
            });
        }
        denom = sub(start, j);
        pos = j;
    }
    let value = sub(0, pos);
    let suffix_start = pos;
    let mut j = pos;
    while j < end && b"eEinumkKMGTP".contains(&at(j)) {
        j += 1;
    }
    if j >= end {
        return Ok(Parts {
            positive,
            value,
            num,
            denom,
            suffix: sub(suffix_start, end),
        });
    }
    pos = j;
    if matches!(at(pos), b'-' | b'+') {
        pos += 1;
    }
    let mut k = pos;
    while k < end && is_digit(at(k)) {
        k += 1;
    }
    if k >= end {
        return Ok(Parts {
            positive,
            value,
            num,
            denom,
            suffix: sub(suffix_start, end),
        });
    }
    Err(QuantityError::FormatWrong)
}

/// Upstream `suffixer.interpret`: (base, exponent, format).
fn interpret(suffix: &str) -> Option<(u32, i32, Format)> {
    let dec = |e| Some((10, e, Format::DecimalSI));
    let bin = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "" => dec(0),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        "Ki" => bin(10),
        "Mi" => bin(20),
        "Gi" => bin(30),
        "Ti" => bin(40),
        "Pi" => bin(50),
        "Ei" => bin(60),
        _ => {
            let rest = suffix.strip_prefix(['e', 'E'])?;
            if rest.is_empty() {
                return None;
            }
            let parsed = parse_go_int64(rest)?;
            // upstream converts the int64 to int32 with Go's wrapping conversion
            Some((10, parsed as i32, Format::DecimalExponent))
        }
    }
}

/// `strconv.ParseInt(s, 10, 64)`.
fn parse_go_int64(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first() {
        Some(b'+') => (false, s.get(1..)?),
        Some(b'-') => (true, s.get(1..)?),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut v: i128 = 0;
    for b in digits.bytes() {
        v = v.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        if v > i128::from(i64::MAX) + 1 {
            return None;
        }
    }
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}

/// `inf.Dec.SetString`: optional sign, digits with at most one point, at least one digit.
fn parse_dec(s: &str) -> Option<Dec> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, s.get(1..)?),
        Some(b'+') => (false, s.get(1..)?),
        _ => (false, s),
    };
    let mut digits = Vec::with_capacity(body.len());
    let mut point: Option<usize> = None;
    for b in body.bytes() {
        match b {
            b'.' if point.is_none() => point = Some(digits.len()),
            b'0'..=b'9' => digits.push(b),
            _ => return None,
        }
    }
    if digits.is_empty() {
        return None;
    }
    let scale = point.map_or(0, |p| digits.len() - p) as i64;
    let mag = BigUint::from_decimal(&digits);
    Some(Dec::new(BigInt::from_parts(neg, mag), scale))
}

fn max_allowed() -> Dec {
    Dec::new(BigInt::from_i64(i64::MAX), 0)
}

impl Quantity {
    /// `resource.ParseQuantity`: parses Kubernetes' quantity grammar.
    pub fn parse(s: &str) -> Result<Self, QuantityError> {
        if s.is_empty() {
            return Err(QuantityError::FormatWrong);
        }
        if s == "0" {
            return Ok(Self {
                amount: Amount::Int { value: 0, scale: 0 },
                format: Format::DecimalSI,
                cached: Some(s.to_string()),
            });
        }
        let parts = split(s)?;
        let (base, exponent, mut format) = interpret(parts.suffix).ok_or(QuantityError::Suffix)?;

        // fast path: an int64 with a scale
        let num_len = parts.num.len() as i64;
        let denom_len = parts.denom.len() as i64;
        let mut scale: i32 = 0;
        let mut mantissa: i64 = 1;
        let precision: i64 = match format {
            Format::DecimalExponent | Format::DecimalSI => {
                scale = exponent;
                18 - (num_len + denom_len)
            }
            Format::BinarySI => {
                if exponent >= 0 && parts.denom.is_empty() {
                    mantissa = 1i64 << (exponent as u32 & 63);
                    15 - num_len - i64::from(exponent * 3 / 10) - 1
                } else {
                    -1
                }
            }
        };
        if precision >= 0 {
            scale = scale.wrapping_sub(denom_len as i32);
            if scale >= -9 {
                let shifted = format!("{}{}", parts.num, parts.denom);
                let value: i64 = shifted.parse().map_err(|_| QuantityError::Numeric)?;
                if let Some(mut result) = value.checked_mul(mantissa) {
                    if !parts.positive {
                        result = -result;
                    }
                    let keep = match format {
                        Format::BinarySI => exponent % 10 == 0 && (value & 0x07) != 0,
                        _ => {
                            scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
                        }
                    };
                    return Ok(Self {
                        amount: Amount::Int {
                            value: result,
                            scale,
                        },
                        format,
                        cached: keep.then(|| s.to_string()),
                    });
                }
            }
        }

        // slow path: an arbitrary-precision decimal
        let mut amount = parse_dec(parts.value).ok_or(QuantityError::Numeric)?;
        if base == 10 {
            amount.scale = amount.scale.wrapping_sub(i64::from(exponent));
        } else {
            let mut mag = amount.unscaled.mag().clone();
            mag.shl_small(exponent.clamp(0, 63) as u32);
            amount = Dec::new(
                BigInt::from_parts(amount.unscaled.is_neg(), mag),
                amount.scale,
            );
        }
        let negative = amount.sign() < 0;
        if negative {
            amount = amount.negated();
        }
        if amount.sign() != 0 {
            amount = amount.round_up(9)?;
        }
        if format == Format::BinarySI && amount.cmp(&max_allowed()) == Ordering::Greater {
            amount = max_allowed();
        }
        let one = Dec::new(BigInt::from_i64(1), 0);
        if format == Format::BinarySI && amount.cmp(&one) == Ordering::Less && amount.sign() > 0 {
            format = Format::DecimalSI;
        }
        if negative {
            amount = amount.negated();
        }
        Ok(Self {
            amount: Amount::Dec(amount),
            format,
            cached: None,
        })
    }

    /// `resource.NewQuantity(v, DecimalExponent)`, which CEL's `add(int)` / `sub(int)` use.
    pub fn from_int(value: i64) -> Self {
        Self {
            amount: Amount::Int { value, scale: 0 },
            format: Format::DecimalExponent,
            cached: None,
        }
    }

    /// The format the quantity is written in.
    pub fn format(&self) -> Format {
        self.format
    }

    fn as_dec(&self) -> Dec {
        match &self.amount {
            Amount::Int { value, scale } => Dec::new(BigInt::from_i64(*value), -i64::from(*scale)),
            Amount::Dec(d) => d.clone(),
        }
    }

    fn is_zero(&self) -> bool {
        self.sign() == 0
    }

    /// `q.sign()`: -1, 0 or 1.
    pub fn sign(&self) -> i64 {
        match &self.amount {
            Amount::Int { value, .. } => value.signum(),
            Amount::Dec(d) => i64::from(d.sign()),
        }
    }

    /// Numeric comparison (`Quantity.Cmp`).
    pub fn compare(&self, other: &Self) -> Ordering {
        self.as_dec().cmp(&other.as_dec())
    }

    /// `q.compareTo(o)`: -1, 0 or 1.
    pub fn compare_to(&self, other: &Self) -> i64 {
        match self.compare(other) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }
    }

    /// `q.isLessThan(o)`.
    pub fn is_less_than(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Less
    }

    /// `q.isGreaterThan(o)`.
    pub fn is_greater_than(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Greater
    }

    /// `q.add(o)`: a new quantity, the receiver is unchanged (`Quantity.Add` on a copy).
    pub fn add(&self, other: &Self) -> Result<Self, QuantityError> {
        let mut out = self.clone();
        out.cached = None;
        if let (
            Amount::Int {
                value: av,
                scale: ascale,
            },
            Amount::Int {
                value: bv,
                scale: bscale,
            },
        ) = (&self.amount, &other.amount)
        {
            if *av == 0 {
                out.format = other.format;
            }
            if let Some((value, scale)) = int_add(*av, *ascale, *bv, *bscale) {
                out.amount = Amount::Int { value, scale };
                return Ok(out);
            }
        } else if self.is_zero() {
            out.format = other.format;
        }
        out.amount = Amount::Dec(self.as_dec().add(&other.as_dec())?);
        Ok(out)
    }

    /// `q.sub(o)`.
    pub fn sub(&self, other: &Self) -> Result<Self, QuantityError> {
        let mut out = self.clone();
        out.cached = None;
        if self.is_zero() {
            out.format = other.format;
        }
        if let (
            Amount::Int {
                value: av,
                scale: ascale,
            },
            Amount::Int {
                value: bv,
                scale: bscale,
            },
        ) = (&self.amount, &other.amount)
            && let Some(neg) = bv.checked_neg()
            && let Some((value, scale)) = int_add(*av, *ascale, neg, *bscale)
        {
            out.amount = Amount::Int { value, scale };
            return Ok(out);
        }
        out.amount = Amount::Dec(self.as_dec().add(&other.as_dec().negated())?);
        Ok(out)
    }

    /// `q.add(i)`.
    pub fn add_int(&self, i: i64) -> Result<Self, QuantityError> {
        self.add(&Self::from_int(i))
    }

    /// `q.sub(i)`.
    pub fn sub_int(&self, i: i64) -> Result<Self, QuantityError> {
        self.sub(&Self::from_int(i))
    }

    /// `Quantity.AsInt64`: only an int64 amount with a non-negative scale converts.
    fn as_int64(&self) -> Option<i64> {
        match &self.amount {
            Amount::Dec(_) => None,
            Amount::Int { value, scale } => {
                if *scale < 0 {
                    None
                } else {
                    positive_scale(*value, i64::from(*scale))
                }
            }
        }
    }

    /// `q.asInteger()`.
    pub fn as_integer(&self) -> Result<i64, QuantityError> {
        self.as_int64().ok_or(QuantityError::NotInteger)
    }

    /// `q.isInteger()`.
    pub fn is_integer(&self) -> bool {
        self.as_int64().is_some()
    }

    /// `q.asApproximateFloat()` (`Quantity.AsApproximateFloat64`).
    pub fn as_approximate_float(&self) -> f64 {
        let (base, exponent) = match &self.amount {
            Amount::Dec(d) => (d.unscaled.to_f64(), d.scale.saturating_neg()),
            Amount::Int { value, scale } => (*value as f64, i64::from(*scale)),
        };
        if exponent == 0 {
            return base;
        }
        base * go_pow10(exponent)
    }

    /// `Quantity.String()`: the canonical form (or the original text when upstream keeps it).
    fn canonical(&self) -> String {
        if let Some(s) = &self.cached {
            return s.clone();
        }
        if self.is_zero() {
            return "0".to_string();
        }
        let mut format = self.format;
        let mut rounded: Option<Amount> = None;
        if format == Format::BinarySI {
            let dec = self.as_dec();
            let lo = Dec::new(BigInt::from_i64(-1024), 0);
            let hi = Dec::new(BigInt::from_i64(1024), 0);
            if dec.cmp(&lo) == Ordering::Greater && dec.cmp(&hi) == Ordering::Less {
                format = Format::DecimalSI;
            } else {
                match self.as_scale0() {
                    Some((r, true)) => rounded = Some(r),
                    _ => format = Format::DecimalSI,
                }
            }
        }
        match (format, rounded) {
            (Format::BinarySI, Some(r)) => {
                let (number, exponent) = canonical_base1024(&r);
                let suffix = match exponent.saturating_mul(10) {
                    10 => "Ki",
                    20 => "Mi",
                    30 => "Gi",
                    40 => "Ti",
                    50 => "Pi",
                    60 => "Ei",
                    _ => "",
                };
                format!("{number}{suffix}")
            }
            _ => {
                let (number, exponent) = canonical_base10(&self.amount);
                let suffix = match format {
                    Format::DecimalExponent => {
                        if exponent == 0 {
                            String::new()
                        } else {
                            format!("e{exponent}")
                        }
                    }
                    _ => match exponent {
                        -9 => "n",
                        -6 => "u",
                        -3 => "m",
                        3 => "k",
                        6 => "M",
                        9 => "G",
                        12 => "T",
                        15 => "P",
                        18 => "E",
                        // upstream's suffix table has no entry: the suffix is dropped
                        _ => "",
                    }
                    .to_string(),
                };
                format!("{number}{suffix}")
            }
        }
    }

    /// `AsScale(0)`: rounded to an integer away from zero, and whether that was exact.
    fn as_scale0(&self) -> Option<(Amount, bool)> {
        match &self.amount {
            Amount::Int { value, scale } => {
                if *scale >= 0 {
                    Some((self.amount.clone(), true))
                } else {
                    let (v, exact) = negative_scale(*value, -i64::from(*scale));
                    Some((Amount::Int { value: v, scale: 0 }, exact))
                }
            }
            Amount::Dec(d) => {
                let r = d.round_up(0).ok()?;
                let exact = r.cmp(d) == Ordering::Equal;
                Some((Amount::Dec(r), exact))
            }
        }
    }
}

/// `int64Amount.Add`.
fn int_add(av: i64, ascale: i32, bv: i64, bscale: i32) -> Option<(i64, i32)> {
    if bv == 0 {
        return Some((av, ascale));
    }
    if av == 0 {
        return Some((bv, bscale));
    }
    match ascale.cmp(&bscale) {
        Ordering::Equal => Some((av.checked_add(bv)?, ascale)),
        Ordering::Greater => {
            let c = positive_scale(av, i64::from(ascale) - i64::from(bscale))?;
            Some((c.checked_add(bv)?, bscale))
        }
        Ordering::Less => {
            let c = positive_scale(bv, i64::from(bscale) - i64::from(ascale))?;
            Some((av.checked_add(c)?, ascale))
        }
    }
}

/// `positiveScaleInt64`: `base × 10^scale` without overflow.
fn positive_scale(base: i64, scale: i64) -> Option<i64> {
    if base == 0 {
        return Some(0);
    }
    let mut value = base;
    for _ in 0..scale {
        value = value.checked_mul(10)?;
    }
    Some(value)
}

/// `negativeScaleInt64`: `base / 10^scale` rounded away from zero, and whether exact.
fn negative_scale(base: i64, scale: i64) -> (i64, bool) {
    if scale == 0 {
        return (base, true);
    }
    let mut value = base;
    let mut fraction = false;
    for _ in 0..scale {
        if !fraction && value % 10 != 0 {
            fraction = true;
        }
        value /= 10;
        if value == 0 {
            if fraction {
                return (if base > 0 { 1 } else { -1 }, false);
            }
            return (0, true);
        }
    }
    if fraction {
        if base > 0 {
            value += 1;
        } else {
            value -= 1;
        }
    }
    (value, !fraction)
}

/// `removeInt64Factors`.
fn remove_int_factors(value: i64, base: i64) -> (i64, i64) {
    let negative = value < 0;
    let mut result = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    let mut times = 0;
    while result >= base && result % base == 0 {
        times += 1;
        result /= base;
    }
    if negative {
        result = result.wrapping_neg();
    }
    (result, times)
}

/// `removeBigIntFactors` for a signed decimal mantissa.
fn remove_big_factors(mut mag: BigUint, factor: u32) -> (BigUint, i64) {
    let mut times = 0;
    while !mag.is_zero() {
        let mut q = mag.clone();
        if q.divrem_small(factor) != 0 {
            break;
        }
        mag = q;
        times += 1;
    }
    (mag, times)
}

/// `AsCanonicalBytes`: the number and a decimal exponent that is a multiple of 3.
fn canonical_base10(amount: &Amount) -> (String, i64) {
    match amount {
        Amount::Int { value, scale } => {
            let (mut number, times) = remove_int_factors(*value, 10);
            let mut exponent = i64::from(*scale) + times;
            let fallback =
                || canonical_base10_dec(&Dec::new(BigInt::from_i64(*value), -i64::from(*scale)));
            match exponent % 3 {
                1 | -2 => match number.checked_mul(10) {
                    Some(n) => {
                        number = n;
                        exponent -= 1;
                    }
                    None => return fallback(),
                },
                2 | -1 => match number.checked_mul(100) {
                    Some(n) => {
                        number = n;
                        exponent -= 2;
                    }
                    None => return fallback(),
                },
                _ => {}
            }
            (number.to_string(), exponent)
        }
        Amount::Dec(d) => canonical_base10_dec(d),
    }
}

fn canonical_base10_dec(d: &Dec) -> (String, i64) {
    let (mut mag, times) = remove_big_factors(d.unscaled.mag().clone(), 10);
    let mut exponent = d.scale.saturating_neg().saturating_add(times);
    while exponent % 3 != 0 {
        mag.mul_small(10);
        exponent -= 1;
    }
    let number = BigInt::from_parts(d.unscaled.is_neg(), mag).to_decimal_string();
    (number, exponent)
}

/// `AsCanonicalBase1024Bytes`: the number and a power of 1024.
fn canonical_base1024(amount: &Amount) -> (String, i64) {
    let dec_path = |d: &Dec| -> (String, i64) {
        let rounded = d.round_up(0).unwrap_or_else(|_| d.clone());
        let (mag, times) = remove_big_factors(rounded.unscaled.mag().clone(), 1024);
        (
            BigInt::from_parts(rounded.unscaled.is_neg(), mag).to_decimal_string(),
            times,
        )
    };
    match amount {
        Amount::Int { value, scale } => {
            let scaled = if *scale < 0 {
                Some(negative_scale(*value, -i64::from(*scale)).0)
            } else {
                positive_scale(*value, i64::from(*scale))
            };
            match scaled {
                Some(v) => {
                    let (n, times) = remove_int_factors(v, 1024);
                    (n.to_string(), times)
                }
                None => dec_path(&Dec::new(BigInt::from_i64(*value), -i64::from(*scale))),
            }
        }
        Amount::Dec(d) => dec_path(d),
    }
}

/// Go's `math.Pow10`, built from the same tables so results round identically.
fn go_pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e00, 1e01, 1e02, 1e03, 1e04, 1e05, 1e06, 1e07, 1e08, 1e09, 1e10, 1e11, 1e12, 1e13, 1e14,
        1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29,
        1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e00, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-00, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        let hi = POS32
            .get((n / 32) as usize)
            .copied()
            .unwrap_or(f64::INFINITY);
        let lo = TAB.get((n % 32) as usize).copied().unwrap_or(1.0);
        return hi * lo;
    }
    if (-323..=0).contains(&n) {
        let m = -n;
        let hi = NEG32.get((m / 32) as usize).copied().unwrap_or(0.0);
        let lo = TAB.get((m % 32) as usize).copied().unwrap_or(1.0);
        return hi / lo;
    }
    if n > 0 { f64::INFINITY } else { 0.0 }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Equal
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

#[cfg(test)]
mod tests;
