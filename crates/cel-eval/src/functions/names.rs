//! The typed identifiers of the functions: what a call names, resolved once when the program is
//! compiled (crate::compile) from the checker's reference (or, unchecked, the callee's name), so
//! that evaluation dispatches on an enum instead of comparing names. A method is identified by its
//! name alone: which family runs it depends on the receiver's runtime kind (`x.size()`,
//! `x.indexOf(y)` and `x.reverse()` are string or list functions), as cel-go's dynamic dispatch
//! picks among the overloads of one function.

use palisade_cel_kubernetes::format::Format;

use crate::time::Component;

/// A global or namespaced function (`size(x)`, `int(x)`, `math.abs(x)`, `quantity(s)` …).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Function {
    Size,
    Matches,
    Dyn,
    Type,
    Convert(Conversion),
    Optional(OptionalFn),
    #[cfg(feature = "extensions")]
    Math(MathFn),
    #[cfg(feature = "extensions")]
    Base64(Base64Fn),
    /// `strings.quote`
    Quote,
    Sets(SetsFn),
    /// `lists.range`
    Range,
    /// `cel.@mapInsert`, what `transformMap` and `transformMapEntry` expand to
    MapInsert,
    /// approver-policy's `serviceAccount(string)`
    ServiceAccount,
    /// approver-policy's `isServiceAccount(string)`
    IsServiceAccount,
    Kube(KubeFn),
    /// A name no library declares: `no such overload` when called.
    Unknown,
}

/// The standard type conversions (`overloads.IsTypeConversionFunction`, but `type` and `dyn`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Bool,
    Timestamp,
    Duration,
}

/// cel-go's optional library: `optional.of`, `optional.none`, `optional.ofNonZeroValue`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionalFn {
    Of,
    None,
    OfNonZeroValue,
}

/// cel-go's math extension.
#[cfg(feature = "extensions")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    Greatest,
    Least,
    Ceil,
    Floor,
    Round,
    Trunc,
    IsNaN,
    IsInf,
    IsFinite,
    Abs,
    Sign,
    BitNot,
    BitAnd,
    BitOr,
    BitXor,
    BitShiftLeft,
    BitShiftRight,
    /// `math.<anything else>`
    Unknown,
}

/// cel-go's encoders extension.
#[cfg(feature = "extensions")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base64Fn {
    Encode,
    Decode,
}

/// cel-go's sets extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetsFn {
    Contains,
    Equivalent,
    Intersects,
}

/// The Kubernetes value libraries' global functions (quantity, semver, ip, cidr, url, format).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KubeFn {
    Quantity,
    IsQuantity,
    Semver,
    IsSemver,
    Ip,
    IsIp,
    IpIsCanonical,
    Cidr,
    IsCidr,
    Url,
    IsUrl,
    /// `format.named(name)`
    FormatNamed,
    /// `format.<name>()`: the format, when `<name>` is one
    Format(Option<Format>),
}

impl Function {
    /// The function a global or namespaced call names.
    pub fn from_name(name: &str) -> Function {
        use Function as F;
        match name {
            "size" => F::Size,
            "matches" => F::Matches,
            "dyn" => F::Dyn,
            "type" => F::Type,
            "int" => F::Convert(Conversion::Int),
            "uint" => F::Convert(Conversion::Uint),
            "double" => F::Convert(Conversion::Double),
            "string" => F::Convert(Conversion::String),
            "bytes" => F::Convert(Conversion::Bytes),
            "bool" => F::Convert(Conversion::Bool),
            "timestamp" => F::Convert(Conversion::Timestamp),
            "duration" => F::Convert(Conversion::Duration),
            "optional.of" => F::Optional(OptionalFn::Of),
            "optional.none" => F::Optional(OptionalFn::None),
            "optional.ofNonZeroValue" => F::Optional(OptionalFn::OfNonZeroValue),
            #[cfg(feature = "extensions")]
            "base64.encode" => F::Base64(Base64Fn::Encode),
            #[cfg(feature = "extensions")]
            "base64.decode" => F::Base64(Base64Fn::Decode),
            "strings.quote" => F::Quote,
            "sets.contains" => F::Sets(SetsFn::Contains),
            "sets.equivalent" => F::Sets(SetsFn::Equivalent),
            "sets.intersects" => F::Sets(SetsFn::Intersects),
            "lists.range" => F::Range,
            MAP_INSERT => F::MapInsert,
            "serviceAccount" => F::ServiceAccount,
            "isServiceAccount" => F::IsServiceAccount,
            "quantity" => F::Kube(KubeFn::Quantity),
            "isQuantity" => F::Kube(KubeFn::IsQuantity),
            "semver" => F::Kube(KubeFn::Semver),
            "isSemver" => F::Kube(KubeFn::IsSemver),
            "ip" => F::Kube(KubeFn::Ip),
            "isIP" => F::Kube(KubeFn::IsIp),
            "ip.isCanonical" => F::Kube(KubeFn::IpIsCanonical),
            "cidr" => F::Kube(KubeFn::Cidr),
            "isCIDR" => F::Kube(KubeFn::IsCidr),
            "url" => F::Kube(KubeFn::Url),
            "isURL" => F::Kube(KubeFn::IsUrl),
            "format.named" => F::Kube(KubeFn::FormatNamed),
            #[cfg(feature = "extensions")]
            _ if name.starts_with("math.") => {
                F::Math(MathFn::from_name(name.get(5..).unwrap_or("")))
            }
            _ => match name.strip_prefix("format.") {
                Some(f) => F::Kube(KubeFn::Format(Format::named(f))),
                None => F::Unknown,
            },
        }
    }
}

