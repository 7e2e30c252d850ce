use super::*;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

// upstream: k8s.io/apiserver/pkg/cel/library/urls.go (the documented examples of url, isURL
// and the getters)
#[test]
fn cel_library_examples() {
    assert!(is_url(
        "https://user:pass@example.com:80/path?query=val#fragment"
    ));
    assert!(is_url("/absolute-path"));
    assert!(!is_url("https://a:b:c/"));
    assert!(!is_url("../relative-path"));
    assert_eq!(
        Url::parse("https://a:b:c/").unwrap_err().to_string(),
        "URL parse error during conversion from string: parse \"https://a:b:c/\": invalid port \":b:c\" after host"
    );
    assert_eq!(
        Url::parse("../relative-path").unwrap_err().to_string(),
        "URL parse error during conversion from string: parse \"../relative-path\": invalid URI for request"
    );
    assert_eq!(url("/path").scheme(), "");
    assert_eq!(url("https://example.com/").scheme(), "https");
    assert_eq!(url("https://example.com:80/").host(), "example.com:80");
    assert_eq!(url("https://example.com/").host(), "example.com");
    assert_eq!(url("https://[::1]:80/").host(), "[::1]:80");
    assert_eq!(url("https://[::1]/").host(), "[::1]");
    assert_eq!(url("/path").host(), "");
    assert_eq!(url("https://example.com:80/").hostname(), "example.com");
    assert_eq!(url("https://127.0.0.1:80/").hostname(), "127.0.0.1");
    assert_eq!(url("https://[::1]:80/").hostname(), "::1");
    assert_eq!(url("/path").hostname(), "");
    assert_eq!(url("https://example.com:80/").port(), "80");
    assert_eq!(url("https://example.com/").port(), "");
    assert_eq!(url("/path").port(), "");
    assert_eq!(url("https://example.com/path").escaped_path(), "/path");
    assert_eq!(
        url("https://example.com/path with spaces/").escaped_path(),
        "/path%20with%20spaces/"
    );
    assert_eq!(url("https://example.com").escaped_path(), "");
    let q = url("https://example.com/path?k1=a&k2=b&k2=c").query();
    assert_eq!(q.get("k1"), Some(&vec!["a".to_string()]));
    assert_eq!(q.get("k2"), Some(&vec!["b".to_string(), "c".to_string()]));
    assert_eq!(q.len(), 2);
    let q = url("https://example.com/path?key with spaces=value with spaces").query();
    assert_eq!(
        q.get("key with spaces"),
        Some(&vec!["value with spaces".to_string()])
    );
    assert!(url("https://example.com/path?").query().is_empty());
    assert!(url("https://example.com/path").query().is_empty());
    let full = url("https://user:pass@example.com:80/path?query=val#fragment");
    assert_eq!(
        full.to_string(),
        "https://user:pass@example.com:80/path?query=val#fragment"
    );
}

// upstream: k8s.io/apiserver/pkg/cel/library/cost_test.go, pkg/admission/plugin/cel/compile_test.go
#[test]
fn kubernetes_test_expressions() {
    // `https:://kubernetes.io/` parses: the host is empty and the rest is a path
    let u = url("https:://kubernetes.io/");
    assert_eq!(u.hostname(), "");
    assert!(u != url("http://x.b"));
    assert!(url("http://x.b") == url("http://x.b"));
}

