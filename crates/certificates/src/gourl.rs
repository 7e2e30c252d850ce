//! A URI SAN as crypto/x509 reads it: Go's `url.Parse(s)` and then `(*URL).String()`, through
//! the `net/url` port in `palisade-cel-kubernetes`, so URIs read as approver-policy reads them
//! (scheme lower-cased, paths re-escaped where Go re-escapes them) and unparsable ones fail
//! with Go's words.

use palisade_cel_kubernetes::url::Url;

/// A parsed URI: its Go re-serialisation and its host (for the x509 domain check).
pub(crate) struct ParsedUri {
    pub(crate) string: String,
    pub(crate) host: String,
}

/// `url.Parse(raw)`, errors worded as `*url.Error` prints them.
pub(crate) fn parse(raw: &str) -> Result<ParsedUri, String> {
    let u = Url::go_parse(raw).map_err(|e| e.to_string())?;
    Ok(ParsedUri {
        string: u.to_string(),
        host: u.host(),
    })
}

/// crypto/x509's `domainToReverseLabels(host)` succeeded.
pub(crate) fn valid_domain(domain: &str) -> bool {
    if domain.ends_with('.') {
        return false;
    }
    domain
        .split('.')
        .all(|label| !label.is_empty() && label.chars().all(|c| (33..=126).contains(&(c as u32))))
}
