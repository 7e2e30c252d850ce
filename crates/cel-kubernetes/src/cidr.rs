//! CIDR prefixes: the CEL `cidr` library (`k8s.io/apiserver/pkg/cel/library/cidr.go`), which
//! parses with Go's `netip.ParsePrefix` and rejects IPv4-mapped IPv6 prefixes.
//!
//! | CEL | Rust |
//! |---|---|
//! | `cidr(s)` | [`Cidr::parse`] |
//! | `isCIDR(s)` | [`is_cidr`] |
//! | `string(c)` | [`std::fmt::Display`] (Go `netip.Prefix.String`, host bits kept) |
//! | `c.containsIP(ip)` / `c.containsIP(s)` | [`Cidr::contains_ip`] / [`Cidr::contains_ip_str`] |
//! | `c.containsCIDR(c2)` / `c.containsCIDR(s)` | [`Cidr::contains_cidr`] / [`Cidr::contains_cidr_str`] |
//! | `c.ip()` / `c.masked()` / `c.prefixLength()` | [`Cidr::ip`] / [`Cidr::masked`] / [`Cidr::prefix_length`] |

use std::fmt;

use crate::goquote::quote;
use crate::ip::{Ip, IpError, go_parse_addr};

/// A network prefix; the address keeps its host bits (`cidr("10.0.0.1/8").ip()` is `10.0.0.1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cidr {
    ip: Ip,
    bits: u8,
}

/// An error from `cidr(s)`, worded exactly as the CEL function reports it (upstream wraps the
/// parse error in `network address parse error during conversion from string: ` twice).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CidrError(String);

/// `isCIDR(s)`.
pub fn is_cidr(s: &str) -> bool {
    Cidr::parse(s).is_ok()
}

/// Go's `netip.ParsePrefix`, with Go's error text.
fn go_parse_prefix(s: &str) -> Result<Cidr, String> {
    let err = |msg: &str| format!("netip.ParsePrefix({}): {msg}", quote(s));
    let Some(slash) = s.rfind('/') else {
        return Err(err("no '/'"));
    };
    let (addr, bits_str) = (
        s.get(..slash).unwrap_or(""),
        s.get(slash + 1..).unwrap_or(""),
    );
    let parsed = go_parse_addr(addr).map_err(|e| err(&e))?;
    if matches!(parsed.ip, Ip::V6(_)) && !parsed.zone.is_empty() {
        return Err(err("IPv6 zones cannot be present in a prefix"));
    }
    let bad_bits = || err(&format!("bad bits after slash: {}", quote(bits_str)));
    // strconv.Atoi accepts a sign and leading zeros; ParsePrefix does not
    if bits_str.len() > 1 && !bits_str.starts_with(|c: char| ('1'..='9').contains(&c)) {
        return Err(bad_bits());
    }
    if bits_str.is_empty() || !bits_str.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_bits());
    }
    let bits: u64 = bits_str.parse().map_err(|_| bad_bits())?;
    if bits > u64::from(parsed.ip.bit_len()) {
        return Err(err("prefix length out of range"));
    }
    Ok(Cidr {
        ip: parsed.ip,
        bits: bits as u8,
    })
}

fn mask(bit_len: u32, bits: u8) -> u128 {
    let full: u128 = if bit_len >= 128 {
        u128::MAX
    } else {
        (1u128 << bit_len) - 1
    };
    let host_bits = bit_len.saturating_sub(u32::from(bits));
    if host_bits >= 128 {
        0
    } else {
        full & !((1u128 << host_bits) - 1)
    }
}

impl Cidr {
    /// `cidr(s)`.
    pub fn parse(s: &str) -> Result<Self, CidrError> {
        const PREFIX: &str = "network address parse error during conversion from string: ";
        let cidr = go_parse_prefix(s).map_err(|e| CidrError(format!("{PREFIX}{PREFIX}{e}")))?;
        if cidr.ip.is_4in6() {
            return Err(CidrError(format!(
                "{PREFIX}IPv4-mapped IPv6 address {} is not allowed",
                quote(s)
            )));
        }
        Ok(cidr)
    }

