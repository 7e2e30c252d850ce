//! Dispatch with a fake webhook: each test says what the apiserver does before, around and after the call
//! (k8s.io/apiserver `pkg/admission/plugin/webhook/generic/webhook.go`, `validating/dispatcher.go`).

use super::*;
use crate::context::StaticContext;

fn hook(extra: Value) -> Value {
    let mut hook = json!({
        "name": "palisade.example.com",
        "rules": [{"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}],
        "sideEffects": "None",
        "admissionReviewVersions": ["v1"]
    });
    if let (Some(h), Some(e)) = (hook.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            h.insert(k.clone(), v.clone());
        }
    }
    hook
}

fn configuration(hooks: Vec<Value>) -> Configuration {
    Configuration::compile(&json!({
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": "palisade"},
        "webhooks": hooks
    }))
    .unwrap()
}

fn review(extra: Value) -> Value {
    let mut request = json!({
        "uid": "u-1",
        "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
        "resource": {"group": "", "version": "v1", "resource": "configmaps"},
        "name": "settings", "namespace": "default", "operation": "CREATE",
        "userInfo": {"username": "alice"},
        "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "default"}}
    });
    if let (Some(r), Some(e)) = (request.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            r.insert(k.clone(), v.clone());
        }
    }
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request})
}

fn cluster() -> StaticContext {
    serde_json::from_value(json!({"namespaces": [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kube-system", "labels": {"exempt": "true"}}}
    ]}))
    .unwrap()
}

/// An answer of the module: the review's uid echoed in an admission.k8s.io/v1 AdmissionReview.
fn answer(call: &Call<'_>, response: Value) -> Value {
    let mut response = response;
    if let Some(r) = response.as_object_mut() {
        r.insert("uid".into(), call.review["request"]["uid"].clone());
    }
    json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": response})
}

/// Dispatches with a webhook that answers `respond`; returns the result and the webhooks called, in order.
fn run(
    config: &Configuration,
    review: &Value,
    mut respond: impl FnMut(&Call<'_>) -> Result<Value, CallError>,
) -> (Result<Dispatched, Error>, Vec<String>) {
    let mut called = Vec::new();
    let result = config.dispatch(review, &cluster(), &mut |call: &Call<'_>| {
        called.push(call.webhook.to_owned());
        respond(call)
    });
    (result, called)
}

fn allow(call: &Call<'_>) -> Result<Value, CallError> {
    Ok(answer(call, json!({"allowed": true})))
}

