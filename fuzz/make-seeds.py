#!/usr/bin/env python3
"""Regenerates the seed corpora in fuzz/corpus/<target>/seed-* from the repository's own inputs.

    python3 fuzz/make-seeds.py          (from the repository root; needs PyYAML)

Seeds are small on purpose (a few dozen files per target, each under 64 KiB): libFuzzer grows its own corpus from
them in fuzz/corpus-work/. Minimised findings are committed beside them as regress-* and are never rewritten here.
"""

import base64
import glob
import hashlib
import json
import os
import random
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")
MAX_SEED = 64 * 1024


def rel(*parts):
    return os.path.join(ROOT, *parts)


def write(target, name, data):
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_SEED:
        return
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-")[:80]
    with open(os.path.join(d, "seed-" + safe), "wb") as f:
        f.write(data)


def load_docs(path):
    with open(path) as f:
        text = f.read()
    if text.lstrip().startswith(("{", "[")):
        try:
            return [json.loads(text)]
        except ValueError:
            pass
    return [d for d in yaml.safe_load_all(text) if d is not None]


def is_bundle_document(v):
    return (isinstance(v, dict) and "kind" not in v and "apiVersion" not in v
            and any(k in v for k in ("policies", "params", "certificateRequests")))


def bundle_from_documents(docs):
    if len(docs) == 1 and is_bundle_document(docs[0]):
        return docs[0]
    policies = []
    for d in docs:
        if isinstance(d, list):
            policies.extend(d)
        elif isinstance(d, dict) and d.get("kind") == "List" and isinstance(d.get("items"), list):
            policies.extend(d["items"])
        else:
            policies.append(d)
    return {"policies": policies}


