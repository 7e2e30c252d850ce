//! Properties of approver-policy's wildcard (`pkg/internal/util/wildcard.go`: `*` matches any
//! run of runes, dots included, everything else — `?` too — is literal; anchored; rune-wise):
//!
//! - for patterns without `?`, `WildcardMatches` agrees with `wildmatch::WildMatch`;
//! - `?` is literal: replacing every `?` in pattern and text by a character that appears
//!   nowhere else changes nothing (and then `wildmatch` is the oracle again);
//! - it agrees with a port of upstream's recursive `matchRunes` (the implementation before its
//!   iterative rewrite, `?` included), on short inputs;
//! - `WildcardContains` is "some pattern matches" and `WildcardSubset` "every member is
//!   contained".
//!
//! The generators follow upstream's own property tests (pkg/internal/util/wildcard_hegel_test.go:
//! `TestWildcardMatchesAgainstRegexpOracle`, `TestWildcardContainsAndSubsetLaws`): patterns are
//! short literal chunks, multi-byte runes included, joined by `*` or by nothing, and candidates
//! are either instantiations of the pattern (each `*` replaced by some text, so matches happen)
//! or unrelated strings over the same alphabet, sometimes with one rune dropped. The example
//! tables (`Test_WildcardSubset`, `Test_WildcardContains`, `Test_WildcardMatches`,
//! `Test_WildcardMatches_BacktrackingDoesNotHang`) are ported in `tests/wildcard.rs`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed expectation is a test failure"
)]

use palisade_certificates::internals::{wildcard_contains, wildcard_matches, wildcard_subset};
use proptest::prelude::*;
use wildmatch::WildMatch;

/// Upstream's chunk alphabet (`drawPattern`), plus `?` and `*` literals-to-be.
const CHUNKS: &[&str] = &[
    "", "a", "b", "ab", "ba", "aa", "cert-", "manager", ".io", "é", "日本",
];
/// Upstream's expansions for `*` (`drawCandidate`), plus `?` and a dot.
const EXPANSIONS: &[&str] = &["", "a", "b", "x", "aab", "é日", "?", "."];

/// Upstream's recursive matcher before the iterative rewrite (`WildcardMatchs` / `matchRunes`,
/// itself modified from minio's `pkg/wildcard`), transliterated.
fn upstream_recursive(pattern: &str, s: &str) -> bool {
    fn match_runes(pattern: &[char], s: &[char]) -> bool {
        let (mut pattern, mut s) = (pattern, s);
        while let Some(&p0) = pattern.first() {
            if p0 == '*' {
                return match_runes(&pattern[1..], s)
                    || (!s.is_empty() && match_runes(pattern, &s[1..]));
            }
            if s.is_empty() || s[0] != p0 {
                return false;
            }
            s = &s[1..];
            pattern = &pattern[1..];
        }
        s.is_empty() && pattern.is_empty()
    }
    if pattern.is_empty() {
        return s.is_empty();
    }
    if pattern == "*" {
        return true;
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = s.chars().collect();
    match_runes(&p, &s)
}

/// `drawPattern`: chunks joined by `*` (or by nothing); `with_question` lets chunks carry `?`.
fn pattern(with_question: bool) -> impl Strategy<Value = String> {
    let chunk = if with_question {
        prop_oneof![
            3 => proptest::sample::select(CHUNKS).prop_map(str::to_owned),
            1 => proptest::sample::select(&["?", "a?", "?b", "??"][..]).prop_map(str::to_owned),
        ]
        .boxed()
    } else {
        proptest::sample::select(CHUNKS)
            .prop_map(str::to_owned)
            .boxed()
    };
    (
        proptest::collection::vec(chunk, 0..=5),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(chunks, starred, lead, trail)| {
            let sep = if starred { "*" } else { "" };
            let mut p = chunks.join(sep);
            if lead && starred {
                p.insert(0, '*');
            }
            if trail && starred {
                p.push('*');
            }
            p
        })
}

/// `drawCandidate`: an instantiation of `p` or an unrelated string, maybe with a rune dropped.
fn candidate(p: String) -> impl Strategy<Value = (String, String)> {
    let stars = p.chars().filter(|c| *c == '*').count();
    (
        any::<bool>(),
        proptest::collection::vec(proptest::sample::select(EXPANSIONS), stars),
        pattern(true),
        proptest::option::of(any::<proptest::sample::Index>()),
    )
        .prop_map(move |(instantiate, expansions, other, drop)| {
            let mut s = if instantiate {
                let mut out = String::new();
                let mut e = expansions.iter();
                for c in p.chars() {
                    if c == '*' {
                        out.push_str(e.next().unwrap());
                    } else {
                        out.push(c);
                    }
                }
                out
            } else {
                other // may contain a literal `*` or `?`
            };
            if let Some(i) = drop {
                let mut runes: Vec<char> = s.chars().collect();
                if !runes.is_empty() {
                    runes.remove(i.index(runes.len()));
                    s = runes.into_iter().collect();
                }
            }
            (p.clone(), s)
        })
}

fn pattern_and_candidate(with_question: bool) -> impl Strategy<Value = (String, String)> {
    pattern(with_question).prop_flat_map(candidate)
}

/// `TestWildcardContainsAndSubsetLaws`' draw: up to 3 patterns, up to 3 members each drawn
/// from one of them (or from `""` when there is none).
fn patterns_and_members() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    proptest::collection::vec(pattern(true), 0..=3).prop_flat_map(|patterns| {
        let pool = if patterns.is_empty() {
            vec![String::new()]
        } else {
            patterns.clone()
        };
        let member = proptest::sample::select(pool)
            .prop_flat_map(candidate)
            .prop_map(|(_, s)| s);
        (Just(patterns), proptest::collection::vec(member, 0..=3))
    })
}

