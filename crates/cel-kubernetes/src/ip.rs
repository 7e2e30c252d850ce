//! IP addresses: the CEL `ip` library (`k8s.io/apiserver/pkg/cel/library/ip.go`), which
//! parses with Go's `net/netip` and then rejects zones and IPv4-mapped IPv6 addresses.
//!
//! | CEL | Rust |
//! |---|---|
//! | `ip(s)` | [`Ip::parse`] |
//! | `isIP(s)` | [`is_ip`] |
//! | `ip.isCanonical(s)` | [`is_canonical`] |
//! | `string(ip)` | [`std::fmt::Display`] (Go `netip.Addr.String`) |
//! | `ip.family()` | [`Ip::family`] |
//! | `ip.isUnspecified()`, `isLoopback()`, `isLinkLocalMulticast()`, `isLinkLocalUnicast()`, `isGlobalUnicast()` | the methods of the same names |

use std::fmt;

use crate::goquote::quote;

/// An IPv4 or IPv6 address (never zoned, never IPv4-mapped IPv6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ip {
    /// An IPv4 address.
    V4([u8; 4]),
    /// An IPv6 address.
    V6([u8; 16]),
}

/// An error from `ip(s)`, worded as upstream (`IP Address "…" parse error during conversion
/// from string: ParseAddr("…"): …`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct IpError(pub(crate) String);

/// `isIP(s)`.
pub fn is_ip(s: &str) -> bool {
    Ip::parse(s).is_ok()
}

/// `ip.isCanonical(s)`: whether `s` is already the canonical string of the address it parses to.
pub fn is_canonical(s: &str) -> Result<bool, IpError> {
    Ok(Ip::parse(s)?.to_string() == s)
}

/// A parsed `netip.Addr`, possibly zoned.
pub(crate) struct GoAddr {
    pub(crate) ip: Ip,
    pub(crate) zone: String,
}

/// Go's `netip.ParseAddr`, returning Go's error text.
pub(crate) fn go_parse_addr(s: &str) -> Result<GoAddr, String> {
    for b in s.bytes() {
        match b {
            b'.' => {
                return parse_v4(s, s).map(|a| GoAddr {
                    ip: Ip::V4(a),
                    zone: String::new(),
                });
            }
            b':' => return parse_v6(s),
            b'%' => return Err(addr_err(s, "missing IPv6 address", None)),
            _ => {}
        }
    }
    Err(addr_err(s, "unable to parse IP", None))
}

fn addr_err(input: &str, msg: &str, at: Option<&str>) -> String {
    match at {
        Some(at) if !at.is_empty() => {
            format!("ParseAddr({}): {msg} (at {})", quote(input), quote(at))
        }
        _ => format!("ParseAddr({}): {msg}", quote(input)),
    }
}

/// `parseIPv4Fields`: `s` is the text to parse, `input` the whole string for messages.
fn parse_v4(input: &str, s: &str) -> Result<[u8; 4], String> {
    let bytes = s.as_bytes();
    let mut fields = [0u8; 4];
    let mut val: u32 = 0;
    let mut pos = 0usize;
    let mut dig_len = 0;
    for (i, &c) in bytes.iter().enumerate() {
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return Err(addr_err(
                    input,
                    "IPv4 field has octet with leading zero",
                    None,
                ));
            }
            val = val * 10 + u32::from(c - b'0');
            dig_len += 1;
            if val > 255 {
                return Err(addr_err(input, "IPv4 field has value >255", None));
            }
        } else if c == b'.' {
            let prev_dot = i > 0 && bytes.get(i - 1) == Some(&b'.');
            if i == 0 || i == bytes.len() - 1 || prev_dot {
                return Err(addr_err(
                    input,
                    "IPv4 field must have at least one digit",
                    s.get(i..),
                ));
            }
            if pos == 3 {
                return Err(addr_err(input, "IPv4 address too long", None));
            }
            if let Some(f) = fields.get_mut(pos) {
                *f = val as u8;
            }
            pos += 1;
            val = 0;
            dig_len = 0;
        } else {
            return Err(addr_err(input, "unexpected character", s.get(i..)));
        }
    }
    if pos < 3 {
        return Err(addr_err(input, "IPv4 address too short", None));
    }
    fields[3] = val as u8;
    Ok(fields)
}

