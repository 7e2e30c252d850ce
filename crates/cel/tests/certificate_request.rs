//! approver-policy's CEL environment (`Env::certificate_request`): the typed `cr` message,
//! the service-account library, exact `bool` results, no optional syntax.
//! upstream: cert-manager/approver-policy v0.27 pkg/internal/approver/validation
//! (validator.go, serviceaccount.go and their tests).

#![allow(
    clippy::panic,
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test code: a failed expectation is a test failure"
)]

use palisade_cel::{Activation, Budget, CompileError, Env, Expect, Value};

fn cr_value(name: &str, namespace: &str, username: &str, groups: &[&str]) -> Value<'static> {
    // bound as crates/certificates/src/cel.rs binds it
    Value::map(vec![
        (Value::string("name"), Value::string(name)),
        (Value::string("namespace"), Value::string(namespace)),
        (Value::string("username"), Value::string(username)),
        (
            Value::string("groups"),
            Value::list(groups.iter().map(|g| Value::string(*g)).collect()),
        ),
    ])
}

fn compile(src: &str) -> Result<palisade_cel::Program, CompileError> {
    Env::certificate_request().compile(src, Expect::Bool)
}

fn compile_err(src: &str) -> String {
    match compile(src) {
        Ok(_) => panic!("{src} must not compile"),
        Err(e) => e.to_string(),
    }
}

/// Ok(bool) or the evaluation error text.
fn eval(src: &str, this: &str, cr: Value<'static>) -> Result<bool, String> {
    let p = compile(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    let act = Activation::new()
        .bind("self", Value::string(this))
        .bind("cr", cr);
    p.eval(&act, &mut Budget::kubernetes())
        .map(|v| v.as_bool().expect("bool result"))
        .map_err(|e| e.to_string())
}

fn user(username: &str) -> Value<'static> {
    cr_value("req", "ns", username, &[])
}