    /// `c.ip()`: the address as written, host bits included.
    pub fn ip(&self) -> Ip {
        self.ip
    }

    /// `c.prefixLength()`.
    pub fn prefix_length(&self) -> i64 {
        i64::from(self.bits)
    }

    /// `c.masked()`: the prefix with its host bits cleared.
    pub fn masked(&self) -> Self {
        let m = mask(self.ip.bit_len(), self.bits);
        Self {
            ip: Ip::from_u128(self.ip, self.ip.to_u128() & m),
            bits: self.bits,
        }
    }

    /// `c.containsIP(ip)`: an IPv4 address never matches an IPv6 prefix, nor the reverse.
    pub fn contains_ip(&self, ip: &Ip) -> bool {
        if ip.bit_len() != self.ip.bit_len() {
            return false;
        }
        let m = mask(self.ip.bit_len(), self.bits);
        (ip.to_u128() ^ self.ip.to_u128()) & m == 0
    }

    /// `c.containsIP(s)`: the string is parsed as `ip(s)` would. Upstream drops the parse
    /// error here and reports cel-go's `no such overload` instead (`cidrContainsIP` wraps the
    /// receiver, not the failed argument), so that is the error's text.
    pub fn contains_ip_str(&self, s: &str) -> Result<bool, IpError> {
        match Ip::parse(s) {
            Ok(ip) => Ok(self.contains_ip(&ip)),
            Err(_) => Err(IpError("no such overload".into())),
        }
    }

    /// `c.containsCIDR(other)`: `other` overlaps `c` and is at least as specific.
    pub fn contains_cidr(&self, other: &Self) -> bool {
        self.overlaps(other) && self.bits <= other.bits
    }

    /// `c.containsCIDR(s)`: the string is parsed as `cidr(s)` would.
    pub fn contains_cidr_str(&self, s: &str) -> Result<bool, CidrError> {
        Ok(self.contains_cidr(&Self::parse(s)?))
    }

