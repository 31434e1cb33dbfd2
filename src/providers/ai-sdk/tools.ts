/**
 * aiSdkTools: a run's tools as a Vercel AI SDK tool set. Each `execute`
 * enters the run's batch pipeline: the calls the SDK executes for one model
 * step (it starts them together) are collected into one batch, so
 * validation, permission, hooks and the refresh at the batch boundary hold as
 * in any native run. Schemas are handed over as Standard JSON Schema objects
 * (no `ai` import needed); they accept every input, because the run — not the
 * SDK — validates (B4: invalid arguments come back to the model as results).
 */
import type { ModelCall } from '../../runtime/model-calls.js';
import { executeModelCalls, modelCallId } from '../../runtime/model-calls.js';
import type { NativeRun } from '../../runtime/native-run.js';
import type { ToolResult } from '../../runtime/types.js';
import { resultText } from '../content.js';
import { providerSchema } from '../schema.js';
import { defined } from '../../json.js';

/** A Standard JSON Schema object (standardschema.dev) around a JSON Schema, accepting every value. */
export interface StandardJsonSchema {
  readonly '~standard': {
    readonly version: 1;
    readonly vendor: 'agt-mcp';
    validate(value: unknown): { value: unknown };
    readonly jsonSchema: { input(options?: unknown): Record<string, unknown>; output(options?: unknown): Record<string, unknown> };
  };
}

/** One tool of the set, in the AI SDK's `tool()` shape. */
export interface AiSdkTool {
  description?: string;
  inputSchema: StandardJsonSchema;
  execute(input: unknown, options: { toolCallId: string; abortSignal?: AbortSignal }): Promise<string>;
}

/** Options of {@link aiSdkTools}. */
export interface AiSdkToolsOptions {
  /** Prefix of the batch ids (each step's calls are one batch: `${prefix}:${n}`). Default: the run id. */
  batchId?: string;
  /** Told about each batch (results, refresh) after it ran. */
  onBatch?(result: Awaited<ReturnType<typeof executeModelCalls>>): void;
}

/** A JSON Schema as a Standard JSON Schema object that accepts every value (the run validates). */
export function standardJsonSchema(schema: Record<string, unknown>): StandardJsonSchema {
  return {
    '~standard': {
      version: 1,
      vendor: 'agt-mcp',
      validate: (value) => ({ value }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

interface Pending {
  call: ModelCall;
  signal: AbortSignal | undefined;
  resolve(result: ToolResult): void;
  reject(error: unknown): void;
}

const CANNOT_WAIT = {
  approve: false,
  reason:
    'this call needs an approval, and tools the AI SDK runs itself cannot wait for one; the host drives approvals with runAgentLoop and aiSdkModel',
} as const;

// A question of the call's server (E4) is declined, as MCP lets a client that cannot ask anyone.
const CANNOT_ANSWER = {
  decline: true,
  reason:
    "this call's server asked a question, and tools the AI SDK runs itself cannot wait for an answer; the host drives questions with runAgentLoop and aiSdkModel",
} as const;

/** The run's current tools as an AI SDK ToolSet; call it again after a refresh (e.g. in `prepareStep`). */
export function aiSdkTools(run: NativeRun, options: AiSdkToolsOptions = {}): Record<string, AiSdkTool> {
  const prefix = options.batchId ?? run.id;
  let pending: Pending[] = [];
  let batches = 0;
  // Everything the SDK starts in one turn of the event loop is one model step: one batch.
  const flush = async () => {
    const step = pending;
    pending = [];
    batches += 1;
    const signal = step.find((p) => p.signal !== undefined)?.signal;
    try {
      const result = await executeModelCalls(
        run,
        step.map((p) => p.call),
        { batchId: `${prefix}:${batches}`, ...defined({ signal }) },
      );
      // The SDK runs its own loop and cannot wait: a deferred call is rejected and a question declined at once, so each
      // call has its one result (a server that asks again is declined again, until its rounds run out).
      const order = new Map(step.map((p, i) => [modelCallId(p.call), i])); // a batch that ran has unique call ids
      while (result.pending !== undefined) {
        const pendingCalls = result.pending;
        const decided = await run.decide(
          pendingCalls[0]!.batchId,
          Object.fromEntries(pendingCalls.map((p) => [p.callId, p.waitingFor === 'input' ? CANNOT_ANSWER : CANNOT_WAIT])),
        );
        result.results = [...result.results, ...decided.results].sort((a, b) => order.get(a.callId)! - order.get(b.callId)!);
        if (decided.pending === undefined) delete result.pending;
        else result.pending = decided.pending;
      }
      options.onBatch?.(result);
      step.forEach((p, i) => p.resolve(result.results[i] as ToolResult));
    } catch (error) {
      for (const p of step) p.reject(error);
    }
  };
  const tools: Record<string, AiSdkTool> = {};
  for (const tool of run.tools()) {
    tools[tool.name] = {
      ...defined({ description: tool.description }),
      inputSchema: standardJsonSchema(providerSchema(tool.inputSchema)),
      execute: (input, { toolCallId, abortSignal }) =>
        new Promise<ToolResult>((resolve, reject) => {
          if (pending.length === 0) setImmediate(() => void flush());
          pending.push({ call: { callId: toolCallId, name: tool.name, arguments: input }, signal: abortSignal, resolve, reject });
        }).then(resultText),
    };
  }
  return tools;
}
