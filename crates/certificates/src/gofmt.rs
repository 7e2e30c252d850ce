//! Go's renderings that approver-policy's messages contain: `strconv.Quote`, `encoding/json`
//! strings, `time.Duration` parse/print and `net.IP.String()`.

/// `strconv.Quote`: one copy, in `palisade-cel-kubernetes`.
pub(crate) use palisade_cel_kubernetes::goquote::quote as go_quote;

/// A Go `time.Duration`: signed nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct GoDuration(pub(crate) i64);

const NANOSECOND: u64 = 1;
const MICROSECOND: u64 = 1000 * NANOSECOND;
const MILLISECOND: u64 = 1000 * MICROSECOND;
const SECOND: u64 = 1000 * MILLISECOND;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;

fn unit(u: &str) -> Option<u64> {
    Some(match u {
        "ns" => NANOSECOND,
        "us" | "\u{b5}s" | "\u{3bc}s" => MICROSECOND,
        "ms" => MILLISECOND,
        "s" => SECOND,
        "m" => MINUTE,
        "h" => HOUR,
        _ => return None,
    })
}

impl GoDuration {
    /// `time.ParseDuration`.
    pub(crate) fn parse(orig: &str) -> Result<GoDuration, String> {
        let invalid = || format!("time: invalid duration {}", go_quote(orig));
        let mut s = orig.as_bytes();
        let mut neg = false;
        if let Some(&c) = s.first()
            && (c == b'-' || c == b'+')
        {
            neg = c == b'-';
            s = s.get(1..).unwrap_or_default();
        }
        if s == b"0" {
            return Ok(GoDuration(0));
        }
        if s.is_empty() {
            return Err(invalid());
        }
        let mut d: u64 = 0;
        while let Some(&first) = s.first() {
            if !(first == b'.' || first.is_ascii_digit()) {
                return Err(invalid());
            }
            let (mut v, i) = leading_int(s).ok_or_else(invalid)?;
            let pre = i > 0;
            s = s.get(i..).unwrap_or_default();
            let (mut f, mut scale, mut post) = (0, 1.0, false);
            if s.first() == Some(&b'.') {
                s = s.get(1..).unwrap_or_default();
                let j;
                (f, scale, j) = leading_fraction(s);
                post = j > 0;
                s = s.get(j..).unwrap_or_default();
            }
            if !pre && !post {
                return Err(invalid());
            }
            let mut k = 0;
            while let Some(&c) = s.get(k) {
                if c == b'.' || c.is_ascii_digit() {
                    break;
                }
                k += 1;
            }
            if k == 0 {
                return Err(format!("time: missing unit in duration {}", go_quote(orig)));
            }
            let u_bytes = s.get(..k).unwrap_or_default();
            let u_str = String::from_utf8_lossy(u_bytes);
            s = s.get(k..).unwrap_or_default();
            let Some(unit) = unit(&u_str) else {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    go_quote(&u_str),
                    go_quote(orig)
                ));
            };
            if v > (1u64 << 63) / unit {
                return Err(invalid());
            }
            v *= unit;
            if f > 0 {
                #[expect(
                    clippy::cast_possible_truncation,
                    clippy::cast_sign_loss,
                    clippy::cast_precision_loss,
                    reason = "as Go converts"
                )]
                let add = (f as f64 * (unit as f64 / scale)) as u64;
                v = v.checked_add(add).ok_or_else(invalid)?;
                if v > 1u64 << 63 {
                    return Err(invalid());
                }
            }
            d = d.checked_add(v).ok_or_else(invalid)?;
            if d > 1u64 << 63 {
                return Err(invalid());
            }
        }
        if neg {
            #[expect(
                clippy::cast_possible_wrap,
                reason = "d <= 1<<63, wraps exactly as Go's -int64(d)"
            )]
            return Ok(GoDuration((d as i64).wrapping_neg()));
        }
        i64::try_from(d).map(GoDuration).map_err(|_| invalid())
    }
}

/// Go's `leadingInt`: the value of the leading digits of `s` and how many there are; `None` past `1<<63`.
fn leading_int(s: &[u8]) -> Option<(u64, usize)> {
    let mut v: u64 = 0;
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        if v > (1u64 << 63) / 10 {
            return None;
        }
        v = v * 10 + u64::from(c - b'0');
        if v > 1u64 << 63 {
            return None;
        }
        i += 1;
    }
    Some((v, i))
}

/// Go's `leadingFraction`: the leading digits of `s` as a fraction `f / scale` (digits past overflow are dropped)
/// and how many digits there are.
fn leading_fraction(s: &[u8]) -> (u64, f64, usize) {
    let mut f: u64 = 0;
    let mut scale: f64 = 1.0;
    let mut j = 0;
    let mut overflow = false;
    while let Some(&c) = s.get(j) {
        if !c.is_ascii_digit() {
            break;
        }
        if !overflow {
            if f > (i64::MAX as u64) / 10 {
                overflow = true;
            } else {
                let y = f * 10 + u64::from(c - b'0');
                if y > 1u64 << 63 {
                    overflow = true;
                } else {
                    f = y;
                    scale *= 10.0;
                }
            }
        }
        j += 1;
    }
    (f, scale, j)
}

impl std::fmt::Display for GoDuration {
    /// `time.Duration.String()`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let neg = self.0 < 0;
        let mut u = self.0.unsigned_abs();
        let mut out = String::new();
        if u < SECOND {
            if u == 0 {
                return f.write_str("0s");
            }
            let (prec, suffix) = if u < MICROSECOND {
                (0, "ns")
            } else if u < MILLISECOND {
                (3, "\u{b5}s")
            } else {
                (6, "ms")
            };
            out.push_str(&fmt_frac_int(u, prec));
            out.push_str(suffix);
        } else {
            let mut s = String::new();
            // seconds with fraction
            s.push_str(&fmt_frac_int(u % MINUTE, 9));
            s.push('s');
            u /= MINUTE;
            if u > 0 {
                s = format!("{}m{s}", u % 60);
                u /= 60;
                if u > 0 {
                    s = format!("{u}h{s}");
                }
            }
            out = s;
        }
        if neg {
            out.insert(0, '-');
        }
        f.write_str(&out)
    }
}

/// Go's `fmtFrac` followed by `fmtInt`: `v / 10^prec` with the fraction's trailing zeros
/// dropped.
fn fmt_frac_int(v: u64, prec: u32) -> String {
    let pow = 10u64.pow(prec);
    let int = v / pow;
    let frac = v % pow;
    if frac == 0 {
        return int.to_string();
    }
    let digits = format!("{frac:0width$}", width = prec as usize);
    format!("{int}.{}", digits.trim_end_matches('0'))
}

/// `net.IP.String()` for a 4- or 16-byte address (IPv4-mapped IPv6 prints as IPv4).
pub(crate) fn go_ip_string(bytes: &[u8]) -> Option<String> {
    match bytes.len() {
        4 => {
            let a: [u8; 4] = bytes.try_into().ok()?;
            Some(std::net::Ipv4Addr::from(a).to_string())
        }
        16 => {
            let a: [u8; 16] = bytes.try_into().ok()?;
            let v6 = std::net::Ipv6Addr::from(a);
            if let Some(v4) = v6.to_ipv4_mapped() {
                return Some(v4.to_string());
            }
            Some(v6.to_string())
        }
        _ => None,
    }
}
