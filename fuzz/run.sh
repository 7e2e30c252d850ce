#!/usr/bin/env bash
# Runs one fuzz target for SECONDS (default 600) in one process, as the fuzzing table in fuzz/README.md was measured:
#   fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
# libFuzzer writes what it finds into fuzz/corpus-work/TARGET (ignored by git) and reads the committed seeds from
# fuzz/corpus/TARGET; a crash lands in fuzz/artifacts/TARGET/. Needs nightly and cargo-fuzz
# (cargo +nightly install cargo-fuzz --locked) and, for `differential` and `kubewarden`, target/wasm/palisade.wasm and
# palisade-kubewarden.wasm (cargo build --release -p palisade-harness).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: fuzz/run.sh TARGET [SECONDS] [libFuzzer flags...]}
seconds=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))
case $target in
  cel) dict=fuzz/dict/cel.dict ;;
  csr_decoder|api) dict= ;;
  *) dict=fuzz/dict/json.dict ;;
esac
fuzz=$PWD/fuzz
mkdir -p "$fuzz/corpus-work/$target" "$fuzz/logs/$target" "$fuzz/artifacts/$target"
# The harness's build script would rebuild target/wasm/*.wasm with the fuzzing flags: keep the release artifacts.
export PALISADE_SKIP_WASM_BUILD=1
# With -jobs=1 -workers=1 libFuzzer runs the one fuzzing process as a child that logs to ./fuzz-0.log: run it from
# fuzz/logs/TARGET, so the log (with the final stats) is fuzz/logs/TARGET/fuzz-0.log.
cd "$fuzz/logs/$target"
status=0
nice -n 19 cargo +nightly fuzz run --fuzz-dir "$fuzz" -s none --codegen-units 16 "$target" \
  "$fuzz/corpus-work/$target" "$fuzz/corpus/$target" -- \
  -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
  -artifact_prefix="$fuzz/artifacts/$target/" \
  -jobs=1 -workers=1 -print_final_stats=1 ${dict:+-dict=$fuzz/${dict#fuzz/}} "$@" || status=$?
tail -n 20 fuzz-0.log
exit $status
