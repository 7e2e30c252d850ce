//! The tape against serde_json's `Value` as an oracle: the same acceptance, the same values (integers bit for bit,
//! doubles exact where serde_json's default reading may be one unit in the last place off).

use super::*;

/// Both readers accept or both refuse `text`; when they accept, the values print the same but for doubles one unit in
/// the last place apart (so `-0.0`, `1e-400` and big integers are compared by serde_json's own formatting, and objects
/// as sorted, deduplicated maps).
fn agree(text: &str) -> bool {
    let oracle = serde_json::from_str::<Value>(text);
    let ours = Doc::parse_with_depth(text, SERDE_JSON_DEPTH);
    // read by a deserializer: serde_json's own acceptance and words; written back, the same value
    let built = serde_json::from_str::<Doc>(text);
    assert_eq!(
        built
            .as_ref()
            .map(|d| d.to_value())
            .map_err(ToString::to_string),
        oracle
            .as_ref()
            .map(Clone::clone)
            .map_err(ToString::to_string),
        "built differs for {text:?}"
    );
    // read with the input as the source of its strings: the same document
    let source: std::sync::Arc<String> = std::sync::Arc::new(text.to_owned());
    let sourced = crate::reading_source(&source, |t| serde_json::from_str::<Doc>(t));
    assert_eq!(
        sourced.as_ref().map(|d| d.to_value()).ok(),
        built.as_ref().map(|d| d.to_value()).ok(),
        "read with a source differs for {text:?}"
    );
    if let Ok(d) = &built {
        // both written and read again (serde_json's float reading may move a double by one unit in the last place)
        let written = serde_json::from_str::<Value>(&d.root().to_json()).ok();
        let reread = oracle
            .as_ref()
            .ok()
            .and_then(|v| serde_json::from_str::<Value>(&v.to_string()).ok());
        let same = match (&written, &reread) {
            (Some(w), Some(r)) => crate::same_but_doubles(&w.to_string(), &r.to_string()),
            _ => written == reread,
        };
        assert!(
            same,
            "to_json differs for {text:?}: {written:?} and {reread:?}"
        );
    }
    match (&oracle, &ours) {
        (Ok(v), Ok(d)) => {
            assert!(
                crate::same_but_doubles(&d.to_value().to_string(), &v.to_string()),
                "values differ for {text:?}: {} and {v}",
                d.to_value()
            );
            // laid out from the value itself: the very same value, bit for bit
            let again = Doc::from_value(v).map(|d| d.to_value());
            assert_eq!(
                again.ok().as_ref(),
                Some(v),
                "from_value differs for {text:?}"
            );
        }
        (Err(_), Err(_)) => {}
        _ => panic!("acceptance differs for {text:?}: serde_json {oracle:?}, tape {ours:?}"),
    }
    oracle.is_ok()
}

