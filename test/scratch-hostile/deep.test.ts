import path from 'node:path';
import { it } from 'vitest';
import { connectMcp } from '../../src/index.js';
const SERVER = '/work/main/test/mcp/fixtures/hostile-tasks.ts';
it('deep', async () => {
  const c = await connectMcp({ command: process.execPath, args: ['--import', 'tsx', SERVER], cwd: '/work/main', protocol: 'legacy' } as never, { tasks: 'defer' } as never);
  await c.listTools();
  const s: any = await c.callToolOrInput('script', { gets: ['{"status":"completed"}'], deepContent: Number(process.env.DEPTH ?? 10000) });
  console.log('started', JSON.stringify(s).slice(0, 200));
  try { console.log(await c.getTaskResult(s.task.id)); } catch (e: any) { console.log('ERR', e.code, e.message, e.cause?.message, e.cause?.cause?.message, e.stack?.slice(0, 2000)); }
  await c.close();
}, 60000);
