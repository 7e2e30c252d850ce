//! YAML (and JSON, which is YAML) documents as [`serde_json::Value`]s, with the source position of every field.
//!
//! Palisade's tools read bundles, reviews, contexts and case files written in YAML, and point back into them when
//! something is wrong (`palisade check` prints `FILE:LINE:COL: error: …`). This crate parses with `saphyr-parser` (the
//! maintained YAML 1.2 parser of the saphyr project) and resolves scalars exactly as serde_yaml 0.9 did before it,
//! so every file reads as it always has:
//!
//! - the YAML 1.2 core schema: `true`/`True`/`TRUE` and `false`/… are booleans, `yes`, `on`, `y` are strings;
//!   `null`/`Null`/`NULL`/`~` and the empty plain scalar are null;
//! - integers in decimal, `0x`, `0o` and `0b` (with a sign), while leading zeros (`0123`) make a string; floats as
//!   Rust reads them plus `.inf`/`.nan` (which JSON has no number for: null);
//! - only plain scalars are resolved; quoted and block scalars are strings; the core tags `!!str`, `!!int`,
//!   `!!float`, `!!bool`, `!!null` force a type; other tags are refused (a tagged root is read by [`from_str_tagged`]);
//! - mapping keys are the text of a scalar key; anchors and aliases are expanded (with a bound on the expansion);
//!   nesting is bounded at 128 levels, as serde_yaml bounded it.
//!
//! Two things are stricter than serde_yaml: a key written twice in one mapping is an error (serde_yaml kept the last
//! silently, so a second `spec:` replaced the first), and a mapping or sequence used as a key is an error.

use std::collections::HashMap;
use std::fmt;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Span, Tag};
use serde_json::{Map, Number, Value};

mod emit;

pub use emit::to_string;

/// Nesting deeper than this is refused (serde_yaml's recursion limit).
const MAX_DEPTH: usize = 128;

/// A YAML document that cannot be read, with where (1-based line and column; 0 when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl Error {
    fn at(marker: Marker, message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            line: marker.line(),
            column: marker.col() + 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(
                f,
                "{} at line {} column {}",
                self.message, self.line, self.column
            )
        }
    }
}

impl std::error::Error for Error {}

/// How a node is written in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// A `|` block scalar.
    Literal,
    /// A `>` block scalar.
    Folded,
    Mapping,
    Sequence,
}

/// Where a node is in the source. Lines and columns count from 1, columns in characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The node's key in its mapping, when it is a mapping's value; else the node itself. This is where a problem
    /// "at this field" points.
    pub line: usize,
    pub column: usize,
    /// Where the value starts: a quoted scalar's opening quote, a block scalar's first character of content.
    pub value_line: usize,
    pub value_column: usize,
    /// The last line of the value.
    pub end_line: usize,
    pub style: Style,
    /// For a block scalar: the empty lines its content starts with (they come before `value_line`).
    pub leading_empty_lines: usize,
}

impl Location {
    /// The source position of a character inside this scalar's value, given by its 1-based `line` and `column`
    /// inside the string (as cel-go counts positions in an expression). Exact for a single-line plain or quoted
    /// scalar without escapes and for a `|` block; for other multi-line scalars (folded lines), the start of the
    /// value.
    pub fn inside(&self, line: usize, column: usize) -> (usize, usize) {
        let line = line.max(1);
        let column = column.max(1);
        let single_line = self.end_line == self.value_line && line == 1;
        match self.style {
            Style::Literal if line > self.leading_empty_lines => (
                self.value_line + line - 1 - self.leading_empty_lines,
                self.value_column + column - 1,
            ),
            Style::Plain if single_line => (self.value_line, self.value_column + column - 1),
            Style::SingleQuoted | Style::DoubleQuoted if single_line => {
                (self.value_line, self.value_column + column)
            }
            _ => (self.value_line, self.value_column),
        }
    }
}

/// One document of a stream, with the location of every node by its field path from the document's root (`""` for
/// the root, `spec.validations[0].expression`, `[2].metadata` inside a sequence).
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub value: Value,
    pub locations: HashMap<String, Location>,
}

