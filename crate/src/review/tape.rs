//! The review's own fields read from a tape ([`palisade_json::Doc::parse_shared`] of the whole input): the fast way in.
//! `object` and `oldObject` are nodes of the same tape ([`Doc::subtree`]): nothing is read twice or copied.
//!
//! A reader here answers `None` whenever serde would not read the field exactly so (a wrong type, a field given twice,
//! a required field missing, a struct written as a list, anything unusual): the caller then reads the whole input with
//! serde_json, whose refusals (words, line, column) are the ones users see. So these readers only ever accept what the
//! serde derives accept, and read it to the same value; `api`'s tests and the `review_reader` fuzz target compare the
//! two on every case file and on generated inputs.

use std::collections::BTreeMap;

use palisade_json::{Doc, Item, Ref, Text};
use serde_json::Value;

use super::{AdmissionRequest, GroupVersionKind, GroupVersionResource, UserInfo};

/// A `Vec`, each element read with `read`.
pub(crate) fn list<'a, T>(r: Ref<'a>, read: impl FnMut(Ref<'a>) -> Option<T>) -> Option<Vec<T>> {
    if !matches!(r.item(), Item::Array(_)) {
        return None;
    }
    r.elements().map(read).collect()
}

/// A field serde reads with `read` when present, its default when absent (`#[serde(default)]`).
pub(crate) fn defaulted<T: Default>(
    r: Option<Ref<'_>>,
    read: impl FnOnce(Ref<'_>) -> Option<T>,
) -> Option<T> {
    match r {
        None => Some(T::default()),
        Some(r) => read(r),
    }
}

/// An `Option` field: absent and `null` are `None`.
pub(crate) fn optional<'a, T>(
    r: Option<Ref<'a>>,
    read: impl FnOnce(Ref<'a>) -> Option<T>,
) -> Option<Option<T>> {
    match r {
        Some(r) if !r.is_null() => read(r).map(Some),
        _ => Some(None),
    }
}

/// A `String` (`null` is not one).
pub(crate) fn string(r: Ref<'_>) -> Option<String> {
    r.as_str().map(str::to_owned)
}

/// A string kept in the input's tape ([`Text`]: nothing copied or allocated; `null` is not one).
pub(crate) fn text(r: Ref<'_>) -> Option<Text> {
    Text::of(r)
}

/// A `bool`.
pub(crate) fn boolean(r: Ref<'_>) -> Option<bool> {
    match r.item() {
        Item::Bool(b) => Some(b),
        _ => None,
    }
}

/// A `Vec<String>`.
fn strings(r: Ref<'_>) -> Option<Vec<String>> {
    list(r, string)
}

/// Three string fields, each defaulted: group/version/kind or group/version/resource.
fn three_strings(r: Ref<'_>, last: &str) -> Option<[Text; 3]> {
    let mut f = [None; 3];
    r.pick(&[&["group"], &["version"], &[last]], false, &mut f)?;
    let [a, b, c] = f;
    Some([
        defaulted(a, text)?,
        defaulted(b, text)?,
        defaulted(c, text)?,
    ])
}

fn group_version_kind(r: Ref<'_>) -> Option<GroupVersionKind> {
    let [group, version, kind] = three_strings(r, "kind")?;
    Some(GroupVersionKind {
        group,
        version,
        kind,
    })
}

fn group_version_resource(r: Ref<'_>) -> Option<GroupVersionResource> {
    let [group, version, resource] = three_strings(r, "resource")?;
    Some(GroupVersionResource {
        group,
        version,
        resource,
    })
}

#[allow(
    clippy::field_reassign_with_default,
    reason = "filled field by field: one way out on a refusal, not one per field (smaller code)"
)]
fn user_info(r: Ref<'_>) -> Option<UserInfo> {
    let mut f = [None; 4];
    r.pick(
        &[&["username"], &["uid"], &["groups"], &["extra"]],
        false,
        &mut f,
    )?;
    let [username, uid, groups, extra] = f;
    let mut out = UserInfo::default();
    out.username = defaulted(username, text)?;
    out.uid = defaulted(uid, text)?;
    out.groups = defaulted(groups, strings)?;
    out.extra = defaulted(extra, |r| {
        if !matches!(r.item(), Item::Object(_)) {
            return None;
        }
        // a map: a key given twice keeps its last value, as serde's map reading does
        let mut extra = BTreeMap::new();
        for (k, v) in r.members() {
            extra.insert(k.to_owned(), strings(v)?);
        }
        Some(extra)
    })?;
    Some(out)
}

/// An `AdmissionRequest` (camelCase names, and the snake_case aliases policy-sdk-rust writes), built where it stays:
/// on the heap (the request is large; every copy of it on the way up is stack, at the deepest point of a request).
#[allow(
    clippy::field_reassign_with_default,
    reason = "filled field by field: one way out on a refusal, not one per field (smaller code)"
)]
pub(crate) fn admission_request(r: Ref<'_>) -> Option<Box<AdmissionRequest>> {
    const NAMES: &[&[&str]] = &[
        &["uid"],
        &["kind"],
        &["resource"],
        &["subResource", "sub_resource"],
        &["requestKind", "request_kind"],
        &["requestResource", "request_resource"],
        &["requestSubResource", "request_sub_resource"],
        &["name"],
        &["namespace"],
        &["operation"],
        &["userInfo", "user_info"],
        &["object"],
        &["oldObject", "old_object"],
        &["dryRun", "dry_run"],
        &["options"],
    ];
    let mut f = [None; 15];
    r.pick(NAMES, false, &mut f)?;
    let [
        uid,
        kind,
        resource,
        sub_resource,
        request_kind,
        request_resource,
        request_sub_resource,
        name,
        namespace,
        operation,
        user_info_field,
        object,
        old_object,
        dry_run,
        options,
    ] = f;
    let doc = |r: Ref<'_>| Some(Doc::subtree(r));
    // filled field by field (one way out on a refusal, not one per field)
    let mut out = Box::<AdmissionRequest>::default();
    out.uid = text(uid?)?;
    out.kind = group_version_kind(kind?)?;
    out.resource = group_version_resource(resource?)?;
    out.sub_resource = defaulted(sub_resource, text)?;
    out.request_kind = optional(request_kind, group_version_kind)?;
    out.request_resource = optional(request_resource, group_version_resource)?;
    out.request_sub_resource = optional(request_sub_resource, text)?;
    out.name = defaulted(name, text)?;
    out.namespace = defaulted(namespace, text)?;
    out.operation = text(operation?)?;
    out.user_info = user_info(user_info_field?)?;
    out.object = optional(object, doc)?;
    out.old_object = optional(old_object, doc)?;
    out.dry_run = optional(dry_run, boolean)?;
    out.options = optional(options, doc)?;
    Some(out)
}

/// Any JSON value, as serde_json's `Value` reads it.
pub(crate) fn value(r: Ref<'_>) -> Option<Value> {
    Some(r.to_value())
}