// upstream: Go src/net/url/url_test.go parseRequestURLTests (Go 1.26, which Kubernetes builds with)
#[test]
fn go_parse_request_uri() {
    let table = [
        ("http://foo.com", true),
        ("http://foo.com/", true),
        ("http://foo.com/path", true),
        ("/", true),
        ("//not.a.user@not.a.host/just/a/path", true),
        ("//not.a.user@%66%6f%6f.com/just/a/path/also", true),
        ("*", true),
        ("http://192.168.0.1/", true),
        ("http://192.168.0.1:8080/", true),
        ("http://[fe80::1]/", true),
        ("http://[fe80::1]:8080/", true),
        ("http://[fe80::1%25en0]/", true),
        ("http://[fe80::1%25en0]:8080/", true),
        ("http://[fe80::1%25%65%6e%301-._~]/", true),
        ("http://[fe80::1%25%65%6e%301-._~]:8080/", true),
        ("foo.html", false),
        ("../dir/", false),
        (" http://foo.com", false),
        ("http://192.168.0.%31/", false),
        ("http://192.168.0.%31:8080/", false),
        ("http://[fe80::%31]/", false),
        ("http://[fe80::%31]:8080/", false),
        ("http://[fe80::%31%25en0]/", false),
        ("http://[fe80::%31%25en0]:8080/", false),
        ("http://[fe80::1%en0]/", false),
        ("http://[fe80::1%en0]:8080/", false),
        ("https://[1:2:3:4:5:6:7:8]", true),
        ("https://[2001:db8::a:b:c:d]", true),
        ("https://[fe80::1%25eth0]", true),
        ("https://[fe80::abc:def%254]", true),
        ("https://[2001:db8::1]/path", true),
        ("https://[fe80::1%25eth0]/path?query=1", true),
        ("https://[::ffff:192.0.2.1]", true),
        ("https://[:1] ", false),
        ("https://[1:2:3:4:5:6:7:8:9]", false),
        ("https://[1::1::1]", false),
        ("https://[1:2:3:]", false),
        ("https://[ffff::127.0.0.4000]", false),
        ("https://[0:0::test.com]:80", false),
        ("https://[2001:db8::test.com]", false),
        ("https://[test.com]", false),
        ("https://1:2:3:4:5:6:7:8", false),
        ("https://1:2:3:4:5:6:7:8:80", false),
        ("https://example.com:80:", false),
    ];
    for (input, valid) in table {
        assert_eq!(parse_request_uri(input).is_ok(), valid, "{input}");
    }
    let path = "//not.a.user@not.a.host/just/a/path";
    let u = parse_inner(path, true).unwrap();
    assert_eq!(u.path, path.as_bytes());
    assert!(u.host.is_empty());
}

