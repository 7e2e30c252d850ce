//! An index of many MatchResources, so that a request is matched against the few entries that
//! can match it instead of every entry.
//!
//! Each entry is filed under the resource names its `resourceRules` name (`deployments` for
//! `deployments`, `deployments/scale`, `deployments/*`), or under "any resource" when a rule
//! names `*`, `*/*`, `*/x` or when it has no resource rules at all (a binding matching all its
//! policy matches). Groups and versions are not part of the key: under `matchPolicy: Equivalent`
//! a request may match through another group, and every family of the built-in equivalence
//! table shares one resource name. Entries also carry the union of their operations.
//! `candidates` returns, in insertion order, the entries filed under the request's resource
//! name or under "any resource" whose operations allow the request's: a superset of the entries
//! whose `matches` can succeed.

use crate::attributes::Attributes;
use crate::match_resources::MatchResources;
use crate::rules::{OP_ALL, op_bit};
use std::collections::HashMap;

/// Many `(MatchResources, T)` entries, indexed by what they can match.
#[derive(Debug, Clone)]
pub struct Index<T> {
    entries: Vec<(MatchResources, T)>,
    op_masks: Vec<u8>,
    by_resource: HashMap<String, Vec<usize>>,
    any_resource: Vec<usize>,
}

impl<T> Default for Index<T> {
    fn default() -> Self {
        Index {
            entries: Vec::new(),
            op_masks: Vec::new(),
            by_resource: HashMap::new(),
            any_resource: Vec::new(),
        }
    }
}

impl<T> Index<T> {
    pub fn new(entries: impl IntoIterator<Item = (MatchResources, T)>) -> Self {
        let mut index = Index::default();
        for (mr, value) in entries {
            index.push(mr, value);
        }
        index
    }

    /// Adds an entry after every existing one.
    pub fn push(&mut self, mr: MatchResources, value: T) {
        let id = self.entries.len();
        let mut mask = 0u8;
        let mut any = mr.resource_rules.is_empty();
        let mut names: Vec<&str> = Vec::new();
        if any {
            mask = OP_ALL;
        }
        for named in &mr.resource_rules {
            mask |= named.rule.op_mask;
            for p in &named.rule.resources {
                if p.resource == "*" {
                    any = true;
                } else if !names.contains(&p.resource.as_str()) {
                    names.push(p.resource.as_str());
                }
            }
        }
        if any {
            self.any_resource.push(id);
        } else {
            for name in names {
                self.by_resource
                    .entry(name.to_owned())
                    .or_default()
                    .push(id);
            }
        }
        self.op_masks.push(mask);
        self.entries.push((mr, value));
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, in insertion order.
    pub fn entries(&self) -> impl Iterator<Item = (&MatchResources, &T)> {
        self.entries.iter().map(|(m, t)| (m, t))
    }

    /// The values of the entries that may match `a`, in insertion order (a superset of those
    /// whose `MatchResources::matches` succeeds; run `matches` on each).
    pub fn candidates<'s>(&'s self, a: &Attributes<'_>) -> impl Iterator<Item = &'s T> + 's {
        self.candidate_entries(a).map(|(_, t)| t)
    }

    /// [`Index::candidates`] with each entry's MatchResources.
    pub fn candidate_entries<'s>(
        &'s self,
        a: &Attributes<'_>,
    ) -> impl Iterator<Item = (&'s MatchResources, &'s T)> + 's {
        let named: &'s [usize] = self
            .by_resource
            .get(a.effective_resource().resource)
            .map_or(&[], Vec::as_slice);
        let op = op_bit(a.operation);
        Merge {
            a: named,
            b: &self.any_resource,
        }
        .filter(move |id| self.op_masks.get(*id).is_some_and(|m| m & op != 0))
        .filter_map(move |id| self.entries.get(id).map(|(m, t)| (m, t)))
    }
}

/// Merges two ascending id lists.
struct Merge<'s> {
    a: &'s [usize],
    b: &'s [usize],
}

impl Iterator for Merge<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match (self.a.split_first(), self.b.split_first()) {
            (Some((x, ra)), Some((y, rb))) => {
                if x <= y {
                    self.a = ra;
                    if x == y {
                        self.b = rb;
                    }
                    Some(*x)
                } else {
                    self.b = rb;
                    Some(*y)
                }
            }
            (Some((x, ra)), None) => {
                self.a = ra;
                Some(*x)
            }
            (None, Some((y, rb))) => {
                self.b = rb;
                Some(*y)
            }
            (None, None) => None,
        }
    }
}
