//! Is an uncompressed point on a NIST curve? What Go's `elliptic.Unmarshal` checks before
//! `x509.ParseCertificateRequest` accepts an ECDSA key: `x, y < p` and
//! `y² ≡ x³ − 3x + b (mod p)`. Plain big-number arithmetic on 32-bit limbs; inputs are at most
//! 66 bytes, and the reduction goes a 32-bit limb at a time.

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

    /// From lowercase hex digits (the curve constants below).
    fn from_hex(h: &str) -> Big {
        let nibble = |c: u8| match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => 0,
        };
        let bytes: Vec<u8> = h
            .as_bytes()
            .chunks(2)
            .map(|p| p.iter().fold(0u8, |acc, c| (acc << 4) | nibble(*c)))
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

    /// `self mod m`, a 32-bit limb at a time: long division as in Knuth's Algorithm D (TAOCP 4.3.1). Both are
    /// shifted so that `m`'s top bit is set; each quotient limb is estimated from the remainder's top two limbs and
    /// `m`'s top limb, corrected with `m`'s second limb (then at most one too large), and `m` times it subtracted,
    /// added back once when it was. A P-256 check's products take 8 steps of 9 limbs each, not 256 steps of one bit.
    fn rem(&self, m: &Big) -> Big {
        let n = m.0.len();
        if n == 0 || self.cmp(m) == std::cmp::Ordering::Less {
            return self.clone();
        }
        let shift = m.0.last().map_or(0, |top| top.leading_zeros());
        let mut v = shl_limbs(&m.0, shift);
        v.truncate(n);
        let mut u = shl_limbs(&self.0, shift);
        let (v1, v2) = (
            u64::from(v.last().copied().unwrap_or(1)),
            u64::from(
                n.checked_sub(2)
                    .and_then(|i| v.get(i))
                    .copied()
                    .unwrap_or(0),
            ),
        );
        for j in (0..u.len() - n).rev() {
            let Some((top, low)) = u.get_mut(j..=j + n).and_then(|w| w.split_last_mut()) else {
                continue;
            };
            let u2 = u64::from(low.last().copied().unwrap_or(0));
            let u3 = u64::from(
                n.checked_sub(2)
                    .and_then(|i| low.get(i))
                    .copied()
                    .unwrap_or(0),
            );
            let num = (u64::from(*top) << 32) | u2;
            let (mut qhat, mut rhat) = (num / v1, num % v1);
            while qhat >> 32 != 0 || qhat * v2 > ((rhat << 32) | u3) {
                qhat -= 1;
                rhat += v1;
                if rhat >> 32 != 0 {
                    break;
                }
            }
            // low, top -= qhat * v, with the borrow carried as a signed amount
            let mut k: i64 = 0;
            for (ui, vi) in low.iter_mut().zip(&v) {
                let p = qhat * u64::from(*vi);
                let t = i64::from(*ui) - k - (p & 0xffff_ffff) as i64;
                *ui = t as u32;
                k = (p >> 32) as i64 - (t >> 32);
            }
            // what is left is below m, in `low`: the top limb is not read again
            if i64::from(*top) < k {
                // qhat was one too large: add m back once (its carry out of `low` cancels the borrow)
                let mut carry = 0u64;
                for (ui, vi) in low.iter_mut().zip(&v) {
                    let s = u64::from(*ui) + u64::from(*vi) + carry;
                    *ui = s as u32;
                    carry = s >> 32;
                }
            }
        }
        // the remainder is u's low n limbs, shifted back
        let mut r: Vec<u32> = Vec::with_capacity(n);
        let mut higher = 0u32;
        for x in u.get(..n).unwrap_or_default().iter().rev() {
            let w = (u64::from(higher) << 32) | u64::from(*x);
            r.push((w >> shift) as u32);
            higher = *x;
        }
        r.reverse();
        let mut b = Big(r);
        b.trim();
        b
    }
}

