//! Is an uncompressed point on a NIST curve? What Go's `elliptic.Unmarshal` checks before
//! `x509.ParseCertificateRequest` accepts an ECDSA key: `x, y < p` and
//! `y² ≡ x³ − 3x + b (mod p)`. Plain big-number arithmetic on 32-bit limbs; inputs are at most
//! 66 bytes, and the reduction goes a 32-bit limb at a time.

/// Limbs for the largest number the check makes: a product of two numbers below P-521's p (17 limbs each) with its
/// carry limb, and the one more limb the long division shifts it into. Numbers live on the stack: the check runs
/// for every ECDSA key, and its dozen or so intermediate values would otherwise each be an allocation.
const CAP: usize = 2 * 17 + 2;

/// Little-endian 32-bit limbs, no leading zero limbs: `limbs[..len]`, the rest zero.
#[derive(Clone, Copy)]
struct Big {
    limbs: [u32; CAP],
    len: usize,
}

impl PartialEq for Big {
    fn eq(&self, other: &Big) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Big {}

impl std::fmt::Debug for Big {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Big({:x?})", self.as_slice())
    }
}

impl Big {
    const ZERO: Big = Big {
        limbs: [0; CAP],
        len: 0,
    };

    /// From little-endian limbs (at most [`CAP`]): the tests' numbers.
    #[cfg(test)]
    fn from_limbs(limbs: &[u32]) -> Big {
        let mut n = Big::ZERO;
        for (slot, l) in n.limbs.iter_mut().zip(limbs) {
            *slot = *l;
        }
        n.len = limbs.len().min(CAP);
        n.trim();
        n
    }

    /// From big-endian bytes: a coordinate, whose length [`on_curve`] has checked against the curve's.
    fn from_be(bytes: &[u8]) -> Big {
        let mut n = Big::ZERO;
        for (slot, chunk) in n.limbs.iter_mut().zip(bytes.rchunks(4)) {
            for b in chunk {
                *slot = (*slot << 8) | u32::from(*b);
            }
            n.len += 1;
        }
        n.trim();
        n
    }

