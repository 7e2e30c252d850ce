// A host for palisade.wasm, Palisade's import-free C ABI, in plain Node.js (no dependencies): what any Wasm host
// does to run it. The ABI: `palisade_alloc(len) -> ptr`, `palisade_free(ptr, len)`, `configure(ptr, len) -> i64`,
// `validate(ptr, len) -> i64`, each i64 packing `(ptr << 32) | len` of a UTF-8 JSON answer; the host frees its
// input and the answer after every call.
//
//   node examples/node/palisade.mjs BUNDLE.json REVIEW.json [CONTEXT.json]
//
// prints the AdmissionReview answer. As a library:
//
//   const engine = await Palisade.load(readFileSync('target/wasm/palisade.wasm'));
//   engine.configure(bundle);               // {valid: true} or {valid: false, message, problems}
//   const answer = engine.validate(review); // the AdmissionReview answer
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const EXPORTS = ['memory', 'palisade_alloc', 'palisade_free', 'configure', 'validate'];

export class Palisade {
  #module;
  #instance;

  /** Compiles the module (once per process) and makes an instance of it. */
  static async load(bytes) {
    const module = await WebAssembly.compile(bytes);
    const missing = EXPORTS.filter((name) => !WebAssembly.Module.exports(module).some((e) => e.name === name));
    if (missing.length) throw new Error(`not a Palisade C ABI module: no export ${missing.join(', ')}`);
    if (WebAssembly.Module.imports(module).length) throw new Error('the C ABI module must import nothing');
    return new Palisade(module);
  }

  constructor(module) {
    this.#module = module;
    this.#instance = new WebAssembly.Instance(module, {});
  }

  /** A fresh instance of the same module: what a trap leaves behind is never used again. */
  fresh() {
    return new Palisade(this.#module);
  }

  /** Compiles a bundle (an object, or its JSON); a successful call replaces the bundle. */
  configure(bundle) {
    const text = typeof bundle === 'string' ? bundle : JSON.stringify(bundle);
    return JSON.parse(this.#call('configure', new TextEncoder().encode(text)));
  }

  /**
   * Decides an AdmissionReview, or `{review, context}` (an object, or its JSON text: the bytes are sent as they are,
   * so a malformed review is answered 400 by the module). Before a successful `configure`, the answer is 500.
   */
  validate(input) {
    return JSON.parse(this.validateText(typeof input === 'string' ? input : JSON.stringify(input)));
  }

  /** `validate` on text, answering the module's JSON text unchanged. */
  validateText(input) {
    return this.#call('validate', new TextEncoder().encode(input));
  }

  /** `validate` on bytes as they came (e.g. a request body), answering the module's JSON text unchanged. */
  validateBytes(input) {
    return this.#call('validate', input);
  }

  #call(entry, input) {
    const exports = this.#instance.exports;
    const ptr = exports.palisade_alloc(input.length);
    // the memory may have grown (a new ArrayBuffer) during any call: take a fresh view every time
    new Uint8Array(exports.memory.buffer, ptr, input.length).set(input);
    const packed = BigInt.asUintN(64, exports[entry](ptr, input.length));
    const outPtr = Number(packed >> 32n);
    const outLen = Number(packed & 0xffffffffn);
    const answer = new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array(exports.memory.buffer, outPtr, outLen));
    exports.palisade_free(ptr, input.length);
    exports.palisade_free(outPtr, outLen);
    return answer;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [bundlePath, reviewPath, contextPath] = process.argv.slice(2);
  if (!bundlePath || !reviewPath) {
    console.error('usage: node examples/node/palisade.mjs BUNDLE.json REVIEW.json [CONTEXT.json]');
    process.exit(2);
  }
  const wasm = new URL('../../target/wasm/palisade.wasm', import.meta.url);
  const engine = await Palisade.load(readFileSync(process.env.PALISADE_WASM ?? wasm));
  const configured = engine.configure(readFileSync(bundlePath, 'utf8'));
  if (!configured.valid) {
    console.error(JSON.stringify(configured, null, 2));
    process.exit(1);
  }
  let input = readFileSync(reviewPath, 'utf8');
  if (contextPath) input = `{"review":${input},"context":${readFileSync(contextPath, 'utf8')}}`;
  const answer = engine.validate(input);
  console.log(JSON.stringify(answer, null, 2));
  process.exit(answer.response?.allowed ? 0 : 1);
}
