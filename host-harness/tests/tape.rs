//! The review read from its tape (the fast way in) against serde_json's reading, on every input the project keeps:
//! each case file's `validate` input as the harness encodes it, and the hostile inputs. Whatever the tape reads, serde
//! reads to the same value (`palisade::api::check_tape_reading`); and the tape does read the well-formed reviews (so
//! the fast path is the one taken, not a fallback every time). The fuzz corpus goes through the same check in
//! `fuzz_corpus.rs`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "integration tests fail loudly, helpers included"
)]

mod common;

use palisade_harness::case::Case;
use palisade_harness::host::validate_input;
use palisade_harness::runner::discover;

#[test]
fn the_tape_reads_every_case_input_as_serde_json_does() {
    let files = discover(&[common::workspace().join("tests/cases")]).unwrap();
    let (mut inputs, mut read) = (0, 0);
    for file in files {
        let Ok(case) = Case::load(&file) else {
            continue;
        };
        let Some(review) = &case.review else {
            continue;
        };
        let input = validate_input(review, case.context.as_ref()).unwrap();
        inputs += 1;
        match palisade::api::check_tape_reading(&input) {
            Ok(true) => read += 1,
            Ok(false) => {}
            Err(e) => panic!("{}: {e}", file.display()),
        }
    }
    assert!(inputs > 250, "only {inputs} case inputs found");
    // the reviews that are not read from the tape are the malformed ones the cases are about
    assert!(
        read * 10 >= inputs * 9,
        "{read} of {inputs} read from the tape"
    );
}

#[test]
fn the_tape_reads_the_hostile_inputs_as_serde_json_does() {
    let dir = common::workspace().join("tests/hostile");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            let input = std::fs::read(&path).unwrap();
            if let Err(e) = palisade::api::check_tape_reading(&input) {
                panic!("{}: {e}", path.display());
            }
        }
    }
}