// upstream: Go src/net/url/url_test.go urltests (Parse, then String round trip)
#[test]
fn go_parse_and_string() {
    // (input, round trip or "" when it is the input)
    let table = [
        ("http://www.google.com", ""),
        ("http://www.google.com/", ""),
        ("http://www.google.com/file%20one%26two", ""),
        ("http://www.google.com/#file%20one%26two", ""),
        ("ftp://webmaster@www.google.com/", ""),
        ("ftp://john%20doe@www.google.com/", ""),
        ("http://www.google.com/?", ""),
        ("http://www.google.com/?foo=bar?", ""),
        ("http://www.google.com/?q=go+language", ""),
        ("http://www.google.com/?q=go%20language", ""),
        ("http://www.google.com/a%20b?q=c+d", ""),
        ("http:www.google.com/?q=go+language", ""),
        ("http:%2f%2fwww.google.com/?q=go+language", ""),
        ("mailto:/webmaster@golang.org", ""),
        ("mailto:webmaster@golang.org", ""),
        ("/foo?query=http://bad", ""),
        ("//foo", ""),
        ("//user@foo/path?a=b", ""),
        ("///threeslashes", ""),
        ("http://user:password@google.com", ""),
        (
            "http://j@ne:password@google.com",
            "http://j%40ne:password@google.com",
        ),
        (
            "http://jane:p@ssword@google.com",
            "http://jane:p%40ssword@google.com",
        ),
        (
            "http://j@ne:password@google.com/p@th?q=@go",
            "http://j%40ne:password@google.com/p@th?q=@go",
        ),
        ("http://www.google.com/?q=go+language#foo", ""),
        ("http://www.google.com/?q=go+language#foo&bar", ""),
        ("http://www.google.com/?q=go+language#foo%26bar", ""),
        ("file:///home/adg/rabbits", ""),
        ("file:///C:/FooBar/Baz.txt", ""),
        ("MaIlTo:webmaster@golang.org", "mailto:webmaster@golang.org"),
        ("a/b/c", ""),
        ("http://%3Fam:pa%3Fsword@google.com", ""),
        ("http://192.168.0.1/", ""),
        ("http://192.168.0.1:8080/", ""),
        ("http://[fe80::1]/", ""),
        ("http://[fe80::1]:8080/", ""),
        ("http://[fe80::1%25en0]/", ""),
        ("http://[fe80::1%25en0]:8080/", ""),
        (
            "http://[fe80::1%25%65%6e%301-._~]/",
            "http://[fe80::1%25en01-._~]/",
        ),
        (
            "http://[fe80::1%25%65%6e%301-._~]:8080/",
            "http://[fe80::1%25en01-._~]:8080/",
        ),
        ("http://rest.rsc.io:8080/", ""),
        (
            "http://hello.世界.com/foo",
            "http://hello.%E4%B8%96%E7%95%8C.com/foo",
        ),
        (
            "http://hello.%e4%b8%96%e7%95%8c.com/foo",
            "http://hello.%E4%B8%96%E7%95%8C.com/foo",
        ),
        ("http://hello.%E4%B8%96%E7%95%8C.com/foo", ""),
        ("http://example.com/oid/[order_id]", ""),
        ("http://192.168.0.2:8080/foo", ""),
        ("http://192.168.0.2:/foo", ""),
        (
            "http://[2b01:e34:ef40:7730:8e70:5aff:fefe:edac]:8080/foo",
            "",
        ),
        ("http://host/!$&'()*+,;=:@[hello]", ""),
        ("mysql://a,b,c/bar", ""),
        ("scheme://!$&'()*+,;=hello!:1/path", ""),
        (
            "magnet:?xt=urn:btih:c12fe1c06bba254a9dc9f519b335aa7c1367a88a&dn",
            "",
        ),
        ("mailto:?subject=hi", ""),
    ];
    for (input, roundtrip) in table {
        let u = go_parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        let want = if roundtrip.is_empty() {
            input
        } else {
            roundtrip
        };
        assert_eq!(u.to_string(), want, "{input}");
    }
    let u = go_parse("http://www.google.com/file%20one%26two").unwrap();
    assert_eq!(u.path, b"/file one&two");
    assert_eq!(u.escaped_path(), "/file%20one%26two");
    let u = go_parse("http://hello.%e4%b8%96%e7%95%8c.com/foo").unwrap();
    assert_eq!(u.host(), "hello.世界.com");
    let u = go_parse("scheme://!$&'()*+,;=hello!:1/path").unwrap();
    assert_eq!(u.hostname(), "!$&'()*+,;=hello!");
    assert_eq!(u.port(), "1");
    let u = go_parse("http://[fe80::1%25en0]:8080/").unwrap();
    assert_eq!(u.host(), "[fe80::1%en0]:8080");
    assert_eq!(u.hostname(), "fe80::1%en0");
}

// upstream: Go src/net/url/url_test.go unescapeTests (QueryUnescape)
#[test]
fn go_unescape() {
    let table: [(&str, Result<&str, &str>); 13] = [
        ("", Ok("")),
        ("abc", Ok("abc")),
        ("1%41", Ok("1A")),
        ("1%41%42%43", Ok("1ABC")),
        ("%4a", Ok("J")),
        ("%6F", Ok("o")),
        ("%", Err("%")),
        ("%a", Err("%a")),
        ("%1", Err("%1")),
        ("123%45%6", Err("%6")),
        ("%zzzzz", Err("%zz")),
        ("a+b", Ok("a b")),
        ("a%20b", Ok("a b")),
    ];
    for (input, want) in table {
        let got = unescape(input.as_bytes(), Mode::QueryComponent);
        match want {
            Ok(s) => assert_eq!(got, Ok(s.as_bytes().to_vec()), "{input}"),
            Err(e) => assert_eq!(
                got,
                Err(format!("invalid URL escape {}", quote(e))),
                "{input}"
            ),
        }
    }
}

