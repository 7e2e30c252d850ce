//! The part of Go's `net/url` that a URI SAN goes through: `url.Parse(s)` and then
//! `(*URL).String()`, so URIs read as approver-policy reads them (scheme lower-cased, paths
//! re-escaped where Go re-escapes them) and unparsable ones fail with Go's words.

use crate::gofmt::go_quote;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Host,
    Path,
    UserPassword,
    Fragment,
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if mode == Mode::Host
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => {
            return match mode {
                Mode::Path => c == b'?',
                Mode::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
                Mode::Fragment => false,
                Mode::Host => true,
            };
        }
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

/// Go's `unescape(s, mode)` (path, fragment, user/password and host modes).
fn unescape(s: &str, mode: Mode) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            let h1 = b.get(i + 1).copied().and_then(unhex);
            let h2 = b.get(i + 2).copied().and_then(unhex);
            match (h1, h2) {
                (Some(x), Some(y)) => {
                    if mode == Mode::Host && x < 8 && b.get(i..i + 3) != Some(b"%25") {
                        let esc = String::from_utf8_lossy(b.get(i..i + 3).unwrap_or_default())
                            .into_owned();
                        return Err(format!("invalid URL escape {}", go_quote(&esc)));
                    }
                    out.push(x * 16 + y);
                    i += 3;
                }
                _ => {
                    let end = (i + 3).min(b.len());
                    let esc =
                        String::from_utf8_lossy(b.get(i..end).unwrap_or_default()).into_owned();
                    return Err(format!("invalid URL escape {}", go_quote(&esc)));
                }
            }
        } else {
            if mode == Mode::Host && c < 0x80 && should_escape(c, Mode::Host) {
                return Err(format!(
                    "invalid character {} in host name",
                    go_quote(&(c as char).to_string())
                ));
            }
            out.push(c);
            i += 1;
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn escape(s: &str, mode: Mode) -> String {
    let mut out = String::with_capacity(s.len());
    for &c in s.as_bytes() {
        if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out
}

fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes().all(|c| {
        matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'['
                | b']'
                | b'%'
        ) || !should_escape(c, mode)
    })
}

struct Url {
    scheme: String,
    opaque: String,
    user: Option<(String, Option<String>)>,
    host: String,
    path: String,
    raw_path: String,
    omit_host: bool,
    force_query: bool,
    raw_query: String,
    fragment: String,
    raw_fragment: String,
}

fn get_scheme(raw: &str) -> Result<(String, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok((String::new(), raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".to_owned());
                }
                return Ok((
                    raw.get(..i).unwrap_or_default().to_owned(),
                    raw.get(i + 1..).unwrap_or_default(),
                ));
            }
            _ => return Ok((String::new(), raw)),
        }
    }
    Ok((String::new(), raw))
}

fn valid_optional_port(port: &str) -> bool {
    if port.is_empty() {
        return true;
    }
    let Some(digits) = port.strip_prefix(':') else {
        return false;
    };
    digits.bytes().all(|b| b.is_ascii_digit())
}

fn parse_host(host: &str) -> Result<String, String> {
    if host.starts_with('[') {
        let Some(i) = host.rfind(']') else {
            return Err("missing ']' in host".to_owned());
        };
        let colon_port = host.get(i + 1..).unwrap_or_default();
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", go_quote(colon_port)));
        }
        return unescape(host, Mode::Host);
    }
    if let Some(i) = host.rfind(':') {
        let colon_port = host.get(i..).unwrap_or_default();
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", go_quote(colon_port)));
        }
    }
    unescape(host, Mode::Host)
}

fn valid_userinfo(s: &str) -> bool {
    s.bytes().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                b'-' | b'.'
                    | b'_'
                    | b':'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'%'
                    | b'@'
            )
    })
}

