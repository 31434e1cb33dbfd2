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
 * retries to the machine that asked, or accept replays there). A state is
 * taken only once every check it is bound to holds — caller, tool, arguments,
 * the retry's answers — so a refused presentation (another caller's, say)
 * leaves it to its owner (issue 58).
 * Answers sealed in the state are kept as they were; a retry's answers count
 * only for the questions the last round asked, each checked against what was
 * sealed of its question (answers.ts): one that does not answer it is refused
 * (-32602, the state left untaken, so the client may answer again). A first
 * call, with no state, may bring answers to the questions it knows
 * (SEP-2322): one that does not answer the question the handler asks is not
 * used, and the question is asked; one no question of that run checked is
 * not sealed (a later round would take it as checked).
 */
import { createHash, randomBytes } from 'node:crypto';
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
import {
  DEFAULT_REQUEST_STATE_TTL_SECONDS,
  MAX_REQUEST_STATE_BYTES,
  MAX_REQUEST_STATE_TTL_SECONDS,
  MAX_USED_REQUEST_STATES,
  msProblem,
} from '../../bounds.js';
import { AgtError } from '../../errors.js';
import { defined, isPlainObject, setOwn } from '../../json.js';
import { canonicalHash } from '../../schema/canonical.js';
import { answerProblem, checkQuestion, type Expected, expectedOf, invalidAnswer } from './answers.js';
import { checkedKey, defaultStateKey, type StateKey, takeOnDisk } from './state-key.js';

/**
 * What the sealed state holds: the tool, the arguments' digest, the caller, every answer so far, the keys the round
 * asked, and what each of them is answered with (`s`: its method; an elicitation's mode and requestedSchema).
 */
interface KitState {
  t: string;
  a: string;
  c: string | null;
  r: Record<string, unknown>;
  q?: string[];
  s?: Record<string, Expected>;
  /** A nonce: two rounds alike (same tool, arguments, caller, answers) in one second still seal two states, each taken once. */
  n?: string;
}

/** A state whose seal and expiry were verified, not taken yet: what it holds, and its digest (what taking records). */
export interface VerifiedState {
  state: KitState;
  digest: string;
}

/** A server's states: `verify` (the SDK server's `requestState` hook) checks the seal and expiry; `take` spends one. */
export interface KitStateCodec {
  mint(value: KitState, ctx?: ServerContext): Promise<string>;
  verify(state: string, ctx: ServerContext): Promise<VerifiedState>;
  /** Takes the state of `digest` for its life: false when it was taken before (by this process, or on the default key this machine). */
  take(digest: string): Promise<boolean>;
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

/** The codec of a server's states (its `verify` goes in the SDK server's `requestState` option); Rounds.take spends them. */
export function roundsCodec(options: RoundsOptions = {}): KitStateCodec {
  const given = options.key === undefined ? undefined : checkedKey(options.key, 'requestStateKey');
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_REQUEST_STATE_TTL_SECONDS;
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
    // A forged or expired state fails here. A good one is not taken yet: a refusal after this must not spend it.
    verify: async (state, ctx) => ({
      state: await (await codec()).codec.verify(state, ctx),
      digest: createHash('sha256').update(state).digest('base64url'),
    }),
    take: async (digest) => {
      const { usedDir } = await codec();
      const until = Date.now() + ttlSeconds * 1000;
      if (!takeOnce(digest, until)) return false;
      return usedDir === undefined || takeOnDisk(usedDir, digest, until);
    },
  };
}

/** Questions the handler asked that have no answer yet: they end this round. */
export class NeedsInput extends Error {
  constructor(readonly requests: Readonly<Record<string, InputRequest>>) {
    super(`questions ${Object.keys(requests).join(', ')} wait for the client`);
  }
}

// The questions that end a round, each one checkable (a requestedSchema the validator cannot load fails the handler now).
function needs(requests: Record<string, InputRequest>): NeedsInput {
  for (const request of Object.values(requests)) checkQuestion(expectedOf(request));
  return new NeedsInput(requests);
}

const refusedState = () =>
  new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', { reason: 'invalid_request_state' });

/** The questions of one handler run: answers so far (from the state and the retry), and the next question's key. */
export class Rounds {
  readonly #answers: Record<string, unknown>;
  // Answers a first call brought for questions not asked yet: each is checked against the question when it is asked.
  readonly #unchecked: Set<string>;
  // What the state is bound to; the arguments' digest is taken only when a state is checked or sealed.
  readonly #binding: () => Omit<KitState, 'r'>;
  #asked = 0;