    /// From an even number of lowercase hex digits (the curve constants below), eight to a limb from the last.
    fn from_hex(h: &str) -> Big {
        let nibble = |c: u8| match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => 0,
        };
        let mut n = Big::ZERO;
        for (slot, chunk) in n.limbs.iter_mut().zip(h.as_bytes().rchunks(8)) {
            for c in chunk {
                *slot = (*slot << 4) | u32::from(nibble(*c));
            }
            n.len += 1;
        }
        n.trim();
        n
    }

    fn as_slice(&self) -> &[u32] {
        self.limbs.get(..self.len).unwrap_or_default()
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limb(self.len - 1) == 0 {
            self.len -= 1;
        }
    }

    fn limb(&self, i: usize) -> u32 {
        self.as_slice().get(i).copied().unwrap_or(0)
    }

    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        let n = self.len.max(other.len);
        for i in (0..n).rev() {
            match self.limb(i).cmp(&other.limb(i)) {
                std::cmp::Ordering::Equal => {}
                o => return o,
            }
        }
        std::cmp::Ordering::Equal
    }

    fn add(&self, other: &Big) -> Big {
        let n = self.len.max(other.len);
        let mut out = Big::ZERO;
        let mut carry = 0u64;
        for (i, slot) in out.limbs.iter_mut().enumerate().take(n + 1) {
            let s = u64::from(self.limb(i)) + u64::from(other.limb(i)) + carry;
            *slot = s as u32;
            carry = s >> 32;
        }
        out.len = (n + 1).min(CAP);
        out.trim();
        out
    }

    /// `self - other`, requires `self >= other`.
    fn sub(&self, other: &Big) -> Big {
        let mut out = Big::ZERO;
        let mut borrow = 0i64;
        for (i, slot) in out.limbs.iter_mut().enumerate().take(self.len) {
            let mut d = i64::from(self.limb(i)) - i64::from(other.limb(i)) - borrow;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            } else {
                borrow = 0;
            }
            *slot = d as u32;
        }
        out.len = self.len;
        out.trim();
        out
    }

    fn mul(&self, other: &Big) -> Big {
        let mut out = Big::ZERO;
        for (i, a) in self.as_slice().iter().enumerate() {
            let mut carry = 0u64;
            for (j, b) in other.as_slice().iter().enumerate() {
                let Some(slot) = out.limbs.get_mut(i + j) else {
                    continue;
                };
                let t = u64::from(*slot) + u64::from(*a) * u64::from(*b) + carry;
                *slot = t as u32;
                carry = t >> 32;
            }
            let mut k = i + other.len;
            while carry > 0 {
                let Some(slot) = out.limbs.get_mut(k) else {
                    break;
                };
                let t = u64::from(*slot) + carry;
                *slot = t as u32;
                carry = t >> 32;
                k += 1;
            }
        }
        out.len = (self.len + other.len + 1).min(CAP);
        out.trim();
        out
    }

    /// `self mod m`, a 32-bit limb at a time: long division as in Knuth's Algorithm D (TAOCP 4.3.1). Both are
    /// shifted so that `m`'s top bit is set; each quotient limb is estimated from the remainder's top two limbs and
    /// `m`'s top limb, corrected with `m`'s second limb (then at most one too large), and `m` times it subtracted,
    /// added back once when it was. A P-256 check's products take 8 steps of 9 limbs each, not 256 steps of one bit.
    fn rem(&self, m: &Big) -> Big {
        let n = m.len;
        if n == 0 || self.cmp(m) == std::cmp::Ordering::Less {
            return *self;
        }
        let shift = m.as_slice().last().map_or(0, |top| top.leading_zeros());
        let v = shl_limbs(m.as_slice(), shift);
        let v = v.get(..n).unwrap_or_default();
        let mut u_limbs = shl_limbs(self.as_slice(), shift);
        let u = u_limbs.get_mut(..=self.len).unwrap_or_default();
        let (v1, v2) = (
            u64::from(v.last().copied().unwrap_or(1)),
            u64::from(
                n.checked_sub(2)
                    .and_then(|i| v.get(i))
                    .copied()
                    .unwrap_or(0),
            ),
        );
        for j in (0..u.len().saturating_sub(n)).rev() {
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
            for (ui, vi) in low.iter_mut().zip(v) {
                let p = qhat * u64::from(*vi);
                let t = i64::from(*ui) - k - (p & 0xffff_ffff) as i64;
                *ui = t as u32;
                k = (p >> 32) as i64 - (t >> 32);
            }
            // what is left is below m, in `low`: the top limb is not read again
            if i64::from(*top) < k {
                // qhat was one too large: add m back once (its carry out of `low` cancels the borrow)
                let mut carry = 0u64;
                for (ui, vi) in low.iter_mut().zip(v) {
                    let s = u64::from(*ui) + u64::from(*vi) + carry;
                    *ui = s as u32;
                    carry = s >> 32;
                }
            }
        }
        // the remainder is u's low n limbs, shifted back
        let mut r = Big::ZERO;
        let mut higher = 0u32;
        let low = u.get(..n).unwrap_or_default();
        for (slot, x) in r.limbs.iter_mut().take(n).rev().zip(low.iter().rev()) {
            let w = (u64::from(higher) << 32) | u64::from(*x);
            *slot = (w >> shift) as u32;
            higher = *x;
        }
        r.len = n;
        r.trim();
        r
    }
}

