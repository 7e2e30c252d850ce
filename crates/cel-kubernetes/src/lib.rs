//! Kubernetes' CEL library semantics (`k8s.io/apiserver/pkg/cel/library`) as plain Rust,
//! with no CEL dependency: the evaluator (`palisade-cel`) wraps these in its own value type.
//!
//! | module | upstream |
//! |---|---|
//! | [`quantity`] | `quantity.go`, `k8s.io/apimachinery/pkg/api/resource` |
//! | [`semver`] | `semverlib.go` (`github.com/blang/semver/v4`) |
//! | [`ip`], [`cidr`] | `ip.go`, `cidr.go` (Go `net/netip`) |
//! | [`url`] | `urls.go` (Go `net/url`) |
//! | [`format`] | `format.go` (`k8s.io/apimachinery` validation, kube-openapi `strfmt`) |
//! | [`lists`], [`sets`], [`regex`] | `lists.go`, cel-go `ext/sets.go`, `regex.go` |
//! | [`authz`] | `authz.go` |
//!
//! Nothing here panics on any input, and nothing grows without bound.

mod bigint;
mod goquote;

pub mod quantity;
