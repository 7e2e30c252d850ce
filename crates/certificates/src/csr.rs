//! `spec.request` → the view of the CSR approver-policy evaluates.
//!
//! Mirrors, in order: Kubernetes' base64 decoding of a `[]byte` field, cert-manager's
//! `DecodeX509CertificateRequestBytes` (size-capped PEM decode, first block of any type),
//! Go's `x509.ParseCertificateRequest` (structure, public key, subject, extension request,
//! SAN parsing with Go's checks; the signature is not verified), and the raw SAN / raw
//! subject walks approver-policy v0.27 adds to fail closed.

use std::borrow::Cow;

use base64::Engine as _;

use crate::asn1::{
    self, CONTEXT, Children, TAG_BIT_STRING, TAG_BMP, TAG_BOOLEAN, TAG_GENERALIZED_TIME, TAG_IA5,
    TAG_INTEGER, TAG_NULL, TAG_NUMERIC, TAG_OCTET_STRING, TAG_OID, TAG_PRINTABLE, TAG_SEQUENCE,
    TAG_SET, TAG_T61, TAG_UTC_TIME, TAG_UTF8, Tlv, UNIVERSAL, read_tlv,
};
use crate::gofmt::{go_ip_string, go_quote};
use crate::gourl;

/// cert-manager's `maxLeafCertificatePEMSize` (30000 + 6500), the cap `SafeDecodeCSR` applies.
pub(crate) const MAX_CSR_PEM_SIZE: usize = 36_500;

// The OBJECT IDENTIFIERs read here, as the content of their DER encoding: an OID that `asn1::check_oid` accepts is
// compared with them byte for byte, without writing out its dotted text.
/// `1.2.840.113549.1.9.14`
const OID_EXTENSION_REQUEST: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x09, 0x0e];
/// `2.5.29.17`
const OID_SAN: &[u8] = &[0x55, 0x1d, 0x11];
/// `1.2.840.113549.1.1.1`
const OID_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
/// `1.2.840.10045.2.1`
const OID_ECDSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
/// `1.3.101.112`
const OID_ED25519: &[u8] = &[0x2b, 0x65, 0x70];
/// `1.2.840.10040.4.1`
const OID_DSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x01];
/// `1.3.132.0.33`
const OID_P224: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x21];
/// `1.2.840.10045.3.1.7`
const OID_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
/// `1.3.132.0.34`
const OID_P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
/// `1.3.132.0.35`
const OID_P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];

/// A subject attribute value: a Go `string`, or anything else (`atv.Value.(string)` fails).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AttrValue {
    Str(String),
    NonString,
}

#[derive(Debug, Clone)]
pub(crate) struct Atv {
    pub(crate) oid: String,
    pub(crate) value: AttrValue,
}

/// The public key as approver-policy's `decodePublicKey` sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PublicKey {
    Rsa(usize),
    Ecdsa(usize),
    Ed25519,
    /// A key Go parses into a type approver-policy does not recognise (`%T`), or `<nil>`.
    Other(&'static str),
}

/// cert-manager's `UnmarshalSANs` result, reduced to what approver-policy reads.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawSans {
    /// (type-id, value as `otherNameValueString` renders it)
    pub(crate) other_names: Vec<(String, String)>,
    pub(crate) directory_names: usize,
    pub(crate) x400_addresses: usize,
    pub(crate) edi_party_names: usize,
    pub(crate) registered_ids: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct Csr {
    /// Subject RDNs in order, every attribute kept.
    pub(crate) rdns: Vec<Vec<Atv>>,
    pub(crate) dns_names: Vec<String>,
    pub(crate) emails: Vec<String>,
    pub(crate) ips: Vec<String>,
    pub(crate) uris: Vec<String>,
    /// Values of every SAN extension, in order.
    pub(crate) san_extensions: Vec<Vec<u8>>,
    pub(crate) public_key: PublicKey,
}

