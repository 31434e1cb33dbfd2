/**
 * Questions that wait, at the connection (E4): a connection that defers a
 * kind of question gives a 2026-07-28 server's `input_required` back to the
 * caller (callToolOrInput), and a retry with the answers and the server's
 * state completes the call — against the SDK v2 fixture server over loopback
 * HTTP (test/mcp/fixtures/v2-server.ts), no session between the rounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, isAgtError, type McpInputRequired } from '../../../src/index.js';
import path from 'node:path';
import { REPO_ROOT, text } from '../../support/index.js';
import { startV2Http, type V2HttpServer } from '../fixtures/v2-server.js';

const V2_SERVER = path.join(REPO_ROOT, 'test/mcp/fixtures/v2-server.ts');

let server: V2HttpServer;
beforeAll(async () => {
  server = await startV2Http({ legacy: 'stateless' });
});
afterAll(async () => {
  await server.close();
});

describe('E4: a question the connection defers comes back to the caller', () => {
  it('E4: callToolOrInput gives the question back; a retry with the answer and the state completes the call', async () => {
    const first = await connectMcp({ url: server.url }, { elicitation: 'defer' });
    const asked = server.state.asked;
    let questions: McpInputRequired;
    try {
      expect(first.clientCapabilities).toMatchObject({ elicitation: { form: {}, url: {} } });
      const outcome = await first.callToolOrInput('ask', { what: 'deploy' });
      expect('resultType' in outcome && outcome.resultType).toBe('input_required');
      questions = outcome as McpInputRequired;
      expect(Object.keys(questions.inputRequests)).toEqual(['confirm']);
      expect(questions.inputRequests.confirm).toMatchObject({ method: 'elicitation/create', params: { message: 'Really deploy?' } });
    } finally {
      await first.close();
    }
    expect(server.state.asked).toBe(asked + 1);
    // Another connection (nothing of the first survives) retries with the answer.
    const second = await connectMcp({ url: server.url }, { elicitation: 'defer' });
    try {
      const result = await second.callToolOrInput(
        'ask',
        { what: 'deploy' },
        {
          input: {
            requests: questions.inputRequests,
            responses: { confirm: { action: 'accept', content: { confirm: true } } },
            ...(questions.requestState === undefined ? {} : { requestState: questions.requestState }),
          },
        },
      );
      expect('content' in result && text(result)).toBe('deploy: confirmed (modern)');
    } finally {
      await second.close();
    }
    expect(server.state.asked).toBe(asked + 1); // asked once, answered once
  });

  it('E4: callTool on a connection that defers fails the call with input_deferred, naming callToolOrInput', async () => {
    const connection = await connectMcp({ url: server.url }, { elicitation: 'defer' });
    try {
      const error = await connection.callTool('ask', { what: 'x' }).catch((e: unknown) => e);
      expect(isAgtError(error) && [error.code, error.details?.reason]).toEqual(['protocol_error', 'input_deferred']);
      expect((error as Error).message).toMatch(/callToolOrInput/);
    } finally {
      await connection.close();
    }
  });

  it('E4: a kind that is not deferred is answered by its handler at once, even when another kind is deferred', async () => {
    const seen: string[] = [];
    const connection = await connectMcp(
      { url: server.url },
      {
        sampling: 'defer',
        elicitation: async (request) => {
          seen.push(request.message);
          return { action: 'accept', content: { confirm: false } };
        },
      },
    );
    try {
      const result = await connection.callToolOrInput('ask', { what: 'ship' });
      expect('content' in result && text(result)).toBe('ship: not confirmed (modern)');
      expect(seen).toEqual(['Really ship?']);
    } finally {
      await connection.close();
    }
  });

  it('E4: a retry without an answer to a deferred question is invalid_input and sends nothing', async () => {
    const connection = await connectMcp({ url: server.url }, { elicitation: 'defer' });
    const calls = server.methods.length;
    try {
      const error = await connection
        .callToolOrInput(
          'ask',
          { what: 'x' },
          { input: { requests: { confirm: { method: 'elicitation/create', params: {} } }, responses: {} } },
        )
        .catch((e: unknown) => e);
      expect(isAgtError(error) && [error.code, error.details?.keys]).toEqual(['invalid_input', ['confirm']]);
      expect(server.methods.slice(calls)).not.toContain('tools/call');
    } finally {
      await connection.close();
    }
  });

  it('E4: on a 2025 connection a deferred question cannot wait: the server is refused, saying why', async () => {
    const legacyStdio = {
      command: process.execPath,
      args: ['--import', 'tsx', V2_SERVER, '--stdio', '--legacy', 'serve'],
      cwd: REPO_ROOT,
      protocol: 'legacy' as const,
    };
    const connection = await connectMcp(legacyStdio, { elicitation: 'defer', timeouts: { handshakeMs: 20_000 } });
    try {
      expect(connection.era).toBe('legacy');
      const outcome = await connection.callToolOrInput('ask', { what: 'x' }).catch((e: unknown) => e);
      // The server pushed elicitation/create; the client refused it with its reason, so the call did not complete.
      expect(outcome).toMatchObject({ isError: true });
      expect(text(outcome as { content: unknown[] })).toMatch(
        /this client answers elicitation\/create later \(deferred\), which only a 2026-07-28 call result can ask for/,
      );
    } finally {
      await connection.close();
    }
  });
});