/// `a << s` for `s < 32`, one limb longer than `a` (`a` has fewer than [`CAP`] limbs); the rest zero.
fn shl_limbs(a: &[u32], s: u32) -> [u32; CAP] {
    let mut out = [0u32; CAP];
    let mut carry = 0u32;
    for (slot, x) in out.iter_mut().zip(a) {
        let w = (u64::from(*x) << s) | u64::from(carry);
        *slot = w as u32;
        carry = (w >> 32) as u32;
    }
    if let Some(slot) = out.get_mut(a.len()) {
        *slot = carry;
    }
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
        let bits = |x: &Big| match x.as_slice().last() {
            None => 0,
            Some(top) => (x.len - 1) * 32 + (32 - top.leading_zeros() as usize),
        };
        let mut r = Big::ZERO;
        for i in (0..bits(a)).rev() {
            let bit = Big::from_limbs(&[a.limb(i / 32) >> (i % 32) & 1]);
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
                let m = Big::from_limbs(&limbs(&mut state, n));
                if m.len != 0 {
                    moduli.push(m);
                }
            }
        }
        // limbs whose top is small or all ones make the quotient estimate too large, which the corrections undo
        moduli.push(Big::from_limbs(&[0xffff_ffff, 0xffff_ffff, 0x8000_0000]));
        moduli.push(Big::from_limbs(&[1, 0, 0x8000_0000]));
        moduli.push(Big::from_limbs(&[0, 0, 1]));
        // dividends whose first quotient estimate is still one too large after its correction, so that m is added
        // back (Hacker's Delight's test vectors for its `divmnu`, limbs least significant first)
        let add_back = [
            ([3, 0, 0x8000, 1], [1, 0, 0x2000]),
            ([0, 0, 0x8000, 0x7fff], [1, 0, 0x8000]),
            ([0, 0xfffe, 0, 0x8000], [0xffff, 0, 0x8000]),
        ];
        for (u, m) in add_back {
            let (u, m) = (Big::from_limbs(&u), Big::from_limbs(&m));
            assert_eq!(u.rem(&m), rem_bitwise(&u, &m), "{:x?} mod {:x?}", u, m);
        }
        for m in &moduli {
            let mut values = vec![
                Big::ZERO,
                *m,
                m.sub(&Big::from_limbs(&[1])),
                m.add(&Big::from_limbs(&[1])),
                m.mul(m),
                m.mul(m).sub(&Big::from_limbs(&[1])),
                Big::from_limbs(&vec![0xffff_ffff; 2 * m.len + 1]),
                Big::from_limbs(&vec![0x8000_0000; 2 * m.len]),
            ];
            for _ in 0..20 {
                let len = (state % (2 * m.len as u64 + 2)) as usize;
                let v = Big::from_limbs(&limbs(&mut state, len));
                values.push(v);
                let (a, b) = (
                    Big::from_limbs(&limbs(&mut state, m.len)),
                    Big::from_limbs(&limbs(&mut state, m.len)),
                );
                values.push(rem_bitwise(&a, m).mul(&rem_bitwise(&b, m)));
            }
            for v in values {
                assert_eq!(v.rem(m), rem_bitwise(&v, m), "{:x?} mod {:x?}", v, m);
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
        assert_eq!(p.rem(&p), Big::ZERO);
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
                        .as_slice()
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

    #[test]
    fn every_curves_generator_is_on_it_and_a_coordinate_of_p_is_not() {
        let hex_bytes = |h: &str| -> Vec<u8> {
            h.as_bytes()
                .chunks(2)
                .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
                .collect()
        };
        // FIPS 186-4 D.1.2's base points (P-256's is checked above)
        let generators = [
            (
                224,
                "b70e0cbd6bb4bf7f321390b94a03c1d356c21122343280d6115c1d21",
                "bd376388b5f723fb4c22dfe6cd4375a05a07476444d5819985007e34",
            ),
            (
                384,
                "aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7",
                "3617de4a96262c6f5d9e98bf9292dc29f8f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f",
            ),
            (
                521,
                "00c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd66",
                "011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650",
            ),
        ];
        for (bits, gx, gy) in generators {
            let (_, p_hex, _) = curve(bits).unwrap();
            let point = |x: &str, y: &str| [vec![4u8], hex_bytes(x), hex_bytes(y)].concat();
            assert!(on_curve(bits, &point(gx, gy)), "P-{bits}");
            assert!(!on_curve(bits, &point(gx, gx)), "P-{bits}");
            // coordinates must be below p; p itself is the largest the key's length allows through
            assert!(!on_curve(bits, &point(p_hex, gy)), "P-{bits}");
            assert!(!on_curve(bits, &point(gx, p_hex)), "P-{bits}");
            assert!(!on_curve(bits, &point(gx, &gy[2..])), "P-{bits}");
        }
    }
}
