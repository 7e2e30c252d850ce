#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]

use serde_json::json;

use super::*;

fn one(text: &str) -> Value {
    from_str(text).unwrap()
}

/// serde_yaml 0.9's resolution of plain scalars (the YAML 1.2 core schema), value by value.
#[test]
fn plain_scalars_resolve_as_serde_yaml_did() {
    let cases = [
        ("~", json!(null)),
        ("null", json!(null)),
        ("NULL", json!(null)),
        ("", json!(null)),
        ("true", json!(true)),
        ("True", json!(true)),
        ("FALSE", json!(false)),
        ("yes", json!("yes")),
        ("no", json!("no")),
        ("on", json!("on")),
        ("y", json!("y")),
        ("1", json!(1)),
        ("-1", json!(-1)),
        ("+1", json!(1)),
        ("0", json!(0)),
        ("-0", json!(0)),
        ("0x1f", json!(31)),
        ("-0x1f", json!(-31)),
        ("0o17", json!(15)),
        ("0b101", json!(5)),
        ("0123", json!("0123")),
        ("-0123", json!("-0123")),
        ("1.5", json!(1.5)),
        ("1.0", json!(1.0)),
        ("1e3", json!(1000.0)),
        ("-.5", json!(-0.5)),
        (".inf", json!(null)),
        (".nan", json!(null)),
        ("inf", json!("inf")),
        ("1_000", json!("1_000")),
        (
            "18446744073709551615",
            json!(18_446_744_073_709_551_615_u64),
        ),
        ("-9223372036854775808", json!(i64::MIN)),
        ("1.2.3", json!("1.2.3")),
        ("0x", json!("0x")),
        ("++1", json!("++1")),
        ("2024-01-01", json!("2024-01-01")),
        ("500m", json!("500m")),
    ];
    for (text, want) in cases {
        assert_eq!(one(&format!("v: {text}\n"))["v"], want, "`{text}`");
    }
    // integers stay integers and floats stay floats
    assert!(one("v: 3")["v"].is_u64());
    assert!(one("v: 3.0")["v"].is_f64());
}

#[test]
fn quoted_and_block_scalars_are_strings_and_tags_force_types() {
    let v = one(
        "a: '1'\nb: \"true\"\nc: |\n  null\nd: !!str 3\ne: !!int '7'\nf: !!float 2\ng: !!bool \"true\"\n",
    );
    assert_eq!(
        v,
        json!({"a": "1", "b": "true", "c": "null\n", "d": "3", "e": 7, "f": 2.0, "g": true})
    );
    assert!(
        from_str("a: !!int x")
            .unwrap_err()
            .message
            .contains("expected an integer")
    );
    assert!(
        from_str("a: !Custom x")
            .unwrap_err()
            .message
            .contains("unsupported tag `!Custom`")
    );
}

#[test]
fn a_tagged_root_is_read_with_its_tag() {
    let (tag, v) =
        from_str_tagged("!KubernetesGetResource\nkind: Namespace\nname: a\n", true).unwrap();
    assert_eq!(tag.as_deref(), Some("!KubernetesGetResource"));
    assert_eq!(v, json!({"kind": "Namespace", "name": "a"}));
    assert_eq!(from_str_tagged("kind: A", true).unwrap().0, None);
}

