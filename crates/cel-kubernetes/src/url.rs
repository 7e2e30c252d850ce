//! URLs: the CEL `url` library (`k8s.io/apiserver/pkg/cel/library/urls.go`), a hand-written
//! port of Go's `net/url` (`ParseRequestURI` to validate, `Parse` to build the value).
//!
//! | CEL | Rust |
//! |---|---|
//! | `url(s)` | [`Url::parse`] |
//! | `isURL(s)` | [`is_url`] |
//! | `u.getScheme()` / `getHost()` / `getHostname()` / `getPort()` | [`Url::scheme`] / [`Url::host`] / [`Url::hostname`] / [`Url::port`] |
//! | `u.getEscapedPath()` | [`Url::escaped_path`] |
//! | `u.getQuery()` | [`Url::query`] |
//! | `u == v`, `string(u)` | [`PartialEq`] / [`std::fmt::Display`] (`URL.String()`) |
//!
//! Decoded parts are bytes in Go; where they are not UTF-8 the getters replace the invalid
//! sequences with U+FFFD.

use std::collections::BTreeMap;
use std::fmt;

use crate::goquote::{quote, quote_bytes};
use crate::ip::{Ip, go_parse_addr};

/// A URL error, worded as the CEL function reports it
/// (`URL parse error during conversion from string: parse "…": …`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UrlError(String);

#[derive(Clone, Debug, PartialEq, Eq)]
struct UserInfo {
    username: Vec<u8>,
    password: Option<Vec<u8>>,
}

/// A parsed URL (Go's `url.URL`).
#[derive(Clone, Debug)]
pub struct Url {
    scheme: String,
    opaque: String,
    user: Option<UserInfo>,
    host: Vec<u8>,
    path: Vec<u8>,
    raw_path: String,
    omit_host: bool,
    force_query: bool,
    raw_query: String,
    fragment: Vec<u8>,
    raw_fragment: String,
}

/// `isURL(s)`: whether Go's `url.ParseRequestURI(s)` accepts `s`.
pub fn is_url(s: &str) -> bool {
    parse_request_uri(s).is_ok()
}

/// Go's `url.ParseRequestURI(s)`; the error is Go's `err.Error()` (as `format.uri()` reports it).
pub fn parse_request_uri(s: &str) -> Result<(), String> {
    parse_inner(s, true)
        .map(|_| ())
        .map_err(|e| format!("parse {}: {e}", quote(s)))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// RFC 3986 `sub-delims`: `!$&'()*+,;=`.
fn is_sub_delim(c: u8) -> bool {
    matches!(
        c,
        b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'='
    )
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && (is_sub_delim(c) || matches!(c, b':' | b'[' | b']' | b'<' | b'>' | b'"'))
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn unhex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

fn escape_error(s: &[u8]) -> String {
    format!("invalid URL escape {}", quote_bytes(s))
}

/// Go's `unescape(s, mode)`.
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let mut i = 0;
    while i < s.len() {
        let c = s.get(i).copied().unwrap_or(0);
        match c {
            b'%' => {
                let h1 = s.get(i + 1).copied().and_then(unhex);
                let h2 = s.get(i + 2).copied().and_then(unhex);
                let (Some(h1), Some(h2)) = (h1, h2) else {
                    let end = (i + 3).min(s.len());
                    return Err(escape_error(s.get(i..end).unwrap_or(&[])));
                };
                let seq = s.get(i..i + 3).unwrap_or(&[]);
                if mode == Mode::Host && h1 < 8 && seq != b"%25" {
                    return Err(escape_error(seq));
                }
                if mode == Mode::Zone {
                    let v = (h1 << 4) | h2;
                    if seq != b"%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(escape_error(seq));
                    }
                }
                i += 3;
            }
            _ => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote_bytes(&[c])
                    ));
                }
                i += 1;
            }
        }
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        match c {
            b'%' => {
                let h1 = s.get(i + 1).copied().and_then(unhex).unwrap_or(0);
                let h2 = s.get(i + 2).copied().and_then(unhex).unwrap_or(0);
                out.push((h1 << 4) | h2);
                i += 3;
            }
            b'+' if mode == Mode::QueryComponent => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Go's `escape(s, mode)`.
fn escape(s: &[u8], mode: Mode) -> String {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = String::with_capacity(s.len());
    for &c in s {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push('+');
        } else if should_escape(c, mode) {
            out.push('%');
            let hex = |n: u8| char::from(HEX.get(usize::from(n)).copied().unwrap_or(b'0'));
            out.push(hex(c >> 4));
            out.push(hex(c & 15));
        } else {
            out.push(char::from(c));
        }
    }
    out
}

fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes().all(|c| {
        is_sub_delim(c) || matches!(c, b':' | b'@' | b'[' | b']' | b'%') || !should_escape(c, mode)
    })
}

fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|r| {
        u8::try_from(r).is_ok_and(|c| {
            c.is_ascii_alphanumeric()
                || is_sub_delim(c)
                || matches!(c, b'-' | b'.' | b'_' | b':' | b'~' | b'%' | b'@')
        })
    })
}

/// Go's `getScheme`.
fn get_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok(("", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".into());
                }
                return Ok((raw.get(..i).unwrap_or(""), raw.get(i + 1..).unwrap_or("")));
            }
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

/// Go's `parseHost` (Go 1.26.1: brackets hold only an IPv6 literal, at the start; an
/// unbracketed host has at most a `:port` after its first colon).
fn parse_host(host: &str) -> Result<Vec<u8>, String> {
    let bytes = host.as_bytes();
    match host.rfind('[') {
        Some(open) if open > 0 => return Err("invalid IP-literal".into()),
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return Err("missing ']' in host".into());
            };
            let colon_port = host.get(close + 1..).unwrap_or("");
            if !valid_optional_port(colon_port.as_bytes()) {
                return Err(format!("invalid port {} after host", quote(colon_port)));
            }
            let colon_port = unescape(colon_port.as_bytes(), Mode::Host)?;
            let hostname = bytes.get(1..close).unwrap_or(&[]);
            let zone = hostname.windows(3).position(|w| w == b"%25");
            let unescaped = match zone {
                Some(z) => {
                    let mut h = unescape(hostname.get(..z).unwrap_or(&[]), Mode::Host)?;
                    h.extend(unescape(hostname.get(z..).unwrap_or(&[]), Mode::Zone)?);
                    h
                }
                None => unescape(hostname, Mode::Host)?,
            };
            let text = String::from_utf8_lossy(&unescaped);
            match go_parse_addr(&text) {
                Err(e) => return Err(format!("invalid host: {e}")),
                Ok(addr) if matches!(addr.ip, Ip::V4(_)) => {
                    return Err("invalid IP-literal".into());
                }
                Ok(_) => {}
            }
            let mut out = Vec::with_capacity(unescaped.len() + colon_port.len() + 2);
            out.push(b'[');
            out.extend(unescaped);
            out.push(b']');
            out.extend(colon_port);
            return Ok(out);
        }
        None => {
            if let Some(i) = host.find(':') {
                let colon_port = host.get(i..).unwrap_or("");
                if !valid_optional_port(colon_port.as_bytes()) {
                    return Err(format!("invalid port {} after host", quote(colon_port)));
                }
            }
        }
    }
    unescape(bytes, Mode::Host)
}