def case_parts(path):
    """(bundle, input) of a case file, as the harness builds them; None for files that are not cases."""
    try:
        case = yaml.safe_load(open(path))
    except yaml.YAMLError:
        return None
    if not isinstance(case, dict) or "review" not in case:
        return None
    here = os.path.dirname(path)
    b = case.get("bundle")
    if isinstance(b, str):
        bundle = bundle_from_documents(load_docs(os.path.join(here, b)))
    elif isinstance(b, (dict, list)):
        bundle = b if is_bundle_document(b) else bundle_from_documents([b])
    elif "policies" in case:
        bundle = {"policies": case["policies"]}
        if "params" in case:
            bundle["params"] = case["params"]
    else:
        bundle = {}
    r = case["review"]
    review = load_docs(os.path.join(here, r))[0] if isinstance(r, str) else r
    c = case.get("context")
    if isinstance(c, str):
        c = load_docs(os.path.join(here, c))[0]
    return bundle, ({"review": review, "context": c} if c is not None else review)


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def expressions(v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            if k in ("expression", "messageExpression", "valueExpression", "rule") and isinstance(x, str):
                out.append(x)
            else:
                expressions(x, out)
    elif isinstance(v, list):
        for x in v:
            expressions(x, out)


def main():
    cases = sorted(glob.glob(rel("tests", "cases", "**", "*.yaml"), recursive=True))
    parts = [(c, p) for c in cases if (p := case_parts(c)) is not None]

    # review_reader: every hostile review, a spread of recorded reviews, the bench review
    hostile = sorted(f for f in glob.glob(rel("tests", "hostile", "*")) if os.path.isfile(f))
    for f in hostile:
        if not os.path.basename(f).startswith("bundle-"):
            write("review_reader", os.path.basename(f), open(f, "rb").read())
    reviews = sorted(glob.glob(rel("tests", "cases", "**", "reviews", "*.json"), recursive=True))
    for f in reviews[::max(1, len(reviews) // 24)]:
        write("review_reader", os.path.relpath(f, rel("tests", "cases")), open(f, "rb").read())
    write("review_reader", "bench-pod-review.json", open(rel("bench", "pod-review.json"), "rb").read())
    write("review_reader", "wrapped-with-context", compact(parts[0][1] if "context" in parts[0][1] else
                                                           {"review": parts[0][1], "context": {}}))

    # bundle_json / bundle_yaml: every shipped policy bundle, the hostile bundles, the foundation bundles, and a
    # spread of the case bundles
    bundles = sorted(glob.glob(rel("policies", "**", "*.yaml"), recursive=True)) + [rel("bench", "pod-baseline.yaml")]
    bundles += sorted(glob.glob(rel("tests", "cases", "foundation", "bundles", "*")))
    for f in bundles:
        name = os.path.relpath(f, ROOT)
        raw = open(f, "rb").read()
        write("bundle_yaml", name, raw)
        try:
            write("bundle_json", name + ".json", compact(bundle_from_documents(load_docs(f))))
        except (yaml.YAMLError, ValueError):
            pass
    for f in hostile:
        if os.path.basename(f).startswith("bundle-"):
            write("bundle_json", os.path.basename(f), open(f, "rb").read())
            write("bundle_yaml", os.path.basename(f), open(f, "rb").read())
    seen = set()
    for c, (bundle, _) in parts:
        text = compact(bundle)
        h = hashlib.sha1(text.encode()).hexdigest()
        if h in seen:
            continue
        seen.add(h)
        if len(seen) % 3 == 0:
            write("bundle_json", os.path.relpath(c, rel("tests", "cases")) + ".json", text)
        if len(seen) % 7 == 0:
            write("bundle_yaml", os.path.relpath(c, rel("tests", "cases")),
                  yaml.safe_dump(bundle, sort_keys=False))

    # csr_decoder: the PEM of every cert-manager review (first 24), their DER, the openssl fixtures
    n = 0
    for c, (_, inp) in parts:
        review = inp.get("review", inp) if isinstance(inp, dict) else None
        try:
            req = review["request"]["object"]["spec"]["request"]
            pem = base64.b64decode(req, validate=False)
        except (KeyError, TypeError, ValueError):
            continue
        n += 1
        if n > 24:
            break
        name = os.path.relpath(c, rel("tests", "cases"))
        write("csr_decoder", name + ".pem", pem)
        body = b"".join(l for l in pem.splitlines() if l and not l.startswith(b"-----"))
        try:
            write("csr_decoder", name + ".der", base64.b64decode(body))
        except ValueError:
            pass
    for f in sorted(glob.glob(rel("crates", "certificates", "tests", "fixtures", "openssl", "*.csr"))):
        write("csr_decoder", "openssl-" + os.path.basename(f), open(f, "rb").read())
    for f in sorted(glob.glob(rel("crates", "certificates", "tests", "fixtures", "hostile", "*.json"))):
        try:
            v = json.load(open(f))
            req = v.get("request", v.get("spec", {}).get("request") if isinstance(v.get("spec"), dict) else None)
            if isinstance(req, str):
                write("csr_decoder", "hostile-" + os.path.basename(f), base64.b64decode(req + "==="[: -len(req) % 4 or 0]))
        except (ValueError, AttributeError):
            pass

    # cel: every distinct expression of the cases and policies (a spread of 60)
    exprs = []
    for c, (bundle, _) in parts:
        expressions(bundle, exprs)
    for f in bundles:
        try:
            for d in load_docs(f):
                expressions(d, exprs)
        except (yaml.YAMLError, ValueError):
            pass
    exprs = sorted(set(exprs))
    for i, e in enumerate(exprs[::max(1, len(exprs) // 60)]):
        write("cel", f"expr-{i:03}", e)

    # api: structured inputs are drawn from raw bytes; a few deterministic random seeds of several lengths
    rng = random.Random(20261202)
    for i, size in enumerate([16, 64, 128, 256, 512, 1024, 2048, 4096]):
        write("api", f"random-{i}-{size}", bytes(rng.randrange(256) for _ in range(size)))

    # differential: bundle 0xFF input for a spread of cases, and the hostile reviews with the empty bundle
    for c, (bundle, inp) in parts[::max(1, len(parts) // 30)]:
        write("differential", os.path.relpath(c, rel("tests", "cases")),
              compact(bundle).encode() + b"\xff" + compact(inp).encode())
    for f in hostile:
        if not os.path.basename(f).startswith("bundle-"):
            write("differential", "hostile-" + os.path.basename(f), b"{}\xff" + open(f, "rb").read())

    # webhook: every case with a `webhook:`, as configuration 0xFF review [0xFF context]
    for c, (_, inp) in parts:
        case = yaml.safe_load(open(c))
        w = case.get("webhook")
        if w is None:
            continue
        documents = load_docs(os.path.join(os.path.dirname(c), w)) if isinstance(w, str) else [w]
        review, context = (inp["review"], inp["context"]) if "context" in inp and "review" in inp else (inp, None)
        data = compact(documents).encode() + b"\xff" + compact(review).encode()
        if context is not None:
            data += b"\xff" + compact(context).encode()
        write("webhook", os.path.relpath(c, rel("tests", "cases")), data)

    # kubewarden: settings 0xFF AdmissionRequest 0xFF host answer, for a spread of cases: the case's bundle as the
    # settings, its review's request, and what `kubernetes/get_resource` would answer for the request's namespace (or
    # `kubernetes/can_i` for the first authorization) from its context; and a payload that is not policy-server's
    for c, (bundle, inp) in parts[::max(1, len(parts) // 30)]:
        review, context = (inp["review"], inp["context"]) if "context" in inp and "review" in inp else (inp, None)
        request = review.get("request") if isinstance(review, dict) else None
        if not isinstance(request, dict):
            continue
        answer = b""
        if isinstance(context, dict):
            namespaces = [n for n in context.get("namespaces") or []
                          if isinstance(n, dict) and (n.get("metadata") or {}).get("name") == request.get("namespace")]
            if namespaces:
                answer = compact(namespaces[0]).encode()
            elif context.get("authorizations"):
                answer = compact({"allowed": bool(context["authorizations"][0].get("allowed"))}).encode()
        write("kubewarden", os.path.relpath(c, rel("tests", "cases")),
              compact(bundle).encode() + b"\xff" + compact(request).encode() + b"\xff" + answer)
    # the edges of recognising the last settings at a payload's end: settings nested past the depth it recognises,
    # a request that spells the settings' key inside a string, and settings that are not an object
    pod = {"uid": "u", "kind": {"group": "", "version": "v1", "kind": "Pod"},
           "resource": {"group": "", "version": "v1", "resource": "pods"}, "operation": "CREATE",
           "namespace": "default", "object": {"metadata": {"name": "p"}}}
    deep = {}
    for _ in range(70):
        deep = {"d": deep}
    write("kubewarden", "settings-nested-70-levels",
          compact({"params": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": deep}]}
                  ).encode() + b"\xff" + compact(pod).encode())
    spelled = dict(pod, object={"metadata": {"name": "p", "annotations": {"a": '","settings":{}}'}}})
    write("kubewarden", "request-spells-the-settings-key", b"{}\xff" + compact(spelled).encode())
    write("kubewarden", "settings-not-an-object", b"[1,2]\xff" + compact(pod).encode())
    write("kubewarden", "namespace-lookup-fails",
          b"{}\xff" + compact({"uid": "u", "operation": "CREATE"}).encode() + b"\xff!namespaces \"x\" not found")


if __name__ == "__main__":
    main()
