//! The ValidatingAdmissionPolicy and approver-policy environments: variables, authorizer,
//! namespaceObject, certificate requests.

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] functions"
)]

use std::cell::Cell;

use palisade_cel::{Activation, Budget, Env, Expect, Program, Value, Variables};
use palisade_cel_kubernetes::cluster::{AccessDecision, AccessQuery, Cluster, HostError, Question};
use serde_json::json;

#[test]
fn variables_are_typed_lazy_and_evaluated_once() {
    let env = Env::admission();
    let vars = Variables::compile(
        &env,
        &[
            ("containers", "object.spec.containers"),
            ("names", "variables.containers.map(c, c.name)"),
            ("count", "size(variables.names)"),
            ("expensive", "lists.range(1000).all(i, i >= 0)"),
        ],
    )
    .unwrap();
    assert_eq!(vars.names(), ["containers", "names", "count", "expensive"]);
    let venv = vars.env();
    // the inferred type is declared: `count` is an int
    let e = venv.compile("variables.count", Expect::Bool).unwrap_err();
    // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/compile.go CompileCELExpression
    assert_eq!(e.to_string(), "must evaluate to bool but got int");
    let p1 = venv.compile("variables.count == 2", Expect::Bool).unwrap();
    let p2 = venv
        .compile(
            "'a' in variables.names || variables.count > 1",
            Expect::Bool,
        )
        .unwrap();
    let p3 = venv.compile("variables.expensive", Expect::Bool).unwrap();

    let obj = json!({"spec": {"containers": [{"name": "a"}, {"name": "b"}]}});
    let act = Activation::new()
        .bind_json("object", Some(&obj))
        .variables(&vars);
    let mut budget = Budget::kubernetes();
    assert_eq!(p1.eval(&act, &mut budget).unwrap().as_bool(), Some(true));
    assert_eq!(p2.eval(&act, &mut budget).unwrap().as_bool(), Some(true));
    let before = budget.used();
    p3.eval(&act, &mut budget).unwrap();
    let first = budget.used() - before;
    p3.eval(&act, &mut budget).unwrap();
    let second = budget.used() - before - first;
    // the second use reads the cache: only the identifier is charged
    assert!(first > 1000, "{first}");
    assert_eq!(second, 1);
}

#[test]
fn undeclared_variables_and_bad_variables_are_compile_errors() {
    let env = Env::admission();
    let vars = Variables::compile(&env, &[("a", "1")]).unwrap();
    let e = vars
        .env()
        .compile("variables.b == 1", Expect::Bool)
        .unwrap_err();
    // kube-apiserver's `variables` is an object of the policy's variables: only the field is undefined, at the `.`
    assert!(
        e.to_string()
            .starts_with("ERROR: <input>:1:10: undefined field 'b'\n"),
        "{e}"
    );
    assert!(!e.to_string().contains("undeclared reference"), "{e}");
    // a variable may only use the ones before it
    let (idx, e) = Variables::compile(&env, &[("a", "variables.b"), ("b", "1")]).unwrap_err();
    assert_eq!(idx, 0);
    assert!(e.to_string().contains("undefined field 'b'"), "{e}");
    let (idx, _) = Variables::compile(&env, &[("a", "1"), ("b", "1 +")]).unwrap_err();
    assert_eq!(idx, 1);
}

#[test]
fn variable_errors_surface_where_used() {
    let env = Env::admission();
    let vars = Variables::compile(&env, &[("x", "object.spec.missing")]).unwrap();
    let p = vars
        .env()
        .compile("variables.x == 1", Expect::Bool)
        .unwrap();
    let obj = json!({"spec": {}});
    let act = Activation::new()
        .bind_json("object", Some(&obj))
        .variables(&vars);
    let e = p.eval(&act, &mut Budget::kubernetes()).unwrap_err();
    // upstream: k8s.io/apiserver/pkg/admission/plugin/cel/composition.go variableAccessor.Callback
    assert_eq!(
        e.to_string(),
        "composited variable \"x\" fails to evaluate: no such key: missing"
    );
}

struct Rbac {
    calls: Cell<usize>,
}

impl Cluster for Rbac {
    fn namespace(&self, name: &str) -> Result<Option<serde_json::Value>, HostError> {
        panic!("namespace `{name}` was not asked for")
    }

