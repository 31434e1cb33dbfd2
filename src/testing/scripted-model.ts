/**
 * ScriptedModel: a model test double. Each step is a fixed answer or a
 * function of what the model would see (tools and history), so tests can
 * react to results — for example correct a call after invalid_arguments.
 */
import { AgtError } from '../errors.js';
import type { LoopMessage, ModelLike } from '../runtime/agent-loop.js';
import type { ModelTool } from '../runtime/model-tools.js';
import type { ModelCall } from '../runtime/model-calls.js';

/** One scripted answer; its calls are model output, malformed ones included (a missing id, a number for a name). */
export type ScriptedStep = { text?: string; toolCalls?: ModelCall[] };

/** What a scripted step function receives. */
export interface ScriptedInput {
  tools: ModelTool[];
  history: readonly LoopMessage[];
}

/** A model that plays back scripted steps, in order. */
export class ScriptedModel implements ModelLike {
  readonly #steps: (ScriptedStep | ((input: ScriptedInput) => ScriptedStep))[];
  /** Every input the model was given, for assertions. */
  readonly inputs: ScriptedInput[] = [];

  constructor(steps: (ScriptedStep | ((input: ScriptedInput) => ScriptedStep))[]) {
    this.#steps = [...steps];
  }

  /** Returns the next scripted step; throws when the script is used up. */
  async respond(input: ScriptedInput): Promise<ScriptedStep> {
    this.inputs.push({ tools: input.tools, history: [...input.history] });
    const step = this.#steps.shift();
    if (step === undefined)
      throw new AgtError('invalid_input', 'ScriptedModel: the script has no more steps; add one, or give the loop fewer maxSteps');
    return typeof step === 'function' ? step(input) : step;
  }
}
