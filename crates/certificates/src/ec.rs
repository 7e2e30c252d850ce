//! Is an uncompressed point on a NIST curve? What Go's `elliptic.Unmarshal` checks before
//! `x509.ParseCertificateRequest` accepts an ECDSA key: `x, y < p` and
//! `y² ≡ x³ − 3x + b (mod p)`. Plain big-number arithmetic on 32-bit limbs; inputs are at most
//! 66 bytes, and the reduction works in place, so a check costs a few microseconds.

/// Little-endian 32-bit limbs, no leading zero limbs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

impl Big {
    fn from_be(bytes: &[u8]) -> Big {
        let mut limbs = Vec::with_capacity(bytes.len() / 4 + 1);
        for chunk in bytes.rchunks(4) {
            let mut v: u32 = 0;
            for b in chunk {
                v = (v << 8) | u32::from(*b);
            }
            limbs.push(v);
        }
        let mut n = Big(limbs);
        n.trim();
        n
    }

    fn from_hex(h: &str) -> Big {
        let bytes: Vec<u8> = h
            .as_bytes()
            .chunks(2)
            .map(|p| {
                let s = std::str::from_utf8(p).unwrap_or("0");
                u8::from_str_radix(s, 16).unwrap_or(0)
            })
            .collect();
        Big::from_be(&bytes)
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn limb(&self, i: usize) -> u32 {
        self.0.get(i).copied().unwrap_or(0)
    }

    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        let n = self.0.len().max(other.0.len());
        for i in (0..n).rev() {
            match self.limb(i).cmp(&other.limb(i)) {
                std::cmp::Ordering::Equal => {}
                o => return o,
            }
        }
        std::cmp::Ordering::Equal
    }

