use super::*;

// upstream: k8s.io/apimachinery/pkg/util/validation/validation_test.go TestIsDNS1123Label
#[test]
fn dns1123_label() {
    let long63 = "a".repeat(63);
    let good = [
        "a",
        "ab",
        "abc",
        "a1",
        "a-1",
        "a--1--2--b",
        "0",
        "01",
        "012",
        "1a",
        "1-a",
        "1--a--b--2",
        &long63,
    ];
    for v in good {
        assert!(is_dns1123_label(v).is_empty(), "{v}");
    }
    let long64 = "a".repeat(64);
    let bad = [
        "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a",
        "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a",
        "a b", "1 ", " 1", "1 2", &long64,
    ];
    for v in bad {
        assert!(!is_dns1123_label(v).is_empty(), "{v}");
    }
    assert_eq!(
        is_dns1123_label("a.b"),
        vec!["must not contain dots".to_string()]
    );
    assert_eq!(
        is_dns1123_label(&long64),
        vec!["must be no more than 63 characters".to_string()]
    );
}

// upstream: k8s.io/apimachinery/pkg/util/validation/validation_test.go TestIsDNS1123Subdomain
#[test]
fn dns1123_subdomain() {
    let long = "a".repeat(253);
    let good = [
        "a",
        "ab",
        "abc",
        "a1",
        "a-1",
        "a--1--2--b",
        "0",
        "01",
        "012",
        "1a",
        "1-a",
        "1--a--b--2",
        "a.a",
        "ab.a",
        "abc.a",
        "a1.a",
        "a-1.a",
        "a--1--2--b.a",
        "a.1",
        "ab.1",
        "abc.1",
        "a1.1",
        "a-1.1",
        "a--1--2--b.1",
        "0.a",
        "01.a",
        "012.a",
        "1a.a",
        "1-a.a",
        "1--a--b--2",
        "0.1",
        "01.1",
        "012.1",
        "1a.1",
        "1-a.1",
        "1--a--b--2.1",
        "a.b.c.d.e",
        "aa.bb.cc.dd.ee",
        "1.2.3.4.5",
        "11.22.33.44.55",
        &long,
    ];
    for v in good {
        assert!(is_dns1123_subdomain(v).is_empty(), "{v}");
    }
    let too_long = "a".repeat(254);
    let bad = [
        "",
        "A",
        "ABC",
        "aBc",
        "A1",
        "A-1",
        "1-A",
        "-",
        "a-",
        "-a",
        "1-",
        "-1",
        "_",
        "a_",
        "_a",
        "a_b",
        "1_",
        "_1",
        "1_2",
        ".",
        "a.",
        ".a",
        "a..b",
        "1.",
        ".1",
        "1..2",
        " ",
        "a ",
        " a",
        "a b",
        "1 ",
        " 1",
        "1 2",
        "A.a",
        "aB.a",
        "ab.A",
        "A1.a",
        "a1.A",
        "A.1",
        "aB.1",
        "A1.1",
        "1A.1",
        "0.A",
        "01.A",
        "012.A",
        "1A.a",
        "1a.A",
        "A.B.C.D.E",
        "AA.BB.CC.DD.EE",
        "a.B.c.d.e",
        "aa.bB.cc.dd.ee",
        "a@b",
        "a,b",
        "a_b",
        "a;b",
        "a:b",
        "a%b",
        "a?b",
        "a$b",
        &too_long,
    ];
    for v in bad {
        assert!(!is_dns1123_subdomain(v).is_empty(), "{v}");
    }
}

// upstream: k8s.io/apimachinery/pkg/util/validation/validation_test.go TestIsDNS1035Label
#[test]
fn dns1035_label() {
    let long63 = "a".repeat(63);
    for v in ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", &long63] {
        assert!(is_dns1035_label(v).is_empty(), "{v}");
    }
    let long64 = "a".repeat(64);
    let bad = [
        "0",
        "01",
        "012",
        "1a",
        "1-a",
        "1--a--b--2",
        "",
        "A",
        "ABC",
        "aBc",
        "A1",
        "A-1",
        "1-A",
        "-",
        "a-",
        "-a",
        "1-",
        "-1",
        "_",
        "a_",
        "_a",
        "a_b",
        "1_",
        "_1",
        "1_2",
        ".",
        "a.",
        ".a",
        "a.b",
        "1.",
        ".1",
        "1.2",
        " ",
        "a ",
        " a",
        "a b",
        "1 ",
        " 1",
        "1 2",
        &long64,
    ];
    for v in bad {
        assert!(!is_dns1035_label(v).is_empty(), "{v}");
    }
}

