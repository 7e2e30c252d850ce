//! The fuzz targets' checks, as a library: each target in `fuzz_targets/` is one line over [`checks`]. The same file is
//! included by the stable corpus replay (`host-harness/tests/fuzz_corpus.rs`), so CI checks the committed corpora
//! with exactly these assertions, without nightly or libFuzzer.

pub mod checks;
