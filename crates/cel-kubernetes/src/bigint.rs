//! A small arbitrary-precision integer and decimal, just enough for Kubernetes quantities
//! (the role `math/big` and `gopkg.in/inf.v0` play upstream).
//!
//! Every operation that could make a number grow without bound (rescaling by a power of
//! ten) is checked against [`MAX_DIGITS`], so hostile input like `1e1000000000` ends in an
//! error instead of a multi-gigabyte allocation.

use std::cmp::Ordering;

/// The largest number of decimal digits a mantissa may reach.
pub(crate) const MAX_DIGITS: u64 = 4096;

/// Unsigned magnitude, little-endian base 2^32 limbs, no trailing zero limbs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BigUint {
    limbs: Vec<u32>,
}

impl BigUint {
    pub(crate) fn zero() -> Self {
        Self { limbs: Vec::new() }
    }

    pub(crate) fn from_u64(v: u64) -> Self {
        let mut out = Self {
            limbs: vec![v as u32, (v >> 32) as u32],
        };
        out.normalize();
        out
    }

    /// Digits must be ASCII `0`..=`9`; anything else is skipped.
    pub(crate) fn from_decimal(digits: &[u8]) -> Self {
        let mut out = Self::zero();
        for chunk in digits.chunks(9) {
            let mut value: u32 = 0;
            let mut scale: u32 = 1;
            for d in chunk {
                if d.is_ascii_digit() {
                    value = value * 10 + u32::from(d - b'0');
                    scale *= 10;
                }
            }
            out.mul_small(scale);
            out.add_small(value);
        }
        out
    }

    fn normalize(&mut self) {
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
    }

    pub(crate) fn is_zero(&self) -> bool {
        self.limbs.is_empty()
    }

    pub(crate) fn mul_small(&mut self, m: u32) {
        let mut carry: u64 = 0;
        for limb in &mut self.limbs {
            let v = u64::from(*limb) * u64::from(m) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
        self.normalize();
    }

    pub(crate) fn add_small(&mut self, a: u32) {
        let mut carry = u64::from(a);
        for limb in &mut self.limbs {
            if carry == 0 {
                break;
            }
            let v = u64::from(*limb) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.limbs.push(carry as u32);
        }
    }

    /// Multiplies by 10^k. The caller checks the size limit.
    pub(crate) fn mul_pow10(&mut self, mut k: u64) {
        if self.is_zero() {
            return;
        }
        while k >= 9 {
            self.mul_small(1_000_000_000);
            k -= 9;
        }
        let mut m: u32 = 1;
        for _ in 0..k {
            m *= 10;
        }
        self.mul_small(m);
    }

    /// Multiplies by 2^bits for small shifts (binary suffixes go up to 2^60).
    pub(crate) fn shl_small(&mut self, mut bits: u32) {
        while bits >= 16 {
            self.mul_small(1 << 16);
            bits -= 16;
        }
        self.mul_small(1 << bits);
    }

    /// Divides in place, returning the remainder. `d` must not be zero.
    pub(crate) fn divrem_small(&mut self, d: u32) -> u32 {
        if d == 0 {
            return 0;
        }
        let mut rem: u64 = 0;
        for limb in self.limbs.iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*limb);
            *limb = (cur / u64::from(d)) as u32;
            rem = cur % u64::from(d);
        }
        self.normalize();
        rem as u32
    }

    pub(crate) fn cmp_mag(&self, other: &Self) -> Ordering {
        match self.limbs.len().cmp(&other.limbs.len()) {
            Ordering::Equal => {}
            ord => return ord,
        }
        for (a, b) in self.limbs.iter().rev().zip(other.limbs.iter().rev()) {
            match a.cmp(b) {
                Ordering::Equal => {}
                ord => return ord,
            }
        }
        Ordering::Equal
    }

    pub(crate) fn add(&self, other: &Self) -> Self {
        let n = self.limbs.len().max(other.limbs.len());
        let mut limbs = Vec::with_capacity(n + 1);
        let mut carry: u64 = 0;
        for i in 0..n {
            let a = u64::from(self.limbs.get(i).copied().unwrap_or(0));
            let b = u64::from(other.limbs.get(i).copied().unwrap_or(0));
            let v = a + b + carry;
            limbs.push(v as u32);
            carry = v >> 32;
        }
        if carry != 0 {
            limbs.push(carry as u32);
        }
        let mut out = Self { limbs };
        out.normalize();
        out
    }

    /// `self - other`, saturating at zero (callers ensure `self >= other`).
    pub(crate) fn sub(&self, other: &Self) -> Self {
        if self.cmp_mag(other) != Ordering::Greater {
            return Self::zero();
        }
        let mut limbs = Vec::with_capacity(self.limbs.len());
        let mut borrow: i64 = 0;
        for (i, a) in self.limbs.iter().enumerate() {
            let b = i64::from(other.limbs.get(i).copied().unwrap_or(0));
            let mut v = i64::from(*a) - b - borrow;
            if v < 0 {
                v += 1 << 32;
                borrow = 1;
            } else {
                borrow = 0;
            }
            limbs.push(v as u32);
        }
        let mut out = Self { limbs };
        out.normalize();
        out
    }

    pub(crate) fn to_u64(&self) -> Option<u64> {
        match self.limbs.as_slice() {
            [] => Some(0),
            [a] => Some(u64::from(*a)),
            [a, b] => Some(u64::from(*a) | (u64::from(*b) << 32)),
            _ => None,
        }
    }

    pub(crate) fn bit_len(&self) -> u64 {
        match self.limbs.last() {
            None => 0,
            Some(top) => (self.limbs.len() as u64 - 1) * 32 + u64::from(32 - top.leading_zeros()),
        }
    }

    /// An upper bound on the number of decimal digits.
    pub(crate) fn decimal_digits_upper(&self) -> u64 {
        // log10(2) < 0.30103
        self.bit_len() * 30103 / 100_000 + 1
    }

    /// Exact number of decimal digits (0 for zero).
    pub(crate) fn decimal_digits(&self) -> u64 {
        self.to_decimal_string().len() as u64
    }

    pub(crate) fn to_decimal_string(&self) -> String {
        if self.is_zero() {
            return "0".to_string();
        }
        let mut chunks = Vec::new();
        let mut n = self.clone();
        while !n.is_zero() {
            chunks.push(n.divrem_small(1_000_000_000));
        }
        let mut out = String::new();
        for (i, c) in chunks.iter().rev().enumerate() {
            if i == 0 {
                out.push_str(&c.to_string());
            } else {
                out.push_str(&format!("{c:09}"));
            }
        }
        out
    }

    /// Nearest `f64`, ties to even (what `big.Float.SetInt(x).Float64()` gives).
    pub(crate) fn to_f64(&self) -> f64 {
        let bits = self.bit_len();
        if bits <= 64 {
            return self.to_u64().unwrap_or(0) as f64;
        }
        let shift = bits - 64;
        // top 64 bits, with a sticky bit for anything shifted out
        let mut top: u64 = 0;
        for i in 0..64u64 {
            let bit = shift + i;
            if self.bit(bit) {
                top |= 1 << i;
            }
        }
        let sticky = (0..shift).any(|b| self.bit(b));
        if sticky {
            top |= 1;
        }
        let mantissa = top as f64;
        if shift > 2000 {
            return f64::INFINITY;
        }
        let mut result = mantissa;
        let mut remaining = shift;
        while remaining > 0 {
            let step = remaining.min(512);
            result *= 2f64.powi(step as i32);
            remaining -= step;
        }
        result
    }

    fn bit(&self, index: u64) -> bool {
        let limb = (index / 32) as usize;
        self.limbs
            .get(limb)
            .is_some_and(|l| (l >> (index % 32)) & 1 == 1)
    }
}

