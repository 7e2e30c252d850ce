// Runs palisade-wasi.wasm, Palisade's WASI command, in Node.js's own WASI (node:wasi, preview 1): for hosts that
// run WASI programs rather than call exports.
//
//   node examples/node/palisade-wasi.mjs validate -p BUNDLE [--context FILE] < REVIEW.json
//
// The command's arguments are passed on; the current directory is the only one it may read (as `wasmtime run --dir .`).
// Its answer is on stdout, and its exit status is the command's (0 allowed, 1 not, 2 usage).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { WASI } from 'node:wasi';

/**
 * Runs the command once: `args` after the program name, `stdin`/`stdout`/`stderr` file descriptors, `dir` the
 * directory preopened as `.` (`null`: none, as a command baked with its bundle needs). Answers the exit status.
 */
export async function runPalisadeWasi(bytes, { args, stdin = 0, stdout = 1, stderr = 2, dir = '.', env = {} }) {
  const wasi = new WASI({
    version: 'preview1',
    args: ['palisade-wasi', ...args],
    env,
    preopens: dir === null ? {} : { '.': dir },
    stdin,
    stdout,
    stderr,
    returnOnExit: true,
  });
  const module = await WebAssembly.compile(bytes);
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  return wasi.start(instance);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const wasm = new URL('../../target/wasm/palisade-wasi.wasm', import.meta.url);
  const status = await runPalisadeWasi(readFileSync(process.env.PALISADE_WASI_WASM ?? wasm), {
    args: process.argv.slice(2),
    env: process.env.PALISADE_BUNDLE ? { PALISADE_BUNDLE: process.env.PALISADE_BUNDLE } : {},
  });
  process.exitCode = status;
}