fn parse_authority(authority: &str) -> Result<(Option<UserInfo>, Vec<u8>), String> {
    let at = authority.rfind('@');
    let host = match at {
        None => parse_host(authority)?,
        Some(i) => parse_host(authority.get(i + 1..).unwrap_or(""))?,
    };
    let Some(i) = at else {
        return Ok((None, host));
    };
    let userinfo = authority.get(..i).unwrap_or("");
    if !valid_userinfo(userinfo) {
        return Err("net/url: invalid userinfo".into());
    }
    let user = match userinfo.split_once(':') {
        None => UserInfo {
            username: unescape(userinfo.as_bytes(), Mode::UserPassword)?,
            password: None,
        },
        Some((name, pass)) => UserInfo {
            username: unescape(name.as_bytes(), Mode::UserPassword)?,
            password: Some(unescape(pass.as_bytes(), Mode::UserPassword)?),
        },
    };
    Ok((Some(user), host))
}

/// Go's `parse(rawURL, viaRequest)`; the error is the inner cause.
fn parse_inner(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".into());
    }
    let mut url = Url {
        scheme: String::new(),
        opaque: String::new(),
        user: None,
        host: Vec::new(),
        path: Vec::new(),
        raw_path: String::new(),
        omit_host: false,
        force_query: false,
        raw_query: String::new(),
        fragment: Vec::new(),
        raw_fragment: String::new(),
    };
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, mut rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = rest.get(..rest.len() - 1).unwrap_or("");
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_string();
        rest = before;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_string();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".into());
        }
        let segment = rest.split('/').next().unwrap_or("");
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    if (!url.scheme.is_empty() || (!via_request && !rest.starts_with("///")))
        && rest.starts_with("//")
    {
        let after = rest.get(2..).unwrap_or("");
        let (authority, path) = match after.find('/') {
            Some(i) => (after.get(..i).unwrap_or(""), after.get(i..).unwrap_or("")),
            None => (after, ""),
        };
        let (user, host) = parse_authority(authority)?;
        url.user = user;
        url.host = host;
        rest = path;
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    url.path = unescape(rest.as_bytes(), Mode::Path)?;
    if escape(&url.path, Mode::Path) != rest {
        url.raw_path = rest.to_string();
    }
    Ok(url)
}

/// Go's `url.Parse`.
fn go_parse(raw: &str) -> Result<Url, String> {
    let (u, frag) = match raw.split_once('#') {
        Some((u, f)) => (u, Some(f)),
        None => (raw, None),
    };
    let mut url = parse_inner(u, false).map_err(|e| format!("parse {}: {e}", quote(u)))?;
    if let Some(frag) = frag
        && !frag.is_empty()
    {
        url.fragment = unescape(frag.as_bytes(), Mode::Fragment)
            .map_err(|e| format!("parse {}: {e}", quote(raw)))?;
        if escape(&url.fragment, Mode::Fragment) != frag {
            url.raw_fragment = frag.to_string();
        }
    }
    Ok(url)
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The check `EscapedPath` and `EscapedFragment` share: the raw form as written, when it is a
/// valid encoding for `mode` that decodes to `decoded`.
fn valid_raw<'r>(raw: &'r str, decoded: &[u8], mode: Mode) -> Option<&'r str> {
    let valid = !raw.is_empty()
        && valid_encoded(raw, mode)
        && unescape(raw.as_bytes(), mode).ok().as_deref() == Some(decoded);
    valid.then_some(raw)
}

/// Go's `splitHostPort` (the unexported one `Hostname` and `Port` use).
fn split_host_port(host_port: &[u8]) -> (&[u8], &[u8]) {
    let mut host = host_port;
    let mut port: &[u8] = &[];
    if let Some(colon) = host.iter().rposition(|&b| b == b':') {
        let candidate = host.get(colon..).unwrap_or(&[]);
        if valid_optional_port(candidate) {
            port = host.get(colon + 1..).unwrap_or(&[]);
            host = host.get(..colon).unwrap_or(&[]);
        }
    }
    if host.len() >= 2 && host.starts_with(b"[") && host.ends_with(b"]") {
        host = host.get(1..host.len() - 1).unwrap_or(&[]);
    }
    (host, port)
}

