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
    let env = Env::admission();
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

// upstream: godoc examples of k8s.io/apiserver/pkg/cel/library/semverlib.go
#[test]
fn semver() {
    use Want::*;
    run(&[
        ("semver('1.0.0') == semver('1.0.0')", Bool(true)),
        ("isSemver('1.0.0')", Bool(true)),
        ("isSemver('hello')", Bool(false)),
        ("isSemver('v1.0', true)", Bool(true)),
        ("semver('v1.0', true) == semver('1.0.0')", Bool(true)),
        ("semver('1.2.3').major()", Int(1)),
        ("semver('1.2.3').minor()", Int(2)),
        ("semver('1.2.3').patch()", Int(3)),
        ("semver('1.0.0').isLessThan(semver('1.1.0'))", Bool(true)),
        ("semver('1.1.0').isGreaterThan(semver('1.0.0'))", Bool(true)),
        ("semver('1.0.0').compareTo(semver('1.1.0'))", Int(-1)),
        ("semver('1.0.0').compareTo(semver('1.0.0'))", Int(0)),
        (
            "semver('1.2.0-alpha').isLessThan(semver('1.2.0'))",
            Bool(true),
        ),
        ("semver('hello')", Err("")),
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

// upstream: k8s.io/apiserver/pkg/cel/library/format_test.go (examples)
#[test]
fn named_formats() {
    use Want::*;
    run(&[
        (
            "format.dns1123Label().validate('my-name').hasValue()",
            Bool(false),
        ),
        (
            "format.dns1123Label().validate('My_Name').hasValue()",
            Bool(true),
        ),
        (
            "format.named('dns1123Subdomain').value().validate('a.b.c').hasValue()",
            Bool(false),
        ),
        ("format.named('unknownFormat').hasValue()", Bool(false)),
        (
            "format.labelValue().validate('ok-value').hasValue()",
            Bool(false),
        ),
        ("format.noSuchFormat()", CompileErr("undeclared reference")),
        (
            "format.uuid().validate('not-a-uuid').hasValue()",
            Bool(true),
        ),
        (
            "format.qualifiedName().validate('example.com/name').hasValue()",
            Bool(false),
        ),
        (
            "format.dns1123Label().validate('-bad').value()[0].startsWith('a lowercase RFC 1123 label must consist of')",
            Bool(true),
        ),
    ]);
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
        ("sets.equivalent([1, 2, 3], [3u, 2.0, 1])", Bool(true)),
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
        ("'abc'.find('[')", CompileErr("invalid regex")),
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
        ("'gums'.reverse()", Str("smug")),
        ("base64.encode(b'hello')", Str("aGVsbG8=")),
        ("string(base64.decode('aGVsbG8='))", Str("hello")),
        ("math.greatest(1, 2.5, 3u) == 3u", Bool(true)),
        ("math.least([3, -1, 2])", Int(-1)),
        ("math.abs(-5)", Int(5)),
        ("math.ceil(1.2)", Double(2.0)),
        ("math.bitShiftLeft(1, 3)", Int(8)),
        ("optional.ofNonZeroValue('').hasValue()", Bool(false)),
        ("optional.of(1).orValue(2)", Int(1)),
    ]);
}
