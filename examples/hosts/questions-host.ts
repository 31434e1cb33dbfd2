/**
 * A web host whose tool calls may be asked questions nobody is there to
 * answer yet (E4). One HTTP request runs a step: a call whose 2026-07-28
 * server asks (say "Really deploy?") waits, the run is stored, and the
 * questions go back to the browser. Another request — later, maybe to another
 * process behind the same store — resumes the run and decides with the
 * person's answers. `questionsHost({ service, store })` returns the handler;
 * examples/hosts/questions-host.test.ts drives it with fetch.
 *
 *   POST /steps               { agent, calls }        → { runId, batchId, results, questions? }
 *   POST /steps/:runId/:batch { answers: { callId: { key: answer } } } → { results, questions? }
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type BatchResult, isAgtError, NativeRun, type PendingCall, policies, type ResourceService, type RunStore } from 'agt-mcp';

/** What a host keeps to serve questions: the registry and the store runs wait in. */
export interface QuestionsHostOptions {
  service: ResourceService;
  store: RunStore;
}

// What the browser is shown of a waiting call: its questions (message, fields, or a URL to open). Never the server's state.
const questionsOf = (pending: readonly PendingCall[] = []) =>
  pending.filter((p) => p.waitingFor === 'input').map((p) => ({ callId: p.callId, tool: p.tool, round: p.round, requests: p.requests }));

const view = (out: BatchResult) => ({ results: out.results, ...(out.pending ? { questions: questionsOf(out.pending) } : {}) });

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
}

function send(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

/** The request handler of the host (for `http.createServer`). */
export function questionsHost({ service, store }: QuestionsHostOptions): (req: IncomingMessage, res: ServerResponse) => void {
  // The run's questions wait for a person: elicitation is deferred, never answered by the host itself.
  const settings = { service, policy: policies.autoAllow('*'), elicitation: 'defer' as const };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    try {
      const parts = (req.url ?? '').split('/').filter(Boolean);
      if (req.method === 'POST' && parts.length === 1 && parts[0] === 'steps') {
        const { agent, calls } = (await body(req)) as { agent: string; calls: { callId: string; name: string; arguments: object }[] };
        const run = await NativeRun.start({ ...settings, agent });
        try {
          const batchId = `step-${Date.now()}`;
          const out = await run.executeBatch({ runId: run.id, agent, batchId, calls: calls as never });
          if (out.pending !== undefined) await run.suspend({ store }); // the questions and the server's state are stored
          return send(res, 200, { runId: run.id, batchId, ...view(out) });
        } finally {
          await run.close();
        }
      }
      if (req.method === 'POST' && parts.length === 3 && parts[0] === 'steps') {
        const [, runId, batchId] = parts as [string, string, string];
        const { answers } = (await body(req)) as { answers: Record<string, Record<string, unknown>> };
        const run = await NativeRun.resume(runId, { ...settings, store });
        try {
          const decisions = Object.fromEntries(Object.entries(answers).map(([callId, a]) => [callId, { answers: a }]));
          return send(res, 200, view(await run.decide(batchId, decisions)));
        } finally {
          await run.close();
        }
      }
      send(res, 404, { error: 'no such route' });
    } catch (error) {
      // An invalid answer (invalid_input: the key and the path) leaves the call waiting: the browser shows it again.
      send(res, isAgtError(error) && error.code === 'invalid_input' ? 400 : 500, {
        error: isAgtError(error) ? { code: error.code, message: error.message } : 'failed',
      });
    }
  };
  return (req, res) => void handle(req, res);
}
