use super::*;

fn named(name: &str) -> Format {
    Format::named(name).unwrap_or_else(|| panic!("no format {name}"))
}

// upstream: k8s.io/apiserver/pkg/cel/library/format_test.go TestFormat
#[test]
fn cel_library_cases() {
    let none: &[(&str, &str)] = &[
        ("dns1123Label", "my-label-name"),
        ("dns1123Subdomain", "apiextensions.k8s.io"),
        ("qualifiedName", "apiextensions.k8s.io/v1beta1"),
        ("dns1123LabelPrefix", "my-label-prefix-"),
        ("dns1123SubdomainPrefix", "mysubdomain.prefix.-"),
        ("dns1035LabelPrefix", "my-label-prefix-"),
        ("uri", "http://example.com"),
        ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
        ("byte", "aGVsbG8="),
        ("date", "2021-01-01"),
        ("datetime", "2021-01-01T00:00:00Z"),
        ("dns1123Label", "my-label-name"),
        ("dns1123Subdomain", "example.com"),
        ("dns1035Label", "my-label-name"),
        ("qualifiedName", "my.name"),
        ("byte", "aGVsbG8="),
        ("date", "2020-01-01"),
        ("datetime", "2020-01-01T00:00:00Z"),
        ("labelValue", "my-cool-label-Value"),
    ];
    for (f, s) in none {
        assert_eq!(
            named(f).validate(s),
            Vec::<String>::new(),
            "format.{f}().validate({s:?})"
        );
    }
    let label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
    let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
    let dns1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
    let qualified = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    let label_value = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
    let some: &[(&str, &str, &str)] = &[
        ("dns1123Label", "contains a space", label),
        ("dns1123Subdomain", "contains a space", subdomain),
        ("dns1035Label", "contains a space", dns1035),
        ("qualifiedName", "contains a space", qualified),
        ("dns1123LabelPrefix", "contains a space-", label),
        ("dns1123SubdomainPrefix", "contains a space-", subdomain),
        ("dns1035LabelPrefix", "contains a space-", dns1035),
        ("byte", "aGVsbG8", "invalid base64"),
        ("date", "2020-01-32", "invalid date"),
        ("datetime", "2020-01-32T00:00:00Z", "invalid datetime"),
        ("labelValue", "my-cool-label-Value!!\n\n!!!", label_value),
    ];
    for (f, s, msg) in some {
        assert_eq!(
            named(f).validate(s),
            vec![msg.to_string()],
            "format.{f}().validate({s:?})"
        );
    }
    assert_eq!(Format::named("unknown"), None);
    for (i, a) in Format::all().iter().enumerate() {
        assert_eq!(Format::named(a.cel_name()), Some(*a));
        for (j, b) in Format::all().iter().enumerate() {
            assert_eq!(a == b, i == j);
        }
    }
    assert_eq!(Format::all().len(), 13);
}

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

// upstream: k8s.io/apimachinery/pkg/api/validation/generic.go maskTrailingDash
#[test]
fn prefixes_mask_the_trailing_dash() {
    assert_eq!(mask_trailing_dash("my-label-prefix-"), "my-label-prefia");
    assert_eq!(mask_trailing_dash("-"), "-");
    assert!(Format::Dns1123LabelPrefix.validate("a-").is_empty());
    assert!(!Format::Dns1123Label.validate("a-").is_empty());
}

// upstream: kube-openapi pkg/validation/strfmt (UUIDPattern, govalidator Base64, IsDate,
// IsDateTime)
#[test]
fn strfmt_formats() {
    assert!(is_uuid("123e4567-e89b-12d3-a456-426614174000"));
    assert!(is_uuid("123E4567E89B12D3A456426614174000"));
    assert!(!is_uuid("not-a-uuid"));
    assert!(!is_uuid("123e4567-e89b-12d3-a456-42661417400"));
    assert!(is_base64("aGVsbG8="));
    assert!(is_base64("aGVsbA=="));
    assert!(is_base64("aGVs"));
    assert!(!is_base64(""));
    assert!(!is_base64("aGVsbG8"));
    assert!(!is_base64("aGVs=bG8"));
    assert!(!is_base64("aGVsbG8_"));
    assert!(is_date("2020-02-29"));
    assert!(!is_date("2021-02-29"));
    assert!(!is_date("2021-13-01"));
    assert!(!is_date("2021-1-01"));
    assert!(!is_date("2021-01-00"));
    assert!(is_date_time("2014-12-15T19:30:20Z"));
    assert!(is_date_time("2011-08-18T19:03:37.000000000+01:00"));
    assert!(is_date_time("2014-12-15T08:00:00.000Z"));
    assert!(is_date_time("2014-12-15t08:00:00z"));
    assert!(!is_date_time("2014-12-15T08:00:00"));
    assert!(!is_date_time("2014-12-15T24:00:00Z"));
    assert!(!is_date_time("2014-12-15T23:60:00Z"));
    assert!(!is_date_time("2014-12-15 08:00:00Z"));
}