    fn authorize(&self, a: &AccessQuery) -> Result<AccessDecision, HostError> {
        self.calls.set(self.calls.get() + 1);
        if a.path.as_deref() == Some("/healthz") {
            return Ok(AccessDecision {
                allowed: true,
                reason: "public".into(),
            });
        }
        if a.resource == "secrets"
            && a.verb == "get"
            && a.namespace == "team-a"
            && a.user == "alice"
        {
            return Ok(AccessDecision {
                allowed: true,
                reason: "rbac: allowed by role".into(),
            });
        }
        // authz.go serviceAccount: the subject is the service account's user info
        if a.resource == "configmaps"
            && a.user == "system:serviceaccount:team-a:bot"
            && a.groups == ["system:serviceaccounts", "system:serviceaccounts:team-a"]
            && a.extra.is_empty()
        {
            return Ok(AccessDecision {
                allowed: true,
                reason: String::new(),
            });
        }
        if a.resource == "boom" {
            return Err(HostError::Failed {
                question: Question::Access(Box::new(a.clone())),
                message: "webhook authorizer unavailable".into(),
            });
        }
        Ok(AccessDecision {
            allowed: false,
            reason: String::new(),
        })
    }
}

#[test]
fn authorizer_library() {
    let env = Env::admission();
    let rbac = Rbac {
        calls: Cell::new(0),
    };
    let req = json!({"resource": {"group": "apps", "version": "v1", "resource": "deployments"},
                     "namespace": "team-a", "name": "web", "subResource": "",
                     "userInfo": {"username": "alice", "uid": "1", "groups": ["system:authenticated"]}});
    let cases = [
        (
            "authorizer.group('').resource('secrets').namespace('team-a').check('get').allowed()",
            json!(true),
        ),
        (
            "authorizer.group('').resource('secrets').namespace('team-a').check('get').reason()",
            json!("rbac: allowed by role"),
        ),
        (
            "authorizer.group('').resource('secrets').namespace('team-b').check('get').allowed()",
            json!(false),
        ),
        (
            "authorizer.serviceAccount('team-a', 'bot').group('').resource('secrets').namespace('team-a').check('get').allowed()",
            json!(false),
        ),
        (
            "authorizer.path('/healthz').check('get').allowed()",
            json!(true),
        ),
        (
            "authorizer.serviceAccount('team-a', 'bot').group('').resource('configmaps').check('get').allowed()",
            json!(true),
        ),
        (
            "authorizer.group('').resource('boom').check('get').errored()",
            json!(true),
        ),
        (
            "authorizer.group('').resource('boom').check('get').error()",
            json!("webhook authorizer unavailable"),
        ),
        (
            "authorizer.group('').resource('boom').check('get').allowed()",
            json!(false),
        ),
        (
            "authorizer.requestResource.check('update').allowed()",
            json!(false),
        ),
    ];
    let programs: Vec<_> = cases
        .iter()
        .map(|(src, _)| {
            env.compile(src, Expect::Any)
                .unwrap_or_else(|e| panic!("{src}: {e}"))
        })
        .collect();
    let act = Activation::new()
        .bind_json("request", Some(&req))
        .authorizer(&rbac);
    for ((src, want), p) in cases.into_iter().zip(&programs) {
        let v = p
            .eval(&act, &mut Budget::kubernetes())
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(v.to_json(), Some(want), "{src}");
    }
    assert_eq!(rbac.calls.get(), 10);
    // upstream: k8s.io/apiserver/pkg/cel/library/authz.go: the builder's own checks fail the
    // call and never reach the authorizer
    for (src, want) in [
        (
            "authorizer.path('').check('get').allowed()",
            "path must not be empty",
        ),
        (
            "authorizer.path('  ').check('get').allowed()",
            "path must not be empty",
        ),
        (
            "authorizer.group('apps').resource('').check('get').allowed()",
            "resource must not be empty",
        ),
        (
            "authorizer.serviceAccount('not@a#valid!namespace', 'validname').group('').resource('pods').check('get').allowed()",
            "Invalid service account namespace",
        ),
        (
            "authorizer.serviceAccount('default', 'invalid@*name').group('').resource('pods').check('get').allowed()",
            "Invalid service account name",
        ),
    ] {
        let p = env.compile(src, Expect::Bool).unwrap();
        let act = Activation::new()
            .bind_json("request", Some(&req))
            .authorizer(&rbac);
        let e = p.eval(&act, &mut Budget::kubernetes()).unwrap_err();
        assert_eq!(e.to_string(), want, "{src}");
    }
    assert_eq!(
        rbac.calls.get(),
        10,
        "no invalid check reaches the authorizer"
    );
    // type errors are caught by the checker
    let e = env
        .compile("authorizer.group('').check('get')", Expect::Any)
        .unwrap_err();
    assert!(e.to_string().contains("found no matching overload"), "{e}");
}

