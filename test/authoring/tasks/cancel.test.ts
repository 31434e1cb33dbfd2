/**
 * A kit task server whose creating request is cancelled (E6): the client sends
 * `tools/call` and, in the same write, `notifications/cancelled` for it. The
 * SDK then sends no answer, so no client can ever name the task the kit
 * created: the kit cancels it itself (the handler's signal fires), in both
 * eras. Raw JSON-RPC lines on a real stdio process, so the two messages arrive
 * together every time.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fileLines, REPO_ROOT, tempDir } from '../../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/authoring/fixtures/task-server.ts');
const TASKS = 'io.modelcontextprotocol/tasks';
let tmp: { dir: string; cleanup(): void };
beforeAll(() => {
  tmp = tempDir();
});
afterAll(() => tmp.cleanup());

// The messages before the call: 2025 opens with initialize; 2026-07-28 carries its metadata on the call itself.
function messages(era: 'legacy' | 'modern', hold: string): object[] {
  const args = { name: 'report', arguments: { id: 'x', hold } };
  const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'the caller gave up' } };
  if (era === 'legacy')
    return [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: { tasks: {} }, clientInfo: { name: 'raw', version: '1.0.0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...args, task: {} } },
      cancel,
    ];
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1.0.0' },
    'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
  };
  return [{ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { ...args, _meta: meta } }, cancel];
}

describe('E6: a kit task whose creating request was cancelled', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`E6: ${era}: the kit cancels the task it created (no client could name it); the handler's signal fires, nothing is done`, async () => {
      const log = path.join(tmp.dir, `${era}.log`);
      const server = spawn(process.execPath, ['--import', 'tsx', SERVER, '--log', log], { cwd: REPO_ROOT, stdio: 'pipe' });
      const exited = new Promise((resolve) => server.once('exit', resolve));
      let out = '';
      server.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      try {
        // One write: the cancellation is read before the kit's answer can go out.
        server.stdin.write(
          messages(era, path.join(tmp.dir, `${era}-never`))
            .map((m) => JSON.stringify(m) + '\n')
            .join(''),
        );
        await vi.waitFor(() => expect(fileLines(log)).toEqual(['started x', 'cancelled x']), { timeout: 30_000, interval: 50 });
        expect(fileLines(log)).not.toContain('done x');
        // The SDK sent no answer to the cancelled request (an initialize answer is all a 2025 client got).
        const answered = out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { id?: unknown });
        expect(answered.filter((m) => m.id === 2)).toEqual([]);
      } finally {
        server.stdin.end();
        server.kill();
        await exited;
      }
    });
  }
});
