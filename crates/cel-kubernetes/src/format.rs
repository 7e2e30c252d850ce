//! Named string formats: the CEL `format` library (`k8s.io/apiserver/pkg/cel/library/format.go`).
//!
//! `format.named(name)` is [`Format::named`]; `format.dns1123Label()` and the other constants
//! are the [`Format`] variants ([`Format::cel_name`] gives the function name); `f.validate(s)`
//! is [`Format::validate`], which returns the error strings as apimachinery words them (an
//! empty list is CEL's `optional.none()`).
//!
//! The name validators are apimachinery's, in [`crate::validation`].

use crate::url::parse_request_uri;
use crate::validation::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_qualified_name,
    is_valid_label_value, mask_trailing_dash,
};

/// One of the named formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `format.dns1123Label()`
    Dns1123Label,
    /// `format.dns1123Subdomain()`
    Dns1123Subdomain,
    /// `format.dns1035Label()`
    Dns1035Label,
    /// `format.qualifiedName()`
    QualifiedName,
    /// `format.dns1123LabelPrefix()`
    Dns1123LabelPrefix,
    /// `format.dns1123SubdomainPrefix()`
    Dns1123SubdomainPrefix,
    /// `format.dns1035LabelPrefix()`
    Dns1035LabelPrefix,
    /// `format.labelValue()`
    LabelValue,
    /// `format.uri()`
    Uri,
    /// `format.uuid()`
    Uuid,
    /// `format.byte()`
    Byte,
    /// `format.date()`
    Date,
    /// `format.datetime()`
    Datetime,
}

const ALL: [Format; 13] = [
    Format::Dns1123Label,
    Format::Dns1123Subdomain,
    Format::Dns1035Label,
    Format::QualifiedName,
    Format::Dns1123LabelPrefix,
    Format::Dns1123SubdomainPrefix,
    Format::Dns1035LabelPrefix,
    Format::LabelValue,
    Format::Uri,
    Format::Uuid,
    Format::Byte,
    Format::Date,
    Format::Datetime,
];

/// kube-openapi `strfmt.UUIDPattern`.
const UUID_PATTERN: &str = "(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
/// kube-openapi `strfmt.DateTimePattern`.
const DATE_TIME_PATTERN: &str =
    "^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";

impl Format {
    /// Every format, in upstream's declaration order.
    pub fn all() -> &'static [Format] {
        &ALL
    }

    /// `format.named(name)`: `None` is CEL's `optional.none()`.
    pub fn named(name: &str) -> Option<Self> {
        ALL.iter().copied().find(|f| f.cel_name() == name)
    }

    /// The CEL name (`format.<name>()`, `format.named("<name>")`).
    pub fn cel_name(self) -> &'static str {
        match self {
            Self::Dns1123Label => "dns1123Label",
            Self::Dns1123Subdomain => "dns1123Subdomain",
            Self::Dns1035Label => "dns1035Label",
            Self::QualifiedName => "qualifiedName",
            Self::Dns1123LabelPrefix => "dns1123LabelPrefix",
            Self::Dns1123SubdomainPrefix => "dns1123SubdomainPrefix",
            Self::Dns1035LabelPrefix => "dns1035LabelPrefix",
            Self::LabelValue => "labelValue",
            Self::Uri => "uri",
            Self::Uuid => "uuid",
            Self::Byte => "byte",
            Self::Date => "date",
            Self::Datetime => "datetime",
        }
    }

    /// Upstream's `Format.Name`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dns1123Label => "DNS1123Label",
            Self::Dns1123Subdomain => "DNS1123Subdomain",
            Self::Dns1035Label => "DNS1035Label",
            Self::QualifiedName => "QualifiedName",
            Self::Dns1123LabelPrefix => "DNS1123LabelPrefix",
            Self::Dns1123SubdomainPrefix => "DNS1123SubdomainPrefix",
            Self::Dns1035LabelPrefix => "DNS1035LabelPrefix",
            Self::LabelValue => "LabelValue",
            Self::Uri => "URI",
            Self::Uuid => "uuid",
            Self::Byte => "byte",
            Self::Date => "date",
            Self::Datetime => "datetime",
        }
    }

    /// Upstream's `Format.MaxRegexSize`, which the cost estimator uses.
    pub fn max_regex_size(self) -> u64 {
        match self {
            Self::Dns1123Label | Self::Dns1035Label => 30,
            Self::Dns1123LabelPrefix | Self::Dns1035LabelPrefix => 30,
            Self::Dns1123Subdomain | Self::QualifiedName | Self::Dns1123SubdomainPrefix => 60,
            Self::LabelValue => 40,
            Self::Uri => 1103,
            Self::Uuid => UUID_PATTERN.len() as u64,
            Self::Byte => 84,
            Self::Date | Self::Datetime => DATE_TIME_PATTERN.len() as u64,
        }
    }

    /// `f.validate(s)`: the problems with `s`, empty when it is valid.
    pub fn validate(self, s: &str) -> Vec<String> {
        match self {
            Self::Dns1123Label => is_dns1123_label(s),
            Self::Dns1123Subdomain => is_dns1123_subdomain(s),
            Self::Dns1035Label => is_dns1035_label(s),
            Self::QualifiedName => is_qualified_name(s),
            Self::Dns1123LabelPrefix => is_dns1123_label(&mask_trailing_dash(s)),
            Self::Dns1123SubdomainPrefix => is_dns1123_subdomain(&mask_trailing_dash(s)),
            Self::Dns1035LabelPrefix => is_dns1035_label(&mask_trailing_dash(s)),
            Self::LabelValue => is_valid_label_value(s),
            Self::Uri => match parse_request_uri(s) {
                Ok(()) => Vec::new(),
                Err(e) => vec![e],
            },
            Self::Uuid => check(is_uuid(s), "does not match the UUID format"),
            Self::Byte => check(is_base64(s), "invalid base64"),
            Self::Date => check(is_date(s), "invalid date"),
            Self::Datetime => check(is_date_time(s), "invalid datetime"),
        }
    }
}

