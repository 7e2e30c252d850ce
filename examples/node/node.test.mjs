// The Node.js hosts of this folder against the real artifacts: `palisade.mjs` (the C ABI through WebAssembly) answers
// what the harness's wasmtime host answers (`palisade eval`), and `palisade-wasi.mjs` (node:wasi) answers byte for
// byte what the C ABI answers, hostile inputs included. Run by `npm test`, after `cargo build --release -p
// palisade-harness`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { Palisade } from './palisade.mjs';
import { runPalisadeWasi } from './palisade-wasi.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const target = join(root, 'target');
const scratch = join(target, 'node-host-tests');
const palisade = join(target, 'release/palisade');
const cAbi = join(target, 'wasm/palisade.wasm');
const wasiWasm = join(target, 'wasm/palisade-wasi.wasm');
for (const needed of [palisade, cAbi, wasiWasm]) {
  assert.ok(existsSync(needed), `${needed} is missing: cargo build --release -p palisade-harness`);
}
mkdirSync(scratch, { recursive: true });

const readBundle = (path) => YAML.parse(readFileSync(join(root, path), 'utf8'));
const podReview = readFileSync(join(root, 'bench/pod-review.json'), 'utf8');
const privileged = (() => {
  const review = JSON.parse(podReview);
  review.request.object.spec.containers[0].securityContext = { privileged: true };
  return JSON.stringify(review);
})();

/** The harness's answer (wasmtime, `palisade eval`) to a review file. */
function evaluated(bundlePath, reviewPath, contextPath) {
  const args = ['eval', '-p', bundlePath, reviewPath, ...(contextPath ? ['--context', contextPath] : [])];
  const run = spawnSync(palisade, args, { cwd: root, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout);
}

/** One run of the WASI command in node:wasi: stdin from a file, stdout captured; `module` and `dir` as given. */
async function wasi(args, input, { module = wasiWasm, dir = root } = {}) {
  const inPath = join(scratch, 'stdin');
  const outPath = join(scratch, 'stdout');
  writeFileSync(inPath, input);
  const stdin = openSync(inPath, 'r');
  const stdout = openSync(outPath, 'w');
  const status = await runPalisadeWasi(readFileSync(module), { args, stdin, stdout, dir });
  closeSync(stdin);
  closeSync(stdout);
  return { status, stdout: readFileSync(outPath, 'utf8') };
}

test('the C ABI in Node answers as the harness does in wasmtime', async () => {
  const engine = await Palisade.load(readFileSync(cAbi));
  assert.deepEqual(engine.configure(readBundle('bench/pod-baseline.yaml')), { valid: true });
  assert.deepEqual(engine.validate(podReview), evaluated('bench/pod-baseline.yaml', 'bench/pod-review.json'));
  const privilegedPath = join(scratch, 'privileged.json');
  writeFileSync(privilegedPath, privileged);
  const denied = engine.validate(privileged);
  assert.equal(denied.response.allowed, false);
  assert.match(denied.response.status.message, /ValidatingAdmissionPolicy 'pod-baseline' with binding 'pod-baseline' denied request: privileged/);
  assert.deepEqual(denied, evaluated('bench/pod-baseline.yaml', privilegedPath));

  // a CertificateRequest with its context, after configure replaced the bundle
  const bundle = 'policies/cert-manager/namespaced-services/bundle.yaml';
  assert.equal(engine.configure(readBundle(bundle)).valid, true);
  const review = readFileSync(join(root, 'bench/certificate-request-review.json'), 'utf8');
  const context = readFileSync(join(root, 'bench/certificate-request-context.json'), 'utf8');
  assert.deepEqual(
    engine.validate(`{"review":${review},"context":${context}}`),
    evaluated(bundle, 'bench/certificate-request-review.json', 'bench/certificate-request-context.json'),
  );
});

test('the C ABI in Node fails closed: before configure, after a rejected bundle, on hostile input', async () => {
  const engine = await Palisade.load(readFileSync(cAbi));
  const unconfigured = engine.validate(podReview);
  assert.equal(unconfigured.response.allowed, false);
  assert.equal(unconfigured.response.status.code, 500);
  assert.equal(unconfigured.response.uid, '705ab4f5-6393-11e8-b7cc-42010a800002');
  const rejected = engine.configure({ policies: [{ kind: 'Nonsense' }] });
  assert.equal(rejected.valid, false);
  assert.ok(rejected.problems.length > 0, JSON.stringify(rejected));
  assert.equal(engine.validate(podReview).response.status.code, 500);

  assert.deepEqual(engine.configure({ policies: [] }), { valid: true });
  const hostile = join(root, 'tests/hostile');
  const files = readdirSync(hostile).filter((f) => /\.(json|txt)$/.test(f) && !f.startsWith('bundle-'));
  assert.ok(files.length >= 15, files.join(', '));
  for (const file of files) {
    const answer = JSON.parse(engine.validateBytes(readFileSync(join(hostile, file))));
    assert.equal(answer.kind, 'AdmissionReview', file);
    assert.equal(typeof answer.response.allowed, 'boolean', file);
  }
});

test('the WASI command in node:wasi answers byte for byte what the C ABI answers, and says it in its exit status', async () => {
  const engine = await Palisade.load(readFileSync(cAbi));
  engine.configure(readBundle('bench/pod-baseline.yaml'));
  const allowed = await wasi(['validate', '-p', 'bench/pod-baseline.yaml'], podReview);
  assert.equal(allowed.status, 0);
  assert.equal(allowed.stdout.trim(), engine.validateText(podReview));
  const denied = await wasi(['validate', '-p', 'bench/pod-baseline.yaml'], privileged);
  assert.equal(denied.status, 1);
  assert.equal(denied.stdout.trim(), engine.validateText(privileged));

  // hostile input: the same answer from both artifacts
  engine.configure({ policies: [] });
  writeFileSync(join(scratch, 'empty-bundle.json'), '{"policies": []}');
  const hostile = join(root, 'tests/hostile');
  for (const file of readdirSync(hostile).filter((f) => /\.(json|txt)$/.test(f) && !f.startsWith('bundle-'))) {
    const bytes = readFileSync(join(hostile, file));
    const run = await wasi(['validate', '-p', 'target/node-host-tests/empty-bundle.json'], bytes);
    assert.equal(run.stdout.trim(), engine.validateBytes(bytes), file);
  }
});

test('a WASI command baked with its bundle answers in node:wasi with no directory, as the command with the file does', async () => {
  const baked = join(scratch, 'pod-baseline-wasi.wasm');
  const bake = spawnSync(palisade, ['bake', '--wasi', '-p', 'bench/pod-baseline.yaml', '-o', baked], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(bake.status, 0, bake.stderr);
  for (const [input, status] of [[podReview, 0], [privileged, 1]]) {
    const shipped = await wasi(['validate', '-p', 'bench/pod-baseline.yaml'], input);
    const run = await wasi(['validate'], input, { module: baked, dir: null });
    assert.equal(run.status, status);
    assert.equal(run.stdout, shipped.stdout);
  }
  // the shipped command given no directory and no bundle fails closed
  const unbaked = await wasi(['validate'], podReview, { dir: null });
  assert.equal(unbaked.status, 1);
  assert.equal(JSON.parse(unbaked.stdout).response.status.code, 500);
  // a bundle file named replaces the baked one where the host gives a directory
  writeFileSync(join(scratch, 'empty-bundle.json'), '{"policies": []}');
  const replaced = await wasi(['validate', '-p', 'target/node-host-tests/empty-bundle.json'], privileged, { module: baked });
  assert.equal(replaced.status, 0, replaced.stdout);
});
