//! Semantic versions: the CEL `semver` library (`k8s.io/apiserver/pkg/cel/library/semverlib.go`),
//! which parses with `github.com/blang/semver/v4`.
//!
//! | CEL | Rust |
//! |---|---|
//! | `semver(s)` / `semver(s, true)` | [`Semver::parse`] / [`Semver::parse_normalized`] |
//! | `isSemver(s)` / `isSemver(s, normalize)` | [`is_semver`] |
//! | `v.major()` / `v.minor()` / `v.patch()` | [`Semver::major`] / [`Semver::minor`] / [`Semver::patch`] |
//! | `v.isLessThan(o)` / `v.isGreaterThan(o)` / `v.compareTo(o)` | [`Semver::is_less_than`] / [`Semver::is_greater_than`] / [`Semver::compare_to`] |
//! | `v == o` | [`PartialEq`] (precedence equality: build metadata is ignored) |
//! | `string(v)` | [`std::fmt::Display`] |

use std::cmp::Ordering;
use std::fmt;

use crate::goquote::quote;

/// A parse error, worded as blang/semver words it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SemverError(String);

/// One dot-separated pre-release identifier.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PreRelease {
    /// A numeric identifier, compared numerically and lower than any alphanumeric one.
    Numeric(u64),
    /// An alphanumeric identifier, compared as bytes.
    Alpha(String),
}

impl PreRelease {
    fn compare(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Numeric(a), Self::Numeric(b)) => a.cmp(b),
            (Self::Numeric(_), Self::Alpha(_)) => Ordering::Less,
            (Self::Alpha(_), Self::Numeric(_)) => Ordering::Greater,
            (Self::Alpha(a), Self::Alpha(b)) => a.cmp(b),
        }
    }
}

impl fmt::Display for PreRelease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Numeric(n) => write!(f, "{n}"),
            Self::Alpha(s) => f.write_str(s),
        }
    }
}

/// A semantic version.
#[derive(Clone, Debug, Eq)]
pub struct Semver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Vec<PreRelease>,
    build: Vec<String>,
}

/// `isSemver(s)` (`normalize == false`) and `isSemver(s, normalize)`.
pub fn is_semver(s: &str, normalize: bool) -> bool {
    Semver::parse_with(s, normalize).is_ok()
}

const NUMBERS: &str = "0123456789";

fn is_alphanum(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

fn contains_only(s: &str, set: impl Fn(char) -> bool) -> bool {
    s.chars().all(set)
}

fn is_number(c: char) -> bool {
    NUMBERS.contains(c)
}

fn has_leading_zeroes(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// `strconv.ParseUint(s, 10, 64)` with Go's error text.
fn parse_uint(s: &str) -> Result<u64, SemverError> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SemverError(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            quote(s)
        )));
    }
    s.parse::<u64>().map_err(|_| {
        SemverError(format!(
            "strconv.ParseUint: parsing {}: value out of range",
            quote(s)
        ))
    })
}

fn parse_number(part: &str, which: &str, capital: &str) -> Result<u64, SemverError> {
    if !contains_only(part, is_number) {
        return Err(SemverError(format!(
            "Invalid character(s) found in {which} number {}",
            quote(part)
        )));
    }
    if has_leading_zeroes(part) {
        return Err(SemverError(format!(
            "{capital} number must not contain leading zeroes {}",
            quote(part)
        )));
    }
    parse_uint(part)
}

impl Semver {
    /// `semver(s)`: strict semver 2.0.0 (`semver.Parse`).
    pub fn parse(s: &str) -> Result<Self, SemverError> {
        if s.is_empty() {
            return Err(SemverError("Version string empty".into()));
        }
        let mut parts = s.splitn(3, '.');
        let (Some(major), Some(minor), Some(rest)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(SemverError("No Major.Minor.Patch elements found".into()));
        };
        let major = parse_number(major, "major", "Major")?;
        let minor = parse_number(minor, "minor", "Minor")?;
        let mut patch_str = rest;
        let mut build: Vec<&str> = Vec::new();
        let mut pre: Vec<&str> = Vec::new();
        if let Some((p, b)) = patch_str.split_once('+') {
            build = b.split('.').collect();
            patch_str = p;
        }
        if let Some((p, r)) = patch_str.split_once('-') {
            pre = r.split('.').collect();
            patch_str = p;
        }
        let patch = parse_number(patch_str, "patch", "Patch")?;
        let mut version = Self {
            major,
            minor,
            patch,
            pre: Vec::new(),
            build: Vec::new(),
        };
        for p in pre {
            version.pre.push(parse_pre_release(p)?);
        }
        for b in build {
            if b.is_empty() {
                return Err(SemverError("Build meta data is empty".into()));
            }
            if !contains_only(b, is_alphanum) {
                return Err(SemverError(format!(
                    "Invalid character(s) found in build meta data {}",
                    quote(b)
                )));
            }
            version.build.push(b.to_string());
        }
        Ok(version)
    }