// upstream: Go src/net/url/url_test.go queryEscapeTests, pathEscapeTests
#[test]
fn go_escape() {
    let special = " ?&=#+%!<>#\"{}|\\^[]`☺\t:/@$'()*,;";
    assert_eq!(
        escape(special.as_bytes(), Mode::QueryComponent),
        "+%3F%26%3D%23%2B%25%21%3C%3E%23%22%7B%7D%7C%5C%5E%5B%5D%60%E2%98%BA%09%3A%2F%40%24%27%28%29%2A%2C%3B"
    );
    assert_eq!(escape(b"one two", Mode::QueryComponent), "one+two");
    assert_eq!(escape(b"10%", Mode::QueryComponent), "10%25");
}

// upstream: Go src/net/url/url.go error wording (parseHost, unescape, getScheme)
#[test]
fn go_errors() {
    let table = [
        (
            "http://192.168.0.%31/",
            "parse \"http://192.168.0.%31/\": invalid URL escape \"%31\"",
        ),
        ("http://[::1", "parse \"http://[::1\": missing ']' in host"),
        (
            "http://a b.com/",
            "parse \"http://a b.com/\": invalid character \" \" in host name",
        ),
        (":foo", "parse \":foo\": missing protocol scheme"),
        (
            "http://x\n/",
            "parse \"http://x\\n/\": net/url: invalid control character in URL",
        ),
        ("", "parse \"\": empty url"),
        (
            "http://a^b@host/",
            "parse \"http://a^b@host/\": net/url: invalid userinfo",
        ),
        (
            "https://[1.2.3.4]/",
            "parse \"https://[1.2.3.4]/\": invalid IP-literal",
        ),
        (
            "https://[v1.x]/",
            "parse \"https://[v1.x]/\": invalid host: ParseAddr(\"v1.x\"): unexpected character (at \"v1.x\")",
        ),
        (
            "http://a[::1]/",
            "parse \"http://a[::1]/\": invalid IP-literal",
        ),
        (
            "https://a:b:c/",
            "parse \"https://a:b:c/\": invalid port \":b:c\" after host",
        ),
    ];
    for (input, msg) in table {
        assert_eq!(parse_request_uri(input).unwrap_err(), msg, "{input}");
    }
}

// upstream: Go src/net/url/url_test.go urltests (Parse, then String) through the public
// `Url::go_parse`, including references `ParseRequestURI` refuses, as crypto/x509 parses URI SANs
#[test]
fn public_go_parse() {
    for (input, want) in [
        ("HTTPS://Example.COM/a", "https://Example.COM/a"),
        ("http://a/b c", "http://a/b%20c"),
        ("http://h/x#a b", "http://h/x#a%20b"),
        ("foo.bar.com", "foo.bar.com"),
        ("urn:uuid:1234", "urn:uuid:1234"),
        ("//h/p", "//h/p"),
        ("*", "*"),
    ] {
        let u = Url::go_parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(u.to_string(), want, "{input}");
    }
    assert!(Url::parse("foo.bar.com").is_err());
    assert_eq!(Url::go_parse("http://u:p@h:8/x").unwrap().host(), "h:8");
    assert_eq!(
        Url::go_parse("1a:b").unwrap_err().to_string(),
        r#"parse "1a:b": first path segment in URL cannot contain colon"#
    );
    assert_eq!(
        Url::go_parse("http://h/%zz").unwrap_err().to_string(),
        r#"parse "http://h/%zz": invalid URL escape "%zz""#
    );
}