fn parse_inner(raw: &str) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    let mut u = Url {
        scheme: String::new(),
        opaque: String::new(),
        user: None,
        host: String::new(),
        path: String::new(),
        raw_path: String::new(),
        omit_host: false,
        force_query: false,
        raw_query: String::new(),
        fragment: String::new(),
        raw_fragment: String::new(),
    };
    if raw == "*" {
        u.path = "*".to_owned();
        return Ok(u);
    }
    let (scheme, rest) = get_scheme(raw)?;
    u.scheme = scheme.to_ascii_lowercase();
    let mut rest = rest.to_owned();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        u.force_query = true;
        rest.pop();
    } else if let Some((r, q)) = rest.split_once('?') {
        u.raw_query = q.to_owned();
        rest = r.to_owned();
    }
    if !rest.starts_with('/') {
        if !u.scheme.is_empty() {
            u.opaque = rest;
            return Ok(u);
        }
        let segment = rest.split('/').next().unwrap_or_default();
        if segment.contains(':') {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }
    if (!u.scheme.is_empty() || !rest.starts_with("///")) && rest.starts_with("//") {
        let after = rest.get(2..).unwrap_or_default();
        let (authority, path) = match after.find('/') {
            Some(i) => (
                after.get(..i).unwrap_or_default(),
                after.get(i..).unwrap_or_default(),
            ),
            None => (after, ""),
        };
        match authority.rfind('@') {
            None => u.host = parse_host(authority)?,
            Some(i) => {
                u.host = parse_host(authority.get(i + 1..).unwrap_or_default())?;
                let userinfo = authority.get(..i).unwrap_or_default();
                if !valid_userinfo(userinfo) {
                    return Err("net/url: invalid userinfo".to_owned());
                }
                u.user = Some(match userinfo.split_once(':') {
                    None => (unescape(userinfo, Mode::UserPassword)?, None),
                    Some((n, p)) => (
                        unescape(n, Mode::UserPassword)?,
                        Some(unescape(p, Mode::UserPassword)?),
                    ),
                });
            }
        }
        rest = path.to_owned();
    } else if !u.scheme.is_empty() && rest.starts_with('/') {
        u.omit_host = true;
    }
    let path = unescape(&rest, Mode::Path)?;
    if escape(&path, Mode::Path) != rest {
        u.raw_path = rest;
    }
    u.path = path;
    Ok(u)
}

impl Url {
    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).ok().as_deref() == Some(self.path.as_str())
        {
            return self.raw_path.clone();
        }
        if self.path == "*" {
            return "*".to_owned();
        }
        escape(&self.path, Mode::Path)
    }
    fn escaped_fragment(&self) -> String {
        if !self.raw_fragment.is_empty()
            && valid_encoded(&self.raw_fragment, Mode::Fragment)
            && unescape(&self.raw_fragment, Mode::Fragment).ok().as_deref()
                == Some(self.fragment.as_str())
        {
            return self.raw_fragment.clone();
        }
        escape(&self.fragment, Mode::Fragment)
    }

    fn render(&self) -> String {
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
            let omitted = self.omit_host && self.host.is_empty() && self.user.is_none();
            if has_authority && !omitted {
                if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                    buf.push_str("//");
                }
                if let Some((name, pass)) = &self.user {
                    buf.push_str(&escape(name, Mode::UserPassword));
                    if let Some(p) = pass {
                        buf.push(':');
                        buf.push_str(&escape(p, Mode::UserPassword));
                    }
                    buf.push('@');
                }
                buf.push_str(&escape(&self.host, Mode::Host));
            }
            let path = self.escaped_path();
            if !path.is_empty() && !path.starts_with('/') && !self.host.is_empty() {
                buf.push('/');
            }
            if buf.is_empty() {
                let segment = path.split('/').next().unwrap_or_default();
                if segment.contains(':') {
                    buf.push_str("./");
                }
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
        buf
    }
}

/// A parsed URI: its Go re-serialisation and its host (for the x509 domain check).
pub(crate) struct ParsedUri {
    pub(crate) string: String,
    pub(crate) host: String,
}

/// `url.Parse(raw)`, errors worded as `*url.Error` prints them.
pub(crate) fn parse(raw: &str) -> Result<ParsedUri, String> {
    let (u_part, frag) = match raw.split_once('#') {
        Some((a, b)) => (a, Some(b)),
        None => (raw, None),
    };
    let mut u = parse_inner(u_part).map_err(|e| format!("parse {}: {e}", go_quote(u_part)))?;
    if let Some(frag) = frag {
        let f =
            unescape(frag, Mode::Fragment).map_err(|e| format!("parse {}: {e}", go_quote(raw)))?;
        if escape(&f, Mode::Fragment) != frag {
            u.raw_fragment = frag.to_owned();
        }
        u.fragment = f;
    }
    Ok(ParsedUri {
        string: u.render(),
        host: u.host,
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
