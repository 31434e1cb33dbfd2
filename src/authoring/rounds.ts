/**
 * A handler's questions in the 2026-07-28 era (E5): there is no pushing a
 * request to the client mid-call, so `ctx.elicit`, `ctx.sample` and
 * `ctx.roots` take the multi round-trip way. The first question not yet
 * answered ends the round: the kit answers the call with `input_required`
 * (that question, and a sealed state); the client retries with the answer,
 * and the handler runs again from the start — each question it asked before
 * now answered from the state, the new one from the retry. The state is
 * sealed with the SDK's HMAC codec under the server's key (instances of one
 * service must share it; by default every process of one server name on this
 * machine does: state-key.ts), expires, and is bound to the caller, the tool
 * and a digest of the arguments: a tampered, expired or foreign state is
 * refused before the handler runs. A state is single-use for its life: the
 * process remembers the states it took (bounded, MAX_USED_REQUEST_STATES), and
 * with the default key so does the machine (a file per state until it
 * expires), so a replayed final retry never runs the handler's side effect
 * twice (instances on several machines share no such memory: route a call's
 * retries to the machine that asked, or accept replays there).
 * Answers sealed in the state are kept as they were; a retry's answers count
 * only for the questions the last round asked (a first call, with no state,
 * may bring answers to the questions it knows: SEP-2322).
 */
import { createHash } from 'node:crypto';
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
import { MAX_REQUEST_STATE_BYTES, MAX_REQUEST_STATE_TTL_SECONDS, MAX_USED_REQUEST_STATES, msProblem } from '../bounds.js';
import { AgtError } from '../errors.js';
import { defined, isPlainObject, setOwn } from '../json.js';
import { canonicalHash } from '../schema/canonical.js';
import { checkedKey, defaultStateKey, type StateKey, takeOnDisk } from './state-key.js';

/** What the sealed state holds: the tool, the arguments' digest, the caller, every answer so far, and the keys the round asked. */
interface KitState {
  t: string;
  a: string;
  c: string | null;
  r: Record<string, unknown>;
  q?: string[];
}

/** The server's sealing key and how long a state lives. */
export interface RoundsOptions {
  /** At least 32 bytes; every instance of one service needs the same. Default: {@link defaultStateKey} of `name`. */
  key?: Uint8Array | string;
  /** The server's name: whose key file a default key is (state-key.ts). */
  name?: string;
  /** Default 600 (ten minutes). */
  ttlSeconds?: number;
  /** Where a default key that cannot be shared is said (once). Default: stderr. */
  note?: (line: string) => void;
}

/** The states this process has taken, by digest, until they expire: at most MAX_USED_REQUEST_STATES (the oldest goes first). */
const usedStates = new Map<string, number>();

// Takes a state once in this process: false when it was taken before and has not expired yet.
function takeOnce(digest: string, until: number): boolean {
  const now = Date.now();
  const known = usedStates.get(digest);
  if (known !== undefined && known > now) return false;
  if (usedStates.size >= MAX_USED_REQUEST_STATES) {
    for (const [kept, end] of usedStates) if (end <= now) usedStates.delete(kept);
    // Still full of live states: the oldest goes (Map order is insertion order).
    while (usedStates.size >= MAX_USED_REQUEST_STATES) usedStates.delete(usedStates.keys().next().value as string);
  }
  usedStates.delete(digest);
  usedStates.set(digest, until);
  return true;
}

const stderrLine = (line: string) => void process.stderr.write(`${line}\n`);

/** The codec of a server's states (its `verify` goes in the SDK server's `requestState` option): verified, then taken once. */
export function roundsCodec(options: RoundsOptions = {}): RequestStateCodec<KitState> {
  const given = options.key === undefined ? undefined : checkedKey(options.key, 'requestStateKey');
  const ttlSeconds = options.ttlSeconds ?? 600;
  const problem = msProblem(ttlSeconds, { whole: true, min: 1, max: MAX_REQUEST_STATE_TTL_SECONDS });
  if (problem !== undefined)
    throw new AgtError('invalid_input', `createToolServer: requestStateTtlSeconds ${problem.replace('milliseconds', 'seconds')}`, {
      details: { field: 'requestStateTtlSeconds' },
    });
  const source =
    given !== undefined
      ? () => Promise.resolve<StateKey>({ key: given })
      : defaultStateKey(options.name ?? 'server', options.note ?? stderrLine);
  // The SDK's codec, made once the key is known (a default key is read or made on first use).
  let made: Promise<{ codec: RequestStateCodec<KitState>; usedDir?: string }> | undefined;
  const codec = () =>
    (made ??= source().then(({ key, usedDir }) => ({
      codec: createRequestStateCodec<KitState>({ key, ttlSeconds }),
      ...defined({ usedDir }),
    })));
  return {
    mint: async (value, ctx) => (await codec()).codec.mint(value, ctx),
    verify: async (state, ctx) => {
      const { codec: sealed, usedDir } = await codec();
      const value = await sealed.verify(state, ctx); // a forged or expired state fails here, and is never remembered
      const digest = createHash('sha256').update(state).digest('base64url');
      const until = Date.now() + ttlSeconds * 1000;
      if (!takeOnce(digest, until)) throw new Error('used');
      if (usedDir !== undefined && !(await takeOnDisk(usedDir, digest, until))) throw new Error('used by another process');
      return value;
    },
  };
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
    const answered: Record<string, unknown> = state !== undefined && isPlainObject(state.r) ? { ...state.r } : {};
    const retried = ctx.mcpReq.inputResponses;
    if (!isPlainObject(retried)) return new Rounds(binding, answered);
    // A first call may bring answers (a client that knows the questions: SEP-2322 says a server uses what it
    // recognises). Once a state exists, a retry answers only what its round asked; what was sealed stays as it was.
    const asked = state === undefined ? Object.keys(retried) : Array.isArray(state.q) ? state.q : [];
    for (const key of asked)
      if (typeof key === 'string' && Object.hasOwn(retried, key) && !Object.hasOwn(answered, key)) setOwn(answered, key, retried[key]);
    return new Rounds(binding, answered);
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
    const requestState = await codec.mint({ ...this.#binding(), r: this.#answers, q: Object.keys(question.requests) });
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
