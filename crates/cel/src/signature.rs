//! Checker declarations written as text: one row per overload, its parameter and result types in cel-go's type
//! syntax (`string`, `list(T)`, `map(string, list(string))`, `optional_type(T)`, `kubernetes.Quantity`).
//!
//! Why text: a declaration built with `CelType` constructors is code, a few hundred bytes of wasm per overload; the
//! same declaration as a row of `&str` is data, a tenth of that. The libraries declare hundreds of overloads, and
//! they are only read when a bundle is configured.
//!
//! A type name is read as cel-go prints it: the primitives (`bool`, `int`, `uint`, `double`, `string`, `bytes`,
//! `dyn`, `null_type`, `google.protobuf.Timestamp`, `google.protobuf.Duration`), `list(E)`, `map(K, V)`,
//! `optional_type(E)` and `type(E)`; a name of one upper-case letter is a type parameter (`T`); any other name is an
//! abstract (opaque) type (`net.IP`).

use cel_core::{CelType, FunctionDecl, OverloadDecl};

/// One overload a line, its fields separated by `;`: the function's name, the overload id, whether it is called as a
/// method (`true`: the first parameter is the receiver), the parameter types separated by commas, the result type and
/// the type parameters (each followed by a comma). Written with [`rows!`] (or [`lib_rows!`], the library's name
/// first).
///
/// Why one text rather than a table of `&str` tuples: a table row is a dozen pointers and lengths (52 bytes of data
/// that compress poorly, 18 KB for the libraries); the same rows as text are read once per configure and compress
/// to a fraction of that.
macro_rules! rows {
    ($(($name:literal, $id:literal, $member:literal, $params:literal, $result:literal, &[$($tp:literal),*])),* $(,)?) => {
        concat!($($name, ";", $id, ";", $member, ";", $params, ";", $result, ";", $($tp, ",",)* "\n",)*)
    };
}
pub(crate) use rows;

/// [`rows!`] with the library's name first on each line (`("strings", ("charAt", ...))`).
macro_rules! lib_rows {
    ($(($lib:literal, ($name:literal, $id:literal, $member:literal, $params:literal, $result:literal, &[$($tp:literal),*]))),* $(,)?) => {
        concat!($($lib, ";", $name, ";", $id, ";", $member, ";", $params, ";", $result, ";", $($tp, ",",)* "\n",)*)
    };
}
pub(crate) use lib_rows;

/// The declarations of `rows` ([`rows!`]), one `FunctionDecl` per row (the environment merges overloads of one name).
pub fn declare(rows: &str) -> Vec<FunctionDecl> {
    rows.lines().map(row).collect()
}

/// The declaration of one line of [`rows!`].
pub fn row(line: &str) -> FunctionDecl {
    let mut fields = line.split(';');
    let mut next = || fields.next().unwrap_or("");
    let (name, id, member, params, result, tps) = (next(), next(), next(), next(), next(), next());
    let params = parse_list(params);
    let result = parse(result);
    let o = if member == "true" {
        OverloadDecl::method(id, params, result)
    } else {
        OverloadDecl::function(id, params, result)
    };
    let tps = tps
        .split(',')
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    FunctionDecl::new(name).with_overload(o.with_type_params(tps))
}

/// The types of a comma-separated list (`""` is none).
pub fn parse_list(text: &str) -> Vec<CelType> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some((t, after)) = next_type(rest) {
        out.push(t);
        rest = after;
    }
    out
}

/// One type name (see the module documentation).
pub fn parse(text: &str) -> CelType {
    next_type(text).map_or(CelType::Dyn, |(t, _)| t)
}