impl Document {
    /// The location of the node at `path`, or, when it is absent (a missing field), of its nearest ancestor present.
    pub fn locate(&self, path: &str) -> Option<&Location> {
        let mut path = path;
        loop {
            if let Some(location) = self.locations.get(path) {
                return Some(location);
            }
            if path.is_empty() {
                return None;
            }
            path = parent(path);
        }
    }
}

/// The path of the parent of `path` (`a.b[0]` → `a.b` → `a` → ``).
pub fn parent(path: &str) -> &str {
    let cut = if path.ends_with(']') {
        path.rfind('[')
    } else {
        path.rfind(['.', '['])
    };
    match cut {
        Some(i) => path.get(..i).unwrap_or(""),
        None => "",
    }
}

/// The path of a mapping field inside `path`.
pub fn child_key(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// The path of a sequence item inside `path`.
pub fn child_index(path: &str, index: usize) -> String {
    format!("{path}[{index}]")
}

/// Every document of a YAML stream (a JSON text is one document), with locations. Empty documents are kept as
/// `null` values.
pub fn parse_documents(text: &str) -> Result<Vec<Document>, Error> {
    let mut reader = Reader::new(text, false);
    let mut out = Vec::new();
    while let Some(doc) = reader.next_document()? {
        out.push(doc);
    }
    Ok(out)
}

/// The documents of a file that may be JSON (one value) or YAML (one or more documents), with locations; empty
/// documents are skipped. A JSON text is read as serde_json's `Value` reads it, so its numbers are exactly what JSON
/// has (YAML would read `1.0` as a float, serde_json as the number JSON wrote), with its doubles exact as the modules
/// and kube-apiserver read them (`palisade_json`; serde_json's default reading may be one unit in the last place off),
/// and its locations by the YAML reader when it can (JSON is YAML). What Palisade's tools read every bundle, review
/// and context file with.
pub fn parse_json_or_yaml(text: &str) -> Result<Vec<Document>, Error> {
    let trimmed = text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(doc) = palisade_json::Doc::parse_with_depth(text, palisade_json::SERDE_JSON_DEPTH)
    {
        let value = doc.to_value();
        let locations = parse_documents(text)
            .ok()
            .and_then(|docs| docs.into_iter().next())
            .map(|doc| doc.locations)
            .unwrap_or_default();
        return Ok(vec![Document { value, locations }]);
    }
    Ok(parse_documents(text)?
        .into_iter()
        .filter(|doc| !doc.value.is_null())
        .collect())
}

/// The one document of a YAML text (`null` when it is empty); more than one is an error.
pub fn from_str(text: &str) -> Result<Value, Error> {
    from_str_tagged(text, false).map(|(_, value)| value)
}

/// The one document of a YAML text and the tag of its root, when it has one (`!KubernetesGetResource {...}`).
pub fn from_str_tagged(text: &str, root_tag: bool) -> Result<(Option<String>, Value), Error> {
    let mut reader = Reader::new(text, root_tag);
    let first = reader.next_document()?;
    if let Some(_second) = reader.next_document()? {
        return Err(Error {
            message: "a single document was expected, the stream holds more than one".into(),
            line: 0,
            column: 0,
        });
    }
    Ok(match first {
        Some(doc) => (reader.root_tag, doc.value),
        None => (None, Value::Null),
    })
}

/// Reads a YAML text into `T` through JSON values (`serde_json::from_value`).
pub fn from_str_as<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, Error> {
    serde_json::from_value(from_str(text)?).map_err(|e| Error {
        message: e.to_string(),
        line: 0,
        column: 0,
    })
}

/// A node being built: a mapping (with the key waiting for its value) or a sequence.
enum Frame {
    Sequence {
        items: Vec<Value>,
        anchor: usize,
        path: String,
    },
    Mapping {
        map: Map<String, Value>,
        anchor: usize,
        path: String,
        key: Option<(String, Marker)>,
    },
}

struct Reader<'a> {
    parser: Parser<'a, saphyr_parser::StrInput<'a>>,
    anchors: HashMap<usize, Value>,
    /// Nodes made so far, aliases counting their whole expansion; bounded by the events read.
    nodes: usize,
    events: usize,
    allow_root_tag: bool,
    root_tag: Option<String>,
}