#[test]
fn streams_keys_anchors_and_limits() {
    let docs = parse_documents("a: 1\n---\n---\n- b\n...\n").unwrap();
    let values: Vec<_> = docs.iter().map(|d| d.value.clone()).collect();
    assert_eq!(values, [json!({"a": 1}), json!(null), json!(["b"])]);
    assert!(from_str("a: 1\n---\nb: 2\n").is_err());
    assert_eq!(from_str("").unwrap(), json!(null));
    // keys are the text of the key scalar
    assert_eq!(
        one("1: a\ntrue: b\n~: c\n"),
        json!({"1": "a", "true": "b", "~": "c"})
    );
    assert_eq!(
        one("base: &b {x: 1, y: [2]}\ncopy: *b\n"),
        json!({"base": {"x": 1, "y": [2]}, "copy": {"x": 1, "y": [2]}})
    );
    let dup = from_str("a: 1\nb: 2\na: 3\n").unwrap_err();
    assert_eq!(
        (dup.message.as_str(), dup.line, dup.column),
        ("duplicate key `a`", 3, 1)
    );
    assert!(from_str("? [a]\n: 1\n").is_err());
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert!(
        from_str(&deep)
            .unwrap_err()
            .message
            .contains("recursion limit")
    );
    let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert!(from_str(&ok).is_ok());
    // a billion laughs
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let prev = i - 1;
        bomb.push_str(&format!("a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"));
    }
    assert!(
        from_str(&bomb)
            .unwrap_err()
            .message
            .contains("repetition limit")
    );
    let bad = from_str("a: [1, 2\nb: 3\n").unwrap_err();
    assert!(bad.line > 0, "{bad}");
}

