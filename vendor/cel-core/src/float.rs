//! `str::parse::<f64>` without the standard library's Eisel-Lemire table (`POWER_OF_FIVE_128`, 10 KB of wasm data
//! that does not compress): the same syntax, the same result for every input (the correctly rounded value, ties to
//! even, as IEEE 754 defines it and the standard library computes it), `None` where it returns an error.
//!
//! Inputs whose digits fit the exact fast path (at most 19 significant digits, a mantissa below 2^53 and a power of
//! ten up to 22) are one floating-point operation, as in the standard library; any other input is decided by exact
//! big-integer comparisons (a binary search over the bit patterns of `f64`, within a few units in the last place of
//! a floating-point estimate once two comparisons show the answer lies there), only its first 800 significant digits
//! read and the rest kept as "something non-zero follows" (a binary64 value or halfway point has at most 767
//! significant decimal digits, so the digits past 800 can only break a tie, as in the standard library).

use std::cmp::Ordering;

/// At most this many significant digits are read exactly (see the module documentation).
const MAX_DIGITS: usize = 800;

/// The powers of ten an `f64` holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The largest finite `f64`'s bits.
const MAX_FINITE: u64 = 0x7FEF_FFFF_FFFF_FFFF;

/// `s.parse::<f64>().ok()`.
pub fn parse_f64(s: &str) -> Option<f64> {
    let bytes = s.as_bytes();
    let (negative, rest) = match bytes.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, bytes),
    };
    if rest.is_empty() {
        return None;
    }
    let value = match Decimal::read(rest) {
        Some(d) => d.value(),
        None => inf_nan(rest)?,
    };
    Some(if negative { -value } else { value })
}

/// `inf`, `infinity` and `nan`, in any case.
fn inf_nan(s: &[u8]) -> Option<f64> {
    if s.eq_ignore_ascii_case(b"nan") {
        Some(f64::NAN)
    } else if s.eq_ignore_ascii_case(b"inf") || s.eq_ignore_ascii_case(b"infinity") {
        Some(f64::INFINITY)
    } else {
        None
    }
}

/// A decimal number: `digits[..]` (the mantissa's digits, `.` included) times ten to `exp`.
struct Decimal<'a> {
    /// The digits before the exponent, with the point if any.
    mantissa: &'a [u8],
    /// The number of significant digits (from the first non-zero digit).
    significant: usize,
    /// The first 19 significant digits (all of them when `significant <= 19`).
    small: u64,
    /// Whether a non-zero digit follows the first [`MAX_DIGITS`] significant digits.
    truncated: bool,
    /// The value is the first `min(significant, MAX_DIGITS)` significant digits times ten to this.
    exp: i64,
}

impl<'a> Decimal<'a> {
    /// `digits [. digits] [(e|E) [+|-] digits]`, at least one mantissa digit, the whole of `s`.
    fn read(s: &'a [u8]) -> Option<Self> {
        let mut significant = 0usize;
        let mut digits = 0usize;
        let mut fraction = 0i64;
        let mut small = 0u64;
        let mut truncated = false;
        let mut seen_point = false;
        let mut end = s.len();
        for (i, &c) in s.iter().enumerate() {
            match c {
                b'0'..=b'9' => {
                    digits += 1;
                    if seen_point {
                        fraction += 1;
                    }
                    if significant > 0 || c != b'0' {
                        significant += 1;
                        if significant <= 19 {
                            small = small * 10 + u64::from(c - b'0');
                        } else if significant > MAX_DIGITS && c != b'0' {
                            truncated = true;
                        }
                    }
                }
                b'.' if !seen_point => seen_point = true,
                _ => {
                    end = i;
                    break;
                }
            }
        }
        if digits == 0 {
            return None;
        }
        let (mantissa, tail) = s.split_at(end);
        let mut exp = 0i64;
        if let Some((&e, tail)) = tail.split_first() {
            if e != b'e' && e != b'E' {
                return None;
            }
            let (negative, tail) = match tail.split_first() {
                Some((b'-', rest)) => (true, rest),
                Some((b'+', rest)) => (false, rest),
                _ => (false, tail),
            };
            if tail.is_empty() || !tail.iter().all(u8::is_ascii_digit) {
                return None;
            }
            for &c in tail {
                if exp < 1_000_000_000 {
                    exp = exp * 10 + i64::from(c - b'0');
                }
            }
            if negative {
                exp = -exp;
            }
        }
        let kept = significant.min(MAX_DIGITS);
        let dropped = i64::try_from(significant - kept).unwrap_or(i64::MAX);
        Some(Decimal {
            mantissa,
            significant,
            small,
            truncated,
            exp: exp.saturating_add(dropped).saturating_sub(fraction),
        })
    }

