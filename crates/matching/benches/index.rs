//! 1,000 MatchResources of which 5 match a request, through the Index, against the same 5 alone
//! (and a naive scan of the 1,000 for reference).
//!
//! The 995 others: 975 on other resource names across five groups, 20 on `deployments` for
//! other operations (kept out by the index's operation mask).

#![allow(
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use criterion::{Criterion, black_box, criterion_group, criterion_main};
use palisade_cel_kubernetes::cluster::NoCluster;
use palisade_matching::{Attributes, Given, Gvk, Gvr, Index, MatchResources};
use serde_json::json;

fn policy(group: &str, resource: &str, op: &str) -> MatchResources {
    let v = json!({"resourceRules": [{"operations": [op], "apiGroups": [group], "apiVersions": ["v1"], "resources": [resource, format!("{resource}/status")]}],
                   "objectSelector": {"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["system"]}]}});
    match MatchResources::parse(&v, "m") {
        Ok(m) => m,
        Err(e) => panic!("{e:?}"),
    }
}

fn bench(c: &mut Criterion) {
    let groups = ["", "apps", "batch", "example.com", "networking.k8s.io"];
    let mut all = Vec::new();
    let mut matching = Vec::new();
    for i in 0..1000usize {
        let mr = if i % 200 == 7 {
            let m = policy("apps", "deployments", "CREATE");
            matching.push((m.clone(), i));
            m
        } else if i % 50 == 3 {
            policy(
                "apps",
                "deployments",
                if i % 100 == 3 { "DELETE" } else { "UPDATE" },
            )
        } else {
            let g = groups.get(i % groups.len()).copied().unwrap_or("");
            policy(g, &format!("resource{i}s"), "CREATE")
        };
        all.push((mr, i));
    }
    assert_eq!(matching.len(), 5);
    let index = Index::new(all.clone());
    let alone = Index::new(matching.clone());
    let object = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "team-a", "labels": {"app": "web"}}});
    let objects = Given {
        object: Some(&object),
        old_object: None,
    };
    let a = Attributes {
        operation: "CREATE",
        resource: Gvr::new("apps", "v1", "deployments"),
        kind: Gvk::new("apps", "v1", "Deployment"),
        name: "web",
        namespace: "team-a",
        objects: Some(&objects),
        ..Attributes::default()
    };
    let count = |it: &mut dyn Iterator<Item = &MatchResources>| {
        it.filter(|m| matches!(m.matches(&a, &NoCluster), Ok(Some(_))))
            .count()
    };
    assert_eq!(count(&mut index.candidate_entries(&a).map(|(m, _)| m)), 5);
    assert_eq!(count(&mut all.iter().map(|(m, _)| m)), 5);

    let mut g = c.benchmark_group("match");
    g.bench_function("index_1000_policies_5_match", |b| {
        b.iter(|| count(&mut index.candidate_entries(black_box(&a)).map(|(m, _)| m)))
    });
    g.bench_function("index_5_policies_alone", |b| {
        b.iter(|| count(&mut alone.candidate_entries(black_box(&a)).map(|(m, _)| m)))
    });
    g.bench_function("vec_5_policies_alone", |b| {
        b.iter(|| count(&mut matching.iter().map(|(m, _)| m)))
    });
    g.bench_function("naive_scan_1000_policies", |b| {
        b.iter(|| count(&mut all.iter().map(|(m, _)| m)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
