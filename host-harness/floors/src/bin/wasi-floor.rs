//! The WASI floor of `palisade bench --wasi` (feature `scan`): a WASI command that does the least a `validate` run
//! needs, whatever its arguments: it reads the review on stdin, answers it as the scan floor does (every byte
//! validated once, `request.uid` and `apiVersion` echoed, `allowed: true`) on one line of stdout, and exits 0.
//!
//! The floor's code is the library's source, compiled into the command: linking the library as an `rlib` as well
//! would change how its `cdylib` floors are built (larger), and they are the other modes' measuring sticks.
use std::io::{Read as _, Write as _};

#[path = "../lib.rs"]
mod floors;

fn main() {
    let mut input = Vec::new();
    let _read = std::io::stdin().lock().read_to_end(&mut input);
    let mut out = floors::answer_review(&input);
    out.push(b'\n');
    let _written = std::io::stdout().lock().write_all(&out);
}
