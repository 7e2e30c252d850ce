// Builds the playground into target/playground/: the page (esbuild bundle of src/main.js with CodeMirror 6 and
// `yaml`), the browser module made by `cargo build --release -p palisade-harness` (target/wasm/web/), and the
// example gallery index (examples.json) drawn from policies/ and the case files under tests/cases/.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const out = join(root, 'target/playground');
const web = join(root, 'target/wasm/web');

for (const file of ['palisade.js', 'palisade_bg.wasm']) {
  if (!existsSync(join(web, file))) {
    console.error(`error: ${relative(root, join(web, file))} is missing: run \`cargo build --release -p palisade-harness\` first`);
    process.exit(1);
  }
}
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(here, 'src/main.js')],
  bundle: true,
  format: 'esm',
  minify: true,
  target: 'es2022',
  outfile: join(out, 'app.js'),
  alias: { palisade: join(web, 'palisade.js') },
  logLevel: 'warning',
});
copyFileSync(join(web, 'palisade_bg.wasm'), join(out, 'palisade_bg.wasm'));
copyFileSync(join(here, 'index.html'), join(out, 'index.html'));
copyFileSync(join(here, 'style.css'), join(out, 'style.css'));
copyFileSync(join(here, 'sw.js'), join(out, 'sw.js'));
writeFileSync(join(out, 'examples.json'), JSON.stringify(examples()));
console.log(`built ${relative(root, out)}/ (index.html, app.js, style.css, sw.js, palisade_bg.wasm, examples.json)`);

/** The gallery: every bundle once (by path), and the case files that use them (review, context, webhook
 * configuration, title, and what the case expects, which the browser tests hold the page to). */
function examples() {
  const bundles = {};
  const items = [];
  const addBundle = (path) => {
    const key = relative(root, path);
    if (!(key in bundles)) bundles[key] = readFileSync(path, 'utf8');
    return key;
  };
  const walk = (dir) =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : name.endsWith('.yaml') ? [path] : [];
    });
  const toText = (value) => (value == null ? '' : YAML.stringify(value));
  for (const dir of ['vap', 'cert-manager', 'explain', 'foundation']) {
    for (const file of walk(join(root, 'tests/cases', dir)).sort()) {
      let doc;
      try {
        doc = YAML.parse(readFileSync(file, 'utf8'));
      } catch {
        continue;
      }
      if (!doc || typeof doc !== 'object' || !doc.expect) continue;
      const base = dirname(file);
      let bundle;
      if (typeof doc.bundle === 'string') bundle = { path: addBundle(resolve(base, doc.bundle)) };
      else if (doc.bundle) bundle = { text: toText(doc.bundle) };
      else if (doc.policies) bundle = { text: toText({ policies: doc.policies, ...(doc.params ? { params: doc.params } : {}) }) };
      else continue;
      let request = '';
      if (typeof doc.review === 'string') {
        const path = resolve(base, doc.review);
        if (!existsSync(path) || statSync(path).size > 200_000) continue;
        request = readFileSync(path, 'utf8');
      } else if (doc.review) request = JSON.stringify(doc.review, null, 2);
      const context = typeof doc.context === 'string' ? readFileSync(resolve(base, doc.context), 'utf8') : toText(doc.context);
      const webhook = typeof doc.webhook === 'string' ? readFileSync(resolve(base, doc.webhook), 'utf8') : toText(doc.webhook);
      items.push({
        id: relative(join(root, 'tests/cases'), file).replace(/\.yaml$/, ''),
        title: String(doc.name ?? relative(root, file)),
        group: dir,
        bundle,
        request,
        context,
        webhook,
        expect: doc.expect,
      });
    }
  }
  return { bundles, examples: items };
}
