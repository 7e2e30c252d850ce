//! Checker signatures of the CEL standard library and of cel-go's strings, math, encoders and optionals
//! extensions, as cel-core 0.5.1 declares them. Generated from `Env::with_standard_library()` and
//! `cel_core::ext::*_extension()` (listing each overload's name, id, receiver flag, parameters, result and type
//! parameters, in [`palisade_cel_eval::signature`]'s syntax) so that neither cel-core's evaluator closures nor the code that
//! builds its declarations is linked into the module (the rows are data, a tenth of that code's size).
//!
//! The generator is the test `tests::rows_are_generated_from_cel_core` below: it fails when the
//! rows differ from what cel-core declares, and rewrites them with
//! `PALISADE_REGENERATE=1 cargo test -p palisade-cel core_decls`.

use cel_core::{CelType, Env, FunctionDecl};

use crate::signature::{self, lib_rows};

#[rustfmt::skip]
const ROWS: &str = lib_rows![
    // standard
    ("standard", ("!_", "logical_not", false, "bool", "bool", &[])),
    ("standard", ("-_", "negate_int64", false, "int", "int", &[])),
    ("standard", ("-_", "negate_double", false, "double", "double", &[])),
    ("standard", ("@in", "in_list", false, "T, list(T)", "bool", &["T"])),
    ("standard", ("@in", "in_map", false, "K, map(K, V)", "bool", &["K", "V"])),
    ("standard", ("_!=_", "not_equals", false, "T, T", "bool", &["T"])),
    ("standard", ("_%_", "modulo_int64_int64", false, "int, int", "int", &[])),
    ("standard", ("_%_", "modulo_uint64_uint64", false, "uint, uint", "uint", &[])),
    ("standard", ("_&&_", "logical_and", false, "bool, bool", "bool", &[])),
    ("standard", ("_*_", "multiply_int64_int64", false, "int, int", "int", &[])),
    ("standard", ("_*_", "multiply_uint64_uint64", false, "uint, uint", "uint", &[])),
    ("standard", ("_*_", "multiply_double_double", false, "double, double", "double", &[])),
    ("standard", ("_+_", "add_int64_int64", false, "int, int", "int", &[])),
    ("standard", ("_+_", "add_uint64_uint64", false, "uint, uint", "uint", &[])),
    ("standard", ("_+_", "add_double_double", false, "double, double", "double", &[])),
    ("standard", ("_+_", "add_string_string", false, "string, string", "string", &[])),
    ("standard", ("_+_", "add_bytes_bytes", false, "bytes, bytes", "bytes", &[])),
    ("standard", ("_+_", "add_list_list", false, "list(T), list(T)", "list(T)", &["T"])),
    ("standard", ("_+_", "add_timestamp_duration", false, "google.protobuf.Timestamp, google.protobuf.Duration", "google.protobuf.Timestamp", &[])),
    ("standard", ("_+_", "add_duration_timestamp", false, "google.protobuf.Duration, google.protobuf.Timestamp", "google.protobuf.Timestamp", &[])),
    ("standard", ("_+_", "add_duration_duration", false, "google.protobuf.Duration, google.protobuf.Duration", "google.protobuf.Duration", &[])),
    ("standard", ("_+_", "add_map_map", false, "map(K, V), map(K, V)", "map(K, V)", &["K", "V"])),
    ("standard", ("_-_", "subtract_int64_int64", false, "int, int", "int", &[])),
    ("standard", ("_-_", "subtract_uint64_uint64", false, "uint, uint", "uint", &[])),
    ("standard", ("_-_", "subtract_double_double", false, "double, double", "double", &[])),
    ("standard", ("_-_", "subtract_timestamp_timestamp", false, "google.protobuf.Timestamp, google.protobuf.Timestamp", "google.protobuf.Duration", &[])),
    ("standard", ("_-_", "subtract_timestamp_duration", false, "google.protobuf.Timestamp, google.protobuf.Duration", "google.protobuf.Timestamp", &[])),
    ("standard", ("_-_", "subtract_duration_duration", false, "google.protobuf.Duration, google.protobuf.Duration", "google.protobuf.Duration", &[])),
    ("standard", ("_/_", "divide_int64_int64", false, "int, int", "int", &[])),
    ("standard", ("_/_", "divide_uint64_uint64", false, "uint, uint", "uint", &[])),
    ("standard", ("_/_", "divide_double_double", false, "double, double", "double", &[])),
    ("standard", ("_<=_", "less_equals_bool", false, "bool, bool", "bool", &[])),
    ("standard", ("_<=_", "less_equals_int64", false, "int, int", "bool", &[])),
    ("standard", ("_<=_", "less_equals_uint64", false, "uint, uint", "bool", &[])),
    ("standard", ("_<=_", "less_equals_double", false, "double, double", "bool", &[])),
    ("standard", ("_<=_", "less_equals_string", false, "string, string", "bool", &[])),
    ("standard", ("_<=_", "less_equals_bytes", false, "bytes, bytes", "bool", &[])),
    ("standard", ("_<=_", "less_equals_timestamp", false, "google.protobuf.Timestamp, google.protobuf.Timestamp", "bool", &[])),
    ("standard", ("_<=_", "less_equals_duration", false, "google.protobuf.Duration, google.protobuf.Duration", "bool", &[])),
    ("standard", ("_<_", "less_bool", false, "bool, bool", "bool", &[])),
    ("standard", ("_<_", "less_int64", false, "int, int", "bool", &[])),
    ("standard", ("_<_", "less_uint64", false, "uint, uint", "bool", &[])),
    ("standard", ("_<_", "less_double", false, "double, double", "bool", &[])),
    ("standard", ("_<_", "less_string", false, "string, string", "bool", &[])),
    ("standard", ("_<_", "less_bytes", false, "bytes, bytes", "bool", &[])),
    ("standard", ("_<_", "less_timestamp", false, "google.protobuf.Timestamp, google.protobuf.Timestamp", "bool", &[])),
    ("standard", ("_<_", "less_duration", false, "google.protobuf.Duration, google.protobuf.Duration", "bool", &[])),
    ("standard", ("_==_", "equals", false, "T, T", "bool", &["T"])),
    ("standard", ("_>=_", "greater_equals_bool", false, "bool, bool", "bool", &[])),
    ("standard", ("_>=_", "greater_equals_int64", false, "int, int", "bool", &[])),
    ("standard", ("_>=_", "greater_equals_uint64", false, "uint, uint", "bool", &[])),
    ("standard", ("_>=_", "greater_equals_double", false, "double, double", "bool", &[])),
    ("standard", ("_>=_", "greater_equals_string", false, "string, string", "bool", &[])),
    ("standard", ("_>=_", "greater_equals_bytes", false, "bytes, bytes", "bool", &[])),
    ("standard", ("_>=_", "greater_equals_timestamp", false, "google.protobuf.Timestamp, google.protobuf.Timestamp", "bool", &[])),
    ("standard", ("_>=_", "greater_equals_duration", false, "google.protobuf.Duration, google.protobuf.Duration", "bool", &[])),
    ("standard", ("_>_", "greater_bool", false, "bool, bool", "bool", &[])),
    ("standard", ("_>_", "greater_int64", false, "int, int", "bool", &[])),
    ("standard", ("_>_", "greater_uint64", false, "uint, uint", "bool", &[])),
    ("standard", ("_>_", "greater_double", false, "double, double", "bool", &[])),
    ("standard", ("_>_", "greater_string", false, "string, string", "bool", &[])),
    ("standard", ("_>_", "greater_bytes", false, "bytes, bytes", "bool", &[])),
    ("standard", ("_>_", "greater_timestamp", false, "google.protobuf.Timestamp, google.protobuf.Timestamp", "bool", &[])),
    ("standard", ("_>_", "greater_duration", false, "google.protobuf.Duration, google.protobuf.Duration", "bool", &[])),
    ("standard", ("_?_:_", "conditional", false, "bool, T, T", "T", &["T"])),
    ("standard", ("_[_]", "index_list", false, "list(T), int", "T", &["T"])),
    ("standard", ("_[_]", "index_map", false, "map(K, V), K", "V", &["K", "V"])),
    ("standard", ("_||_", "logical_or", false, "bool, bool", "bool", &[])),
    ("standard", ("bool", "bool_to_bool", false, "bool", "bool", &[])),
    ("standard", ("bool", "string_to_bool", false, "string", "bool", &[])),
    ("standard", ("bytes", "bytes_to_bytes", false, "bytes", "bytes", &[])),
    ("standard", ("bytes", "string_to_bytes", false, "string", "bytes", &[])),
    ("standard", ("contains", "string_contains_string", true, "string, string", "bool", &[])),
    ("standard", ("double", "double_to_double", false, "double", "double", &[])),
    ("standard", ("double", "int_to_double", false, "int", "double", &[])),
    ("standard", ("double", "uint_to_double", false, "uint", "double", &[])),
    ("standard", ("double", "string_to_double", false, "string", "double", &[])),
    ("standard", ("duration", "duration_to_duration", false, "google.protobuf.Duration", "google.protobuf.Duration", &[])),
    ("standard", ("duration", "string_to_duration", false, "string", "google.protobuf.Duration", &[])),
    ("standard", ("dyn", "to_dyn", false, "T", "dyn", &["T"])),
    ("standard", ("endsWith", "string_ends_with_string", true, "string, string", "bool", &[])),
    ("standard", ("getDate", "timestamp_to_date", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getDate", "timestamp_to_date_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getDayOfMonth", "timestamp_to_dayofmonth", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getDayOfMonth", "timestamp_to_dayofmonth_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getDayOfWeek", "timestamp_to_dayofweek", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getDayOfWeek", "timestamp_to_dayofweek_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getDayOfYear", "timestamp_to_dayofyear", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getDayOfYear", "timestamp_to_dayofyear_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getFullYear", "timestamp_to_fullyear", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getFullYear", "timestamp_to_fullyear_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getHours", "timestamp_to_hours", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getHours", "timestamp_to_hours_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getHours", "duration_to_hours", true, "google.protobuf.Duration", "int", &[])),
    ("standard", ("getMilliseconds", "timestamp_to_milliseconds", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getMilliseconds", "timestamp_to_milliseconds_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getMilliseconds", "duration_to_milliseconds", true, "google.protobuf.Duration", "int", &[])),
    ("standard", ("getMinutes", "timestamp_to_minutes", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getMinutes", "timestamp_to_minutes_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getMinutes", "duration_to_minutes", true, "google.protobuf.Duration", "int", &[])),
    ("standard", ("getMonth", "timestamp_to_month", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getMonth", "timestamp_to_month_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getSeconds", "timestamp_to_seconds", true, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("getSeconds", "timestamp_to_seconds_with_tz", true, "google.protobuf.Timestamp, string", "int", &[])),
    ("standard", ("getSeconds", "duration_to_seconds", true, "google.protobuf.Duration", "int", &[])),
    ("standard", ("int", "int_to_int", false, "int", "int", &[])),
    ("standard", ("int", "uint_to_int", false, "uint", "int", &[])),
    ("standard", ("int", "double_to_int", false, "double", "int", &[])),
    ("standard", ("int", "string_to_int", false, "string", "int", &[])),
    ("standard", ("int", "timestamp_to_int", false, "google.protobuf.Timestamp", "int", &[])),
    ("standard", ("matches", "matches_string_re", false, "string, string", "bool", &[])),
    ("standard", ("matches", "string_matches_re", true, "string, string", "bool", &[])),
    ("standard", ("size", "size_string", false, "string", "int", &[])),
    ("standard", ("size", "size_bytes", false, "bytes", "int", &[])),
    ("standard", ("size", "size_list", false, "list(T)", "int", &["T"])),
    ("standard", ("size", "size_map", false, "map(K, V)", "int", &["K", "V"])),
    ("standard", ("size", "string_size", true, "string", "int", &[])),
    ("standard", ("size", "bytes_size", true, "bytes", "int", &[])),
    ("standard", ("size", "list_size", true, "list(T)", "int", &["T"])),
    ("standard", ("size", "map_size", true, "map(K, V)", "int", &["K", "V"])),
    ("standard", ("startsWith", "string_starts_with_string", true, "string, string", "bool", &[])),
    ("standard", ("string", "string_to_string", false, "string", "string", &[])),
    ("standard", ("string", "bool_to_string", false, "bool", "string", &[])),
    ("standard", ("string", "int_to_string", false, "int", "string", &[])),
    ("standard", ("string", "uint_to_string", false, "uint", "string", &[])),
    ("standard", ("string", "double_to_string", false, "double", "string", &[])),
    ("standard", ("string", "bytes_to_string", false, "bytes", "string", &[])),
    ("standard", ("string", "timestamp_to_string", false, "google.protobuf.Timestamp", "string", &[])),
    ("standard", ("string", "duration_to_string", false, "google.protobuf.Duration", "string", &[])),
    ("standard", ("timestamp", "timestamp_to_timestamp", false, "google.protobuf.Timestamp", "google.protobuf.Timestamp", &[])),
    ("standard", ("timestamp", "string_to_timestamp", false, "string", "google.protobuf.Timestamp", &[])),
    ("standard", ("timestamp", "int_to_timestamp", false, "int", "google.protobuf.Timestamp", &[])),
    ("standard", ("type", "type", false, "T", "type(T)", &["T"])),
    ("standard", ("uint", "uint_to_uint", false, "uint", "uint", &[])),
    ("standard", ("uint", "int_to_uint", false, "int", "uint", &[])),
    ("standard", ("uint", "double_to_uint", false, "double", "uint", &[])),
    ("standard", ("uint", "string_to_uint", false, "string", "uint", &[])),
    // strings
    ("strings", ("charAt", "string_char_at_int", true, "string, int", "string", &[])),
    ("strings", ("indexOf", "string_index_of_string", true, "string, string", "int", &[])),
    ("strings", ("indexOf", "string_index_of_string_int", true, "string, string, int", "int", &[])),
    ("strings", ("lastIndexOf", "string_last_index_of_string", true, "string, string", "int", &[])),
    ("strings", ("lastIndexOf", "string_last_index_of_string_int", true, "string, string, int", "int", &[])),
    ("strings", ("lowerAscii", "string_lower_ascii", true, "string", "string", &[])),
    ("strings", ("upperAscii", "string_upper_ascii", true, "string", "string", &[])),
    ("strings", ("replace", "string_replace_string_string", true, "string, string, string", "string", &[])),
    ("strings", ("replace", "string_replace_string_string_int", true, "string, string, string, int", "string", &[])),
    ("strings", ("split", "string_split_string", true, "string, string", "list(string)", &[])),
    ("strings", ("split", "string_split_string_int", true, "string, string, int", "list(string)", &[])),
    ("strings", ("substring", "string_substring_int", true, "string, int", "string", &[])),
    ("strings", ("substring", "string_substring_int_int", true, "string, int, int", "string", &[])),
    ("strings", ("trim", "string_trim", true, "string", "string", &[])),
    ("strings", ("reverse", "string_reverse", true, "string", "string", &[])),
    ("strings", ("format", "string_format", true, "string, list(dyn)", "string", &[])),
    ("strings", ("join", "list_string_join", true, "list(string)", "string", &[])),
    ("strings", ("join", "list_string_join_string", true, "list(string), string", "string", &[])),
    ("strings", ("strings.quote", "strings_quote_string", false, "string", "string", &[])),
    // optionals
    ("optionals", ("optional.of", "optional_of", false, "T", "optional_type(T)", &["T"])),
    ("optionals", ("optional.none", "optional_none", false, "", "optional_type(dyn)", &[])),
    ("optionals", ("optional.ofNonZeroValue", "optional_of_non_zero_value", false, "T", "optional_type(T)", &["T"])),
    ("optionals", ("hasValue", "optional_has_value", true, "optional_type(T)", "bool", &["T"])),
    ("optionals", ("value", "optional_value", true, "optional_type(T)", "T", &["T"])),
    ("optionals", ("or", "optional_or_optional", true, "optional_type(T), optional_type(T)", "optional_type(T)", &["T"])),
    ("optionals", ("orValue", "optional_or_value", true, "optional_type(T), T", "T", &["T"])),
];
/// cel-go's math and encoders extensions: the conformance suite's environment only (kube-apiserver enables neither).
#[cfg(feature = "extensions")]
#[rustfmt::skip]
const EXTENSION_ROWS: &str = lib_rows![
    // math
    ("math", ("math.greatest", "math_greatest_int", false, "int", "int", &[])),
    ("math", ("math.greatest", "math_greatest_uint", false, "uint", "uint", &[])),
    ("math", ("math.greatest", "math_greatest_double", false, "double", "double", &[])),
    ("math", ("math.greatest", "math_greatest_int_int", false, "int, int", "int", &[])),
    ("math", ("math.greatest", "math_greatest_uint_uint", false, "uint, uint", "uint", &[])),
    ("math", ("math.greatest", "math_greatest_double_double", false, "double, double", "double", &[])),
    ("math", ("math.greatest", "math_greatest_int_uint", false, "int, uint", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_int_double", false, "int, double", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_uint_int", false, "uint, int", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_uint_double", false, "uint, double", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_double_int", false, "double, int", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_double_uint", false, "double, uint", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_int3", false, "int, int, int", "int", &[])),
    ("math", ("math.greatest", "math_greatest_uint3", false, "uint, uint, uint", "uint", &[])),
    ("math", ("math.greatest", "math_greatest_double3", false, "double, double, double", "double", &[])),
    ("math", ("math.greatest", "math_greatest_dyn3", false, "dyn, dyn, dyn", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_int4", false, "int, int, int, int", "int", &[])),
    ("math", ("math.greatest", "math_greatest_uint4", false, "uint, uint, uint, uint", "uint", &[])),
    ("math", ("math.greatest", "math_greatest_double4", false, "double, double, double, double", "double", &[])),
    ("math", ("math.greatest", "math_greatest_dyn4", false, "dyn, dyn, dyn, dyn", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_int5", false, "int, int, int, int, int", "int", &[])),
    ("math", ("math.greatest", "math_greatest_uint5", false, "uint, uint, uint, uint, uint", "uint", &[])),
    ("math", ("math.greatest", "math_greatest_double5", false, "double, double, double, double, double", "double", &[])),
    ("math", ("math.greatest", "math_greatest_dyn5", false, "dyn, dyn, dyn, dyn, dyn", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_int6", false, "int, int, int, int, int, int", "int", &[])),
    ("math", ("math.greatest", "math_greatest_uint6", false, "uint, uint, uint, uint, uint, uint", "uint", &[])),
    ("math", ("math.greatest", "math_greatest_double6", false, "double, double, double, double, double, double", "double", &[])),
    ("math", ("math.greatest", "math_greatest_dyn6", false, "dyn, dyn, dyn, dyn, dyn, dyn", "dyn", &[])),
    ("math", ("math.greatest", "math_greatest_list_int", false, "list(int)", "int", &[])),
    ("math", ("math.greatest", "math_greatest_list_uint", false, "list(uint)", "uint", &[])),
    ("math", ("math.greatest", "math_greatest_list_double", false, "list(double)", "double", &[])),
    ("math", ("math.greatest", "math_greatest_list_dyn", false, "list(dyn)", "dyn", &[])),
    ("math", ("math.least", "math_least_int", false, "int", "int", &[])),
    ("math", ("math.least", "math_least_uint", false, "uint", "uint", &[])),
    ("math", ("math.least", "math_least_double", false, "double", "double", &[])),
    ("math", ("math.least", "math_least_int_int", false, "int, int", "int", &[])),
    ("math", ("math.least", "math_least_uint_uint", false, "uint, uint", "uint", &[])),
    ("math", ("math.least", "math_least_double_double", false, "double, double", "double", &[])),
    ("math", ("math.least", "math_least_int_uint", false, "int, uint", "dyn", &[])),
    ("math", ("math.least", "math_least_int_double", false, "int, double", "dyn", &[])),
    ("math", ("math.least", "math_least_uint_int", false, "uint, int", "dyn", &[])),
    ("math", ("math.least", "math_least_uint_double", false, "uint, double", "dyn", &[])),
    ("math", ("math.least", "math_least_double_int", false, "double, int", "dyn", &[])),
    ("math", ("math.least", "math_least_double_uint", false, "double, uint", "dyn", &[])),
    ("math", ("math.least", "math_least_int3", false, "int, int, int", "int", &[])),
    ("math", ("math.least", "math_least_uint3", false, "uint, uint, uint", "uint", &[])),
    ("math", ("math.least", "math_least_double3", false, "double, double, double", "double", &[])),
    ("math", ("math.least", "math_least_dyn3", false, "dyn, dyn, dyn", "dyn", &[])),
    ("math", ("math.least", "math_least_int4", false, "int, int, int, int", "int", &[])),
    ("math", ("math.least", "math_least_uint4", false, "uint, uint, uint, uint", "uint", &[])),
    ("math", ("math.least", "math_least_double4", false, "double, double, double, double", "double", &[])),
    ("math", ("math.least", "math_least_dyn4", false, "dyn, dyn, dyn, dyn", "dyn", &[])),
    ("math", ("math.least", "math_least_int5", false, "int, int, int, int, int", "int", &[])),
    ("math", ("math.least", "math_least_uint5", false, "uint, uint, uint, uint, uint", "uint", &[])),
    ("math", ("math.least", "math_least_double5", false, "double, double, double, double, double", "double", &[])),
    ("math", ("math.least", "math_least_dyn5", false, "dyn, dyn, dyn, dyn, dyn", "dyn", &[])),
    ("math", ("math.least", "math_least_int6", false, "int, int, int, int, int, int", "int", &[])),
    ("math", ("math.least", "math_least_uint6", false, "uint, uint, uint, uint, uint, uint", "uint", &[])),
    ("math", ("math.least", "math_least_double6", false, "double, double, double, double, double, double", "double", &[])),
    ("math", ("math.least", "math_least_dyn6", false, "dyn, dyn, dyn, dyn, dyn, dyn", "dyn", &[])),
    ("math", ("math.least", "math_least_list_int", false, "list(int)", "int", &[])),
    ("math", ("math.least", "math_least_list_uint", false, "list(uint)", "uint", &[])),
    ("math", ("math.least", "math_least_list_double", false, "list(double)", "double", &[])),
    ("math", ("math.least", "math_least_list_dyn", false, "list(dyn)", "dyn", &[])),
    ("math", ("math.ceil", "math_ceil_double", false, "double", "double", &[])),
    ("math", ("math.floor", "math_floor_double", false, "double", "double", &[])),
    ("math", ("math.round", "math_round_double", false, "double", "double", &[])),
    ("math", ("math.trunc", "math_trunc_double", false, "double", "double", &[])),
    ("math", ("math.abs", "math_abs_int", false, "int", "int", &[])),
    ("math", ("math.abs", "math_abs_uint", false, "uint", "uint", &[])),
    ("math", ("math.abs", "math_abs_double", false, "double", "double", &[])),
    ("math", ("math.sign", "math_sign_int", false, "int", "int", &[])),
    ("math", ("math.sign", "math_sign_uint", false, "uint", "uint", &[])),
    ("math", ("math.sign", "math_sign_double", false, "double", "double", &[])),
    ("math", ("math.isNaN", "math_isnan_double", false, "double", "bool", &[])),
    ("math", ("math.isInf", "math_isinf_double", false, "double", "bool", &[])),
    ("math", ("math.isFinite", "math_isfinite_double", false, "double", "bool", &[])),
    ("math", ("math.bitAnd", "math_bitand_int_int", false, "int, int", "int", &[])),
    ("math", ("math.bitAnd", "math_bitand_uint_uint", false, "uint, uint", "uint", &[])),
    ("math", ("math.bitOr", "math_bitor_int_int", false, "int, int", "int", &[])),
    ("math", ("math.bitOr", "math_bitor_uint_uint", false, "uint, uint", "uint", &[])),
    ("math", ("math.bitXor", "math_bitxor_int_int", false, "int, int", "int", &[])),
    ("math", ("math.bitXor", "math_bitxor_uint_uint", false, "uint, uint", "uint", &[])),
    ("math", ("math.bitNot", "math_bitnot_int", false, "int", "int", &[])),
    ("math", ("math.bitNot", "math_bitnot_uint", false, "uint", "uint", &[])),
    ("math", ("math.bitShiftLeft", "math_bitshiftleft_int_int", false, "int, int", "int", &[])),
    ("math", ("math.bitShiftLeft", "math_bitshiftleft_uint_int", false, "uint, int", "uint", &[])),
    ("math", ("math.bitShiftRight", "math_bitshiftright_int_int", false, "int, int", "int", &[])),
    ("math", ("math.bitShiftRight", "math_bitshiftright_uint_int", false, "uint, int", "uint", &[])),
    // encoders
    ("encoders", ("base64.encode", "base64_encode_bytes", false, "bytes", "string", &[])),
    ("encoders", ("base64.decode", "base64_decode_string", false, "string", "bytes", &[])),
];
// end of the generated rows

/// The type names the standard environment binds to their types (`type(1) == int`).
const TYPE_CONSTANTS: &[(&str, &str)] = &[
    ("bool", "bool"),
    ("int", "int"),
    ("uint", "uint"),
    ("double", "double"),
    ("string", "string"),
    ("bytes", "bytes"),
    ("list", "list(dyn)"),
    ("map", "map(dyn, dyn)"),
    ("null_type", "null_type"),
    ("type", "type(dyn)"),
    ("dyn", "dyn"),
];

/// The standard environment: what `Env::with_standard_library()` declares, from the rows, but the overloads named in
/// `except`.
pub(crate) fn standard(except: &[&str]) -> Env {
    let mut env = Env::new();
    for (name, t) in TYPE_CONSTANTS {
        env.add_variable(*name, CelType::type_of(signature::parse(t)));
    }
    env.with_extension(extensions(&["standard"], except))
}

/// Declarations of the named libraries (`standard`, `strings`, `math`, `encoders`, `optionals`), but the overloads
/// named in `except`.
pub(crate) fn extensions(libs: &[&str], except: &[&str]) -> Vec<FunctionDecl> {
    #[cfg(feature = "extensions")]
    let rows = ROWS.lines().chain(EXTENSION_ROWS.lines());
    #[cfg(not(feature = "extensions"))]
    let rows = ROWS.lines();
    rows.filter_map(|line| {
        let (lib, row) = line.split_once(';')?;
        let overload = row.split(';').nth(1)?;
        (libs.contains(&lib) && !except.contains(&overload)).then_some(row)
    })
    .map(signature::row)
    .collect()
}

#[cfg(test)]
mod tests {
    use crate::signature;
    use cel_core::{Env, FunctionDecl};

    /// cel-core's standard library, by function name.
    fn standard_library() -> Vec<FunctionDecl> {
        let env = Env::with_standard_library();
        let mut names: Vec<&String> = env.functions().keys().collect();
        names.sort();
        names.iter().map(|n| env.functions()[*n].clone()).collect()
    }

    const START: &str = "#[rustfmt::skip]\nconst ROWS: &str = lib_rows![\n";
    const END: &str = "];\n// end of the generated rows\n";
    /// Between the rows every environment reads and the extensions only `Env::standard` reads.
    const EXTENSIONS: &str = "];\n/// cel-go's math and encoders extensions: the conformance suite's environment only \
        (kube-apiserver enables neither).\n#[cfg(feature = \"extensions\")]\n#[rustfmt::skip]\nconst EXTENSION_ROWS: &str = lib_rows![\n";

    /// The rows, one line each, from cel-core's own extension declarations.
    fn generated() -> String {
        let libs = [
            ("standard", standard_library()),
            ("strings", cel_core::ext::string_extension()),
            ("optionals", cel_core::ext::optionals_extension()),
            ("math", cel_core::ext::math_extension()),
            ("encoders", cel_core::ext::encoders_extension()),
        ];
        let mut out = String::from(START);
        for (lib, decls) in libs {
            if lib == "math" {
                out.push_str(EXTENSIONS);
            }
            out.push_str(&format!("    // {lib}\n"));
            for f in decls {
                for o in &f.overloads {
                    let params: Vec<String> = o.params.iter().map(signature::render).collect();
                    let tps: Vec<String> = o.type_params.iter().map(|t| format!("{t:?}")).collect();
                    out.push_str(&format!(
                        "    ({lib:?}, ({:?}, {:?}, {}, {:?}, {:?}, &[{}])),\n",
                        f.name,
                        o.id,
                        o.is_member,
                        params.join(", "),
                        signature::render(&o.result),
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
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/core_decls.rs");
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
            "src/core_decls.rs differs from cel_core::ext::*_extension(): regenerate with \
             `PALISADE_REGENERATE=1 cargo test -p palisade-cel core_decls`"
        );
    }

    #[test]
    fn the_rows_read_back_as_cel_core_declares_them() {
        let libs = [
            ("standard", standard_library()),
            ("strings", cel_core::ext::string_extension()),
            ("math", cel_core::ext::math_extension()),
            ("encoders", cel_core::ext::encoders_extension()),
            ("optionals", cel_core::ext::optionals_extension()),
        ];
        for (lib, decls) in libs {
            let want: Vec<_> = decls
                .iter()
                .flat_map(|f| f.overloads.iter().map(move |o| (f.name.clone(), o)))
                .map(|(n, o)| {
                    (
                        n,
                        o.id.clone(),
                        o.is_member,
                        o.params.clone(),
                        o.result.clone(),
                        o.type_params.clone(),
                    )
                })
                .collect();
            let ours: Vec<_> = super::extensions(&[lib], &[])
                .into_iter()
                .flat_map(|f| f.overloads.into_iter().map(move |o| (f.name.clone(), o)))
                .map(|(n, o)| (n, o.id, o.is_member, o.params, o.result, o.type_params))
                .collect();
            assert_eq!(ours, want, "{lib}");
        }
    }

    #[test]
    fn the_standard_environment_is_cel_cores() {
        let (ours, theirs) = (super::standard(&[]), Env::with_standard_library());
        assert_eq!(ours.variables(), theirs.variables());
        let mut names: Vec<&String> = ours.functions().keys().collect();
        names.sort();
        let mut want: Vec<&String> = theirs.functions().keys().collect();
        want.sort();
        assert_eq!(names, want);
    }

    #[test]
    fn every_library_is_declared() {
        for lib in ["standard", "strings", "math", "encoders", "optionals"] {
            assert!(!super::extensions(&[lib], &[]).is_empty(), "{lib}");
        }
    }
}
