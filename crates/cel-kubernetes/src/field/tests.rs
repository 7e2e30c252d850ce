use super::*;
use serde_json::json;

// upstream: k8s.io/apimachinery/pkg/util/validation/field/path_test.go TestPath
#[test]
fn paths() {
    let root = Path::new("root");
    let first = root.child("first");
    let second = first.child("second");
    let zero = second.index(0);
    let third = zero.child("third");
    let cases = [
        (&root, "root"),
        (&first, "root.first"),
        (&second, "root.first.second"),
        (&zero, "root.first.second[0]"),
        (&third, "root.first.second[0].third"),
        (&third.index(93), "root.first.second[0].third[93]"),
        (&zero.key("key"), "root.first.second[0][key]"),
    ];
    for (p, want) in cases {
        assert_eq!(p.to_string(), want);
    }
}

// upstream: k8s.io/apimachinery/pkg/util/validation/field/path_test.go TestPathMultiArg
// (`NewPath("root", "first")`, `Child("second", "third")` as successive children)
#[test]
fn paths_multi_arg() {
    let p = Path::new("root").child("first");
    assert_eq!(p.to_string(), "root.first");
    let p = p.child("second").child("third");
    assert_eq!(p.to_string(), "root.first.second.third");
    assert_eq!(p.index(0).to_string(), "root.first.second.third[0]");
}

// ours: relative paths (a parser's) joined under the caller's
#[test]
fn relative_paths_join() {
    let rel = Path::root().child("rules").index(0).child("operations");
    assert_eq!(rel.as_str(), "rules[0].operations");
    assert_eq!(Path::root().index(2).as_str(), "[2]");
    let spec = Path::new("spec").child("matchConstraints");
    assert_eq!(
        spec.join(rel.as_str()).as_str(),
        "spec.matchConstraints.rules[0].operations"
    );
    assert_eq!(spec.join("[1]").as_str(), "spec.matchConstraints[1]");
    assert_eq!(spec.join("").as_str(), "spec.matchConstraints");
    assert_eq!(Path::root().join("a.b").as_str(), "a.b");
    assert_eq!(
        Path::new("metadata").child("labels").key("app").as_str(),
        "metadata.labels[app]"
    );
}

fn raw(kind: ErrorType, value: BadValue) -> Error {
    Error {
        kind,
        field: "path.to.field".to_owned(),
        bad_value: value,
        detail: "the details".to_owned(),
    }
}