    /// `semver(s, true)`: strips a leading `v`, leading zeroes, and fills in a missing minor
    /// or patch (`normalizeAndParse`).
    pub fn parse_normalized(s: &str) -> Result<Self, SemverError> {
        let s = s.strip_prefix('v').unwrap_or(s);
        let mut parts: Vec<String> = s.splitn(3, '.').map(str::to_string).collect();
        for part in &mut parts {
            if part.len() > 1 {
                let trimmed = part.trim_start_matches('0');
                let starts_with_digit = trimmed.chars().next().is_some_and(|c| c.is_ascii_digit());
                *part = if starts_with_digit {
                    trimmed.to_string()
                } else {
                    format!("0{trimmed}")
                };
            }
        }
        if parts.len() < 3 {
            if parts.last().is_some_and(|p| p.contains(['+', '-'])) {
                return Err(SemverError(
                    "short version cannot contain PreRelease/Build meta data".into(),
                ));
            }
            while parts.len() < 3 {
                parts.push("0".into());
            }
        }
        Self::parse(&parts.join("."))
    }

    /// [`Semver::parse`] or [`Semver::parse_normalized`].
    pub fn parse_with(s: &str, normalize: bool) -> Result<Self, SemverError> {
        if normalize {
            Self::parse_normalized(s)
        } else {
            Self::parse(s)
        }
    }

    /// `v.major()`; CEL's int is the Go `uint64` converted to `int64`.
    pub fn major(&self) -> i64 {
        self.major as i64
    }

    /// `v.minor()`.
    pub fn minor(&self) -> i64 {
        self.minor as i64
    }

    /// `v.patch()`.
    pub fn patch(&self) -> i64 {
        self.patch as i64
    }

    /// The pre-release identifiers.
    pub fn pre_release(&self) -> &[PreRelease] {
        &self.pre
    }

    /// The build metadata identifiers.
    pub fn build(&self) -> &[String] {
        &self.build
    }

    /// semver 2.0.0 precedence (`Version.Compare`).
    pub fn compare(&self, other: &Self) -> Ordering {
        let numbers =
            (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if numbers != Ordering::Equal {
            return numbers;
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            (false, false) => {}
        }
        for (a, b) in self.pre.iter().zip(&other.pre) {
            let c = a.compare(b);
            if c != Ordering::Equal {
                return c;
            }
        }
        self.pre.len().cmp(&other.pre.len())
    }

    /// `v.compareTo(o)`: -1, 0 or 1.
    pub fn compare_to(&self, other: &Self) -> i64 {
        match self.compare(other) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }
    }

    /// `v.isLessThan(o)`.
    pub fn is_less_than(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Less
    }

    /// `v.isGreaterThan(o)`.
    pub fn is_greater_than(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Greater
    }
}

fn parse_pre_release(s: &str) -> Result<PreRelease, SemverError> {
    if s.is_empty() {
        return Err(SemverError("Prerelease is empty".into()));
    }
    if contains_only(s, is_number) {
        if has_leading_zeroes(s) {
            return Err(SemverError(format!(
                "Numeric PreRelease version must not contain leading zeroes {}",
                quote(s)
            )));
        }
        return parse_uint(s).map(PreRelease::Numeric);
    }
    if contains_only(s, is_alphanum) {
        return Ok(PreRelease::Alpha(s.to_string()));
    }
    Err(SemverError(format!(
        "Invalid character(s) found in prerelease {}",
        quote(s)
    )))
}

impl PartialEq for Semver {
    fn eq(&self, other: &Self) -> bool {
        self.compare(other) == Ordering::Equal
    }
}