impl Csr {
    /// `pkix.Name` projection: string values of one named attribute, in order.
    pub(crate) fn subject_strings(&self, oid: &str) -> Vec<String> {
        self.rdns
            .iter()
            .flatten()
            .filter(|a| a.oid == oid)
            .filter_map(|a| match &a.value {
                AttrValue::Str(s) => Some(s.clone()),
                AttrValue::NonString => None,
            })
            .collect()
    }
}

/// `spec.request` (base64 text) → CSR, or the error upstream would return.
pub(crate) fn decode_spec_request(b64: &str) -> Result<Csr, String> {
    let bytes = go_base64_decode(b64.as_bytes()).map_err(|e| format!("spec.request: {e}"))?;
    decode_pem_csr(&bytes)
}

/// Go's `base64.StdEncoding`: padding required, non-zero trailing bits accepted.
const GO_STD_ENCODING: base64::engine::GeneralPurpose = base64::engine::GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    base64::engine::GeneralPurposeConfig::new()
        .with_decode_allow_trailing_bits(true)
        .with_decode_padding_mode(base64::engine::DecodePaddingMode::RequireCanonical),
);

/// Go's `base64.StdEncoding.Decode`: padding required, `\r` and `\n` ignored, non-zero
/// trailing bits accepted.
pub(crate) fn go_base64_decode(s: &[u8]) -> Result<Vec<u8>, String> {
    let cleaned = without(s, b'\r', b'\n');
    GO_STD_ENCODING.decode(&cleaned).map_err(|e| {
        let at = match e {
            base64::DecodeError::InvalidByte(i, _)
            | base64::DecodeError::InvalidLastSymbol(i, _) => i,
            base64::DecodeError::InvalidLength(n) => n,
            base64::DecodeError::InvalidPadding => cleaned.len(),
        };
        format!("illegal base64 data at input byte {at}")
    })
}

/// `bytes` without any `a` or `b`: borrowed when there are none (looked for with `contains`, which compares a word
/// at a time: `spec.request` is a kilobyte or more of base64 without line breaks), else copied and filtered.
fn without(bytes: &[u8], a: u8, b: u8) -> Cow<'_, [u8]> {
    if !bytes.contains(&a) && !bytes.contains(&b) {
        return Cow::Borrowed(bytes);
    }
    let mut out = bytes.to_vec();
    out.retain(|x| *x != a && *x != b);
    Cow::Owned(out)
}

/// cert-manager's `DecodeX509CertificateRequestBytes`.
pub(crate) fn decode_pem_csr(data: &[u8]) -> Result<Csr, String> {
    if data.len() > MAX_CSR_PEM_SIZE {
        return Err(format!(
            "error decoding certificate request PEM block: provided PEM data was larger than the maximum {MAX_CSR_PEM_SIZE}B"
        ));
    }
    let Some(der) = pem_decode(data) else {
        return Err(
            "error decoding certificate request PEM block: no PEM data was found in given input"
                .to_owned(),
        );
    };
    parse_certificate_request(&der)
}

fn get_line(data: &[u8]) -> (&[u8], &[u8]) {
    let (line, rest) = match data.iter().position(|b| *b == b'\n') {
        Some(i) => (
            data.get(..i).unwrap_or_default(),
            data.get(i + 1..).unwrap_or_default(),
        ),
        None => (data, &[][..]),
    };
    let mut end = line.len();
    while end > 0 && matches!(line.get(end - 1), Some(b' ' | b'\t' | b'\r')) {
        end -= 1;
    }
    (line.get(..end).unwrap_or_default(), rest)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let (first, tail) = needle.split_first()?;
    let mut from = 0;
    loop {
        // where the needle's first byte occurs (a line's end, for PEM's markers), then the rest compared
        let at = from + hay.get(from..)?.iter().position(|b| b == first)?;
        if hay.get(at + 1..)?.starts_with(tail) {
            return Some(at);
        }
        from = at + 1;
    }
}