// upstream: k8s.io/apimachinery/pkg/util/validation/validation_test.go TestIsQualifiedName
#[test]
fn qualified_name() {
    let long63 = "a".repeat(63);
    let long_prefixed = format!("{}/{}", "a".repeat(253), "b".repeat(63));
    let good = [
        "simple",
        "now-with-dashes",
        "1-starts-with-num",
        "1234",
        "simple/simple",
        "now-with-dashes/simple",
        "now-with-dashes/now-with-dashes",
        "now.with.dots/simple",
        "now-with.dashes-and.dots/simple",
        "1-num.2-num/3-num",
        "1234/5678",
        "1.2.3.4/5678",
        "Uppercase_Is_OK_123",
        "example.com/Uppercase_Is_OK_123",
        "requests.storage-foo",
        &long63,
        &long_prefixed,
    ];
    for v in good {
        assert!(
            is_qualified_name(v).is_empty(),
            "{v}: {:?}",
            is_qualified_name(v)
        );
    }
    let long64 = "a".repeat(64);
    let long_prefix = format!("{}/abc", "a".repeat(254));
    let bad = [
        "nospecialchars%^=@",
        "cantendwithadash-",
        "-cantstartwithadash-",
        "only/one/slash",
        "Example.com/abc",
        "example_com/abc",
        "example.com/",
        "/simple",
        &long64,
        &long_prefix,
    ];
    for v in bad {
        assert!(!is_qualified_name(v).is_empty(), "{v}");
    }
    assert_eq!(
        is_qualified_name("/simple"),
        vec!["prefix part must be non-empty".to_string()]
    );
    assert_eq!(
        is_qualified_name(&long64),
        vec!["name part must be no more than 63 bytes".to_string()]
    );
}

// upstream: k8s.io/apimachinery/pkg/util/validation/validation_test.go TestIsValidLabelValue
#[test]
fn label_value() {
    let long63 = "a".repeat(63);
    for v in [
        "simple",
        "now-with-dashes",
        "1-starts-with-num",
        "end-with-num-1",
        "1234",
        &long63,
        "",
    ] {
        assert!(is_valid_label_value(v).is_empty(), "{v}");
    }
    let long64 = "a".repeat(64);
    let bad = [
        "nospecialchars%^=@",
        "Tama-nui-te-rā.is.Māori.sun",
        "\\backslashes\\are\\bad",
        "-starts-with-dash",
        "ends-with-dash-",
        ".starts.with.dot",
        "ends.with.dot.",
        &long64,
    ];
    for v in bad {
        assert!(!is_valid_label_value(v).is_empty(), "{v}");
    }
    assert_eq!(
        is_valid_label_value(&long64),
        vec!["must be no more than 63 bytes".to_string()]
    );
}

// upstream: k8s.io/apimachinery/pkg/util/validation/validation.go and
// pkg/api/validate/content/{dns,kube,errors}.go — the exact messages (the upstream tests above
// only check that a list is empty or not).
#[test]
fn messages_are_upstreams() {
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let key = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    // util/validation counts the subdomain's length in "characters"
    let long = format!("{}A", "a".repeat(253));
    assert_eq!(
        is_dns1123_subdomain(&long),
        vec![
            "must be no more than 253 characters".to_owned(),
            subdomain.to_owned()
        ]
    );
    // content (label keys) in "bytes", prefixed
    let long_prefix = format!("{}/abc", "a".repeat(254));
    assert_eq!(
        is_qualified_name(&long_prefix),
        vec!["prefix part must be no more than 253 bytes".to_owned()]
    );
    assert_eq!(
        is_qualified_name("Example.com/abc"),
        vec![format!("prefix part {subdomain}")]
    );
    // an empty name part is reported twice: empty, and not matching the regex
    assert_eq!(
        is_qualified_name("example.com/"),
        vec![
            "name part must be non-empty".to_owned(),
            format!("name part {key}")
        ]
    );
    assert_eq!(
        is_qualified_name(""),
        vec![
            "name part must be non-empty".to_owned(),
            format!("name part {key}")
        ]
    );
    assert_eq!(
        is_qualified_name("only/one/slash"),
        vec![format!(
            "a valid label key {key} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        )]
    );
    assert_eq!(
        is_qualified_name("cantendwithadash-"),
        vec![format!("name part {key}")]
    );
    assert_eq!(
        is_dns1035_label("1a"),
        vec!["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')".to_owned()]
    );
    assert_eq!(
        is_valid_label_value("-x"),
        vec!["a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_owned()]
    );
}

// upstream: k8s.io/apimachinery/pkg/util/validation/validation.go RegexError (as the messages
// above use it)
#[test]
fn regex_errors() {
    assert_eq!(
        regex_error("abc", "a.c", &[]),
        "abc (regex used for validation is 'a.c')"
    );
    assert_eq!(
        regex_error("abc", "a.c", &["axc"]),
        "abc (e.g. 'axc', regex used for validation is 'a.c')"
    );
    assert_eq!(
        regex_error("abc", "a.c", &["axc", "ayc"]),
        "abc (e.g. 'axc',  or 'ayc', regex used for validation is 'a.c')"
    );
}

// upstream: k8s.io/apimachinery/pkg/api/validation/generic_test.go TestMaskTrailingDash
#[test]
fn mask_trailing_dash_cases() {
    for (before, after) in [
        ("", ""),
        ("-", "-"),
        ("-foo", "-foo"),
        ("-foo-", "-foa"),
        ("b-", "a"),
        ("ab", "ab"),
    ] {
        assert_eq!(mask_trailing_dash(before), after, "{before:?}");
    }
}

// upstream: k8s.io/apimachinery/pkg/api/validation/generic.go NameIsDNSSubdomain (a generateName
// prefix may end with a dash)
#[test]
fn generate_name_prefixes() {
    assert!(name_is_dns_subdomain("abc-", true).is_empty());
    assert!(!name_is_dns_subdomain("abc-", false).is_empty());
    assert!(!name_is_dns_subdomain("ABC-", true).is_empty());
}
