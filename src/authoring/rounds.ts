/**
 * A handler's questions in the 2026-07-28 era (E5): there is no pushing a
 * request to the client mid-call, so `ctx.elicit`, `ctx.sample` and
 * `ctx.roots` take the multi round-trip way. The first question not yet
 * answered ends the round: the kit answers the call with `input_required`
 * (that question, and a sealed state); the client retries with the answer,
 * and the handler runs again from the start — each question it asked before
 * now answered from the state, the new one from the retry. The state is
 * sealed with the SDK's HMAC codec under the server's key (instances of one
 * service must share it), expires, and is bound to the caller, the tool and a
 * digest of the arguments: a tampered, expired or foreign state is refused
 * before the handler runs.
 */
import { randomBytes } from 'node:crypto';
import {
  createRequestStateCodec,
  type InputRequest,
  inputRequired,
  type InputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { MAX_REQUEST_STATE_BYTES } from '../bounds.js';
import { AgtError } from '../errors.js';
import { isPlainObject } from '../json.js';
import { canonicalHash } from '../schema/canonical.js';

/** What the sealed state holds: the tool, the arguments' digest, the caller, and every answer so far. */
interface KitState {
  t: string;
  a: string;
  c: string | null;
  r: Record<string, unknown>;
}

/** The server's sealing key and how long a state lives. */
export interface RoundsOptions {
  /** At least 32 bytes; every instance of one service needs the same. Default: one random key per process. */
  key?: Uint8Array | string;
  /** Default 600 (ten minutes). */
  ttlSeconds?: number;
}

// The default key: one per process, so every server of one serveHttp (built per session or request) shares it.
const PROCESS_KEY = randomBytes(32);

/** The codec of a server's states (its `verify` goes in the SDK server's `requestState` option). */
export function roundsCodec(options: RoundsOptions = {}): RequestStateCodec<KitState> {
  const key = options.key ?? PROCESS_KEY;
  if ((typeof key === 'string' ? Buffer.byteLength(key) : key.byteLength) < 32)
    throw new AgtError('invalid_input', 'createToolServer: requestStateKey must be at least 32 bytes', {
      details: { field: 'requestStateKey' },
    });
  return createRequestStateCodec<KitState>({ key, ttlSeconds: options.ttlSeconds ?? 600 });
}

/** Questions the handler asked that have no answer yet: they end this round. */
export class NeedsInput extends Error {
  constructor(readonly requests: Readonly<Record<string, InputRequest>>) {
    super(`questions ${Object.keys(requests).join(', ')} wait for the client`);
  }
}

/** The questions of one handler run: answers so far (from the state and the retry), and the next question's key. */
export class Rounds {
  readonly #answers: Record<string, unknown>;
  // What the state is bound to; the arguments' digest is taken only when a state is checked or sealed.
  readonly #binding: () => Omit<KitState, 'r'>;
  #asked = 0;

  private constructor(binding: () => Omit<KitState, 'r'>, answers: Record<string, unknown>) {
    this.#binding = binding;
    this.#answers = answers;
  }

  /** The rounds of a call: its state checked against the tool, the arguments and the caller (refused before the handler runs). */
  static of(ctx: ServerContext, tool: string, args: unknown, caller: string | null): Rounds {
    const binding = () => ({ t: tool, a: canonicalHash(args ?? {}), c: caller });
    const state = ctx.mcpReq.requestState<KitState>(); // verified (MAC, expiry) by the server's requestState hook
    if (state !== undefined && !boundTo(state, binding()))
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', { reason: 'invalid_request_state' });
    const answered = state !== undefined && isPlainObject(state.r) ? state.r : {};
    const retried = ctx.mcpReq.inputResponses;
    return new Rounds(binding, isPlainObject(retried) ? { ...answered, ...retried } : { ...answered });
  }

  /** The answer to the handler's next question (`named`: its key), or NeedsInput (thrown) when the client has not answered it yet. */
  ask<T>(request: () => InputRequest, named?: string): T {
    this.#asked += 1;
    const key = named ?? `q${this.#asked}`;
    if (Object.hasOwn(this.#answers, key)) return this.#answers[key] as T;
    throw new NeedsInput({ [key]: request() });
  }

  /** The answers to several questions asked at once, or NeedsInput (thrown) with every one not answered yet. */
  askAll(requests: Readonly<Record<string, () => InputRequest>>): Record<string, unknown> {
    const missing = Object.keys(requests).filter((key) => !Object.hasOwn(this.#answers, key));
    if (missing.length > 0) throw new NeedsInput(Object.fromEntries(missing.map((key) => [key, (requests[key] as () => InputRequest)()])));
    return Object.fromEntries(Object.keys(requests).map((key) => [key, this.#answers[key]]));
  }

  /** The `input_required` result of a round that ended on `question`, its state sealed (bounded, 64 KiB). */
  async result(question: NeedsInput, codec: RequestStateCodec<KitState>): Promise<InputRequiredResult> {
    const requestState = await codec.mint({ ...this.#binding(), r: this.#answers });
    if (Buffer.byteLength(requestState) > MAX_REQUEST_STATE_BYTES)
      throw new AgtError(
        'invalid_input',
        `the answers of this call no longer fit its state (${MAX_REQUEST_STATE_BYTES} bytes); ask fewer or smaller questions`,
      );
    return inputRequired({ inputRequests: { ...question.requests }, requestState });
  }
}

// A verified state is this call's: the same tool, arguments and caller.
function boundTo(state: unknown, binding: Omit<KitState, 'r'>): boolean {
  return isPlainObject(state) && state.t === binding.t && state.a === binding.a && state.c === binding.c;
}

export { inputRequired };
