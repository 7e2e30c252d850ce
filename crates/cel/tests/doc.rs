//! Request objects read into their tape (`Map::Doc`, `List::Doc`) evaluate exactly as the same objects read into
//! `serde_json` values (`Map::Json`, `List::Json`): the same values, errors, JSON renderings and costs.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions"
)]

use palisade_cel::{Activation, Budget, Env, Expect, Program, Value};
use palisade_json::Doc;

const POD: &str = r#"{
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "web", "namespace": "team-a", "labels": {"tier": null, "app": "web", "zone": "a", "app": "api"},
               "annotations": {}, "uid": "\u00e9\ud83d\ude00"},
  "spec": {
    "replicas": 3, "ratio": 0.5, "nodeName": null, "big": 18446744073709551615, "neg": -0, "huge": 1e300,
    "containers": [
      {"name": "nginx", "image": "registry.example.com/nginx:1.25", "ports": [{"containerPort": 80}],
       "securityContext": {"privileged": false}},
      {"name": "sidecar", "image": "busybox", "resources": {"limits": {"cpu": "100m"}}}
    ],
    "matrix": [[1, 2], [3, [4, {"x": null}]]]
  }
}"#;

const EXPRESSIONS: &[&str] = &[
    "object",
    "object.metadata",
    "object.metadata.labels",
    "object.metadata.labels.app",
    "size(object.metadata.labels)",
    "has(object.metadata.labels.tier)",
    "has(object.metadata.labels.app)",
    "object.metadata.labels.tier",
    "'tier' in object.metadata.labels",
    "object.metadata.labels.map(k, k)",
    "object.metadata.labels.all(k, object.metadata.labels[k] != '')",
    "object.metadata.labels.exists_one(k, k == 'zone')",
    "object.metadata.uid",
    "size(object.metadata.uid)",
    "object.spec.replicas + 1",
    "object.spec.ratio * 2.0",
    "object.spec.big",
    "object.spec.neg",
    "object.spec.huge",
    "type(object.spec.big)",
    "object.spec.nodeName",
    "has(object.spec.nodeName)",
    "object.spec.containers",
    "object.spec.containers[1].name",
    "object.spec.containers[2]",
    "object.spec.containers.all(c, c.image.startsWith('registry.example.com/'))",
    "object.spec.containers.map(c, c.name)",
    "object.spec.containers.filter(c, has(c.ports)).map(c, c.ports[0].containerPort)",
    "object.spec.containers.exists(c, c.securityContext.privileged)",
    "size(object.spec.containers)",
    "object.spec.containers + object.spec.containers",
    "object.spec.matrix",
    "object.spec.matrix[1][1][1]",
    "object.spec.matrix == [[1, 2], [3, [4, {}]]]",
    "object.spec.matrix[1][1][1] == {}",
    "object.metadata.labels == {'app': 'api', 'zone': 'a'}",
    "object.metadata == object.metadata",
    "object == oldObject",
    "object.spec.containers[0] == oldObject.spec.containers[0]",
    "object.metadata.missing",
    "object.metadata.?missing.orValue('none')",
    "object.?spec.?containers[?0].?name",
    "[object.metadata.labels, object.metadata.annotations]",
    "{'a': object.metadata.labels}",
    "object.metadata.labels.map(k, object.metadata.labels[k])",
    "string(object.spec.replicas)",
    "object.spec.containers.sortBy(c, c.name).map(c, c.name)",
    "dyn(object.spec.containers).size()",
    "object.metadata.annotations.size() == 0",
];

/// Each expression, compiled (or why not).
fn programs() -> Vec<(&'static str, Result<Program, String>)> {
    let env = Env::admission();
    EXPRESSIONS
        .iter()
        .map(|src| {
            (
                *src,
                env.compile(src, Expect::Any).map_err(|e| e.to_string()),
            )
        })
        .collect()
}

/// Each expression's outcome, rendered so the two bindings can be compared: the value's rendering and JSON, or the
/// error, and the cost charged. The programs outlive the activations (values may borrow their literals).
fn outcomes<'a>(
    programs: &'a [(&'static str, Result<Program, String>)],
    bind: impl Fn(Activation<'a>) -> Activation<'a>,
) -> Vec<String> {
    programs
        .iter()
        .map(|(src, program)| {
            let program = match program {
                Ok(p) => p,
                Err(e) => return format!("{src}: compile: {e}"),
            };
            let act = bind(Activation::new());
            let mut budget = Budget::kubernetes();
            let result = program.eval(&act, &mut budget);
            let shown = match result {
                Ok(v) => format!("{v} {:?}", v.to_json().map(|j| j.to_string())),
                Err(e) => format!("error {e}"),
            };
            format!("{src}: {shown} (cost {})", budget.used())
        })
        .collect()
}

