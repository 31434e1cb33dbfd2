import { defineConfig } from 'tsup';

// The public entry points; subpaths are added here and in package.json "exports" as they land.
const entry = {
  index: 'src/index.ts',
  adapters: 'src/adapters.ts',
  config: 'src/config.ts',
  authoring: 'src/authoring/index.ts',
  openai: 'src/providers/openai/index.ts',
  anthropic: 'src/providers/anthropic/index.ts',
  'ai-sdk': 'src/providers/ai-sdk/index.ts',
  otel: 'src/otel/index.ts',
  postgres: 'src/storage/postgres.ts',
  sqlite: 'src/storage/sqlite.ts',
  testing: 'src/testing/index.ts',
  apps: 'src/apps/index.ts',
};

// No source maps: the built code is not minified (names, structure and line breaks as written, so a stack trace
// or a debugger reads it as it is), and maps with the sources in them were two thirds of the package (issue 50).
const common = { target: 'node20', platform: 'node', splitting: true, treeshake: true, sourcemap: false } as const;

export default defineConfig([
  // ESM: the entry points, the agt bin and the fixture server of agt-mcp/testing (fixtureServer() starts
  // dist/fixture-server.js) in one build, so the programs share their chunks with the library.
  {
    ...common,
    entry: { ...entry, cli: 'src/cli/bin.ts', 'fixture-server': 'src/testing/fixture-server.ts' },
    format: ['esm'],
    dts: { entry },
    clean: true,
  },
  // CommonJS: the entry points only (the programs are ESM: top-level await).
  { ...common, entry, format: ['cjs'], dts: { entry }, clean: false },
]);