    /// The nearest `f64` (ties to even), positive.
    fn value(&self) -> f64 {
        if self.significant == 0 {
            return 0.0;
        }
        if self.significant <= 19 && self.small < 1 << 53 && (-22..=22).contains(&self.exp) {
            let m = self.small as f64;
            let p = POW10
                .get(self.exp.unsigned_abs() as usize)
                .copied()
                .unwrap_or(1.0);
            return if self.exp < 0 { m / p } else { m * p };
        }
        let kept = self.significant.min(MAX_DIGITS) as i64;
        // the value lies in [10^(kept + exp - 1), 10^(kept + exp))
        let magnitude = kept.saturating_add(self.exp);
        if magnitude > 310 {
            return f64::INFINITY;
        }
        if magnitude < -324 {
            return 0.0;
        }
        let mut d = Big::default();
        let mut taken = 0usize;
        let (mut chunk, mut chunk_len) = (0u32, 0u32);
        for &c in self.mantissa {
            if c == b'.' || (taken == 0 && c == b'0') {
                continue;
            }
            if taken == MAX_DIGITS {
                break;
            }
            taken += 1;
            chunk = chunk * 10 + u32::from(c - b'0');
            chunk_len += 1;
            if chunk_len == 9 {
                d.mul_add(1_000_000_000, chunk);
                (chunk, chunk_len) = (0, 0);
            }
        }
        if chunk_len > 0 {
            d.mul_add(10u32.pow(chunk_len), chunk);
        }
        let exp = self.exp as i32;
        let cmp = Comparer::new(d, exp, self.truncated);
        // the largest finite bit pattern whose value is at most the decimal: searched for near a floating-point
        // estimate (a few units in the last place off) when two comparisons show it lies there, else everywhere
        let (mut lo, mut hi) = (0u64, MAX_FINITE);
        let scale = i32::try_from(self.exp + kept - self.significant.min(19) as i64).unwrap_or(0);
        let guess = (self.small as f64) * 10f64.powi(scale / 2) * 10f64.powi(scale - scale / 2);
        if guess.is_finite() && guess > 0.0 {
            let (below, above) = (guess.to_bits().saturating_sub(64), guess.to_bits() + 64);
            let (m, e) = parts(below);
            if cmp.cmp(m, e) != Ordering::Less {
                lo = below;
            }
            if above < MAX_FINITE {
                let (m, e) = parts(above + 1);
                if cmp.cmp(m, e) == Ordering::Less {
                    hi = above;
                }
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            let (m, e) = parts(mid);
            if cmp.cmp(m, e) == Ordering::Less {
                hi = mid - 1;
            } else {
                lo = mid;
            }
        }
        let (m, e) = parts(lo);
        if cmp.cmp(m, e) == Ordering::Equal {
            return f64::from_bits(lo);
        }
        let up = match cmp.cmp(2 * m + 1, e - 1) {
            Ordering::Less => false,
            Ordering::Greater => true,
            Ordering::Equal => lo & 1 == 1,
        };
        f64::from_bits(if up { lo + 1 } else { lo })
    }
}

/// The value of a finite, non-negative bit pattern: `m * 2^e`.
fn parts(bits: u64) -> (u64, i32) {
    let biased = (bits >> 52) as i32;
    let fraction = bits & ((1 << 52) - 1);
    if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | 1 << 52, biased - 1075)
    }
}

