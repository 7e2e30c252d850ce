//! The strings extension's `format` in kube-apiserver's environment, which declares the extension at version 2:
//! cel-go renders it with `ext/formatting.go` (numbers through golang.org/x/text's printer for `en_US`, list and map
//! elements as CEL literals) and checks a literal format string against a literal argument list when the expression
//! compiles (`stringFormatValidator`).
//!
//! Ported from cel-go v0.26.1 `ext/formatting_test.go` `TestStringFormat`: each row's expression is the one the test
//! builds (`fmt.Sprintf("%q.format([%s])", format, formatArgs)`), with its expected output or error. The test's
//! `dynArgs` variables are written as `dyn(…)` here (kube-apiserver declares no such variables). Rows that need
//! protobuf messages or another locale than `en_US` (kube-apiserver sets none) are left out. The test's
//! `skipCompileCheck` rows are errors at run time only without the compile-time check, which kube-apiserver always
//! runs: they are compile errors here, and the same rows with `dyn(…)` arguments are the run-time errors.

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, Env, Expect, Value};

/// `src` compiled in kube-apiserver's environment and evaluated: its string, or the error.
fn run(src: &str) -> Result<String, String> {
    let program = Env::admission()
        .compile(src, Expect::Any)
        .map_err(|e| format!("compile: {e}"))?;
    match program.eval(&Activation::new(), &mut Budget::kubernetes()) {
        Ok(Value::String(s)) => Ok(s.as_str().to_owned()),
        Ok(other) => panic!("{src}: not a string: {other}"),
        Err(e) => Err(format!("eval: {e}")),
    }
}

