// The Palisade playground: the real engine (target/wasm/web, wasm-bindgen) in the page. This file only reads the
// editors, hands JSON to the engine, and shows what the engine answers; every decision is the engine's.
import init, { Engine, bundleFromDocuments, scaffoldReview } from 'palisade';
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { Prec } from '@codemirror/state';
import { yaml as yamlLanguage } from '@codemirror/lang-yaml';
import { setDiagnostics } from '@codemirror/lint';
import { parseAllDocuments, stringify } from 'yaml';
import { celPosition, locate, offsetInScalar } from './positions.js';
import { decodeState, encodeState } from './state.js';

const $ = (id) => document.getElementById(id);
const STATE_KEYS = ['bundle', 'request', 'old', 'context', 'webhook'];
let examples = { bundles: {}, examples: [] };
let uid = globalThis.crypto?.randomUUID?.() ?? '00000000-0000-4000-8000-000000000000';
let last = null; // what the last evaluation produced, for "download as case file"

// ---------------------------------------------------------------- editors
const run = Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (evaluate(), true) }]));
const editors = {};
for (const id of STATE_KEYS) {
  editors[id] = new EditorView({ parent: $(id), extensions: [basicSetup, yamlLanguage(), run, EditorView.lineWrapping] });
}
const text = (id) => editors[id].state.doc.toString();
function setText(id, value) {
  const view = editors[id];
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: value ?? '' } });
  view.dispatch(setDiagnostics(view.state, []));
}
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
    e.preventDefault();
    evaluate();
  }
});

// ---------------------------------------------------------------- state in the URL fragment
function currentState() {
  return {
    bundle: text('bundle'),
    request: text('request'),
    old: text('old'),
    context: text('context'),
    webhook: text('webhook'),
    operation: $('operation').value,
    username: $('username').value,
    groups: $('groups').value,
    uid,
  };
}
function applyState(s) {
  for (const id of STATE_KEYS) setText(id, s[id] ?? '');
  $('operation').value = s.operation ?? 'CREATE';
  $('username').value = s.username ?? 'kubernetes-admin';
  $('groups').value = s.groups ?? 'system:masters, system:authenticated';
  if (s.uid) uid = s.uid;
}
async function saveState() {
  const hash = await encodeState(currentState());
  history.replaceState(null, '', `${location.pathname}${location.search}${hash}`);
}

// ---------------------------------------------------------------- evaluation
function status(message) {
  $('status').textContent = message;
}

function parseYaml(id, problems) {
  const docs = parseAllDocuments(text(id));
  const list = Array.isArray(docs) ? docs : [];
  for (const doc of list) {
    for (const error of doc.errors) {
      problems.push({ editor: id, from: error.pos[0], to: error.pos[1], severity: 'error', message: `YAML: ${error.message}` });
    }
  }
  return list;
}

/** One JSON/YAML document from an editor, or null when empty. */
function single(id, problems) {
  const docs = parseYaml(id, problems).filter((d) => d.contents != null);
  if (docs.length > 1) {
    const d = docs[1];
    problems.push({ editor: id, from: d.range[0], to: d.range[1], severity: 'error', message: 'expected one document' });
  }
  return docs.length ? docs[0].toJS({ maxAliasCount: 1000 }) : null;
}

/** Markers for the engine's problems (`{path, message}`), placed at their field in the bundle YAML. */
function bundleMarkers(problems, found, docs, singleDocument, severity) {
  const source = text('bundle');
  for (const p of found) {
    const at = locate(docs, p.path ?? '', singleDocument);
    let from = at?.from ?? 0;
    let to = at?.to ?? Math.min(1, source.length);
    const cel = celPosition(p.message);
    if (cel && at?.node?.range && 'value' in at.node) {
      from = offsetInScalar(source, at.node, cel.line, cel.column);
      to = Math.min(from + 1, source.length);
    }
    const message = `${p.path ? `${p.path}: ` : ''}${p.message}${p.help ? ` (help: ${p.help})` : ''}`;
    problems.push({ editor: 'bundle', from, to, severity, message });
  }
}