/// Compares `d * 10^exp` (plus something smaller than a unit of its last digit when `truncated`) to `m * 2^e`.
struct Comparer {
    /// `d * 5^exp` when `exp >= 0`, else `d`.
    left: Big,
    /// `5^-exp` when `exp < 0`, else 1.
    right: Big,
    exp: i32,
    truncated: bool,
}

impl Comparer {
    fn new(mut d: Big, exp: i32, truncated: bool) -> Self {
        let mut right = Big::default();
        right.mul_add(1, 1);
        if exp >= 0 {
            d.mul_pow5(exp.unsigned_abs());
        } else {
            right.mul_pow5(exp.unsigned_abs());
        }
        Comparer {
            left: d,
            right,
            exp,
            truncated,
        }
    }

    /// `d * 10^exp` against `m * 2^e`: `left * 2^exp` against `right * m * 2^e`.
    fn cmp(&self, m: u64, e: i32) -> Ordering {
        let mut left = self.left.clone();
        let mut right = self.right.clone();
        right.mul_u64(m);
        if self.exp >= e {
            left.shl((self.exp - e).unsigned_abs());
        } else {
            right.shl((e - self.exp).unsigned_abs());
        }
        match left.cmp(&right) {
            Ordering::Equal if self.truncated => Ordering::Greater,
            other => other,
        }
    }
}

/// A non-negative integer, 32-bit limbs, least significant first, no high zero limbs.
#[derive(Clone, Default)]
struct Big(Vec<u32>);