#[test]
fn the_tape_evaluates_as_serde_json_values() {
    let doc = Doc::parse(POD).unwrap();
    let old = Doc::parse(POD).unwrap();
    let json: serde_json::Value = serde_json::from_str(POD).unwrap();
    let old_json = json.clone();
    let programs = programs();
    let ours = outcomes(&programs, |a| {
        a.bind_doc("object", Some(&doc))
            .bind_doc("oldObject", Some(&old))
    });
    let theirs = outcomes(&programs, |a| {
        a.bind_json("object", Some(&json))
            .bind_json("oldObject", Some(&old_json))
    });
    for (o, t) in ours.iter().zip(&theirs) {
        assert_eq!(o, t);
    }
    assert_eq!(ours.len(), EXPRESSIONS.len());
}

#[test]
fn the_tape_binds_null_when_absent() {
    let env = Env::admission();
    let p = env.compile("oldObject == null", Expect::Any).unwrap();
    let act = Activation::new().bind_doc("oldObject", None);
    let v = p.eval(&act, &mut Budget::kubernetes()).unwrap();
    assert!(matches!(v, Value::Bool(true)));
}

#[test]
fn tape_values_borrow_the_document() {
    let doc = Doc::parse(POD).unwrap();
    let env = Env::admission();
    let act = Activation::new().bind_doc("object", Some(&doc));
    let p = env
        .compile("object.spec.containers[0]", Expect::Any)
        .unwrap();
    let v = p.eval(&act, &mut Budget::kubernetes()).unwrap();
    assert!(matches!(v, Value::Map(palisade_cel::Map::Doc(_))));
    let s = env.compile("object.metadata.name", Expect::Any).unwrap();
    let v = s.eval(&act, &mut Budget::kubernetes()).unwrap();
    assert!(
        matches!(v, Value::String(palisade_cel::Str::Borrowed(n)) if std::ptr::eq(n.as_ptr(), doc.text()[doc.text().find("web").unwrap()..].as_ptr()))
    );
}

/// An activation remembers the fields of request objects it selected (crates/cel/src/activation.rs, `Selections`): the
/// programs of one evaluation, sharing an activation, answer and cost exactly as each would on a fresh one. More
/// distinct selections than it remembers, two documents of the same shape (the same node ids), duplicate keys, nulls
/// and absent fields.
#[test]
fn remembered_selections_answer_as_fresh_ones() {
    let object = format!(
        r#"{{"spec": {{"replicas": 3, "dup": 1, "dup": 2, "none": null, {}}}}}"#,
        (0..80)
            .map(|i| format!(r#""k{i}": {{"v": {i}}}"#))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let old = object.replace(r#""replicas": 3"#, r#""replicas": 4"#);
    let (object, old) = (Doc::parse(&object).unwrap(), Doc::parse(&old).unwrap());
    let env = Env::admission();
    let mut sources: Vec<String> = vec![
        "object.spec.replicas == 3 && oldObject.spec.replicas == 4".into(),
        "object.spec.replicas".into(),
        "oldObject.spec.replicas".into(),
        "object.spec.dup".into(),
        "has(object.spec.none)".into(),
        "object.spec.none".into(),
        "has(object.spec.absent)".into(),
        "object.spec.absent".into(),
        "object.spec.replicas == oldObject.spec.replicas".into(),
    ];
    for i in (0..80).chain((0..80).rev()) {
        sources.push(format!(
            "object.spec.k{i}.v == {i} && has(oldObject.spec.k{i}.v)"
        ));
    }
    let programs: Vec<Program> = sources
        .iter()
        .map(|s| env.compile(s, Expect::Any).unwrap())
        .collect();
    fn run<'a>(program: &'a Program, act: &Activation<'a>) -> String {
        let mut budget = Budget::kubernetes();
        let shown = match program.eval(act, &mut budget) {
            Ok(v) => v.to_string(),
            Err(e) => format!("error {e}"),
        };
        format!("{shown} (cost {})", budget.used())
    }
    let shared = Activation::new()
        .bind_doc("object", Some(&object))
        .bind_doc("oldObject", Some(&old));
    for _ in 0..2 {
        for (source, program) in sources.iter().zip(&programs) {
            let fresh = Activation::new()
                .bind_doc("object", Some(&object))
                .bind_doc("oldObject", Some(&old));
            assert_eq!(run(program, &shared), run(program, &fresh), "{source}");
        }
    }
    let first = |source: &str| {
        let i = sources.iter().position(|s| s == source).unwrap();
        run(&programs[i], &shared)
    };
    assert_eq!(
        first("object.spec.replicas == 3 && oldObject.spec.replicas == 4"),
        "true (cost 8)"
    );
    assert_eq!(first("object.spec.dup"), "2 (cost 3)");
    assert_eq!(first("has(object.spec.none)"), "false (cost 3)");
    assert!(first("object.spec.absent").starts_with("error no such key: absent"));
}
