//! Runtime cost of the Kubernetes CEL libraries as kube-apiserver charges them: the rows of
//! k8s.io/apiserver/pkg/cel/library/cost_test.go not ported in `cost.rs`, in kube-apiserver's
//! environment (`Env::admission()`) with an authorizer that allows everything, as upstream's
//! `testCost` binds one.
//!
//! Figures are upstream's `expectRuntimeCost`. Upstream's `testCost` builds its program without
//! `cel.OptOptimize`, which kube-apiserver turns on: a row with a constant list or map literal is
//! upstream's figure less the literal's creation (`ListCreateBaseCost` 10, `MapCreateBaseCost`
//! 30), which a folded literal does not pay. The constructors of the Kubernetes types (`ip`,
//! `cidr`, `url`, `quantity`, `semver`, `format.named`) are not type conversions and are not
//! folded: they are charged as upstream charges them.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, Env, Expect};
use palisade_cel_kubernetes::cluster::{AccessDecision, AccessQuery, Cluster, HostError};

/// Upstream's `alwaysAllowAuthorizer`.
struct AllowAll;

impl Cluster for AllowAll {
    fn namespace(&self, name: &str) -> Result<Option<serde_json::Value>, HostError> {
        panic!("namespace `{name}` was not asked for")
    }

    fn authorize(&self, _: &AccessQuery) -> Result<AccessDecision, HostError> {
        Ok(AccessDecision {
            allowed: true,
            reason: String::new(),
        })
    }
}

/// What evaluating `src` in `env` costs, or the error.
fn try_cost_in(env: &Env, src: &str) -> Result<u64, String> {
    let p = env
        .compile(src, Expect::Any)
        .map_err(|e| format!("{src}: {e}"))?;
    let act = Activation::new().authorizer(&AllowAll);
    let mut b = Budget::kubernetes();
    p.eval(&act, &mut b).map_err(|e| format!("{src}: {e}"))?;
    Ok(b.used())
}

/// Checks every row and reports all that differ at once.
fn check(rows: &[(String, u64)]) {
    check_in(&Env::admission(), rows);
}

