// `npm run test:unit`: every test file that starts no process and reads no build (test/support/lanes.ts
// classes them), with starting a process made to fail; `npm test` runs these and the rest.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';
import { unitLane } from './test/support/lanes.js';

export default defineConfig({
  ...base,
  test: { ...base.test, include: unitLane(), setupFiles: ['test/support/unit-setup.ts'] },
});