impl fmt::Display for Semver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        for (i, p) in self.pre.iter().enumerate() {
            f.write_str(if i == 0 { "-" } else { "." })?;
            write!(f, "{p}")?;
        }
        for (i, b) in self.build.iter().enumerate() {
            f.write_str(if i == 0 { "+" } else { "." })?;
            f.write_str(b)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Semver {
        Semver::parse(s).unwrap()
    }

    // upstream: k8s.io/apiserver/pkg/cel/library/semver_test.go TestSemver
    #[test]
    fn cel_library_cases() {
        assert_eq!(v("1.2.3").to_string(), "1.2.3");
        assert_eq!(
            Semver::parse("v1.0").unwrap_err().to_string(),
            "No Major.Minor.Patch elements found"
        );
        let strict = [
            ("1.2.3-beta.1+build.1", true),
            ("", false),
            ("v1.0.0", false),
            (" 1.0.0", false),
            ("1. 0.0", false),
            ("1.0.0 ", false),
            ("01.01.01", false),
            ("1", false),
            ("1.1", false),
        ];
        for (s, ok) in strict {
            assert_eq!(is_semver(s, false), ok, "isSemver({s:?})");
        }
        let normalized = [
            ("", false),
            (" 1.0.0", false),
            ("1. 0.0", false),
            ("1.0.0 ", false),
            ("v1.0.0", true),
            ("01.01.01", true),
            ("1", true),
            ("1.1", true),
        ];
        for (s, ok) in normalized {
            assert_eq!(is_semver(s, true), ok, "isSemver({s:?}, true)");
        }
        assert!(Semver::parse_normalized("v01.01").unwrap() == v("1.1.0"));
        assert!(v("1.2.3") == v("1.2.3"));
        assert!(v("1.2.3") != v("1.0.0"));
        assert!(v("1.0.0").is_less_than(&v("1.2.3")));
        assert!(!v("1.0.0").is_less_than(&v("1.0.0")));
        assert!(v("1.2.3").is_greater_than(&v("1.0.0")));
        assert!(!v("1.0.0").is_greater_than(&v("1.0.0")));
        assert_eq!(v("1.2.3").compare_to(&v("1.2.3")), 0);
        assert_eq!(v("1.0.0").compare_to(&v("1.2.3")), -1);
        assert_eq!(v("1.2.3").compare_to(&v("1.0.0")), 1);
        assert_eq!(v("1.2.3").major(), 1);
        assert_eq!(v("1.2.3").minor(), 2);
        assert_eq!(v("1.2.3").patch(), 3);
    }

    // upstream: github.com/blang/semver/v4 semver_test.go (formatting, compare and error
    // tables)
    #[test]
    fn blang_cases() {
        let compare = [
            ("1.0.0", "1.0.0", 0),
            ("2.0.0", "1.0.0", 1),
            ("0.1.0", "0.1.0", 0),
            ("0.2.0", "0.1.0", 1),
            ("0.0.1", "0.0.1", 0),
            ("0.0.2", "0.0.1", 1),
            ("1.2.3", "1.2.3", 0),
            ("2.2.4", "1.2.4", 1),
            ("1.3.4", "1.2.4", 1),
            ("1.2.4", "1.2.3", 1),
            ("1.0.0", "1.0.0-alpha", 1),
            ("1.0.0-alpha", "1.0.0-alpha.1", -1),
            ("1.0.0-alpha.1", "1.0.0-alpha.beta", -1),
            ("1.0.0-alpha.beta", "1.0.0-beta", -1),
            ("1.0.0-beta", "1.0.0-beta.2", -1),
            ("1.0.0-beta.2", "1.0.0-beta.11", -1),
            ("1.0.0-beta.11", "1.0.0-rc.1", -1),
            ("1.0.0-rc.1", "1.0.0", -1),
            ("1.0.0", "1.0.0+build.1", 0),
            ("1.0.0-alpha+001", "1.0.0-alpha", 0),
        ];
        for (a, b, want) in compare {
            assert_eq!(v(a).compare_to(&v(b)), want, "{a} vs {b}");
            assert_eq!(v(b).compare_to(&v(a)), -want, "{b} vs {a}");
        }
        for s in [
            "1.2.3-alpha.1+build.123",
            "0.0.0",
            "1.2.3-0",
            "1.2.3-rc.1.2+b-1",
        ] {
            assert_eq!(v(s).to_string(), s);
        }
        let errors = [
            ("", "Version string empty"),
            ("1.2", "No Major.Minor.Patch elements found"),
            ("a.2.3", "Invalid character(s) found in major number \"a\""),
            (
                "01.2.3",
                "Major number must not contain leading zeroes \"01\"",
            ),
            ("1.b.3", "Invalid character(s) found in minor number \"b\""),
            (
                "1.02.3",
                "Minor number must not contain leading zeroes \"02\"",
            ),
            ("1.2.c", "Invalid character(s) found in patch number \"c\""),
            (
                "1.2.03",
                "Patch number must not contain leading zeroes \"03\"",
            ),
            ("1.2.3-", "Prerelease is empty"),
            (
                "1.2.3-01",
                "Numeric PreRelease version must not contain leading zeroes \"01\"",
            ),
            (
                "1.2.3-a_b",
                "Invalid character(s) found in prerelease \"a_b\"",
            ),
            ("1.2.3+", "Build meta data is empty"),
            (
                "1.2.3+a_b",
                "Invalid character(s) found in build meta data \"a_b\"",
            ),
            (".2.3", "strconv.ParseUint: parsing \"\": invalid syntax"),
            (
                "1.2.99999999999999999999",
                "strconv.ParseUint: parsing \"99999999999999999999\": value out of range",
            ),
        ];
        for (s, msg) in errors {
            assert_eq!(Semver::parse(s).unwrap_err().to_string(), msg, "{s}");
        }
        assert_eq!(
            Semver::parse_normalized("1.2-beta")
                .unwrap_err()
                .to_string(),
            "short version cannot contain PreRelease/Build meta data"
        );
    }
}