    fn add(&self, other: &Big) -> Big {
        let n = self.0.len().max(other.0.len());
        let mut out = Vec::with_capacity(n + 1);
        let mut carry = 0u64;
        for i in 0..n {
            let s = u64::from(self.limb(i)) + u64::from(other.limb(i)) + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        out.push(carry as u32);
        let mut b = Big(out);
        b.trim();
        b
    }

    /// `self - other`, requires `self >= other`.
    fn sub(&self, other: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let mut d = i64::from(self.limb(i)) - i64::from(other.limb(i)) - borrow;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            } else {
                borrow = 0;
            }
            out.push(d as u32);
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn mul(&self, other: &Big) -> Big {
        let mut out = vec![0u32; self.0.len() + other.0.len() + 1];
        for (i, a) in self.0.iter().enumerate() {
            let mut carry = 0u64;
            for (j, b) in other.0.iter().enumerate() {
                let Some(slot) = out.get_mut(i + j) else {
                    continue;
                };
                let t = u64::from(*slot) + u64::from(*a) * u64::from(*b) + carry;
                *slot = t as u32;
                carry = t >> 32;
            }
            let mut k = i + other.0.len();
            while carry > 0 {
                let Some(slot) = out.get_mut(k) else { break };
                let t = u64::from(*slot) + carry;
                *slot = t as u32;
                carry = t >> 32;
                k += 1;
            }
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn bits(&self) -> usize {
        match self.0.last() {
            None => 0,
            Some(top) => (self.0.len() - 1) * 32 + (32 - top.leading_zeros() as usize),
        }
    }

    /// `self >> s`.
    fn shr(&self, s: usize) -> Big {
        let (skip, bits) = (s / 32, (s % 32) as u32);
        let limbs = (skip..self.0.len()).map(|i| {
            let high = if bits == 0 {
                0
            } else {
                self.limb(i + 1) << (32 - bits)
            };
            (self.limb(i) >> bits) | high
        });
        let mut b = Big(limbs.collect());
        b.trim();
        b
    }

    fn bit(&self, i: usize) -> bool {
        self.limb(i / 32) >> (i % 32) & 1 == 1
    }

    /// `self mod m` by binary long division, in place: one remainder of `m`'s width plus a limb, shifted a bit at a
    /// time (no allocation per bit: a P-521 check reduces 1,000-bit products).
    fn rem(&self, m: &Big) -> Big {
        let (total, width) = (self.bits(), m.bits());
        // the top `width - 1` bits are below `m` already: they are the remainder's start, with no step each
        let loaded = width.saturating_sub(1).min(total);
        let mut r = vec![0u32; m.0.len() + 1];
        for (slot, limb) in r.iter_mut().zip(self.shr(total - loaded).0) {
            *slot = limb;
        }
        for i in (0..total - loaded).rev() {
            // r = 2r + bit: r < m before, so 2r + 1 < 2m fits the extra limb
            let mut carry = u32::from(self.bit(i));
            for limb in &mut r {
                let out = *limb >> 31;
                *limb = (*limb << 1) | carry;
                carry = out;
            }
            if !limbs_less(&r, &m.0) {
                limbs_sub(&mut r, &m.0);
            }
        }
        let mut b = Big(r);
        b.trim();
        b
    }
}

/// `a < b` for little-endian limbs of any lengths.
fn limbs_less(a: &[u32], b: &[u32]) -> bool {
    let n = a.len().max(b.len());
    for i in (0..n).rev() {
        let (x, y) = (
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return x < y;
        }
    }
    false
}

/// `a -= b` in place, for `a >= b`.
fn limbs_sub(a: &mut [u32], b: &[u32]) {
    let mut borrow = 0u64;
    for (i, limb) in a.iter_mut().enumerate() {
        let subtrahend = u64::from(b.get(i).copied().unwrap_or(0)) + borrow;
        let minuend = u64::from(*limb);
        if minuend >= subtrahend {
            *limb = (minuend - subtrahend) as u32;
            borrow = 0;
        } else {
            *limb = ((1u64 << 32) + minuend - subtrahend) as u32;
            borrow = 1;
        }
    }
}

/// (byte length, p, b) of the curves Go's x509 accepts.
fn curve(bits: usize) -> Option<(usize, &'static str, &'static str)> {
    Some(match bits {
        224 => (
            28,
            "ffffffffffffffffffffffffffffffff000000000000000000000001",
            "b4050a850c04b3abf54132565044b0b7d7bfd8ba270b39432355ffb4",
        ),
        256 => (
            32,
            "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff",
            "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b",
        ),
        384 => (
            48,
            "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
            "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
        ),
        521 => (
            66,
            "01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
            "0051953eb9618e1c9a1f929a21a0b68540eea2da725b99b315f3b8b489918ef109e156193951ec7e937b1652c0bd3bb1bf073573df883d2c34f1ef451fd46b503f00",
        ),
        _ => return None,
    })
}

/// `point` is `04 || X || Y` on the curve of `bits` bits.
pub(crate) fn on_curve(bits: usize, point: &[u8]) -> bool {
    let Some((len, p_hex, b_hex)) = curve(bits) else {
        return false;
    };
    let Some((&4, coords)) = point.split_first() else {
        return false;
    };
    if coords.len() != 2 * len {
        return false;
    }
    let (xb, yb) = coords.split_at(len);
    let p = Big::from_hex(p_hex);
    let b = Big::from_hex(b_hex);
    let x = Big::from_be(xb);
    let y = Big::from_be(yb);
    if x.cmp(&p) != std::cmp::Ordering::Less || y.cmp(&p) != std::cmp::Ordering::Less {
        return false;
    }
    let lhs = y.mul(&y).rem(&p);
    let x3 = x.mul(&x).rem(&p).mul(&x).rem(&p);
    let three_x = x.add(&x).add(&x).rem(&p);
    // x³ − 3x + b  ==  x³ + (p − 3x) + b   (mod p)
    let rhs = x3.add(&p.sub(&three_x)).add(&b).rem(&p);
    lhs == rhs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big(v: u128) -> Big {
        Big::from_be(&v.to_be_bytes())
    }

    #[test]
    fn rem_agrees_with_u128() {
        let values = [
            0u128,
            1,
            2,
            0xffff_ffff,
            0x1_0000_0000,
            0xdead_beef_cafe_f00d_1234_5678_9abc_def0,
            u128::MAX,
            u128::MAX - 1,
        ];
        let moduli = [
            1u128,
            2,
            3,
            0xffff_ffff,
            0x1_0000_0001,
            0xffff_ffff_0000_0001,
            u128::MAX,
        ];
        for v in values {
            for m in moduli {
                assert_eq!(big(v).rem(&big(m)), big(v % m), "{v} mod {m}");
            }
        }
    }

    #[test]
    fn shr_agrees_with_u128() {
        let v = 0xdead_beef_cafe_f00d_1234_5678_9abc_def0u128;
        for s in [0, 1, 31, 32, 33, 64, 100, 127, 128, 200] {
            assert_eq!(
                big(v).shr(s),
                big(v.checked_shr(s as u32).unwrap_or(0)),
                "{s}"
            );
        }
    }

    #[test]
    fn rem_of_a_product_plus_remainder_is_the_remainder() {
        let (len, p_hex, _) = curve(521).unwrap_or_default();
        assert_eq!(len, 66);
        let p = Big::from_hex(p_hex);
        let a = Big::from_hex("0123456789abcdeffedcba98765432100123456789abcdeffedcba9876543210");
        let r = Big::from_hex("00ffee");
        assert_eq!(a.mul(&p).add(&r).rem(&p), r);
        assert_eq!(p.rem(&p), Big(Vec::new()));
    }

    #[test]
    fn the_p256_generator_is_on_its_curve_and_a_moved_point_is_not() {
        let gx = "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296";
        let gy = "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5";
        let point = |y: &str| {
            let mut bytes = vec![4u8];
            for hex in [gx, y] {
                bytes.extend(
                    Big::from_hex(hex)
                        .0
                        .iter()
                        .rev()
                        .flat_map(|l| l.to_be_bytes()),
                );
            }
            bytes
        };
        assert!(on_curve(256, &point(gy)));
        assert!(!on_curve(
            256,
            &point("4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f6")
        ));
    }
}