fn check(ok: bool, msg: &str) -> Vec<String> {
    if ok {
        Vec::new()
    } else {
        vec![msg.to_string()]
    }
}

/// kube-openapi `strfmt.IsUUID`: 32 hex digits, optionally dashed as 8-4-4-4-12.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    for (n, len) in [8usize, 4, 4, 4, 12].iter().enumerate() {
        if n > 0 && b.get(i) == Some(&b'-') {
            i += 1;
        }
        for _ in 0..*len {
            match b.get(i) {
                Some(c) if c.is_ascii_hexdigit() => i += 1,
                _ => return false,
            }
        }
    }
    i == b.len()
}

/// govalidator `IsBase64` (standard alphabet, padded, not empty).
pub fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if b.is_empty() || !b.len().is_multiple_of(4) {
        return false;
    }
    let alpha = |c: &u8| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/';
    let (body, last) = b.split_at(b.len() - 4);
    if !body.iter().all(alpha) {
        return false;
    }
    match last {
        [a, b2, b'=', b'='] => alpha(a) && alpha(b2),
        [a, b2, c, b'='] => alpha(a) && alpha(b2) && alpha(c),
        group => group.iter().all(alpha),
    }
}

fn two_digits(b: &[u8]) -> Option<u32> {
    match b {
        [a, c] if a.is_ascii_digit() && c.is_ascii_digit() => {
            Some(u32::from(a - b'0') * 10 + u32::from(c - b'0'))
        }
        _ => None,
    }
}

/// kube-openapi `strfmt.IsDate`: Go's `time.Parse("2006-01-02", s)`.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return false;
    }
    let year = b
        .get(..4)
        .filter(|y| y.iter().all(u8::is_ascii_digit))
        .map(|y| y.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0')));
    let (Some(year), Some(month), Some(day)) = (
        year,
        b.get(5..7).and_then(two_digits),
        b.get(8..10).and_then(two_digits),
    ) else {
        return false;
    };
    if !(1..=12).contains(&month) {
        return false;
    }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    (1..=days).contains(&day)
}

/// kube-openapi `strfmt.IsDateTime`.
pub fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    // ASCII is enough: only ASCII digits, `t`, `z` and separators can make a date-time, and no other character
    // lowercases to one of them
    let lower = s.to_ascii_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let b = time.as_bytes();
    let (Some(h), Some(m), Some(sec)) = (
        b.get(0..2).and_then(two_digits),
        b.get(3..5).and_then(two_digits),
        b.get(6..8).and_then(two_digits),
    ) else {
        return false;
    };
    if b.get(2) != Some(&b':') || b.get(5) != Some(&b':') {
        return false;
    }
    let rest = time.get(8..).unwrap_or("");
    let zone_ok = |z: &str| {
        let z = z.as_bytes();
        z == b"z"
            || (z.len() == 6
                && matches!(z.first(), Some(b'+' | b'-'))
                && z.get(1..3).and_then(two_digits).is_some()
                && z.get(3) == Some(&b':')
                && z.get(4..6).and_then(two_digits).is_some())
    };
    let matched = zone_ok(rest) || {
        // `(.[0-9]+)?`: any one character but a newline, then digits
        let mut chars = rest.chars();
        match chars.next() {
            Some(c) if c != '\n' => {
                let after = chars.as_str();
                let digits = after.bytes().take_while(u8::is_ascii_digit).count();
                digits > 0 && zone_ok(after.get(digits..).unwrap_or(""))
            }
            _ => false,
        }
    };
    matched && h <= 23 && m <= 59 && sec <= 59
}

#[cfg(test)]
mod tests;