/// Go's `encoding/pem.Decode`: the first well-formed block of any type.
pub(crate) fn pem_decode(data: &[u8]) -> Option<Vec<u8>> {
    let mut rest: &[u8] = data;
    loop {
        if rest.starts_with(b"-----BEGIN ") {
            rest = rest.get(11..)?;
        } else if let Some(i) = find(rest, b"\n-----BEGIN ") {
            rest = rest.get(i + 12..)?;
        } else {
            return None;
        }
        let (type_line, after) = get_line(rest);
        rest = after;
        let Some(type_name) = type_line.strip_suffix(b"-----") else {
            continue;
        };
        // headers
        let mut has_headers = false;
        loop {
            if rest.is_empty() {
                return None;
            }
            let (line, next) = get_line(rest);
            if !line.contains(&b':') {
                break;
            }
            has_headers = true;
            rest = next;
        }
        let (end_index, trailer_index) = if !has_headers && rest.starts_with(b"-----END ") {
            (0usize, 9usize)
        } else {
            match find(rest, b"\n-----END ") {
                Some(i) => (i, i + 10),
                None => continue,
            }
        };
        let Some(end_trailer) = rest.get(trailer_index..) else {
            continue;
        };
        let trailer_len = type_name.len() + 5;
        if end_trailer.len() < trailer_len {
            continue;
        }
        let (head, rest_of_end_line) = end_trailer.split_at(trailer_len);
        if !head.starts_with(type_name) || !head.ends_with(b"-----") {
            continue;
        }
        if !get_line(rest_of_end_line).0.is_empty() {
            continue;
        }
        // a body that is not base64 (UTF-8 or not) fails to decode, and the next block is tried
        let body = without(rest.get(..end_index).unwrap_or_default(), b' ', b'\t');
        match go_base64_decode(&body) {
            Ok(bytes) => return Some(bytes),
            Err(_) => continue,
        }
    }
}

fn nth<'a>(children: &Children<'a>, i: usize) -> Result<Tlv<'a>, String> {
    children
        .get(i)
        .ok_or_else(|| asn1::syntax("sequence truncated"))
}

/// Go's `x509.ParseCertificateRequest` (as far as approver-policy depends on it).
pub(crate) fn parse_certificate_request(der: &[u8]) -> Result<Csr, String> {
    let (outer, rest) = read_tlv(der)?;
    if !rest.is_empty() {
        return Err(asn1::syntax("trailing data"));
    }
    outer.expect(TAG_SEQUENCE, true, "certificateRequest")?;
    let top = outer.children()?;
    let tbs = nth(&top, 0)?;
    tbs.expect(TAG_SEQUENCE, true, "tbsCertificateRequest")?;
    let sig_alg = nth(&top, 1)?;
    parse_algorithm_identifier(&sig_alg)?;
    let sig = nth(&top, 2)?;
    sig.expect(TAG_BIT_STRING, false, "SignatureValue")?;
    asn1::bit_string_bytes(sig.content)?;

    let fields = tbs.children()?;
    let version = nth(&fields, 0)?;
    version.expect(TAG_INTEGER, false, "Version")?;
    asn1::check_integer(version.content)?;
    if version.content.len() > 8 {
        return Err(asn1::structural("integer too large"));
    }
    let subject = nth(&fields, 1)?;
    let spki = nth(&fields, 2)?;
    spki.expect(TAG_SEQUENCE, true, "publicKeyInfo")?;
    let spki_fields = spki.children()?;
    let key_alg = nth(&spki_fields, 0)?;
    let (key_oid, key_params) = parse_algorithm_identifier(&key_alg)?;
    let key_bits = nth(&spki_fields, 1)?;
    key_bits.expect(TAG_BIT_STRING, false, "PublicKey")?;
    let key_bytes = asn1::bit_string_bytes(key_bits.content)?;
    let attrs = nth(&fields, 3)?;
    if !(attrs.class == CONTEXT && attrs.tag == 0 && attrs.constructed) {
        return Err(asn1::structural(&format!(
            "tags don't match (0 vs {{class:{} tag:{} length:{} isCompound:{}}}) RawAttributes",
            attrs.class,
            attrs.tag,
            attrs.content.len(),
            attrs.constructed
        )));
    }
    let raw_attributes = attrs.children()?;

    let public_key = parse_public_key(key_oid, key_params, key_bytes)?;

    // Subject: asn1.Unmarshal(RawSubject, &pkix.RDNSequence)
    let rdns = parse_rdn_sequence(&subject)?;

    let extensions = parse_csr_extensions(raw_attributes)?;
    let mut csr = Csr {
        rdns,
        dns_names: Vec::new(),
        emails: Vec::new(),
        ips: Vec::new(),
        uris: Vec::new(),
        san_extensions: Vec::new(),
        public_key,
    };
    for (oid, value) in extensions {
        if oid == OID_SAN {
            let (dns, emails, ips, uris) = parse_san_extension(value)?;
            csr.dns_names = dns;
            csr.emails = emails;
            csr.ips = ips;
            csr.uris = uris;
            csr.san_extensions.push(value.to_vec());
        }
    }
    Ok(csr)
}

