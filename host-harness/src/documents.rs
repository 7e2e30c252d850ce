//! Reading the documents the harness is given — bundles, reviews, contexts, webhook
//! configurations — from JSON or YAML files, and turning a bundle into the JSON the module takes.

use std::path::Path;

use anyhow::{Context as _, Result, anyhow, bail};
use serde::Deserialize as _;
use serde_json::Value;

/// Reads every document of a JSON or YAML file (YAML may hold a `---` stream). Empty
/// documents are skipped.
pub fn read_documents(path: &Path) -> Result<Vec<Value>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    parse_documents(&text).with_context(|| format!("cannot parse `{}`", path.display()))
}

/// Parses JSON (one value) or YAML (one or more documents).
pub fn parse_documents(text: &str) -> Result<Vec<Value>> {
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(v) = serde_json::from_str::<Value>(text)
    {
        return Ok(vec![v]);
    }
    let mut docs = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(text) {
        let value = Value::deserialize(doc).map_err(|e| anyhow!("{e}"))?;
        if !value.is_null() {
            docs.push(value);
        }
    }
    Ok(docs)
}

/// Reads a file holding exactly one document.
pub fn read_document(path: &Path) -> Result<Value> {
    let mut docs = read_documents(path)?;
    match docs.len() {
        1 => Ok(docs.remove(0)),
        0 => bail!("`{}` holds no document", path.display()),
        n => bail!("`{}` holds {n} documents, expected one", path.display()),
    }
}

/// Turns the documents of a bundle file into the bundle JSON handed to `configure`
/// ([`palisade::bundle::from_documents`], shared with the playground).
pub fn bundle_from_documents(docs: Vec<Value>) -> Value {
    palisade::bundle::from_documents(docs)
}

/// Reads a bundle file (JSON or YAML, bundle document or stream of upstream objects).
pub fn read_bundle(path: &Path) -> Result<Value> {
    Ok(bundle_from_documents(read_documents(path)?))
}

/// Takes an inline bundle value: a bundle mapping, a list of upstream objects, or one object.
pub fn inline_bundle(v: &Value) -> Value {
    if palisade::bundle::is_bundle_document(v) {
        v.clone()
    } else {
        bundle_from_documents(vec![v.clone()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_bundle_document_is_kept() {
        let docs = parse_documents("policies: []\nparams: [{kind: ConfigMap}]\n").unwrap();
        assert_eq!(
            bundle_from_documents(docs),
            json!({"policies": [], "params": [{"kind": "ConfigMap"}]})
        );
    }

    #[test]
    fn a_stream_becomes_policies() {
        let docs = parse_documents("kind: A\n---\n---\nkind: B\n").unwrap();
        assert_eq!(
            bundle_from_documents(docs),
            json!({"policies": [{"kind": "A"}, {"kind": "B"}]})
        );
    }

    #[test]
    fn a_list_contributes_items() {
        let docs = parse_documents(r#"{"kind":"List","items":[{"kind":"A"}]}"#).unwrap();
        assert_eq!(
            bundle_from_documents(docs),
            json!({"policies": [{"kind": "A"}]})
        );
    }

    #[test]
    fn json_is_read_as_json() {
        let docs = parse_documents(r#"{"a": 1.5, "b": "x"}"#).unwrap();
        assert_eq!(docs, vec![json!({"a": 1.5, "b": "x"})]);
    }
}