#[test]
fn compile_table() {
    // upstream: validator_test.go Test_Validator_Compile
    for src in [
        "'www.example.com'.endsWith('.com')",
        "size(cr.namespace) < 24",
        "[1,2,3].all(i, i % 2 > 0)",
        "self.startsWith('spiffe://trust-domain.com/')",
        "['.svc', '.svc.cluster.local'].exists(d, self.endsWith(cr.namespace + d))",
        "size(cr.username) > 0",
        "self.startsWith(serviceAccount(cr.username).getName())",
        "self.startsWith(serviceAccount(cr.username).getNamespace())",
        "isServiceAccount(cr.username)",
        "size(cr.groups) > 0",
    ] {
        compile(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    for src in ["", "foo = bar", "size('foo')", "size(cr.foo) < 24"] {
        assert!(compile(src).is_err(), "{src} must not compile");
    }
    assert_eq!(
        compile_err("size('foo')"),
        "got int, wanted bool result type"
    );
}

#[test]
fn cr_fields_are_typed() {
    let env = Env::certificate_request();
    for (src, ty) in [
        ("cr.name", "string"),
        ("cr.namespace", "string"),
        ("cr.username", "string"),
        ("cr.groups", "list<string>"),
        ("cr.groups[0]", "string"),
        ("serviceAccount(cr.username)", T_SA),
        ("serviceAccount(cr.username).getName()", "string"),
        ("serviceAccount(cr.username).getNamespace()", "string"),
        ("isServiceAccount(self)", "bool"),
    ] {
        let p = env
            .compile(src, Expect::Any)
            .unwrap_or_else(|e| panic!("{src}: {e}"));
        assert_eq!(p.result_type().display_name(), ty, "{src}");
    }
}

const T_SA: &str = "cm.io.policy.pkg.internal.approver.validation.ServiceAccount";
const T_CR: &str = "cm.io.policy.pkg.internal.approver.validation.CertificateRequest";

#[test]
fn unknown_fields_and_bad_selections_do_not_compile() {
    // upstream: Test_Validator_Compile err-invalid-property; cel-go checker wording
    assert_eq!(
        compile_err("size(cr.foo) < 24"),
        "ERROR: <input>:1:8: undefined field 'foo'\n | size(cr.foo) < 24\n | .......^"
    );
    assert_eq!(
        compile_err("cr.foo == ''"),
        "ERROR: <input>:1:3: undefined field 'foo'\n | cr.foo == ''\n | ..^"
    );
    assert_eq!(
        compile_err("has(cr.foo)"),
        "ERROR: <input>:1:4: undefined field 'foo'\n | has(cr.foo)\n | ...^"
    );
    assert!(
        compile_err("cr.groups.exists(g, g.name == 'a')")
            .contains("type 'string' does not support field selection")
    );
    // upstream: allowed Test_Validate "if policy contains invalid CEL validations"
    assert_eq!(
        compile_err("cr.name[1] > 2"),
        "ERROR: <input>:1:8: found no matching overload for '_[_]' applied to '(string, int)'\n | cr.name[1] > 2\n | .......^"
    );
    assert!(
        compile_err("cr.groups + 1 == []")
            .contains("found no matching overload for '_+_' applied to '(list(string), int)'")
    );
    // a typed element has no fields (cel-go: only messages, maps and dyn are selectable)
    assert_eq!(
        compile_err("cr.groups[0].foo == 'x'"),
        "ERROR: <input>:1:13: type 'string' does not support field selection\n | cr.groups[0].foo == 'x'\n | ............^"
    );
    assert!(compile_err("[cr][0].foo == 1").contains("undefined field 'foo'"));
    assert!(
        compile_err("self.split('.')[0].foo == 1")
            .contains("type 'string' does not support field selection")
    );
    compile("[cr][0].name == ''").unwrap();
    compile("dyn([{'a': 1}])[0].a == 1").unwrap();
    // a message is not a comprehension range
    assert_eq!(
        compile_err("cr.all(k, k == 'name')"),
        format!(
            "ERROR: <input>:1:1: expression of type '{T_CR}' cannot be range of a comprehension (must be list, map, or dynamic)\n | cr.all(k, k == 'name')\n | ^"
        )
    );
    assert!(compile_err("cr.exists(k, true)").contains("cannot be range of a comprehension"));
    assert!(compile_err("size(cr) > 0").contains(&format!(
        "found no matching overload for 'size' applied to '({T_CR})'"
    )));
    assert!(compile_err("cr['name'] == ''").contains("found no matching overload for '_[_]'"));
    assert!(compile_err("'name' in cr").contains("found no matching overload for '@in'"));
    // the ServiceAccount type is declared but not registered with the type provider
    assert!(
        compile_err("serviceAccount(cr.username).name == ''")
            .contains(&format!("unexpected failed resolution of '{T_SA}'"))
    );
    assert_eq!(
        compile_err("isServiceAccount(1)"),
        "ERROR: <input>:1:17: found no matching overload for 'isServiceAccount' applied to '(int)'\n | isServiceAccount(1)\n | ................^"
    );
    assert!(compile_err("cr.getName() == ''").starts_with(&format!(
        "ERROR: <input>:1:11: found no matching overload for 'getName' applied to '{T_CR}.()'"
    )));
    assert!(compile_err("self.startsWith(1)").starts_with(
        "ERROR: <input>:1:16: found no matching overload for 'startsWith' applied to 'string.(int)'"
    ));
    assert!(compile_err("(cr.name) + 1 == ''").starts_with(
        "ERROR: <input>:1:11: found no matching overload for '_+_' applied to '(string, int)'"
    ));
}

#[test]
fn result_must_be_exactly_bool() {
    // upstream: validator.go `reflect.DeepEqual(ast.OutputType(), cel.BoolType)`
    for (src, got) in [
        ("cr.name", "string"),
        ("cr.groups", "list(string)"),
        (
            "cr",
            "cm.io.policy.pkg.internal.approver.validation.CertificateRequest",
        ),
        ("dyn(true)", "dyn"),
        ("[1, 'a'][0]", "dyn"),
        ("{'a': 1}", "map(string, int)"),
        ("[cr.groups]", "list(list(string))"),
        ("null", "null_type"),
        ("serviceAccount(self)", T_SA),
    ] {
        assert_eq!(
            compile_err(src),
            format!("got {got}, wanted bool result type"),
            "{src}"
        );
    }
}

#[test]
fn optional_syntax_is_not_enabled() {
    // cel-go's parser without cel.OptionalTypes()
    assert_eq!(
        compile_err("cr.?name.hasValue()"),
        "ERROR: <input>:1:3: unsupported syntax '.?'\n | cr.?name.hasValue()\n | ..^"
    );
    assert_eq!(
        compile_err("cr.groups[?0].hasValue()"),
        "ERROR: <input>:1:10: unsupported syntax '[?'\n | cr.groups[?0].hasValue()\n | .........^"
    );
    assert_eq!(
        compile_err("[?optional.none()] == []"),
        "ERROR: <input>:1:2: unsupported syntax '?'\n | [?optional.none()] == []\n | .^"
    );
    assert_eq!(
        compile_err("{?'a': optional.none()} == {}"),
        "ERROR: <input>:1:2: unsupported syntax '?'\n | {?'a': optional.none()} == {}\n | .^"
    );
    // the admission environment keeps them
    Env::admission()
        .compile("object.?spec.hasValue()", Expect::Bool)
        .unwrap();
}

#[test]
fn only_cel_go_default_macros() {
    // approver-policy's environment has cel.StandardMacros only: no cel.bind (ext.Bindings), no
    // two-variable comprehensions or transforms (ext.TwoVarComprehensions); issues are ordered
    // by location as cel-go prints them
    assert_eq!(
        compile_err("cel.bind(x, 1, x == 1)"),
        [
            "ERROR: <input>:1:1: undeclared reference to 'cel' (in container '')\n | cel.bind(x, 1, x == 1)\n | ^",
            "ERROR: <input>:1:9: undeclared reference to 'bind' (in container '')\n | cel.bind(x, 1, x == 1)\n | ........^",
            "ERROR: <input>:1:10: undeclared reference to 'x' (in container '')\n | cel.bind(x, 1, x == 1)\n | .........^",
            "ERROR: <input>:1:16: undeclared reference to 'x' (in container '')\n | cel.bind(x, 1, x == 1)\n | ...............^",
        ]
        .join("\n")
    );
    assert!(
        compile_err("[1].transformList(i, v, v) == []")
            .contains("undeclared reference to 'transformList' (in container '')")
    );
    assert!(compile("[1].all(i, v, v > 0)").is_err());
    for src in [
        "[1].exists_one(x, x == 1)",
        "[1].map(x, x > 0, x) == [1]",
        "[1].filter(x, x > 0) == [1]",
        "[1].exists(x, x == 1) && [1].all(x, x == 1) && has(cr.name)",
    ] {
        compile(src).unwrap_or_else(|e| panic!("{src}: {e}"));
    }
    // `existsOne` is only parser.AllMacros' spelling: approver-policy's `cel.NewEnv` has cel.StandardMacros
    assert!(
        compile_err("[1].existsOne(x, x == 1)").starts_with(
            "ERROR: <input>:1:14: undeclared reference to 'existsOne' (in container '')"
        )
    );
    // nor has kube-apiserver's (kubernetes_env.rs): the same issues
    assert_eq!(
        Env::admission()
            .compile("cel.bind(x, 1, x == 1)", Expect::Bool)
            .unwrap_err()
            .to_string(),
        compile_err("cel.bind(x, 1, x == 1)")
    );
}

#[test]
fn validate_with_cr() {
    // upstream: validator_test.go Test_Validator_Validate
    let rule = "self.startsWith('spiffe://acme.com/ns/%s/sa/'.format([cr.namespace]))";
    let ns = |n: &str| cr_value("", n, "", &[]);
    assert_eq!(
        eval(rule, "spiffe://acme.com/ns/foo-ns/sa/bar", ns("foo-ns")),
        Ok(true)
    );
    assert_eq!(
        eval(rule, "spiffe://acme.com/ns/foo-ns/sa/bar", ns("bar-ns")),
        Ok(false)
    );
    assert_eq!(eval(rule, "spiffe://example.com", ns("foo-ns")), Ok(false));
    // upstream: Test_Validator_Validate_Groups
    let rule = "cr.groups.exists(g, self.matches('tool-%s'.format([g])))";
    let g = |gs: &[&str]| cr_value("", "", "", gs);
    assert_eq!(eval(rule, "tool-team-a", g(&["team-a"])), Ok(true));
    assert_eq!(eval(rule, "tool-team-a", g(&["admin", "team-a"])), Ok(true));
    assert_eq!(eval(rule, "tool-team-b", g(&["team-a"])), Ok(false));
    assert_eq!(eval(rule, "tool-team-b", g(&[])), Ok(false));
}

#[test]
fn validate_service_account() {
    // upstream: validator_test.go Test_Validator_Validate_ServiceAccount
    let rule = "isServiceAccount(cr.username) && self.startsWith('spiffe://acme.com/ns/%s/sa/%s'.format([serviceAccount(cr.username).getNamespace(),serviceAccount(cr.username).getName()]))";
    for (value, username, want) in [
        (
            "spiffe://acme.com/ns/foo-ns/sa/bar",
            "system:serviceaccount:foo-ns:bar",
            true,
        ),
        (
            "spiffe://acme.com/ns/bar-ns/sa/foo",
            "system:serviceaccount:bar-ns:foo",
            true,
        ),
        (
            "spiffe://acme.com/ns/foo-ns/sa/foo",
            "system:serviceaccount:foo-ns:bar",
            false,
        ),
        (
            "spiffe://acme.com/ns/foo-ns/sa/bar",
            "system:serviceaccount:bar-ns:bar",
            false,
        ),
        ("spiffe://acme.com/ns/foo-ns/sa/bar", "bar", false),
        (
            "spiffe://example.com",
            "system:serviceaccount:foo-ns:bar",
            false,
        ),
    ] {
        assert_eq!(eval(rule, value, user(username)), Ok(want), "{username}");
    }
}

#[test]
fn service_account_library() {
    // upstream: serviceaccount_test.go TestServiceAccountLib_CELIntegration, TestIsServiceAccount,
    // TestStringToServiceAccount
    assert_eq!(
        eval(
            "isServiceAccount(cr.username)",
            "",
            user("system:serviceaccount:default:my-sa")
        ),
        Ok(true)
    );
    assert_eq!(
        eval("isServiceAccount(cr.username)", "", user("not-valid")),
        Ok(false)
    );
    assert_eq!(
        eval("isServiceAccount(cr.username)", "", user("")),
        Ok(false)
    );
    assert_eq!(
        eval(
            "serviceAccount(cr.username).getName() == self",
            "test-sa",
            user("system:serviceaccount:test-ns:test-sa")
        ),
        Ok(true)
    );
    assert_eq!(
        eval(
            "serviceAccount(cr.username).getNamespace() == self",
            "test-ns",
            user("system:serviceaccount:test-ns:test-sa")
        ),
        Ok(true)
    );
    assert_eq!(
        eval(
            "serviceAccount(cr.username).getNamespace() == 'my-namespace' && serviceAccount(cr.username).getName() == 'my-sa'",
            "",
            user("system:serviceaccount:my-namespace:my-sa")
        ),
        Ok(true)
    );
    // "invalid username should return error", with approver-policy's wording
    assert_eq!(
        eval(
            "serviceAccount(cr.username).getName() == self",
            "x",
            user("not-a-service-account")
        ),
        Err("Unable to convert to serviceaccount: err: Username must be in the form system:serviceaccount:namespace:name, username: not-a-service-account".to_string())
    );
    // TestServiceAccount_Equal
    assert_eq!(
        eval(
            "serviceAccount(cr.username) == serviceAccount(self)",
            "system:serviceaccount:ns:sa",
            user("system:serviceaccount:ns:sa")
        ),
        Ok(true)
    );
    assert_eq!(
        eval(
            "serviceAccount(cr.username) == serviceAccount(self)",
            "system:serviceaccount:ns:other",
            user("system:serviceaccount:ns:sa")
        ),
        Ok(false)
    );
    // TestServiceAccount_Type
    assert_eq!(
        eval(
            "type(serviceAccount(self)) == type(serviceAccount(self))",
            "system:serviceaccount:ns:sa",
            user("")
        ),
        Ok(true)
    );
    // k8s SplitUsername validates the namespace (DNS-1123 label) and name (DNS-1123 subdomain)
    for (u, want) in [
        ("system:serviceaccount:ns:a.b-c", true),
        ("system:serviceaccount:a.b:c", false),
        ("system:serviceaccount:NS:sa", false),
        ("system:serviceaccount:ns:sa:extra", false),
        ("system:serviceaccount:ns:", false),
    ] {
        assert_eq!(
            eval("isServiceAccount(cr.username)", "", user(u)),
            Ok(want),
            "{u}"
        );
    }
}

#[test]
fn has_follows_proto3_presence() {
    // proto3 scalar and repeated fields: present only when not the zero value
    let cr = || cr_value("req", "", "u", &[]);
    assert_eq!(eval("has(cr.name)", "", cr()), Ok(true));
    assert_eq!(eval("has(cr.namespace)", "", cr()), Ok(false));
    assert_eq!(eval("has(cr.groups)", "", cr()), Ok(false));
    assert_eq!(
        eval("has(cr.groups)", "", cr_value("", "", "", &["g"])),
        Ok(true)
    );
    // unset fields still read as their zero value
    assert_eq!(
        eval("cr.namespace == '' && size(cr.groups) == 0", "", cr()),
        Ok(true)
    );
    // has() on a map literal is unchanged
    assert_eq!(eval("has({'a': ''}.a)", "", cr()), Ok(true));
}

#[test]
fn cost_limit_applies() {
    // upstream: validator_test.go Test_Validator_Validate_CostLimitExceeded
    let l = "[0,1,2,3,4,5,6,7,8,9]";
    let rule = format!(
        "{l}.all(a, {l}.all(b, {l}.all(c, {l}.all(d, {l}.all(e, {l}.all(f, {l}.all(g, {l}.all(h, self != \"\"))))))))"
    );
    let e = eval(&rule, "anything", user("")).unwrap_err();
    assert!(e.contains("cost limit exceeded"), "{e}");
}

/// The cost of `src` (which evaluates without error) in approver-policy's environment.
fn cost(src: &str) -> u64 {
    let p = Env::certificate_request()
        .compile(src, Expect::Any)
        .unwrap_or_else(|e| panic!("{src}: {e}"));
    let mut budget = Budget::kubernetes();
    p.eval(&Activation::new(), &mut budget)
        .unwrap_or_else(|e| panic!("{src}: {e}"));
    budget.used()
}

#[test]
fn strings_extension_costs_as_cel_go_tracks_it() {
    // upstream: cel-go ext/strings_test.go TestStringCostTracking (c9d70486, the strings extension at version 5, which
    // `ext.Strings()` is in approver-policy v0.27's cel-go v0.30): each row's actual cost. Without cel-go's optimizer,
    // as approver-policy builds its programs, the list literal of `join` costs 10 besides.
    let rows: &[(&str, u64)] = &[
        (r#""hello world".charAt(0)"#, 4),
        (r#""hello world".indexOf("world")"#, 7),
        (r#""hello world".lastIndexOf("o")"#, 3),
        (r#""HELLO".lowerAscii()"#, 7),
        (r#""hello".upperAscii()"#, 7),
        (r#""hello world".replace("world", "CEL")"#, 16),
        (
            r#""A".replace("", "AAAAAAAAAA").replace("", "AAAAAAAAAA")"#,
            268,
        ),
        (r#""a,b,c,d,e".split(",")"#, 17),
        (r#""hello world".substring(0, 5)"#, 8),
        (r#"["a", "b", "c", "d", "e"].join("-")"#, 21),
        (r#""  hello  ".trim()"#, 7),
        (r#""hello".reverse()"#, 7),
    ];
    let wrong: Vec<String> = rows
        .iter()
        .filter(|(src, want)| cost(src) != *want)
        .map(|(src, want)| format!("{src}: want {want}, got {}", cost(src)))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn constant_literals_are_charged_each_time_as_without_cel_go_optimizer() {
    // approver-policy's programs have no `cel.OptOptimize`: a constant list is built, and charged (10, and 1 per
    // element compared by `in`), whenever it is evaluated; kube-apiserver's environment folds it (0, and a set lookup)
    assert_eq!(cost("'b' in ['a', 'b', 'c']"), 10 + 3);
    assert_eq!(cost("{'a': 1}.size() == 1"), 30 + 1 + 1);
    assert_eq!(cost("duration('1h') > duration('1m')"), 1 + 1 + 1);
}

#[test]
fn growing_strings_run_out_of_cost_as_in_cel_go() {
    // upstream: cel-go ext/strings_test.go TestStringCostLimitEnforced, with approver-policy's limit: each `replace`
    // is charged what it builds, 11 times the last, so the sixth exceeds 1,000,000
    let five = r#""A".replace("", "AAAAAAAAAA").replace("", "AAAAAAAAAA").replace("", "AAAAAAAAAA").replace("", "AAAAAAAAAA").replace("", "AAAAAAAAAA")"#;
    assert!(cost(five) < 1_000_000, "{}", cost(five));
    let six = format!(r#"{five}.replace("", "AAAAAAAAAA").size() > 0"#);
    let e = eval(&six, "", user("")).unwrap_err();
    assert!(e.contains("cost limit exceeded"), "{e}");
}

/// cel-go v0.28 dropped `duration(int)` (339269b4): in approver-policy's cel-go v0.30 a literal int does not compile,
/// and an int reached through `dyn` is no overload of `duration` when it runs (kube-apiserver's v0.27 declares it and
/// fails it: `kubernetes_env.rs`).
#[test]
fn duration_of_an_int_is_no_overload_as_in_cel_go_v0_28_and_later() {
    assert_eq!(
        compile_err("duration(1) == duration('1s')"),
        "ERROR: <input>:1:9: found no matching overload for 'duration' applied to '(int)'\n | duration(1) == duration('1s')\n | ........^"
    );
    assert_eq!(
        eval("duration(dyn(1)) == duration('1ns')", "x", user("alice")),
        Err("no such overload".to_string())
    );
}
