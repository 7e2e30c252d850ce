//! apimachinery's name rules: `k8s.io/apimachinery/pkg/util/validation` (`IsDNS1123Label`,
//! `IsDNS1123Subdomain`, `IsDNS1035Label`), `k8s.io/apimachinery/pkg/api/validate/content`
//! (`IsLabelKey`, which `IsQualifiedName` now is, and `IsLabelValue`) and the object-name helpers
//! of `k8s.io/apimachinery/pkg/api/validation` (`NameIsDNSSubdomain`, `maskTrailingDash`).
//!
//! Every function returns the problems as upstream words them, an empty list for a valid value;
//! callers turn each into a [`crate::field::Error::invalid`]. This is the one copy every crate
//! uses (the VAP and CertificateRequestPolicy validation, `format.*` in CEL, label selectors).
//!
//! Upstream's two length messages differ and both are kept: `util/validation` says
//! "must be no more than 253 characters" ([`max_len_error`]), the `content` package (label keys and
//! values, and the subdomain prefix of a label key) says "must be no more than 63 bytes"
//! ([`max_len_bytes_error`]). Lengths are counted in bytes either way, as Go's `len`.
//!
//! ```
//! use palisade_cel_kubernetes::validation::{is_dns1123_subdomain, is_qualified_name};
//!
//! assert!(is_dns1123_subdomain("example.com").is_empty());
//! assert_eq!(is_qualified_name("/x"), vec!["prefix part must be non-empty".to_owned()]);
//! ```

/// `DNS1123LabelMaxLength`, `DNS1035LabelMaxLength`.
pub const DNS1123_LABEL_MAX_LENGTH: usize = 63;
/// `DNS1123SubdomainMaxLength`.
pub const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;
/// `content.LabelValueMaxLength`, and the name part of a label key.
pub const LABEL_VALUE_MAX_LENGTH: usize = 63;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_EXAMPLES: [&str; 3] = ["MyName", "my.name", "123-abc"];
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// `RegexError(msg, fmt, examples...)`: the message, the examples (each followed by `", "`, joined
/// by `" or "`, hence upstream's double spaces) and the regex.
pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut out = format!("{msg} (");
    if !examples.is_empty() {
        out.push_str("e.g. ");
        for (i, e) in examples.iter().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            out.push('\'');
            out.push_str(e);
            out.push_str("', ");
        }
    }
    out.push_str("regex used for validation is '");
    out.push_str(fmt);
    out.push_str("')");
    out
}

/// `util/validation.MaxLenError`: "must be no more than N characters".
pub fn max_len_error(length: usize) -> String {
    format!("must be no more than {length} characters")
}

/// `content.MaxLenError`: "must be no more than N bytes".
pub fn max_len_bytes_error(length: usize) -> String {
    format!("must be no more than {length} bytes")
}

/// `EmptyError`.
pub fn empty_error() -> &'static str {
    "must be non-empty"
}

fn alnum_lower(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `^[f]([-a-z0-9]*[a-z0-9])?$` where `f` is the first character's class.
fn matches_label(s: &str, first: fn(u8) -> bool) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&f), Some(&l)) => {
            first(f) && alnum_lower(l) && b.iter().all(|&c| alnum_lower(c) || c == b'-')
        }
        _ => false,
    }
}

fn dns1123_label_match(s: &str) -> bool {
    matches_label(s, alnum_lower)
}

fn dns1123_subdomain_match(s: &str) -> bool {
    s.split('.').all(dns1123_label_match)
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
fn label_key_match(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

/// `validation.IsDNS1123Label`.
pub fn is_dns1123_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !dns1123_label_match(value) {
        if dns1123_subdomain_match(value) {
            errs.push("must not contain dots".to_owned());
        } else {
            errs.push(regex_error(
                DNS1123_LABEL_ERR,
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `validation.IsDNS1123Subdomain` (lengths in "characters").
pub fn is_dns1123_subdomain(value: &str) -> Vec<String> {
    subdomain_errors(value, max_len_error)
}

/// `content.IsDNS1123Subdomain` (lengths in "bytes"), as label-key prefixes are checked.
fn content_dns1123_subdomain(value: &str) -> Vec<String> {
    subdomain_errors(value, max_len_bytes_error)
}

fn subdomain_errors(value: &str, too_long: fn(usize) -> String) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(too_long(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !dns1123_subdomain_match(value) {
        errs.push(regex_error(
            DNS1123_SUBDOMAIN_ERR,
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `validation.IsDNS1035Label`.
pub fn is_dns1035_label(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !matches_label(value, |c| c.is_ascii_lowercase()) {
        errs.push(regex_error(
            DNS1035_LABEL_ERR,
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `validation.IsQualifiedName`, which is `content.IsLabelKey`: an optional DNS-subdomain prefix
/// and `/`, then a name of at most 63 bytes.
pub fn is_qualified_name(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let mut parts = value.split('/');
    let (first, second, third) = (parts.next(), parts.next(), parts.next());
    let name = match (first, second, third) {
        (Some(name), None, _) => name,
        (Some(prefix), Some(name), None) => {
            if prefix.is_empty() {
                errs.push(format!("prefix part {}", empty_error()));
            } else {
                for msg in content_dns1123_subdomain(prefix) {
                    errs.push(format!("prefix part {msg}"));
                }
            }
            name
        }
        _ => {
            errs.push(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, &LABEL_KEY_EXAMPLES)
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push(format!("name part {}", empty_error()));
    } else if name.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(format!(
            "name part {}",
            max_len_bytes_error(LABEL_VALUE_MAX_LENGTH)
        ));
    }
    if !label_key_match(name) {
        errs.push(format!(
            "name part {}",
            regex_error(LABEL_KEY_ERR, LABEL_KEY_FMT, &LABEL_KEY_EXAMPLES)
        ));
    }
    errs
}

/// `validation.IsValidLabelValue`, which is `content.IsLabelValue`: empty, or a label-key name of
/// at most 63 bytes.
pub fn is_valid_label_value(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(max_len_bytes_error(LABEL_VALUE_MAX_LENGTH));
    }
    if !value.is_empty() && !label_key_match(value) {
        errs.push(regex_error(
            LABEL_VALUE_ERR,
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `api/validation.maskTrailingDash`: a `generateName` prefix may end with `-`, so the byte before
/// it stands in as `a`.
pub fn mask_trailing_dash(name: &str) -> String {
    if name.len() > 1 && name.ends_with('-') {
        let cut = name.len() - 2;
        match name.get(..cut) {
            Some(head) => format!("{head}a"),
            // the byte before the dash is part of a multi-byte character
            None => name.to_owned(),
        }
    } else {
        name.to_owned()
    }
}

/// `api/validation.NameIsDNSSubdomain(name, prefix)`: an object name (or, with `prefix`, a
/// `generateName`).
pub fn name_is_dns_subdomain(name: &str, prefix: bool) -> Vec<String> {
    if prefix {
        is_dns1123_subdomain(&mask_trailing_dash(name))
    } else {
        is_dns1123_subdomain(name)
    }
}

#[cfg(test)]
mod tests;
