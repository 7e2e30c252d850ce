//! A small DER reader with Go `encoding/asn1`'s acceptance rules, enough to read a PKCS#10
//! CSR exactly as `crypto/x509.ParseCertificateRequest` and cert-manager's helpers do.
//!
//! Written on raw TLVs rather than `x509-cert`'s typed structs on purpose: those reject inputs
//! Go accepts (unsorted `SET OF`, UniversalString/GeneralString attribute values, unknown
//! versions), and approver-policy's verdict and wording depend on Go accepting them.

/// One TLV.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tlv<'a> {
    pub(crate) class: u8,
    pub(crate) constructed: bool,
    pub(crate) tag: u64,
    pub(crate) content: &'a [u8],
    pub(crate) full: &'a [u8],
}

pub(crate) const UNIVERSAL: u8 = 0;
pub(crate) const CONTEXT: u8 = 2;

pub(crate) const TAG_BOOLEAN: u64 = 1;
pub(crate) const TAG_INTEGER: u64 = 2;
pub(crate) const TAG_BIT_STRING: u64 = 3;
pub(crate) const TAG_OCTET_STRING: u64 = 4;
pub(crate) const TAG_NULL: u64 = 5;
pub(crate) const TAG_OID: u64 = 6;
pub(crate) const TAG_UTF8: u64 = 12;
pub(crate) const TAG_SEQUENCE: u64 = 16;
pub(crate) const TAG_SET: u64 = 17;
pub(crate) const TAG_NUMERIC: u64 = 18;
pub(crate) const TAG_PRINTABLE: u64 = 19;
pub(crate) const TAG_T61: u64 = 20;
pub(crate) const TAG_IA5: u64 = 22;
pub(crate) const TAG_UTC_TIME: u64 = 23;
pub(crate) const TAG_GENERALIZED_TIME: u64 = 24;
pub(crate) const TAG_BMP: u64 = 30;

pub(crate) fn syntax(msg: &str) -> String {
    format!("asn1: syntax error: {msg}")
}
pub(crate) fn structural(msg: &str) -> String {
    format!("asn1: structure error: {msg}")
}

/// Reads one TLV from the front of `data`; returns it and the rest.
pub(crate) fn read_tlv(data: &[u8]) -> Result<(Tlv<'_>, &[u8]), String> {
    let first = *data.first().ok_or_else(|| syntax("sequence truncated"))?;
    let class = first >> 6;
    let constructed = first & 0x20 != 0;
    let mut pos = 1usize;
    let mut tag = u64::from(first & 0x1f);
    if tag == 0x1f {
        // high-tag-number form, base-128, minimal, fits in 31 bits as Go requires
        tag = 0;
        let mut n = 0;
        loop {
            let b = *data
                .get(pos)
                .ok_or_else(|| syntax("truncated tag or length"))?;
            pos += 1;
            if n == 0 && b == 0x80 {
                return Err(structural("base 128 integer not minimally-encoded"));
            }
            n += 1;
            if n > 4 {
                return Err(structural("base 128 integer too large"));
            }
            tag = (tag << 7) | u64::from(b & 0x7f);
            if b & 0x80 == 0 {
                break;
            }
        }
        if tag > i32::MAX as u64 {
            return Err(structural("base 128 integer too large"));
        }
        if tag < 0x1f {
            return Err(syntax("non-minimal tag"));
        }
    }
    let lb = *data
        .get(pos)
        .ok_or_else(|| syntax("truncated tag or length"))?;
    pos += 1;
    let len: usize = if lb & 0x80 == 0 {
        usize::from(lb)
    } else {
        let n = usize::from(lb & 0x7f);
        if n == 0 {
            return Err(syntax("indefinite length found (not DER)"));
        }
        let mut l: usize = 0;
        for i in 0..n {
            let b = *data
                .get(pos)
                .ok_or_else(|| syntax("truncated tag or length"))?;
            pos += 1;
            if i == 0 && b == 0 {
                return Err(structural("superfluous leading zeros in length"));
            }
            if l >= (1usize << 23) {
                return Err(structural("length too large"));
            }
            l = (l << 8) | usize::from(b);
        }
        if l < 0x80 {
            return Err(structural("non-minimal length"));
        }
        l
    };
    let end = pos
        .checked_add(len)
        .ok_or_else(|| syntax("data truncated"))?;
    let content = data.get(pos..end).ok_or_else(|| syntax("data truncated"))?;
    let full = data.get(..end).ok_or_else(|| syntax("data truncated"))?;
    let rest = data.get(end..).unwrap_or_default();
    Ok((
        Tlv {
            class,
            constructed,
            tag,
            content,
            full,
        },
        rest,
    ))
}