#[cfg(feature = "extensions")]
impl MathFn {
    fn from_name(name: &str) -> MathFn {
        use MathFn as M;
        match name {
            "greatest" => M::Greatest,
            "least" => M::Least,
            "ceil" => M::Ceil,
            "floor" => M::Floor,
            "round" => M::Round,
            "trunc" => M::Trunc,
            "isNaN" => M::IsNaN,
            "isInf" => M::IsInf,
            "isFinite" => M::IsFinite,
            "abs" => M::Abs,
            "sign" => M::Sign,
            "bitNot" => M::BitNot,
            "bitAnd" => M::BitAnd,
            "bitOr" => M::BitOr,
            "bitXor" => M::BitXor,
            "bitShiftLeft" => M::BitShiftLeft,
            "bitShiftRight" => M::BitShiftRight,
            _ => M::Unknown,
        }
    }
}

/// A method (`recv.name(args)`) of any library; the receiver's kind picks the implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    // strings, regex (and `size`, `indexOf`, `lastIndexOf`, `reverse` on lists)
    Size,
    Contains,
    StartsWith,
    EndsWith,
    Matches,
    Find,
    FindAll,
    CharAt,
    IndexOf,
    LastIndexOf,
    LowerAscii,
    UpperAscii,
    Replace,
    Split,
    Substring,
    Trim,
    Reverse,
    /// `format`, rendered as the cel-spec conformance suite renders it
    Format,
    /// `format` in kube-apiserver's environment (cel-go's `ext/formatting.go`); `from_name` gives [`Method::Format`],
    /// the compiler this one where the environment is kube-apiserver's
    FormatLocalized,
    // lists
    Join,
    Slice,
    Flatten,
    Distinct,
    Sort,
    /// `@sortByAssociatedKeys`, what `sortBy` expands to
    SortByAssociatedKeys,
    First,
    Last,
    IsSorted,
    Sum,
    Min,
    Max,
    // timestamps and durations
    Time(Component),
    // optionals
    HasValue,
    Value,
    Or,
    OrValue,
    // authorizer
    Path,
    Group,
    ServiceAccount,
    Resource,
    Subresource,
    Namespace,
    Name,
    FieldSelector,
    LabelSelector,
    Check,
    Allowed,
    Reason,
    Errored,
    Error,
    // quantity, semver, ip, cidr, url, format, service account
    Sign,
    IsInteger,
    AsInteger,
    AsApproximateFloat,
    Add,
    Sub,
    IsLessThan,
    IsGreaterThan,
    CompareTo,
    Major,
    Minor,
    Patch,
    Family,
    IsUnspecified,
    IsLoopback,
    IsLinkLocalMulticast,
    IsLinkLocalUnicast,
    IsGlobalUnicast,
    Ip,
    PrefixLength,
    Masked,
    ContainsIp,
    ContainsCidr,
    GetScheme,
    GetHost,
    GetHostname,
    GetPort,
    GetEscapedPath,
    GetQuery,
    GetName,
    GetNamespace,
    Validate,
    /// A name no library declares: `no such overload` when called.
    Unknown,
}

/// The function cel-go's `transformMap` and `transformMapEntry` insert with: `cel.@mapInsert(map, key, value)` and
/// `cel.@mapInsert(map, entries)`, an error when a key is already there (no user can name it: `@` is not an
/// identifier character).
pub const MAP_INSERT: &str = "cel.@mapInsert";

