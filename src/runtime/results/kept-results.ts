/**
 * The results a run cut at its budget (B8), kept whole so the model can read
 * them by page with `result_read`: bounded per run (`resultBudget.keptBytes`,
 * the oldest dropped first), part of the run's suspended state, and read back
 * from a stored record as hostile input (each entry checked, sizes measured
 * here, never taken from the record).
 */
import { AgtError } from '../../errors.js';
import { isPlainObject, measureJson } from '../../json.js';
import { MAX_CHARS_PER_TOKEN, MAX_JSON_DEPTH, MAX_KEPT_CALL_ID, MIN_CHARS_PER_TOKEN } from '../../bounds.js';
import { outsideJson, outsideText } from '../../outside-text.js';
import { CHARS_PER_TOKEN, charsPerToken, type ResolvedResultBudget } from './budget.js';
import { budgetedContent, cutTo, lineCost, roughSize } from './cut.js';
import { pageOf, type Page, pairStart, resultLine, type ResultLine } from './pages.js';
import type { ToolResult } from '../types.js';

/** A kept result as the run's state stores it (SuspendedRun.results). */
export interface StoredResult {
  callId: string;
  tool: string;
  content: unknown[];
  structuredContent?: unknown;
  /** Characters per token when it was cut (the counter's ratio, or 4). */
  charsPerToken: number;
  /** Where the next result_read without an offset starts. */
  next: number;
}

/** The kept results of a run's state: the results, oldest first, and the ids of those dropped for space. */
export interface StoredResults {
  kept: StoredResult[];
  dropped?: string[];
}

interface Kept extends StoredResult {
  bytes: number;
  line?: ResultLine; // built on first read, never stored
  measured?: true; // charsPerToken measured here (a stored entry's is measured again on its first read)
}

const MAX_DROPPED = 1_000;
const MAX_STORED = 10_000;

/** A page of a kept result, as result_read answers it. */
export interface ReadPage extends Page {
  total: number;
  start: number;
}

/** The kept results of one run. */
export class KeptResults {
  readonly budget: ResolvedResultBudget;
  readonly #kept = new Map<string, Kept>(); // insertion order: oldest first
  readonly #dropped = new Set<string>();
  #bytes = 0;

  constructor(budget: ResolvedResultBudget) {
    this.budget = budget;
  }

  /** True once a result was cut: the run offers result_read from then on. */
  get offered(): boolean {
    return this.#kept.size > 0 || this.#dropped.size > 0;
  }

  /**
   * Stage 9, budget: a result over the budget, cut to it with a notice (`cut`), the whole kept for result_read when
   * it fits the run's total; any other result as it is. Ok results, and a tool's own error (its content).
   */
  cut(result: ToolResult, tool: string): ToolResult {
    const readable = budgetedContent(result);
    if (readable === undefined) return result;
    const { content, structured } = readable;
    const { tokens, countTokens } = this.budget;
    // The usual case: a sum of lengths that stops at the budget, at the fewest characters a token can be counted as.
    const fast = Math.floor(tokens * (countTokens === undefined ? CHARS_PER_TOKEN : MIN_CHARS_PER_TOKEN));
    if (roughSize(content, structured, fast) <= fast) return result;
    const line = resultLine(content, structured);
    const ratio = countTokens === undefined ? CHARS_PER_TOKEN : charsPerToken(this.budget, sampleOf(line));
    const room = Math.max(1, Math.floor(tokens * ratio));
    if (lineCost(line, room) <= room) return result; // what a page of it would cost: within the budget, it is not cut
    const id = result.callId;
    const entry = {
      callId: id,
      tool,
      content: typedParts(content),
      ...(structured === undefined ? {} : { structuredContent: structured }),
    };
    const bytes = this.#sizeOf(entry); // decided before the page: a reference never offers a read that would fail
    const shown = outsideJson(id); // the model's own id, exact as JSON, with bidi and line controls escaped
    const refer = (part: Record<string, unknown>, position: number) =>
      `[${outsideText(part.type, { max: 40 })} part${mimeOf(part)} not shown` +
      (bytes === undefined ? ']' : `: result_read {"callId":${shown},"offset":${position},"limit":1} returns it]`);
    // A tool error's message (at most 2,000 characters: errorOfContent) reaches the model beside its content: it counts.
    const message = result.status === 'tool_error' ? result.error.message.length : 0;
    const page = pageOf(line, 0, Math.max(1, room - message), refer);
    if (bytes !== undefined) this.#store({ ...entry, charsPerToken: ratio, next: page.end, bytes, line, measured: true });
    else this.#drop(id);
    const total = line.total;
    const notice = {
      type: 'text',
      text:
        `[agt-mcp: this result is ${total} characters (about ${Math.ceil(total / ratio)} tokens), over this run's result budget of ${tokens} tokens; ` +
        `shown: its first ${page.end}. ` +
        (bytes !== undefined
          ? `Read on with result_read {"callId":${shown},"offset":${page.end}}]`
          : 'The rest cannot be read: the run does not keep a result this large (resultBudget.keptBytes) or with this call id]'),
    };
    return cutTo(result, [...page.parts, notice], { keptChars: page.end, totalChars: total }, room);
  }