    /// Go's `netip.Prefix.Overlaps`.
    fn overlaps(&self, other: &Self) -> bool {
        if self == other {
            return true;
        }
        if self.ip.bit_len() != other.ip.bit_len() {
            return false;
        }
        let min_bits = self.bits.min(other.bits);
        if min_bits == 0 {
            return true;
        }
        let m = mask(self.ip.bit_len(), min_bits);
        self.ip.to_u128() & m == other.ip.to_u128() & m
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.ip, self.bits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cidr(s: &str) -> Cidr {
        Cidr::parse(s).unwrap()
    }

    fn ip(s: &str) -> Ip {
        Ip::parse(s).unwrap()
    }

    // upstream: k8s.io/apiserver/pkg/cel/library/cidr_test.go TestCIDR
    #[test]
    fn cel_library_cases() {
        assert_eq!(cidr("192.168.0.0/24").to_string(), "192.168.0.0/24");
        assert_eq!(
            Cidr::parse("192.168.0.0/").unwrap_err().to_string(),
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\""
        );
        let c = cidr("192.168.0.0/24");
        assert!(c.contains_ip(&ip("192.168.0.1")));
        assert!(!c.contains_ip(&ip("192.168.1.1")));
        assert_eq!(c.contains_ip_str("192.168.0.1"), Ok(true));
        assert_eq!(c.contains_ip_str("192.168.1.1"), Ok(false));
        assert!(c.contains_cidr(&cidr("192.168.0.0/25")));
        assert!(c.contains_cidr(&cidr("192.168.0.1/32")));
        assert!(!c.contains_cidr(&cidr("192.168.0.0/23")));
        assert!(!c.contains_cidr(&cidr("192.169.0.1/32")));
        assert_eq!(c.contains_cidr_str("192.168.0.0/25"), Ok(true));
        assert_eq!(c.contains_cidr_str("192.168.0.0/23"), Ok(false));
        assert_eq!(c.ip(), ip("192.168.0.0"));
        assert_eq!(c.masked(), cidr("192.168.0.0/24"));
        assert_eq!(cidr("192.168.0.1/24").masked(), cidr("192.168.0.0/24"));
        assert_eq!(c.prefix_length(), 24);
        let c6 = cidr("2001:db8::/32");
        assert_eq!(c6.to_string(), "2001:db8::/32");
        assert_eq!(
            Cidr::parse("2001:db8::/").unwrap_err().to_string(),
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"2001:db8::/\"): bad bits after slash: \"\""
        );
        assert!(c6.contains_ip(&ip("2001:db8::1")));
        assert!(!c6.contains_ip(&ip("2001:dc8::1")));
        assert_eq!(c6.contains_ip_str("2001:db8::1"), Ok(true));
        assert_eq!(c6.contains_ip_str("2001:dc8::1"), Ok(false));
        assert!(c6.contains_cidr(&cidr("2001:db8::/33")));
        assert!(!c6.contains_cidr(&cidr("2001:db8::/31")));
        assert_eq!(c6.contains_cidr_str("2001:db8::/33"), Ok(true));
        assert_eq!(c6.contains_cidr_str("2001:db8::/31"), Ok(false));
        assert_eq!(c6.ip(), ip("2001:db8::"));
        assert_eq!(c6.masked(), cidr("2001:db8::/32"));
        assert_eq!(cidr("2001:db8:1::/32").masked(), cidr("2001:db8::/32"));
        assert_eq!(c6.prefix_length(), 32);
        assert_eq!(cidr("192.168.0.0/24").to_string(), "192.168.0.0/24");
    }

    // upstream: Go src/net/netip/netip_test.go TestParsePrefix; cidr.go parseCIDR
    #[test]
    fn go_netip_parse_prefix() {
        let valid = [
            ("1.2.3.4/24", "1.2.3.4/24"),
            ("1.2.3.4/0", "1.2.3.4/0"),
            ("1.2.3.4/32", "1.2.3.4/32"),
            ("::/0", "::/0"),
            ("2001:db8::1/128", "2001:db8::1/128"),
            ("FD9E:1A04:F01D::1/48", "fd9e:1a04:f01d::1/48"),
        ];
        for (input, want) in valid {
            assert_eq!(cidr(input).to_string(), want);
        }
        for input in [
            "",
            "1",
            "1.2.3.4",
            "1.2.3.4/33",
            "1.2.3.4/-1",
            "1.2.3.4/+1",
            "1.2.3.4/01",
            "1.2.3.4/ 1",
            "2001::/129",
            "fe80::1%eth0/64",
            "::ffff:1.2.3.4/96",
        ] {
            assert!(Cidr::parse(input).is_err(), "{input} parsed");
        }
        assert_eq!(
            Cidr::parse("::ffff:1.2.3.4/96").unwrap_err().to_string(),
            "network address parse error during conversion from string: IPv4-mapped IPv6 address \"::ffff:1.2.3.4/96\" is not allowed"
        );
        assert!(!cidr("0.0.0.0/0").contains_ip(&ip("::1")));
        assert!(cidr("0.0.0.0/0").contains_ip(&ip("8.8.8.8")));
        assert!(!cidr("::/0").contains_cidr(&cidr("10.0.0.0/8")));
        // upstream: cidr.go cidrContainsIPString / cidrContainsCIDRString error paths
        assert_eq!(
            cidr("10.0.0.0/8")
                .contains_ip_str("bad")
                .unwrap_err()
                .to_string(),
            "no such overload"
        );
        assert_eq!(
            cidr("10.0.0.0/8")
                .contains_cidr_str("bad")
                .unwrap_err()
                .to_string(),
            "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"bad\"): no '/'"
        );
    }
}
