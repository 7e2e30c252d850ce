use super::*;

fn q(s: &str) -> Quantity {
    Quantity::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

/// upstream `decQuantity(i, exponent, format)`: `i × 10^exponent` held as a decimal.
fn dec_q(i: i64, exponent: i64, format: Format) -> Quantity {
    Quantity {
        amount: Amount::Dec(Dec::new(BigInt::from_i64(i), -exponent)),
        format,
        cached: None,
    }
}

/// upstream `intQuantity(i, exponent, format)`.
fn int_q(i: i64, scale: i32, format: Format) -> Quantity {
    Quantity {
        amount: Amount::Int { value: i, scale },
        format,
        cached: None,
    }
}

fn dec_str(q: &Quantity) -> Dec {
    q.as_dec()
}

fn parse_dec_str(s: &str) -> Dec {
    parse_dec(s).unwrap()
}

// upstream: k8s.io/apiserver/pkg/cel/library/quantity_test.go TestQuantity
#[test]
fn cel_library_cases() {
    let twelve_mi = q("12Mi");
    assert_eq!(twelve_mi.to_string(), "12Mi");
    assert_eq!(twelve_mi.as_integer(), Ok(12 * 1024 * 1024));
    let err = Quantity::parse("10Mo").unwrap_err().to_string();
    assert!(
        err.starts_with("quantities must match the regular expression"),
        "{err}"
    );
    assert_eq!(
        err,
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
    assert_eq!(
        Quantity::parse("10Mm").unwrap_err().to_string(),
        "unable to parse quantity's suffix"
    );
    assert!(is_quantity("20"));
    assert!(is_quantity("20M"));
    assert!(is_quantity("20Mi"));
    assert!(!is_quantity("20Mo"));
    assert!(!is_quantity("10Mm"));
    assert!(q("200M") == q("200M"));
    assert!(q("200M") == q("0.2G") && q("0.2G") == q("200M"));
    assert!(q("2M") == q("0.002G") && q("2000k") == q("2M") && q("0.002G") == q("2000k"));
    assert!(q("200M") != q("0.3G"));
    assert!(q("50M").is_less_than(&q("50Mi")));
    assert!(q("50M").is_less_than(&q("100M")));
    assert!(!q("100M").is_less_than(&q("50M")));
    assert!(q("50Mi").is_greater_than(&q("50M")));
    assert!(q("150Mi").is_greater_than(&q("100Mi")));
    assert!(!q("50M").is_greater_than(&q("100M")));
    assert_eq!(q("200M").compare_to(&q("0.2G")), 0);
    assert_eq!(q("50M").compare_to(&q("50Mi")), -1);
    assert_eq!(q("50Mi").compare_to(&q("50M")), 1);
    assert!(q("50k").add(&q("20")).unwrap() == q("50.02k"));
    assert!(!q("50k").add_int(20).unwrap().is_less_than(&q("50020")));
    assert!(q("50k").sub(&q("20")).unwrap() == q("49.98k"));
    assert!(q("50k").sub_int(20).unwrap() == q("49980"));
    let chain = q("50k").add_int(20).unwrap().sub(&q("100k")).unwrap();
    assert_eq!(chain.as_integer(), Ok(-49980));
    assert_eq!(chain.sub_int(-50000).unwrap().as_integer(), Ok(20));
    assert_eq!(q("50k").as_integer(), Ok(50000));
    let huge = q("9999999999999999999999999999999999999G");
    assert_eq!(
        huge.as_integer().unwrap_err().to_string(),
        "cannot convert value to integer"
    );
    assert!(!huge.is_integer());
    assert!(q("50").is_integer());
    assert_eq!(q("50.703k").as_approximate_float(), 50703.0);
    // add_does_not_mutate_receiver
    let x = q("9999999999999999999999999999999999999");
    let a = x.add(&q("1")).unwrap();
    let b = x.add(&q("2")).unwrap();
    assert_eq!(a.compare_to(&b), -1);
    assert_eq!(x.to_string(), "9999999999999999999999999999999999999");
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityParse
#[test]
fn quantity_parse() {
    assert!(Quantity::parse("").is_err());
    let table: &[(&str, i64, i64, Format)] = &[
        ("0", 0, 0, Format::DecimalSI),
        ("0n", 0, 0, Format::DecimalSI),
        ("0u", 0, 0, Format::DecimalSI),
        ("0m", 0, 0, Format::DecimalSI),
        ("0Ki", 0, 0, Format::BinarySI),
        ("0k", 0, 0, Format::DecimalSI),
        ("0Mi", 0, 0, Format::BinarySI),
        ("0M", 0, 0, Format::DecimalSI),
        ("0Gi", 0, 0, Format::BinarySI),
        ("0G", 0, 0, Format::DecimalSI),
        ("0Ti", 0, 0, Format::BinarySI),
        ("0T", 0, 0, Format::DecimalSI),
        ("1", 1, 0, Format::DecimalSI),
        ("1Ki", 1024, 0, Format::BinarySI),
        ("8Ki", 8 * 1024, 0, Format::BinarySI),
        ("7Mi", 7 * 1024 * 1024, 0, Format::BinarySI),
        ("6Gi", 6 * 1024 * 1024 * 1024, 0, Format::BinarySI),
        ("5Ti", 5 * 1024 * 1024 * 1024 * 1024, 0, Format::BinarySI),
        (
            "4Pi",
            4 * 1024 * 1024 * 1024 * 1024 * 1024,
            0,
            Format::BinarySI,
        ),
        (
            "3Ei",
            3 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024,
            0,
            Format::BinarySI,
        ),
        ("10Ti", 10 * 1024 * 1024 * 1024 * 1024, 0, Format::BinarySI),
        (
            "100Ti",
            100 * 1024 * 1024 * 1024 * 1024,
            0,
            Format::BinarySI,
        ),
        ("5n", 5, -9, Format::DecimalSI),
        ("4u", 4, -6, Format::DecimalSI),
        ("3m", 3, -3, Format::DecimalSI),
        ("9", 9, 0, Format::DecimalSI),
        ("8k", 8, 3, Format::DecimalSI),
        ("50k", 5, 4, Format::DecimalSI),
        ("7M", 7, 6, Format::DecimalSI),
        ("6G", 6, 9, Format::DecimalSI),
        ("5T", 5, 12, Format::DecimalSI),
        ("40T", 4, 13, Format::DecimalSI),
        ("300T", 3, 14, Format::DecimalSI),
        ("2P", 2, 15, Format::DecimalSI),
        ("1E", 1, 18, Format::DecimalSI),
        ("1E-3", 1, -3, Format::DecimalExponent),
        ("1e3", 1, 3, Format::DecimalExponent),
        ("1E6", 1, 6, Format::DecimalExponent),
        ("1e9", 1, 9, Format::DecimalExponent),
        ("1E12", 1, 12, Format::DecimalExponent),
        ("1e15", 1, 15, Format::DecimalExponent),
        ("1E18", 1, 18, Format::DecimalExponent),
        ("1e14", 1, 14, Format::DecimalExponent),
        ("1e13", 1, 13, Format::DecimalExponent),
        ("1e3", 1, 3, Format::DecimalExponent),
        ("100.035k", 100035, 0, Format::DecimalSI),
        ("0.001", 1, -3, Format::DecimalSI),
        ("0.0005k", 5, -1, Format::DecimalSI),
        ("0.005", 5, -3, Format::DecimalSI),
        ("0.05", 5, -2, Format::DecimalSI),
        ("0.5", 5, -1, Format::DecimalSI),
        ("0.00050k", 5, -1, Format::DecimalSI),
        ("0.00500", 5, -3, Format::DecimalSI),
        ("0.05000", 5, -2, Format::DecimalSI),
        ("0.50000", 5, -1, Format::DecimalSI),
        ("0.5e0", 5, -1, Format::DecimalExponent),
        ("0.5e-1", 5, -2, Format::DecimalExponent),
        ("0.5e-2", 5, -3, Format::DecimalExponent),
        ("0.5e0", 5, -1, Format::DecimalExponent),
        ("10.035M", 10035, 3, Format::DecimalSI),
        ("1.2e3", 12, 2, Format::DecimalExponent),
        ("1.3E+6", 13, 5, Format::DecimalExponent),
        ("1.40e9", 14, 8, Format::DecimalExponent),
        ("1.53E12", 153, 10, Format::DecimalExponent),
        ("1.6e15", 16, 14, Format::DecimalExponent),
        ("1.7E18", 17, 17, Format::DecimalExponent),
        ("9.01", 901, -2, Format::DecimalSI),
        ("8.1k", 81, 2, Format::DecimalSI),
        ("7.123456M", 7123456, 0, Format::DecimalSI),
        ("6.987654321G", 6987654321, 0, Format::DecimalSI),
        ("5.444T", 5444, 9, Format::DecimalSI),
        ("40.1T", 401, 11, Format::DecimalSI),
        ("300.2T", 3002, 11, Format::DecimalSI),
        ("2.5P", 25, 14, Format::DecimalSI),
        ("1.01E", 101, 16, Format::DecimalSI),
        ("3.001n", 4, -9, Format::DecimalSI),
        ("1.1E-9", 2, -9, Format::DecimalExponent),
        ("0.0000000001", 1, -9, Format::DecimalSI),
        ("0.0000000005", 1, -9, Format::DecimalSI),
        ("0.00000000050", 1, -9, Format::DecimalSI),
        ("0.5e-9", 1, -9, Format::DecimalExponent),
        ("0.9n", 1, -9, Format::DecimalSI),
        ("0.00000012345", 124, -9, Format::DecimalSI),
        ("0.00000012354", 124, -9, Format::DecimalSI),
        ("9Ei", i64::MAX, 0, Format::BinarySI),
        ("9223372036854775807Ki", i64::MAX, 0, Format::BinarySI),
        ("12E", 12, 18, Format::DecimalSI),
        ("100.035Ki", 10243584, -2, Format::BinarySI),
        ("0.5Mi", 524288, 0, Format::BinarySI),
        ("0.05Gi", 536870912, -1, Format::BinarySI),
        ("0.025Ti", 274877906944, -1, Format::BinarySI),
        ("0.000000000001Ki", 2, -9, Format::DecimalSI),
        (".001", 1, -3, Format::DecimalSI),
        (".0001k", 100, -3, Format::DecimalSI),
        ("1.", 1, 0, Format::DecimalSI),
        ("1.G", 1, 9, Format::DecimalSI),
    ];
    for &(input, i, exp, format) in table {
        let expect = dec_q(i, exp, format);
        let got = q(input);
        assert_eq!(expect.compare(&got), Ordering::Equal, "{input}: {got}");
        assert_eq!(got.format, format, "{input}");
        // the negative version of everything
        let neg = q(&format!("-{input}"));
        assert_eq!(
            neg.compare(&dec_q(-i, exp, format)),
            Ordering::Equal,
            "-{input}"
        );
        assert_eq!(neg.format, format, "-{input}");
        // everything with an explicit +
        let plus = q(&format!("+{input}"));
        assert_eq!(plus.compare(&expect), Ordering::Equal, "+{input}");
        assert_eq!(plus.format, format, "+{input}");
    }
    let invalid = [
        "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", " 1", "1 ",
    ];
    for input in invalid {
        assert!(
            Quantity::parse(input).is_err(),
            "{input} parsed unexpectedly"
        );
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestParseQuantityString
#[test]
fn parse_quantity_string() {
    let table = [
        ("0.025Ti", true, "0.025", "0", "025", "Ti"),
        ("1.025Ti", true, "1.025", "1", "025", "Ti"),
        ("-1.025Ti", false, "-1.025", "1", "025", "Ti"),
        (".", true, ".", "0", "", ""),
        ("-.", false, "-.", "0", "", ""),
        ("1E-3", true, "1", "1", "", "E-3"),
    ];
    for (input, positive, value, num, denom, suffix) in table {
        let p = split(input).unwrap();
        assert_eq!(
            (p.positive, p.value, p.num, p.denom, p.suffix),
            (positive, value, num, denom, suffix),
            "{input}"
        );
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityCmp
#[test]
fn quantity_cmp() {
    let table = [
        ("0", "0", 0),
        ("100m", "50m", 1),
        ("50m", "100m", -1),
        ("10000T", "100Gi", 1),
    ];
    for (x, y, expect) in table {
        assert_eq!(q(x).compare_to(&q(y)), expect, "{x} vs {y}");
    }
    let table2 = [
        (0, 0, 0),
        (0, 10, -1),
        (0, -10, 1),
        (10, 0, 1),
        (-10, 0, -1),
    ];
    for (x, y, expect) in table2 {
        let a = dec_q(x, 0, Format::DecimalSI);
        let b = dec_q(y, 0, Format::DecimalSI);
        assert_eq!(a.compare_to(&b), expect);
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityString
#[test]
fn quantity_string() {
    use Format::*;
    let table: &[(Quantity, &str, &str)] = &[
        (dec_q(1024 * 1024 * 1024, 0, BinarySI), "1Gi", "1024Mi"),
        (dec_q(300 * 1024 * 1024, 0, BinarySI), "300Mi", "307200Ki"),
        (dec_q(6 * 1024, 0, BinarySI), "6Ki", ""),
        (
            dec_q(1001 * 1024 * 1024 * 1024, 0, BinarySI),
            "1001Gi",
            "1025024Mi",
        ),
        (
            dec_q(1024 * 1024 * 1024 * 1024, 0, BinarySI),
            "1Ti",
            "1024Gi",
        ),
        (dec_q(5, 0, BinarySI), "5", "5000m"),
        (dec_q(500, -3, BinarySI), "500m", "0.5"),
        (dec_q(1, 9, DecimalSI), "1G", "1000M"),
        (dec_q(1000, 6, DecimalSI), "1G", "0.001T"),
        (dec_q(1000000, 3, DecimalSI), "1G", ""),
        (dec_q(1000000000, 0, DecimalSI), "1G", ""),
        (dec_q(1, -3, DecimalSI), "1m", "1000u"),
        (dec_q(80, -3, DecimalSI), "80m", ""),
        (dec_q(1080, -3, DecimalSI), "1080m", "1.08"),
        (dec_q(108, -2, DecimalSI), "1080m", "1080000000n"),
        (dec_q(10800, -4, DecimalSI), "1080m", ""),
        (dec_q(300, 6, DecimalSI), "300M", ""),
        (dec_q(1, 12, DecimalSI), "1T", ""),
        (dec_q(1234567, 6, DecimalSI), "1234567M", ""),
        (dec_q(1234567, -3, BinarySI), "1234567m", ""),
        (dec_q(3, 3, DecimalSI), "3k", ""),
        (dec_q(1025, 0, BinarySI), "1025", ""),
        (dec_q(0, 0, DecimalSI), "0", ""),
        (dec_q(0, 0, BinarySI), "0", ""),
        (dec_q(1, 9, DecimalExponent), "1e9", ".001e12"),
        (dec_q(1, -3, DecimalExponent), "1e-3", "0.001e0"),
        (dec_q(1, -9, DecimalExponent), "1e-9", "1000e-12"),
        (dec_q(80, -3, DecimalExponent), "80e-3", ""),
        (dec_q(300, 6, DecimalExponent), "300e6", ""),
        (dec_q(1, 12, DecimalExponent), "1e12", ""),
        (dec_q(1, 3, DecimalExponent), "1e3", ""),
        (dec_q(3, 3, DecimalExponent), "3e3", ""),
        (dec_q(3, 3, DecimalSI), "3k", ""),
        (dec_q(0, 0, DecimalExponent), "0", "00"),
        (dec_q(1, -9, DecimalSI), "1n", ""),
        (dec_q(80, -9, DecimalSI), "80n", ""),
        (dec_q(1080, -9, DecimalSI), "1080n", ""),
        (dec_q(108, -8, DecimalSI), "1080n", ""),
        (dec_q(10800, -10, DecimalSI), "1080n", ""),
        (dec_q(1, -6, DecimalSI), "1u", ""),
        (dec_q(80, -6, DecimalSI), "80u", ""),
        (dec_q(1080, -6, DecimalSI), "1080u", ""),
    ];
    for (input, expect, alternate) in table {
        assert_eq!(input.to_string(), *expect, "{input:?}");
        let parsed = q(expect);
        assert_eq!(
            parsed.cached.as_deref(),
            Some(*expect),
            "{expect}: canonical string not kept"
        );
        if !alternate.is_empty() {
            let alt = q(alternate);
            assert_eq!(alt.cached, None, "{alternate}");
            assert_eq!(alt.to_string(), *expect, "{alternate}");
        }
        if input.sign() != 0 {
            let neg = Quantity {
                amount: Amount::Dec(input.as_dec().negated()),
                format: input.format,
                cached: None,
            };
            assert_eq!(neg.to_string(), format!("-{expect}"), "{input:?}");
        }
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityParseEmit
#[test]
fn quantity_parse_emit() {
    let table = [
        ("1Ki", "1Ki"),
        ("1Mi", "1Mi"),
        ("1Gi", "1Gi"),
        ("1024Mi", "1Gi"),
        ("1000M", "1G"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
    ];
    for (input, expect) in table {
        assert_eq!(q(input).to_string(), expect, "{input}");
        assert_eq!(
            q(&format!("-{input}")).to_string(),
            format!("-{expect}"),
            "-{input}"
        );
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestParseQuantity
#[test]
fn parse_quantity_int64_dec_and_canonical() {
    let table: &[(&str, Option<i64>, &str, &str)] = &[
        (
            "-999999999999999999",
            Some(-999999999999999999),
            "-999999999999999999",
            "",
        ),
        (
            "999999999999999999",
            Some(999999999999999999),
            "999999999999999999",
            "",
        ),
        (
            "-999999999999999999.0",
            None,
            "-999999999999999999",
            "-999999999999999999",
        ),
        (
            "999999999999999999.0",
            None,
            "999999999999999999",
            "999999999999999999",
        ),
        (
            "-999999999999999999.1",
            None,
            "-999999999999999999.1",
            "-999999999999999999100m",
        ),
        (
            "999999999999999999.1",
            None,
            "999999999999999999.1",
            "999999999999999999100m",
        ),
        ("-9999999999999999999", None, "-9999999999999999999", ""),
        ("9999999999999999999", None, "9999999999999999999", ""),
        (
            "-1E",
            Some(-1000000000000000000),
            "-1000000000000000000",
            "",
        ),
        ("1E", Some(1000000000000000000), "1000000000000000000", ""),
        ("-1000000000000000000", None, "-1000000000000000000", "-1E"),
        ("1000000000000000000", None, "1000000000000000000", "1E"),
        (
            "-9999999999999999999.0",
            None,
            "-9999999999999999999",
            "-9999999999999999999",
        ),
        (
            "9999999999999999999.0",
            None,
            "9999999999999999999",
            "9999999999999999999",
        ),
        (
            "-1.0E",
            Some(-1000000000000000000),
            "-1000000000000000000",
            "-1E",
        ),
        (
            "1.0E",
            Some(1000000000000000000),
            "1000000000000000000",
            "1E",
        ),
        (
            "-1000000000000000000.0",
            None,
            "-1000000000000000000",
            "-1E",
        ),
        ("1000000000000000000.0", None, "1000000000000000000", "1E"),
        (
            "-9999999999999999999000m",
            None,
            "-9999999999999999999",
            "-9999999999999999999",
        ),
        (
            "9999999999999999999000m",
            None,
            "9999999999999999999",
            "9999999999999999999",
        ),
        (
            "-9999999999999999999.1",
            None,
            "-9999999999999999999.1",
            "-9999999999999999999100m",
        ),
        (
            "9999999999999999999.1",
            None,
            "9999999999999999999.1",
            "9999999999999999999100m",
        ),
        (
            "-1.0000000000000000001E",
            None,
            "-1000000000000000000.1",
            "-1000000000000000000100m",
        ),
        (
            "1.0000000000000000001E",
            None,
            "1000000000000000000.1",
            "1000000000000000000100m",
        ),
        (
            "-1000000000000000000.1",
            None,
            "-1000000000000000000.1",
            "-1000000000000000000100m",
        ),
        (
            "1000000000000000000.1",
            None,
            "1000000000000000000.1",
            "1000000000000000000100m",
        ),
        (
            "-1.000000000000000001E",
            None,
            "-1000000000000000001",
            "-1000000000000000001",
        ),
        (
            "1.000000000000000001E",
            None,
            "1000000000000000001",
            "1000000000000000001",
        ),
        ("-1000000000000000001", None, "-1000000000000000001", ""),
        ("1000000000000000001", None, "1000000000000000001", ""),
        ("-10E", None, "-10000000000000000000", ""),
        ("10E", None, "10000000000000000000", ""),
        (
            "-10000000000000000000",
            None,
            "-10000000000000000000",
            "-10E",
        ),
        ("10000000000000000000", None, "10000000000000000000", "10E"),
        ("-10.0E", None, "-10000000000000000000", "-10E"),
        ("10.0E", None, "10000000000000000000", "10E"),
        (
            "-10000000000000000000.0",
            None,
            "-10000000000000000000",
            "-10E",
        ),
        (
            "10000000000000000000.0",
            None,
            "10000000000000000000",
            "10E",
        ),
        (
            "-10000000000000000000000m",
            None,
            "-10000000000000000000",
            "-10E",
        ),
        (
            "10000000000000000000000m",
            None,
            "10000000000000000000",
            "10E",
        ),
        (
            "-10.0000000000000000001E",
            None,
            "-10000000000000000000.1",
            "-10000000000000000000100m",
        ),
        (
            "10.0000000000000000001E",
            None,
            "10000000000000000000.1",
            "10000000000000000000100m",
        ),
        (
            "-10000000000000000000.1",
            None,
            "-10000000000000000000.1",
            "-10000000000000000000100m",
        ),
        (
            "10000000000000000000.1",
            None,
            "10000000000000000000.1",
            "10000000000000000000100m",
        ),
        (
            "-10.000000000000000001E",
            None,
            "-10000000000000000001",
            "-10000000000000000001",
        ),
        (
            "10.000000000000000001E",
            None,
            "10000000000000000001",
            "10000000000000000001",
        ),
        ("-10000000000000000001", None, "-10000000000000000001", ""),
        ("10000000000000000001", None, "10000000000000000001", ""),
        ("-9223372036854775809", None, "-9223372036854775809", ""),
        ("9223372036854775806", None, "9223372036854775806", ""),
        (
            "-9223372036854775809.0",
            None,
            "-9223372036854775809",
            "-9223372036854775809",
        ),
        (
            "9223372036854775806.0",
            None,
            "9223372036854775806",
            "9223372036854775806",
        ),
        (
            "-9223372036854775809000m",
            None,
            "-9223372036854775809",
            "-9223372036854775809",
        ),
        (
            "9223372036854775806000m",
            None,
            "9223372036854775806",
            "9223372036854775806",
        ),
        (
            "-9223372036854775809.1",
            None,
            "-9223372036854775809.1",
            "-9223372036854775809100m",
        ),
        (
            "9223372036854775806.1",
            None,
            "9223372036854775806.1",
            "9223372036854775806100m",
        ),
        ("-9223372036854775808", None, "-9223372036854775808", ""),
        ("9223372036854775807", None, "9223372036854775807", ""),
        (
            "-9223372036854775808.0",
            None,
            "-9223372036854775808",
            "-9223372036854775808",
        ),
        (
            "9223372036854775807.0",
            None,
            "9223372036854775807",
            "9223372036854775807",
        ),
        (
            "-9223372036854775808000m",
            None,
            "-9223372036854775808",
            "-9223372036854775808",
        ),
        (
            "9223372036854775807000m",
            None,
            "9223372036854775807",
            "9223372036854775807",
        ),
        (
            "-9223372036854775808.1",
            None,
            "-9223372036854775808.1",
            "-9223372036854775808100m",
        ),
        (
            "9223372036854775807.1",
            None,
            "9223372036854775807.1",
            "9223372036854775807100m",
        ),
        ("-9223372036854775807", None, "-9223372036854775807", ""),
        ("9223372036854775808", None, "9223372036854775808", ""),
        (
            "-9223372036854775807.0",
            None,
            "-9223372036854775807",
            "-9223372036854775807",
        ),
        (
            "9223372036854775808.0",
            None,
            "9223372036854775808",
            "9223372036854775808",
        ),
        (
            "-9223372036854775807000m",
            None,
            "-9223372036854775807",
            "-9223372036854775807",
        ),
        (
            "9223372036854775808000m",
            None,
            "9223372036854775808",
            "9223372036854775808",
        ),
        (
            "-9223372036854775807.1",
            None,
            "-9223372036854775807.1",
            "-9223372036854775807100m",
        ),
        (
            "9223372036854775808.1",
            None,
            "9223372036854775808.1",
            "9223372036854775808100m",
        ),
    ];
    for &(input, want_int, want_dec, canonical) in table {
        let got = q(input);
        assert_eq!(got.as_int64(), want_int, "{input}: AsInt64");
        assert_eq!(
            dec_str(&got).cmp(&parse_dec_str(want_dec)),
            Ordering::Equal,
            "{input}: AsDec"
        );
        let expect = if canonical.is_empty() {
            input
        } else {
            canonical
        };
        assert_eq!(got.to_string(), expect, "{input}: String");
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestAdd, TestSub
#[test]
fn add_and_sub() {
    use Format::*;
    let zero = int_q(0, 0, DecimalSI);
    let add = [
        (
            dec_q(10, 0, DecimalSI),
            dec_q(1, 1, DecimalSI),
            dec_q(20, 0, DecimalSI),
        ),
        (
            dec_q(10, 0, DecimalSI),
            dec_q(1, 0, BinarySI),
            dec_q(11, 0, DecimalSI),
        ),
        (
            dec_q(10, 0, BinarySI),
            dec_q(1, 0, DecimalSI),
            dec_q(11, 0, BinarySI),
        ),
        (
            zero.clone(),
            dec_q(50, 0, DecimalSI),
            dec_q(50, 0, DecimalSI),
        ),
        (
            dec_q(50, 0, DecimalSI),
            zero.clone(),
            dec_q(50, 0, DecimalSI),
        ),
        (zero.clone(), zero.clone(), dec_q(0, 0, DecimalSI)),
    ];
    for (a, b, expect) in add {
        assert_eq!(
            a.add(&b).unwrap().compare(&expect),
            Ordering::Equal,
            "{a} + {b}"
        );
    }
    let sub = [
        (
            dec_q(10, 0, DecimalSI),
            dec_q(1, 1, DecimalSI),
            dec_q(0, 0, DecimalSI),
        ),
        (
            dec_q(10, 0, DecimalSI),
            dec_q(1, 0, BinarySI),
            dec_q(9, 0, DecimalSI),
        ),
        (
            dec_q(10, 0, BinarySI),
            dec_q(1, 0, DecimalSI),
            dec_q(9, 0, BinarySI),
        ),
        (
            zero.clone(),
            dec_q(50, 0, DecimalSI),
            dec_q(-50, 0, DecimalSI),
        ),
        (
            dec_q(50, 0, DecimalSI),
            zero.clone(),
            dec_q(50, 0, DecimalSI),
        ),
        (zero.clone(), zero.clone(), dec_q(0, 0, DecimalSI)),
    ];
    for (a, b, expect) in sub {
        assert_eq!(
            a.sub(&b).unwrap().compare(&expect),
            Ordering::Equal,
            "{a} - {b}"
        );
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityAddZeroPreservesSuffix,
// TestQuantitySubZeroPreservesSuffix
#[test]
fn zero_preserves_suffix() {
    for input in ["100m", "1Gi"] {
        let zero = q("0");
        let value = q(input);
        assert_eq!(value.add(&zero).unwrap().to_string(), input, "{input} + 0");
        assert_eq!(zero.add(&value).unwrap().to_string(), input, "0 + {input}");
        assert_eq!(value.sub(&zero).unwrap().to_string(), input, "{input} - 0");
        let neg = Quantity {
            amount: Amount::Dec(value.as_dec().negated()),
            format: value.format,
            cached: None,
        };
        assert_eq!(
            zero.sub(&value).unwrap().to_string(),
            neg.to_string(),
            "0 - {input}"
        );
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityCmpInt64AndDec
#[test]
fn cmp_int64_and_dec() {
    use Format::DecimalSI as D;
    let p = i64::MAX;
    let n = i64::MIN;
    let e18 = 1_000_000_000_000_000_000i64;
    let table = [
        (int_q(901, -2, D), int_q(901, -2, D), 0),
        (int_q(90, -1, D), int_q(901, -2, D), -1),
        (int_q(901, -2, D), int_q(900, -2, D), 1),
        (int_q(0, 0, D), int_q(0, 0, D), 0),
        (int_q(0, 1, D), int_q(0, -1, D), 0),
        (int_q(0, -1, D), int_q(0, 1, D), 0),
        (int_q(800, -3, D), int_q(1, 0, D), -1),
        (int_q(800, -3, D), int_q(79, -2, D), 1),
        (int_q(p, 0, D), int_q(1, -1, D), 1),
        (int_q(p, 1, D), int_q(1, 0, D), 1),
        (int_q(p, 1, D), int_q(1, 1, D), 1),
        (int_q(p, 1, D), int_q(0, 1, D), 1),
        (int_q(p, -16, D), int_q(1, 3, D), -1),
        (int_q(n, 0, D), int_q(0, 0, D), -1),
        (int_q(n, -18, D), int_q(-1, 0, D), -1),
        (int_q(n, -19, D), int_q(-1, 0, D), 1),
        (int_q(e18, -17, D), int_q(1, 1, D), 0),
        (int_q(e18, -17, D), int_q(-10, 0, D), 1),
        (int_q(-e18, -17, D), int_q(-10, 0, D), 0),
        (int_q(e18, -17, D), int_q(1, 0, D), 1),
        (int_q(e18 + 1, -17, D), int_q(1, 1, D), 1),
        (int_q(e18 - 1, -17, D), int_q(1, 1, D), -1),
    ];
    let as_dec = |q: &Quantity| Quantity {
        amount: Amount::Dec(q.as_dec()),
        format: q.format,
        cached: None,
    };
    for (a, b, want) in table {
        for (x, y) in [
            (a.clone(), b.clone()),
            (as_dec(&a), b.clone()),
            (a.clone(), as_dec(&b)),
            (as_dec(&a), as_dec(&b)),
        ] {
            assert_eq!(x.compare_to(&y), want, "{x:?} vs {y:?}");
            assert_eq!(y.compare_to(&x), -want, "{y:?} vs {x:?}");
        }
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityAsApproximateFloat64
#[test]
fn as_approximate_float64() {
    use Format::*;
    let m7 = 7 * 1024 * 1024;
    let table: Vec<(Quantity, f64)> = vec![
        (dec_q(0, 0, DecimalSI), 0.0),
        (dec_q(0, 0, DecimalExponent), 0.0),
        (dec_q(0, 0, BinarySI), 0.0),
        (dec_q(1, 0, DecimalSI), 1.0),
        (dec_q(1, 0, DecimalExponent), 1.0),
        (dec_q(1, 0, BinarySI), 1.0),
        (dec_q(1024, 0, BinarySI), 1024.0),
        (dec_q(8 * 1024, 0, BinarySI), 8.0 * 1024.0),
        (dec_q(m7, 0, BinarySI), m7 as f64),
        (dec_q(m7, 1, BinarySI), m7 as f64 * 10.0),
        (dec_q(m7, 4, BinarySI), m7 as f64 * 10000.0),
        (dec_q(m7, 8, BinarySI), m7 as f64 * 100000000.0),
        (dec_q(m7, -1, BinarySI), m7 as f64 * go_pow10(-1)),
        (dec_q(m7, -8, BinarySI), m7 as f64 / 100000000.0),
        (dec_q(1024, 0, DecimalSI), 1024.0),
        (dec_q(m7, 1, DecimalSI), m7 as f64 * 10.0),
        (dec_q(m7, -1, DecimalSI), m7 as f64 * go_pow10(-1)),
        (dec_q(m7, -8, DecimalSI), m7 as f64 / 100000000.0),
        (dec_q(m7, 8, DecimalExponent), m7 as f64 * 100000000.0),
        (dec_q(m7, -8, DecimalExponent), m7 as f64 / 100000000.0),
        (
            Quantity {
                amount: Amount::Dec(max_allowed()),
                format: DecimalSI,
                cached: None,
            },
            i64::MAX as f64,
        ),
        (
            Quantity {
                amount: Amount::Dec(max_allowed()),
                format: BinarySI,
                cached: None,
            },
            i64::MAX as f64,
        ),
        (dec_q(12, 18, DecimalSI), 1.2e19),
        (dec_q(12, 500, DecimalSI), f64::INFINITY),
        (dec_q(-12, 500, DecimalSI), f64::NEG_INFINITY),
    ];
    for (input, out) in table {
        assert_eq!(input.as_approximate_float(), out, "{input:?}");
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestStringQuantityAsApproximateFloat64
#[test]
fn string_quantity_as_approximate_float64() {
    let table = [
        ("2Ki", 2048.0),
        ("1.1Ki", 1126.4e+0),
        ("1Mi", 1.048576e+06),
        ("2Gi", 2.147483648e+09),
    ];
    for (input, out) in table {
        assert_eq!(q(input).as_approximate_float(), out, "{input}");
    }
}

// upstream: k8s.io/apimachinery/pkg/api/resource/quantity_test.go TestQuantityParseZero,
// TestQuantityCanocicalizeZero
#[test]
fn zero() {
    let zero = q("0");
    assert_eq!(zero.to_string(), "0");
    assert_eq!(zero.sign(), 0);
    // 1000m minus 1 as an int64 amount is zero with scale -3
    let val = q("1000m");
    let Amount::Int { value, scale } = val.amount else {
        panic!("1000m is an int64 amount")
    };
    let zero = int_q(value - 1000, scale, Format::DecimalSI);
    assert_eq!(zero.to_string(), "0");
}

// ours: decimal quantities are not integers upstream, even when whole
#[test]
fn decimal_amount_is_not_integer() {
    assert!(!q("1.5Ki").is_integer());
    assert_eq!(q("1.5Ki").to_string(), "1536");
    assert!(q("1Ki").is_integer());
    assert!(!q("1.000").is_integer());
}

// ours: hostile input ends in an error, not an allocation
#[test]
fn huge_exponents_are_bounded() {
    let huge = q("1e1000000000");
    assert_eq!(huge.to_string(), "10e999999999");
    assert_eq!(huge.as_integer(), Err(QuantityError::NotInteger));
    assert_eq!(huge.as_approximate_float(), f64::INFINITY);
    assert!(huge.is_greater_than(&q("1e999")));
    assert_eq!(huge.add(&q("1")).unwrap_err(), QuantityError::TooLarge);
    assert_eq!(
        Quantity::parse("1234567890123456789e1000000000").unwrap_err(),
        QuantityError::TooLarge
    );
    assert_eq!(
        Quantity::parse("1e-1000000000").unwrap().to_string(),
        "1e-9"
    );
    let big = q("1e4000");
    assert!(big.is_greater_than(&q("1")));
    assert_eq!(big.add(&q("1n")).unwrap().compare(&big), Ordering::Greater);
    assert_eq!(
        Quantity::parse("1234567890123456789e4090").unwrap_err(),
        QuantityError::TooLarge
    );
    // Go converts the parsed int64 exponent to int32 with wrapping
    assert!(q("1e4294967296") == q("1"));
}