/// Any short string over a tiny alphabet, `*` and `?` included: the unstructured complement to
/// the chunked patterns.
fn raw(max: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(
        proptest::sample::select(&['a', 'b', '.', '*', '?', 'é'][..]),
        0..=max,
    )
    .prop_map(|v| v.into_iter().collect())
}

/// A character none of the generators produce.
const FRESH: &str = "\u{1F512}";

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    /// Without `?` in the pattern, `WildcardMatches` is `wildmatch`.
    #[test]
    fn agrees_with_wildmatch((p, s) in pattern_and_candidate(false)) {
        prop_assert_eq!(wildcard_matches(&p, &s), WildMatch::new(&p).matches(&s), "pattern {:?} text {:?}", p, s);
    }

    /// `?` is an ordinary character: renaming it to a fresh literal changes no answer, and the
    /// renamed pattern (no `?` left) is judged by `wildmatch`.
    #[test]
    fn question_mark_is_literal((p, s) in pattern_and_candidate(true)) {
        let (p2, s2) = (p.replace('?', FRESH), s.replace('?', FRESH));
        let got = wildcard_matches(&p, &s);
        prop_assert_eq!(got, wildcard_matches(&p2, &s2), "pattern {:?} text {:?}", p, s);
        prop_assert_eq!(got, WildMatch::new(&p2).matches(&s2), "pattern {:?} text {:?}", p, s);
    }

    /// Unstructured short inputs (independent, or the text an instantiation of the pattern)
    /// against upstream's recursive matcher (exponential, hence the small sizes) and, without
    /// `?`, `wildmatch`.
    #[test]
    fn agrees_with_upstream_recursive((p, s) in prop_oneof![
        (raw(8), raw(10)),
        raw(8).prop_flat_map(candidate),
    ]) {
        let got = wildcard_matches(&p, &s);
        prop_assert_eq!(got, upstream_recursive(&p, &s), "pattern {:?} text {:?}", p, s);
        if !p.contains('?') {
            prop_assert_eq!(got, WildMatch::new(&p).matches(&s), "pattern {:?} text {:?}", p, s);
        }
    }

    /// An instantiation of a pattern (every `*` replaced by anything) always matches it.
    #[test]
    fn instantiations_match(p in pattern(true), fill in proptest::collection::vec(proptest::sample::select(EXPANSIONS), 0..=12)) {
        let mut fill = fill.into_iter().cycle();
        let s: String = p.chars().map(|c| if c == '*' { fill.next().unwrap_or("").to_owned() } else { c.to_string() }).collect();
        prop_assert!(wildcard_matches(&p, &s), "pattern {:?} text {:?}", p, s);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `TestWildcardContainsAndSubsetLaws`: Contains is "any pattern matches", Subset is "every
    /// member is contained", with `wildmatch` (on `?`-renamed inputs) judging each match.
    #[test]
    fn contains_and_subset_laws((patterns, members) in patterns_and_members()) {
        let oracle = |m: &str| {
            patterns
                .iter()
                .any(|p| WildMatch::new(&p.replace('?', FRESH)).matches(&m.replace('?', FRESH)))
        };
        for m in &members {
            prop_assert_eq!(wildcard_contains(&patterns, m), oracle(m), "patterns {:?} member {:?}", patterns, m);
        }
        prop_assert_eq!(
            wildcard_subset(&patterns, &members),
            members.iter().all(|m| oracle(m)),
            "patterns {:?} members {:?}", patterns, members
        );
    }
}

/// upstream: wildcard_test.go's example table for `WildcardMatches` (spelled
/// `Test_WildcardMatchs` / `WildcardMatchs` at approver-policy commit eb5d7ae), every row, checked against both oracles — they are upstream's semantics on these — and the
/// crate. (`tests/wildcard.rs` runs the Contains/Subset tables too.)
#[test]
fn oracles_agree_with_upstream_table() {
    let rows = [
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
    for (p, s, want) in rows {
        assert_eq!(WildMatch::new(p).matches(s), want, "wildmatch {p:?} {s:?}");
        assert_eq!(upstream_recursive(p, s), want, "recursive {p:?} {s:?}");
        assert_eq!(wildcard_matches(p, s), want, "{p:?} {s:?}");
    }
}