// upstream: k8s.io/apimachinery/pkg/util/validation/field/errors_test.go TestErrorFormatting
#[test]
fn error_formatting() {
    let p = Path::new("path.to.field");
    let the_value = || BadValue::from("the value");
    let cases: Vec<(Error, &str)> = vec![
        (
            raw(ErrorType::Required, the_value()),
            "path.to.field: Required value: the details",
        ),
        (
            Error::required(&p, "the details"),
            "path.to.field: Required value: the details",
        ),
        (
            raw(ErrorType::Forbidden, the_value()),
            "path.to.field: Forbidden: the details",
        ),
        (
            Error::forbidden(&p, "the details"),
            "path.to.field: Forbidden: the details",
        ),
        (
            raw(ErrorType::TooLong, the_value()),
            "path.to.field: Too long: the details",
        ),
        (
            Error::too_long(&p, 1),
            "path.to.field: Too long: may not be more than 1 byte",
        ),
        (
            Error::too_long(&p, 2),
            "path.to.field: Too long: may not be more than 2 bytes",
        ),
        (
            Error::too_long(&p, -1),
            "path.to.field: Too long: value is too long",
        ),
        (
            raw(ErrorType::TooMany, the_value()),
            r#"path.to.field: Too many: "the value": the details"#,
        ),
        (
            Error::too_many(&p, 2, 1),
            "path.to.field: Too many: 2: must have at most 1 item",
        ),
        (
            Error::too_many(&p, 3, 2),
            "path.to.field: Too many: 3: must have at most 2 items",
        ),
        (
            Error::too_many(&p, 2, -1),
            "path.to.field: Too many: 2: has too many items",
        ),
        (
            Error::too_many(&p, -1, 1),
            "path.to.field: Too many: must have at most 1 item",
        ),
        (
            raw(ErrorType::Internal, the_value()),
            "path.to.field: Internal error: the details",
        ),
        (
            Error::internal(&p, "the error"),
            "path.to.field: Internal error: the error",
        ),
        (
            raw(ErrorType::Invalid, the_value()),
            r#"path.to.field: Invalid value: "the value": the details"#,
        ),
        (
            raw(ErrorType::Invalid, BadValue::Int(-42)),
            "path.to.field: Invalid value: -42: the details",
        ),
        (
            raw(ErrorType::Invalid, BadValue::Bool(true)),
            "path.to.field: Invalid value: true: the details",
        ),
        (
            raw(
                ErrorType::Invalid,
                BadValue::strings(&["one", "two", "three"]),
            ),
            r#"path.to.field: Invalid value: ["one","two","three"]: the details"#,
        ),
        (
            raw(
                ErrorType::Invalid,
                BadValue::Json(json!({"one": 1, "two": 2, "three": 3})),
            ),
            r#"path.to.field: Invalid value: {"one":1,"three":3,"two":2}: the details"#,
        ),
        (
            raw(ErrorType::Invalid, BadValue::Omitted),
            "path.to.field: Invalid value: the details",
        ),
        (
            raw(ErrorType::Invalid, BadValue::Json(Value::Null)),
            "path.to.field: Invalid value: null: the details",
        ),
        (
            Error::invalid(&p, "the value", "the details"),
            r#"path.to.field: Invalid value: "the value": the details"#,
        ),
        (
            raw(ErrorType::NotFound, the_value()),
            r#"path.to.field: Not found: "the value": the details"#,
        ),
        (
            raw(ErrorType::NotSupported, the_value()),
            r#"path.to.field: Unsupported value: "the value": the details"#,
        ),
        (
            Error::not_supported(&p, "the value", &["val1", "val2"]),
            r#"path.to.field: Unsupported value: "the value": supported values: "val1", "val2""#,
        ),
        (
            raw(ErrorType::Duplicate, the_value()),
            r#"path.to.field: Duplicate value: "the value": the details"#,
        ),
        (
            Error::duplicate(&p, "the value"),
            r#"path.to.field: Duplicate value: "the value""#,
        ),
        (
            raw(ErrorType::TypeInvalid, the_value()),
            r#"path.to.field: Invalid value: "the value": the details"#,
        ),
        (
            Error::type_invalid(&p, "the value", "the details"),
            r#"path.to.field: Invalid value: "the value": the details"#,
        ),
    ];
    for (err, want) in cases {
        assert_eq!(err.to_string(), want);
    }
}

// upstream: k8s.io/apimachinery/pkg/util/validation/field/errors_test.go TestToAggregate (as
// messages)
#[test]
fn to_aggregate() {
    let f = Path::new("f");
    let inv = || Error::invalid(&f, "v", "d");
    assert_eq!(aggregate(&[]), None);
    assert_eq!(
        aggregate(&[inv()]).as_deref(),
        Some(r#"f: Invalid value: "v": d"#)
    );
    assert_eq!(
        aggregate(&[inv(), inv()]).as_deref(),
        Some(r#"f: Invalid value: "v": d"#)
    );
    assert_eq!(
        aggregate(&[inv(), Error::internal(&Path::root(), "e")]).as_deref(),
        Some(r#"[f: Invalid value: "v": d, : Internal error: e]"#)
    );
}

// upstream: k8s.io/apimachinery/pkg/util/validation/field/errors.go ErrorBody — non-string
// values are Go's json.Marshal, which escapes HTML characters; a string is %q.
#[test]
fn values_render_like_go() {
    let p = Path::new("x");
    assert_eq!(
        Error::invalid(&p, &json!({"a": "<b>"}), "").to_string(),
        r#"x: Invalid value: {"a":"\u003cb\u003e"}"#
    );
    assert_eq!(
        Error::invalid(&p, "a\tb\u{7f}", "").to_string(),
        r#"x: Invalid value: "a\tb\x7f""#
    );
    assert_eq!(
        Error::invalid(&p, &json!(1.5), "d").to_string(),
        "x: Invalid value: 1.5: d"
    );
    assert_eq!(
        invalid_each(&p, "v", vec!["a".to_owned(), "b".to_owned()])
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        vec![
            r#"x: Invalid value: "v": a"#.to_owned(),
            r#"x: Invalid value: "v": b"#.to_owned()
        ]
    );
}
