/**
 * HarnessToolSet (H2, H3): dynamic tools a host gives a harness agent. Every
 * definition is compiled when the set is built — before the turn is
 * submitted — so a bad definition fails then, not at call time. An incoming
 * call is validated first and reaches the host's callback only if valid.
 * The harness's own commands, files and MCP tools are its own business (H3).
 */
import { AgtError } from '../errors.js';
import { MODEL_TOOL_NAME } from '../runtime/assembly/aliases.js';
import { defined, isPlainObject } from '../json.js';
import { NEVER_ABORTED } from '../runtime/pipeline/abort.js';
import { readArguments } from '../runtime/pipeline/arguments.js';
import { modelCallId } from '../runtime/pipeline/batch-check.js';
import { callResult } from '../runtime/pipeline/call-result.js';
import { DEFAULT_LIMITS } from '../runtime/limits.js';
import { type CallPath, runCall } from '../runtime/pipeline/pipeline.js';
import type { ToolCall, ToolResult } from '../runtime/types.js';
import { type CompiledToolSchema, ToolSchemaRegistry } from '../schema/registry.js';

/** One dynamic tool. */
export interface HarnessToolDef {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  /** Called only with valid arguments; returns text, data, or an MCP tool result (with `isError`: the call's tool_error). */
  handler(args: Record<string, unknown>, call: { callId: string }): Promise<string | Record<string, unknown> | { content: unknown[] }>;
}

/** A compiled set of dynamic tools for a harness agent. */
export class HarnessToolSet {
  readonly #tools = new Map<string, HarnessEntry>();

  constructor(defs: HarnessToolDef[], options: { registry?: ToolSchemaRegistry } = {}) {
    const registry = options.registry ?? new ToolSchemaRegistry();
    for (const def of defs) {
      if (typeof def?.name !== 'string' || !MODEL_TOOL_NAME.test(def.name)) {
        throw new AgtError('invalid_input', `harness tool name "${String(def?.name)}" must match ${MODEL_TOOL_NAME}`);
      }
      if (this.#tools.has(def.name)) throw new AgtError('invalid_input', `harness tool "${def.name}" is defined twice`);
      const validator = registry.compile(def.inputSchema, { tool: def.name }); // H2: fails here, before the turn
      this.#tools.set(def.name, { def, validator });
    }
  }

  /** The definitions to submit with the turn. */
  tools(): { name: string; description?: string; inputSchema: Record<string, unknown> }[] {
    return [...this.#tools.values()].map(({ def }) => ({
      name: def.name,
      ...defined({ description: def.description }),
      inputSchema: def.inputSchema,
    }));
  }

  /** Validates an incoming call, then runs its handler; never throws. */
  async handle(call: ToolCall): Promise<ToolResult> {
    const id = modelCallId(isPlainObject(call) ? call : {});
    const entry = typeof call?.name === 'string' ? this.#tools.get(call.name) : undefined;
    if (entry === undefined) {
      // As for model calls in runs (executeModelCalls): the call's own invalid_arguments, saying why.
      const name = typeof call?.name === 'string' ? `"${call.name}"` : 'the call';
      return callResult(id, {
        kind: 'failed',
        failed: 'invalid_arguments',
        error: {
          code: 'invalid_arguments',
          message: `${name} is not a tool of this turn; call one of the tools you were given`,
          details: { reason: 'unknown_tool' },
        },
      });
    }
    // The run's pipeline with the stages a harness call has: read, validate, execute (no policy, no hooks).
    const { result } = await runCall(id, entry, readArguments(call.arguments, DEFAULT_LIMITS), HARNESS_PATH);
    return result;
  }
}

type HarnessEntry = { def: HarnessToolDef; validator: CompiledToolSchema };

const HARNESS_PATH = {
  signal: NEVER_ABORTED,
  async execute(callId: string, entry: HarnessEntry, args: Record<string, unknown>) {
    try {
      return callResult(callId, { kind: 'output', output: await entry.def.handler(args, { callId }) });
    } catch (error) {
      return callResult(callId, { kind: 'thrown', thrown: error, fallback: 'the tool failed unexpectedly' });
    }
  },
} satisfies CallPath<HarnessEntry>;
