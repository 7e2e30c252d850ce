// Browser tests of the playground: the real page (target/playground, `npm run build:playground`), served by the real
// `palisade play`, running the real engine (.wasm) in a real headless chromium (Debian's /usr/bin/chromium, through
// playwright-core). Run by `npm test`; `.ci/run` installs chromium and builds what this needs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import YAML from 'yaml';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const target = join(root, 'target');
const palisade = join(target, 'release/palisade');
const page_dir = join(target, 'playground');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

let server;
let base;
let browser;

before(async () => {
  for (const needed of [palisade, join(page_dir, 'index.html'), CHROMIUM]) {
    assert.ok(existsSync(needed), `${needed} is missing: cargo build --release -p palisade-harness && npm run build:playground; apt-get install -y chromium`);
  }
  server = spawn(palisade, ['play', '--port', '0', '--dir', page_dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  base = await new Promise((ok, fail) => {
    let seen = '';
    server.stdout.on('data', (chunk) => {
      seen += chunk;
      const m = /at (http:\/\/[^\s]+\/)/.exec(seen);
      if (m) ok(m[1]);
    });
    server.on('exit', (code) => fail(new Error(`palisade play exited with ${code}`)));
  });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close();
  server?.kill();
});

async function open(url = base) {
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  return { page, errors };
}

async function replace(page, id, text) {
  await page.click(`#${id} .cm-content`);
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function evaluate(page) {
  const before = await page.evaluate(() => document.getElementById('status').textContent);
  await page.keyboard.press('Control+Enter');
  await page.waitForFunction((b) => document.getElementById('status').textContent !== b || true, before);
  await page.waitForTimeout(150);
}

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replicas
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  variables:
  - name: wanted
    expression: object.spec.replicas
  validations:
  - expression: variables.wanted <= 3
    messageExpression: "'at most 3 replicas, not ' + string(variables.wanted)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replicas-everywhere
spec:
  policyName: replicas
  validationActions: [Deny]
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 5
`;

test('loads, shows a verdict, and fits the size budget', async () => {
  const { page, errors } = await open();
  const headline = await page.textContent('#verdict .headline');
  assert.match(headline, /Denied — 403/);
  assert.match(await page.textContent('#verdict .message'), /ValidatingAdmissionPolicy 'pod-security-baseline' with binding 'pod-security-baseline' denied request/);
  assert.deepEqual(errors, []);
  let total = 0;
  for (const file of ['index.html', 'app.js', 'style.css', 'palisade_bg.wasm', 'examples.json']) {
    total += gzipSync(readFileSync(join(page_dir, file)), { level: 9 }).length;
  }
  const ready = await page.evaluate(() => document.body.dataset.readyMs);
  console.log(`first load, gzip -9: ${(total / 1024).toFixed(0)} KiB; ready (engine loaded, first example decided) ${ready} ms after navigation`);
  assert.ok(total <= 1024 * 1024, `first load is ${total} bytes gzipped`);
  await page.context().close();
});

test('an example is picked and evaluated', async () => {
  const { page } = await open();
  await page.selectOption('#examples', 'vap/pod-security-baseline/allow-default-pod');
  await page.waitForFunction(() => document.querySelector('#verdict .headline')?.textContent === 'Allowed');
  assert.match(await page.textContent('#verdict .matched'), /pod-security-baseline\/pod-security-baseline/);
  await page.context().close();
});

test('an edited bundle and manifest: a denial with its exact message, the explain tree, a restorable link, a case file', async () => {
  const { page, errors } = await open();
  await replace(page, 'bundle', POLICY);
  await replace(page, 'request', DEPLOYMENT);
  await replace(page, 'context', '');
  await evaluate(page);
  await page.waitForFunction(() => /Denied/.test(document.querySelector('#verdict .headline')?.textContent ?? ''));
  assert.equal(
    await page.textContent('#verdict .message'),
    "ValidatingAdmissionPolicy 'replicas' with binding 'replicas-everywhere' denied request: at most 3 replicas, not 5",
  );
  // the explain tree: the policy, its binding, the variable's value, the failed validation with its cost
  const tree = await page.textContent('#trace .policy[data-name="replicas"]');
  assert.match(tree, /binding replicas-everywhere \[Deny\]/);
  assert.match(tree, /variables\.wanted object\.spec\.replicas → 5/);
  assert.match(tree, /validation 0 variables\.wanted <= 3 → falsecost \d+/);
  await page.screenshot({ path: join(target, 'playground-screenshot.png'), fullPage: false });

  // the state is in the URL fragment and comes back in a fresh page
  await page.waitForFunction(() => location.hash.startsWith('#v1.'));
  const url = page.url();
  const again = await open(url);
  assert.equal(await again.page.textContent('#verdict .message'), await page.textContent('#verdict .message'));
  assert.match(await again.page.textContent('#bundle .cm-content'), /replicas-everywhere/);
  await again.page.context().close();

  // download as case file; `palisade test` passes it
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  mkdirSync(join(target, 'playground-tests'), { recursive: true });
  const file = join(target, 'playground-tests/downloaded-case.yaml');
  await download.saveAs(file);
  const written = YAML.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(written.expect.matched, ['replicas/replicas-everywhere']);
  const run = spawnSync(palisade, ['test', file], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stdout, /1 passed, 0 failed/);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a bundle error is marked on its line, at the column CEL gives', async () => {
  const { page, errors } = await open();
  const broken = POLICY.replace('variables.wanted <= 3', 'variables.wanted <=* 3');
  await replace(page, 'bundle', broken);
  await evaluate(page);
  await page.waitForSelector('#problems li');
  const line = broken.split('\n').findIndex((l) => l.includes('<=*')) + 1;
  const problem = await page.$eval('#problems li', (li) => ({ line: li.dataset.line, text: li.textContent }));
  assert.equal(problem.line, String(line), problem.text);
  assert.match(problem.text, /policies\[0\]\.spec\.validations\[0\]\.expression: compilation error/);
  const column = broken.split('\n')[line - 1].indexOf('<=*') + 3; // the `*` CEL points at, 1-based
  assert.match(problem.text, new RegExp(`column ${column}:`));
  assert.ok(await page.$('#bundle .cm-lintRange-error'), 'a marker in the editor');
  assert.match(await page.textContent('#verdict .headline'), /does not compile/);

  // a YAML syntax error is marked too, and the page keeps working
  await replace(page, 'bundle', 'policies: [\n');
  await evaluate(page);
  await page.waitForFunction(() => /not valid YAML/.test(document.querySelector('#verdict .headline')?.textContent ?? ''));
  await replace(page, 'bundle', POLICY);
  await replace(page, 'request', DEPLOYMENT);
  await evaluate(page);
  await page.waitForFunction(() => /Denied/.test(document.querySelector('#verdict .headline')?.textContent ?? ''));
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('pod-baseline in chromium: median of many validate calls', async () => {
  const { page } = await open();
  const bundle = YAML.parseAllDocuments(readFileSync(join(root, 'bench/pod-baseline.yaml'), 'utf8')).map((d) => d.toJS());
  const review = readFileSync(join(root, 'bench/pod-review.json'), 'utf8');
  const figures = await page.evaluate(
    ({ documents, review }) => {
      const { Engine, bundleFromDocuments } = globalThis.palisade;
      const engine = new Engine(bundleFromDocuments(JSON.stringify(documents)));
      const answer = JSON.parse(engine.validate(review));
      for (let i = 0; i < 200; i++) engine.validate(review);
      // performance.now() is coarsened in the browser (100 µs without cross-origin isolation): time batches of
      // calls, and take the median of many batches
      const BATCH = 20;
      const samples = [];
      for (let i = 0; i < 300; i++) {
        const t = performance.now();
        for (let j = 0; j < BATCH; j++) engine.validate(review);
        samples.push((performance.now() - t) / BATCH);
      }
      samples.sort((a, b) => a - b);
      const median = samples[150];
      const p99 = samples[296];
      const t0 = performance.now();
      for (let i = 0; i < 2000; i++) engine.validate(review);
      const mean = (performance.now() - t0) / 2000;
      engine.free();
      return { allowed: answer.response.allowed, median, p99, mean, batches: samples.length, batch: BATCH };
    },
    { documents: bundle, review },
  );
  console.log(`pod-baseline in chromium: median ${(figures.median * 1000).toFixed(1)} µs per validate (300 batches of 20), p99 batch ${(figures.p99 * 1000).toFixed(1)} µs, mean of 2000 ${(figures.mean * 1000).toFixed(1)} µs`);
  writeFileSync(join(target, 'playground-timing.json'), JSON.stringify(figures, null, 2));
  assert.equal(typeof figures.allowed, 'boolean');
  await page.context().close();
});

test('UPDATE from a manifest and its old object; a recorded review pasted as is; an unreadable one is a 400', async () => {
  const { page, errors } = await open();
  await replace(page, 'bundle', `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-scale-up}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [apps], apiVersions: [v1], operations: [UPDATE], resources: [deployments]}
  validations:
  - expression: object.spec.replicas <= oldObject.spec.replicas
    message: scaling up needs a ticket
  auditAnnotations:
  - key: who
    valueExpression: request.userInfo.username
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: no-scale-up}
spec: {policyName: no-scale-up, validationActions: [Deny, Audit]}
`);
  await replace(page, 'request', DEPLOYMENT);
  await replace(page, 'old', DEPLOYMENT.replace('replicas: 5', 'replicas: 2'));
  await replace(page, 'context', '');
  await page.fill('#username', 'carol');
  await page.selectOption('#operation', 'UPDATE');
  await page.waitForFunction(() => /UPDATE from the manifest/.test(document.getElementById('status').textContent));
  assert.match(await page.textContent('#verdict .message'), /denied request: scaling up needs a ticket$/);
  assert.match(await page.textContent('#verdict .annotations'), /no-scale-up\/who\s*carol/);
  assert.match(await page.textContent('#verdict .annotations'), /validation_failure/);

  // a recorded AdmissionReview is sent as it is: its own uid and user
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'recorded-1', kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' }, operation: 'UPDATE', namespace: 'shop',
      userInfo: { username: 'dave' }, object: { spec: { replicas: 1 } }, oldObject: { spec: { replicas: 1 } },
    },
  };
  await replace(page, 'request', JSON.stringify(review, null, 2));
  await evaluate(page);
  await page.waitForFunction(() => document.querySelector('#verdict .headline')?.textContent === 'Allowed');
  assert.match(await page.textContent('#verdict'), /"uid": "recorded-1"/);
  assert.match(await page.textContent('#verdict .annotations'), /dave/);

  // an unreadable review is answered, as over the C ABI, with a 400 — the page carries on
  await replace(page, 'request', '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u", "operation": 5}}');
  await evaluate(page);
  await page.waitForFunction(() => /Denied — 400/.test(document.querySelector('#verdict .headline')?.textContent ?? ''));
  assert.match(await page.textContent('#verdict .message'), /request\.operation/);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a CertificateRequest example shows approver-policy\'s decision; it all keeps working offline', async () => {
  const { page, errors } = await open();
  await page.context().setOffline(true);
  await page.selectOption('#examples', 'cert-manager/namespaced-services/deny-rsa-key');
  await page.waitForFunction(() => /Denied — 403/.test(document.querySelector('#verdict .headline')?.textContent ?? ''));
  assert.match(await page.textContent('#verdict .message'), /No policy approved this request: \[namespaced-services: spec.constraints.privateKey.algorithm/);
  assert.match(await page.textContent('#trace'), /CertificateRequestPolicy: denied/);
  await page.selectOption('#examples', 'cert-manager/namespaced-services/allow-service-in-own-namespace');
  await page.waitForFunction(() => document.querySelector('#verdict .headline')?.textContent === 'Allowed');
  assert.match(await page.textContent('#trace'), /CertificateRequestPolicy: approved by /);
  assert.deepEqual(errors, []);
  await page.context().close();
});

/** Where what the page decided differs from a case file's `expect`, as `palisade test` compares them. */
function mismatches(expect, got) {
  if (!got) return ['the page decided nothing'];
  const out = [];
  const r = got.response ?? null;
  const message = got.bundleError ?? r?.status?.message;
  const check = (key, ok, seen) => {
    if (!ok) out.push(`${key}: expected ${JSON.stringify(expect[key])}, got ${JSON.stringify(seen)}`);
  };
  if (expect.bundleError !== undefined) check('bundleError', (got.bundleError !== undefined) === expect.bundleError, got.bundleError);
  if (expect.skipped !== undefined) check('skipped', (got.skipped !== undefined) === expect.skipped, got.skipped ?? r);
  if (expect.allowed !== undefined) {
    const allowed = got.skipped !== undefined ? true : r?.allowed;
    check('allowed', allowed === expect.allowed, allowed);
  }
  if (expect.code !== undefined) check('code', r?.status?.code === expect.code, r?.status?.code);
  if (expect.reason !== undefined) check('reason', r?.status?.reason === expect.reason, r?.status?.reason);
  if (expect.message !== undefined) check('message', message === expect.message, message);
  if (expect.messageContains !== undefined) {
    const parts = [expect.messageContains].flat();
    check('messageContains', typeof message === 'string' && parts.every((p) => message.includes(p)), message);
  }
  if (expect.warnings !== undefined) {
    const sorted = (list) => JSON.stringify([...(list ?? [])].sort());
    check('warnings', sorted(r?.warnings) === sorted(expect.warnings), r?.warnings);
  }
  if (expect.auditAnnotations !== undefined) {
    assert.ok(r, 'auditAnnotations need a response');
    check('auditAnnotations', JSON.stringify(Object.entries(r.auditAnnotations ?? {}).sort()) === JSON.stringify(Object.entries(expect.auditAnnotations).sort()), r.auditAnnotations);
  }
  if (expect.matched !== undefined && got.matched !== undefined) check('matched', JSON.stringify(got.matched) === JSON.stringify(expect.matched), got.matched);
  return out;
}

test('every example in the gallery decides as its case file expects, webhook configurations included', async () => {
  const { page, errors } = await open();
  const { examples } = JSON.parse(readFileSync(join(page_dir, 'examples.json'), 'utf8'));
  const webhooks = examples.filter((e) => e.webhook);
  assert.ok(webhooks.length >= 10, `${webhooks.length} webhook cases in the gallery`);
  const failures = [];
  for (const example of examples) {
    const got = await page.evaluate(async (id) => {
      await globalThis.playground.loadExample(id);
      return globalThis.playground.result();
    }, example.id);
    const wrong = mismatches(example.expect, got);
    if (wrong.length) failures.push(`${example.id}: ${wrong.join('; ')}`);
  }
  assert.deepEqual(failures, []);
  console.log(`${examples.length} gallery examples decided as their case files expect (${webhooks.length} through a webhook configuration)`);

  // a webhook example on screen: the dispatch is shown, and a skipped request says why
  await page.selectOption('#examples', 'foundation/webhook/pod-delete-is-skipped');
  await page.waitForFunction(() => /no webhook called/.test(document.querySelector('#verdict .headline')?.textContent ?? ''));
  assert.match(await page.textContent('#trace'), /did not send the request to Palisade/);
  await page.selectOption('#examples', 'foundation/webhook/dry-run-to-side-effects-unknown-is-rejected');
  await page.waitForFunction(() => /Denied — 400/.test(document.querySelector('#verdict .headline')?.textContent ?? ''));
  assert.match(await page.textContent('#verdict .webhooks'), /answered by the apiserver; no webhook called/);

  // download as case file: the webhook configuration goes with it, and `palisade test` passes it
  await page.selectOption('#examples', 'foundation/webhook/pod-create-is-sent');
  await page.waitForFunction(() => /webhooks called/.test(document.querySelector('#verdict .webhooks')?.textContent ?? ''));
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  mkdirSync(join(target, 'playground-tests'), { recursive: true });
  const file = join(target, 'playground-tests/downloaded-webhook-case.yaml');
  await download.saveAs(file);
  assert.ok(YAML.parse(readFileSync(file, 'utf8')).webhook.webhooks.length > 0);
  const run = spawnSync(palisade, ['test', file], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('after one visit, a reload works offline (the service worker keeps the page, the engine and the gallery)', async () => {
  const { page, errors } = await open();
  // the worker installed (the files cached) and controls the page
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 15_000 });
  await page.context().setOffline(true);
  // a link with the state in its fragment, reloaded offline
  await page.selectOption('#examples', 'vap/pod-security-baseline/allow-default-pod');
  await page.waitForFunction(() => document.querySelector('#verdict .headline')?.textContent === 'Allowed');
  await page.waitForFunction(() => location.hash.startsWith('#v1.'));
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 });
  assert.equal(await page.textContent('#verdict .headline'), 'Allowed');
  assert.match(await page.textContent('#verdict .matched'), /pod-security-baseline\/pod-security-baseline/);
  // the gallery came from the cache too
  await page.selectOption('#examples', 'cert-manager/namespaced-services/deny-rsa-key');
  await page.waitForFunction(() => /Denied — 403/.test(document.querySelector('#verdict .headline')?.textContent ?? ''));
  assert.deepEqual(errors, []);
  await page.context().close();
});
