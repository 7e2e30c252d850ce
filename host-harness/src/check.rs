//! `palisade check`: a bundle's diagnostics printed the way compilers print theirs, one per line as
//! `FILE:LINE:COL: error: PATH: MESSAGE`, the rest of a multi-line message indented below it, then `  = help: …`.
//!
//! LINE:COL is where the diagnostic's field path is written in the bundle file (its key, for a mapping field; its
//! nearest ancestor present, for a missing field). For a CEL expression that does not compile it is the position of
//! the error inside the expression, counted from where the expression starts in the file (exact for a one-line plain
//! or quoted scalar and for a `|` block).

use serde_json::Value;

use crate::documents::BundleSource;

/// What `check` found: the text to print and whether the bundle compiles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub text: String,
    pub errors: usize,
    pub warnings: usize,
}

/// One diagnostic of a configure answer (`problems` or `diagnostics`), as compilers print one.
pub fn format_diagnostic(file: &str, source: Option<&BundleSource>, d: &Value) -> String {
    let severity = d.get("severity").and_then(Value::as_str).unwrap_or("error");
    let path = d.get("path").and_then(Value::as_str).unwrap_or("");
    let message = d.get("message").and_then(Value::as_str).unwrap_or("");
    let position = source.and_then(|s| s.locate(path)).map(|at| {
        let inside = d.get("expression").and_then(|e| {
            Some((
                usize::try_from(e.get("line")?.as_u64()?).ok()?,
                usize::try_from(e.get("column")?.as_u64()?).ok()?,
            ))
        });
        match inside {
            Some((line, column)) => at.inside(line, column),
            None => (at.line, at.column),
        }
    });
    let mut out = match position {
        Some((line, column)) => format!("{file}:{line}:{column}: {severity}: "),
        None => format!("{file}: {severity}: "),
    };
    if !path.is_empty() {
        out.push_str(path);
        out.push_str(": ");
    }
    let mut lines = message.split('\n');
    out.push_str(lines.next().unwrap_or(""));
    out.push('\n');
    for line in lines {
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
    }
    if let Some(help) = d.get("help").and_then(Value::as_str) {
        out.push_str("  = help: ");
        out.push_str(help);
        out.push('\n');
    }
    out
}

/// The report of a C ABI configure answer for the bundle file `file` holding `documents` policies.
pub fn report(
    file: &str,
    source: Option<&BundleSource>,
    answer: &Value,
    documents: usize,
) -> Report {
    let list = |key: &str| {
        answer
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let problems = list("problems");
    let warnings = list("diagnostics");
    let mut text = String::new();
    for d in warnings.iter().chain(&problems) {
        text.push_str(&format_diagnostic(file, source, d));
    }
    let valid = answer
        .get("valid")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let unlisted = answer.get("unlisted").and_then(Value::as_u64).unwrap_or(0);
    let mut errors = problems.len() + usize::try_from(unlisted).unwrap_or(usize::MAX);
    if !valid && errors == 0 {
        // an answer without problems (a module older than the problems list): its message is the diagnostic
        let message = answer
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("the bundle was rejected");
        text.push_str(&format_diagnostic(
            file,
            None,
            &serde_json::json!({"message": message}),
        ));
        errors = 1;
    }
    if unlisted > 0 {
        text.push_str(&format!(
            "{file}: error: and {unlisted} more problems not listed\n"
        ));
    }
    if valid {
        text.push_str(&format!(
            "ok: `{file}` compiles ({documents} document{}",
            plural(documents)
        ));
        if !warnings.is_empty() {
            text.push_str(&format!(
                ", {} warning{}",
                warnings.len(),
                plural(warnings.len())
            ));
        }
        text.push_str(")\n");
    } else {
        text.push_str(&format!(
            "error: `{file}` does not compile: {errors} error{}",
            plural(errors)
        ));
        if !warnings.is_empty() {
            text.push_str(&format!(
                ", {} warning{}",
                warnings.len(),
                plural(warnings.len())
            ));
        }
        text.push('\n');
    }
    Report {
        text,
        errors,
        warnings: warnings.len(),
    }
}

/// The report of a bundle file that is not valid YAML or JSON.
pub fn unreadable(file: &str, e: &palisade_yaml::Error) -> Report {
    let at = if e.line > 0 {
        format!("{file}:{}:{}", e.line, e.column)
    } else {
        file.to_owned()
    };
    Report {
        text: format!(
            "{at}: error: {}\nerror: `{file}` does not compile: it is not valid YAML or JSON\n",
            e.message
        ),
        errors: 1,
        warnings: 0,
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const BUNDLE: &str =
        "policies:\n- kind: A\n  spec:\n    validations:\n    - expression: object.x <=* 3\n";

    #[test]
    fn a_cel_error_points_inside_the_expression() {
        let source = BundleSource::parse(BUNDLE).unwrap();
        let d = json!({"severity": "error", "path": "policies[0].spec.validations[0].expression",
            "message": "compilation error: ERROR: <input>:1:12: Syntax error: x\n | object.x <=* 3\n | ...........^",
            "expression": {"line": 1, "column": 12, "offset": 11}, "help": "fix it"});
        assert_eq!(
            format_diagnostic("b.yaml", Some(&source), &d),
            "b.yaml:5:30: error: policies[0].spec.validations[0].expression: compilation error: ERROR: <input>:1:12: Syntax error: x\n   | object.x <=* 3\n   | ...........^\n  = help: fix it\n"
        );
        let w = json!({"severity": "warning", "path": "policies[0].spec.nope", "message": "m"});
        assert_eq!(
            format_diagnostic("b.yaml", Some(&source), &w),
            "b.yaml:3:3: warning: policies[0].spec.nope: m\n"
        );
        assert_eq!(
            format_diagnostic("b.yaml", None, &w),
            "b.yaml: warning: policies[0].spec.nope: m\n"
        );
    }

    #[test]
    fn reports_count_errors_and_warnings() {
        let ok = report("b.yaml", None, &json!({"valid": true}), 2);
        assert_eq!(ok.text, "ok: `b.yaml` compiles (2 documents)\n");
        let bad = report(
            "b.yaml",
            None,
            &json!({"valid": false, "message": "m", "problems": [{"path": "", "message": "x"}], "unlisted": 2}),
            1,
        );
        assert_eq!(bad.errors, 3);
        assert!(
            bad.text
                .ends_with("error: `b.yaml` does not compile: 3 errors\n"),
            "{}",
            bad.text
        );
    }
}
