// The playground's whole state in the URL fragment: JSON, gzip (CompressionStream), base64url, versioned:
// `#v1.<base64url>`. A fragment never reaches a server.
const VERSION = 'v1';

function toBase64Url(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

/** `#v1.<base64url(gzip(JSON))>` */
export async function encodeState(state) {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return `#${VERSION}.${toBase64Url(await pipe(json, new CompressionStream('gzip')))}`;
}

/** The state of a fragment, or null when there is none; throws on a fragment that cannot be read. */
export async function decodeState(hash) {
  if (!hash || hash === '#') return null;
  const m = /^#(v\d+)\.([A-Za-z0-9_-]*)$/.exec(hash);
  if (!m) throw new Error('expected #v1.<data>');
  if (m[1] !== VERSION) throw new Error(`version ${m[1]} is not known to this playground (it reads ${VERSION})`);
  const json = await pipe(fromBase64Url(m[2]), new DecompressionStream('gzip'));
  const state = JSON.parse(new TextDecoder().decode(json));
  if (!state || typeof state !== 'object') throw new Error('not a playground state');
  return state;
}