impl<'a> Tlv<'a> {
    pub(crate) fn is(&self, class: u8, tag: u64) -> bool {
        self.class == class && self.tag == tag
    }
    pub(crate) fn expect(&self, tag: u64, constructed: bool, what: &str) -> Result<(), String> {
        if self.class == UNIVERSAL && self.tag == tag && self.constructed == constructed {
            Ok(())
        } else {
            Err(structural(&format!(
                "tags don't match ({tag} vs {{class:{} tag:{} length:{} isCompound:{}}}) {what}",
                self.class,
                self.tag,
                self.content.len(),
                self.constructed
            )))
        }
    }
    /// The children of a constructed value: every one is read first, so that a malformed child is the error
    /// whatever the caller then checks, as when Go unmarshals the whole value.
    pub(crate) fn children(&self) -> Result<Children<'a>, String> {
        let mut rest = self.content;
        while !rest.is_empty() {
            rest = read_tlv(rest)?.1;
        }
        Ok(Children { rest: self.content })
    }
}

/// The children of a constructed value, read again one at a time from content [`Tlv::children`] has checked, rather
/// than collected: a CSR's values have a handful each and are looked at once.
#[derive(Debug, Clone)]
pub(crate) struct Children<'a> {
    rest: &'a [u8],
}

impl<'a> Children<'a> {
    /// The child at `i`, if there are that many.
    pub(crate) fn get(&self, i: usize) -> Option<Tlv<'a>> {
        self.clone().nth(i)
    }

    /// No children at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }
}

impl<'a> Iterator for Children<'a> {
    type Item = Tlv<'a>;

    fn next(&mut self) -> Option<Tlv<'a>> {
        // at the end without asking read_tlv, whose error would be written out only to be dropped
        if self.rest.is_empty() {
            return None;
        }
        let (t, rest) = read_tlv(self.rest).ok()?;
        self.rest = rest;
        Some(t)
    }
}

/// An OBJECT IDENTIFIER's content, as Go's dotted `ObjectIdentifier.String()`; arcs are
/// limited as `encoding/asn1`'s `parseBase128Int` limits them (at most 5 bytes, 31 bits).
pub(crate) fn parse_oid(content: &[u8]) -> Result<String, String> {
    // written out as read, with room for the longest text the content can give: at most four characters a byte
    // (`.127` from one, `.2147483647` from five, `2.47` for the first)
    let mut dotted = String::with_capacity(content.len() * 4);
    read_oid(content, |arc| {
        if !dotted.is_empty() {
            dotted.push('.');
        }
        push_decimal(&mut dotted, arc);
    })?;
    Ok(dotted)
}

/// [`parse_oid`]'s checks alone, for an OID that is only compared or skipped. Content it accepts is compared as
/// bytes: the encoding is then the only one of its dotted text (minimal arcs, one way to write the first two).
pub(crate) fn check_oid(content: &[u8]) -> Result<(), String> {
    read_oid(content, |_| {})
}

/// Reads an OBJECT IDENTIFIER's content with Go's checks, handing `arc` each arc in order.
fn read_oid(content: &[u8], mut arc: impl FnMut(u64)) -> Result<(), String> {
    if content.is_empty() {
        return Err(syntax("zero length OBJECT IDENTIFIER"));
    }
    let mut first = true;
    let mut rest = content;
    while !rest.is_empty() {
        let mut v: u64 = 0;
        let mut n = 0usize;
        loop {
            let Some((&b, r)) = rest.split_first() else {
                return Err(syntax("truncated base 128 integer"));
            };
            rest = r;
            if n == 5 {
                return Err(structural("base 128 integer too large"));
            }
            if n == 0 && b == 0x80 {
                return Err(syntax("integer is not minimally encoded"));
            }
            n += 1;
            v = (v << 7) | u64::from(b & 0x7f);
            if b & 0x80 == 0 {
                break;
            }
        }
        if v > i32::MAX as u64 {
            return Err(structural("base 128 integer too large"));
        }
        if first {
            // the first value holds the first two arcs
            first = false;
            if v < 80 {
                arc(v / 40);
                arc(v % 40);
            } else {
                arc(2);
                arc(v - 80);
            }
        } else {
            arc(v);
        }
    }
    Ok(())
}

