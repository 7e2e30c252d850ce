// From the engine's field paths (`policies[2].spec.validations[0].expression`) to source ranges in the YAML the
// person wrote, through the `yaml` package's CST ranges. The engine knows documents and fields; only the page knows
// the text, so this is the one place that maps one to the other.
import { isMap, isScalar, isSeq } from 'yaml';

/** Tokens of a field path: keys and list indexes. */
export function pathTokens(path) {
  const tokens = [];
  const re = /\[(\d+)\]|\.?([^.[\]]+)/g;
  let m;
  while ((m = re.exec(path)) !== null) {
    if (m[1] !== undefined) tokens.push(Number(m[1]));
    else tokens.push(m[2]);
  }
  return tokens;
}

/**
 * Where `policies[i]` of the bundle is: which YAML document and which node inside it. The bundle is either one bundle
 * document (`policies: [...]`), or a stream of upstream objects (a `kind: List` contributes its items), as
 * `bundleFromDocuments` reads it.
 */
function policyNode(docs, index, single) {
  if (single) {
    const policies = docs[0]?.contents?.get?.('policies', true);
    return isSeq(policies) ? { doc: docs[0], node: policies.items[index] } : null;
  }
  let i = 0;
  for (const doc of docs) {
    const node = doc.contents;
    if (node == null) continue;
    if (isMap(node) && node.get('kind') === 'List' && isSeq(node.get('items', true))) {
      for (const item of node.get('items', true).items) {
        if (i++ === index) return { doc, node: item };
      }
    } else if (isSeq(node)) {
      for (const item of node.items) {
        if (i++ === index) return { doc, node: item };
      }
    } else if (i++ === index) return { doc, node };
  }
  return null;
}

/** The child of a map/seq node at a token, with the key node (maps); keys holding dots are joined greedily. */
function child(node, tokens, at) {
  const token = tokens[at];
  if (isSeq(node) && typeof token === 'number') return { node: node.items[token], used: 1 };
  if (isMap(node)) {
    for (let n = tokens.length - at; n >= 1; n--) {
      const parts = tokens.slice(at, at + n);
      if (parts.some((p) => typeof p === 'number')) continue;
      const key = parts.join('.');
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === key);
      if (pair) return { node: pair.value, key: pair.key, used: n };
    }
  }
  return null;
}

/**
 * The source range `{from, to}` of a problem's path in the bundle text, or null. A path that goes further than the
 * YAML does (a missing field) points at the deepest field that exists.
 */
export function locate(docs, path, single) {
  const tokens = pathTokens(path);
  let node;
  let key = null;
  let at = 0;
  if (tokens[0] === 'policies' && typeof tokens[1] === 'number') {
    const found = policyNode(docs, tokens[1], single);
    if (!found) return docs[0]?.contents?.range ? span(docs[0].contents.range) : null;
    node = found.node;
    at = 2;
  } else {
    node = docs[0]?.contents;
  }
  while (node && at < tokens.length) {
    const next = child(node, tokens, at);
    if (!next || !next.node) {
      if (next?.key) key = next.key;
      break;
    }
    node = next.node;
    key = next.key ?? null;
    at += next.used;
  }
  const missing = at < tokens.length;
  let target = missing && key ? key : node ?? key;
  // a field missing from a whole document (or list item): point at its first key, not at all of it
  if (missing && !key && isMap(target) && target.items[0]?.key?.range) target = target.items[0].key;
  if (!target?.range) return null;
  return { ...span(target.range), node: target };
}

function span(range) {
  return { from: range[0], to: Math.max(range[1], range[0] + 1) };
}

/**
 * The offset of line `line`, column `column` (1-based, as CEL reports `<input>:L:C`) of an expression written as the
 * YAML scalar `node` in `text`.
 */
export function offsetInScalar(text, node, line, column) {
  const [start, end] = node.range;
  const type = node.type;
  if (type === 'BLOCK_LITERAL' || type === 'BLOCK_FOLDED') {
    let pos = text.indexOf('\n', start) + 1;
    if (pos <= 0) return start;
    const indent = text.slice(pos).match(/^ */)[0].length;
    for (let l = 1; l < line; l++) {
      const nl = text.indexOf('\n', pos);
      if (nl < 0 || nl >= end) break;
      pos = nl + 1;
    }
    return Math.min(pos + indent + column - 1, end);
  }
  const quoted = type === 'QUOTE_DOUBLE' || type === 'QUOTE_SINGLE' ? 1 : 0;
  if (line <= 1) return Math.min(start + quoted + column - 1, end);
  let pos = start;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', pos);
    if (nl < 0 || nl >= end) return start;
    pos = nl + 1;
  }
  const lead = text.slice(pos).match(/^ */)[0].length;
  return Math.min(pos + lead + column - 1, end);
}

/** `<input>:L:C` in a CEL error message. */
export function celPosition(message) {
  const m = /<input>:(\d+):(\d+)/.exec(message);
  return m ? { line: Number(m[1]), column: Number(m[2]) } : null;
}
