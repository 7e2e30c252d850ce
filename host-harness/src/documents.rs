//! Reading the documents the harness is given — bundles, reviews, contexts, webhook
//! configurations — from JSON or YAML files, and turning a bundle into the JSON the module takes.

use std::path::Path;

use anyhow::{Context as _, Result, bail};
use palisade_yaml::{Document, Location};
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
    Ok(palisade_yaml::parse_json_or_yaml(text)?
        .into_iter()
        .map(|doc| doc.value)
        .collect())
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

/// A bundle read from its source, that knows where each field path of the bundle is in the file.
#[derive(Debug)]
pub struct BundleSource {
    pub bundle: Value,
    docs: Vec<Document>,
    /// For `policies[i]` of a stream: its document and its path inside that document (`""`, `[2]`, `items[0]`).
    policies: Vec<(usize, String)>,
    /// The file is one bundle document, whose paths are the bundle's.
    single: bool,
}

impl BundleSource {
    /// Read the documents of a bundle file, as [`bundle_from_documents`] does.
    pub fn parse(text: &str) -> Result<Self, palisade_yaml::Error> {
        let docs = palisade_yaml::parse_json_or_yaml(text)?;
        let bundle = bundle_from_documents(docs.iter().map(|d| d.value.clone()).collect());
        let single =
            matches!(docs.as_slice(), [one] if palisade::bundle::is_bundle_document(&one.value));
        let mut policies = Vec::new();
        if !single {
            for (i, doc) in docs.iter().enumerate() {
                match &doc.value {
                    Value::Array(items) => {
                        policies.extend((0..items.len()).map(|j| (i, format!("[{j}]"))));
                    }
                    Value::Object(map)
                        if map.get("kind").and_then(Value::as_str) == Some("List")
                            && map.get("items").is_some_and(Value::is_array) =>
                    {
                        let n = map
                            .get("items")
                            .and_then(Value::as_array)
                            .map_or(0, Vec::len);
                        policies.extend((0..n).map(|j| (i, format!("items[{j}]"))));
                    }
                    _ => policies.push((i, String::new())),
                }
            }
        }
        Ok(Self {
            bundle,
            docs,
            policies,
            single,
        })
    }

    /// Where the field at a diagnostic's path (from the bundle root) is written; for a missing field, its nearest
    /// ancestor present.
    pub fn locate(&self, path: &str) -> Option<&Location> {
        if self.single {
            return self.docs.first()?.locate(path);
        }
        let rest = path.strip_prefix("policies[")?;
        let (index, rest) = rest.split_once(']')?;
        let (doc, prefix) = self.policies.get(index.parse::<usize>().ok()?)?;
        let inner = match (prefix.is_empty(), rest.strip_prefix('.')) {
            (true, Some(field)) => field.to_owned(),
            _ => format!("{prefix}{rest}"),
        };
        self.docs.get(*doc)?.locate(&inner)
    }
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
    fn bundle_paths_are_located_in_their_document() {
        let text = "apiVersion: v1\nkind: A\n---\nkind: List\nitems:\n- kind: B\n  spec: {x: 1}\n";
        let source = BundleSource::parse(text).unwrap();
        let at = |p: &str| source.locate(p).map(|l| (l.line, l.column));
        assert_eq!(at("policies[0].kind"), Some((2, 1)));
        assert_eq!(at("policies[1]"), Some((6, 3)));
        assert_eq!(at("policies[1].spec.x"), Some((7, 10)));
        assert_eq!(at("policies[1].spec.missing"), Some((7, 3)));
        assert_eq!(at("policies[2]"), None);
        let single = BundleSource::parse("policies:\n- kind: A\nparams: []\n").unwrap();
        assert_eq!(single.locate("params").map(|l| l.line), Some(3));
        assert_eq!(single.locate("policies[0].kind").map(|l| l.line), Some(2));
        let json = BundleSource::parse("[{\"kind\": \"A\"},\n {\"kind\": \"B\"}]").unwrap();
        assert_eq!(
            json.locate("policies[1].kind").map(|l| (l.line, l.column)),
            Some((2, 3))
        );
    }

    #[test]
    fn json_is_read_as_json() {
        let docs = parse_documents(r#"{"a": 1.5, "b": "x"}"#).unwrap();
        assert_eq!(docs, vec![json!({"a": 1.5, "b": "x"})]);
    }
}