/// [`check`] in `env`.
fn check_in(env: &Env, rows: &[(String, u64)]) {
    let wrong: Vec<String> = rows
        .iter()
        .filter_map(|(src, want)| match try_cost_in(env, src) {
            Ok(got) if got == *want => None,
            Ok(got) => Some(format!("{src}: want {want}, got {got}")),
            Err(e) => Some(e),
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn rows(v: &[(&str, u64)]) -> Vec<(String, u64)> {
    v.iter().map(|(s, c)| ((*s).to_owned(), *c)).collect()
}

/// cost_test.go `TestURLsCost`: `url(s)` one traversal of `s` (23 characters: 3), each accessor
/// 1, and `==` on two URLs 1.
#[test]
fn kubernetes_urls_cost_rows() {
    let url = "url('https:://kubernetes.io/')";
    let mut all = Vec::new();
    for op in [
        ".getScheme()",
        ".getHostname()",
        ".getHost()",
        ".getPort()",
        ".getEscapedPath()",
        ".getQuery()",
    ] {
        all.push((format!("{url}{op}"), 4));
    }
    all.push((format!("{url} == url('https:://kubernetes.io/')"), 7));
    all.push((format!("{url} == url('http://x.b')"), 5));
    check(&all);
}

/// cost_test.go `TestIPCost`: `ip(s)` one traversal of `s` (IPv4 here 2, IPv6 4), each
/// accessor 1, `==` 1.
#[test]
fn kubernetes_ip_cost_rows() {
    let mut all = Vec::new();
    for (ip, base) in [
        ("ip('192.168.0.1')", 2),
        ("ip('2001:db8:3333:4444:5555:6666:7777:8888')", 4),
    ] {
        all.push((ip.to_owned(), base));
        for op in [
            ".family()",
            ".isUnspecified()",
            ".isLoopback()",
            ".isLinkLocalMulticast()",
            ".isLinkLocalUnicast()",
            ".isGlobalUnicast()",
        ] {
            all.push((format!("{ip}{op}"), base + 1));
        }
        all.push((format!("{ip} == ip('192.168.0.1')"), base + 2 + 1));
    }
    check(&all);
}

/// cost_test.go `TestIPIsCanonicalCost`: two traversals of the string.
#[test]
fn kubernetes_ip_is_canonical_cost_rows() {
    check(&rows(&[
        ("ip.isCanonical('192.168.0.1')", 3),
        (
            "ip.isCanonical('2001:db8:3333:4444:5555:6666:7777:8888')",
            8,
        ),
        ("ip.isCanonical('2001:db8::abcd')", 3),
    ]));
}

/// cost_test.go `TestCIDRCost`: `cidr(s)` one traversal of `s`, `ip()`, `prefixLength()`,
/// `masked()` and `==` 1; `containsIP` and `containsCIDR` by the prefix's size in bytes, plus a
/// traversal of a string argument.
#[test]
fn kubernetes_cidr_cost_rows() {
    let v4 = "cidr('192.168.0.0/16')";
    let v6 = "cidr('2001:db8::/32')";
    let base = 2;
    let mut all = Vec::new();
    for c in [v4, v6] {
        all.push((c.to_owned(), base));
        for op in [".ip()", ".prefixLength()", ".masked()"] {
            all.push((format!("{c}{op}"), base + 1));
        }
        all.push((format!("{c} == cidr('2001:db8::/32')"), base + 2 + 1));
    }
    for (op, extra) in [
        (".containsCIDR(cidr('192.0.0.0/30'))", 5),
        (".containsCIDR(cidr('192.168.0.0/16'))", 5),
        (".containsCIDR('192.0.0.0/30')", 5),
        (".containsCIDR('192.168.0.0/16')", 5),
        (".containsIP(ip('192.0.0.1'))", 2),
        (".containsIP(ip('192.169.0.1'))", 3),
        (".containsIP(ip('192.169.169.250'))", 3),
        (".containsIP('192.0.0.1')", 2),
        (".containsIP('192.169.0.1')", 3),
    ] {
        all.push((format!("{v4}{op}"), base + extra));
    }
    for (op, extra) in [
        (".containsCIDR(cidr('2001:db8::/126'))", 5),
        (".containsCIDR(cidr('2001:db8::/32'))", 5),
        (".containsCIDR('2001:db8::/126')", 5),
        (".containsCIDR('2001:db8::/32')", 5),
        (
            ".containsIP(ip('2001:db8:3333:4444:5555:6666:7777:8888'))",
            5,
        ),
        (".containsIP(ip('2001:db8::1'))", 3),
        (".containsIP('2001:db8:3333:4444:5555:6666:7777:8888')", 5),
        (".containsIP('2001:db8::1')", 3),
    ] {
        all.push((format!("{v6}{op}"), base + extra));
    }
    check(&all);
}

/// cost_test.go `TestStringLibrary`, the rows `cost.rs` leaves out: the `==` of two results
/// and the regex library's `find` and `findAll` (a traversal of the string, plus one, times a
/// quarter of the pattern's length). Its `jsonpatch.escapeKey` row is not ported: the JSONPatch
/// library belongs to MutatingAdmissionPolicy's environment, not to kube-apiserver's base
/// environment, and Palisade does not declare it.
#[test]
fn kubernetes_string_library_remaining_rows() {
    check(&rows(&[
        (
            "'ABCDEFGHIJ abcdefghij'.upperAscii() == 'abcdefghij ABCDEFGHIJ'.upperAscii()",
            9,
        ),
        (
            "strings.quote('ABCDEFGHIJ abcdefghij') == strings.quote('ABCDEFGHIJ abcdefghij')",
            9,
        ),
        ("'abc 123 def 123'.find('123')", 2),
        ("'abc 123 def 123'.findAll('123')", 2),
        ("'abc 123 def 123'.findAll('123', 1)", 2),
    ]));
}

/// cost_test.go `TestAuthzLibrary`: the builder's calls 1 each (and the `authorizer` variable
/// 1), a selector 10 plus a traversal plus 50 for every two characters, `check` 350,000.
#[test]
fn kubernetes_authz_library_cost_rows() {
    let resource = "authorizer.group('apps').resource('deployments').subresource('status').namespace('test').name('backend')";
    let selector = "'spec.nodeName=example-node-name.fully.qualified.domain.name.example.com'";
    check(&[
        ("authorizer.path('/healthz')".to_owned(), 2),
        (resource.to_owned(), 6),
        (
            format!("authorizer.group('').resource('pods').fieldSelector({selector})"),
            1821,
        ),
        (
            format!("authorizer.group('').resource('pods').labelSelector({selector})"),
            1821,
        ),
        (
            "authorizer.path('/healthz').check('get').allowed()".to_owned(),
            350_003,
        ),
        // "resource check allowed", and "resource check reason" (upstream's is the same)
        (format!("{resource}.check('create').allowed()"), 350_007),
        (format!("{resource}.check('create').errored()"), 350_007),
        (format!("{resource}.check('create').error()"), 350_007),
    ]);
}

/// cost_test.go `TestQuantityCost`: `quantity(s)` and `isQuantity(s)` one traversal of `s`, the
/// methods 1, `==` 1.
#[test]
fn kubernetes_quantity_cost_rows() {
    check(&rows(&[
        (r#"quantity("12Mi")"#, 1),
        (r#"isQuantity("20")"#, 1),
        (r#"isQuantity("20M")"#, 1),
        (r#"quantity("200M") == quantity("200M")"#, 3),
        (
            r#"quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")"#,
            6,
        ),
        (
            r#"quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")"#,
            9,
        ),
        (r#"quantity("50M").isLessThan(quantity("50Mi"))"#, 3),
        (r#"quantity("50Mi").isGreaterThan(quantity("50M"))"#, 3),
        (r#"quantity("200M").compareTo(quantity("0.2G")) > 0"#, 4),
        (
            r#"quantity("50k").add(quantity("20")) == quantity("50.02k")"#,
            5,
        ),
        (
            r#"quantity("50k").sub(quantity("20")) == quantity("49.98k")"#,
            5,
        ),
        (r#"quantity("50k").sub(20) == quantity("49980")"#, 4),
        (
            r#"quantity("50k").add(20).sub(quantity("100k")).asInteger() > 0"#,
            6,
        ),
        (r#"quantity("50k").asInteger() > 0"#, 3),
        (r#"quantity("50").isInteger()"#, 2),
        (r#"quantity("50.703k").asApproximateFloat() > 0.0"#, 3),
    ]));
}

/// cost_test.go `TestQuantityCost`, the row "arith_chain": cel-go's grammar reads `-50000` as one literal, which costs
/// nothing (compile.rs `rewrite_as_cel_go`; cel-core's parser reads `-` applied to `50000`, charged 1).
#[test]
fn kubernetes_quantity_cost_row_with_a_negative_literal() {
    check(&rows(&[(
        r#"quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger() > 0"#,
        7,
    )]));
}

/// cost_test.go `TestNameFormatCost`: `format.named` 1, `value()` 1, `validate(s)` as a regex
/// match of `s` against a pattern of the format's `MaxRegexSize`, `==` 1.
#[test]
fn kubernetes_name_format_cost_rows() {
    check(&rows(&[
        (r#"format.named("dns1123subdomain")"#, 1),
        (
            r#"format.named("dns1123Subdomain").value().validate("my-name")"#,
            17,
        ),
        (
            r#"format.named("dns1123Label").value().validate("my-name")"#,
            10,
        ),
        (
            r#"format.named("dns1123Label").value() == format.named("dns1123Label").value()"#,
            5,
        ),
    ]));
}

/// cost_test.go `TestSetsCost`: cel-go's sets extension charges 1 plus the product of the two
/// lists' sizes (twice that for `sets.equivalent`). Every list here is a constant literal,
/// which kube-apiserver folds: upstream's figure less 10 a list.
#[test]
fn kubernetes_sets_cost_rows() {
    // (expression, upstream's figure, list literals)
    let upstream: &[(&str, u64, u64)] = &[
        ("sets.contains([], [])", 21, 2),
        ("sets.contains([1], [])", 21, 2),
        ("sets.contains([1], [1])", 22, 2),
        ("sets.contains([1], [1, 1])", 23, 2),
        ("sets.contains([1, 1], [1])", 23, 2),
        ("sets.contains([2, 1], [1])", 23, 2),
        ("sets.contains([1, 2, 3, 4], [2, 3])", 29, 2),
        ("sets.contains([1], [1.0, 1])", 23, 2),
        ("sets.contains([1, 2], [2u, 2.0])", 25, 2),
        ("sets.contains([1, 2u], [2, 2.0])", 25, 2),
        ("sets.contains([1, 2.0, 3u], [1.0, 2u, 3])", 30, 2),
        ("sets.contains([[1], [2, 3]], [[2, 3.0]])", 53, 5),
        ("!sets.contains([1], [2])", 23, 2),
        ("!sets.contains([1], [1, 2])", 24, 2),
        ("!sets.contains([1], [\"1\", 1])", 24, 2),
        ("!sets.contains([1], [1.1, 1u])", 24, 2),
        ("sets.equivalent([], [])", 21, 2),
        ("sets.equivalent([1], [1])", 23, 2),
        ("sets.equivalent([1], [1, 1])", 25, 2),
        ("sets.equivalent([1, 1], [1])", 25, 2),
        ("sets.equivalent([1], [1u, 1.0])", 25, 2),
        // (upstream lists this row twice)
        ("sets.equivalent([1], [1u, 1.0])", 25, 2),
        ("sets.equivalent([1, 2, 3], [3u, 2.0, 1])", 39, 2),
        ("sets.equivalent([[1.0], [2, 3]], [[1], [2, 3.0]])", 69, 6),
        ("!sets.equivalent([2, 1], [1])", 26, 2),
        ("!sets.equivalent([1], [1, 2])", 26, 2),
        ("!sets.equivalent([1, 2], [2u, 2, 2.0])", 34, 2),
        ("!sets.equivalent([1, 2], [1u, 2, 2.3])", 34, 2),
        ("sets.intersects([1], [1])", 22, 2),
        ("sets.intersects([1], [1, 1])", 23, 2),
        ("sets.intersects([1, 1], [1])", 23, 2),
        ("sets.intersects([2, 1], [1])", 23, 2),
        ("sets.intersects([1], [1, 2])", 23, 2),
        ("sets.intersects([1], [1.0, 2])", 23, 2),
        ("sets.intersects([1, 2], [2u, 2, 2.0])", 27, 2),
        ("sets.intersects([1, 2], [1u, 2, 2.3])", 27, 2),
        ("sets.intersects([[1], [2, 3]], [[1, 2], [2, 3.0]])", 65, 6),
        ("!sets.intersects([], [])", 22, 2),
        ("!sets.intersects([1], [])", 22, 2),
        ("!sets.intersects([1], [2])", 23, 2),
        ("!sets.intersects([1], [\"1\", 2])", 24, 2),
        ("!sets.intersects([1], [1.1, 2u])", 24, 2),
    ];
    let all: Vec<(String, u64)> = upstream
        .iter()
        .map(|(s, c, lists)| ((*s).to_owned(), c - 10 * lists))
        .collect();
    // upstream's environment has the sets library but not kube-apiserver's homogeneous-literal validation, which
    // refuses `[1.0, 1]`: the full library without it
    check_in(&Env::standard(), &all);
}

/// cost_test.go `TestSemverCost`: `semver(s)` and `isSemver(s)` one traversal of `s`, the
/// methods 1.
#[test]
fn kubernetes_semver_cost_rows() {
    check(&rows(&[
        (r#"semver("1.0.0")"#, 1),
        (r#"semver("1234.56789012345.67890123456789")"#, 4),
        (r#"isSemver("1.0.0")"#, 1),
        (r#"isSemver("1234.56789012345.67890123456789")"#, 4),
        (r#"semver("1.2.3").major()"#, 2),
        (r#"semver("1.2.3").minor()"#, 2),
        (r#"semver("1.2.3").patch()"#, 2),
        (r#"semver("1.0.0").isLessThan(semver("1.1.0"))"#, 3),
        (r#"semver("1.1.0").isGreaterThan(semver("1.0.0"))"#, 3),
        (r#"semver("1.0.0").compareTo(semver("1.2.3"))"#, 3),
    ]));
}

/// cost_test.go `TestTwoVariableComprehensionCost`: upstream's figures less the literals
/// kube-apiserver folds (the map 30 or list 10 iterated over, and the `{}` or `[]` each
/// `transformMap`, `transformMapEntry` and `transformList` starts its accumulator from). The
/// map `{k: v + 1}` built in a step is not constant and is charged on every iteration.
#[test]
fn kubernetes_two_variable_comprehension_cost_rows() {
    check(&rows(&[
        ("{'a': 1, 'b': 2}.all(k, v, v > 0)", 41 - 30),
        ("{'a': 1, 'b': 2}.exists(k, v, v > 0)", 40 - 30),
        ("{'a': 1, 'b': 2}.existsOne(k, v, v > 0)", 40 - 30),
        ("{'a': 1, 'b': 2}.transformMap(k, v, v + 1)", 71 - 60),
        ("{'a': 1, 'b': 2}.transformMap(k, v, v < 5, v + 1)", 75 - 60),
        (
            "{'a': 1, 'b': 2}.transformMapEntry(k, v, {k: v + 1})",
            131 - 60,
        ),
        (
            "{'a': 1, 'b': 2}.transformMapEntry(k, v, v < 5, {k: v + 1})",
            135 - 60,
        ),
        ("[1, 2].all(i, v, v > 0)", 21 - 10),
        ("[1, 2].exists(i, v, v > 0)", 20 - 10),
        ("[1, 2].existsOne(i, v, v > 0)", 20 - 10),
        ("[1, 2].transformList(i, v, v + 1)", 49 - 20),
        ("[1, 2].transformList(i, v, v < 5, v + 1)", 53 - 20),
    ]));
}