/// A signed big integer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct BigInt {
    neg: bool,
    mag: BigUint,
}

impl BigInt {
    pub(crate) fn from_i64(v: i64) -> Self {
        Self {
            neg: v < 0,
            mag: BigUint::from_u64(v.unsigned_abs()),
        }
    }

    pub(crate) fn from_parts(neg: bool, mag: BigUint) -> Self {
        let neg = neg && !mag.is_zero();
        Self { neg, mag }
    }

    pub(crate) fn mag(&self) -> &BigUint {
        &self.mag
    }

    pub(crate) fn is_neg(&self) -> bool {
        self.neg
    }

    pub(crate) fn sign(&self) -> i32 {
        if self.mag.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    pub(crate) fn negated(&self) -> Self {
        Self::from_parts(!self.neg, self.mag.clone())
    }

    pub(crate) fn add(&self, other: &Self) -> Self {
        if self.neg == other.neg {
            return Self::from_parts(self.neg, self.mag.add(&other.mag));
        }
        match self.mag.cmp_mag(&other.mag) {
            Ordering::Equal => Self::default(),
            Ordering::Greater => Self::from_parts(self.neg, self.mag.sub(&other.mag)),
            Ordering::Less => Self::from_parts(other.neg, other.mag.sub(&self.mag)),
        }
    }

    pub(crate) fn to_decimal_string(&self) -> String {
        if self.neg {
            format!("-{}", self.mag.to_decimal_string())
        } else {
            self.mag.to_decimal_string()
        }
    }

    pub(crate) fn to_f64(&self) -> f64 {
        let m = self.mag.to_f64();
        if self.neg { -m } else { m }
    }
}

/// Error raised when a rescale would exceed [`MAX_DIGITS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TooLarge;

/// A decimal `unscaled × 10^-scale`, as `inf.Dec` stores it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Dec {
    pub(crate) unscaled: BigInt,
    pub(crate) scale: i64,
}

impl Dec {
    pub(crate) fn new(unscaled: BigInt, scale: i64) -> Self {
        Self { unscaled, scale }
    }

    pub(crate) fn sign(&self) -> i32 {
        self.unscaled.sign()
    }