#[test]
fn json_reads_as_json() {
    let v = one(r#"{"a": 1.5, "b": [1, "x", null, true], "c": {"d": -2}}"#);
    assert_eq!(
        v,
        json!({"a": 1.5, "b": [1, "x", null, true], "c": {"d": -2}})
    );
}

const BUNDLE: &str = "\
policies:
- apiVersion: admissionregistration.k8s.io/v1
  kind: ValidatingAdmissionPolicy
  spec:
    validations:
    - expression: object.spec.replicas <= 5
      message: \"too many\"
    - expression: |
        true &&
          object.x
    - expression: >
        folded
        text
";

#[test]
fn every_node_has_its_location() {
    let docs = parse_documents(BUNDLE).unwrap();
    let doc = &docs[0];
    let at = |path: &str| {
        let l = doc
            .locations
            .get(path)
            .unwrap_or_else(|| panic!("{path}: {:?}", doc.locations.keys()));
        (l.line, l.column)
    };
    assert_eq!(at(""), (1, 1));
    assert_eq!(at("policies"), (1, 1));
    assert_eq!(at("policies[0]"), (2, 3));
    assert_eq!(at("policies[0].kind"), (3, 3));
    assert_eq!(at("policies[0].spec.validations"), (5, 5));
    assert_eq!(at("policies[0].spec.validations[0]"), (6, 7));
    assert_eq!(at("policies[0].spec.validations[0].expression"), (6, 7));
    assert_eq!(at("policies[0].spec.validations[0].message"), (7, 7));
    // a missing field points at its nearest ancestor
    let missing = doc.locate("policies[0].spec.validations[0].nope").unwrap();
    assert_eq!((missing.line, missing.column), (6, 7));
    assert_eq!(
        doc.locate("policies[3].x").map(|l| (l.line, l.column)),
        Some((1, 1))
    );

    // inside a plain scalar
    let plain = doc.locations["policies[0].spec.validations[0].expression"];
    assert_eq!((plain.value_line, plain.value_column), (6, 19));
    assert_eq!(plain.inside(1, 8), (6, 26)); // `spec`'s `s`... column 8 of the expression
    // inside a quoted scalar: after the quote
    let quoted = doc.locations["policies[0].spec.validations[0].message"];
    assert_eq!(quoted.style, Style::DoubleQuoted);
    assert_eq!(quoted.inside(1, 1), (7, 17));
    // inside a `|` block: the line in the block, the column past its indentation
    let block = doc.locations["policies[0].spec.validations[1].expression"];
    assert_eq!(block.style, Style::Literal);
    assert_eq!((block.line, block.column), (8, 7));
    assert_eq!(block.inside(2, 3), (10, 11));
    assert_eq!(block.inside(1, 1), (9, 9));
    let folded = doc.locations["policies[0].spec.validations[2].expression"];
    assert_eq!(folded.inside(1, 5), (12, 9));
    // a block starting with empty lines
    let docs = parse_documents("a: |\n\n\n  x\n  yz\n").unwrap();
    assert_eq!(docs[0].value["a"], "\n\nx\nyz\n");
    assert_eq!(docs[0].locations["a"].inside(4, 2), (5, 4));
}

#[test]
fn paths_and_parents() {
    assert_eq!(parent("a.b[0].c"), "a.b[0]");
    assert_eq!(parent("a.b[0]"), "a.b");
    assert_eq!(parent("[0][1]"), "[0]");
    assert_eq!(parent("a"), "");
    assert_eq!(child_key("", "a"), "a");
    assert_eq!(child_index("", 1), "[1]");
}

#[test]
fn written_yaml_reads_back_the_same() {
    let values = [
        json!({"name": "x", "n": 1, "f": 1.5, "whole": 2.0, "big": 1e300, "t": true, "nil": null}),
        json!({"strings": ["yes", "no", "true", "1", "0123", "1.5", "", " lead", "trail ", "a: b", "a #b", "#c",
                           "- d", "[e]", "{f}", "'g'", "\"h\"", "~", "null", "*i", "&j", "!k", "%l", "@m", "`n",
                           "a\tb", "é", "x:", "..."]}),
        json!({"multi": "line one\nline two\n", "no-final": "a\nb", "two-final": "a\n\n", "leading": "\nx\ny",
               "indented": " a\nb", "blank": "a\n\nb\n", "tab": "a\n\tb"}),
        json!([[1, [2, 3]], {"a": [{"b": {}}, []]}, {}]),
        json!({"weird key": 1, "k: v": 2, "": 3, "1": 4, "true": 5, "a\nb": 6}),
        json!("top"),
        json!("top\nlevel\n"),
        json!([]),
        json!({}),
        json!(7),
    ];
    for v in values {
        let text = to_string(&v);
        assert_eq!(from_str(&text).unwrap(), v, "{text}");
    }
    assert_eq!(
        to_string(&json!({"a": {"b": [1, {"c": "x\ny\n"}]}, "d": "e"})),
        "a:\n  b:\n  - 1\n  - c: |\n      x\n      y\nd: e\n"
    );
}

#[test]
fn json_or_yaml_reads_json_numbers_as_json_and_skips_empty_documents() {
    // JSON: serde_json's numbers (an integer stays one), with the YAML reader's locations
    let docs = parse_json_or_yaml("{\"a\": 1, \"b\": 1.5,\n \"c\": [true]}").unwrap();
    assert_eq!(docs.len(), 1);
    assert_eq!(docs[0].value, json!({"a": 1, "b": 1.5, "c": [true]}));
    assert_eq!(
        docs[0].locate("c[0]").map(|l| (l.line, l.column)),
        Some((2, 8))
    );
    // doubles exact, as kube-apiserver reads them (serde_json's default reading gives 1.3799999999999998e-23)
    let docs = parse_json_or_yaml("[1.38e-23, -5.43e-21]").unwrap();
    let doubles: Vec<_> = docs[0]
        .value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap().to_bits())
        .collect();
    assert_eq!(doubles, [1.38e-23f64.to_bits(), (-5.43e-21f64).to_bits()]);
    // YAML: every document but the empty ones
    let docs = parse_json_or_yaml("kind: A\n---\n---\nkind: B\n").unwrap();
    let values: Vec<_> = docs.into_iter().map(|d| d.value).collect();
    assert_eq!(values, [json!({"kind": "A"}), json!({"kind": "B"})]);
    // text that looks like JSON but is not is read as YAML, and its error is YAML's
    assert!(parse_json_or_yaml("{a: [1, 2}").is_err());
    assert_eq!(
        parse_json_or_yaml("{a: 1}").unwrap()[0].value,
        json!({"a": 1})
    );
}
