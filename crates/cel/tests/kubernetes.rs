//! Kubernetes CEL libraries, ported from k8s.io/apiserver/pkg/cel/library tests and the
//! examples in each library's documentation.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, Env, Expect, Value};

enum Want {
    Bool(bool),
    Int(i64),
    Double(f64),
    Str(&'static str),
    /// a runtime error whose message contains this text
    Err(&'static str),
    /// a compile error whose message contains this text
    CompileErr(&'static str),
}

fn run(cases: &[(&str, Want)]) {
    run_in(&Env::admission(), cases);
}

fn run_in(env: &Env, cases: &[(&str, Want)]) {
    let mut failures = Vec::new();
    for (src, want) in cases {
        let prog = env.compile(src, Expect::Any);
        let result = prog
            .as_ref()
            .map(|p| p.eval(&Activation::new(), &mut Budget::kubernetes()));
        let ok = match (want, &prog, &result) {
            (Want::CompileErr(w), Err(e), _) => e.to_string().contains(w),
            (_, Err(e), _) => {
                failures.push(format!("{src}: compile error {e}"));
                continue;
            }
            (Want::Err(w), _, Ok(Err(e))) => e.to_string().contains(w),
            (Want::Bool(b), _, Ok(Ok(Value::Bool(v)))) => v == b,
            (Want::Int(i), _, Ok(Ok(Value::Int(v)))) => v == i,
            (Want::Double(d), _, Ok(Ok(Value::Double(v)))) => (v - d).abs() < 1e-4,
            (Want::Str(s), _, Ok(Ok(Value::String(v)))) => v.as_str() == *s,
            _ => false,
        };
        if !ok {
            let got = match &result {
                Ok(Ok(v)) => v.to_string(),
                Ok(Err(e)) => format!("error {e}"),
                Err(e) => format!("compile error {e}"),
            };
            failures.push(format!("{src}: got {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// upstream: k8s.io/apiserver/pkg/cel/library/quantity_test.go TestQuantity
#[test]
fn quantity() {
    use Want::*;
    run(&[
        ("quantity(\"12Mi\") == quantity(\"12Mi\")", Bool(true)),
        (
            "quantity(\"10Mo\")",
            Err("quantities must match the regular expression"),
        ),
        (
            "quantity(\"10Mm\")",
            Err("unable to parse quantity's suffix"),
        ),
        ("isQuantity(\"20\")", Bool(true)),
        ("isQuantity(\"20M\")", Bool(true)),
        ("isQuantity(\"20Mi\")", Bool(true)),
        ("isQuantity(\"20Mo\")", Bool(false)),
        ("isQuantity(\"10Mm\")", Bool(false)),
        (
            "isQuantity([1, 2, 3])",
            CompileErr("found no matching overload for 'isQuantity' applied to"),
        ),
        ("quantity(\"200M\") == quantity(\"200M\")", Bool(true)),
        (
            "quantity(\"200M\") == quantity(\"0.2G\") && quantity(\"0.2G\") == quantity(\"200M\")",
            Bool(true),
        ),
        (
            "quantity(\"2M\") == quantity(\"0.002G\") && quantity(\"2000k\") == quantity(\"2M\") && quantity(\"0.002G\") == quantity(\"2000k\")",
            Bool(true),
        ),
        ("quantity(\"200M\") == quantity(\"0.3G\")", Bool(false)),
        (
            "quantity(\"50M\").isLessThan(quantity(\"50Mi\"))",
            Bool(true),
        ),
        (
            "quantity(\"50M\").isLessThan(quantity(\"100M\"))",
            Bool(true),
        ),
        (
            "quantity(\"100M\").isLessThan(quantity(\"50M\"))",
            Bool(false),
        ),
        (
            "quantity(\"50Mi\").isGreaterThan(quantity(\"50M\"))",
            Bool(true),
        ),
        (
            "quantity(\"150Mi\").isGreaterThan(quantity(\"100Mi\"))",
            Bool(true),
        ),
        (
            "quantity(\"50M\").isGreaterThan(quantity(\"100M\"))",
            Bool(false),
        ),
        ("quantity(\"200M\").compareTo(quantity(\"0.2G\"))", Int(0)),
        ("quantity(\"50M\").compareTo(quantity(\"50Mi\"))", Int(-1)),
        ("quantity(\"50Mi\").compareTo(quantity(\"50M\"))", Int(1)),
        (
            "quantity(\"50k\").add(quantity(\"20\")) == quantity(\"50.02k\")",
            Bool(true),
        ),
        (
            "quantity(\"50k\").add(20).isLessThan(quantity(\"50020\"))",
            Bool(false),
        ),
        (
            "quantity(\"50k\").sub(quantity(\"20\")) == quantity(\"49.98k\")",
            Bool(true),
        ),
        (
            "quantity(\"50k\").sub(20) == quantity(\"49980\")",
            Bool(true),
        ),
        (
            "quantity(\"50k\").add(20).sub(quantity(\"100k\")).asInteger()",
            Int(-49980),
        ),
        (
            "quantity(\"50k\").add(20).sub(quantity(\"100k\")).sub(-50000).asInteger()",
            Int(20),
        ),
        ("quantity(\"50k\").asInteger()", Int(50000)),
        (
            "quantity(\"9999999999999999999999999999999999999G\").asInteger()",
            Err("cannot convert value to integer"),
        ),
        (
            "quantity(\"9999999999999999999999999999999999999G\").isInteger()",
            Bool(false),
        ),
        ("quantity(\"50\").isInteger()", Bool(true)),
        (
            "quantity(\"50.703k\").asApproximateFloat()",
            Double(50703.0),
        ),
        ("quantity(\"-1\").sign()", Int(-1)),
    ]);
}

// upstream: k8s.io/apiserver/pkg/cel/library/semver_test.go TestSemver
#[test]
fn semver() {
    use Want::*;
    run(&[
        ("semver(\"1.2.3\") == semver(\"1.2.3\")", Bool(true)),
        (
            "semver(\"v1.0\")",
            Err("No Major.Minor.Patch elements found"),
        ),
        ("isSemver(\"1.2.3-beta.1+build.1\")", Bool(true)),
        ("isSemver(\"\")", Bool(false)),
        ("isSemver(\"v1.0.0\")", Bool(false)),
        ("isSemver(\" 1.0.0\")", Bool(false)),
        ("isSemver(\"1. 0.0\")", Bool(false)),
        ("isSemver(\"1.0.0 \")", Bool(false)),
        ("isSemver(\"01.01.01\")", Bool(false)),
        ("isSemver(\"1\")", Bool(false)),
        ("isSemver(\"1.1\")", Bool(false)),
        ("isSemver(\"\", true)", Bool(false)),
        ("isSemver(\" 1.0.0\", true)", Bool(false)),
        ("isSemver(\"1. 0.0\", true)", Bool(false)),
        ("isSemver(\"1.0.0 \", true)", Bool(false)),
        ("isSemver(\"v1.0.0\", true)", Bool(true)),
        ("isSemver(\"01.01.01\", true)", Bool(true)),
        ("isSemver(\"1\", true)", Bool(true)),
        ("isSemver(\"1.1\", true)", Bool(true)),
        (
            "isSemver([1, 2, 3])",
            CompileErr("found no matching overload for 'isSemver' applied to"),
        ),
        ("semver(\"v01.01\", true) == semver(\"1.1.0\")", Bool(true)),
        ("semver(\"1.2.3\") == semver(\"1.0.0\")", Bool(false)),
        (
            "semver(\"1.0.0\").isLessThan(semver(\"1.2.3\"))",
            Bool(true),
        ),
        (
            "semver(\"1.0.0\").isLessThan(semver(\"1.0.0\"))",
            Bool(false),
        ),
        (
            "semver(\"1.2.3\").isGreaterThan(semver(\"1.0.0\"))",
            Bool(true),
        ),
        (
            "semver(\"1.0.0\").isGreaterThan(semver(\"1.0.0\"))",
            Bool(false),
        ),
        ("semver(\"1.2.3\").compareTo(semver(\"1.2.3\"))", Int(0)),
        ("semver(\"1.0.0\").compareTo(semver(\"1.2.3\"))", Int(-1)),
        ("semver(\"1.2.3\").compareTo(semver(\"1.0.0\"))", Int(1)),
        ("semver(\"1.2.3\").major()", Int(1)),
        ("semver(\"1.2.3\").minor()", Int(2)),
        ("semver(\"1.2.3\").patch()", Int(3)),
        (
            "semver('1.2.0-alpha').isLessThan(semver('1.2.0'))",
            Bool(true),
        ),
    ]);
}

// upstream: k8s.io/apiserver/pkg/cel/library/ip_test.go TestIP
#[test]
fn ip() {
    use Want::*;
    run(&[
        ("ip(\"192.168.0.1\") == ip(\"192.168.0.1\")", Bool(true)),
        (
            "ip(\"192.168.0.1.0\")",
            Err(
                "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long",
            ),
        ),
        ("isIP(\"192.168.0.1\")", Bool(true)),
        ("isIP(\"192.168.0.1.0\")", Bool(false)),
        ("ip.isCanonical(\"127.0.0.1\")", Bool(true)),
        (
            "ip.isCanonical(\"127.0.0.1.0\")",
            Err(
                "IP Address \"127.0.0.1.0\" parse error during conversion from string: ParseAddr(\"127.0.0.1.0\"): IPv4 address too long",
            ),
        ),
        ("ip(\"192.168.0.1\").family()", Int(4)),
        ("ip(\"0.0.0.0\").isUnspecified()", Bool(true)),
        ("ip(\"127.0.0.1\").isUnspecified()", Bool(false)),
        ("ip(\"127.0.0.1\").isLoopback()", Bool(true)),
        ("ip(\"1.2.3.4\").isLoopback()", Bool(false)),
        ("ip(\"224.0.0.1\").isLinkLocalMulticast()", Bool(true)),
        ("ip(\"224.0.1.1\").isLinkLocalMulticast()", Bool(false)),
        ("ip(\"169.254.169.254\").isLinkLocalUnicast()", Bool(true)),
        ("ip(\"192.168.0.1\").isLinkLocalUnicast()", Bool(false)),
        ("ip(\"192.168.0.1\").isGlobalUnicast()", Bool(true)),
        ("ip(\"255.255.255.255\").isGlobalUnicast()", Bool(false)),
        ("ip(\"2001:db8::68\") == ip(\"2001:db8::68\")", Bool(true)),
        (
            "ip(\"2001:db8:::68\")",
            Err(
                "IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")",
            ),
        ),
        ("isIP(\"2001:db8::68\")", Bool(true)),
        ("isIP(\"2001:db8:::68\")", Bool(false)),
        ("ip.isCanonical(\"2001:db8::68\")", Bool(true)),
        ("ip.isCanonical(\"2001:DB8::68\")", Bool(false)),
        ("ip(\"2001:db8::68\").family()", Int(6)),
        ("ip(\"::\").isUnspecified()", Bool(true)),
        ("ip(\"::1\").isUnspecified()", Bool(false)),
        ("ip(\"::1\").isLoopback()", Bool(true)),
        ("ip(\"2001:db8::abcd\").isLoopback()", Bool(false)),
        ("ip(\"ff02::1\").isLinkLocalMulticast()", Bool(true)),
        ("ip(\"fd00::1\").isLinkLocalMulticast()", Bool(false)),
        ("ip(\"fe80::1\").isLinkLocalUnicast()", Bool(true)),
        ("ip(\"fd80::1\").isLinkLocalUnicast()", Bool(false)),
        ("ip(\"2001:db8::abcd\").isGlobalUnicast()", Bool(true)),
        ("ip(\"ff00::1\").isGlobalUnicast()", Bool(false)),
        (
            "isIP(cidr(\"192.168.0.0/24\"))",
            CompileErr("found no matching overload for 'isIP' applied to '(net.CIDR)'"),
        ),
        ("string(ip(\"192.168.0.1\"))", Str("192.168.0.1")),
        ("type(ip(\"192.168.0.1\")) == net.IP", Bool(true)),
    ]);
}

// upstream: k8s.io/apiserver/pkg/cel/library/cidr_test.go TestCIDR
#[test]
fn cidr() {
    use Want::*;
    run(&[
        (
            "cidr(192168)",
            CompileErr("found no matching overload for 'cidr' applied to '(int)'"),
        ),
        (
            "cidr(dyn(\"192.168.0.0/24\")) == cidr(\"192.168.0.0/24\")",
            Bool(true),
        ),
        (
            "cidr(\"192.168.0.0/\")",
            Err(
                "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0/\"): bad bits after slash: \"\"",
            ),
        ),
        (
            "cidr(\"192.168.0.0/24\").containsIP(ip(\"192.168.0.1\"))",
            Bool(true),
        ),
        (
            "cidr(\"192.168.0.0/24\").containsIP(ip(\"192.168.1.1\"))",
            Bool(false),
        ),
        (
            "cidr(\"192.168.0.0/24\").containsIP(\"192.168.0.1\")",
            Bool(true),
        ),
        (
            "cidr(\"192.168.0.0/24\").containsIP(\"192.168.1.1\")",
            Bool(false),
        ),
        (
            "cidr(\"192.168.0.0/24\").containsCIDR(cidr(\"192.168.0.0/25\"))",
            Bool(true),
        ),
        (
            "cidr(\"192.168.0.0/24\").containsCIDR(cidr(\"192.168.0.0/23\"))",
            Bool(false),
        ),
        (
            "cidr(\"192.168.0.0/24\").containsCIDR(\"192.168.0.0/25\")",
            Bool(true),
        ),
        (
            "cidr(\"192.168.0.0/24\").containsCIDR(\"192.168.0.0/23\")",
            Bool(false),
        ),
        (
            "cidr(\"192.168.0.0/24\").ip() == ip(\"192.168.0.0\")",
            Bool(true),
        ),
        (
            "cidr(\"192.168.0.0/24\").masked() == cidr(\"192.168.0.0/24\")",
            Bool(true),
        ),
        (
            "cidr(\"192.168.0.1/24\").masked() == cidr(\"192.168.0.0/24\")",
            Bool(true),
        ),
        ("cidr(\"192.168.0.0/24\").prefixLength()", Int(24)),
        (
            "cidr(\"2001:db8::/32\") == cidr(\"2001:db8::/32\")",
            Bool(true),
        ),
        (
            "cidr(\"2001:db8::/\")",
            Err(
                "network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"2001:db8::/\"): bad bits after slash: \"\"",
            ),
        ),
        (
            "cidr(\"2001:db8::/32\").containsIP(ip(\"2001:db8::1\"))",
            Bool(true),
        ),
        (
            "cidr(\"2001:db8::/32\").containsIP(ip(\"2001:dc8::1\"))",
            Bool(false),
        ),
        (
            "cidr(\"2001:db8::/32\").containsIP(\"2001:db8::1\")",
            Bool(true),
        ),
        (
            "cidr(\"2001:db8::/32\").containsIP(\"2001:dc8::1\")",
            Bool(false),
        ),
        (
            "cidr(\"2001:db8::/32\").containsCIDR(cidr(\"2001:db8::/33\"))",
            Bool(true),
        ),
        (
            "cidr(\"2001:db8::/32\").containsCIDR(cidr(\"2001:db8::/31\"))",
            Bool(false),
        ),
        (
            "cidr(\"2001:db8::/32\").containsCIDR(\"2001:db8::/33\")",
            Bool(true),
        ),
        (
            "cidr(\"2001:db8::/32\").containsCIDR(\"2001:db8::/31\")",
            Bool(false),
        ),
        (
            "cidr(\"2001:db8::/32\").ip() == ip(\"2001:db8::\")",
            Bool(true),
        ),
        (
            "cidr(\"2001:db8::/32\").masked() == cidr(\"2001:db8::/32\")",
            Bool(true),
        ),
        (
            "cidr(\"2001:db8:1::/32\").masked() == cidr(\"2001:db8::/32\")",
            Bool(true),
        ),
        ("cidr(\"2001:db8::/32\").prefixLength()", Int(32)),
        ("string(cidr(\"192.168.0.0/24\"))", Str("192.168.0.0/24")),
        ("type(cidr(\"192.168.0.0/24\")) == net.CIDR", Bool(true)),
    ]);
}

// upstream: godoc examples of k8s.io/apiserver/pkg/cel/library/ip.go and cidr.go
#[test]
fn ip_and_cidr() {
    use Want::*;
    run(&[
        ("isIP('127.0.0.1')", Bool(true)),
        ("isIP('::1')", Bool(true)),
        ("isIP('127.0.0.256')", Bool(false)),
        (
            "isIP(ip('127.0.0.1').family() == 4 ? '::1' : 'x')",
            Bool(true),
        ),
        ("ip('127.0.0.1').family()", Int(4)),
        ("ip('::1').family()", Int(6)),
        ("ip('127.0.0.1').isLoopback()", Bool(true)),
        ("ip('0.0.0.0').isUnspecified()", Bool(true)),
        ("ip('224.0.0.1').isLinkLocalMulticast()", Bool(true)),
        ("ip('169.254.169.254').isLinkLocalUnicast()", Bool(true)),
        ("ip('192.168.0.1').isGlobalUnicast()", Bool(true)),
        ("ip('255.255.255.255').isGlobalUnicast()", Bool(false)),
        ("ip.isCanonical('127.0.0.1')", Bool(true)),
        ("ip.isCanonical('2001:db8::abcd')", Bool(true)),
        ("ip.isCanonical('2001:DB8::ABCD')", Bool(false)),
        ("ip('127.0.0.1') == ip('127.0.0.1')", Bool(true)),
        ("string(ip('127.0.0.1'))", Str("127.0.0.1")),
        ("ip('1.2.3')", Err("")),
        ("isCIDR('192.168.0.0/16')", Bool(true)),
        ("isCIDR('192.168.0.0/33')", Bool(false)),
        (
            "cidr('192.168.0.0/24').containsIP(ip('192.168.0.1'))",
            Bool(true),
        ),
        (
            "cidr('192.168.0.0/24').containsIP('192.168.1.1')",
            Bool(false),
        ),
        (
            "cidr('192.168.0.0/24').containsCIDR(cidr('192.168.0.0/25'))",
            Bool(true),
        ),
        (
            "cidr('192.168.0.0/24').containsCIDR('192.168.0.0/23')",
            Bool(false),
        ),
        (
            "cidr('192.168.0.0/24').ip() == ip('192.168.0.0')",
            Bool(true),
        ),
        (
            "cidr('192.168.1.5/24').masked() == cidr('192.168.1.0/24')",
            Bool(true),
        ),
        ("cidr('192.168.0.0/16').prefixLength()", Int(16)),
        ("string(cidr('192.168.0.0/24'))", Str("192.168.0.0/24")),
    ]);
}

// upstream: godoc examples of k8s.io/apiserver/pkg/cel/library/urls.go
#[test]
fn urls() {
    use Want::*;
    run(&[
        (
            "isURL('https://example.com:80/path?query=val#fragment')",
            Bool(true),
        ),
        ("isURL('/absolute-path')", Bool(true)),
        ("isURL('https://a:b:c/')", Bool(false)),
        ("isURL('../relative-path')", Bool(false)),
        ("url('https://example.com:80/').getScheme()", Str("https")),
        (
            "url('https://example.com:80/').getHost()",
            Str("example.com:80"),
        ),
        (
            "url('https://example.com:80/').getHostname()",
            Str("example.com"),
        ),
        ("url('https://[::1]:80/').getHostname()", Str("::1")),
        ("url('https://example.com:80/').getPort()", Str("80")),
        ("url('https://example.com/').getPort()", Str("")),
        (
            "url('https://example.com/path with spaces/').getEscapedPath()",
            Str("/path%20with%20spaces/"),
        ),
        (
            "url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()['k2'][1]",
            Str("c"),
        ),
        ("url('https://example.com/path').getQuery().size()", Int(0)),
        ("url('../relative')", Err("")),
    ]);
}

// upstream: k8s.io/apiserver/pkg/cel/library/format_test.go TestFormat
#[test]
fn named_formats() {
    let cases: &[(&str, Option<&str>)] = &[
        (r#"format.dns1123Label().validate("my-label-name")"#, None),
        (
            r#"format.dns1123Subdomain().validate("apiextensions.k8s.io")"#,
            None,
        ),
        (
            r#"format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")"#,
            None,
        ),
        (
            r#"format.dns1123LabelPrefix().validate("my-label-prefix-")"#,
            None,
        ),
        (
            r#"format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")"#,
            None,
        ),
        (
            r#"format.dns1035LabelPrefix().validate("my-label-prefix-")"#,
            None,
        ),
        (r#"format.uri().validate("http://example.com")"#, None),
        (
            r#"format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")"#,
            None,
        ),
        (r#"format.byte().validate("aGVsbG8=")"#, None),
        (r#"format.date().validate("2021-01-01")"#, None),
        (
            r#"format.datetime().validate("2021-01-01T00:00:00Z")"#,
            None,
        ),
        (r#"format.dns1123Subdomain().validate("example.com")"#, None),
        (r#"format.dns1035Label().validate("my-label-name")"#, None),
        (r#"format.qualifiedName().validate("my.name")"#, None),
        (r#"format.date().validate("2020-01-01")"#, None),
        (
            r#"format.datetime().validate("2020-01-01T00:00:00Z")"#,
            None,
        ),
        (
            r#"format.labelValue().validate("my-cool-label-Value")"#,
            None,
        ),
        (
            r#"format.dns1123Label().validate("contains a space")"#,
            Some(
                r#"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"#,
            ),
        ),
        (
            r#"format.dns1123Subdomain().validate("contains a space")"#,
            Some(
                r#"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"#,
            ),
        ),
        (
            r#"format.dns1035Label().validate("contains a space")"#,
            Some(
                r#"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"#,
            ),
        ),
        (
            r#"format.qualifiedName().validate("contains a space")"#,
            Some(
                r#"name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"#,
            ),
        ),
        (
            r#"format.dns1123LabelPrefix().validate("contains a space-")"#,
            Some(
                r#"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"#,
            ),
        ),
        (
            r#"format.dns1123SubdomainPrefix().validate("contains a space-")"#,
            Some(
                r#"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"#,
            ),
        ),
        (
            r#"format.dns1035LabelPrefix().validate("contains a space-")"#,
            Some(
                r#"a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"#,
            ),
        ),
        (
            r#"format.byte().validate("aGVsbG8")"#,
            Some(r#"invalid base64"#),
        ),
        (
            r#"format.date().validate("2020-01-32")"#,
            Some(r#"invalid date"#),
        ),
        (
            r#"format.datetime().validate("2020-01-32T00:00:00Z")"#,
            Some(r#"invalid datetime"#),
        ),
        (
            r#"format.labelValue().validate("my-cool-label-Value!!\n\n!!!")"#,
            Some(
                r#"a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"#,
            ),
        ),
    ];
    let env = Env::admission();
    let mut failures = Vec::new();
    for (src, want) in cases {
        let p = env
            .compile(src, Expect::Any)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let v = p
            .eval(&Activation::new(), &mut Budget::kubernetes())
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let got = match &v {
            Value::Optional(None) => None,
            Value::Optional(Some(l)) => match &**l {
                Value::List(l) if l.len() == 1 => {
                    l.get(0).and_then(|m| m.as_str().map(str::to_string))
                }
                _ => Some(format!("unexpected {v}")),
            },
            other => Some(format!("unexpected {other}")),
        };
        if got.as_deref() != *want {
            failures.push(format!("{src}: got {got:?}, want {want:?}"));
        }
    }
    use Want::*;
    run(&[
        ("format.named(\"unknown\").hasValue()", Bool(false)),
        (
            "format.named(\"dns1123Label\").value() == format.dns1123Label()",
            Bool(true),
        ),
        ("format.named(\"uuid\").hasValue()", Bool(true)),
        (
            "format.dns1123Label() == format.dns1035Label()",
            Bool(false),
        ),
        ("format.noSuchFormat()", CompileErr("undeclared reference")),
    ]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// upstream: godoc examples of k8s.io/apiserver/pkg/cel/library/lists.go and regex.go,
// cel-go ext/sets.go and ext/lists.go
#[test]
fn lists_sets_regex() {
    use Want::*;
    run(&[
        ("[1, 2, 3].isSorted()", Bool(true)),
        ("['a', 'b', 'b', 'c'].isSorted()", Bool(true)),
        ("[2.0, 1.0].isSorted()", Bool(false)),
        ("[1, 2, 3].sum()", Int(6)),
        ("[1.0, 2.0, 3.0].sum()", Double(6.0)),
        ("[].sum()", Int(0)),
        ("[1, 2, 3].min()", Int(1)),
        ("[1, 2, 3].max()", Int(3)),
        ("[].min()", Err("min called on empty list")),
        ("[1, 2, 2, 3].indexOf(2)", Int(1)),
        ("['a', 'b', 'b', 'c'].lastIndexOf('b')", Int(2)),
        ("[1.0].indexOf(1.1)", Int(-1)),
        ("sets.contains([1, 2, 3, 4], [2, 3])", Bool(true)),
        ("sets.contains([1, 2, 3], [4])", Bool(false)),
        // kube-apiserver refuses a list literal of mixed types (its homogeneous-literal validation): mixed values come from
        // elsewhere, as `dyn` here
        (
            "sets.equivalent([1, 2, 3], [dyn(3u), dyn(2.0), dyn(1)])",
            Bool(true),
        ),
        ("sets.intersects([1], [1, 2])", Bool(true)),
        ("sets.intersects([1], [])", Bool(false)),
        ("lists.range(4) == [0, 1, 2, 3]", Bool(true)),
        ("[1, 2, 3, 4].slice(1, 3) == [2, 3]", Bool(true)),
        ("[[1, 2], [3]].flatten() == [1, 2, 3]", Bool(true)),
        ("[1, 2, 2, 1].distinct() == [1, 2]", Bool(true)),
        ("[3, 1, 2].sort() == [1, 2, 3]", Bool(true)),
        ("[1, 2].reverse() == [2, 1]", Bool(true)),
        ("[1, 2].first().value()", Int(1)),
        ("[].last().hasValue()", Bool(false)),
        ("'abc 123'.find('[0-9]+')", Str("123")),
        ("'abc 123'.find('xyz')", Str("")),
        (
            "'123 abc 456'.findAll('[0-9]+') == ['123', '456']",
            Bool(true),
        ),
        ("'123 abc 456'.findAll('[0-9]+', 1) == ['123']", Bool(true)),
        ("'123 abc 456'.findAll('xyz') == []", Bool(true)),
        (
            "'abc'.find('[')",
            CompileErr(
                "program instantiation failed: error parsing regexp: missing closing ]: `[`",
            ),
        ),
    ]);
}

// upstream: cel-go ext/strings_test.go, ext/encoders_test.go, ext/math_test.go (examples)
#[test]
fn cel_go_extensions() {
    use Want::*;
    run(&[
        ("'hello'.charAt(1)", Str("e")),
        ("'hello mellow'.indexOf('ello', 2)", Int(7)),
        ("'hello mellow'.lastIndexOf('ello')", Int(7)),
        ("'TacoCat'.lowerAscii()", Str("tacocat")),
        ("'hello hello'.replace('he', 'we', 1)", Str("wello hello")),
        ("'hello hello'.split(' ') == ['hello', 'hello']", Bool(true)),
        ("'tacocat'.substring(4)", Str("cat")),
        ("'  \\ttrim\\n    '.trim()", Str("trim")),
        ("['hello', 'mellow'].join(' ')", Str("hello mellow")),
        (
            "strings.quote('single-quote with \"double quote\"')",
            Str("\"single-quote with \\\"double quote\\\"\""),
        ),
        (
            "'%s is %d years and %.2f%% done'.format(['x', 3, 12.345])",
            Str("x is 3 years and 12.35% done"),
        ),
        ("optional.ofNonZeroValue('').hasValue()", Bool(false)),
        ("optional.of(1).orValue(2)", Int(1)),
        // kube-apiserver's base environment (environment/base.go) has the strings extension at version 2 (`reverse`
        // is version 3) and neither the math nor the encoders extension
        (
            "'gums'.reverse()",
            CompileErr(
                "ERROR: <input>:1:15: found no matching overload for 'reverse' applied to 'string.()'",
            ),
        ),
        ("[1, 2].reverse() == [2, 1]", Bool(true)),
        (
            "base64.encode(b'hello')",
            CompileErr("ERROR: <input>:1:1: undeclared reference to 'base64' (in container '')"),
        ),
        (
            "math.abs(-5)",
            CompileErr("ERROR: <input>:1:1: undeclared reference to 'math' (in container '')"),
        ),
        (
            "cel.bind(x, 1, x)",
            CompileErr("ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')"),
        ),
    ]);
    // the conformance suite's environment has them all
    run_in(
        &Env::standard(),
        &[
            ("'gums'.reverse()", Str("smug")),
            ("base64.encode(b'hello')", Str("aGVsbG8=")),
            ("string(base64.decode('aGVsbG8='))", Str("hello")),
            ("math.greatest(1, 2.5, 3u) == 3u", Bool(true)),
            ("math.least([3, -1, 2])", Int(-1)),
            ("math.abs(-5)", Int(5)),
            ("math.ceil(1.2)", Double(2.0)),
            ("math.bitShiftLeft(1, 3)", Int(8)),
            ("cel.bind(x, 1, x + x)", Int(2)),
        ],
    );
}

// upstream: cel-go ext/lists_test.go `TestLists` (the `sortBy` rows; `ExampleType` messages as maps) and
// `TestListsVersion` ("sortBy"); the errors of `sortListByAssociatedKeys` and `sortByMacro`
#[test]
fn lists_sort_by() {
    use Want::*;
    run(&[
        ("[].sortBy(e, e) == []", Bool(true)),
        ("['a'].sortBy(e, e) == ['a']", Bool(true)),
        (
            "[-3, 1, -5, -2, 4].sortBy(e, -(e * e)) == [-5, 4, -3, -2, 1]",
            Bool(true),
        ),
        (
            "[-3, 1, -5, -2, 4].map(e, e * 2).sortBy(e, -(e * e)) == [-10, 8, -6, -4, 2]",
            Bool(true),
        ),
        ("lists.range(3).sortBy(e, -e) == [2, 1, 0]", Bool(true)),
        (
            "['a', 'c', 'b', 'first'].sortBy(e, e == 'first' ? '' : e) == ['first', 'a', 'b', 'c']",
            Bool(true),
        ),
        (
            "[{'name': 'foo'}, {'name': 'bar'}, {'name': 'baz'}].sortBy(e, e.name) == [{'name': 'bar'}, {'name': 'baz'}, {'name': 'foo'}]",
            Bool(true),
        ),
        (
            "[{'field': 'lo'}, {'field': 'hi'}].sortBy(m, m.field) == [{'field': 'hi'}, {'field': 'lo'}]",
            Bool(true),
        ),
        // the list is evaluated once: the name it is bound to cannot be written
        (
            "[3, 1, 2].sortBy(e, e).sortBy(e, -e) == [3, 2, 1]",
            Bool(true),
        ),
        (
            "[dyn(1), dyn('a'), dyn(2)].sortBy(e, e)",
            Err("list elements must have the same type"),
        ),
        (
            "dyn([[1], [2]]).sortBy(e, e)",
            Err("list elements must be comparable"),
        ),
        // the first key is checked before anything is compared
        (
            "dyn([[1]]).sortBy(e, e)",
            Err("list elements must be comparable"),
        ),
        // elements of any types, keys of one
        (
            "[dyn(1), dyn('a')].sortBy(e, 0) == [dyn(1), dyn('a')]",
            Bool(true),
        ),
        (
            "[[1], [2]].sortBy(e, e)",
            CompileErr("no matching overload"),
        ),
        (
            "1.sortBy(e, e)",
            CompileErr(
                "<input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression",
            ),
        ),
        // 13 elements of equal keys after a greater one: Go's sort.Slice moves the sixth to the front (a stable sort
        // would not)
        (
            "[9, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12].sortBy(e, e == 9 ? 1 : 0) == [5, 0, 1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 9]",
            Bool(true),
        ),
    ]);
}

// upstream: Go src/regexp/syntax/doc.go (`\Q…\E` is literal text, a repeat count is at most
// 1000), src/regexp/all_test.go badRe, k8s.io/apiserver/pkg/cel/library/regex.go (`Illegal
// regex: ` at run time; a literal pattern of `find` fails when the program is built, reported as
// `program instantiation failed: …` by plugin/cel/compile.go, one of `matches` when the expression compiles, as
// `invalid matches argument` by cel-go's ValidateRegexLiterals) and cel-go String.Match
#[test]
fn regex_patterns_as_go() {
    use Want::*;
    run(&[
        ("'a.b'.matches('^\\\\Qa.b\\\\E$')", Bool(true)),
        ("'axb'.matches('^\\\\Qa.b\\\\E$')", Bool(false)),
        ("'x(a*)y'.find('\\\\Q(a*)\\\\E')", Str("(a*)")),
        ("matches('a.b', '^\\\\Qa.b\\\\E$')", Bool(true)),
        ("'a'.matches('a{1000}')", Bool(false)),
        // a literal pattern of `matches` is refused when the expression compiles (ValidateRegexLiterals)
        (
            "'a'.matches('a{1001}')",
            CompileErr("<input>:1:13: invalid matches argument"),
        ),
        (
            "'a'.find('a{2,1001}')",
            CompileErr(
                "program instantiation failed: error parsing regexp: invalid repeat count: `{2,1001}`",
            ),
        ),
        // a pattern that is not a literal fails when the call runs
        (
            "'a'.matches(['a{1001}'][0])",
            Err("error parsing regexp: invalid repeat count: `{1001}`"),
        ),
        (
            "'a'.find(['a{1001}'][0])",
            Err("Illegal regex: error parsing regexp: invalid repeat count: `{1001}`"),
        ),
        (
            "'a'.findAll(['(a'][0])",
            Err("Illegal regex: error parsing regexp: missing closing ): `(a`"),
        ),
        ("'baaab'.findAll('a*') == ['', 'aaa', '']", Bool(true)),
        ("'a1b2'.findAll('[0-9]', 1) == ['1']", Bool(true)),
    ]);
}