function showProblems(problems) {
  const list = $('problems');
  list.replaceChildren();
  for (const id of STATE_KEYS) {
    const view = editors[id];
    const length = view.state.doc.length;
    const mine = problems
      .filter((p) => p.editor === id)
      .map((p) => ({ from: Math.min(p.from, length), to: Math.min(Math.max(p.to, p.from), length), severity: p.severity, message: p.message }));
    view.dispatch(setDiagnostics(view.state, mine));
  }
  for (const p of problems) {
    const view = editors[p.editor];
    const line = view.state.doc.lineAt(Math.min(p.from, view.state.doc.length));
    const li = document.createElement('li');
    li.className = p.severity;
    li.dataset.line = String(line.number);
    li.textContent = `${p.editor} line ${line.number}, column ${p.from - line.from + 1}: ${p.message}`;
    li.addEventListener('click', () => {
      view.dispatch({ selection: { anchor: Math.min(p.from, view.state.doc.length) }, scrollIntoView: true });
      view.focus();
    });
    list.append(li);
  }
}

async function evaluate() {
  try {
    await evaluateUnguarded();
  } catch (e) {
    // the page never dies on input: anything unforeseen is shown as what it is
    renderVerdictError('The playground could not evaluate this input', String(e?.stack ?? e));
  }
  await saveState().catch(() => {});
}

async function evaluateUnguarded() {
  const problems = [];
  last = null;
  const docs = parseYaml('bundle', problems);
  if (problems.length) {
    showProblems(problems);
    renderVerdictError('The bundle is not valid YAML', problems.map((p) => p.message).join('\n'));
    return;
  }
  const values = docs.filter((d) => d.contents != null).map((d) => d.toJS({ maxAliasCount: 1000 }));
  const bundleJson = bundleFromDocuments(JSON.stringify(values));
  // a single bundle document (`policies: [...]`) is taken as it is; anything else is a stream of objects
  const singleDocument = values.length === 1 && JSON.stringify(values[0]) === bundleJson;
  const contentDocs = docs.filter((d) => d.contents != null);
  let engine;
  try {
    engine = new Engine(bundleJson);
  } catch (e) {
    let answer;
    try {
      answer = JSON.parse(e.message);
    } catch {
      answer = { message: String(e.message ?? e), problems: [] };
    }
    bundleMarkers(problems, answer.problems ?? [], contentDocs, singleDocument, 'error');
    showProblems(problems);
    last = { bundle: JSON.parse(bundleJson), bundleError: answer.message };
    renderBundleError(answer);
    $('trace').replaceChildren();
    status('the bundle does not compile');
    return;
  }
  try {
    bundleMarkers(problems, JSON.parse(engine.diagnostics()), contentDocs, singleDocument, 'warning');
    const request = single('request', problems);
    const old = single('old', problems);
    const context = single('context', problems);
    const webhook = parseYaml('webhook', problems).filter((d) => d.contents != null).map((d) => d.toJS({ maxAliasCount: 1000 }));
    if (problems.some((p) => p.severity === 'error')) {
      showProblems(problems);
      renderVerdictError('The request, old object, context or webhook is not valid YAML', problems.map((p) => p.message).join('\n'));
      return;
    }
    if (request == null || typeof request !== 'object') {
      showProblems(problems);
      renderVerdictError('No request', 'Write a manifest (e.g. a Pod) or paste a recorded AdmissionReview.');
      return;
    }
    let review = request;
    const recorded = request.kind === 'AdmissionReview' || 'request' in request || 'review' in request;
    $('manifest-options').classList.toggle('disabled', recorded);
    if (!recorded) {
      const user = {
        username: $('username').value.trim(),
        groups: $('groups').value.split(',').map((g) => g.trim()).filter(Boolean),
      };
      try {
        review = JSON.parse(
          scaffoldReview(JSON.stringify(request), $('operation').value, old == null ? '' : JSON.stringify(old), JSON.stringify(user), uid),
        );
      } catch (e) {
        showProblems(problems);
        renderVerdictError('Cannot make an AdmissionReview from this manifest', String(e.message ?? e));
        return;
      }
    }
    showProblems(problems);
    const input = JSON.stringify(context == null ? review : { review, context });
    const started = performance.now();
    // with a ValidatingWebhookConfiguration, the request goes through kube-apiserver's dispatch (the engine's)
    const dispatched = webhook.length
      ? JSON.parse(engine.dispatchWebhook(JSON.stringify(webhook), JSON.stringify(review), context == null ? '' : JSON.stringify(context)))
      : null;
    if (dispatched?.error !== undefined) {
      renderVerdictError('The webhook configuration cannot be applied', dispatched.error);
      return;
    }
    const answer = dispatched ? (dispatched.response ? { response: dispatched.response } : null) : JSON.parse(engine.validate(input));
    const elapsed = performance.now() - started;
    const trace = JSON.parse(engine.explain(input));
    last = { bundle: JSON.parse(bundleJson), review, context, answer, trace, dispatched };
    const source = recorded ? 'recorded AdmissionReview' : `${$('operation').value} from the manifest`;
    if (dispatched && !dispatched.called.length) {
      renderSkipped(dispatched);
      $('trace').replaceChildren(el('div', { class: 'no' }, 'The webhook configuration did not send the request to Palisade.'));
    } else {
      renderVerdict(answer, trace, dispatched);
      renderTrace(trace);
    }
    status(`${source}${dispatched ? ' · through the webhook configuration' : ''} · decided in ${elapsed.toFixed(2)} ms`);
  } finally {
    engine.free();
  }
}

