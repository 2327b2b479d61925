// Copy the ES-module builds of the runtime dependencies into vendor/, so the browser
// (served by the hub at /) imports them without a bundler or a CDN.
//
//   node scripts/vendor.js          copy node_modules/... -> vendor/ (run by npm ci)
//   node scripts/vendor.js --check  exit 1 if vendor/ differs from node_modules/
//
// vendor/ is committed, so `tablehub serve` works without npm; this script keeps it
// reproducible from the pinned, locked packages.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** What to copy: vendor name -> package dir, the files/dirs with .mjs modules, licence. */
export const VENDORED = {
  msgpack: {
    pkg: 'node_modules/@msgpack/msgpack',
    modules: 'dist.esm',
    license: 'LICENSE',
  },
  'fast-json-patch': {
    pkg: 'node_modules/fast-json-patch',
    modules: '.',
    only: ['index.mjs', 'module'],
    license: 'LICENSE.txt',
  },
};

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (name.endsWith('.mjs')) yield path;
  }
}

/** [source, destination] pairs for every vendored file. */
export function plan() {
  const pairs = [];
  for (const [name, spec] of Object.entries(VENDORED)) {
    const base = join(root, spec.pkg, spec.modules);
    const roots = spec.only ? spec.only.map((p) => join(base, p)) : [base];
    for (const start of roots) {
      const list = statSync(start).isDirectory() ? [...files(start)] : [start];
      for (const src of list) pairs.push([src, join(root, 'vendor', name, relative(base, src))]);
    }
    pairs.push([join(root, spec.pkg, spec.license), join(root, 'vendor', name, 'LICENSE')]);
  }
  return pairs;
}

function check() {
  const stale = plan().filter(
    ([src, dst]) => !existsSync(dst) || !readFileSync(src).equals(readFileSync(dst)),
  );
  for (const [, dst] of stale) console.error(`vendor: ${relative(root, dst)} differs from node_modules`);
  return stale.length === 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    process.exit(check() ? 0 : 1);
  }
  for (const name of Object.keys(VENDORED)) rmSync(join(root, 'vendor', name), { recursive: true, force: true });
  for (const [src, dst] of plan()) {
    mkdirSync(dirname(dst), { recursive: true });
    cpSync(src, dst);
  }
  console.log(`vendor: ${plan().length} files copied to vendor/`);
}
