#!/usr/bin/env node
// `npm run check:snippets`: every ```ts block of README.md and docs/*.md compiles against the
// package's own types (tsconfig paths map 'agt-mcp' to the sources). Each block is a module of
// its own; what a block leaves to the reader is declared in a `declare` line of the block itself.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = path.join(root, '.snippets');
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out);
const files = [
  'README.md',
  ...fs
    .readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
let count = 0;
for (const file of files) {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  for (const match of text.matchAll(/```ts\n([\s\S]*?)```/g)) {
    count += 1;
    const line = text.slice(0, match.index).split('\n').length + 1;
    const body = /^(import|export) /m.test(match[1]) ? match[1] : `${match[1]}\nexport {};\n`;
    fs.writeFileSync(path.join(out, `${file.replace(/[/.]/g, '_')}_L${line}.ts`), `// ${file}:${line}\n${body}`);
  }
}
fs.writeFileSync(
  path.join(out, 'tsconfig.json'),
  JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { noEmit: true }, include: ['*.ts'] }),
);
try {
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(out, 'tsconfig.json')], {
    stdio: 'inherit',
  });
  console.log(`${count} TypeScript blocks of README.md and docs/ compile`);
} catch {
  process.exitCode = 1;
} finally {
  fs.rmSync(out, { recursive: true, force: true });
}
