/**
 * E6: the best-effort cancel of a task (a task created after its caller gave
 * up, a deadline, a cancel) after the connection's task session closed. The
 * case CI met: a late answer naming a task came in as the connection closed,
 * and ext-tasks refused the cancel synchronously ("Task-enabled session is
 * closed") — an unhandled rejection, since nobody waits for that cancel. A
 * real SDK client and a real kit task server over stdio; the session opened,
 * then closed.
 */
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { describe, expect, it } from 'vitest';
import { ConnectionTasks } from '../../../src/mcp/tasks/session.js';
import { cancelOnServer } from '../../../src/mcp/tasks/call.js';
import { REPO_ROOT } from '../../support/index.js';

const SERVER = path.join(REPO_ROOT, 'test/authoring/fixtures/task-server.ts');

describe('E6: cancelling a task once the connection closed', () => {
  it('E6: the best-effort tasks/cancel after the task session closed resolves (no rejection, nothing unhandled)', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', SERVER], cwd: REPO_ROOT });
    const client = new Client({ name: 'agt-mcp-test', version: '0' }, { capabilities: {} });
    await client.connect(transport);
    const tasks = new ConnectionTasks({
      client,
      transport,
      era: 'legacy',
      endpointId: 'task-server',
      clientInfo: { name: 'agt-mcp-test', version: '0' },
      clientCapabilities: {},
      requestMs: 10_000,
    });
    try {
      const session = await tasks.session();
      await tasks.close();
      // What ext-tasks does with a closed session: it throws at once, not in a promise.
      expect(() => session.task('some-task' as never)).toThrow(/closed/);
      await expect(cancelOnServer(tasks, 'some-task')).resolves.toBeUndefined();
    } finally {
      await client.close();
    }
  }, 60_000);
});
