//! Checker signatures of cel-go's strings, math, encoders and optionals extensions, as
//! cel-core 0.5.1 declares them. Generated from `cel_core::ext::*_extension()` (listing each
//! overload's name, id, receiver flag, parameters, result and type parameters) so that
//! cel-core's own evaluator closures are never linked into the module.
//!
//! The generator is the test `tests::rows_are_generated_from_cel_core` below: it fails when the
//! rows differ from what cel-core declares, and rewrites them with
//! `PALISADE_REGENERATE=1 cargo test -p palisade-cel ext_decls`.

use cel_core::{CelType, FunctionDecl, OverloadDecl};

type Row = (
    &'static str,
    &'static str,
    &'static str,
    bool,
    Vec<CelType>,
    CelType,
    &'static [&'static str],
);

#[rustfmt::skip]
fn rows() -> Vec<Row> {
    vec![
        // strings
        ("strings", "charAt", "string_char_at_int", true, vec![CelType::String, CelType::Int], CelType::String, &[]),
        ("strings", "indexOf", "string_index_of_string", true, vec![CelType::String, CelType::String], CelType::Int, &[]),
        ("strings", "indexOf", "string_index_of_string_int", true, vec![CelType::String, CelType::String, CelType::Int], CelType::Int, &[]),
        ("strings", "lastIndexOf", "string_last_index_of_string", true, vec![CelType::String, CelType::String], CelType::Int, &[]),
        ("strings", "lastIndexOf", "string_last_index_of_string_int", true, vec![CelType::String, CelType::String, CelType::Int], CelType::Int, &[]),
        ("strings", "lowerAscii", "string_lower_ascii", true, vec![CelType::String], CelType::String, &[]),
        ("strings", "upperAscii", "string_upper_ascii", true, vec![CelType::String], CelType::String, &[]),
        ("strings", "replace", "string_replace_string_string", true, vec![CelType::String, CelType::String, CelType::String], CelType::String, &[]),
        ("strings", "replace", "string_replace_string_string_int", true, vec![CelType::String, CelType::String, CelType::String, CelType::Int], CelType::String, &[]),
        ("strings", "split", "string_split_string", true, vec![CelType::String, CelType::String], CelType::list(CelType::String), &[]),
        ("strings", "split", "string_split_string_int", true, vec![CelType::String, CelType::String, CelType::Int], CelType::list(CelType::String), &[]),
        ("strings", "substring", "string_substring_int", true, vec![CelType::String, CelType::Int], CelType::String, &[]),
        ("strings", "substring", "string_substring_int_int", true, vec![CelType::String, CelType::Int, CelType::Int], CelType::String, &[]),
        ("strings", "trim", "string_trim", true, vec![CelType::String], CelType::String, &[]),
        ("strings", "reverse", "string_reverse", true, vec![CelType::String], CelType::String, &[]),
        ("strings", "format", "string_format", true, vec![CelType::String, CelType::list(CelType::Dyn)], CelType::String, &[]),
        ("strings", "join", "list_string_join", true, vec![CelType::list(CelType::String)], CelType::String, &[]),
        ("strings", "join", "list_string_join_string", true, vec![CelType::list(CelType::String), CelType::String], CelType::String, &[]),
        ("strings", "strings.quote", "strings_quote_string", false, vec![CelType::String], CelType::String, &[]),
        // math
        ("math", "math.greatest", "math_greatest_int", false, vec![CelType::Int], CelType::Int, &[]),
        ("math", "math.greatest", "math_greatest_uint", false, vec![CelType::UInt], CelType::UInt, &[]),
        ("math", "math.greatest", "math_greatest_double", false, vec![CelType::Double], CelType::Double, &[]),
        ("math", "math.greatest", "math_greatest_int_int", false, vec![CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.greatest", "math_greatest_uint_uint", false, vec![CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.greatest", "math_greatest_double_double", false, vec![CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.greatest", "math_greatest_int_uint", false, vec![CelType::Int, CelType::UInt], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_int_double", false, vec![CelType::Int, CelType::Double], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_uint_int", false, vec![CelType::UInt, CelType::Int], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_uint_double", false, vec![CelType::UInt, CelType::Double], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_double_int", false, vec![CelType::Double, CelType::Int], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_double_uint", false, vec![CelType::Double, CelType::UInt], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_int3", false, vec![CelType::Int, CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.greatest", "math_greatest_uint3", false, vec![CelType::UInt, CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.greatest", "math_greatest_double3", false, vec![CelType::Double, CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.greatest", "math_greatest_dyn3", false, vec![CelType::Dyn, CelType::Dyn, CelType::Dyn], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_int4", false, vec![CelType::Int, CelType::Int, CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.greatest", "math_greatest_uint4", false, vec![CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.greatest", "math_greatest_double4", false, vec![CelType::Double, CelType::Double, CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.greatest", "math_greatest_dyn4", false, vec![CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_int5", false, vec![CelType::Int, CelType::Int, CelType::Int, CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.greatest", "math_greatest_uint5", false, vec![CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.greatest", "math_greatest_double5", false, vec![CelType::Double, CelType::Double, CelType::Double, CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.greatest", "math_greatest_dyn5", false, vec![CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_int6", false, vec![CelType::Int, CelType::Int, CelType::Int, CelType::Int, CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.greatest", "math_greatest_uint6", false, vec![CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.greatest", "math_greatest_double6", false, vec![CelType::Double, CelType::Double, CelType::Double, CelType::Double, CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.greatest", "math_greatest_dyn6", false, vec![CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn], CelType::Dyn, &[]),
        ("math", "math.greatest", "math_greatest_list_int", false, vec![CelType::list(CelType::Int)], CelType::Int, &[]),
        ("math", "math.greatest", "math_greatest_list_uint", false, vec![CelType::list(CelType::UInt)], CelType::UInt, &[]),
        ("math", "math.greatest", "math_greatest_list_double", false, vec![CelType::list(CelType::Double)], CelType::Double, &[]),
        ("math", "math.greatest", "math_greatest_list_dyn", false, vec![CelType::list(CelType::Dyn)], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_int", false, vec![CelType::Int], CelType::Int, &[]),
        ("math", "math.least", "math_least_uint", false, vec![CelType::UInt], CelType::UInt, &[]),
        ("math", "math.least", "math_least_double", false, vec![CelType::Double], CelType::Double, &[]),
        ("math", "math.least", "math_least_int_int", false, vec![CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.least", "math_least_uint_uint", false, vec![CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.least", "math_least_double_double", false, vec![CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.least", "math_least_int_uint", false, vec![CelType::Int, CelType::UInt], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_int_double", false, vec![CelType::Int, CelType::Double], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_uint_int", false, vec![CelType::UInt, CelType::Int], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_uint_double", false, vec![CelType::UInt, CelType::Double], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_double_int", false, vec![CelType::Double, CelType::Int], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_double_uint", false, vec![CelType::Double, CelType::UInt], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_int3", false, vec![CelType::Int, CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.least", "math_least_uint3", false, vec![CelType::UInt, CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.least", "math_least_double3", false, vec![CelType::Double, CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.least", "math_least_dyn3", false, vec![CelType::Dyn, CelType::Dyn, CelType::Dyn], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_int4", false, vec![CelType::Int, CelType::Int, CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.least", "math_least_uint4", false, vec![CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.least", "math_least_double4", false, vec![CelType::Double, CelType::Double, CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.least", "math_least_dyn4", false, vec![CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_int5", false, vec![CelType::Int, CelType::Int, CelType::Int, CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.least", "math_least_uint5", false, vec![CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.least", "math_least_double5", false, vec![CelType::Double, CelType::Double, CelType::Double, CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.least", "math_least_dyn5", false, vec![CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_int6", false, vec![CelType::Int, CelType::Int, CelType::Int, CelType::Int, CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.least", "math_least_uint6", false, vec![CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.least", "math_least_double6", false, vec![CelType::Double, CelType::Double, CelType::Double, CelType::Double, CelType::Double, CelType::Double], CelType::Double, &[]),
        ("math", "math.least", "math_least_dyn6", false, vec![CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn, CelType::Dyn], CelType::Dyn, &[]),
        ("math", "math.least", "math_least_list_int", false, vec![CelType::list(CelType::Int)], CelType::Int, &[]),
        ("math", "math.least", "math_least_list_uint", false, vec![CelType::list(CelType::UInt)], CelType::UInt, &[]),
        ("math", "math.least", "math_least_list_double", false, vec![CelType::list(CelType::Double)], CelType::Double, &[]),
        ("math", "math.least", "math_least_list_dyn", false, vec![CelType::list(CelType::Dyn)], CelType::Dyn, &[]),
        ("math", "math.ceil", "math_ceil_double", false, vec![CelType::Double], CelType::Double, &[]),
        ("math", "math.floor", "math_floor_double", false, vec![CelType::Double], CelType::Double, &[]),
        ("math", "math.round", "math_round_double", false, vec![CelType::Double], CelType::Double, &[]),
        ("math", "math.trunc", "math_trunc_double", false, vec![CelType::Double], CelType::Double, &[]),
        ("math", "math.abs", "math_abs_int", false, vec![CelType::Int], CelType::Int, &[]),
        ("math", "math.abs", "math_abs_uint", false, vec![CelType::UInt], CelType::UInt, &[]),
        ("math", "math.abs", "math_abs_double", false, vec![CelType::Double], CelType::Double, &[]),
        ("math", "math.sign", "math_sign_int", false, vec![CelType::Int], CelType::Int, &[]),
        ("math", "math.sign", "math_sign_uint", false, vec![CelType::UInt], CelType::UInt, &[]),
        ("math", "math.sign", "math_sign_double", false, vec![CelType::Double], CelType::Double, &[]),
        ("math", "math.isNaN", "math_isnan_double", false, vec![CelType::Double], CelType::Bool, &[]),
        ("math", "math.isInf", "math_isinf_double", false, vec![CelType::Double], CelType::Bool, &[]),
        ("math", "math.isFinite", "math_isfinite_double", false, vec![CelType::Double], CelType::Bool, &[]),
        ("math", "math.bitAnd", "math_bitand_int_int", false, vec![CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.bitAnd", "math_bitand_uint_uint", false, vec![CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.bitOr", "math_bitor_int_int", false, vec![CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.bitOr", "math_bitor_uint_uint", false, vec![CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.bitXor", "math_bitxor_int_int", false, vec![CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.bitXor", "math_bitxor_uint_uint", false, vec![CelType::UInt, CelType::UInt], CelType::UInt, &[]),
        ("math", "math.bitNot", "math_bitnot_int", false, vec![CelType::Int], CelType::Int, &[]),
        ("math", "math.bitNot", "math_bitnot_uint", false, vec![CelType::UInt], CelType::UInt, &[]),
        ("math", "math.bitShiftLeft", "math_bitshiftleft_int_int", false, vec![CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.bitShiftLeft", "math_bitshiftleft_uint_int", false, vec![CelType::UInt, CelType::Int], CelType::UInt, &[]),
        ("math", "math.bitShiftRight", "math_bitshiftright_int_int", false, vec![CelType::Int, CelType::Int], CelType::Int, &[]),
        ("math", "math.bitShiftRight", "math_bitshiftright_uint_int", false, vec![CelType::UInt, CelType::Int], CelType::UInt, &[]),
        // encoders
        ("encoders", "base64.encode", "base64_encode_bytes", false, vec![CelType::Bytes], CelType::String, &[]),
        ("encoders", "base64.decode", "base64_decode_string", false, vec![CelType::String], CelType::Bytes, &[]),
        // optionals
        ("optionals", "optional.of", "optional_of", false, vec![CelType::type_param("T")], CelType::optional(CelType::type_param("T")), &["T"]),
        ("optionals", "optional.none", "optional_none", false, vec![], CelType::optional(CelType::Dyn), &[]),
        ("optionals", "optional.ofNonZeroValue", "optional_of_non_zero_value", false, vec![CelType::type_param("T")], CelType::optional(CelType::type_param("T")), &["T"]),
        ("optionals", "hasValue", "optional_has_value", true, vec![CelType::optional(CelType::type_param("T"))], CelType::Bool, &["T"]),
        ("optionals", "value", "optional_value", true, vec![CelType::optional(CelType::type_param("T"))], CelType::type_param("T"), &["T"]),
        ("optionals", "or", "optional_or_optional", true, vec![CelType::optional(CelType::type_param("T")), CelType::optional(CelType::type_param("T"))], CelType::optional(CelType::type_param("T")), &["T"]),
        ("optionals", "orValue", "optional_or_value", true, vec![CelType::optional(CelType::type_param("T")), CelType::type_param("T")], CelType::type_param("T"), &["T"]),
    ]
}
// end of the generated rows

/// Declarations of the named libraries (`strings`, `math`, `encoders`, `optionals`).
pub(crate) fn extensions(libs: &[&str]) -> Vec<FunctionDecl> {
    rows()
        .into_iter()
        .filter(|r| libs.contains(&r.0))
        .map(|(_, name, id, member, params, result, tps)| {
            let o = if member {
                OverloadDecl::method(id, params, result)
            } else {
                OverloadDecl::function(id, params, result)
            };
            FunctionDecl::new(name)
                .with_overload(o.with_type_params(tps.iter().map(|s| s.to_string()).collect()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use cel_core::CelType;

    const START: &str = "#[rustfmt::skip]\nfn rows() -> Vec<Row> {\n    vec![\n";
    const END: &str = "    ]\n}\n// end of the generated rows\n";

    /// `t` as the Rust expression that builds it.
    fn render_type(t: &CelType) -> String {
        match t {
            CelType::Bool => "CelType::Bool".into(),
            CelType::Int => "CelType::Int".into(),
            CelType::UInt => "CelType::UInt".into(),
            CelType::Double => "CelType::Double".into(),
            CelType::String => "CelType::String".into(),
            CelType::Bytes => "CelType::Bytes".into(),
            CelType::Dyn => "CelType::Dyn".into(),
            CelType::Null => "CelType::Null".into(),
            CelType::Timestamp => "CelType::Timestamp".into(),
            CelType::Duration => "CelType::Duration".into(),
            CelType::List(e) => format!("CelType::list({})", render_type(e)),
            CelType::Map(k, v) => format!("CelType::map({}, {})", render_type(k), render_type(v)),
            CelType::Optional(i) => format!("CelType::optional({})", render_type(i)),
            CelType::TypeParam(n) => format!("CelType::type_param({n:?})"),
            other => panic!("no rendering for {other:?}: extend render_type"),
        }
    }

    /// The rows, one line each, from cel-core's own extension declarations.
    fn generated() -> String {
        let libs = [
            ("strings", cel_core::ext::string_extension()),
            ("math", cel_core::ext::math_extension()),
            ("encoders", cel_core::ext::encoders_extension()),
            ("optionals", cel_core::ext::optionals_extension()),
        ];
        let mut out = String::from(START);
        for (lib, decls) in libs {
            out.push_str(&format!("        // {lib}\n"));
            for f in decls {
                for o in &f.overloads {
                    let params: Vec<String> = o.params.iter().map(render_type).collect();
                    let tps: Vec<String> = o.type_params.iter().map(|t| format!("{t:?}")).collect();
                    out.push_str(&format!(
                        "        ({lib:?}, {:?}, {:?}, {}, vec![{}], {}, &[{}]),\n",
                        f.name,
                        o.id,
                        o.is_member,
                        params.join(", "),
                        render_type(&o.result),
                        tps.join(", "),
                    ));
                }
            }
        }
        out.push_str(END);
        out
    }

    #[test]
    fn rows_are_generated_from_cel_core() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/ext_decls.rs");
        let file = std::fs::read_to_string(path).unwrap();
        let start = file.find(START).expect("the generated rows start");
        let end = file.find(END).expect("the generated rows end") + END.len();
        let want = generated();
        if std::env::var_os("PALISADE_REGENERATE").is_some() {
            let new = format!("{}{want}{}", &file[..start], &file[end..]);
            std::fs::write(path, new).unwrap();
            return;
        }
        assert!(
            file[start..end] == want,
            "src/ext_decls.rs differs from cel_core::ext::*_extension(): regenerate with \
             `PALISADE_REGENERATE=1 cargo test -p palisade-cel ext_decls`"
        );
    }

    #[test]
    fn every_library_is_declared() {
        for lib in ["strings", "math", "encoders", "optionals"] {
            assert!(!super::extensions(&[lib]).is_empty(), "{lib}");
        }
    }
}