/// The algorithm's OID (its content, checked) and parameters.
fn parse_algorithm_identifier<'a>(t: &Tlv<'a>) -> Result<(&'a [u8], Option<Tlv<'a>>), String> {
    t.expect(TAG_SEQUENCE, true, "AlgorithmIdentifier")?;
    let parts = t.children()?;
    let oid = nth(&parts, 0)?;
    oid.expect(TAG_OID, false, "Algorithm")?;
    asn1::check_oid(oid.content)?;
    Ok((oid.content, parts.get(1)))
}

fn parse_public_key(oid: &[u8], params: Option<Tlv<'_>>, key: &[u8]) -> Result<PublicKey, String> {
    match oid {
        OID_RSA => {
            if params.map(|p| p.full) != Some(&[0x05, 0x00][..]) {
                return Err("x509: RSA key missing NULL parameters".to_owned());
            }
            let (seq, _) = read_tlv(key).map_err(|_| "x509: invalid RSA public key".to_owned())?;
            if !seq.is(UNIVERSAL, TAG_SEQUENCE) || !seq.constructed {
                return Err("x509: invalid RSA public key".to_owned());
            }
            let (n, rest) =
                read_tlv(seq.content).map_err(|_| "x509: invalid RSA modulus".to_owned())?;
            if !n.is(UNIVERSAL, TAG_INTEGER)
                || n.constructed
                || asn1::check_integer(n.content).is_err()
            {
                return Err("x509: invalid RSA modulus".to_owned());
            }
            let (e, _) =
                read_tlv(rest).map_err(|_| "x509: invalid RSA public exponent".to_owned())?;
            if !e.is(UNIVERSAL, TAG_INTEGER)
                || e.constructed
                || asn1::check_integer(e.content).is_err()
                || e.content.len() > 8
            {
                return Err("x509: invalid RSA public exponent".to_owned());
            }
            let Some(bits) = asn1::positive_bit_len(n.content) else {
                return Err("x509: RSA modulus is not a positive number".to_owned());
            };
            if asn1::positive_bit_len(e.content).is_none() {
                return Err("x509: RSA public exponent is not a positive number".to_owned());
            }
            Ok(PublicKey::Rsa(bits))
        }
        OID_ECDSA => {
            let curve = params
                .filter(|p| {
                    p.is(UNIVERSAL, TAG_OID) && !p.constructed && asn1::check_oid(p.content).is_ok()
                })
                .ok_or_else(|| "x509: invalid ECDSA parameters".to_owned())?;
            let bits: usize = match curve.content {
                OID_P224 => 224,
                OID_P256 => 256,
                OID_P384 => 384,
                OID_P521 => 521,
                _ => return Err("x509: unsupported elliptic curve".to_owned()),
            };
            if !crate::ec::on_curve(bits, key) {
                return Err("x509: failed to unmarshal elliptic curve point".to_owned());
            }
            Ok(PublicKey::Ecdsa(bits))
        }
        OID_ED25519 => {
            if params.is_some() {
                return Err("x509: Ed25519 key encoded with illegal parameters".to_owned());
            }
            if key.len() != 32 {
                return Err("x509: wrong Ed25519 public key size".to_owned());
            }
            Ok(PublicKey::Ed25519)
        }
        // DSA parameters are not validated here (Go would reject malformed ones)
        OID_DSA => Ok(PublicKey::Other("*dsa.PublicKey")),
        // Go leaves the key nil for algorithms it does not know (X25519 included)
        _ => Ok(PublicKey::Other("<nil>")),
    }
}

