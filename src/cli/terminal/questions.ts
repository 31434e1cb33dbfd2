/**
 * A server's questions at the terminal (E4): how `agt mcp call` shows them,
 * asks them field by field on a terminal, and reads `--answer KEY=JSON`
 * when there is none. Only elicitations can be answered here (a form, or a
 * URL to open); a sampling or roots question names what to use instead.
 */
import { createInterface } from 'node:readline/promises';
import { AgtError } from '../../errors.js';
import { isPlainObject } from '../../json.js';
import type { DEFER } from '../../mcp/requests/client-handlers.js';
import type { McpInputRequest, McpInputRequired } from '../../mcp/connection-types.js';
import type { ConnectSettings } from '../../mcp/settings/settings.js';
import { declinable, inputRetry, nextRound } from '../../runtime/pending/answers.js';
import { ToolSchemaRegistry } from '../../schema/registry.js';
import { type CliContext, emit, EXIT } from '../context.js';
import { outsideText } from '../../outside-text.js';
import { readWaiting, writeWaiting } from '../store-files/waiting-file.js';

/** Reads and writes a person's answers (a terminal, or a test's script). */
export interface QuestionIo {
  ask(prompt: string): Promise<string>;
  say(text: string): void;
}

interface Field {
  name: string;
  type: string;
  required: boolean;
  description?: string;
  options?: unknown[];
}

// The fields of a form elicitation's requestedSchema (flat, as MCP restricts it).
function fieldsOf(request: McpInputRequest): Field[] {
  const schema = request.params.requestedSchema;
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(schema.properties).map(([name, s]) => {
    const field = isPlainObject(s) ? s : {};
    return {
      name,
      type: typeof field.type === 'string' ? field.type : 'string',
      required: required.includes(name),
      ...(typeof field.description === 'string' ? { description: field.description } : {}),
      ...(Array.isArray(field.enum) ? { options: field.enum } : {}),
    };
  });
}

const isUrl = (request: McpInputRequest) => request.params.mode === 'url';

// A field as a person reads it: its name, type and options are the server's words (E6: through outsideText).
const named = (f: Field) => outsideText(f.name);
const optionsOf = (f: Field) => (f.options ?? []).map((o) => outsideText(o));

/** What a person reads of the questions: each key, its message, its fields or URL; never the server's state. */
export function questionLines(requests: Readonly<Record<string, McpInputRequest>>): string[] {
  return Object.entries(requests).flatMap(([key, request]) => {
    const message = typeof request.params.message === 'string' ? outsideText(request.params.message) : '';
    const head = `  ${outsideText(key)} (${outsideText(request.method)})${message ? `: ${message}` : ''}`;
    if (request.method !== 'elicitation/create') return [head];
    if (isUrl(request)) return [head, `    open: ${outsideText(String(request.params.url ?? ''))}`];
    return [
      head,
      ...fieldsOf(request).map(
        (f) =>
          `    - ${named(f)}: ${outsideText(f.type)}${f.options ? ` (${optionsOf(f).join(' | ')})` : ''}${f.required ? ', required' : ''}${f.description ? ` — ${outsideText(f.description)}` : ''}`,
      ),
    ];
  });
}

/** The answers of `--answer KEY=JSON` flags (a value that is not JSON is the string as written). */
export function parseAnswers(flags: readonly string[] | undefined): Record<string, unknown> | undefined {
  if (flags === undefined || flags.length === 0) return undefined;
  const answers: Record<string, unknown> = {};
  for (const flag of flags) {
    const at = flag.indexOf('=');
    if (at < 1)
      throw new AgtError('invalid_input', `--answer takes KEY=JSON (the question's key, then its answer), not "${outsideText(flag)}"`);
    const key = flag.slice(0, at);
    const text = flag.slice(at + 1);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    Object.defineProperty(answers, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return answers;
}

// One field's answer as typed: a boolean from y/n, a number, one of the options, or the text.
function fieldValue(field: Field, text: string): unknown {
  const t = text.trim();
  if (field.type === 'boolean') {
    if (/^(y|yes|true)$/i.test(t)) return true;
    if (/^(n|no|false)$/i.test(t)) return false;
    throw new AgtError('invalid_input', `${named(field)} is yes or no`);
  }
  if (field.type === 'number' || field.type === 'integer') {
    const n = Number(t);
    if (t === '' || !Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n)))
      throw new AgtError('invalid_input', `${named(field)} is ${field.type === 'integer' ? 'a whole number' : 'a number'}`);
    return n;
  }
  return t;
}

