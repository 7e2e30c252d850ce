//! The Go renderings approver-policy messages contain: `time.Duration` (`48h0m0s`),
//! `strconv.Quote`, `net/url` re-serialisation, `net.IP.String()`. Expected values are what
//! Go prints (Go's time, strconv, net/url and net tests are the reference).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    reason = "test code: a failed expectation is a test failure"
)]

use palisade_certificates::internals::{go_duration_roundtrip as dur, go_ip, go_quote, go_url};

#[test]
fn durations() {
    for (input, want) in [
        ("1h", "1h0m0s"),
        ("48h", "48h0m0s"),
        ("24h", "24h0m0s"),
        ("1m", "1m0s"),
        ("90s", "1m30s"),
        ("1.5h", "1h30m0s"),
        ("2h45m", "2h45m0s"),
        ("100ms", "100ms"),
        ("1.5s", "1.5s"),
        ("1us", "1\u{b5}s"),
        ("1\u{b5}s", "1\u{b5}s"),
        ("1\u{3bc}s", "1\u{b5}s"),
        ("1ns", "1ns"),
        ("1100ns", "1.1\u{b5}s"),
        ("0", "0s"),
        ("0s", "0s"),
        ("-2m", "-2m0s"),
        ("+5m", "5m0s"),
        ("1.s", "1s"),
        (".5s", "500ms"),
        ("1.0000000001s", "1s"),
        ("2562047h47m16.854775807s", "2562047h47m16.854775807s"),
        ("-2562047h47m16.854775808s", "-2562047h47m16.854775808s"),
    ] {
        assert_eq!(dur(input).as_deref(), Ok(want), "{input}");
    }
    for (input, err) in [
        ("", r#"time: invalid duration """#),
        ("1", r#"time: missing unit in duration "1""#),
        ("1x", r#"time: unknown unit "x" in duration "1x""#),
        (".s", r#"time: invalid duration ".s""#),
        ("-", r#"time: invalid duration "-""#),
        (
            "2562047h47m16.854775808s",
            r#"time: invalid duration "2562047h47m16.854775808s""#,
        ),
        (
            "9223372036854775808ns",
            r#"time: invalid duration "9223372036854775808ns""#,
        ),
        ("1h 2m", r#"time: unknown unit "h " in duration "1h 2m""#),
    ] {
        assert_eq!(dur(input), Err(err.to_owned()), "{input}");
    }
}

#[test]
fn quoting() {
    for (input, want) in [
        ("abc", r#""abc""#),
        ("a\"b\\c", r#""a\"b\\c""#),
        ("a\tb\n", r#""a\tb\n""#),
        ("\u{7}\u{8}\u{c}\r\u{b}", r#""\a\b\f\r\v""#),
        ("\u{0}\u{1f}\u{7f}", r#""\x00\x1f\x7f""#),
        ("é日本", "\"é日本\""),
        ("\u{a0}", r#""\u00a0""#),
        ("\u{200b}", r#""\u200b""#),
        ("\u{feff}", r#""\ufeff""#),
        ("\u{e000}", r#""\ue000""#),
        ("\u{10fffd}", r#""\U0010fffd""#),
        ("\u{1f600}", "\"\u{1f600}\""),
    ] {
        assert_eq!(go_quote(input), want, "{input:?}");
    }
}

#[test]
fn urls() {
    for (input, want) in [
        (
            "spiffe://cluster.local/ns/foo/sa/bar",
            "spiffe://cluster.local/ns/foo/sa/bar",
        ),
        ("foo.bar.com", "foo.bar.com"),
        ("HTTPS://Example.COM/a", "https://Example.COM/a"),
        ("http://a/b c", "http://a/b%20c"),
        ("http://a/b\"c", "http://a/b%22c"),
        ("http://h/%41", "http://h/%41"),
        ("mailto:x@y", "mailto:x@y"),
        ("urn:uuid:1234", "urn:uuid:1234"),
        ("http://[::1]:80/x", "http://[::1]:80/x"),
        ("http://u:p@h/x", "http://u:p@h/x"),
        ("http://h/x?q=1&r= 2#f", "http://h/x?q=1&r= 2#f"),
        ("http://h/x#a b", "http://h/x#a%20b"),
        ("foo://", "foo:"),
        ("http:///x", "http:///x"),
        ("http:/x", "http:/x"),
        ("//h/p", "//h/p"),
        ("/just/a/path", "/just/a/path"),
        ("*", "*"),
        ("http://h/x?", "http://h/x?"),
    ] {
        assert_eq!(go_url(input).as_deref(), Ok(want), "{input}");
    }
    for (input, err) in [
        (
            "1a:b",
            r#"parse "1a:b": first path segment in URL cannot contain colon"#,
        ),
        (":x", r#"parse ":x": missing protocol scheme"#),
        (
            "http://a:b/x",
            r#"parse "http://a:b/x": invalid port ":b" after host"#,
        ),
        (
            "http://h/%zz",
            r#"parse "http://h/%zz": invalid URL escape "%zz""#,
        ),
        (
            "http://h/%",
            r#"parse "http://h/%": invalid URL escape "%""#,
        ),
        (
            "http://h\u{1}/",
            "parse \"http://h\\x01/\": net/url: invalid control character in URL",
        ),
        (
            "http://[::1/",
            r#"parse "http://[::1/": missing ']' in host"#,
        ),
        (
            "http://a b/",
            r#"parse "http://a b/": invalid character " " in host name"#,
        ),
    ] {
        assert_eq!(go_url(input), Err(err.to_owned()), "{input}");
    }
}

#[test]
fn ips() {
    assert_eq!(go_ip(&[10, 0, 0, 1]).as_deref(), Some("10.0.0.1"));
    let mut mapped = vec![0u8; 10];
    mapped.extend([0xff, 0xff, 192, 168, 1, 2]);
    assert_eq!(go_ip(&mapped).as_deref(), Some("192.168.1.2"));
    assert_eq!(go_ip(&[0; 16]).as_deref(), Some("::"));
    let mut one = [0u8; 16];
    one[15] = 1;
    assert_eq!(go_ip(&one).as_deref(), Some("::1"));
    let a: std::net::Ipv6Addr = "2001:db8:0:0:1:0:0:1".parse().unwrap();
    assert_eq!(go_ip(&a.octets()).as_deref(), Some("2001:db8::1:0:0:1"));
    let b: std::net::Ipv6Addr = "1:0:2:0:3:0:4:0".parse().unwrap();
    assert_eq!(go_ip(&b.octets()).as_deref(), Some("1:0:2:0:3:0:4:0"));
    let c: std::net::Ipv6Addr = "::1.2.3.4".parse().unwrap();
    assert_eq!(go_ip(&c.octets()).as_deref(), Some("::102:304"));
    assert_eq!(go_ip(&[1, 2, 3]), None);
}