/// `n` in decimal, appended without the formatting machinery (an OID's arcs are read for every request).
fn push_decimal(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        if let Some(d) = digits.get_mut(at) {
            *d = b'0' + (n % 10) as u8;
        }
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for d in digits.get(at..).unwrap_or_default() {
        out.push(char::from(*d));
    }
}

/// Checks an INTEGER is minimally encoded (Go's `checkInteger`).
pub(crate) fn check_integer(content: &[u8]) -> Result<(), String> {
    match content {
        [] => Err(structural("empty integer")),
        [0x00, b, ..] if b & 0x80 == 0 => Err(structural("integer not minimally-encoded")),
        [0xff, b, ..] if b & 0x80 != 0 => Err(structural("integer not minimally-encoded")),
        _ => Ok(()),
    }
}

/// Bit length of a positive big-endian INTEGER (`big.Int.BitLen`); `None` if not positive.
pub(crate) fn positive_bit_len(content: &[u8]) -> Option<usize> {
    if content.first().is_some_and(|b| b & 0x80 != 0) {
        return None;
    }
    let mut iter = content.iter().skip_while(|b| **b == 0);
    let first = *iter.next()?;
    let rest = iter.count();
    Some(rest * 8 + (8 - first.leading_zeros() as usize))
}

/// Go's `parseBitString` checks; returns the right-aligned bytes.
pub(crate) fn bit_string_bytes(content: &[u8]) -> Result<&[u8], String> {
    let (&pad, bytes) = content
        .split_first()
        .ok_or_else(|| syntax("zero length BIT STRING"))?;
    let last_ok = match bytes.last() {
        None => pad == 0,
        Some(&l) => pad <= 7 && (pad == 0 || l & ((1u8 << pad) - 1) == 0),
    };
    if !last_ok {
        return Err(syntax("invalid padding bits in BIT STRING"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_are_all_read_before_any_is_handed_out() {
        // SEQUENCE { INTEGER 1, NULL }
        let (seq, _) = read_tlv(&[0x30, 0x05, 0x02, 0x01, 0x01, 0x05, 0x00]).unwrap();
        let children = seq.children().unwrap();
        assert_eq!(children.clone().count(), 2);
        assert_eq!(children.get(0).map(|c| c.tag), Some(TAG_INTEGER));
        assert_eq!(children.get(1).map(|c| c.tag), Some(TAG_NULL));
        assert!(children.get(2).is_none() && !children.is_empty());
        // SEQUENCE { INTEGER 1, a NULL claiming five bytes }: an error, though the first child reads
        let (bad, _) = read_tlv(&[0x30, 0x05, 0x02, 0x01, 0x01, 0x05, 0x05]).unwrap();
        assert_eq!(
            bad.children().err().as_deref(),
            Some("asn1: syntax error: data truncated")
        );
        let (empty, _) = read_tlv(&[0x30, 0x00]).unwrap();
        assert!(empty.children().unwrap().is_empty());
    }

    #[test]
    fn oids_print_as_go_prints_them() {
        // Go's `asn1.ObjectIdentifier.String()` of what `parseObjectIdentifier` reads
        let cases: [(&[u8], &str); 6] = [
            (
                &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b],
                "1.2.840.113549.1.1.11",
            ),
            (&[0x55, 0x1d, 0x11], "2.5.29.17"),
            (&[0x00], "0.0"),
            (&[0x4f], "1.39"),
            (&[0x88, 0x37, 0x03], "2.999.3"),
            (
                &[0x2b, 0x87, 0xff, 0xff, 0xff, 0x7f, 0x00],
                "1.3.2147483647.0",
            ),
        ];
        for (der, dotted) in cases {
            assert_eq!(parse_oid(der).as_deref(), Ok(dotted), "{der:02x?}");
            // the room parse_oid reserves is never outgrown
            assert!(dotted.len() <= der.len() * 4, "{dotted}");
        }
        assert!(parse_oid(&[0x2b, 0x88, 0x80, 0x80, 0x80, 0x00]).is_err());
        assert!(parse_oid(&[]).is_err());
        // check_oid accepts and refuses as parse_oid does, with its error
        for der in [
            &[0x2b, 0x88, 0x80, 0x80, 0x80, 0x00][..],
            &[],
            &[0x2b, 0x80, 0x01],
            &[0x2b, 0x81],
            &[0x2b, 0x88, 0x80, 0x80, 0x80, 0x80, 0x00],
            &[0x55, 0x1d, 0x11],
        ] {
            assert_eq!(check_oid(der), parse_oid(der).map(|_| ()), "{der:02x?}");
        }
    }
}