impl Method {
    /// The method a receiver-style call names.
    pub fn from_name(name: &str) -> Method {
        use Method as M;
        match name {
            "size" => M::Size,
            "contains" => M::Contains,
            "startsWith" => M::StartsWith,
            "endsWith" => M::EndsWith,
            "matches" => M::Matches,
            "find" => M::Find,
            "findAll" => M::FindAll,
            "charAt" => M::CharAt,
            "indexOf" => M::IndexOf,
            "lastIndexOf" => M::LastIndexOf,
            "lowerAscii" => M::LowerAscii,
            "upperAscii" => M::UpperAscii,
            "replace" => M::Replace,
            "split" => M::Split,
            "substring" => M::Substring,
            "trim" => M::Trim,
            "reverse" => M::Reverse,
            "format" => M::Format,
            "join" => M::Join,
            "slice" => M::Slice,
            "flatten" => M::Flatten,
            "distinct" => M::Distinct,
            "sort" => M::Sort,
            "@sortByAssociatedKeys" => M::SortByAssociatedKeys,
            "first" => M::First,
            "last" => M::Last,
            "isSorted" => M::IsSorted,
            "sum" => M::Sum,
            "min" => M::Min,
            "max" => M::Max,
            "hasValue" => M::HasValue,
            "value" => M::Value,
            "or" => M::Or,
            "orValue" => M::OrValue,
            "path" => M::Path,
            "group" => M::Group,
            "serviceAccount" => M::ServiceAccount,
            "resource" => M::Resource,
            "subresource" => M::Subresource,
            "namespace" => M::Namespace,
            "name" => M::Name,
            "fieldSelector" => M::FieldSelector,
            "labelSelector" => M::LabelSelector,
            "check" => M::Check,
            "allowed" => M::Allowed,
            "reason" => M::Reason,
            "errored" => M::Errored,
            "error" => M::Error,
            "sign" => M::Sign,
            "isInteger" => M::IsInteger,
            "asInteger" => M::AsInteger,
            "asApproximateFloat" => M::AsApproximateFloat,
            "add" => M::Add,
            "sub" => M::Sub,
            "isLessThan" => M::IsLessThan,
            "isGreaterThan" => M::IsGreaterThan,
            "compareTo" => M::CompareTo,
            "major" => M::Major,
            "minor" => M::Minor,
            "patch" => M::Patch,
            "family" => M::Family,
            "isUnspecified" => M::IsUnspecified,
            "isLoopback" => M::IsLoopback,
            "isLinkLocalMulticast" => M::IsLinkLocalMulticast,
            "isLinkLocalUnicast" => M::IsLinkLocalUnicast,
            "isGlobalUnicast" => M::IsGlobalUnicast,
            "ip" => M::Ip,
            "prefixLength" => M::PrefixLength,
            "masked" => M::Masked,
            "containsIP" => M::ContainsIp,
            "containsCIDR" => M::ContainsCidr,
            "getScheme" => M::GetScheme,
            "getHost" => M::GetHost,
            "getHostname" => M::GetHostname,
            "getPort" => M::GetPort,
            "getEscapedPath" => M::GetEscapedPath,
            "getQuery" => M::GetQuery,
            "getName" => M::GetName,
            "getNamespace" => M::GetNamespace,
            "validate" => M::Validate,
            _ => match Component::from_name(name) {
                Some(c) => M::Time(c),
                None => M::Unknown,
            },
        }
    }
}

/// Namespaces whose functions are called as `ns.fn(...)` rather than on a receiver.
pub fn is_namespaced(name: &str) -> bool {
    matches!(
        name.split_once('.').map(|(ns, _)| ns),
        Some("math" | "base64" | "strings" | "sets" | "lists" | "optional" | "format" | "ip")
    )
}

#[cfg(test)]
mod tests {
    use super::{Function, Method};

    #[test]
    fn names_resolve_to_their_family() {
        assert_eq!(
            Function::from_name("math.abs"),
            Function::Math(super::MathFn::Abs)
        );
        assert_eq!(
            Function::from_name("math.nope"),
            Function::Math(super::MathFn::Unknown)
        );
        assert_eq!(
            Function::from_name("int"),
            Function::Convert(super::Conversion::Int)
        );
        assert_eq!(Function::from_name("nope"), Function::Unknown);
        assert_eq!(
            Method::from_name("getHours"),
            Method::Time(crate::time::Component::Hours)
        );
        assert_eq!(Method::from_name("containsIP"), Method::ContainsIp);
        assert_eq!(Method::from_name("nope"), Method::Unknown);
        assert!(super::is_namespaced("sets.contains"));
        assert!(!super::is_namespaced("object.contains"));
    }
}
