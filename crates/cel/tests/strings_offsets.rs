//! `indexOf` and `lastIndexOf` with offsets, and escaped identifiers, in the three environments, each as its upstream
//! answers (`palisade_cel_eval::Dialect`):
//!
//! - kube-apiserver's (`Env::admission`): cel-go v0.22 to v0.28's `ext/strings.go` (Kubernetes 1.32 to 1.36 vendor
//!   them): an offset at or past the end finds nothing, an empty substring is found at whatever offset is asked.
//!   Rows: cel-go v0.27.0 `ext/strings_test.go` `stringTests` (every `indexOf`/`lastIndexOf` row), and Palisade's own
//!   for the empty substring, read off `indexOfOffset`/`lastIndexOfOffset` of that release.
//! - approver-policy v0.27's (`Env::certificate_request`, cel-go v0.30): the same, but an empty substring is found at the
//!   offset clamped to the end, and a negative offset is an error. Rows: cel-go 14f6746a (June 2026, "validate offset
//!   on empty-string path in indexOf and lastIndexOf") `ext/strings_test.go`. cel-go v0.30.0 was tagged after that
//!   commit (the mirror read here ends at it, with v0.28.1 its last tag); that it carries it is inferred, not read.
//! - the cel-spec conformance suite's (`Env::standard`): an offset outside the string is an error (string_ext
//!   `indexof_out_of_range`, `lastindexof_out_of_range`, which cel-go's own conformance run skips; `conformance.rs`).
//!
//! Escaped identifiers (`` a.`b-c` ``): cel-go's parser reads them by default from v0.28 (d9429704, "Default enable
//! identifier escaping with backticks"), so approver-policy v0.27's environment does; kube-apiserver's (cel-go v0.27)
//! refuses them (`kubernetes_env.rs`). Rows: cel-go `parser/parser_test.go` with `EnableIdentEscapeSyntax(true)`.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed expectation is a test failure"
)]

use palisade_cel::{Activation, Budget, Env, Expect, Value};

/// `true`, or the evaluation error's text, or `compile: <first line of the compile error>`.
fn run(env: &Env, src: &str) -> Result<bool, String> {
    let program = env.compile(src, Expect::Any).map_err(|e| {
        let text = e.to_string();
        format!("compile: {}", text.lines().next().unwrap_or(""))
    })?;
    let act = Activation::new().bind("self", Value::string("self")).bind(
        "cr",
        Value::map(vec![
            (Value::string("name"), Value::string("req")),
            (Value::string("namespace"), Value::string("ns")),
            (Value::string("username"), Value::string("alice")),
            (Value::string("groups"), Value::list(vec![])),
        ]),
    );
    match program.eval(&act, &mut Budget::kubernetes()) {
        Ok(v) => Ok(v.as_bool().unwrap_or_else(|| panic!("{src}: not a bool"))),
        Err(e) => Err(e.to_string()),
    }
}

