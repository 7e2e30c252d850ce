//! upstream: cert-manager/approver-policy v0.27 pkg/internal/util/wildcard_test.go
//! (Test_WildcardSubset, Test_WildcardContains, Test_WildcardMatches,
//! Test_WildcardMatches_BacktrackingDoesNotHang), plus the `?`-is-literal proof and a
//! differential check against `wildmatch` (for patterns without `?`).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed expectation is a test failure"
)]

use palisade_certificates::internals::{wildcard_contains, wildcard_matches, wildcard_subset};

fn v(s: &[&str]) -> Vec<String> {
    s.iter().map(|x| x.to_string()).collect()
}

#[test]
fn wildcard_subset_table() {
    // upstream: Test_WildcardSubset
    let cases: &[(&[&str], &[&str], bool)] = &[
        (&[], &[], true),
        (&["cert-manager"], &["cert-manager"], true),
        (&["cert-manager", "foo"], &["cert-manager"], true),
        (&["cert-manager"], &["cert-manager", "foo"], false),
        (
            &["foo", "cert-manager", "bar"],
            &["cert-manager", "foo"],
            true,
        ),
        (&["foo", "cert-*", "bar"], &["cert-manager", "foo"], true),
        (&["*"], &["cert-manager", "foo"], true),
        (&["foo.*"], &["cert-manager", "foo."], false),
        (&["foo.*"], &["foo.cert-manager", "foo."], true),
    ];
    for (p, t, exp) in cases {
        assert_eq!(wildcard_subset(&v(p), &v(t)), *exp, "{p:?} {t:?}");
    }
}

#[test]
fn wildcard_contains_table() {
    // upstream: Test_WildcardContains
    let cases: &[(&[&str], &str, bool)] = &[
        (&[], "cert-manager", false),
        (&["cert-manager"], "cert-manager", true),
        (&[""], "", true),
        (&["cert-manager", "foo"], "cert-manager", true),
        (&["foo", "cert-manager"], "cert-manager", true),
        (&["foo", "cert-*"], "cert-manager", true),
        (&["foo", "cert-*manager"], "cert-manager", true),
        (&["foo", "cert-m*"], "cert-", false),
        (&["foo", "cert-manager"], "bar", false),
        (&["foo", "*"], "bar", true),
        (&["foo", ""], "bar", false),
    ];
    for (p, t, exp) in cases {
        assert_eq!(wildcard_contains(&v(p), t), *exp, "{p:?} {t:?}");
    }
}

#[test]
fn wildcard_matches_table() {
    // upstream: Test_WildcardMatches
    let cases = [
        ("*", "cert-manager", true),
        ("", "cert-manager", false),
        ("", "", true),
        ("cert-*", "cert-manager.io", true),
        ("cert-manager-foo", "cert-manager", false),
        ("cert-manager", "cert-manager", true),
        ("cert-manager.io*", "cert-manager.io", true),
        ("*cert-manager.io", "cert-manager.io", true),
        ("cert-*manager.io", "cert-manager.io", true),
        ("cert-foo*", "cert-manager.io", false),
        ("ce*t-*ger*io", "cert-manager.io", true),
        ("ce*t-*ger*.", "cert-manager.io", false),
    ];
    for (p, t, exp) in cases {
        assert_eq!(wildcard_matches(p, t), exp, "{p:?} {t:?}");
    }
}

#[test]
fn wildcard_backtracking_does_not_hang() {
    // upstream: Test_WildcardMatches_BacktrackingDoesNotHang
    let start = std::time::Instant::now();
    assert!(!wildcard_matches("*a*a*a*a*a*a*a*a*!", &"a".repeat(50)));
    assert!(!wildcard_matches(&"*a".repeat(500), &"a".repeat(499)));
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn question_mark_is_literal() {
    assert!(!wildcard_matches("a?c", "abc"));
    assert!(wildcard_matches("a?c", "a?c"));
    assert!(!wildcard_matches("?", "x"));
    assert!(wildcard_matches("*?", "why?"));
    assert!(!wildcard_matches("*?", "why"));
}

#[test]
fn star_matches_dots_case_sensitive_anchored() {
    assert!(wildcard_matches("*.example.com", "a.b.example.com"));
    assert!(!wildcard_matches("*.example.com", "example.com"));
    assert!(!wildcard_matches("*.Example.com", "a.example.com"));
    assert!(!wildcard_matches("example", "an-example"));
    assert!(!wildcard_matches("example", "example-2"));
    assert!(wildcard_matches("**", ""));
    // Unicode scalar values, as Go's []rune
    assert!(wildcard_matches("h*é", "hé"));
    assert!(!wildcard_matches("h?", "hé"));
    // NUL and other characters are literal too
    assert!(!wildcard_matches("a\0c", "abc"));
}

#[test]
fn agrees_with_wildmatch_without_question_marks() {
    // wildmatch's single-char wildcard is set to a character absent from these inputs; `é` (two bytes in UTF-8) and
    // `日` (three) check that matching bytes matches the same strings as matching characters
    let alphabet = ['a', 'b', 'é', '.', '*'];
    let mut patterns = vec![String::new()];
    for _ in 0..4 {
        let mut next = Vec::new();
        for p in &patterns {
            for c in alphabet {
                next.push(format!("{p}{c}"));
            }
        }
        patterns.extend(next);
        patterns.sort();
        patterns.dedup();
    }
    let texts: Vec<String> = patterns
        .iter()
        .map(|p| p.replace('*', ""))
        .chain(["ab.ba".into(), "aaaa".into(), "日é".into(), "a日b.é".into()])
        .collect();
    for p in &patterns {
        let oracle = wildmatch::WildMatchPattern::<'*', '\u{1}'>::new(p);
        for t in &texts {
            assert_eq!(
                wildcard_matches(p, t),
                oracle.matches(t),
                "pattern {p:?} text {t:?}"
            );
        }
    }
}
