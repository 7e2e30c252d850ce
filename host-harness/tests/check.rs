//! `palisade check` golden tests: every diagnostic on its own line as `FILE:LINE:COL: severity: PATH: MESSAGE`, the
//! position mapped back to the bundle's YAML (inside a CEL expression for a compile error), help below it.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

mod common;

use std::process::Command;

fn check(file: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_palisade"))
        .args(["check", file])
        .current_dir(common::workspace())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// A CEL syntax error in a plain scalar (column 24 of the expression, which starts at column 19 of line 17), an
/// undeclared reference on line 2 of a `|` block (column 3 past the block's indentation), a missing required field
/// (at its parent, `spec`, line 26).
#[test]
fn broken_bundle_golden() {
    // cel-go's issues: a selection from a name it could not type (`objekt.spec`) is not reported again
    let (code, out) = check("tests/check/broken-bundle.yaml");
    let expected = "\
tests/check/broken-bundle.yaml:17:42: error: policies[0].spec.validations[0].expression: compilation error: ERROR: <input>:1:24: Syntax error: extraneous input '*' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
   | object.spec.replicas <=* 5
   | .......................^
tests/check/broken-bundle.yaml:20:11: error: policies[0].spec.validations[1].expression: compilation error: ERROR: <input>:2:3: undeclared reference to 'objekt' (in container '')
   |   objekt.spec.replicas > 0
   | ..^
tests/check/broken-bundle.yaml:26:3: error: policies[1].spec.policyName: Required value
error: `tests/check/broken-bundle.yaml` does not compile: 3 errors
";
    assert_eq!(out, expected);
    assert_eq!(code, 1);
    // the positions are where the file says they are
    let text = std::fs::read_to_string(common::workspace().join("tests/check/broken-bundle.yaml"))
        .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(&lines[16][41..42], "*");
    assert_eq!(&lines[19][10..16], "objekt");
    assert_eq!(&lines[25][2..7], "spec:");
}

/// A policy without a binding compiles with a warning, at its document (line 3 of a stream).
#[test]
fn warnings_golden() {
    let (code, out) = check("tests/check/unbound-policy.yaml");
    assert_eq!(
        out,
        "\
tests/check/unbound-policy.yaml:3:1: warning: policies[0]: ValidatingAdmissionPolicy `unbound` has no binding, so it has no effect
  = help: add a ValidatingAdmissionPolicyBinding whose spec.policyName names it
ok: `tests/check/unbound-policy.yaml` compiles (1 document, 1 warning)
"
    );
    assert_eq!(code, 0);
}

/// A file that is not YAML is reported at the parser's position.
#[test]
fn unreadable_yaml_golden() {
    let dir = common::scratch_dir("check-unreadable");
    let file = dir.join("bad.yaml");
    std::fs::write(&file, "policies:\n- kind: [A\n  spec: 1\n").unwrap();
    let (code, out) = check(file.to_str().unwrap());
    let first = out.lines().next().unwrap();
    assert!(first.starts_with(&format!("{}:", file.display())), "{out}");
    assert!(first.contains(": error: "), "{out}");
    assert!(
        out.ends_with("does not compile: it is not valid YAML or JSON\n"),
        "{out}"
    );
    assert_eq!(code, 1);
}
