// SCRATCH memory probe: a 2025 task whose every tasks/get is new and large
import path from 'node:path';
import { it } from 'vitest';
import { connectMcp } from '../../src/index.js';
const SERVER = '/work/main/test/mcp/fixtures/hostile-tasks.ts';
for (const protocol of (process.env.ERAS ?? 'legacy,2026-07-28').split(','))
it(`mem ${protocol}`, async () => {
  const c = await connectMcp({ command: process.execPath, args: ['--import', 'tsx', SERVER], cwd: '/work/main', protocol } as never, { timeouts: { maxTotalMs: Number(process.env.TOTAL ?? 20000) } } as never);
  await c.listTools();
  (globalThis as any).gc?.();
  const h0 = process.memoryUsage().heapUsed;
  const timer = setInterval(() => console.log('heapMB', Math.round((process.memoryUsage().heapUsed - h0) / 1e6)), 2000);
  try { await c.callTool('script', { gets: ['{}'], statusBytes: Number(process.env.BYTES ?? 1000000) }); } catch (e: any) { console.log('ERR', e.code, e.message); }
  clearInterval(timer);
  (globalThis as any).gc?.();
  console.log(`### ${protocol} heap growth after call MB`, Math.round((process.memoryUsage().heapUsed - h0) / 1e6));
  await c.close();
}, 120000);