const CASES: &[&str] = &[
    "null",
    "true",
    "false",
    "0",
    "-0",
    "1",
    "-1",
    "01",
    "-01",
    "1.",
    ".5",
    "1.5",
    "-1.5",
    "1e5",
    "1E5",
    "1e+5",
    "1e-5",
    "1e",
    "1e+",
    "-",
    "--1",
    "+1",
    "1.5e308",
    "1e309",
    "1e400",
    "-1e400",
    "1e-400",
    "0.0",
    "-0.0",
    "0e0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "-18446744073709551616",
    "123456789012345678901234567890",
    "1.7976931348623157e308",
    "2.2250738585072014e-308",
    "4.9e-324",
    "0.1",
    "0.30000000000000004",
    "123456789012345678901234567890.123e-10",
    "1e-7",
    "100000000000000000000000e-10",
    "\"\"",
    "\"a\"",
    "\"\\\"\"",
    "\"\\\\\"",
    "\"\\/\"",
    "\"\\b\\f\\n\\r\\t\"",
    "\"\\u0041\"",
    "\"\\u00e9\"",
    "\"\\ud83d\\ude00\"",
    "\"\\ud83d\"",
    "\"\\ude00\"",
    "\"\\ud83dx\"",
    "\"\\ud83d\\u0041\"",
    "\"\\ud83d\\n\"",
    "\"\\ud83d\\ud83d\"",
    "\"\\u12\"",
    "\"\\u12g4\"",
    "\"\\x\"",
    "\"\\\"",
    "\"abc",
    "\"a\tb\"",
    "\"a\nb\"",
    "\"a\u{7f}b\"",
    "\"é日本\"",
    "\"a\\u0000b\"",
    "\"\u{1f600}\"",
    "[]",
    "[ ]",
    "[1]",
    "[1,]",
    "[,1]",
    "[1 2]",
    "[1,2,[3,[4,[]]]]",
    "[",
    "]",
    "{}",
    "{ }",
    "{\"a\":1}",
    "{\"a\":1,}",
    "{\"a\"}",
    "{\"a\":}",
    "{a:1}",
    "{\"a\":1 \"b\":2}",
    "{\"b\":1,\"a\":2}",
    "{\"a\":1,\"a\":2}",
    "{\"a\":1,\"b\":2,\"a\":null}",
    "{\"a\":{\"b\":[1,{\"c\":\"d\"}]},\"e\":[]}",
    "{1:2}",
    " \n\t\r[1] \n",
    " ",
    "",
    "[1] x",
    "[1]]",
    "{}}",
    "nul",
    "nulll",
    "truex",
    "tru",
    "[true,false,null]",
    "[-]",
    "[1.0e]",
    "{\"\\u0041\":1,\"A\":2}",
    "{\"a\\nb\":\"c\\td\",\"é\":\"\\u00e9\"}",
    "[\"\\ud800\\udc00\", \"\\uDBFF\\uDFFF\"]",
    "\u{feff}[]",
    "[1,\n2]",
    "{\"a\" : 1 , \"b\" : [ ] }",
    "[0x10]",
    "[NaN]",
    "[Infinity]",
    "[-Infinity]",
    "[1e01]",
    "[-0.0e-0]",
];

#[test]
fn agrees_with_serde_json_on_the_cases() {
    for case in CASES {
        let _ = agree(case);
        let _ = agree(&format!("{{\"k\":{case}}}"));
        let _ = agree(&format!("[1,{case},2]"));
    }
}

/// A small deterministic generator (xorshift): documents built from pieces, then mutated byte by byte.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from.get(self.below(from.len()))
            .copied()
            .unwrap_or_default()
    }
}

const SCALARS: &[&str] = &[
    "null",
    "true",
    "false",
    "0",
    "-0",
    "12",
    "-7",
    "3.25",
    "1e3",
    "-2.5E-3",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "\"\"",
    "\"x\"",
    "\"a\\\"b\"",
    "\"\\u00e9\"",
    "\"\\ud83d\\ude00\"",
    "\"日本\"",
    "1e400",
    "\"\\ud800\"",
];
const KEYS: &[&str] = &["a", "b", "metadata", "labels", "a\\u0041", "é", ""];