/// Rows whose expression evaluates to a string.
const OUTPUTS: &[(&str, &str, &str)] = &[
    (
        "no-op",
        r#""no substitution".format([])"#,
        "no substitution",
    ),
    (
        "mid-string substitution",
        r#""str is %s and some more".format(["filler"])"#,
        "str is filler and some more",
    ),
    (
        "percent escaping",
        r#""%% and also %%".format([])"#,
        "% and also %",
    ),
    (
        "substution inside escaped percent signs",
        r#""%%%s%%".format(["text"])"#,
        "%text%",
    ),
    (
        "one escaped percent sign on the right",
        r#""%s%%".format(["percent on the right"])"#,
        "percent on the right%",
    ),
    (
        "one escaped percent sign on the left",
        r#""%%%s".format(["percent on the left"])"#,
        "%percent on the left",
    ),
    (
        "multiple substitutions",
        r#""%d %d %d, %s %s %s, %d %d %d, %s %s %s".format([1, 2, 3, "A", "B", "C", 4, 5, 6, "D", "E", "F"])"#,
        "1 2 3, A B C, 4 5 6, D E F",
    ),
    (
        "percent sign escape sequence support",
        r#""%%escaped %s%%".format(["percent"])"#,
        "%escaped percent%",
    ),
    (
        "fixed point formatting clause",
        r#""%.3f".format([1.2345])"#,
        "1.234",
    ),
    (
        "binary formatting clause",
        r#""this is 5 in binary: %b".format([5])"#,
        "this is 5 in binary: 101",
    ),
    (
        "negative binary formatting clause",
        r#""this is -5 in binary: %b".format([-5])"#,
        "this is -5 in binary: -101",
    ),
    (
        "uint support for binary formatting",
        r#""unsigned 64 in binary: %b".format([uint(64)])"#,
        "unsigned 64 in binary: 1000000",
    ),
    (
        "bool support for binary formatting",
        r#""bit set from bool: %b".format([true])"#,
        "bit set from bool: 1",
    ),
    ("octal formatting clause", r#""%o".format([11])"#, "13"),
    (
        "negative octal formatting clause",
        r#""%o".format([-11])"#,
        "-13",
    ),
    (
        "uint support for octal formatting clause",
        r#""this is an unsigned octal: %o".format([uint(65535)])"#,
        "this is an unsigned octal: 177777",
    ),
    (
        "lowercase hexadecimal formatting clause",
        r#""%x is 30 in hexadecimal".format([30])"#,
        "1e is 30 in hexadecimal",
    ),
    (
        "uppercase hexadecimal formatting clause",
        r#""%X is 20 in hexadecimal".format([30])"#,
        "1E is 20 in hexadecimal",
    ),
    (
        "negative hexadecimal formatting clause",
        r#""%x is -30 in hexadecimal".format([-30])"#,
        "-1e is -30 in hexadecimal",
    ),
    (
        "unsigned support for hexadecimal formatting clause",
        r#""%X is 6000 in hexadecimal".format([uint(6000)])"#,
        "1770 is 6000 in hexadecimal",
    ),
    (
        "string support with hexadecimal formatting clause",
        r#""%x".format(["Hello world!"])"#,
        "48656c6c6f20776f726c6421",
    ),
    (
        "string support with uppercase hexadecimal formatting clause",
        r#""%X".format(["Hello world!"])"#,
        "48656C6C6F20776F726C6421",
    ),
    (
        "byte support with hexadecimal formatting clause",
        r#""%x".format([b"byte string"])"#,
        "6279746520737472696e67",
    ),
    (
        "byte support with hexadecimal formatting clause leading zero",
        r#""%x".format([b"\x00\x00byte string\x00"])"#,
        "00006279746520737472696e6700",
    ),
    (
        "byte support with uppercase hexadecimal formatting clause",
        r#""%X".format([b"byte string"])"#,
        "6279746520737472696E67",
    ),
    (
        "scientific notation formatting clause",
        r#""%.6e".format([1052.032911275])"#,
        "1.052033\u{202f}\u{d7}\u{202f}10\u{2070}\u{b3}",
    ),
    (
        "default precision for fixed-point clause",
        r#""%f".format([2.71828])"#,
        "2.718280",
    ),
    (
        "default precision for scientific notation",
        r#""%e".format([2.71828])"#,
        "2.718280\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}",
    ),
    (
        "default precision for string",
        r#""%s".format([2.71])"#,
        "2.71",
    ),
    (
        "default list precision for string",
        r#""%s".format([[2.71]])"#,
        "[2.710000]",
    ),
    (
        "default scientific notation for string",
        r#""%s".format([0.000000002])"#,
        "2e-09",
    ),
    (
        "default list scientific notation for string",
        r#""%s".format([[0.000000002]])"#,
        "[0.000000]",
    ),
    (
        "unicode output for scientific notation",
        r#""unescaped unicode: %e, escaped unicode: %e".format([2.71828, 2.71828])"#,
        "unescaped unicode: 2.718280\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}, escaped unicode: 2.718280\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}",
    ),
    (
        "NaN support for fixed-point",
        r#""%f".format(["NaN"])"#,
        "NaN",
    ),
    (
        "positive infinity support for fixed-point",
        r#""%f".format(["Infinity"])"#,
        "∞",
    ),
    (
        "negative infinity support for fixed-point",
        r#""%f".format(["-Infinity"])"#,
        "-∞",
    ),
    (
        "NaN support for string",
        r#""%s".format([double("NaN")])"#,
        "NaN",
    ),
    (
        "positive infinity support for string",
        r#""%s".format([double("Inf")])"#,
        "+Inf",
    ),
    (
        "negative infinity support for string",
        r#""%s".format([double("-Inf")])"#,
        "-Inf",
    ),
    (
        "infinity list support for string",
        r#""%s".format([[double("NaN"),double("+Inf"), double("-Inf")]])"#,
        r#"["NaN", "+Inf", "-Inf"]"#,
    ),
    (
        "uint support for decimal clause",
        r#""%d".format([uint(64)])"#,
        "64",
    ),
    (
        "null support for string",
        r#""null: %s".format([null])"#,
        "null: null",
    ),
    (
        "int support for string",
        r#""%s".format([999999999999])"#,
        "999999999999",
    ),
    (
        "bytes support for string",
        r#""some bytes: %s".format([b"xyz"])"#,
        "some bytes: xyz",
    ),
    (
        "type() support for string",
        r#""type is %s".format([type("test string")])"#,
        "type is string",
    ),
    (
        "timestamp support for string",
        r#""%s".format([timestamp("2023-02-03T23:31:20+00:00")])"#,
        "2023-02-03T23:31:20Z",
    ),
    (
        "duration support for string",
        r#""%s".format([duration("1h45m47s")])"#,
        "6347s",
    ),
    (
        "small duration support for string",
        r#""%s".format([duration("2ns")])"#,
        "0.000000002s",
    ),
    (
        "list support for string",
        r#""%s".format([["abc", 3.14, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]])"#,
        r#"["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]"#,
    ),
    (
        "map support for string",
        r#""%s".format([{"key1": b"xyz", "key5": null, "key2": duration("2h"), "key4": true, "key3": 2.71828}])"#,
        r#"{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}"#,
    ),
    (
        "map support (all key types)",
        r#""map with multiple key types: %s".format([{1: "value1", uint(2): "value2", true: double("NaN")}])"#,
        r#"map with multiple key types: {1:"value1", 2:"value2", true:"NaN"}"#,
    ),
    (
        "boolean support for %s",
        r#""true bool: %s, false bool: %s".format([true, false])"#,
        "true bool: true, false bool: false",
    ),
    (
        "dyntype support for string formatting clause",
        r#""dynamic string: %s".format([dyn("a string")])"#,
        "dynamic string: a string",
    ),
    (
        "dyntype support for numbers with string formatting clause",
        r#""dynIntStr: %s dynDoubleStr: %s".format([dyn(32), dyn(56.8)])"#,
        "dynIntStr: 32 dynDoubleStr: 56.8",
    ),
    (
        "dyntype support for integer formatting clause",
        r#""dynamic int: %d".format([dyn(128)])"#,
        "dynamic int: 128",
    ),
    (
        "dyntype support for integer formatting clause (unsigned)",
        r#""dynamic unsigned int: %d".format([dyn(uint(256))])"#,
        "dynamic unsigned int: 256",
    ),
    (
        "dyntype support for hex formatting clause",
        r#""dynamic hex int: %x".format([dyn(22)])"#,
        "dynamic hex int: 16",
    ),
    (
        "dyntype support for hex formatting clause (uppercase)",
        r#""dynamic hex int: %X (uppercase)".format([dyn(26)])"#,
        "dynamic hex int: 1A (uppercase)",
    ),
    (
        "dyntype support for unsigned hex formatting clause",
        r#""dynamic hex int: %x (unsigned)".format([dyn(uint(500))])"#,
        "dynamic hex int: 1f4 (unsigned)",
    ),
    (
        "dyntype support for fixed-point formatting clause",
        r#""dynamic double: %.3f".format([dyn(4.5)])"#,
        "dynamic double: 4.500",
    ),
    (
        "dyntype support for scientific notation",
        r#""(dyntype) e: %e".format([dyn(2.71828)])"#,
        "(dyntype) e: 2.718280\u{202f}\u{d7}\u{202f}10\u{2070}\u{2070}",
    ),
    (
        "dyntype NaN/infinity support for fixed-point",
        r#""NaN: %f, infinity: %f".format([dyn(double("NaN")), dyn(double("Infinity"))])"#,
        "NaN: NaN, infinity: ∞",
    ),
    (
        "dyntype support for timestamp",
        r#""dyntype timestamp: %s".format([dyn(timestamp("2009-11-10T23:00:00Z"))])"#,
        "dyntype timestamp: 2009-11-10T23:00:00Z",
    ),
    (
        "dyntype support for duration",
        r#""dyntype duration: %s".format([dyn(duration("2h25m47s"))])"#,
        "dyntype duration: 8747s",
    ),
    (
        "dyntype support for lists",
        r#""dyntype list: %s".format([dyn([6, 4.2, "a string"])])"#,
        r#"dyntype list: [6, 4.200000, "a string"]"#,
    ),
    (
        "dyntype support for maps",
        r#""dyntype map: %s".format([dyn({"strKey":"x", true:42, 6:duration("422s")})])"#,
        r#"dyntype map: {"strKey":"x", 6:duration("422s"), true:42}"#,
    ),
];

/// Rows that fail: `Err(text)` as the expression's compile error or evaluation error contains it.
const ERRORS: &[(&str, &str, &str)] = &[
    // the test's `skipCompileCheck` rows: kube-apiserver's check refuses them when they compile
    (
        "unrecognized formatting clause",
        r#""%a".format([1])"#,
        "compile: ERROR: <input>:1:12: could not parse formatting clause: unrecognized formatting clause \"a\"",
    ),
    (
        "out of bounds arg index",
        r#""%d %d %d".format([0, 1])"#,
        "compile: ERROR: <input>:1:18: index 2 out of range",
    ),
    (
        "uppercase not allowed for scientific clause",
        r#""double is %E".format([0.5])"#,
        "could not parse formatting clause: unrecognized formatting clause \"E\"",
    ),
    (
        "string substitution is not allowed with binary clause",
        r#""string is %b".format(["abc"])"#,
        "compile: ERROR: <input>:1:24: error during formatting: only integers and bools can be formatted as binary, was given string",
    ),
    (
        "duration substitution not allowed with decimal clause",
        r#""%d".format([duration("30m2s")])"#,
        "compile: ERROR: <input>:1:22: error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration",
    ),
    (
        "string substitution not allowed with octal clause",
        r#""octal: %o".format(["a string"])"#,
        "error during formatting: octal clause can only be used on integers, was given string",
    ),
    (
        "double substitution not allowed with hex clause",
        r#""double is %x".format([0.5])"#,
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
    ),
    (
        "null not allowed for %d",
        r#""null: %d".format([null])"#,
        "error during formatting: decimal clause can only be used on integers, was given null_type",
    ),
    (
        "null not allowed for %e",
        r#""null: %e".format([null])"#,
        "error during formatting: scientific clause can only be used on doubles, was given null_type",
    ),
    (
        "null not allowed for %f",
        r#""null: %f".format([null])"#,
        "error during formatting: fixed-point clause can only be used on doubles, was given null_type",
    ),
    (
        "null not allowed for %x",
        r#""null: %x".format([null])"#,
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type",
    ),
    (
        "null not allowed for %X",
        r#""null: %X".format([null])"#,
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type",
    ),
    (
        "null not allowed for %b",
        r#""null: %b".format([null])"#,
        "error during formatting: only integers and bools can be formatted as binary, was given null_type",
    ),
    (
        "null not allowed for %o",
        r#""null: %o".format([null])"#,
        "error during formatting: octal clause can only be used on integers, was given null_type",
    ),
    // the same with `dyn` arguments, which the check lets through: errors when they run
    (
        "string substitution is not allowed with binary clause (dyn)",
        r#""string is %b".format([dyn("abc")])"#,
        "eval: error during formatting: only integers and bools can be formatted as binary, was given string",
    ),
    (
        "duration substitution not allowed with decimal clause (dyn)",
        r#""%d".format([dyn(duration("30m2s"))])"#,
        "eval: error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration",
    ),
    (
        "string substitution not allowed with octal clause (dyn)",
        r#""octal: %o".format([dyn("a string")])"#,
        "eval: error during formatting: octal clause can only be used on integers, was given string",
    ),
    (
        "double substitution not allowed with hex clause (dyn)",
        r#""double is %x".format([dyn(0.5)])"#,
        "eval: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
    ),
    (
        "null not allowed for %d (dyn)",
        r#""null: %d".format([dyn(null)])"#,
        "eval: error during formatting: decimal clause can only be used on integers, was given null_type",
    ),
    (
        "null not allowed for %e (dyn)",
        r#""null: %e".format([dyn(null)])"#,
        "eval: error during formatting: scientific clause can only be used on doubles, was given null_type",
    ),
    (
        "null not allowed for %f (dyn)",
        r#""null: %f".format([dyn(null)])"#,
        "eval: error during formatting: fixed-point clause can only be used on doubles, was given null_type",
    ),
    (
        "null not allowed for %x (dyn)",
        r#""null: %x".format([dyn(null)])"#,
        "eval: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type",
    ),
    (
        "null not allowed for %b (dyn)",
        r#""null: %b".format([dyn(null)])"#,
        "eval: error during formatting: only integers and bools can be formatted as binary, was given null_type",
    ),
    (
        "null not allowed for %o (dyn)",
        r#""null: %o".format([dyn(null)])"#,
        "eval: error during formatting: octal clause can only be used on integers, was given null_type",
    ),
    // the compile-time rows
    (
        "compile-time cardinality check (too few for string)",
        r#""%s %s".format(["abc"])"#,
        "compile: ERROR: <input>:1:15: index 1 out of range",
    ),
    (
        "compile-time cardinality check (too many for string)",
        r#""%s %s".format(["abc", "def", "ghi"])"#,
        "compile: ERROR: <input>:1:15: too many arguments supplied to string.format (expected 2, got 3)",
    ),
    (
        "compile-time syntax check (unexpected end of string)",
        r#""filler %".format([])"#,
        "compile: ERROR: <input>:1:18: unexpected end of string",
    ),
    (
        "compile-time syntax check (unrecognized formatting clause)",
        r#""%j".format([123])"#,
        "could not parse formatting clause: unrecognized formatting clause \"j\"",
    ),
    (
        "compile-time %d check",
        r#""int is %d".format([5.2])"#,
        "compile: ERROR: <input>:1:21: error during formatting: decimal clause can only be used on integers, was given double",
    ),
    (
        "compile-time %f check",
        r#""double is %f".format([true])"#,
        "error during formatting: fixed-point clause can only be used on doubles, was given bool",
    ),
    (
        "compile-time precision syntax check",
        r#""double is %.34".format([5.0])"#,
        "compile: ERROR: <input>:1:24: could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
    ),
    (
        "compile-time %e check",
        r#""double is %e".format([true])"#,
        "error during formatting: scientific clause can only be used on doubles, was given bool",
    ),
    (
        "compile-time %b check",
        r#""string is %b".format(["a string"])"#,
        "error during formatting: only integers and bools can be formatted as binary, was given string",
    ),
    (
        "compile-time %x check",
        r#""%x is a double".format([2.5])"#,
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
    ),
    (
        "compile-time %X check",
        r#""%X is a double".format([2.5])"#,
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
    ),
    (
        "compile-time %o check",
        r#""an octal: %o".format([3.14])"#,
        "error during formatting: octal clause can only be used on integers, was given double",
    ),
    // without the check, the run-time order: the argument is looked for before the end of the string
    (
        "unexpected end of string, at run time",
        r#"dyn("filler %").format([])"#,
        "eval: index 0 out of range",
    ),
    (
        "unexpected end of string with an argument, at run time",
        r#"dyn("filler %").format([1])"#,
        "eval: unexpected end of string",
    ),
];

#[test]
fn format_renders_as_kube_apiserver_renders_it() {
    let mut wrong = Vec::new();
    for (name, src, want) in OUTPUTS {
        match run(src) {
            Ok(got) if got == *want => {}
            got => wrong.push(format!("{name}: {src}\n  want {want:?}\n  got  {got:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn format_fails_as_kube_apiserver_fails_it() {
    let mut wrong = Vec::new();
    for (name, src, want) in ERRORS {
        match run(src) {
            Err(e) if e.contains(want) => {}
            got => wrong.push(format!("{name}: {src}\n  want {want:?}\n  got  {got:?}")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Palisade's own rows, from what cel-go's `formatting.go` asks of Go (`strconv.Atoi` for a precision, a byte read as
/// a rune for a clause) and of golang.org/x/text's printer (cel-go builds `%.<precision>f` and `%<precision>e`: the
/// width pads with spaces by characters, x/text's own `fmt_test.go` pads `NaN` so; groups of three with `,`; `-∞`).
#[test]
fn format_follows_go_and_x_text_where_cel_go_tests_do_not_reach() {
    let rows: &[(&str, Result<&str, &str>)] = &[
        ("'%.2f'.format([-1234567.891])", Ok("-1,234,567.89")),
        ("'%.0f'.format([999.5])", Ok("1,000")),
        ("'%f'.format(['-Infinity'])", Ok("-∞")),
        (
            "'%e'.format([-1.5])",
            Ok("-1.500000\u{202f}×\u{202f}10\u{2070}\u{2070}"),
        ),
        (
            "'%e'.format([0.000000002])",
            Ok("2.000000\u{202f}×\u{202f}10\u{207b}\u{2070}\u{2079}"),
        ),
        (
            "'%.0e'.format([1.5])",
            Ok("1.500000\u{202f}×\u{202f}10\u{2070}\u{2070}"),
        ),
        (
            "'%.20e'.format([1.5])",
            Ok("     1.500000\u{202f}×\u{202f}10\u{2070}\u{2070}"),
        ),
        ("'%e'.format([double('NaN')])", Ok("   NaN")),
        (
            "'%s'.format([[b'\\xff']])",
            Err(
                "eval: error during formatting: could not convert argument \"invalid UTF-8 in bytes, cannot convert to string\" to string",
            ),
        ),
        (
            "'%.f'.format([1.0])",
            Err(
                "compile: ERROR: <input>:1:13: could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax",
            ),
        ),
        (
            "'%.99999999999999999999f'.format([1.0])",
            Err("strconv.Atoi: parsing \"99999999999999999999\": value out of range"),
        ),
        (
            "'%é'.format([1])",
            Err("could not parse formatting clause: unrecognized formatting clause \"Ã\""),
        ),
        (
            "'%.1001f'.format([dyn(1.0)])",
            Err("eval: precision 1001 is too large"),
        ),
    ];
    let mut wrong = Vec::new();
    for (src, want) in rows {
        let got = run(src);
        let ok = match (want, &got) {
            (Ok(w), Ok(g)) => w == g,
            (Err(w), Err(g)) => g.contains(w),
            _ => false,
        };
        if !ok {
            wrong.push(format!("{src}\n  want {want:?}\n  got  {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