/// `a << s` for `s < 32`, one limb longer than `a`.
fn shl_limbs(a: &[u32], s: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u32;
    for x in a {
        let w = (u64::from(*x) << s) | u64::from(carry);
        out.push(w as u32);
        carry = (w >> 32) as u32;
    }
    out.push(carry);
    out
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

    /// The bit-at-a-time long division `rem` replaced: the reference the limb-at-a-time one is checked against.
    fn rem_bitwise(a: &Big, m: &Big) -> Big {
        let bits = |x: &Big| match x.0.last() {
            None => 0,
            Some(top) => (x.0.len() - 1) * 32 + (32 - top.leading_zeros() as usize),
        };
        let mut r = Big(Vec::new());
        for i in (0..bits(a)).rev() {
            let bit = Big(vec![a.limb(i / 32) >> (i % 32) & 1]);
            r = r.add(&r).add(&bit);
            if r.cmp(m) != std::cmp::Ordering::Less {
                r = r.sub(m);
            }
        }
        r
    }

    /// xorshift64*: a fixed sequence, so that a failure names the same values every run.
    fn limbs(state: &mut u64, n: usize) -> Vec<u32> {
        (0..n)
            .map(|_| {
                *state ^= *state >> 12;
                *state ^= *state << 25;
                *state ^= *state >> 27;
                (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
            })
            .collect()
    }

    #[test]
    fn rem_agrees_with_bitwise_long_division() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut moduli: Vec<Big> = [224, 256, 384, 521]
            .iter()
            .filter_map(|bits| curve(*bits))
            .map(|(_, p, _)| Big::from_hex(p))
            .collect();
        for n in 1..=17 {
            for _ in 0..6 {
                let mut m = Big(limbs(&mut state, n));
                m.trim();
                if !m.0.is_empty() {
                    moduli.push(m);
                }
            }
        }
        // limbs whose top is small or all ones make the quotient estimate too large, which the corrections undo
        moduli.push(Big(vec![0xffff_ffff, 0xffff_ffff, 0x8000_0000]));
        moduli.push(Big(vec![1, 0, 0x8000_0000]));
        moduli.push(Big(vec![0, 0, 1]));
        // dividends whose first quotient estimate is still one too large after its correction, so that m is added
        // back (Hacker's Delight's test vectors for its `divmnu`, limbs least significant first)
        let add_back = [
            ([3, 0, 0x8000, 1], [1, 0, 0x2000]),
            ([0, 0, 0x8000, 0x7fff], [1, 0, 0x8000]),
            ([0, 0xfffe, 0, 0x8000], [0xffff, 0, 0x8000]),
        ];
        for (u, m) in add_back {
            let (u, m) = (Big(u.to_vec()), Big(m.to_vec()));
            assert_eq!(u.rem(&m), rem_bitwise(&u, &m), "{:x?} mod {:x?}", u.0, m.0);
        }
        for m in &moduli {
            let mut values = vec![
                Big(Vec::new()),
                m.clone(),
                m.sub(&Big(vec![1])),
                m.add(&Big(vec![1])),
                m.mul(m),
                m.mul(m).sub(&Big(vec![1])),
                Big(vec![0xffff_ffff; 2 * m.0.len() + 1]),
                Big(vec![0x8000_0000; 2 * m.0.len()]),
            ];
            for _ in 0..20 {
                let len = (state % (2 * m.0.len() as u64 + 2)) as usize;
                let mut v = Big(limbs(&mut state, len));
                v.trim();
                values.push(v);
                let (a, b) = (
                    Big(limbs(&mut state, m.0.len())),
                    Big(limbs(&mut state, m.0.len())),
                );
                values.push(rem_bitwise(&a, m).mul(&rem_bitwise(&b, m)));
            }
            for v in values {
                let mut v = v;
                v.trim();
                assert_eq!(v.rem(m), rem_bitwise(&v, m), "{:x?} mod {:x?}", v.0, m.0);
            }
        }
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