fn document(r: &mut Rng, depth: usize, out: &mut String) {
    match r.below(if depth > 5 { 1 } else { 4 }) {
        0 => out.push_str(r.pick(SCALARS)),
        1 => {
            out.push('[');
            for i in 0..r.below(4) {
                if i > 0 {
                    out.push(',');
                }
                document(r, depth + 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..r.below(5) {
                if i > 0 {
                    out.push_str(if r.below(8) == 0 { " , " } else { "," });
                }
                out.push('"');
                out.push_str(r.pick(KEYS));
                out.push_str("\":");
                document(r, depth + 1, out);
            }
            out.push('}');
        }
    }
}

const NOISE: &[&str] = &[
    "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "0", "-", ".", "e", "+", " ", "\n", "\t", "n",
    "x", "\u{1}", "é", "1e999",
];

#[test]
fn agrees_with_serde_json_on_generated_and_mutated_documents() {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..20_000 {
        let mut text = String::new();
        document(&mut r, 0, &mut text);
        let _ = agree(&text);
        for _ in 0..3 {
            let mut mutated = text.clone();
            let mut at = r.below(mutated.len() + 1);
            while !mutated.is_char_boundary(at) {
                at -= 1;
            }
            match r.below(3) {
                0 => mutated.insert_str(at, r.pick(NOISE)),
                1 => {
                    let mut end = at + 1;
                    while end < mutated.len() && !mutated.is_char_boundary(end) {
                        end += 1;
                    }
                    if end <= mutated.len() {
                        mutated.replace_range(at..end, "");
                    }
                }
                _ => mutated.truncate(at),
            }
            if agree(&mutated) {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
    }
    // the mutations exercise both sides
    assert!(
        accepted > 5_000 && refused > 5_000,
        "{accepted} accepted, {refused} refused"
    );
}

#[test]
fn depth_is_bounded_as_configured() {
    let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert!(agree(&nested(SERDE_JSON_DEPTH)));
    assert!(!agree(&nested(SERDE_JSON_DEPTH + 1)));
    assert!(Doc::parse(&nested(MAX_DEPTH)).is_ok());
    let e = Doc::parse(&nested(MAX_DEPTH + 1)).err();
    assert_eq!(e.map(|e| e.message), Some("recursion limit exceeded"));
    let objects = format!("{}1{}", "{\"a\":".repeat(MAX_DEPTH), "}".repeat(MAX_DEPTH));
    let doc = Doc::parse(&objects).ok();
    assert_eq!(doc.as_ref().map(|d| d.root().depth()), Some(MAX_DEPTH));
}

#[test]
fn objects_read_as_serde_json_maps() {
    let doc = Doc::parse(r#"{"b":1,"a":2,"b":null,"c":{"x":[1,2,3]},"a":3}"#).ok();
    let Some(doc) = doc else { panic!("parses") };
    let root = doc.root();
    assert_eq!(root.len(), 5);
    assert_eq!(root.member("a").map(|v| v.item()), Some(Item::U64(3)));
    assert!(root.member("b").is_some_and(|v| v.is_null()));
    assert!(root.member("z").is_none());
    let keys: Vec<&str> = root.sorted_members().iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, ["a", "b", "c"]);
    assert!(root.has_duplicate_keys());
    let list = root.member("c").and_then(|c| c.member("x"));
    assert_eq!(list.map(|l| l.len()), Some(3));
    assert_eq!(
        list.and_then(|l| l.index(2)).map(|v| v.item()),
        Some(Item::U64(3))
    );
    assert!(list.and_then(|l| l.index(3)).is_none());
    let items: Vec<Item<'_>> = list
        .into_iter()
        .flat_map(|l| l.elements())
        .map(|v| v.item())
        .collect();
    assert_eq!(items, [Item::U64(1), Item::U64(2), Item::U64(3)]);
    assert_eq!(root.depth(), 3);
}

#[test]
fn numbers_read_as_serde_json_reads_them() {
    let doc =
        Doc::parse("[0,-0,-1,18446744073709551615,18446744073709551616,-9223372036854775809,1.5]")
            .ok();
    let items: Vec<Item<'_>> = doc
        .iter()
        .flat_map(|d| d.root().elements())
        .map(|v| v.item())
        .collect();
    assert_eq!(items.len(), 7);
    assert_eq!(items.first(), Some(&Item::U64(0)));
    assert!(matches!(items.get(1), Some(Item::F64(f)) if f.to_bits() == (-0.0f64).to_bits()));
    assert_eq!(items.get(2), Some(&Item::I64(-1)));
    assert_eq!(items.get(3), Some(&Item::U64(u64::MAX)));
    assert_eq!(items.get(4), Some(&Item::F64(18446744073709551616.0)));
    assert_eq!(items.get(5), Some(&Item::F64(-9223372036854775809.0)));
    assert_eq!(items.get(6), Some(&Item::F64(1.5)));
}

/// A double is the exact one, as Go's strconv.ParseFloat reads it for kube-apiserver: serde_json's default reading put
/// these one unit in the last place off (cel-spec's conformance `conversions/double` values).
#[test]
fn doubles_are_read_exactly() {
    for text in [
        "1.38e-23",
        "-5.43e-21",
        "0.1",
        "123456789012345678901234567890",
        "2.2250738585072011e-308",
    ] {
        let doc = Doc::parse(text).expect("a number");
        let want = text.parse::<f64>().expect("a double");
        assert!(
            matches!(doc.root().item(), Item::F64(f) if f.to_bits() == want.to_bits()),
            "{text}: {:?}",
            doc.root().item()
        );
    }
    assert!(Doc::parse("1e400").is_err());
    let underflow = Doc::parse("1e-400").expect("a number");
    assert!(matches!(underflow.root().item(), Item::F64(f) if f == 0.0));
}

/// The oracles' comparison: equal but for doubles one unit in the last place apart, and nothing else.
#[test]
fn same_but_doubles_tolerates_one_unit_in_the_last_place_only() {
    let same = [
        (r#"{"x":1.38e-23}"#, r#"{"x":1.3799999999999998e-23}"#),
        (
            r#"Doc("[-5.43e-21,"kube-system"]")"#,
            r#"Doc("[-5.4300000000000006e-21,"kube-system"]")"#,
        ),
        ("v1beta1 7", "v1beta1 7"),
    ];
    for (ours, theirs) in same {
        assert!(same_but_doubles(ours, theirs), "{ours} {theirs}");
    }
    let differ = [
        (r#"{"x":1.38e-23}"#, r#"{"x":1.3799999999999995e-23}"#),
        (r#"{"x":1.5}"#, r#"{"x":-1.5}"#),
        (r#"{"x":1}"#, r#"{"x":2}"#),
        (r#"{"x":1.5}"#, r#"{"y":1.5}"#),
        ("[1.5]", "[1.5,1.5]"),
        ("kube-system", "kube-systen"),
    ];
    for (ours, theirs) in differ {
        assert!(!same_but_doubles(ours, theirs), "{ours} {theirs}");
    }
}

#[test]
fn deserializes_in_the_readers_own_pass() {
    #[derive(serde::Deserialize)]
    struct Holder {
        object: Option<Doc>,
    }
    let text =
        r#"{"object":{"a":"\u00e9","n":[1,{"b":null}],"e":[],"o":{},"a":-0,"m":[[1,[2]],3]}}"#;
    let ours: Option<Holder> = serde_json::from_str(text).ok();
    let oracle: Option<serde_json::Value> = serde_json::from_str(text).ok();
    let ours = ours.and_then(|h| h.object);
    assert_eq!(
        ours.as_ref().map(Doc::to_value),
        oracle.and_then(|v| v.get("object").cloned())
    );
    // written back in document order, duplicates kept
    assert_eq!(
        ours.map(|d| d.root().to_json()),
        Some(r#"{"a":"é","n":[1,{"b":null}],"e":[],"o":{},"a":-0.0,"m":[[1,[2]],3]}"#.to_owned())
    );
    // refused as serde_json's Value refuses, with its words and position
    for bad in [
        r#"{"object":{"a":"\ud800"}}"#,
        r#"{"object":[1,]}"#,
        r#"{"object":{"a":1e400}}"#,
    ] {
        let ours = serde_json::from_str::<Holder>(bad)
            .err()
            .map(|e| e.to_string());
        let oracle = serde_json::from_str::<serde_json::Value>(bad)
            .err()
            .map(|e| e.to_string());
        assert_eq!(ours, oracle, "{bad}");
        assert!(ours.is_some());
    }
    let null = serde_json::from_str::<Holder>(r#"{"object":null}"#).ok();
    assert!(null.is_some_and(|h| h.object.is_none()));
}

#[test]
fn serializes_as_compact_json() {
    let doc = Doc::parse(r#"{"a" : 1, "b": ["x\"y", 2.5, null, {}], "a": true}"#).ok();
    assert_eq!(
        doc.map(|d| serde_json::to_string(&d).ok()),
        Some(Some(
            r#"{"a":1,"b":["x\"y",2.5,null,{}],"a":true}"#.to_owned()
        ))
    );
}

#[test]
fn documents_read_with_a_source_share_it() {
    #[derive(serde::Deserialize)]
    struct Review {
        object: Doc,
        #[serde(rename = "oldObject")]
        old_object: Doc,
    }
    let text = r#"{"object":{"name":"a\"b","labels":{"app":"web"}},"oldObject":{"name":"c"}}"#;
    let source: std::sync::Arc<String> = std::sync::Arc::new(text.to_owned());
    let review: Review = crate::reading_source(&source, |t| serde_json::from_str(t)).unwrap();
    // one text, the input's, for both documents; the escaped string read right
    assert_eq!(review.object.text().len(), text.len());
    assert_eq!(review.old_object.text().len(), text.len());
    let name = review.object.root().member("name").and_then(|n| n.as_str());
    assert_eq!(name, Some("a\"b"));
    let app = review
        .object
        .root()
        .member("labels")
        .and_then(|l| l.member("app"));
    assert_eq!(app.and_then(|a| a.as_str()), Some("web"));
    assert_eq!(
        review
            .old_object
            .root()
            .member("name")
            .and_then(|n| n.as_str()),
        Some("c")
    );
    // without a source, nothing is shared and the strings are copies
    let alone: Review = serde_json::from_str(text).unwrap();
    assert_eq!(alone.object.text(), "");
    assert_eq!(alone.object.to_value(), review.object.to_value());
}

/// The text of each value directly inside the top container, as written; no other node has one.
#[test]
fn raw_text_of_top_members() {
    let text =
        " {\"a\" : [1, {\"b\":2}] ,\n \"s\":\"x\\\"y\", \"n\": 12.5,\"e\":{}, \"t\" :true } ";
    let doc = Doc::parse(text).unwrap();
    let root = doc.root();
    let raw = |k: &str| root.member(k).and_then(Ref::raw_text);
    assert_eq!(raw("a"), Some("[1, {\"b\":2}]"));
    assert_eq!(raw("s"), Some("\"x\\\"y\""));
    assert_eq!(raw("n"), Some("12.5"));
    assert_eq!(raw("e"), Some("{}"));
    assert_eq!(raw("t"), Some("true"));
    assert_eq!(root.raw_text(), None);
    let inner = root.member("a").and_then(|a| a.index(1)).unwrap();
    assert_eq!(inner.raw_text(), None);
    // a document read from serde events keeps no text
    let built: Doc = serde_json::from_str(text).unwrap();
    assert_eq!(built.root().member("a").and_then(Ref::raw_text), None);
}

/// `is_utf8` (and `utf8_string`, `utf8_string_and`) answers as the standard check, and `char_count` counts as
/// `chars().count()`, for every placement of a non-ASCII byte, a valid character or a broken sequence around the 32-byte
/// blocks they read ASCII in: before, across and after a block boundary, and at the end.
#[test]
fn is_utf8_answers_as_the_standard_check() {
    let pieces: [&[u8]; 9] = [
        "é".as_bytes(),
        "€".as_bytes(),
        "𝄞".as_bytes(),
        b"\x80",
        b"\xc3",
        b"\xe2\x82",
        b"\xf0\x9d\x84",
        b"\xed\xa0\x80",
        b"\xff",
    ];
    for len in [0, 1, 7, 8, 31, 32, 33, 63, 64, 65, 100] {
        let ascii = vec![b'a'; len];
        assert!(is_utf8(&ascii), "{len} ASCII bytes");
        assert_eq!(char_count(std::str::from_utf8(&ascii).unwrap()), len);
        for piece in pieces {
            for at in 0..=len {
                let mut text = ascii.clone();
                text.splice(at..at, piece.iter().copied());
                assert_eq!(
                    is_utf8(&text),
                    std::str::from_utf8(&text).is_ok(),
                    "{piece:?} at {at} of {len}"
                );
                assert_eq!(
                    utf8_string(&text),
                    String::from_utf8(text.clone()).ok(),
                    "{piece:?} at {at} of {len}"
                );
                assert_eq!(
                    utf8_string_and(&text, "}"),
                    String::from_utf8(text.clone()).ok().map(|t| t + "}"),
                    "{piece:?} at {at} of {len}, completed"
                );
                if let Ok(valid) = std::str::from_utf8(&text) {
                    assert_eq!(
                        char_count(valid),
                        valid.chars().count(),
                        "{piece:?} at {at} of {len}"
                    );
                }
            }
        }
    }
}

/// `Ref::pick` reads the named members (under any alias, in any order) and refuses what a serde derive refuses: a
/// field written twice (under one name or two), an unknown key when unknown keys are denied, a value that is not an
/// object.
#[test]
fn pick_reads_named_members_as_a_serde_derive_does() {
    const NAMES: &[&[&str]] = &[&["a"], &["bee", "b"], &["c"]];
    let pick = |text: &str, deny_unknown: bool| {
        let doc = Doc::parse(text).unwrap();
        let mut found = [None; 3];
        doc.root()
            .pick(NAMES, deny_unknown, &mut found)
            .map(|()| found.map(|r| r.map(|r| r.to_json())))
    };
    let some = |v: [Option<&str>; 3]| Some(v.map(|s| s.map(str::to_owned)));
    assert_eq!(
        pick(r#"{"a":1,"bee":2,"c":3}"#, true),
        some([Some("1"), Some("2"), Some("3")])
    );
    assert_eq!(
        pick(r#"{"c":[3],"b":{"x":2},"a":1}"#, true),
        some([Some("1"), Some(r#"{"x":2}"#), Some("[3]")])
    );
    assert_eq!(pick(r#"{"c":3}"#, true), some([None, None, Some("3")]));
    assert_eq!(pick(r#"{}"#, true), some([None, None, None]));
    assert_eq!(
        pick(r#"{"a":1,"zz":{"a":9},"c":3}"#, false),
        some([Some("1"), None, Some("3")])
    );
    assert_eq!(pick(r#"{"a":1,"zz":0}"#, true), None);
    assert_eq!(pick(r#"{"a":1,"a":2}"#, false), None);
    assert_eq!(pick(r#"{"b":1,"bee":2}"#, false), None);
    assert_eq!(pick(r#"[1]"#, false), None);
    assert_eq!(pick(r#""a""#, false), None);
}

#[test]
fn same_bytes_answers_as_slice_equality() {
    // every length across the word and half-word boundaries, equal and differing at each position
    for n in (0..=40usize).chain([1_500, 1_503]) {
        let x: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
        assert!(same_bytes(&x, &x.clone()), "{n} equal bytes");
        assert!(crate::equal_bytes(&x, &x.clone()), "{n} equal bytes");
        for at in 0..n {
            let mut y = x.clone();
            if let Some(b) = y.get_mut(at) {
                *b ^= 0x20;
            }
            assert!(!same_bytes(&x, &y), "{n} bytes differing at {at}");
            assert!(!crate::equal_bytes(&x, &y), "{n} bytes differing at {at}");
        }
        let longer = [x.as_slice(), b"z"].concat();
        assert!(!same_bytes(&x, &longer), "{n} bytes against {}", n + 1);
    }
}

#[test]
fn text_reads_compares_and_writes_as_its_string() {
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};
    let hash = |v: &dyn Fn(&mut DefaultHasher)| {
        let mut h = DefaultHasher::new();
        v(&mut h);
        h.finish()
    };
    let doc = Doc::parse(r#"{"plain": "Pod", "escaped": "a\"b\u00e9", "number": 1}"#).unwrap();
    let root = doc.root();
    let plain = Text::of(root.member("plain").unwrap()).unwrap();
    let escaped = Text::of(root.member("escaped").unwrap()).unwrap();
    assert!(Text::of(root.member("number").unwrap()).is_none());
    assert!(Text::of(root).is_none());
    assert_eq!(plain.as_str(), "Pod");
    assert_eq!(escaped.as_str(), "a\"bé");
    // the text outlives the document it was read from: it shares the tape
    drop(doc);
    assert_eq!(&*plain, "Pod");
    for (kept, owned) in [
        (&plain, Text::from("Pod")),
        (&escaped, Text::from("a\"bé".to_owned())),
    ] {
        assert_eq!(*kept, owned);
        assert_eq!(*kept, owned.as_str());
        assert_eq!(kept.cmp(&owned), std::cmp::Ordering::Equal);
        assert_eq!(hash(&|h| kept.hash(h)), hash(&|h| owned.as_str().hash(h)));
        assert_eq!(format!("{kept:?}"), format!("{:?}", owned.as_str()));
        assert_eq!(kept.to_string(), owned.as_str());
        assert_eq!(
            serde_json::to_string(kept).unwrap(),
            serde_json::to_string(owned.as_str()).unwrap()
        );
        let back: Text = serde_json::from_str(&serde_json::to_string(kept).unwrap()).unwrap();
        assert_eq!(back, *kept);
        assert_eq!(String::from(kept.clone()), owned.as_str());
    }
    assert!(plain < escaped.clone() || plain > escaped);
    assert_eq!(plain.cmp(&escaped), "Pod".cmp("a\"bé"));
    assert_eq!(Text::default().as_str(), "");
}