impl<'a> Reader<'a> {
    fn new(text: &'a str, allow_root_tag: bool) -> Self {
        Self {
            parser: Parser::new_from_str(text),
            anchors: HashMap::new(),
            nodes: 0,
            events: 0,
            allow_root_tag,
            root_tag: None,
        }
    }

    fn next_event(&mut self) -> Result<Option<(Event<'a>, Span)>, Error> {
        match self.parser.next_event() {
            None => Ok(None),
            Some(Ok(e)) => {
                self.events += 1;
                Ok(Some(e))
            }
            Some(Err(e)) => Err(Error::at(*e.marker(), e.info().to_owned())),
        }
    }

    /// The next document of the stream, `None` at its end.
    fn next_document(&mut self) -> Result<Option<Document>, Error> {
        loop {
            match self.next_event()? {
                None | Some((Event::StreamEnd, _)) => return Ok(None),
                Some((Event::DocumentStart(_), _)) => break,
                Some(_) => {}
            }
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut locations = HashMap::new();
        let mut root: Option<Value> = None;
        loop {
            let Some((event, span)) = self.next_event()? else {
                return Err(Error::at(
                    Marker::new(0, 0, 0),
                    "unexpected end of the stream",
                ));
            };
            let node = match event {
                Event::DocumentEnd => break,
                Event::StreamEnd => break,
                Event::Nothing | Event::StreamStart | Event::DocumentStart(_) => continue,
                Event::Alias(id) => {
                    let Some(value) = self.anchors.get(&id).cloned() else {
                        return Err(Error::at(span.start, "unknown anchor"));
                    };
                    let (size, depth) = measure(&value);
                    self.nodes += size;
                    if self.nodes > self.events.saturating_mul(100).saturating_add(10_000) {
                        return Err(Error::at(
                            span.start,
                            "repetition limit exceeded (aliases expand too much)",
                        ));
                    }
                    if stack.len() + depth > MAX_DEPTH {
                        return Err(Error::at(span.start, "recursion limit exceeded"));
                    }
                    if self.is_key(&stack) {
                        return Err(Error::at(span.start, "an alias cannot be a mapping key"));
                    }
                    let path = self.place(&stack, &span, Style::Plain, 0, &mut locations);
                    let _ = path;
                    Some(value)
                }
                Event::Scalar(text, style, anchor, tag) => {
                    self.nodes += 1;
                    if let Some(Frame::Mapping { key, .. }) = stack.last_mut()
                        && key.is_none()
                    {
                        if tag.as_ref().is_some_and(|t| !t.is_yaml_core_schema()) {
                            return Err(Error::at(
                                span.start,
                                format!("unsupported tag `{}` on a key", tag_name(tag.as_deref())),
                            ));
                        }
                        *key = Some((text.into_owned(), span.start));
                        continue;
                    }
                    let is_root = stack.is_empty();
                    let tag = self.core_tag(tag.as_deref(), is_root, &span)?;
                    let value = resolve(&text, style, tag.as_deref())
                        .map_err(|m| Error::at(span.start, m))?;
                    let style = match style {
                        ScalarStyle::Plain => Style::Plain,
                        ScalarStyle::SingleQuoted => Style::SingleQuoted,
                        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                        ScalarStyle::Literal => Style::Literal,
                        ScalarStyle::Folded => Style::Folded,
                    };
                    let leading = text.chars().take_while(|c| *c == '\n').count();
                    self.place(&stack, &span, style, leading, &mut locations);
                    if anchor > 0 {
                        self.anchors.insert(anchor, value.clone());
                    }
                    Some(value)
                }
                Event::SequenceStart(anchor, ref tag) | Event::MappingStart(anchor, ref tag) => {
                    self.nodes += 1;
                    if self.is_key(&stack) {
                        return Err(Error::at(
                            span.start,
                            "a mapping or sequence cannot be a mapping key",
                        ));
                    }
                    let is_root = stack.is_empty();
                    self.core_tag(tag.as_deref(), is_root, &span)?;
                    if stack.len() >= MAX_DEPTH {
                        return Err(Error::at(span.start, "recursion limit exceeded"));
                    }
                    let mapping = matches!(event, Event::MappingStart(..));
                    let path = self.place(
                        &stack,
                        &span,
                        if mapping {
                            Style::Mapping
                        } else {
                            Style::Sequence
                        },
                        0,
                        &mut locations,
                    );
                    stack.push(if mapping {
                        Frame::Mapping {
                            map: Map::new(),
                            anchor,
                            path,
                            key: None,
                        }
                    } else {
                        Frame::Sequence {
                            items: Vec::new(),
                            anchor,
                            path,
                        }
                    });
                    None
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let (value, anchor, path) = match stack.pop() {
                        Some(Frame::Sequence {
                            items,
                            anchor,
                            path,
                        }) => (Value::Array(items), anchor, path),
                        Some(Frame::Mapping {
                            map, anchor, path, ..
                        }) => (Value::Object(map), anchor, path),
                        None => return Err(Error::at(span.start, "unbalanced collection end")),
                    };
                    if let Some(location) = locations.get_mut(&path) {
                        location.end_line = span.end.line().max(location.value_line);
                    }
                    if anchor > 0 {
                        self.anchors.insert(anchor, value.clone());
                    }
                    Some(value)
                }
            };
            let Some(value) = node else { continue };
            match stack.last_mut() {
                None => root = Some(value),
                Some(Frame::Sequence { items, .. }) => items.push(value),
                Some(Frame::Mapping { map, key, .. }) => {
                    if let Some((k, at)) = key.take() {
                        if map.contains_key(&k) {
                            return Err(Error::at(at, format!("duplicate key `{k}`")));
                        }
                        map.insert(k, value);
                    }
                }
            }
        }
        Ok(Some(Document {
            value: root.unwrap_or(Value::Null),
            locations,
        }))
    }

    /// Whether the next node is a mapping's key.
    fn is_key(&self, stack: &[Frame]) -> bool {
        matches!(stack.last(), Some(Frame::Mapping { key: None, .. }))
    }

    /// The core-schema tag of a node (`str`, `int`…), refusing other tags except on the root when allowed.
    fn core_tag(
        &mut self,
        tag: Option<&Tag>,
        is_root: bool,
        span: &Span,
    ) -> Result<Option<String>, Error> {
        let Some(tag) = tag else { return Ok(None) };
        if tag.is_yaml_core_schema() {
            return Ok(Some(tag.suffix.clone()));
        }
        if is_root && self.allow_root_tag {
            self.root_tag = Some(tag_name(Some(tag)));
            return Ok(None);
        }
        Err(Error::at(
            span.start,
            format!("unsupported tag `{}`", tag_name(Some(tag))),
        ))
    }

    /// Record the location of a new node under the top of the stack; returns its path.
    fn place(
        &self,
        stack: &[Frame],
        span: &Span,
        style: Style,
        leading_empty_lines: usize,
        locations: &mut HashMap<String, Location>,
    ) -> String {
        let (path, key) = match stack.last() {
            None => (String::new(), None),
            Some(Frame::Sequence { items, path, .. }) => (child_index(path, items.len()), None),
            Some(Frame::Mapping { path, key, .. }) => match key {
                Some((k, at)) => (child_key(path, k), Some(*at)),
                None => (path.clone(), None),
            },
        };
        let at = key.unwrap_or(span.start);
        locations.insert(
            path.clone(),
            Location {
                line: at.line(),
                column: at.col() + 1,
                value_line: span.start.line(),
                value_column: span.start.col() + 1,
                end_line: span.end.line().max(span.start.line()),
                style,
                leading_empty_lines,
            },
        );
        path
    }
}

fn tag_name(tag: Option<&Tag>) -> String {
    tag.map(ToString::to_string).unwrap_or_default()
}

/// The number of nodes of a value and its depth.
fn measure(value: &Value) -> (usize, usize) {
    match value {
        Value::Array(items) => items.iter().fold((1, 1), |(n, d), v| {
            let (vn, vd) = measure(v);
            (n + vn, d.max(vd + 1))
        }),
        Value::Object(map) => map.values().fold((1, 1), |(n, d), v| {
            let (vn, vd) = measure(v);
            (n + vn, d.max(vd + 1))
        }),
        _ => (1, 1),
    }
}

/// A scalar's value: plain scalars are resolved by the YAML 1.2 core schema as serde_yaml 0.9 resolved them, other
/// styles are strings, a core tag forces its type.
fn resolve(text: &str, style: ScalarStyle, tag: Option<&str>) -> Result<Value, String> {
    match tag {
        Some("bool") => parse_bool(text)
            .map(Value::Bool)
            .ok_or_else(|| format!("invalid value `{text}`, expected a boolean")),
        Some("int") => {
            parse_int(text).ok_or_else(|| format!("invalid value `{text}`, expected an integer"))
        }
        Some("float") => parse_float(text)
            .map(float_value)
            .ok_or_else(|| format!("invalid value `{text}`, expected a float")),
        Some("null") => parse_null(text)
            .then_some(Value::Null)
            .ok_or_else(|| format!("invalid value `{text}`, expected null")),
        Some("str") => Ok(Value::String(text.to_owned())),
        Some(_) if style != ScalarStyle::Plain => Ok(Value::String(text.to_owned())),
        _ if style != ScalarStyle::Plain => Ok(Value::String(text.to_owned())),
        _ => Ok(plain(text)),
    }
}

fn plain(text: &str) -> Value {
    if text.is_empty() || parse_null(text) {
        return Value::Null;
    }
    if let Some(b) = parse_bool(text) {
        return Value::Bool(b);
    }
    if let Some(n) = parse_int(text) {
        return n;
    }
    if !digits_but_not_number(text)
        && let Some(f) = parse_float(text)
    {
        return float_value(f);
    }
    Value::String(text.to_owned())
}

fn parse_null(text: &str) -> bool {
    matches!(text, "null" | "Null" | "NULL" | "~")
}

fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

/// Leading zeros followed by digits make a string in YAML 1.2.
fn digits_but_not_number(text: &str) -> bool {
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    digits.len() > 1 && digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit())
}

