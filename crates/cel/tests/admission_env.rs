//! The admission environment's declarations and wording, as kube-apiserver's.

#![allow(clippy::panic, reason = "test helpers outside #[test] functions")]

use palisade_cel::{AdmissionVars, Env, Expect};

/// (case, params declared, authorizer declared, expressions and the error each must contain)
type BadCase<'a> = (&'a str, bool, bool, &'a [(&'a str, &'a str)]);

fn env(params: bool, authorizer: bool) -> Env {
    Env::admission_for(AdmissionVars { params, authorizer })
}

fn err(env: &Env, src: &str, expect: Expect) -> String {
    match env.compile(src, expect) {
        Ok(_) => panic!("{src}: compiled"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn compile_validating_policy_expression() {
    // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/compile_test.go
    // TestCompileValidatingPolicyExpression; every expression is compiled as a validation and as
    // an auditAnnotation valueExpression (`string(<expr>)`), as upstream does
    let ok: &[(&str, bool, bool, &[&str])] = &[
        ("with params", true, false, &["object.foo < params.x"]),
        (
            "namespaceObject",
            true,
            false,
            &["namespaceObject.metadata.name.startsWith('test')"],
        ),
        (
            "oldObject comparison",
            false,
            false,
            &["object.foo == oldObject.foo"],
        ),
        (
            "object null checks",
            false,
            false,
            &["object == null || oldObject == null || object.foo == oldObject.foo"],
        ),
        (
            "function library",
            false,
            false,
            &[
                "object.spec.string.matches('[0-9]+')",
                "object.spec.string.findAll('[0-9]+').size() > 0",
                "object.spec.list.isSorted()",
                "url(object.spec.endpoint).getHostname() in ['ok1', 'ok2']",
            ],
        ),
        (
            "valid request",
            false,
            false,
            &[
                "request.kind.group == 'example.com' && request.kind.version == 'v1' && request.kind.kind == 'Fake'",
                "request.resource.group == 'example.com' && request.resource.version == 'v1' && request.resource.resource == 'fake' && request.subResource == 'scale'",
                "request.requestKind.group == 'example.com' && request.requestKind.version == 'v1' && request.requestKind.kind == 'Fake'",
                "request.requestResource.group == 'example.com' && request.requestResource.version == 'v1' && request.requestResource.resource == 'fake' && request.requestSubResource == 'scale'",
                "request.name == 'fake-name'",
                "request.namespace == 'fake-namespace'",
                "request.operation == 'CREATE'",
                "request.userInfo.username == 'admin'",
                "request.userInfo.uid == '014fbff9a07c'",
                "request.userInfo.groups == ['system:authenticated', 'my-admin-group']",
                "request.userInfo.extra == {'some-key': ['some-value1', 'some-value2']}",
                "request.dryRun == false",
                "request.options == {'whatever': 'you want'}",
            ],
        ),
        (
            "with authorizer",
            false,
            true,
            &["authorizer.group('') != null"],
        ),
        (
            "valid namespaceObject",
            false,
            false,
            &[
                "namespaceObject.metadata != null",
                "namespaceObject.metadata.name == 'test'",
                "namespaceObject.metadata.generateName == 'test'",
                "namespaceObject.metadata.namespace == 'testns'",
                "'test' in namespaceObject.metadata.labels",
                "'test' in namespaceObject.metadata.annotations",
                "namespaceObject.metadata.UID == '12345'",
                "type(namespaceObject.metadata.creationTimestamp) == google.protobuf.Timestamp",
                "type(namespaceObject.metadata.deletionTimestamp) == google.protobuf.Timestamp",
                "namespaceObject.metadata.deletionGracePeriodSeconds == 5",
                "namespaceObject.metadata.generation == 2",
                "namespaceObject.metadata.resourceVersion == 'v1'",
                "namespaceObject.metadata.finalizers[0] == 'testEnv'",
                "namespaceObject.spec.finalizers[0] == 'testEnv'",
                "namespaceObject.status.phase == 'Active'",
                "namespaceObject.status.conditions[0].status == 'True'",
                "namespaceObject.status.conditions[0].type == 'NamespaceDeletionDiscoveryFailure'",
                "type(namespaceObject.status.conditions[0].lastTransitionTime) == google.protobuf.Timestamp",
                "namespaceObject.status.conditions[0].message == 'Unknow'",
                "namespaceObject.status.conditions[0].reason == 'Invalid'",
            ],
        ),
    ];
    for (case, params, authorizer, exprs) in ok {
        let env = env(*params, *authorizer);
        for src in *exprs {
            env.compile(src, Expect::Bool)
                .unwrap_or_else(|e| panic!("{case}: {src}: {e}"));
            env.compile(&format!("string({src})"), Expect::StringOrNull)
                .unwrap_or_else(|e| panic!("{case}: string({src}): {e}"));
        }
    }
    let bad: &[BadCase<'_>] = &[
        (
            "invalid syntax",
            false,
            false,
            &[
                (
                    "1 < 'asdf'",
                    "found no matching overload for '_<_' applied to '(int, string)",
                ),
                ("'asdf'.contains('x'", "Syntax error: missing ')' at"),
            ],
        ),
        (
            "without params",
            false,
            false,
            &[("object.foo < params.x", "undeclared reference to 'params'")],
        ),
        (
            "invalid root var",
            false,
            false,
            &[(
                "object.foo < invalid.x",
                "undeclared reference to 'invalid'",
            )],
        ),
        (
            "invalid request",
            false,
            false,
            &[
                ("request.foo1 == 'nope'", "undefined field 'foo1'"),
                ("request.resource.foo2 == 'nope'", "undefined field 'foo2'"),
                (
                    "request.requestKind.foo3 == 'nope'",
                    "undefined field 'foo3'",
                ),
                (
                    "request.requestResource.foo4 == 'nope'",
                    "undefined field 'foo4'",
                ),
                ("request.userInfo.foo5 == 'nope'", "undefined field 'foo5'"),
            ],
        ),
        (
            "without authorizer",
            false,
            false,
            &[(
                "authorizer.group('') != null",
                "undeclared reference to 'authorizer'",
            )],
        ),
        (
            "invalid namespaceObject",
            false,
            false,
            &[
                ("namespaceObject.foo1 == 'nope'", "undefined field 'foo1'"),
                (
                    "namespaceObject.metadata.foo2 == 'nope'",
                    "undefined field 'foo2'",
                ),
                (
                    "namespaceObject.spec.foo3 == 'nope'",
                    "undefined field 'foo3'",
                ),
                (
                    "namespaceObject.status.foo4 == 'nope'",
                    "undefined field 'foo4'",
                ),
                (
                    "namespaceObject.status.conditions[0].foo5 == 'nope'",
                    "undefined field 'foo5'",
                ),
            ],
        ),
    ];
    for (case, params, authorizer, exprs) in bad {
        let env = env(*params, *authorizer);
        for (src, want) in *exprs {
            let e = err(&env, src, Expect::Bool);
            assert!(e.contains(want), "{case}: {src}: {e}");
            let e = err(&env, &format!("string({src})"), Expect::StringOrNull);
            assert!(e.contains(want), "{case}: string({src}): {e}");
        }
    }
}

#[test]
fn namespace_object_omits_managed_fields_and_owner_references() {
    // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/condition_test.go TestCondition
    // "test namespaceObject" (managedFields, ownerReferences are not declared)
    let env = Env::admission();
    for field in ["managedFields", "ownerReferences"] {
        let e = err(
            &env,
            &format!("namespaceObject.metadata.{field}.size() == 0"),
            Expect::Bool,
        );
        assert!(e.contains(&format!("undefined field '{field}'")), "{e}");
    }
    // object, oldObject and params stay dyn
    env.compile(
        "object.metadata.managedFields.size() == params.x.y && oldObject.z",
        Expect::Any,
    )
    .unwrap();
    // has() on the typed variables
    env.compile(
        "has(request.userInfo.extra) && !has(namespaceObject.metadata.labels)",
        Expect::Bool,
    )
    .unwrap();
    assert!(err(&env, "has(request.nope)", Expect::Bool).contains("undefined field 'nope'"));
}

#[test]
fn field_types_follow_upstream() {
    // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/compile.go BuildRequestType,
    // BuildNamespaceType (types printed as cel-go prints them)
    let env = Env::admission();
    for (src, want) in [
        ("request.name", "string"),
        ("request.userInfo.groups", "list(string)"),
        ("request.userInfo.extra", "map(string, list(string))"),
        ("request.kind", "kubernetes.GroupVersionKind"),
        ("request.userInfo", "kubernetes.UserInfo"),
        ("namespaceObject.metadata.labels", "map(string, string)"),
        ("namespaceObject.metadata.generation", "int"),
        (
            "namespaceObject.metadata.creationTimestamp",
            "google.protobuf.Timestamp",
        ),
        (
            "namespaceObject.status.conditions",
            "list(kubernetes.NamespaceCondition)",
        ),
        ("request.options", "dyn"),
    ] {
        let e = err(&env, src, Expect::Bool);
        assert_eq!(e, format!("must evaluate to bool but got {want}"), "{src}");
    }
    env.compile("request.dryRun", Expect::Bool).unwrap();
    // a struct is not a comprehension range
    let e = err(&env, "request.userInfo.all(k, k == 'a')", Expect::Bool);
    assert!(
        e.contains("expression of type 'kubernetes.UserInfo' cannot be range of a comprehension"),
        "{e}"
    );
}

#[test]
fn equality_needs_unifiable_operands() {
    // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/composition_test.go
    // TestCompositedPolicies "early compile error"; cel-go checker/types.go internalIsAssignable
    let env = Env::admission();
    for (src, want) in [
        (
            "1 == 'a'",
            "found no matching overload for '_==_' applied to '(int, string)'",
        ),
        (
            "'a' != 1",
            "found no matching overload for '_!=_' applied to '(string, int)'",
        ),
        (
            "1 == 1.0",
            "found no matching overload for '_==_' applied to '(int, double)'",
        ),
        (
            "[1] == ['a']",
            "found no matching overload for '_==_' applied to '(list(int), list(string))'",
        ),
        (
            "request.name == null",
            "found no matching overload for '_==_' applied to '(string, null)'",
        ),
        (
            "request.userInfo == request.kind",
            "found no matching overload for '_==_' applied to '(kubernetes.UserInfo, kubernetes.GroupVersionKind)'",
        ),
        // upstream: cel-go checker/checker_test.go "x.single_int64 != null" (`'(int, null)'`)
        (
            "namespaceObject.metadata.generation != null",
            "found no matching overload for '_!=_' applied to '(int, null)'",
        ),
        (
            "1 in ['a']",
            "found no matching overload for '@in' applied to '(int, list(string))'",
        ),
        (
            "'a' in {1: 2}",
            "found no matching overload for '@in' applied to '(string, map(int, int))'",
        ),
        (
            "size([1] + ['a']) == 2",
            "found no matching overload for '_+_' applied to '(list(int), list(string))'",
        ),
        (
            "(true ? 1 : 'a') == 1",
            "found no matching overload for '_?_:_' applied to '(bool, int, string)'",
        ),
    ] {
        let e = err(&env, src, Expect::Bool);
        assert!(e.contains(want), "{src}: {e}");
    }
    // macros' own steps around their accumulator are not user operands
    for src in [
        "[1, 2].filter(x, x > 1) == [2]",
        "[1, 2].map(x, string(x)) == ['1', '2']",
        "[1, 2].map(x, x > 1, 'a') == ['a']",
        "[1, 2].exists_one(x, x > 1)",
        "object.items.map(i, i.name).exists(n, n == 'a')",
        "'a' in object.names",
        "[1] + [2] == [1, 2]",
        "[] + ['a'] == ['a']",
        "(object.x ? 1 : object.y) == 1",
        "(true ? 'a' : 'b') == 'a'",
    ] {
        env.compile(src, Expect::Bool)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    // the issue is placed at the operator, as cel-go places it
    assert!(err(&env, "1 == 'a'", Expect::Bool).starts_with("ERROR: <input>:1:3: "));
    for src in [
        "object.x == 'a'",
        "dyn(1) == 1.0",
        "[] == [1]",
        "{} == {'a': 1}",
        "request.kind == null",
        "namespaceObject.metadata.creationTimestamp != null",
        "null == null",
        "type(1) == int",
        "optional.of(1) == optional.none()",
        "request.userInfo.groups == ['a']",
    ] {
        env.compile(src, Expect::Bool)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
    }
}

#[test]
fn variables_are_declared_with_upstream_types() {
    // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/composition_test.go
    // TestCompositedPolicies "variable of a list but confused as a map", "list of strings, but
    // element is confused as an integer"; composition.go convertCelTypeToDeclType
    let env = Env::admission();
    let vars = palisade_cel::Variables::compile(
        &env,
        &[
            ("list", "[1, 2, 3]"),
            ("strs", "['a', 'b']"),
            ("user", "request.userInfo"),
            ("count", "size(object.items)"),
        ],
    )
    .unwrap();
    let venv = vars.env();
    assert!(
        err(venv, "variables.list['invalid'] == 'invalid'", Expect::Bool)
            .contains("found no matching overload for '_[_]' applied to '(list(int), string)'")
    );
    assert!(
        err(venv, "variables.strs[0] == 1", Expect::Bool)
            .contains("found no matching overload for '_==_' applied to '(string, int)'")
    );
    // an object type is declared dyn: any field may be selected
    venv.compile("variables.user.foo == 1", Expect::Bool)
        .unwrap();
    assert_eq!(
        err(venv, "variables.count", Expect::Bool),
        "must evaluate to bool but got int"
    );
    // messageExpressions see the variables but not the authorizer
    let menv = vars.declare_in(Env::admission_for(AdmissionVars {
        params: false,
        authorizer: false,
    }));
    menv.compile("string(variables.count)", Expect::String)
        .unwrap();
    assert_eq!(
        err(&menv, "variables.count", Expect::String),
        "must evaluate to string but got int"
    );
    assert!(
        err(
            &menv,
            "string(authorizer.group('') != null)",
            Expect::String
        )
        .contains("undeclared reference to 'authorizer'")
    );
    assert!(
        err(
            &menv,
            "string(authorizer.requestResource.check('get').allowed())",
            Expect::String
        )
        .contains("undeclared reference to 'authorizer' (in container '')")
    );
    assert!(
        err(&menv, "string(params.x)", Expect::String).contains("undeclared reference to 'params'")
    );
}

/// Fuzzing (fuzz/README.md, `differential`): cel-core numbers the checker's free type variables from one process-wide
/// counter, so an issue naming one (`list(?T307690)`) changed with every compilation before it, and the native
/// library and a fresh `palisade.wasm` answered the same bundle with different messages. Now they are named as cel-go
/// names them, `_var<k>`, numbered within the compilation.
#[test]
fn type_variables_in_issues_do_not_depend_on_earlier_compilations() {
    let env = Env::admission();
    // `[]`'s element is a type variable no later argument binds
    let source = "[object] + variables.contain < ers.map(c, c.?a.orValue({})) || [] < 1";
    let first = env.compile(source, Expect::Bool).unwrap_err().to_string();
    for _ in 0..3 {
        let _ = env.compile("[].map(x, x) == [[]].map(y, y)", Expect::Bool);
    }
    let again = env.compile(source, Expect::Bool).unwrap_err().to_string();
    assert_eq!(first, again);
    assert!(first.contains("'(list(_var0), int)'"), "{first}");
    assert!(!first.contains("?T"), "{first}");
    // `?T1` in the echoed source is an optional field selection, not a type variable: it stays as written
    let e = env
        .compile("object.?T1 < [] || ers", Expect::Bool)
        .unwrap_err()
        .to_string();
    assert!(e.contains(" | object.?T1 < [] || ers"), "{e}");
    assert!(e.contains("'(optional_type(dyn), list(_var0))'"), "{e}");
}