fn response(result: Result<Dispatched, Error>) -> Value {
    match result {
        Ok(Dispatched::Response(r)) => r,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_matching_request_is_sent_and_the_answer_kept() {
    let config = configuration(vec![hook(json!({"timeoutSeconds": 5}))]);
    let (result, called) = run(&config, &review(json!({})), |call| {
        assert_eq!(call.timeout, Duration::from_secs(5));
        assert_eq!(call.review["apiVersion"], "admission.k8s.io/v1");
        Ok(answer(
            call,
            json!({"allowed": false, "status": {"code": 403, "message": "no"}}),
        ))
    });
    assert_eq!(called, ["palisade.example.com"]);
    assert_eq!(
        response(result),
        json!({"uid": "u-1", "allowed": false, "status": {"code": 403, "message": "no"}})
    );
}

#[test]
fn a_request_no_rule_matches_is_skipped_without_a_call() {
    let config = configuration(vec![hook(json!({}))]);
    let (result, called) = run(&config, &review(json!({"operation": "DELETE"})), allow);
    assert!(called.is_empty());
    assert_eq!(
        result,
        Ok(Dispatched::Skipped(
            "no webhook of `palisade` matches the request".into()
        ))
    );
}

// upstream: generic/webhook.go IsExemptAdmissionConfigurationResource
#[test]
fn admission_configuration_objects_are_exempt() {
    let config = configuration(vec![hook(json!({
        "rules": [{"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}]
    }))]);
    let exempt = review(json!({
        "kind": {"group": "admissionregistration.k8s.io", "version": "v1", "kind": "ValidatingWebhookConfiguration"},
        "resource": {"group": "admissionregistration.k8s.io", "version": "v1", "resource": "validatingwebhookconfigurations"},
        "namespace": ""
    }));
    let (result, called) = run(&config, &exempt, allow);
    assert!(called.is_empty());
    assert_eq!(
        result,
        Ok(Dispatched::Skipped(
            "admission configuration objects are never sent to webhooks".into()
        ))
    );
}

#[test]
fn namespace_labels_come_from_the_cluster() {
    let config = configuration(vec![hook(json!({
        "namespaceSelector": {"matchExpressions": [{"key": "exempt", "operator": "DoesNotExist"}]}
    }))]);
    let (result, called) = run(&config, &review(json!({"namespace": "kube-system"})), allow);
    assert!(called.is_empty());
    assert!(matches!(result, Ok(Dispatched::Skipped(_))), "{result:?}");
    // a namespace the cluster does not know: 404 before any call
    let (result, called) = run(&config, &review(json!({"namespace": "staging"})), allow);
    assert!(called.is_empty());
    let r = response(result);
    assert_eq!(r["status"]["code"], 404);
    assert_eq!(r["status"]["reason"], "NotFound");
    assert_eq!(r["status"]["message"], "namespaces \"staging\" not found");
    // a cluster that cannot answer: 500 in the context's words
    let mut called = 0;
    let r = config.dispatch(
        &review(json!({})),
        &StaticContext::default(),
        &mut |call: &Call<'_>| {
            called += 1;
            allow(call)
        },
    );
    let r = response(r);
    assert_eq!(called, 0);
    assert_eq!(r["status"]["code"], 500);
    let message = r["status"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("Internal error occurred: namespace `default` is needed"),
        "{message}"
    );
}

// upstream: validating/dispatcher.go callHook (NewDryRunUnsupportedErr)
#[test]
fn dry_run_to_side_effects_unknown_is_rejected_before_the_call() {
    let config = configuration(vec![hook(json!({"sideEffects": "Unknown"}))]);
    let (result, called) = run(&config, &review(json!({"dryRun": true})), allow);
    assert!(called.is_empty());
    assert_eq!(
        response(result),
        json!({"uid": "u-1", "allowed": false, "status": {"metadata": {}, "status": "Failure",
            "message": "admission webhook \"palisade.example.com\" does not support dry run",
            "reason": "BadRequest", "code": 400}})
    );
    // NoneOnDryRun is called, and so is Unknown without dryRun
    let config = configuration(vec![hook(json!({"sideEffects": "NoneOnDryRun"}))]);
    let (_, called) = run(&config, &review(json!({"dryRun": true})), allow);
    assert_eq!(called.len(), 1);
    let config = configuration(vec![hook(json!({"sideEffects": "Unknown"}))]);
    let (_, called) = run(&config, &review(json!({"dryRun": false})), allow);
    assert_eq!(called.len(), 1);
}

// upstream: validating/dispatcher.go Dispatch (ignoreClientCallFailures, the failed-open audit annotation)
#[test]
fn a_call_error_under_ignore_fails_open_with_the_annotation() {
    let config = configuration(vec![hook(json!({"failurePolicy": "Ignore"}))]);
    let (result, _) = run(&config, &review(json!({})), |_| {
        Err(CallError::Failed("`validate` trapped".into()))
    });
    assert_eq!(
        response(result),
        json!({"uid": "u-1", "allowed": true, "auditAnnotations": {
            "failed-open.validating.webhook.admission.k8s.io/round_0_index_0": "palisade.example.com"}})
    );
}

#[test]
fn a_call_error_under_fail_is_an_internal_error() {
    let config = configuration(vec![hook(json!({"failurePolicy": "Fail"}))]);
    let (result, _) = run(&config, &review(json!({})), |_| {
        Err(CallError::Timeout("`validate` timed out after 10s".into()))
    });
    assert_eq!(
        response(result),
        json!({"uid": "u-1", "allowed": false, "status": {"metadata": {}, "status": "Failure",
            "message": "Internal error occurred: failed calling webhook \"palisade.example.com\": failed to call webhook: `validate` timed out after 10s",
            "reason": "InternalError", "code": 500}})
    );
}

#[test]
fn an_invalid_answer_is_a_call_error() {
    let config = configuration(vec![hook(json!({}))]);
    let (result, _) = run(&config, &review(json!({})), |_| {
        Ok(
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "response": {"uid": "other", "allowed": true}}),
        )
    });
    assert_eq!(
        response(result)["status"]["message"],
        "Internal error occurred: failed calling webhook \"palisade.example.com\": received invalid webhook response: expected response.uid=\"u-1\", got \"other\""
    );
}

#[test]
fn the_review_is_sent_in_the_first_version_the_webhook_accepts() {
    let config = configuration(vec![hook(
        json!({"admissionReviewVersions": ["v1beta1", "v1"]}),
    )]);
    let (result, _) = run(&config, &review(json!({})), |call| {
        assert_eq!(call.review["apiVersion"], "admission.k8s.io/v1beta1");
        // v1beta1 answers are not checked for their uid or apiVersion
        Ok(json!({"response": {"allowed": true}}))
    });
    assert_eq!(response(result), json!({"allowed": true}));
}

// upstream: matchconditions/matcher.go Match; generic/webhook.go ShouldCallHook (NewForbidden)
#[test]
fn match_conditions_decide_before_the_call() {
    let condition = |expression: &str, failure_policy: &str| {
        configuration(vec![hook(json!({
            "failurePolicy": failure_policy,
            "matchConditions": [{"name": "c", "expression": expression}]
        }))])
    };
    let (result, called) = run(
        &condition(
            "request.userInfo.username == 'alice' && !request.dryRun",
            "Fail",
        ),
        &review(json!({})),
        allow,
    );
    assert_eq!(called.len(), 1);
    assert_eq!(response(result), json!({"uid": "u-1", "allowed": true}));
    let (result, called) = run(
        &condition("has(object.spec)", "Fail"),
        &review(json!({})),
        allow,
    );
    assert!(called.is_empty());
    assert!(matches!(result, Ok(Dispatched::Skipped(_))), "{result:?}");
    let failing = "object.metadata.labels.team == 'a'";
    let (result, called) = run(&condition(failing, "Ignore"), &review(json!({})), allow);
    assert!(called.is_empty());
    assert!(matches!(result, Ok(Dispatched::Skipped(_))), "{result:?}");
    let (result, called) = run(&condition(failing, "Fail"), &review(json!({})), allow);
    assert!(called.is_empty());
    let r = response(result);
    assert_eq!(r["status"]["code"], 403);
    assert_eq!(r["status"]["reason"], "Forbidden");
    let message = r["status"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "configmaps \"settings\" is forbidden: expression 'object.metadata.labels.team == 'a'' resulted in error: "
        ),
        "{message}"
    );
}

