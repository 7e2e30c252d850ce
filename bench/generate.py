#!/usr/bin/env python3
"""Writes the generated standard workloads of bench/README.md: many-policies.yaml (200 ValidatingAdmissionPolicies
with their bindings, 5 of which match a Deployment UPDATE) and deployment-update-100k.json (that UPDATE, about 100 KB).
Deterministic: running it again writes the same bytes."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RESOURCES = ["pods", "services", "configmaps", "secrets", "ingresses", "jobs", "cronjobs", "statefulsets",
             "daemonsets", "persistentvolumeclaims", "serviceaccounts", "roles", "rolebindings", "networkpolicies"]
GROUPS = {"pods": "", "services": "", "configmaps": "", "secrets": "", "persistentvolumeclaims": "",
          "serviceaccounts": "", "ingresses": "networking.k8s.io", "networkpolicies": "networking.k8s.io",
          "jobs": "batch", "cronjobs": "batch", "statefulsets": "apps", "daemonsets": "apps",
          "roles": "rbac.authorization.k8s.io", "rolebindings": "rbac.authorization.k8s.io"}
MATCHING = [
    ("replicas-limit", "object.spec.replicas <= 50", "at most 50 replicas"),
    ("team-label", "has(object.metadata.labels) && 'team' in object.metadata.labels", "a team label is required"),
    ("no-latest", "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))", "no :latest images"),
    ("limits-set", "object.spec.template.spec.containers.all(c, has(c.resources.limits))", "limits are required"),
    ("annotation-size", "!has(object.metadata.annotations) || object.metadata.annotations.all(k, "
                        "size(object.metadata.annotations[k]) < 65536)", "annotations under 64 KiB"),
]


def policy(name, group, resource, expression, message, operations):
    return [
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
         "metadata": {"name": name},
         "spec": {"failurePolicy": "Fail",
                  "matchConstraints": {"resourceRules": [{"apiGroups": [group], "apiVersions": ["v1"],
                                                          "operations": operations, "resources": [resource]}]},
                  "validations": [{"expression": expression, "message": message}]}},
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
         "metadata": {"name": name},
         "spec": {"policyName": name, "validationActions": ["Deny"]}},
    ]


def many_policies():
    docs = []
    for name, expression, message in MATCHING:
        docs += policy(name, "apps", "deployments", expression, message, ["CREATE", "UPDATE"])
    for i in range(195):
        resource = RESOURCES[i % len(RESOURCES)]
        docs += policy(f"other-{i:03d}", GROUPS[resource], resource,
                       f"object.metadata.name.size() < {64 + i}", f"short names ({i})", ["CREATE", "UPDATE"])
    return {"policies": docs}


def deployment(generation, padding):
    containers = [{"name": f"c{i}", "image": f"registry.example.com/team/app-{i}:1.{i}.0",
                   "resources": {"limits": {"cpu": "500m", "memory": "256Mi"},
                                 "requests": {"cpu": "100m", "memory": "128Mi"}},
                   "env": [{"name": f"VAR_{i}_{j}", "value": f"value-{i}-{j}"} for j in range(20)]}
                  for i in range(8)]
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "checkout", "namespace": "shop", "generation": generation,
                         "labels": {"app": "checkout", "team": "payments"},
                         "annotations": {f"example.com/note-{k}": "x" * padding for k in range(8)}},
            "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "checkout"}},
                     "template": {"metadata": {"labels": {"app": "checkout"}},
                                  "spec": {"containers": containers}}}}


def review():
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {"uid": "3b1f6c0e-7a52-4b8e-9d3f-2c4a5b6d7e8f",
                        "kind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                        "resource": {"group": "apps", "version": "v1", "resource": "deployments"},
                        "requestKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
                        "requestResource": {"group": "apps", "version": "v1", "resource": "deployments"},
                        "name": "checkout", "namespace": "shop", "operation": "UPDATE",
                        "userInfo": {"username": "system:serviceaccount:argocd:argocd-application-controller",
                                     "groups": ["system:serviceaccounts", "system:authenticated"]},
                        "object": deployment(8, 11500), "oldObject": deployment(7, 11500),
                        "dryRun": False,
                        "options": {"apiVersion": "meta.k8s.io/v1", "kind": "UpdateOptions"}}}


with open(os.path.join(HERE, "many-policies.json"), "w") as f:
    json.dump(many_policies(), f, indent=1)
    f.write("\n")
with open(os.path.join(HERE, "deployment-update-100k.json"), "w") as f:
    json.dump(review(), f, separators=(",", ":"))
    f.write("\n")