impl Url {
    /// `url(s)`: `s` must pass `ParseRequestURI`; the value is what `Parse` builds.
    pub fn parse(s: &str) -> Result<Self, UrlError> {
        const PREFIX: &str = "URL parse error during conversion from string: ";
        parse_request_uri(s).map_err(|e| UrlError(format!("{PREFIX}{e}")))?;
        go_parse(s).map_err(|e| UrlError(format!("{PREFIX}{e}")))
    }

    /// Go's `url.Parse(s)` alone (no `ParseRequestURI` check, so relative references parse):
    /// what, for example, crypto/x509 does with a URI SAN. The error is Go's `err.Error()`
    /// (`parse "…": …`); [`std::fmt::Display`] is then Go's `URL.String()`.
    pub fn go_parse(s: &str) -> Result<Self, UrlError> {
        go_parse(s).map_err(UrlError)
    }

    /// `u.getScheme()`: lower-cased, empty for a path-only URL.
    pub fn scheme(&self) -> &str {
        &self.scheme
    }

    /// `u.getHost()`: host and port as written (percent-decoded), IPv6 in brackets.
    pub fn host(&self) -> String {
        lossy(&self.host)
    }

    /// `u.getHostname()`: the host without port or IPv6 brackets.
    pub fn hostname(&self) -> String {
        lossy(split_host_port(&self.host).0)
    }

    /// `u.getPort()`: the port, or empty.
    pub fn port(&self) -> String {
        lossy(split_host_port(&self.host).1)
    }

    /// `u.getEscapedPath()` (`URL.EscapedPath`).
    pub fn escaped_path(&self) -> String {
        if let Some(raw) = valid_raw(&self.raw_path, &self.path, Mode::Path) {
            return raw.to_string();
        }
        if self.path == b"*" {
            return "*".into();
        }
        escape(&self.path, Mode::Path)
    }

    fn escaped_fragment(&self) -> String {
        match valid_raw(&self.raw_fragment, &self.fragment, Mode::Fragment) {
            Some(raw) => raw.to_string(),
            None => escape(&self.fragment, Mode::Fragment),
        }
    }

    /// `u.getQuery()` (`URL.Query()`): each key's values in order; malformed pairs are
    /// skipped as Go skips them. Keys are sorted.
    pub fn query(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for pair in self.raw_query.split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(k), Ok(v)) = (
                unescape(k.as_bytes(), Mode::QueryComponent),
                unescape(v.as_bytes(), Mode::QueryComponent),
            ) else {
                continue;
            };
            out.entry(lossy(&k)).or_default().push(lossy(&v));
        }
        out
    }

    /// The raw (still escaped) query, without `?`.
    pub fn raw_query(&self) -> &str {
        &self.raw_query
    }
}

impl fmt::Display for Url {
    /// Go's `URL.String()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = String::new();
        if !self.scheme.is_empty() {
            buf.push_str(&self.scheme);
            buf.push(':');
        }
        if !self.opaque.is_empty() {
            buf.push_str(&self.opaque);
        } else {
            let has_authority =
                !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some();
            let omit_empty_host = self.omit_host && self.host.is_empty() && self.user.is_none();
            if has_authority && !omit_empty_host {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    buf.push_str("//");
                }
                if let Some(user) = &self.user {
                    buf.push_str(&escape(&user.username, Mode::UserPassword));
                    if let Some(p) = &user.password {
                        buf.push(':');
                        buf.push_str(&escape(p, Mode::UserPassword));
                    }
                    buf.push('@');
                }
                if !self.host.is_empty() {
                    buf.push_str(&escape(&self.host, Mode::Host));
                }
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                buf.push('/');
            }
            if buf.is_empty() && path.split('/').next().is_some_and(|s| s.contains(':')) {
                buf.push_str("./");
            }
            buf.push_str(&path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push('?');
            buf.push_str(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push('#');
            buf.push_str(&self.escaped_fragment());
        }
        f.write_str(&buf)
    }
}

impl PartialEq for Url {
    /// Upstream compares `URL.String()`.
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

#[cfg(test)]
mod tests;