#[test]
fn match_conditions_see_the_authorizer_but_not_params() {
    let config = Configuration::compile(&json!({"webhooks": [hook(json!({
        "matchConditions": [{"name": "p", "expression": "params == null"}]
    }))]}));
    let Err(Error::MatchConditions(message)) = config else {
        panic!("{config:?}")
    };
    assert!(
        message.starts_with("webhooks[0].matchConditions[0].expression: Invalid value: \"params == null\": compilation failed: "),
        "{message}"
    );
    // the authorizer asks the cluster, which has no authorizations here: the check is errored, not an
    // evaluation error (an unbound authorizer would be one, and failurePolicy Fail would reject)
    let config = configuration(vec![hook(json!({
        "matchConditions": [{"name": "a", "expression": "authorizer.group('').resource('configmaps').check('get').errored()"}]
    }))]);
    let (result, called) = run(&config, &review(json!({})), allow);
    assert_eq!(called.len(), 1);
    assert_eq!(response(result), json!({"uid": "u-1", "allowed": true}));
}

#[test]
fn the_first_denial_wins_and_allowed_answers_are_joined() {
    let config = configuration(vec![
        hook(json!({"name": "a.example.com"})),
        hook(json!({"name": "b.example.com"})),
        hook(json!({"name": "c.example.com", "failurePolicy": "Ignore"})),
    ]);
    let (result, called) = run(&config, &review(json!({})), |call| match call.webhook {
        "a.example.com" => Ok(answer(
            call,
            json!({"allowed": true, "warnings": ["from a"]}),
        )),
        "b.example.com" => Ok(answer(
            call,
            json!({"allowed": true, "warnings": ["from b"], "auditAnnotations": {"b/x": "1"}}),
        )),
        _ => Err(CallError::Failed("down".into())),
    });
    assert_eq!(called, ["a.example.com", "b.example.com", "c.example.com"]);
    assert_eq!(
        response(result),
        json!({"uid": "u-1", "allowed": true, "warnings": ["from a", "from b"], "auditAnnotations": {
            "b/x": "1",
            "failed-open.validating.webhook.admission.k8s.io/round_0_index_2": "c.example.com"}})
    );
    let (result, _) = run(&config, &review(json!({})), |call| {
        let allowed = call.webhook != "b.example.com";
        Ok(answer(
            call,
            json!({"allowed": allowed, "status": {"message": call.webhook}}),
        ))
    });
    assert_eq!(response(result)["status"]["message"], "b.example.com");
}

