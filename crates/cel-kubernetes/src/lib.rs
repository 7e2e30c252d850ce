//! Kubernetes' CEL library semantics (`k8s.io/apiserver/pkg/cel/library`) as plain Rust,
//! with no CEL dependency: the evaluator (`palisade-cel`) wraps these in its own value type.
//!
//! | module | upstream |
//! |---|---|
//! | [`quantity`] | `quantity.go`, `k8s.io/apimachinery/pkg/api/resource` |
//! | [`semver`] | `semverlib.go` (`github.com/blang/semver/v4`) |
//! | [`ip`], [`cidr`] | `ip.go`, `cidr.go` (Go `net/netip`) |
//! | [`url`] | `urls.go` (Go `net/url`) |
//! | [`format`] | `format.go` (over [`validation`], kube-openapi `strfmt`) |
//! | [`lists`], [`sets`], [`regex`] | `lists.go`, cel-go `ext/sets.go`, `regex.go` |
//! | [`authz`] | `authz.go` |
//! | [`cluster`] | (the one host boundary: the Namespace objects and SubjectAccessReviews a decision may ask for) |
//! | [`errors`] | `k8s.io/apimachinery/pkg/util/errors` (aggregated errors) |
//! | [`sort`] | (none: a stable sort whose code the wasm modules hold once) |
//! | [`goquote`] | Go `strconv.Quote` and `encoding/json` strings, as upstream messages render values |
//! | [`gosort`] | Go `sort.Slice` (the unstable order cel-go's `sortBy` leaves equal keys in) |
//! | [`field`] | `k8s.io/apimachinery/pkg/util/validation/field` (field paths, field errors) |
//! | [`validation`] | `k8s.io/apimachinery/pkg/util/validation`, `pkg/api/validate/content` (name rules) |
//!
//! Nothing here panics on any input, and nothing grows without bound.
//!
//! ```
//! use palisade_cel_kubernetes::quantity::Quantity;
//! use palisade_cel_kubernetes::cidr::Cidr;
//! use palisade_cel_kubernetes::format::Format;
//!
//! // quantity("1.5Gi").isGreaterThan(quantity("1500M"))
//! let a = Quantity::parse("1.5Gi")?;
//! assert!(a.is_greater_than(&Quantity::parse("1500M")?));
//! assert_eq!(a.add_int(1)?.to_string(), "1610612737");
//!
//! // cidr("10.0.0.0/8").containsIP("10.1.2.3")
//! assert!(Cidr::parse("10.0.0.0/8")?.contains_ip_str("10.1.2.3")?);
//!
//! // format.dns1123Label().validate("Not_A_Label") is non-empty
//! assert!(!Format::Dns1123Label.validate("Not_A_Label").is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bigint;

pub mod authz;
pub mod cidr;
pub mod cluster;
pub mod errors;
pub mod field;
pub mod format;
pub mod goquote;
pub mod gosort;
pub mod ip;
pub mod lists;
pub mod quantity;
pub mod regex;
pub mod semver;
pub mod sets;
mod simple_case;
pub mod url;
pub mod validation;
