import { defineConfig } from 'tsup';

// One build for every public entry point; subpaths are added here and in
// package.json "exports" as they land.
export default defineConfig([
  {
    entry: {
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
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: true,
    treeshake: true,
  },
  // The agt bin and the fixture server of agt-mcp/testing (fixtureServer() starts
  // dist/fixture-server.js): programs, ESM only (top-level await), no types.
  {
    entry: { cli: 'src/cli/bin.ts', 'fixture-server': 'src/testing/fixture-server.ts' },
    format: ['esm'],
    target: 'node20',
    platform: 'node',
    sourcemap: true,
    clean: false,
  },
]);