impl Big {
    /// `self * m + a`.
    fn mul_add(&mut self, m: u32, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    /// `self * m`.
    fn mul_u64(&mut self, m: u64) {
        let mut carry = 0u128;
        for limb in &mut self.0 {
            let v = u128::from(*limb) * u128::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        while carry > 0 {
            self.0.push(carry as u32);
            carry >>= 32;
        }
        self.trim();
    }

    /// `self * 5^n`.
    fn mul_pow5(&mut self, mut n: u32) {
        while n >= 13 {
            self.mul_add(1_220_703_125, 0);
            n -= 13;
        }
        if n > 0 {
            self.mul_add(5u32.pow(n), 0);
        }
    }

    /// `self * 2^n`.
    fn shl(&mut self, n: u32) {
        if self.0.is_empty() {
            return;
        }
        let (limbs, bits) = ((n / 32) as usize, n % 32);
        if bits > 0 {
            let mut carry = 0u32;
            for limb in &mut self.0 {
                let v = (*limb << bits) | carry;
                carry = *limb >> (32 - bits);
                *limb = v;
            }
            if carry > 0 {
                self.0.push(carry);
            }
        }
        if limbs > 0 {
            self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        }
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_f64;

    fn same(s: &str) {
        let theirs = s.parse::<f64>().ok();
        let ours = parse_f64(s);
        assert_eq!(
            ours.map(f64::to_bits),
            theirs.map(f64::to_bits),
            "{s:?}: ours {ours:?}, std {theirs:?}"
        );
    }

    #[test]
    fn syntax_is_the_standard_librarys() {
        for s in [
            "",
            "+",
            "-",
            ".",
            "+.",
            "-.",
            "e",
            "e1",
            ".e1",
            "1e",
            "1e+",
            "1e-",
            "1.e5",
            ".5e-3",
            "5.",
            "+5.",
            "-.5",
            "1.2.3",
            "1e1.5",
            "1e1e1",
            " 1",
            "1 ",
            "1_0",
            "0x10",
            "inf",
            "INF",
            "Inf",
            "-inf",
            "+inf",
            "infinity",
            "INFINITY",
            "-Infinity",
            "infinit",
            "infinityy",
            "nan",
            "NaN",
            "-nan",
            "+NAN",
            "nana",
            "in",
            "1f",
            "1d",
            "++1",
            "--1",
            "+-1",
            "1E5",
            "1E+05",
            "1e-0005",
            "00000",
            "-0",
            "-0.0",
            "0e999999",
            "1e99999999999999999999",
            "1e-99999999999999999999",
            "0.0e-5",
            "٣",
            "1\u{0}",
            "1e+5x",
        ] {
            same(s);
        }
    }

    #[test]
    fn values_are_the_standard_librarys() {
        for s in [
            "0.1", "0.2", "0.3", "1.5", "3.14159", "123456789012345678901234567890", "9007199254740993",
            "9007199254740992", "9007199254740994", "9007199254740995", "2.2250738585072011e-308",
            "2.2250738585072012e-308", "2.2250738585072014e-308", "4.9406564584124654e-324", "2.4703282292062327e-324",
            "2.4703282292062328e-324", "2.47032822920623272e-324", "1e-324", "3e-324", "1.7976931348623157e308",
            "1.7976931348623158e308", "1.7976931348623159e308", "1.797693134862315807e308", "1e308", "1e309",
            "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9999999999999999999999999999999999999999999999999999999999999999999999",
            "0.30000000000000004", "0.1000000000000000055511151231257827021181583404541015625",
            "0.1000000000000000055511151231257827021181583404541015624",
            "0.1000000000000000055511151231257827021181583404541015626", "7.2057594037927933e16", "1e22", "1e23",
            "8.98846567431158e307", "4.940656458412465441765687928682213723651e-324",
        ] {
            same(s);
            same(&format!("-{s}"));
        }
        // a halfway case followed by a non-zero digit far past the digits read exactly
        let half = "2.4703282292062327208828439643411068618252990130716238221279284125033775363510437593264991818081799618989828234772285886546332835517796989819938739800539093906315035659515570226392290858392449105184435931802849936536152500319370457678249219365623669863658480757001585769269903706311928279558551332927834338409351978015531246597263579574622766465272827220056374006485499977096599470454020828166226237857393450736339007967761930577506740176324673600968951340535537458516661134223766678604162159680461914467291840300530057530849048765391711386591646239524912623653881879636239373280423891018672348497668235089863388587925628302755995657524455507255189313690836254779186948667994968324049705821028513185451396213837722826145437693412532098591327667236328125";
        same(half);
        same(&format!("{half}000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001"));
        same(&format!("{half}0000"));
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let f = f64::from_bits(x & 0x7FFF_FFFF_FFFF_FFFF);
            if !f.is_finite() {
                continue;
            }
            let digits = (x >> 40) as usize % 26;
            same(&format!("{f:.digits$e}"));
            same(&format!("{f:e}"));
            same(&format!("{f}"));
            // f written exactly, and followed by a digit past the ones read exactly
            let exact = format!("{f:.820e}");
            same(&exact);
            if let Some((mant, exp)) = exact.split_once('e') {
                same(&format!("{mant}1e{exp}"));
                same(&format!(
                    "{mant}000000000000000000000000000000000000000e{exp}"
                ));
            }
            // the midpoint between two neighbours m * 2^e and (m + 1) * 2^e: (2m + 1) * 2^(e - 1)
            let m = (x >> 11) | 1 << 52;
            let e = (x % 102) as i32 - 31;
            let twice = u128::from(2 * m + 1);
            if e >= 1 {
                let v = twice << (e - 1);
                same(&v.to_string());
                same(&format!("{v}.0000000000000000000000000000001"));
                same(&(v - 1).to_string());
                same(&(v + 1).to_string());
            } else {
                let v = twice * 5u128.pow((1 - e).unsigned_abs());
                same(&format!("{v}e{}", e - 1));
                same(&format!("{v}1e{}", e - 2));
                same(&format!("{}e{}", v - 1, e - 1));
                same(&format!("{}e{}", v + 1, e - 1));
                // the same tie among subnormals
                same(&format!("{v}e{}", e - 1 - 1074 + 31));
            }
            let mut d = String::new();
            let mut y = x;
            for i in 0..(x % 40) {
                d.push(char::from(b'0' + (y % 10) as u8));
                y = y.rotate_right(5) ^ i;
                if i == (x >> 20) % 30 {
                    d.push('.');
                }
            }
            d.push_str(&format!("e{}", (x >> 8) as i64 % 700 - 350));
            same(&d);
        }
    }
}
