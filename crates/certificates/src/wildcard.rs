//! approver-policy's wildcard matching (`pkg/internal/util/wildcard.go`): `*` matches any
//! run of characters (dots included), every other character — `?` too — is literal; the
//! match is case-sensitive and anchored at both ends, on Unicode scalar values (compared as UTF-8
//! bytes, which matches the same strings).
//!
//! Written here rather than with `wildmatch`: `wildmatch::WildMatchPattern` always has a
//! single-character wildcard (a const generic `char`), so whatever character is chosen for it
//! (`?`, NUL, U+FFFF…) would match any character when a policy or a CSR contains it. The
//! crate is still used in the tests as an oracle for patterns without `?`.

/// `WildcardMatches(pattern, s)`.
pub(crate) fn matches(pattern: &str, s: &str) -> bool {
    if pattern.is_empty() {
        return s.is_empty();
    }
    if pattern == "*" {
        return true;
    }
    // bytes, not characters: a `*` stands before a character's first byte and a literal starts with one, so in
    // UTF-8 the two match the same strings (and no copy is made)
    let (p, s) = (pattern.as_bytes(), s.as_bytes());
    // Iterative greedy matcher with a single backtrack point (O(n*m) worst case).
    let (mut px, mut sx) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while sx < s.len() {
        match (p.get(px), s.get(sx)) {
            (Some(b'*'), _) => {
                star = Some((px, sx));
                px += 1;
            }
            (Some(pc), Some(sc)) if pc == sc => {
                px += 1;
                sx += 1;
            }
            _ => match star {
                Some((spx, ssx)) => {
                    let next = ssx + 1;
                    star = Some((spx, next));
                    sx = next;
                    px = spx + 1;
                }
                None => return false,
            },
        }
    }
    while p.get(px) == Some(&b'*') {
        px += 1;
    }
    px == p.len()
}

/// `WildcardContains(patterns, member)`.
pub(crate) fn contains(patterns: &[String], member: &str) -> bool {
    patterns.iter().any(|p| matches(p, member))
}

/// `WildcardSubset(patterns, members)`.
pub(crate) fn subset<M: AsRef<str>>(patterns: &[String], members: &[M]) -> bool {
    members.iter().all(|m| contains(patterns, m.as_ref()))
}