#[test]
fn request_resource_attributes_come_from_the_request() {
    struct Echo;
    impl Cluster for Echo {
        fn namespace(&self, name: &str) -> Result<Option<serde_json::Value>, HostError> {
            panic!("namespace `{name}` was not asked for")
        }

        fn authorize(&self, a: &AccessQuery) -> Result<AccessDecision, HostError> {
            Ok(AccessDecision {
                allowed: true,
                reason: format!(
                    "{} {}/{}/{} {}/{}",
                    a.verb, a.api_group, a.resource, a.subresource, a.namespace, a.name
                ),
            })
        }
    }
    let req = json!({"resource": {"group": "apps", "version": "v1", "resource": "deployments"},
                     "subResource": "scale", "namespace": "team-a", "name": "web"});
    let act = Activation::new()
        .bind_json("request", Some(&req))
        .authorizer(&Echo);
    let p = Env::admission()
        .compile(
            "authorizer.requestResource.check('update').reason()",
            Expect::String,
        )
        .unwrap();
    let v = p.eval(&act, &mut Budget::kubernetes()).unwrap();
    assert_eq!(v.as_str(), Some("update apps/deployments/scale team-a/web"));
}

#[test]
fn the_requesting_users_extra_reaches_the_host_and_a_service_accounts_has_none() {
    struct Extra;
    impl Cluster for Extra {
        fn namespace(&self, name: &str) -> Result<Option<serde_json::Value>, HostError> {
            panic!("namespace `{name}` was not asked for")
        }

        fn authorize(&self, a: &AccessQuery) -> Result<AccessDecision, HostError> {
            Ok(AccessDecision {
                allowed: true,
                reason: format!("{} {} {:?}", a.user, a.uid, a.extra),
            })
        }
    }
    let req = json!({"userInfo": {"username": "alice", "uid": "7",
                     "extra": {"scopes": ["read", "write"], "empty": []}}});
    let reason = |src: &str| {
        let p = Env::admission().compile(src, Expect::String).unwrap();
        let act = Activation::new()
            .bind_json("request", Some(&req))
            .authorizer(&Extra);
        let v = p.eval(&act, &mut Budget::kubernetes()).unwrap();
        v.as_str().map(str::to_owned)
    };
    assert_eq!(
        reason("authorizer.group('').resource('pods').check('get').reason()").as_deref(),
        Some(r#"alice 7 {"empty": [], "scopes": ["read", "write"]}"#)
    );
    assert_eq!(
        reason("authorizer.serviceAccount('ns', 'bot').path('/x').check('get').reason()")
            .as_deref(),
        Some("system:serviceaccount:ns:bot  {}")
    );
}

#[test]
fn missing_authorizer_is_an_errored_decision() {
    let p = Env::admission()
        .compile("authorizer.path('/x').check('get').errored()", Expect::Bool)
        .unwrap();
    let v = p
        .eval(&Activation::new(), &mut Budget::kubernetes())
        .unwrap();
    assert_eq!(v.as_bool(), Some(true));
}

#[test]
fn namespace_object_is_fetched_lazily_once() {
    let ns = json!({"metadata": {"name": "team-a", "labels": {"env": "prod"}}});
    let calls = Cell::new(0);
    let lookup = || {
        calls.set(calls.get() + 1);
        Ok(Some(&ns))
    };
    let env = Env::admission();
    let p = env
        .compile(
            "namespaceObject.metadata.labels.env == 'prod'",
            Expect::Bool,
        )
        .unwrap();
    let q = env.compile("object.kind == 'Pod'", Expect::Bool).unwrap();
    let obj = json!({"kind": "Pod"});
    let act = Activation::new()
        .bind_json("object", Some(&obj))
        .namespace_object(&lookup);
    q.eval(&act, &mut Budget::kubernetes()).unwrap();
    assert_eq!(calls.get(), 0, "not needed, not fetched");
    assert_eq!(
        p.eval(&act, &mut Budget::kubernetes()).unwrap().as_bool(),
        Some(true)
    );
    assert_eq!(
        p.eval(&act, &mut Budget::kubernetes()).unwrap().as_bool(),
        Some(true)
    );
    assert_eq!(calls.get(), 1);

    let failing = || Err("namespace `team-a` is not in the context".to_string());
    let act = Activation::new().namespace_object(&failing);
    let e = p.eval(&act, &mut Budget::kubernetes()).unwrap_err();
    assert_eq!(e.to_string(), "namespace `team-a` is not in the context");
    let none = || Ok(None);
    let act = Activation::new().namespace_object(&none);
    let isnull = env
        .compile("namespaceObject == null", Expect::Bool)
        .unwrap();
    assert_eq!(
        isnull
            .eval(&act, &mut Budget::kubernetes())
            .unwrap()
            .as_bool(),
        Some(true)
    );
}

#[test]
fn unbound_variables_are_runtime_errors() {
    let p = Env::admission()
        .compile("params.maxReplicas > 1", Expect::Bool)
        .unwrap();
    let e = p
        .eval(&Activation::new(), &mut Budget::kubernetes())
        .unwrap_err();
    assert_eq!(e.to_string(), "no such attribute(s): params");
    // bound to null (no paramKind): selecting on it is `no such key`, has() is false
    // (cel-go interpreter/attributes.go refQualify; kube-apiserver
    // test/integration/apiserver/cel/validatingadmissionpolicy_test.go
    // Test_ValidateNamespace_NoParams)
    let act = Activation::new().bind_json("params", None);
    let e = p.eval(&act, &mut Budget::kubernetes()).unwrap_err();
    assert_eq!(e.to_string(), "no such key: maxReplicas");
    let has = Env::admission()
        .compile("has(params.metadata)", Expect::Bool)
        .unwrap();
    assert_eq!(
        has.eval(&act, &mut Budget::kubernetes()).unwrap().as_bool(),
        Some(false)
    );
}

// upstream: cert-manager/approver-policy pkg/internal/approver/validation (CEL validations
// over `self` and `cr`)
#[test]
fn certificate_request_environment() {
    let env = Env::certificate_request();
    let cases = [
        (
            "self.endsWith('.' + cr.namespace + '.svc')",
            "web.team-a.svc",
            true,
        ),
        ("self.startsWith(cr.name)", "web.team-a.svc", true),
        ("self.matches('^[a-z.-]+$')", "web.team-a.svc", true),
        ("self.split('.').size() == 3", "web.team-a.svc", true),
        (
            "cr.username == 'system:serviceaccount:team-a:bot'",
            "x",
            true,
        ),
        ("'system:authenticated' in cr.groups", "x", true),
    ];
    let cr = Value::map(vec![
        (Value::string("name"), Value::string("web")),
        (Value::string("namespace"), Value::string("team-a")),
        (
            Value::string("username"),
            Value::string("system:serviceaccount:team-a:bot"),
        ),
        (
            Value::string("groups"),
            Value::list(vec![Value::string("system:authenticated")]),
        ),
    ]);
    for (src, input, want) in cases {
        let p = env
            .compile(src, Expect::Bool)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        let act = Activation::new()
            .bind("self", Value::string(input))
            .bind("cr", cr.clone());
        let v = p
            .eval(&act, &mut Budget::kubernetes())
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(v.as_bool(), Some(want), "{src}");
    }
    assert!(env.compile("object.x", Expect::Bool).is_err());
    assert!(env.compile("self + 1", Expect::Any).is_err());
}

#[test]
fn request_is_built_only_when_read_and_at_most_once() {
    let env = Env::admission();
    let req = json!({"operation": "CREATE", "userInfo": {"username": "alice"},
                     "resource": {"group": "", "resource": "secrets"}, "namespace": "team-a", "name": "web"});
    let built = Cell::new(0);
    let produce = || {
        built.set(built.get() + 1);
        &req
    };
    let rbac = Rbac {
        calls: Cell::new(0),
    };
    // compiled before the activation is made: programs outlive it (values may borrow their literals)
    let sources = [
        "1 + 1 == 2",
        "request.operation",
        "has(request.userInfo.username)",
        "authorizer.requestResource.check('get').reason()",
    ];
    let programs: Vec<Program> = sources
        .iter()
        .map(|src| env.compile(src, Expect::Any).unwrap())
        .collect();
    let act = Activation::new().request(&produce).authorizer(&rbac);
    let eval = |src: &str| {
        let at = sources.iter().position(|s| *s == src).unwrap();
        programs[at]
            .eval(&act, &mut Budget::kubernetes())
            .map(|v| v.to_json().unwrap())
    };
    assert_eq!(eval("1 + 1 == 2").unwrap(), json!(true));
    assert_eq!(
        built.get(),
        0,
        "an expression that does not read `request` does not build it"
    );
    assert_eq!(eval("request.operation").unwrap(), json!("CREATE"));
    assert_eq!(eval("has(request.userInfo.username)").unwrap(), json!(true));
    // `authorizer` asks as the requesting user (alice), about the request's resource, both read from `request`
    assert_eq!(
        eval("authorizer.requestResource.check('get').reason()").unwrap(),
        json!("rbac: allowed by role")
    );
    assert_eq!(built.get(), 1, "built once, then kept");
}