/// `parseIPv6`.
fn parse_v6(input: &str) -> Result<GoAddr, String> {
    let (mut s, zone) = match input.split_once('%') {
        Some((addr, zone)) => {
            if zone.is_empty() {
                return Err(addr_err(input, "zone must be a non-empty string", None));
            }
            (addr, zone.to_string())
        }
        None => (input, String::new()),
    };
    let mut ip = [0u8; 16];
    let mut ellipsis: Option<usize> = None;
    if let Some(rest) = s.strip_prefix("::") {
        ellipsis = Some(0);
        s = rest;
        if s.is_empty() {
            return Ok(GoAddr {
                ip: Ip::V6(ip),
                zone,
            });
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let bytes = s.as_bytes();
        let mut off = 0;
        let mut acc: u32 = 0;
        while let Some(&c) = bytes.get(off) {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + u32::from(d);
            if acc > 0xffff {
                return Err(addr_err(input, "IPv6 field has value >=2^16", Some(s)));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_err(
                input,
                "each colon-separated field must have at least one digit",
                Some(s),
            ));
        }
        if bytes.get(off) == Some(&b'.') {
            if ellipsis.is_none() && i != 12 {
                return Err(addr_err(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    Some(s),
                ));
            }
            if i + 4 > 16 {
                return Err(addr_err(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    Some(s),
                ));
            }
            let v4 = parse_v4(input, s)?;
            for (k, b) in v4.iter().enumerate() {
                if let Some(slot) = ip.get_mut(i + k) {
                    *slot = *b;
                }
            }
            s = "";
            i += 4;
            break;
        }
        if let Some(slot) = ip.get_mut(i) {
            *slot = (acc >> 8) as u8;
        }
        if let Some(slot) = ip.get_mut(i + 1) {
            *slot = acc as u8;
        }
        i += 2;
        s = s.get(off..).unwrap_or("");
        if s.is_empty() {
            break;
        }
        if !s.starts_with(':') {
            return Err(addr_err(input, "unexpected character, want colon", Some(s)));
        } else if s.len() == 1 {
            return Err(addr_err(
                input,
                "colon must be followed by more characters",
                Some(s),
            ));
        }
        s = s.get(1..).unwrap_or("");
        if s.starts_with(':') {
            if ellipsis.is_some() {
                return Err(addr_err(input, "multiple :: in address", Some(s)));
            }
            ellipsis = Some(i);
            s = s.get(1..).unwrap_or("");
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_err(input, "trailing garbage after address", Some(s)));
    }
    if i < 16 {
        let Some(e) = ellipsis else {
            return Err(addr_err(input, "address string too short", None));
        };
        let n = 16 - i;
        let mut out = [0u8; 16];
        for (j, b) in ip.iter().enumerate().take(i) {
            let dst = if j >= e { j + n } else { j };
            if let Some(slot) = out.get_mut(dst) {
                *slot = *b;
            }
        }
        ip = out;
    } else if ellipsis.is_some() {
        return Err(addr_err(
            input,
            "the :: must expand to at least one field of zeros",
            None,
        ));
    }
    Ok(GoAddr {
        ip: Ip::V6(ip),
        zone,
    })
}

impl Ip {
    /// `ip(s)`: Go's `netip.ParseAddr`, then no zone and no IPv4-mapped IPv6 address.
    pub fn parse(s: &str) -> Result<Self, IpError> {
        let addr = go_parse_addr(s).map_err(|e| {
            IpError(format!(
                "IP Address {} parse error during conversion from string: {e}",
                quote(s)
            ))
        })?;
        if !addr.zone.is_empty() {
            return Err(IpError(format!(
                "IP address {} with zone value is not allowed",
                quote(s)
            )));
        }
        if addr.ip.is_4in6() {
            return Err(IpError(format!(
                "IPv4-mapped IPv6 address {} is not allowed",
                quote(s)
            )));
        }
        Ok(addr.ip)
    }

    pub(crate) fn is_4in6(&self) -> bool {
        match self {
            Self::V4(_) => false,
            Self::V6(b) => b.starts_with(&[0; 10]) && b.get(10..12) == Some(&[0xff, 0xff]),
        }
    }

    /// `ip.family()`: 4 or 6.
    pub fn family(&self) -> i64 {
        match self {
            Self::V4(_) => 4,
            Self::V6(_) => 6,
        }
    }

    /// The number of bits: 32 or 128.
    pub fn bit_len(&self) -> u32 {
        match self {
            Self::V4(_) => 32,
            Self::V6(_) => 128,
        }
    }

    /// The address as a big-endian integer (IPv4 in the low 32 bits).
    pub(crate) fn to_u128(self) -> u128 {
        match self {
            Self::V4(b) => u128::from(u32::from_be_bytes(b)),
            Self::V6(b) => u128::from_be_bytes(b),
        }
    }

    pub(crate) fn from_u128(family_of: Self, v: u128) -> Self {
        match family_of {
            Self::V4(_) => Self::V4((v as u32).to_be_bytes()),
            Self::V6(_) => Self::V6(v.to_be_bytes()),
        }
    }

    /// `ip.isUnspecified()`: `0.0.0.0` or `::`.
    pub fn is_unspecified(&self) -> bool {
        self.to_u128() == 0
    }

    /// `ip.isLoopback()`: `127.0.0.0/8` or `::1`.
    pub fn is_loopback(&self) -> bool {
        match self {
            Self::V4(b) => b[0] == 127,
            Self::V6(_) => self.to_u128() == 1,
        }
    }

    fn is_multicast(&self) -> bool {
        match self {
            Self::V4(b) => b[0] & 0xf0 == 0xe0,
            Self::V6(b) => b[0] == 0xff,
        }
    }

    /// `ip.isLinkLocalMulticast()`: `224.0.0.0/24` or `ff02::/16` (any flags).
    pub fn is_link_local_multicast(&self) -> bool {
        match self {
            Self::V4(b) => b[0] == 224 && b[1] == 0 && b[2] == 0,
            Self::V6(b) => b[0] == 0xff && b[1] & 0x0f == 0x02,
        }
    }

    /// `ip.isLinkLocalUnicast()`: `169.254.0.0/16` or `fe80::/10`.
    pub fn is_link_local_unicast(&self) -> bool {
        match self {
            Self::V4(b) => b[0] == 169 && b[1] == 254,
            Self::V6(b) => b[0] == 0xfe && b[1] & 0xc0 == 0x80,
        }
    }

    /// `ip.isGlobalUnicast()`: Go's definition (private ranges count as global).
    pub fn is_global_unicast(&self) -> bool {
        if let Self::V4(b) = self
            && (*b == [0, 0, 0, 0] || *b == [255, 255, 255, 255])
        {
            return false;
        }
        !self.is_unspecified()
            && !self.is_loopback()
            && !self.is_multicast()
            && !self.is_link_local_unicast()
    }
}

impl fmt::Display for Ip {
    /// Go's `netip.Addr.String`: dotted decimal, or RFC 5952 IPv6.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::V4(b) => write!(f, "{}.{}.{}.{}", b[0], b[1], b[2], b[3]),
            Self::V6(b) => {
                if self.is_4in6() {
                    return write!(f, "::ffff:{}.{}.{}.{}", b[12], b[13], b[14], b[15]);
                }
                let words: Vec<u16> = b
                    .chunks(2)
                    .map(|c| {
                        u16::from_be_bytes([
                            c.first().copied().unwrap_or(0),
                            c.get(1).copied().unwrap_or(0),
                        ])
                    })
                    .collect();
                // the longest run of at least two zero words, first one on ties
                let (mut zero_start, mut zero_end) = (usize::MAX, usize::MAX);
                let mut i = 0;
                while i < 8 {
                    let mut j = i;
                    while j < 8 && words.get(j) == Some(&0) {
                        j += 1;
                    }
                    let len = j - i;
                    let best = if zero_start == usize::MAX {
                        0
                    } else {
                        zero_end - zero_start
                    };
                    if len >= 2 && len > best {
                        zero_start = i;
                        zero_end = j;
                    }
                    i += 1;
                }
                let mut i = 0;
                while i < 8 {
                    if i == zero_start {
                        f.write_str("::")?;
                        i = zero_end;
                        if i >= 8 {
                            break;
                        }
                    } else if i > 0 {
                        f.write_str(":")?;
                    }
                    write!(f, "{:x}", words.get(i).copied().unwrap_or(0))?;
                    i += 1;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Ip {
        Ip::parse(s).unwrap()
    }

    // upstream: k8s.io/apiserver/pkg/cel/library/ip_test.go TestIP
    #[test]
    fn cel_library_cases() {
        assert_eq!(ip("192.168.0.1"), Ip::V4([192, 168, 0, 1]));
        assert_eq!(
            Ip::parse("192.168.0.1.0").unwrap_err().to_string(),
            "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long"
        );
        assert!(is_ip("192.168.0.1"));
        assert!(!is_ip("192.168.0.1.0"));
        assert_eq!(is_canonical("127.0.0.1"), Ok(true));
        assert_eq!(
            is_canonical("127.0.0.1.0").unwrap_err().to_string(),
            "IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): IPv4 address too long"
        );
        assert_eq!(ip("192.168.0.1").family(), 4);
        assert!(ip("0.0.0.0").is_unspecified());
        assert!(!ip("127.0.0.1").is_unspecified());
        assert!(ip("127.0.0.1").is_loopback());
        assert!(!ip("1.2.3.4").is_loopback());
        assert!(ip("224.0.0.1").is_link_local_multicast());
        assert!(!ip("224.0.1.1").is_link_local_multicast());
        assert!(ip("169.254.169.254").is_link_local_unicast());
        assert!(!ip("192.168.0.1").is_link_local_unicast());
        assert!(ip("192.168.0.1").is_global_unicast());
        assert!(!ip("255.255.255.255").is_global_unicast());
        assert_eq!(ip("2001:db8::68").to_string(), "2001:db8::68");
        let err = "IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")";
        assert_eq!(Ip::parse("2001:db8:::68").unwrap_err().to_string(), err);
        assert!(is_ip("2001:db8::68"));
        assert!(!is_ip("2001:db8:::68"));
        assert_eq!(is_canonical("2001:db8::68"), Ok(true));
        assert_eq!(is_canonical("2001:DB8::68"), Ok(false));
        assert_eq!(is_canonical("2001:db8:::68").unwrap_err().to_string(), err);
        assert_eq!(ip("2001:db8::68").family(), 6);
        assert!(ip("::").is_unspecified());
        assert!(!ip("::1").is_unspecified());
        assert!(ip("::1").is_loopback());
        assert!(!ip("2001:db8::abcd").is_loopback());
        assert!(ip("ff02::1").is_link_local_multicast());
        assert!(!ip("fd00::1").is_link_local_multicast());
        assert!(ip("fe80::1").is_link_local_unicast());
        assert!(!ip("fd80::1").is_link_local_unicast());
        assert!(ip("2001:db8::abcd").is_global_unicast());
        assert!(!ip("ff00::1").is_global_unicast());
        assert_eq!(ip("192.168.0.1").to_string(), "192.168.0.1");
    }

    // upstream: k8s.io/apiserver/pkg/cel/library/ip.go parseIPAddr (zone and 4-in-6 rejection)
    #[test]
    fn kubernetes_strictness() {
        assert_eq!(
            Ip::parse("fe80::1%eth0").unwrap_err().to_string(),
            "IP address \"fe80::1%eth0\" with zone value is not allowed"
        );
        assert_eq!(
            Ip::parse("::ffff:1.2.3.4").unwrap_err().to_string(),
            "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed"
        );
        assert_eq!(
            Ip::parse("010.0.0.1").unwrap_err().to_string(),
            "IP Address \"010.0.0.1\" parse error during conversion from string: ParseAddr(\"010.0.0.1\"): IPv4 field has octet with leading zero"
        );
    }

    // upstream: Go src/net/netip/netip_test.go TestParseAddr (valid and invalid inputs)
    #[test]
    fn go_netip_parse_addr() {
        let valid = [
            ("0.0.0.0", "0.0.0.0"),
            ("192.168.140.255", "192.168.140.255"),
            ("::", "::"),
            ("::1", "::1"),
            (
                "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b",
                "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b",
            ),
            ("fd7a:115c::626b:430b", "fd7a:115c::626b:430b"),
            (
                "fd7a:115c:a1e0:ab12:4843:cd96:0:0",
                "fd7a:115c:a1e0:ab12:4843:cd96::",
            ),
            ("0:0:0:0:0:0:0:0", "::"),
            ("1:0:0:0:0:0:0:0", "1::"),
            ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
            ("1:0:1:0:1:0:1:0", "1:0:1:0:1:0:1:0"),
            ("::ffff:c000:0280", "::ffff:192.0.2.128"),
            ("::ffff:192.0.2.128", "::ffff:192.0.2.128"),
            ("2001:db8::1.2.3.4", "2001:db8::102:304"),
            ("FD9E:1A04:F01D::1", "fd9e:1a04:f01d::1"),
        ];
        for (input, want) in valid {
            let addr = go_parse_addr(input).unwrap_or_else(|e| panic!("{input}: {e}"));
            assert_eq!(addr.ip.to_string(), want, "{input}");
        }
        let invalid = [
            "",
            "bad",
            "1.2.3",
            "1.2.3.4.5",
            "1.2.3.-4",
            "1.2.3.400",
            "1.2.3.04",
            "fe80::1cc0:3e8c:119f:c2e1%",
            "ffff::ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
            "fe80:1:1:1:1:1:1:1:1",
            "::ffff:192.0.2.1.3",
            "::ffff:192.0.2",
            "::ffff:192.0.2.260",
            ":1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:",
            "1::2::3",
            "fe801::1",
            "fe80::1::",
            "fe80:1?:1",
            "fe80:",
            "fe80::1:1:1:1:1:1:1",
            "%eth0",
            "1.2.3.4%eth0",
        ];
        for input in invalid {
            assert!(
                go_parse_addr(input).is_err() || Ip::parse(input).is_err(),
                "{input} parsed"
            );
        }
        assert_eq!(
            go_parse_addr("1.2.3").err().unwrap(),
            "ParseAddr(\"1.2.3\"): IPv4 address too short"
        );
        assert_eq!(
            go_parse_addr("bad").err().unwrap(),
            "ParseAddr(\"bad\"): unable to parse IP"
        );
        assert_eq!(
            go_parse_addr("1..2.3").err().unwrap(),
            "ParseAddr(\"1..2.3\"): IPv4 field must have at least one digit (at \".2.3\")"
        );
    }
}