    /// The same value with a larger scale (more digits after the point).
    pub(crate) fn rescaled_up(&self, scale: i64) -> Result<Self, TooLarge> {
        let shift = scale.checked_sub(self.scale).ok_or(TooLarge)?;
        if shift <= 0 {
            return Ok(self.clone());
        }
        if self.unscaled.sign() == 0 {
            return Ok(Self::new(BigInt::default(), scale));
        }
        let shift = shift as u64;
        if self
            .unscaled
            .mag
            .decimal_digits_upper()
            .saturating_add(shift)
            > MAX_DIGITS
        {
            return Err(TooLarge);
        }
        let mut mag = self.unscaled.mag.clone();
        mag.mul_pow10(shift);
        Ok(Self::new(BigInt::from_parts(self.unscaled.neg, mag), scale))
    }

    /// Rounds to `scale` digits after the point, away from zero (`inf.RoundUp`).
    pub(crate) fn round_up(&self, scale: i64) -> Result<Self, TooLarge> {
        if scale >= self.scale {
            return self.rescaled_up(scale);
        }
        let drop = self.scale.saturating_sub(scale) as u64;
        let mut mag = self.unscaled.mag.clone();
        let mut inexact = false;
        if drop > mag.decimal_digits_upper() {
            inexact = !mag.is_zero();
            mag = BigUint::zero();
        } else {
            let mut left = drop;
            while left > 0 {
                let step = left.min(9);
                let mut div: u32 = 1;
                for _ in 0..step {
                    div *= 10;
                }
                if mag.divrem_small(div) != 0 {
                    inexact = true;
                }
                left -= step;
            }
        }
        if inexact {
            mag.add_small(1);
        }
        Ok(Self::new(BigInt::from_parts(self.unscaled.neg, mag), scale))
    }

    pub(crate) fn add(&self, other: &Self) -> Result<Self, TooLarge> {
        let scale = self.scale.max(other.scale);
        let a = self.rescaled_up(scale)?;
        let b = other.rescaled_up(scale)?;
        Ok(Self::new(a.unscaled.add(&b.unscaled), scale))
    }

    pub(crate) fn negated(&self) -> Self {
        Self::new(self.unscaled.negated(), self.scale)
    }

    pub(crate) fn cmp(&self, other: &Self) -> Ordering {
        let (sa, sb) = (self.sign(), other.sign());
        if sa != sb {
            return sa.cmp(&sb);
        }
        if sa == 0 {
            return Ordering::Equal;
        }
        // Compare decimal exponents first so that alignment stays bounded.
        let ea = self.unscaled.mag.decimal_digits() as i64 - self.scale;
        let eb = other.unscaled.mag.decimal_digits() as i64 - other.scale;
        let mag_order = if ea != eb {
            ea.cmp(&eb)
        } else {
            let scale = self.scale.max(other.scale);
            match (self.rescaled_up(scale), other.rescaled_up(scale)) {
                (Ok(a), Ok(b)) => a.unscaled.mag.cmp_mag(&b.unscaled.mag),
                _ => Ordering::Equal,
            }
        };
        if sa > 0 {
            mag_order
        } else {
            mag_order.reverse()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_round_trip() {
        for s in [
            "0",
            "1",
            "999999999",
            "1000000000",
            "123456789012345678901234567890",
        ] {
            assert_eq!(BigUint::from_decimal(s.as_bytes()).to_decimal_string(), s);
        }
    }

    #[test]
    fn arithmetic() {
        let a = BigInt::from_i64(-5);
        let b = BigInt::from_i64(7);
        assert_eq!(a.add(&b), BigInt::from_i64(2));
        assert_eq!(b.negated().add(&a), BigInt::from_i64(-12));
        let mut m = BigUint::from_u64(1);
        m.mul_pow10(30);
        assert_eq!(m.to_decimal_string(), format!("1{}", "0".repeat(30)));
        assert_eq!(m.to_f64(), 1e30);
        assert_eq!(
            BigInt::from_i64(i64::MIN).to_decimal_string(),
            "-9223372036854775808"
        );
    }

    #[test]
    fn rounding() {
        let d = Dec::new(BigInt::from_i64(3001), 12);
        let r = d.round_up(9).unwrap();
        assert_eq!(r, Dec::new(BigInt::from_i64(4), 9));
        let n = Dec::new(BigInt::from_i64(-3001), 12).round_up(9).unwrap();
        assert_eq!(n, Dec::new(BigInt::from_i64(-4), 9));
        assert!(
            Dec::new(BigInt::from_i64(1), -1_000_000)
                .round_up(9)
                .is_err()
        );
    }

    #[test]
    fn compare_bounded() {
        let big = Dec::new(BigInt::from_i64(1), -1_000_000_000);
        let one = Dec::new(BigInt::from_i64(1), 0);
        assert_eq!(big.cmp(&one), Ordering::Greater);
        assert_eq!(one.cmp(&big), Ordering::Less);
        let a = Dec::new(BigInt::from_i64(100), 2);
        assert_eq!(a.cmp(&one), Ordering::Equal);
    }
}