  /** A page of call `callId`'s kept result from `offset` (default: where the last read ended), at most `limit` characters. */
  read(callId: string, offset: number | undefined, limit: number | undefined): ReadPage {
    const kept = this.#kept.get(callId);
    if (kept === undefined) {
      const shown = JSON.stringify(outsideText(callId, { max: 80 }));
      if (this.#dropped.has(callId))
        throw new AgtError(
          'not_found',
          `the result of call ${shown} is no longer kept (the run keeps the newest, resultBudget.keptBytes); call its tool again`,
          {
            details: { callId: outsideText(callId, { max: 80 }), reason: 'dropped' },
          },
        );
      throw new AgtError(
        'not_found',
        `no kept result of call ${shown}: result_read reads results that were cut, by the call id their notice names`,
        {
          details: { callId: outsideText(callId, { max: 80 }), reason: 'unknown' },
        },
      );
    }
    const line = (kept.line ??= resultLine(kept.content, kept.structuredContent));
    if (kept.measured !== true) {
      // A stored entry's ratio is measured again, never taken from the record (a tampered 64 would widen every page).
      kept.charsPerToken = this.budget.countTokens === undefined ? CHARS_PER_TOKEN : charsPerToken(this.budget, sampleOf(line));
      kept.measured = true;
    }
    const start = pairStart(line, offset ?? kept.next);
    if (start >= line.total)
      throw new AgtError(
        'invalid_input',
        `offset ${start} is at or past the end of the result (${line.total} characters); nothing is left to read`,
        {
          details: { field: 'offset', total: line.total },
        },
      );
    const room = Math.max(1, Math.floor(this.budget.tokens * kept.charsPerToken));
    const page = pageOf(line, start, Math.min(room, limit ?? room));
    kept.next = page.end;
    return { ...page, total: line.total, start };
  }

  /** What the run's state stores (undefined when no result was cut). */
  state(): StoredResults | undefined {
    if (!this.offered) return undefined;
    const kept = [...this.#kept.values()].map(({ bytes: _b, line: _l, measured: _m, ...stored }) => stored);
    return { kept, ...(this.#dropped.size > 0 ? { dropped: [...this.#dropped] } : {}) };
  }

  /** Takes back a stored state's kept results: each checked and measured here; what is malformed or over the total is dropped. */
  load(stored: unknown): void {
    if (!isPlainObject(stored)) return;
    const dropped = Array.isArray(stored.dropped) ? stored.dropped.slice(-MAX_DROPPED) : [];
    for (const id of dropped) if (typeof id === 'string' && id.length <= MAX_KEPT_CALL_ID) this.#drop(id);
    const kept = Array.isArray(stored.kept) ? stored.kept.slice(-MAX_STORED) : [];
    for (const entry of kept) {
      const read = readStored(entry);
      if (read === undefined) {
        if (isPlainObject(entry) && typeof entry.callId === 'string' && entry.callId.length <= MAX_KEPT_CALL_ID) this.#drop(entry.callId);
        continue;
      }
      const bytes = this.#sizeOf(read);
      if (bytes === undefined) this.#drop(read.callId);
      else this.#store({ ...read, bytes });
    }
  }

  // What a result would take of keptBytes (its JSON, its ids and an entry's overhead), or undefined when it cannot be kept.
  #sizeOf(result: Pick<StoredResult, 'callId' | 'tool' | 'content' | 'structuredContent'>): number | undefined {
    if (result.callId.length > MAX_KEPT_CALL_ID) return undefined;
    const bytes = sizeOf(result.content, result.structuredContent, this.budget.keptBytes) + result.callId.length + result.tool.length + 64;
    return bytes > this.budget.keptBytes ? undefined : bytes;
  }

  // Keeps a result, the newest; the oldest dropped beyond keptBytes or MAX_STORED entries.
  #store(kept: Kept): void {
    const old = this.#kept.get(kept.callId);
    if (old !== undefined) this.#remove(old); // a call id used again: its newest result is the one read
    for (const oldest of this.#kept.values()) {
      if (this.#bytes + kept.bytes <= this.budget.keptBytes && this.#kept.size < MAX_STORED) break;
      this.#remove(oldest);
      this.#drop(oldest.callId);
    }
    this.#dropped.delete(kept.callId);
    this.#kept.set(kept.callId, kept);
    this.#bytes += kept.bytes;
  }

  #remove(kept: Kept): void {
    this.#kept.delete(kept.callId);
    this.#bytes -= kept.bytes;
  }

  #drop(callId: string): void {
    this.#dropped.delete(callId);
    this.#dropped.add(callId);
    if (this.#dropped.size > MAX_DROPPED) this.#dropped.delete(this.#dropped.values().next().value as string);
  }
}

// The whole result's JSON size, or past `max` (then max + 1).
function sizeOf(content: unknown[], structured: unknown, max: number): number {
  const size = measureJson(structured === undefined ? content : [content, structured], { depth: MAX_JSON_DEPTH + 1, bytes: max });
  return typeof size === 'number' ? size : max + 1;
}

// The start of a result's text, for a tokenizer's ratio: at most 64 KiB counted, however large the result.
function sampleOf(line: ResultLine): string {
  let sample = '';
  for (const segment of line.segments) {
    if ('text' in segment) sample += segment.text.slice(0, 65_536 - sample.length);
    if (sample.length >= 65_536) break;
  }
  return sample;
}

const mimeOf = (part: Record<string, unknown>): string => {
  const mime = typeof part.mimeType === 'string' ? part.mimeType : isPlainObject(part.resource) ? part.resource.mimeType : undefined;
  return typeof mime === 'string' ? ` (${outsideText(mime, { max: 80 })})` : '';
};

// One stored entry, if it is one: the fields of its type, a content list of typed parts, sane numbers.
function readStored(entry: unknown): StoredResult | undefined {
  if (!isPlainObject(entry)) return undefined;
  const { callId, tool, content, structuredContent, charsPerToken: ratio, next } = entry;
  if (typeof callId !== 'string' || callId === '' || callId.length > MAX_KEPT_CALL_ID) return undefined;
  if (typeof tool !== 'string' || tool.length > MAX_KEPT_CALL_ID) return undefined;
  if (!Array.isArray(content)) return undefined;
  if (typeof ratio !== 'number' || !Number.isFinite(ratio) || ratio < MIN_CHARS_PER_TOKEN || ratio > MAX_CHARS_PER_TOKEN) return undefined;
  if (typeof next !== 'number' || !Number.isSafeInteger(next) || next < 0) return undefined;
  // Parts that are not typed objects have no position (the model reads nothing of them): left out, the entry kept.
  return {
    callId,
    tool,
    content: typedParts(content),
    ...(structuredContent === undefined ? {} : { structuredContent }),
    charsPerToken: ratio,
    next,
  };
}

// The typed parts of a content list (an after hook may return others: they have no position, so nothing is lost).
function typedParts(content: readonly unknown[]): unknown[] {
  return content.every((p) => isPlainObject(p) && typeof p.type === 'string')
    ? (content as unknown[])
    : content.filter((p) => isPlainObject(p) && typeof p.type === 'string');
}