// ---------------------------------------------------------------- rendering
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) if (c != null) node.append(c instanceof Node ? c : String(c));
  return node;
}

function renderVerdictError(title, detail) {
  $('verdict').className = 'verdict denied';
  $('verdict').replaceChildren(el('div', { class: 'headline' }, title), el('pre', { class: 'message' }, detail));
  $('trace').replaceChildren();
  status(title);
}

function renderBundleError(answer) {
  const list = el('ul');
  for (const p of answer.problems ?? []) list.append(el('li', {}, `${p.path ? `${p.path}: ` : ''}${p.message}`));
  $('verdict').className = 'verdict denied';
  $('verdict').replaceChildren(
    el('div', { class: 'headline' }, 'The bundle does not compile'),
    el('pre', { class: 'message' }, answer.message ?? ''),
    list,
  );
}

/** No webhook was called (`skipped`), or the apiserver answered before calling one (a dryRun rejection). */
function renderSkipped(dispatched) {
  if (dispatched.response) {
    renderVerdict({ response: dispatched.response }, { matched: [] }, dispatched);
    return;
  }
  $('verdict').className = 'verdict allowed';
  $('verdict').replaceChildren(
    el('div', { class: 'headline', 'data-allowed': 'true' }, 'Allowed — no webhook called'),
    el('pre', { class: 'message' }, dispatched.skipped),
  );
}

function renderVerdict(answer, trace, dispatched = null) {
  const r = answer.response ?? {};
  const box = $('verdict');
  box.className = `verdict ${r.allowed ? 'allowed' : 'denied'}`;
  const parts = [
    el('div', { class: 'headline', 'data-allowed': String(!!r.allowed) },
      r.allowed ? 'Allowed' : `Denied${r.status?.code ? ` — ${r.status.code}${r.status.reason ? ` ${r.status.reason}` : ''}` : ''}`),
  ];
  if (r.status?.message) parts.push(el('pre', { class: 'message' }, r.status.message));
  if (r.warnings?.length) {
    parts.push(el('h3', {}, 'Warnings'), el('ul', { class: 'warnings' }, ...r.warnings.map((w) => el('li', {}, w))));
  }
  const annotations = Object.entries(r.auditAnnotations ?? {});
  if (annotations.length) {
    parts.push(el('h3', {}, 'Audit annotations'),
      el('table', { class: 'annotations' }, ...annotations.map(([k, v]) => el('tr', {}, el('td', {}, el('code', {}, k)), el('td', {}, v)))));
  }
  if (dispatched) {
    const by = dispatched.called.length ? `webhooks called: ${dispatched.called.join(', ')}` : 'answered by the apiserver; no webhook called';
    parts.push(el('div', { class: 'webhooks' }, `Through the webhook configuration: ${by}`));
  }
  parts.push(el('div', { class: 'matched' }, `Matched bindings: ${trace.matched?.length ? trace.matched.join(', ') : 'none'}`));
  parts.push(el('details', {}, el('summary', {}, 'AdmissionReview answer'), el('pre', {}, JSON.stringify(answer, null, 2))));
  box.replaceChildren(...parts);
}