/// An integer as serde_yaml 0.9 read one: decimal, `0x`, `0o`, `0b`, an optional sign. Beyond 64 bits, a float.
fn parse_int(text: &str) -> Option<Value> {
    let (negative, unsigned) = match text.as_bytes().first() {
        Some(b'-') => (true, text.get(1..)?),
        Some(b'+') => (false, text.get(1..)?),
        _ => (false, text),
    };
    if unsigned.starts_with(['+', '-']) {
        return None;
    }
    let (radix, digits) = if let Some(rest) = unsigned.strip_prefix("0x") {
        (16, rest)
    } else if let Some(rest) = unsigned.strip_prefix("0o") {
        (8, rest)
    } else if let Some(rest) = unsigned.strip_prefix("0b") {
        (2, rest)
    } else {
        if digits_but_not_number(text) {
            return None;
        }
        (10, unsigned)
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if negative {
        let n = i128::try_from(magnitude).ok().map(|m| -m)?;
        Some(match i64::try_from(n) {
            Ok(n) => Value::Number(Number::from(n)),
            Err(_) => float_value(n as f64),
        })
    } else {
        Some(match u64::try_from(magnitude) {
            Ok(n) => Value::Number(Number::from(n)),
            Err(_) => float_value(magnitude as f64),
        })
    }
}

fn parse_float(text: &str) -> Option<f64> {
    let unsigned = match text.strip_prefix('+') {
        Some(rest) if rest.starts_with(['+', '-']) => return None,
        Some(rest) => rest,
        None => text,
    };
    match unsigned {
        ".inf" | ".Inf" | ".INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    unsigned.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// JSON has no infinities or NaN: those are null, as serde_json makes them.
fn float_value(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests;
