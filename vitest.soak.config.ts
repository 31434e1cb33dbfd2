// `npm run test:soak`: the long soak and heap tests (test/soak/*.soak.ts), one file at a time, apart from npm test.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  ...base,
  test: { ...base.test, include: ['test/soak/**/*.soak.ts'], maxWorkers: 1, testTimeout: 120_000 },
});