const SKIP = {
  exempt: 'exempt: requests on admission policies are never sent to policies',
  noBinding: 'no binding names this policy',
  rules: 'no resourceRules entry matches',
  excludeResourceRules: 'an excludeResourceRules entry matches',
  namespaceSelector: 'the namespaceSelector does not match the namespace',
  objectSelector: 'the objectSelector does not match the object',
  matchConditions: 'a matchCondition is false',
  noParams: 'no params selected (parameterNotFoundAction: Allow)',
};

function value(v) {
  return v === undefined ? '' : JSON.stringify(v);
}

function expression(label, e) {
  const line = el('div', { class: 'expr' },
    label ? el('b', {}, `${label} `) : null,
    el('code', {}, e.expression),
    ' → ',
    e.error ? el('span', { class: 'bad' }, `error: ${e.error}`) : el('code', {}, value(e.value)),
    el('span', { class: 'cost' }, `cost ${e.cost}`));
  return line;
}

function renderTrace(trace) {
  const root = $('trace');
  const nodes = [];
  if (trace.error) nodes.push(el('div', { class: 'bad' }, trace.error));
  if (trace.exempt) nodes.push(el('div', { class: 'no' }, trace.exempt));
  for (const p of trace.policies ?? []) {
    const head = p.matched
      ? el('span', { class: p.error ? 'bad' : 'yes' }, `✔ ValidatingAdmissionPolicy ${p.name}${p.error ? ` — ${p.error}` : ''}`)
      : el('span', { class: 'no' }, `✘ ValidatingAdmissionPolicy ${p.name} — ${SKIP[p.skipped] ?? p.skipped}`);
    const policy = el('details', { class: 'policy', 'data-name': p.name }, el('summary', {}, head));
    if (p.matched) policy.open = true;
    for (const b of p.bindings) {
      const bhead = b.matched
        ? el('span', { class: b.error ? 'bad' : 'yes' }, `✔ binding ${b.name} [${b.validationActions.join(', ')}]${b.error ? ` — ${b.error}` : ''}`)
        : el('span', { class: 'no' }, `✘ binding ${b.name} — ${SKIP[b.skipped] ?? b.skipped}`);
      const binding = el('details', { class: 'binding', 'data-name': b.name }, el('summary', {}, bhead));
      if (b.matched) binding.open = true;
      for (const e of b.evaluations) {
        const cost = e.cost + e.matchConditions.reduce((n, x) => n + x.cost, 0);
        const evaluation = el('details', { class: 'evaluation' },
          el('summary', {}, `${e.param ? `param ${e.param.namespace ? `${e.param.namespace}/` : ''}${e.param.name} (${e.param.kind})` : 'evaluation'}`,
            el('span', { class: 'cost' }, `total cost ${cost}`)));
        evaluation.open = true;
        if (!e.matched) evaluation.append(el('div', { class: 'no' }, 'a matchCondition is false: nothing else was evaluated'));
        for (const m of e.matchConditions) evaluation.append(expression(`matchCondition ${m.name}`, m));
        if (e.error) evaluation.append(el('div', { class: 'bad' }, e.error));
        for (const v of e.variables) evaluation.append(expression(`variables.${v.name}`, v));
        e.validations.forEach((v, i) => {
          const row = expression(`validation ${i}`, v);
          row.classList.add(`outcome-${v.outcome}`);
          row.prepend(el('span', { class: v.outcome === 'pass' ? 'yes' : 'bad' }, v.outcome === 'pass' ? '✔ ' : '✘ '));
          evaluation.append(row);
          if (v.messageExpression) evaluation.append(expression('  messageExpression', v.messageExpression));
          if (v.message) evaluation.append(el('pre', {}, v.message));
        });
        for (const a of e.auditAnnotations) evaluation.append(expression(`auditAnnotation ${a.name}`, a));
        binding.append(evaluation);
      }
      policy.append(binding);
    }
    nodes.push(policy);
  }
  if (trace.certificateRequest) {
    const c = trace.certificateRequest;
    nodes.push(el('div', { class: c.decision === 'approved' ? 'yes' : 'bad' },
      `CertificateRequestPolicy: ${c.decision}${c.policy ? ` by ${c.policy}` : ''}${c.message ? ` — ${c.message}` : ''}`));
  }
  if (!nodes.length) nodes.push(el('div', { class: 'no' }, 'No ValidatingAdmissionPolicy in the bundle.'));
  root.replaceChildren(...nodes);
}