#[test]
fn broken_configurations_and_reviews_are_errors() {
    assert_eq!(
        Configuration::compile(&json!({"webhooks": []})).unwrap_err(),
        Error::NoWebhooks
    );
    let invalid =
        Configuration::compile(&json!({"webhooks": [hook(json!({"timeoutSeconds": 60}))]}));
    let Err(Error::Invalid(message)) = invalid else {
        panic!("{invalid:?}")
    };
    assert!(
        message.starts_with("webhooks[0].timeoutSeconds: "),
        "{message}"
    );
    let config = configuration(vec![hook(json!({}))]);
    let (result, _) = run(&config, &json!({"kind": "AdmissionReview"}), allow);
    assert_eq!(result, Err(Error::NoRequest));
    assert_eq!(
        Error::NoRequest.to_string(),
        "the review has no `request`: a webhook configuration cannot be applied to it"
    );
}

#[test]
fn one_configuration_is_picked_and_a_bare_webhook_wrapped() {
    let bare = json!({"name": "a.example.com"});
    assert_eq!(
        pick_configuration(vec![json!({"kind": "Namespace"}), bare.clone()]).unwrap(),
        json!({"webhooks": [bare]})
    );
    let vwc = json!({"kind": "ValidatingWebhookConfiguration", "webhooks": []});
    assert_eq!(pick_configuration(vec![vwc.clone()]).unwrap(), vwc);
    let several = pick_configuration(vec![vwc.clone(), vwc]).unwrap_err();
    assert_eq!(
        several.to_string(),
        "the documents hold 2 ValidatingWebhookConfigurations, expected one"
    );
    assert_eq!(
        pick_configuration(vec![json!({"kind": "MutatingWebhookConfiguration"})]),
        Err(Error::Mutating)
    );
    assert_eq!(pick_configuration(vec![]), Err(Error::NoConfiguration));
}

/// `apply` reads the context a host gives (namespaces for a namespaceSelector) and says when it cannot.
#[test]
fn apply_reads_the_context_document() {
    let config = json!({"webhooks": [hook(json!({
        "namespaceSelector": {"matchLabels": {"env": "prod"}}
    }))]});
    let review = json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {
        "uid": "u", "kind": {"group": "", "version": "v1", "kind": "ConfigMap"},
        "resource": {"group": "", "version": "v1", "resource": "configmaps"},
        "namespace": "shop", "operation": "CREATE", "userInfo": {"username": "alice"},
        "object": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "shop"}}
    }});
    let mut calls = 0;
    let mut call = |_: &Call<'_>| {
        calls += 1;
        Ok(
            json!({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
                  "response": {"uid": "u", "allowed": true}}),
        )
    };
    let prod = json!({"namespaces": [{"metadata": {"name": "shop", "labels": {"env": "prod"}}}]});
    assert!(matches!(
        apply(&config, &review, Some(&prod), &mut call),
        Ok(Dispatched::Response(_))
    ));
    let dev = json!({"namespaces": [{"metadata": {"name": "shop", "labels": {"env": "dev"}}}]});
    assert!(matches!(
        apply(&config, &review, Some(&dev), &mut call),
        Ok(Dispatched::Skipped(_))
    ));
    assert!(matches!(
        apply(&config, &review, Some(&json!({"namespaces": 3})), &mut call),
        Err(Error::Context(_))
    ));
    assert_eq!(calls, 1);
}