fn check(env: &Env, name: &str, rows: &[(&str, Result<bool, &str>)]) {
    let mut failures = Vec::new();
    for (src, want) in rows {
        let got = run(env, src);
        let want = want.map_err(str::to_string);
        if got != want {
            failures.push(format!("{src}: got {got:?}, want {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
}

/// cel-go v0.27.0 `ext/strings_test.go` `stringTests`: the rows every release since v0.22 answers alike.
const SHARED: &[(&str, Result<bool, &str>)] = &[
    ("'tacocat'.indexOf('') == 0", Ok(true)),
    ("'tacocat'.indexOf('ac') == 1", Ok(true)),
    ("'tacocat'.indexOf('none') == -1", Ok(true)),
    ("'tacocat'.indexOf('', 3) == 3", Ok(true)),
    ("'tacocat'.indexOf('a', 3) == 5", Ok(true)),
    ("'tacocat'.indexOf('at', 3) == 5", Ok(true)),
    ("'ta©o©αT'.indexOf('©') == 2", Ok(true)),
    ("'ta©o©αT'.indexOf('©', 3) == 4", Ok(true)),
    ("'ta©o©αT'.indexOf('©αT', 3) == 4", Ok(true)),
    ("'ta©o©αT'.indexOf('©α', 5) == -1", Ok(true)),
    ("'ijk'.indexOf('k') == 2", Ok(true)),
    ("'hello wello'.indexOf('hello wello') == 0", Ok(true)),
    ("'hello wello'.indexOf('ello', 6) == 7", Ok(true)),
    ("'hello wello'.indexOf('elbo room!!') == -1", Ok(true)),
    ("'hello wello'.indexOf('elbo room!!!') == -1", Ok(true)),
    ("''.lastIndexOf('@@') == -1", Ok(true)),
    ("'tacocat'.lastIndexOf('') == 7", Ok(true)),
    ("'tacocat'.lastIndexOf('at') == 5", Ok(true)),
    ("'tacocat'.lastIndexOf('none') == -1", Ok(true)),
    ("'tacocat'.lastIndexOf('', 3) == 3", Ok(true)),
    ("'tacocat'.lastIndexOf('a', 3) == 1", Ok(true)),
    ("'ta©o©αT'.lastIndexOf('©') == 4", Ok(true)),
    ("'ta©o©αT'.lastIndexOf('©', 3) == 2", Ok(true)),
    ("'ta©o©αT'.lastIndexOf('©α', 4) == 4", Ok(true)),
    ("'hello wello'.lastIndexOf('ello', 6) == 1", Ok(true)),
    ("'hello wello'.lastIndexOf('low') == -1", Ok(true)),
    ("'hello wello'.lastIndexOf('elbo room!!') == -1", Ok(true)),
    ("'hello wello'.lastIndexOf('elbo room!!!') == -1", Ok(true)),
    ("'hello wello'.lastIndexOf('hello wello') == 0", Ok(true)),
    ("'bananananana'.lastIndexOf('nana', 7) == 6", Ok(true)),
    // the error rows of `stringTests`
    ("'tacocat'.indexOf('a', 30) == -1", Ok(true)),
    (
        "'tacocat'.lastIndexOf('a', -1) == -1",
        Err("index out of range: -1"),
    ),
    ("'tacocat'.lastIndexOf('a', 30) == -1", Ok(true)),
    // Palisade's own, from `indexOfOffset`/`lastIndexOfOffset`: an offset at the end finds nothing, even where the
    // text ends with the substring; a negative offset with a substring is an error
    ("'tacocat'.indexOf('t', 7) == -1", Ok(true)),
    ("'tacocat'.lastIndexOf('t', 7) == -1", Ok(true)),
    ("'tacocat'.lastIndexOf('t', 6) == 6", Ok(true)),
    ("'tacocat'.lastIndexOf('t') == 6", Ok(true)),
    (
        "'tacocat'.indexOf('a', -1) == -1",
        Err("index out of range: -1"),
    ),
    ("''.indexOf('a') == -1", Ok(true)),
    ("''.lastIndexOf('') == 0", Ok(true)),
    ("'é'.lastIndexOf('ab') == -1", Ok(true)),
];

#[test]
fn kube_apiserver_finds_an_empty_substring_at_any_offset() {
    let env = Env::admission();
    check(&env, "kube-apiserver, shared rows", SHARED);
    check(
        &env,
        "kube-apiserver, empty substring",
        &[
            ("'tacocat'.indexOf('', 7) == 7", Ok(true)),
            ("'tacocat'.indexOf('', 30) == 30", Ok(true)),
            ("'tacocat'.indexOf('', -1) == -1", Ok(true)),
            ("'tacocat'.lastIndexOf('', 7) == 7", Ok(true)),
            ("'tacocat'.lastIndexOf('', 30) == 30", Ok(true)),
            ("'tacocat'.lastIndexOf('', -1) == -1", Ok(true)),
        ],
    );
}

#[test]
fn approver_policy_clamps_an_empty_substrings_offset_and_refuses_a_negative_one() {
    let env = Env::certificate_request();
    check(&env, "approver-policy, shared rows", SHARED);
    // cel-go 14f6746a `stringTests`
    check(
        &env,
        "approver-policy, empty substring",
        &[
            ("'tacocat'.indexOf('', 7) == 7", Ok(true)),
            ("'tacocat'.indexOf('', 30) == 7", Ok(true)),
            (
                "'tacocat'.indexOf('', -1) == 0",
                Err("index out of range: -1"),
            ),
            ("'tacocat'.lastIndexOf('', 7) == 7", Ok(true)),
            ("'tacocat'.lastIndexOf('', 30) == 7", Ok(true)),
            (
                "'tacocat'.lastIndexOf('', -1) == 0",
                Err("index out of range: -1"),
            ),
        ],
    );
}

#[test]
fn the_conformance_environment_refuses_an_offset_outside_the_string() {
    let env = Env::standard();
    check(
        &env,
        "cel-spec",
        &[
            // string_ext value_errors (cel-spec), the rows cel-go skips
            (
                "'tacocat'.indexOf('a', 30) == -1",
                Err("index out of range: 30"),
            ),
            (
                "'tacocat'.lastIndexOf('a', 30) == -1",
                Err("index out of range: 30"),
            ),
            (
                "'tacocat'.lastIndexOf('a', -1) == -1",
                Err("index out of range: -1"),
            ),
            (
                "'tacocat'.indexOf('', 30) == 30",
                Err("index out of range: 30"),
            ),
            ("'tacocat'.indexOf('', 7) == 7", Ok(true)),
            ("'tacocat'.lastIndexOf('t', 7) == 6", Ok(true)),
        ],
    );
}

#[test]
fn approver_policy_reads_escaped_identifiers_as_cel_go_v0_28_and_later_do() {
    let env = Env::certificate_request();
    check(
        &env,
        "approver-policy, escaped identifiers",
        &[
            // parser_test.go `a.\`b-c\``, `a.\`b c\``, `a.\`b.c\``, `a.\`in\``, `a.\`/foo\`` on a map
            ("{'b-c': true}.`b-c`", Ok(true)),
            ("{'b c': true}.`b c`", Ok(true)),
            ("{'b.c': true}.`b.c`", Ok(true)),
            ("{'in': true}.`in`", Ok(true)),
            ("{'/foo': true}.`/foo`", Ok(true)),
            ("has({'b-c': 1}.`b-c`)", Ok(true)),
            ("cr.`name` == 'req'", Ok(true)),
            (
                "`b-c`",
                Err(
                    "compile: ERROR: <input>:1:1: Syntax error: mismatched input '`b-c`' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
                ),
            ),
            (
                "`b-c`()",
                Err(
                    "compile: ERROR: <input>:1:1: Syntax error: extraneous input '`b-c`' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
                ),
            ),
            (
                "{'$b': 1}.`$b` == 1",
                Err("compile: ERROR: <input>:1:11: Syntax error: token recognition error at: '`$'"),
            ),
            (
                "{'b.c': 1}.`b.c`() == 1",
                Err(
                    "compile: ERROR: <input>:1:17: Syntax error: mismatched input '(' expecting <EOF>",
                ),
            ),
        ],
    );
}
