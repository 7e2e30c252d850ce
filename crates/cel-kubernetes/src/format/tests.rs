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

// upstream: k8s.io/apiserver/pkg/cel/library/format.go (the *Prefix formats mask a trailing dash)
#[test]
fn prefixes_mask_the_trailing_dash() {
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