  private constructor(binding: () => Omit<KitState, 'r'>, answers: Record<string, unknown>, unchecked: Iterable<string> = []) {
    this.#binding = binding;
    this.#answers = answers;
    this.#unchecked = new Set(unchecked);
  }

  /**
   * The rounds of a call. Its state, verified (seal, expiry) by the server's requestState hook, is checked against
   * the tool, the arguments and the caller, the retry's answers against the questions sealed in it, and only then
   * taken (single-use): every refusal comes before the handler runs and leaves the state to its owner.
   */
  static async take(ctx: ServerContext, tool: string, args: unknown, caller: string | null, codec: KitStateCodec): Promise<Rounds> {
    const binding = () => ({ t: tool, a: canonicalHash(args ?? {}), c: caller });
    const verified = ctx.mcpReq.requestState<VerifiedState>();
    const state = verified?.state;
    if (verified !== undefined && !boundTo(state, binding())) throw refusedState();
    const answered: Record<string, unknown> = state !== undefined && isPlainObject(state.r) ? { ...state.r } : {};
    const retried = ctx.mcpReq.inputResponses;
    const taken: string[] = [];
    if (isPlainObject(retried)) {
      // A first call may bring answers (a client that knows the questions: SEP-2322 says a server uses what it
      // recognises). Once a state exists, a retry answers only what its round asked; what was sealed stays as it was.
      const asked = state === undefined ? Object.keys(retried) : Array.isArray(state.q) ? state.q : [];
      for (const key of asked)
        if (typeof key === 'string' && Object.hasOwn(retried, key) && !Object.hasOwn(answered, key)) {
          setOwn(answered, key, retried[key]);
          taken.push(key);
        }
    }
    // E4: an answer is checked against the question it answers before the handler sees it. Sealed questions are
    // checked now (a wrong answer is refused, the state untaken); others when the handler asks them.
    const sealed = state !== undefined && isPlainObject(state.s) ? state.s : {};
    for (const key of taken) {
      const expected = Object.hasOwn(sealed, key) ? sealed[key] : undefined;
      const problem = expected === undefined ? undefined : answerProblem(expected, answered[key]);
      if (problem !== undefined) throw invalidAnswer(key, problem, 'answer it again (the same requestState still holds)');
    }
    if (verified !== undefined && !(await codec.take(verified.digest))) throw refusedState();
    return new Rounds(
      binding,
      answered,
      taken.filter((key) => !Object.hasOwn(sealed, key)),
    );
  }

  /** The answer to the handler's next question (`named`: its key), or NeedsInput (thrown) when the client has not answered it yet. */
  ask<T>(request: () => InputRequest, named?: string): T {
    this.#asked += 1;
    const key = named ?? `q${this.#asked}`;
    if (this.#answered(key, request)) return this.#answers[key] as T;
    throw needs({ [key]: request() });
  }

  /** The answers to several questions asked at once, or NeedsInput (thrown) with every one not answered yet. */
  askAll(requests: Readonly<Record<string, () => InputRequest>>): Record<string, unknown> {
    const missing = Object.keys(requests).filter((key) => !this.#answered(key, requests[key] as () => InputRequest));
    if (missing.length > 0) throw needs(Object.fromEntries(missing.map((key) => [key, (requests[key] as () => InputRequest)()])));
    return Object.fromEntries(Object.keys(requests).map((key) => [key, this.#answers[key]]));
  }

  // Whether `key` has an answer the handler may see: an unchecked one that does not answer `request` is dropped.
  #answered(key: string, request: () => InputRequest): boolean {
    if (!Object.hasOwn(this.#answers, key)) return false;
    if (!this.#unchecked.delete(key) || answerProblem(expectedOf(request()), this.#answers[key]) === undefined) return true;
    delete this.#answers[key];
    return false;
  }

  /** The `input_required` result of a round that ended on `question`, its state sealed (bounded, 64 KiB). */
  async result(question: NeedsInput, codec: KitStateCodec): Promise<InputRequiredResult> {
    const expected: Record<string, Expected> = {};
    for (const [key, request] of Object.entries(question.requests)) setOwn(expected, key, expectedOf(request));
    const n = randomBytes(12).toString('base64url');
    // Sealed: only answers a question checked (E4). A first call's answer to a question not asked yet is not carried: a
    // later round would take it as checked, and junk under unknown keys would fill the state (issue 58, Also).
    const checked: Record<string, unknown> = {};
    for (const [key, answer] of Object.entries(this.#answers)) if (!this.#unchecked.has(key)) setOwn(checked, key, answer);
    const requestState = await codec.mint({ ...this.#binding(), r: checked, q: Object.keys(question.requests), s: expected, n });
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
