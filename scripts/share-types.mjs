#!/usr/bin/env node
// After `tsup`: one set of declarations for both module formats. tsup writes the same types twice — `.d.ts` for
// `import`, `.d.cts` for `require` (each with its own chunks) — a quarter of the package. Each entry's `.d.ts`
// becomes `export * from './<entry>.cjs'` (TypeScript reads `<entry>.d.cts` for it, in ESM and in CJS alike: the
// format of a declaration file follows its extension, and an ES module may import a CommonJS one), and the `.d.ts`
// chunks go. `npm run check:package` (publint, arethetypeswrong) checks every entry resolves in both.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const entries = Object.values(pkg.exports)
  .filter((e) => typeof e === 'object' && e.import?.types !== undefined)
  .map((e) => ({ esm: path.join(root, e.import.types), cjs: path.join(root, e.require.types) }));
for (const { esm, cjs } of entries) {
  if (!fs.existsSync(cjs)) throw new Error(`share-types: ${path.relative(root, cjs)} is missing: run tsup first`);
  const target = `./${path.basename(cjs).replace(/\.d\.cts$/, '.cjs')}`;
  fs.writeFileSync(esm, `export * from '${target}';\n`);
}
const kept = new Set(entries.map((e) => path.basename(e.esm)));
for (const file of fs.readdirSync(dist)) if (file.endsWith('.d.ts') && !kept.has(file)) fs.rmSync(path.join(dist, file));
