import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (file: string) => fileURLToPath(new URL(`./src/${file}`, import.meta.url));

export default defineConfig({
  // Examples import the package by name, as users do; here the names map to
  // the sources. test/package/ checks the built package through its exports map.
  resolve: {
    alias: [
      { find: /^agt-mcp$/, replacement: src('index.ts') },
      { find: /^agt-mcp\/adapters$/, replacement: src('adapters.ts') },
      { find: /^agt-mcp\/config$/, replacement: src('config.ts') },
      { find: /^agt-mcp\/testing$/, replacement: src('testing/index.ts') },
      { find: /^agt-mcp\/authoring$/, replacement: src('authoring/index.ts') },
      { find: /^agt-mcp\/sqlite$/, replacement: src('storage/sqlite.ts') },
      { find: /^agt-mcp\/postgres$/, replacement: src('storage/postgres.ts') },
      { find: /^agt-mcp\/openai$/, replacement: src('providers/openai/index.ts') },
      { find: /^agt-mcp\/anthropic$/, replacement: src('providers/anthropic/index.ts') },
      { find: /^agt-mcp\/ai-sdk$/, replacement: src('providers/ai-sdk/index.ts') },
      { find: /^agt-mcp\/otel$/, replacement: src('otel/index.ts') },
      { find: /^agt-mcp\/apps$/, replacement: src('apps/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Most files wait on processes and sockets, not on the CPU: three files at once on two cores
    // (vitest's default here is one). The soak and heap tests are test/soak/*.soak.ts: npm run test:soak.
    maxWorkers: 3,
    globalSetup: ['test/support/global-setup.ts'],
  },
});
