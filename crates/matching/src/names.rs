//! The API server's name checks that are not in `palisade-cel-kubernetes`'s `format` module
//! (which this crate uses for `IsDNS1123Subdomain`, `IsDNS1035Label`, `IsLabelKey` and
//! `IsLabelValue`), returning upstream's messages so bundle errors read as `kubectl apply` would.

/// `path.ValidatePathSegmentName(name, false)`.
pub(crate) fn path_segment_name_errors(name: &str) -> Vec<String> {
    for bad in [".", ".."] {
        if name == bad {
            return vec![format!("may not be '{bad}'")];
        }
    }
    let mut errs = Vec::new();
    for bad in ["/", "%"] {
        if name.contains(bad) {
            errs.push(format!("may not contain '{bad}'"));
        }
    }
    errs
}