/// `asn1.Unmarshal(der, &pkix.RDNSequence)` with Go's value decoding into `any`.
pub(crate) fn parse_rdn_sequence(t: &Tlv<'_>) -> Result<Vec<Vec<Atv>>, String> {
    t.expect(TAG_SEQUENCE, true, "RDNSequence")?;
    let mut rdns = Vec::new();
    for set in t.children()? {
        set.expect(TAG_SET, true, "RelativeDistinguishedNameSET")?;
        let mut rdn = Vec::new();
        for atv in set.children()? {
            atv.expect(TAG_SEQUENCE, true, "AttributeTypeAndValue")?;
            let parts = atv.children()?;
            let oid = nth(&parts, 0)?;
            oid.expect(TAG_OID, false, "Type")?;
            let oid = asn1::parse_oid(oid.content)?;
            let value = nth(&parts, 1)?;
            rdn.push(Atv {
                oid,
                value: decode_any(&value)?,
            });
        }
        rdns.push(rdn);
    }
    Ok(rdns)
}

fn is_printable(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b' ' | b'\''
                | b'('
                | b')'
                | b'+'
                | b','
                | b'-'
                | b'.'
                | b'/'
                | b':'
                | b'='
                | b'?'
                | b'*'
                | b'&'
        )
}

/// encoding/asn1 decoding of a value into `interface{}`.
fn decode_any(t: &Tlv<'_>) -> Result<AttrValue, String> {
    if t.constructed || t.class != UNIVERSAL {
        return Ok(AttrValue::NonString);
    }
    let c = t.content;
    Ok(match t.tag {
        TAG_PRINTABLE => {
            if !c.iter().all(|b| is_printable(*b)) {
                return Err(asn1::syntax("PrintableString contains invalid character"));
            }
            AttrValue::Str(String::from_utf8_lossy(c).into_owned())
        }
        TAG_NUMERIC => {
            if !c.iter().all(|b| b.is_ascii_digit() || *b == b' ') {
                return Err(asn1::syntax("NumericString contains invalid character"));
            }
            AttrValue::Str(String::from_utf8_lossy(c).into_owned())
        }
        TAG_IA5 => {
            if !c.is_ascii() {
                return Err(asn1::syntax("IA5String contains invalid character"));
            }
            AttrValue::Str(String::from_utf8_lossy(c).into_owned())
        }
        // Go keeps T61String bytes as they are; non-UTF-8 bytes read as U+FFFD here.
        TAG_T61 => AttrValue::Str(String::from_utf8_lossy(c).into_owned()),
        TAG_UTF8 => match std::str::from_utf8(c) {
            Ok(s) => AttrValue::Str(s.to_owned()),
            Err(_) => return Err(asn1::syntax("invalid UTF-8 string")),
        },
        TAG_BMP => {
            if !c.len().is_multiple_of(2) {
                return Err("pkcs12: odd-length BMP string".to_owned());
            }
            let mut c = c;
            if c.len() >= 2 && c.ends_with(&[0, 0]) {
                c = c.get(..c.len() - 2).unwrap_or_default();
            }
            let units: Vec<u16> = c
                .chunks_exact(2)
                .map(|p| match p {
                    [a, b] => u16::from_be_bytes([*a, *b]),
                    _ => 0xfffd,
                })
                .collect();
            AttrValue::Str(String::from_utf16_lossy(&units))
        }
        TAG_INTEGER => {
            asn1::check_integer(c)?;
            if c.len() > 8 {
                return Err(asn1::structural("integer too large"));
            }
            AttrValue::NonString
        }
        TAG_BIT_STRING => {
            asn1::bit_string_bytes(c)?;
            AttrValue::NonString
        }
        TAG_OID => {
            asn1::check_oid(c)?;
            AttrValue::NonString
        }
        TAG_OCTET_STRING | TAG_UTC_TIME | TAG_GENERALIZED_TIME | TAG_BOOLEAN | TAG_NULL => {
            AttrValue::NonString
        }
        _ => AttrValue::NonString,
    })
}