// ---------------------------------------------------------------- case file
function caseFile() {
  if (!last) return null;
  const doc = { name: 'made in the Palisade playground', bundle: last.bundle };
  if (last.bundleError !== undefined) {
    doc.expect = { bundleError: true, messageContains: last.bundleError };
    return stringify(doc, { lineWidth: 0 });
  }
  doc.review = last.review;
  if (last.context != null) doc.context = last.context;
  if (last.dispatched) doc.webhook = last.dispatched.configuration;
  if (last.dispatched?.skipped !== undefined) {
    doc.expect = { skipped: true };
    return stringify(doc, { lineWidth: 0 });
  }
  const r = last.answer?.response ?? {};
  const expect = { allowed: r.allowed };
  if (r.status?.code !== undefined) expect.code = r.status.code;
  if (r.status?.message !== undefined) expect.message = r.status.message;
  if (r.warnings?.length) expect.warnings = r.warnings;
  if (r.auditAnnotations && Object.keys(r.auditAnnotations).length) expect.auditAnnotations = r.auditAnnotations;
  expect.matched = last.trace.matched ?? [];
  doc.expect = expect;
  return stringify(doc, { lineWidth: 0 });
}

$('download').addEventListener('click', async () => {
  if (!last) await evaluate();
  const body = caseFile();
  if (!body) return;
  const a = el('a', { href: URL.createObjectURL(new Blob([body], { type: 'application/yaml' })), download: 'palisade-case.yaml' });
  document.body.append(a);
  a.click();
  a.remove();
});

$('share').addEventListener('click', async () => {
  await saveState();
  try {
    await navigator.clipboard.writeText(location.href);
    status('link copied');
  } catch {
    status('the link is in the address bar');
  }
});

$('evaluate').addEventListener('click', () => evaluate());
for (const id of ['operation']) $(id).addEventListener('change', () => evaluate());

// ---------------------------------------------------------------- examples
async function loadExample(id) {
  const example = examples.examples.find((e) => e.id === id);
  if (!example) return;
  const bundle = example.bundle.path ? examples.bundles[example.bundle.path] : example.bundle.text;
  applyState({ bundle, request: example.request, old: '', context: example.context, webhook: example.webhook, operation: 'CREATE', uid });
  await evaluate();
}

/** What the last evaluation decided, as a case file's `expect` speaks of it (for the browser tests). */
function result() {
  if (!last) return null;
  if (last.bundleError !== undefined) return { bundleError: last.bundleError };
  if (last.dispatched?.skipped !== undefined) return { skipped: last.dispatched.skipped };
  return { response: last.answer?.response ?? null, matched: last.trace?.matched ?? [] };
}

function fillExamples() {
  const select = $('examples');
  const groups = new Map();
  for (const e of examples.examples) {
    if (!groups.has(e.group)) groups.set(e.group, el('optgroup', { label: e.group }));
    groups.get(e.group).append(el('option', { value: e.id }, e.title));
  }
  select.append(...groups.values());
  select.addEventListener('change', () => loadExample(select.value));
}

// ---------------------------------------------------------------- start
async function start() {
  // a service worker keeps the page's files, so that a reload works offline (sw.js); a page without one still works
  navigator.serviceWorker?.register('sw.js').catch(() => {});
  status('loading the engine…');
  await init({ module_or_path: new URL('palisade_bg.wasm', document.baseURI) });
  globalThis.palisade = { Engine, scaffoldReview, bundleFromDocuments };
  globalThis.playground = { loadExample, result };
  try {
    examples = await (await fetch('examples.json')).json();
    fillExamples();
  } catch {
    status('no example index');
  }
  const restored = await decodeState(location.hash).catch((e) => {
    status(`the link cannot be read: ${e.message}`);
    return null;
  });
  if (restored) {
    applyState(restored);
    await evaluate();
  } else {
    loadExample(examples.examples.find((e) => e.id.endsWith('deny-capability-sys-admin'))?.id ?? examples.examples[0]?.id);
  }
  document.body.dataset.readyMs = performance.now().toFixed(0);
  document.body.dataset.ready = 'true';
}

start().catch((e) => renderVerdictError('The engine could not be loaded', String(e?.stack ?? e)));
