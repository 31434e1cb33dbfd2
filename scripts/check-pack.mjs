#!/usr/bin/env node
// `npm run check:pack`: what ships is what is tested. Packs the package (prepack builds it),
// installs the tarball into a fresh folder as a host would, imports every entry point
// (ESM and CJS) by name and runs `agt --help` from there. Exits 1 on any failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'agt-pack-'));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
try {
  const tarball = path.join(work, JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], root))[0].filename);
  const files = run('tar', ['-tzf', tarball], work).split('\n').filter(Boolean);
  for (const needed of ['package/dist/index.js', 'package/dist/index.cjs', 'package/dist/cli.js', 'package/README.md']) {
    if (!files.includes(needed)) throw new Error(`the tarball lacks ${needed} (${files.length} files)`);
  }
  const host = path.join(work, 'host');
  fs.mkdirSync(host);
  fs.writeFileSync(path.join(host, 'package.json'), JSON.stringify({ name: 'host', private: true, type: 'module' }));
  // The entry points' light optional peers, as a host using them has them (agt-mcp/otel needs @opentelemetry/api);
  // the storage drivers and provider SDKs are loaded only when used.
  run('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', tarball, '@opentelemetry/api', 'tsx'], host);
  const entries = Object.keys(pkg.exports)
    .filter((e) => e !== './package.json')
    .map((e) => (e === '.' ? pkg.name : `${pkg.name}/${e.slice(2)}`));
  const esm = entries
    .map((e, i) => `import * as m${i} from '${e}'; if (Object.keys(m${i}).length === 0) throw new Error('${e} exports nothing');`)
    .join('\n');
  run(process.execPath, ['--input-type=module', '-e', esm], host);
  const cjs = entries.map((e) => `if (Object.keys(require('${e}')).length === 0) throw new Error('${e} exports nothing');`).join('\n');
  run(process.execPath, ['--input-type=commonjs', '-e', cjs], host);
  const help = run(path.join(host, 'node_modules', '.bin', 'agt'), ['--help'], host);
  if (!/agt mcp/.test(help)) throw new Error('agt --help printed no usage');
  const completion = run(path.join(host, 'node_modules', '.bin', 'agt'), ['completion', 'bash'], host);
  if (!/complete -o default -F _agt agt/.test(completion) || !/login logout/.test(completion))
    throw new Error('agt completion bash printed no script for every verb');
  // The examples a host developer copies, run against the installed package (no tsconfig paths here).
  for (const file of ['host.ts', 'schema-validation.ts']) fs.copyFileSync(path.join(root, 'examples', file), path.join(host, file));
  const hosted = JSON.parse(run(process.execPath, ['--import', 'tsx', 'host.ts'], host));
  if (hosted[0]?.content !== '{"sum":5}') throw new Error(`examples/host.ts printed ${JSON.stringify(hosted)}`);
  const schemas = run(
    process.execPath,
    ['--import', 'tsx', 'schema-validation.ts', path.join(root, 'test', 'fixtures', 'real-tool-schemas')],
    host,
  );
  if (!/Loaded 41 real tool schemas/.test(schemas)) throw new Error('examples/schema-validation.ts did not load the schemas');
  console.log(
    `packed ${files.length} files; installed into a fresh folder; ${entries.length} entry points import as ESM and CJS; agt --help, agt completion bash and examples/host.ts, examples/schema-validation.ts run from it`,
  );
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