/** Asks each question on the terminal; the answers by key (a form's content, or an accepted URL). */
export async function askOnTerminal(requests: Readonly<Record<string, McpInputRequest>>, io: QuestionIo): Promise<Record<string, unknown>> {
  const answers: Record<string, unknown> = {};
  for (const [key, request] of Object.entries(requests)) {
    if (request.method !== 'elicitation/create')
      throw new AgtError(
        'invalid_input',
        `the server asked for ${outsideText(request.method)}, which agt mcp call cannot answer (a run with a handler can)`,
      );
    const message = typeof request.params.message === 'string' ? outsideText(request.params.message, { multiline: true }) : key;
    if (isUrl(request)) {
      io.say(`${message}\n  open: ${outsideText(String(request.params.url ?? ''))}`);
      await io.ask('  press Enter when done ');
      answers[key] = {};
      continue;
    }
    io.say(message);
    const content: Record<string, unknown> = {};
    for (const field of fieldsOf(request)) {
      for (let tries = 0; ; tries++) {
        const hint = field.type === 'boolean' ? 'y/n' : field.options ? optionsOf(field).join('/') : outsideText(field.type);
        const text = await io.ask(`  ${named(field)} (${hint})${field.required ? '' : ' [Enter: leave out]'}: `);
        if (text.trim() === '' && !field.required) break;
        try {
          content[field.name] = fieldValue(field, text);
          break;
        } catch (error) {
          if (tries >= 2) throw error;
          io.say(`  ${(error as Error).message}; try again`);
        }
      }
    }
    answers[key] = content;
  }
  return answers;
}

/** The retry of a call that waits (--answer, --decline): the answers checked against the questions' schemas first. */
export function answeredRetry(ctx: CliContext, key: string, tool: string, answers: Record<string, unknown> | undefined, decline: boolean) {
  if (answers === undefined && !decline) return undefined;
  if (answers !== undefined && decline) throw new AgtError('invalid_input', 'give --answer or --decline, not both');
  const waiting = readWaiting(ctx.storeFile, key);
  if (waiting === undefined)
    throw new AgtError('not_found', `no call of "${tool}" with these arguments waits for answers; call it without --answer first`);
  const asked = {
    callId: tool,
    requests: waiting.requests,
    ...(waiting.requestState === undefined ? {} : { requestState: waiting.requestState }),
  };
  if (decline && !declinable(asked)) throw new AgtError('invalid_input', 'only elicitations can be declined; answer the other questions');
  // The same check and the same responses as run.decide: every question is this call's to answer (no handler runs here).
  const rules = { registry: new ToolSchemaRegistry(), route: () => 'defer' as const };
  const input = inputRetry(asked, answers === undefined ? { decline: true } : { answers }, rules);
  return { input, round: waiting.round };
}

/** A call whose server asks: kept for the next --answer (the state never printed), the questions shown; exit 6. */
export function waitForAnswers(
  ctx: CliContext,
  reference: string,
  tool: string,
  key: string,
  asked: McpInputRequired,
  round: number,
): number {
  try {
    nextRound(round - 1); // the one bound of rounds, as in a run
  } catch (error) {
    writeWaiting(ctx.storeFile, key, undefined);
    throw error;
  }
  writeWaiting(ctx.storeFile, key, asked, round);
  const requests = asked.inputRequests;
  emit(ctx, { reference, tool, called: true, status: 'awaiting_input', round, requests }, () =>
    [
      `the server asks (round ${round}); nothing of the call is done yet:`,
      ...questionLines(requests),
      `answer with the same command and arguments plus ${Object.keys(requests)
        .map((k) => `--answer ${k}=JSON`)
        .join(' ')} (or --decline)`,
    ].join('\n'),
  );
  return EXIT.waiting;
}

/** The elicitation handler of a terminal session: each question asked there, field by field. */
export function terminalElicitation(ctx: CliContext): NonNullable<Exclude<ConnectSettings['elicitation'], typeof DEFER>> {
  return async (request) => {
    const io: QuestionIo = {
      ask: async (prompt) => {
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        try {
          return await rl.question(prompt);
        } finally {
          rl.close();
        }
      },
      say: (text) => ctx.err(text),
    };
    const answers = await askOnTerminal({ q: { method: 'elicitation/create', params: request as Record<string, unknown> } }, io);
    return request.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: answers.q as Record<string, string> };
  };
}
