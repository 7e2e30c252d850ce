//! The committed fuzz corpora (`fuzz/corpus/<target>/`), replayed on stable: every file goes through the very check
//! its libFuzzer target runs (`fuzz/src/checks.rs`, included below), so CI keeps every seed and every minimised
//! finding passing without nightly or libFuzzer. `differential` runs against the built `palisade.wasm`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

#[path = "../../fuzz/src/checks.rs"]
mod checks;

use std::path::{Path, PathBuf};

fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let files = corpus(target);
    assert!(!files.is_empty(), "the {target} corpus is empty");
    for file in &files {
        let data = std::fs::read(file).unwrap();
        let outcome = std::panic::catch_unwind(|| checks::check(target, &data));
        assert!(
            outcome.is_ok(),
            "{target}: {} fails its check (reproduce: cd fuzz && cargo +nightly fuzz run {target} {})",
            file.display(),
            file.display()
        );
    }
}

#[test]
fn every_target_has_a_corpus_and_nothing_else_is_there() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    let mut dirs: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut targets: Vec<String> = checks::TARGETS.iter().map(|t| t.to_string()).collect();
    targets.sort();
    assert_eq!(dirs, targets);
}

#[test]
fn review_reader_corpus() {
    replay("review_reader");
}

#[test]
fn bundle_json_corpus() {
    replay("bundle_json");
}

#[test]
fn bundle_yaml_corpus() {
    replay("bundle_yaml");
}

#[test]
fn csr_decoder_corpus() {
    replay("csr_decoder");
}

#[test]
fn cel_corpus() {
    replay("cel");
}

#[test]
fn api_corpus() {
    replay("api");
}

#[test]
fn differential_corpus() {
    replay("differential");
}

#[test]
fn webhook_corpus() {
    replay("webhook");
}

#[test]
fn kubewarden_corpus() {
    replay("kubewarden");
}