/// The first type of `text` (after any separators) and what follows it; one pass, no intermediate lists (the tables
/// are read on every configure of a fresh instance).
fn next_type(text: &str) -> Option<(CelType, &str)> {
    let start = text.bytes().position(|b| b != b' ' && b != b',')?;
    let text = text.get(start..)?;
    let end = text
        .bytes()
        .position(|b| matches!(b, b'(' | b',' | b')'))
        .unwrap_or(text.len());
    if end == 0 {
        return None;
    }
    let (name, rest) = text.split_at(end);
    let name = name.trim_end();
    let Some(mut rest) = rest.strip_prefix('(') else {
        return Some((named(name), rest));
    };
    let mut args = Vec::with_capacity(2);
    while let Some((t, after)) = next_type(rest) {
        args.push(t);
        rest = after;
    }
    let rest = rest.trim_start_matches(' ');
    let rest = rest.strip_prefix(')').unwrap_or(rest);
    let mut args = args.into_iter();
    let mut next = || args.next().unwrap_or(CelType::Dyn);
    let t = match name {
        "list" => CelType::list(next()),
        "map" => {
            let key = next();
            CelType::map(key, next())
        }
        "optional_type" => CelType::optional(next()),
        "type" => CelType::type_of(next()),
        other => CelType::abstract_type(other, &[]),
    };
    Some((t, rest))
}

/// A type written without parameters.
fn named(name: &str) -> CelType {
    match name {
        "bool" => CelType::Bool,
        "int" => CelType::Int,
        "uint" => CelType::UInt,
        "double" => CelType::Double,
        "string" => CelType::String,
        "bytes" => CelType::Bytes,
        "dyn" => CelType::Dyn,
        "null_type" => CelType::Null,
        "google.protobuf.Timestamp" => CelType::Timestamp,
        "google.protobuf.Duration" => CelType::Duration,
        p if p.len() == 1 && p.bytes().all(|b| b.is_ascii_uppercase()) => CelType::type_param(p),
        other => CelType::abstract_type(other, &[]),
    }
}

/// `t` in the syntax [`parse`] reads (the generators of the tables write it).
#[cfg(test)]
pub fn render(t: &CelType) -> String {
    match t {
        CelType::Bool => "bool".into(),
        CelType::Int => "int".into(),
        CelType::UInt => "uint".into(),
        CelType::Double => "double".into(),
        CelType::String => "string".into(),
        CelType::Bytes => "bytes".into(),
        CelType::Dyn => "dyn".into(),
        CelType::Null => "null_type".into(),
        CelType::Timestamp => "google.protobuf.Timestamp".into(),
        CelType::Duration => "google.protobuf.Duration".into(),
        CelType::List(e) => format!("list({})", render(e)),
        CelType::Map(k, v) => format!("map({}, {})", render(k), render(v)),
        CelType::Optional(e) => format!("optional_type({})", render(e)),
        CelType::Type(e) => format!("type({})", render(e)),
        CelType::TypeParam(n) => n.to_string(),
        CelType::Abstract { name, params } if params.is_empty() => name.to_string(),
        other => panic!("no text for {other:?}: extend signature::render and parse"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_reads_back_as_written() {
        let types = [
            CelType::Bool,
            CelType::Int,
            CelType::UInt,
            CelType::Double,
            CelType::String,
            CelType::Bytes,
            CelType::Dyn,
            CelType::Null,
            CelType::Timestamp,
            CelType::Duration,
            CelType::type_param("T"),
            CelType::abstract_type("net.IP", &[]),
            CelType::list(CelType::type_param("T")),
            CelType::map(CelType::String, CelType::list(CelType::String)),
            CelType::optional(CelType::list(CelType::String)),
            CelType::type_of(CelType::optional(CelType::Dyn)),
        ];
        for t in types {
            let text = render(&t);
            assert_eq!(parse(&text), t, "{text}");
        }
        assert_eq!(
            parse_list("map(string, list(int)), T, kubernetes.Quantity"),
            vec![
                CelType::map(CelType::String, CelType::list(CelType::Int)),
                CelType::type_param("T"),
                CelType::abstract_type("kubernetes.Quantity", &[]),
            ]
        );
        assert_eq!(parse_list(""), Vec::<CelType>::new());
    }
}
