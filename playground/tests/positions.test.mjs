// From the engine's field paths to YAML source ranges (playground/src/positions.js), in node: no browser needed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAllDocuments } from 'yaml';
import { celPosition, locate, offsetInScalar, pathTokens } from '../src/positions.js';

const at = (text, range) => text.slice(range.from, range.to);

test('path tokens', () => {
  assert.deepEqual(pathTokens('policies[2].spec.validations[0].expression'), ['policies', 2, 'spec', 'validations', 0, 'expression']);
  assert.deepEqual(pathTokens('params[1]'), ['params', 1]);
  assert.deepEqual(pathTokens(''), []);
});

test('a stream: policies[i] is the i-th document, a List contributes its items', () => {
  const text = 'kind: A\nspec:\n  x: 1\n---\nkind: List\nitems:\n- kind: B\n  spec: {y: two}\n- kind: C\n';
  const docs = parseAllDocuments(text);
  assert.equal(at(text, locate(docs, 'policies[0].spec.x', false)), '1');
  assert.equal(at(text, locate(docs, 'policies[1].spec.y', false)), 'two');
  assert.equal(at(text, locate(docs, 'policies[2].kind', false)), 'C');
  // a field that is not written points at the deepest one that is
  assert.equal(at(text, locate(docs, 'policies[0].spec.missing.deeper', false)), 'spec');
  // a field missing from the document itself: its first key
  assert.equal(at(text, locate(docs, 'policies[0].apiVersion', false)), 'kind');
});

test('one bundle document: policies[i] is the i-th item of `policies`; keys with dots are found', () => {
  const text = 'policies:\n- kind: A\n  metadata:\n    labels:\n      kubernetes.io/metadata.name: x\nparams:\n- kind: P\n';
  const docs = parseAllDocuments(text);
  assert.equal(at(text, locate(docs, 'policies[0].metadata.labels.kubernetes.io/metadata.name', true)), 'x');
  assert.equal(at(text, locate(docs, 'params[0].kind', true)), 'P');
});

test('a CEL position inside plain, quoted and block scalars', () => {
  const text = 'a: object.x +* 2\nb: "object.y +* 2"\nc: |\n  true &&\n    object.z +* 2\n';
  const [doc] = parseAllDocuments(text);
  const node = (k) => doc.contents.get(k, true);
  assert.equal(text[offsetInScalar(text, node('a'), 1, 11)], '*');
  assert.equal(text[offsetInScalar(text, node('b'), 1, 11)], '*');
  // a block scalar's lines lose their common indentation in the expression CEL reads
  assert.equal(text[offsetInScalar(text, node('c'), 2, 13)], '*');
  assert.deepEqual(celPosition('compilation error: ERROR: <input>:2:14: Syntax error'), { line: 2, column: 14 });
  assert.equal(celPosition('no position'), null);
});