/// A requested extension: its OID's content and its value, borrowed from the CSR.
type Extension<'a> = (&'a [u8], &'a [u8]);

/// Go's `parseCSRExtensions`: the extensions of every extensionRequest attribute.
fn parse_csr_extensions(attrs: Children<'_>) -> Result<Vec<Extension<'_>>, String> {
    let mut out: Vec<Extension<'_>> = Vec::new();
    for attr in attrs {
        // pkcs10Attribute { Id OID, Values SET OF ANY }; unparsable attributes are ignored
        let parsed = (|| -> Option<(&[u8], Children<'_>)> {
            if !attr.is(UNIVERSAL, TAG_SEQUENCE) || !attr.constructed {
                return None;
            }
            let parts = attr.children().ok()?;
            let id = parts.get(0)?;
            if !id.is(UNIVERSAL, TAG_OID) || id.constructed {
                return None;
            }
            asn1::check_oid(id.content).ok()?;
            let values = parts.get(1)?;
            if !values.is(UNIVERSAL, TAG_SET) || !values.constructed {
                return None;
            }
            let vals = values.children().ok()?;
            if vals.is_empty() {
                return None;
            }
            Some((id.content, vals))
        })();
        let Some((id, vals)) = parsed else { continue };
        if id != OID_EXTENSION_REQUEST {
            continue;
        }
        let first = nth(&vals, 0)?;
        first.expect(TAG_SEQUENCE, true, "[]pkix.Extension")?;
        for ext in first.children()? {
            ext.expect(TAG_SEQUENCE, true, "pkix.Extension")?;
            let parts = ext.children()?;
            let oid = nth(&parts, 0)?;
            oid.expect(TAG_OID, false, "Id")?;
            asn1::check_oid(oid.content)?;
            let oid = oid.content;
            let mut idx = 1;
            if let Some(b) = parts.get(1)
                && b.is(UNIVERSAL, TAG_BOOLEAN)
            {
                if b.content != [0x00] && b.content != [0xff] {
                    return Err(asn1::syntax("invalid boolean"));
                }
                idx = 2;
            }
            let value = nth(&parts, idx)?;
            value.expect(TAG_OCTET_STRING, false, "Value")?;
            if out.iter().any(|(o, _)| *o == oid) {
                return Err(
                    "x509: certificate request contains duplicate requested extensions".to_owned(),
                );
            }
            out.push((oid, value.content));
        }
    }
    Ok(out)
}

type SanLists = (Vec<String>, Vec<String>, Vec<String>, Vec<String>);

/// crypto/x509's `parseSANExtension` (tags 1, 2, 6, 7; others skipped).
fn parse_san_extension(value: &[u8]) -> Result<SanLists, String> {
    let (seq, _) =
        read_tlv(value).map_err(|_| "x509: invalid subject alternative names".to_owned())?;
    if !seq.is(UNIVERSAL, TAG_SEQUENCE) || !seq.constructed {
        return Err("x509: invalid subject alternative names".to_owned());
    }
    let (mut dns, mut emails, mut ips, mut uris) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut rest = seq.content;
    while !rest.is_empty() {
        let (gn, r) =
            read_tlv(rest).map_err(|_| "x509: invalid subject alternative name".to_owned())?;
        rest = r;
        // Go compares the raw tag byte with 0x80|n: context-specific, primitive, low tag number
        if gn.class != CONTEXT || gn.constructed {
            continue;
        }
        let data = gn.content;
        match gn.tag {
            1 => {
                if !data.is_ascii() {
                    return Err("x509: SAN rfc822Name is malformed".to_owned());
                }
                emails.push(String::from_utf8_lossy(data).into_owned());
            }
            2 => {
                if !data.is_ascii() {
                    return Err("x509: SAN dNSName is malformed".to_owned());
                }
                dns.push(String::from_utf8_lossy(data).into_owned());
            }
            6 => {
                if !data.is_ascii() {
                    return Err("x509: SAN uniformResourceIdentifier is malformed".to_owned());
                }
                let s = String::from_utf8_lossy(data).into_owned();
                let parsed = gourl::parse(&s)
                    .map_err(|e| format!("x509: cannot parse URI {}: {e}", go_quote(&s)))?;
                if !parsed.host.is_empty() && !gourl::valid_domain(&parsed.host) {
                    return Err(format!(
                        "x509: cannot parse URI {}: invalid domain",
                        go_quote(&s)
                    ));
                }
                uris.push(parsed.string);
            }
            7 => match go_ip_string(data) {
                Some(ip) => ips.push(ip),
                None => {
                    return Err(format!(
                        "x509: cannot parse IP address of length {}",
                        data.len()
                    ));
                }
            },
            _ => {}
        }
    }
    Ok((dns, emails, ips, uris))
}

/// cert-manager's `UnmarshalSANs`, reduced to the GeneralName kinds approver-policy's
/// `OtherNames` evaluator reads.
pub(crate) fn unmarshal_sans(value: &[u8]) -> Result<RawSans, String> {
    let (seq, rest) = read_tlv(value)?;
    if !rest.is_empty() {
        return Err("x509: trailing data after X.509 extension".to_owned());
    }
    if !(seq.constructed && seq.is(UNIVERSAL, TAG_SEQUENCE)) {
        return Err(asn1::structural("bad SAN sequence"));
    }
    let mut out = RawSans::default();
    for gn in seq.children()? {
        // cert-manager switches on the tag number alone, whatever the class
        match gn.tag {
            0 => {
                // OtherName ::= [0] IMPLICIT SEQUENCE { type-id OID, value [0] EXPLICIT ANY }
                if !(gn.class == CONTEXT && gn.constructed) {
                    return Err(asn1::structural("tags don't match (0) OtherName"));
                }
                let parts = gn.children()?;
                let id = nth(&parts, 0)?;
                id.expect(TAG_OID, false, "TypeID")?;
                let id = asn1::parse_oid(id.content)?;
                let v = nth(&parts, 1)?;
                if !(v.class == CONTEXT && v.tag == 0 && (v.constructed || v.content.is_empty())) {
                    return Err(asn1::structural("explicitly tagged member didn't match"));
                }
                out.other_names.push((id, other_name_value_string(&v)));
            }
            1 | 2 | 6 => {
                if !gn.content.is_ascii() {
                    return Err(match gn.tag {
                        1 => "x509: SAN rfc822Name is malformed",
                        2 => "x509: SAN dNSName is malformed",
                        _ => "x509: SAN uniformResourceIdentifier is malformed",
                    }
                    .to_owned());
                }
            }
            3 => out.x400_addresses += 1,
            4 => {
                // UnmarshalWithParams(FullBytes, &pkix.RDNSequence, "tag:4"): an IMPLICIT [4]
                // whose content must be RDN SETs
                if !gn.constructed {
                    return Err(asn1::structural("tags don't match (4) RDNSequence"));
                }
                for set in gn.children()? {
                    set.expect(TAG_SET, true, "RelativeDistinguishedNameSET")?;
                    for atv in set.children()? {
                        atv.expect(TAG_SEQUENCE, true, "AttributeTypeAndValue")?;
                        let parts = atv.children()?;
                        nth(&parts, 0)?.expect(TAG_OID, false, "Type")?;
                        decode_any(&nth(&parts, 1)?)?;
                    }
                }
                out.directory_names += 1;
            }
            5 => {
                // EDIPartyName { nameAssigner [0] DirectoryString OPTIONAL, partyName [1] DirectoryString }
                if !gn.constructed {
                    return Err(asn1::structural("tags don't match (5) EDIPartyName"));
                }
                let parts = gn.children()?;
                let mut idx = 0;
                if parts
                    .get(0)
                    .is_some_and(|p| p.class == CONTEXT && p.tag == 0)
                {
                    idx = 1;
                }
                let party = nth(&parts, idx)?;
                if !(party.class == CONTEXT && party.tag == 1) {
                    return Err(asn1::structural("tags don't match (1) PartyName"));
                }
                out.edi_party_names += 1;
            }
            7 => {
                if gn.content.len() != 4 && gn.content.len() != 16 {
                    return Err(format!(
                        "x509: cannot parse IP address of length {}",
                        gn.content.len()
                    ));
                }
            }
            8 => {
                if gn.constructed {
                    return Err(asn1::structural("tags don't match (8) ObjectIdentifier"));
                }
                asn1::check_oid(gn.content)?;
                out.registered_ids += 1;
            }
            _ => return Err(asn1::structural("bad SAN choice")),
        }
    }
    Ok(out)
}

/// approver-policy's `otherNameValueString`: text for UTF8/Printable/IA5/T61 strings,
/// otherwise the hex of the full DER.
fn other_name_value_string(wrapper: &Tlv<'_>) -> String {
    let mut v = *wrapper;
    if let Ok((inner, _)) = read_tlv(wrapper.content) {
        v = inner;
    }
    if v.class == UNIVERSAL
        && !v.constructed
        && matches!(v.tag, TAG_UTF8 | TAG_PRINTABLE | TAG_IA5 | TAG_T61)
    {
        return String::from_utf8_lossy(v.content).into_owned();
    }
    v.full.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_drops_both_bytes_and_borrows_when_there_are_none() {
        assert!(matches!(
            without(b"TUlJ", b'\r', b'\n'),
            Cow::Borrowed(b"TUlJ")
        ));
        assert_eq!(&*without(b"\nTU\r\nlJ\n\r", b'\r', b'\n'), b"TUlJ");
        assert_eq!(&*without(b"TU \tlJ\t", b' ', b'\t'), b"TUlJ");
        assert_eq!(&*without(b"\r\n", b'\r', b'\n'), b"");
    }

    #[test]
    fn oid_constants_are_the_encodings_of_their_dotted_names() {
        let cases = [
            (OID_EXTENSION_REQUEST, "1.2.840.113549.1.9.14"),
            (OID_SAN, "2.5.29.17"),
            (OID_RSA, "1.2.840.113549.1.1.1"),
            (OID_ECDSA, "1.2.840.10045.2.1"),
            (OID_ED25519, "1.3.101.112"),
            (OID_DSA, "1.2.840.10040.4.1"),
            (OID_P224, "1.3.132.0.33"),
            (OID_P256, "1.2.840.10045.3.1.7"),
            (OID_P384, "1.3.132.0.34"),
            (OID_P521, "1.3.132.0.35"),
        ];
        for (der, dotted) in cases {
            assert_eq!(asn1::parse_oid(der).as_deref(), Ok(dotted));
        }
    }
}
