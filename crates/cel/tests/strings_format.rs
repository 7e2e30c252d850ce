//! The strings extension's `format` in kube-apiserver's environment, the rows where Palisade answers as kube-apiserver
//! does.
//!
//! Ported from cel-go v0.26.1 `ext/formatting_test.go` `TestStringFormat` (kube-apiserver declares the strings
//! extension at version 2, which that test's renderer, `ext/formatting.go`, serves): each row's expression is the one
//! the test builds (`fmt.Sprintf("%q.format([%s])", format, formatArgs)`) with its expected output, or error when it
//! runs. The test's `dynArgs` variables are written as `dyn(…)` (kube-apiserver declares no such variables), as are the
//! arguments of its run-time error rows, which kube-apiserver's compile-time check would otherwise refuse.
//!
//! Left out: rows that need protobuf messages or another locale than `en_US` (kube-apiserver sets none), and the rows
//! where Palisade's rendering is not yet kube-apiserver's (CHANGELOG, Known gaps: `%s` of lists and maps, `%f` and
//! `%e` through x/text's printer, the run-time order of a format string's errors, the compile-time check).

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
        "default precision for fixed-point clause",
        r#""%f".format([2.71828])"#,
        "2.718280",
    ),
    (
        "default precision for string",
        r#""%s".format([2.71])"#,
        "2.71",
    ),
    (
        "default scientific notation for string",
        r#""%s".format([0.000000002])"#,
        "2e-09",
    ),
    (
        "NaN support for string",
        r#""%s".format([double("NaN")])"#,
        "NaN",
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
        "dyntype support for timestamp",
        r#""dyntype timestamp: %s".format([dyn(timestamp("2009-11-10T23:00:00Z"))])"#,
        "dyntype timestamp: 2009-11-10T23:00:00Z",
    ),
    (
        "dyntype support for duration",
        r#""dyntype duration: %s".format([dyn(duration("2h25m47s"))])"#,
        "dyntype duration: 8747s",
    ),
];

/// Rows that fail: `Err(text)` as the expression's compile error or evaluation error contains it.
const ERRORS: &[(&str, &str, &str)] = &[
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
