/**
 * A kept result as the model reads it, by page (B8). The result is one line of
 * positions: its text as the model sees it (text parts and embedded text
 * resources joined by a newline, or the structured content's JSON when it has
 * no text) one position per character, and every other part (an image, audio,
 * a binary resource, a link) one position of its own. A page is a run of
 * positions within a character budget: its text as one text part, its other
 * parts as themselves — or, in the first page the model is given (the cut),
 * as a one-line reference it can read by offset. The pages of a result,
 * joined, are its text exactly; each other part is in exactly one page.
 */
import { isPlainObject } from '../../json.js';

/** A stretch of the line: text (one position per UTF-16 unit), or one part (one position). */
type Segment = { start: number; text: string } | { start: number; part: Record<string, unknown> };

/** The segments of a result and their total: built once per kept result, never stored. */
export interface ResultLine {
  segments: readonly Segment[];
  total: number;
}

/** What a non-text part costs in a page, in characters: its size, at most this (about 1,600 tokens, an image's usual cost). */
export const PART_CHARS = 6_400;

// The text the model reads of a part, or undefined when the part travels as itself (an image, audio, a blob, a link).
function textOf(part: unknown): string | undefined {
  if (!isPlainObject(part)) return '';
  if (part.type === 'text') return typeof part.text === 'string' ? part.text : '';
  if (part.type === 'resource' && isPlainObject(part.resource) && typeof part.resource.text === 'string') return part.resource.text;
  return undefined;
}

/** The line of a result's content (and its structured content, read as JSON when the content has no text). */
export function resultLine(content: readonly unknown[], structured: unknown): ResultLine {
  const segments: Segment[] = [];
  let total = 0;
  let afterText = false;
  let anyText = false;
  for (const part of content) {
    const text = textOf(part);
    if (text === undefined) {
      segments.push({ start: total, part: part as Record<string, unknown> });
      total += 1;
      afterText = false;
      continue;
    }
    if (text === '') continue; // an empty or odd part: the model reads nothing of it (resultText leaves it out)
    const joined = afterText ? `\n${text}` : text; // the model reads consecutive texts joined by a newline (resultText)
    segments.push({ start: total, text: joined });
    total += joined.length;
    afterText = true;
    anyText = true;
  }
  if (!anyText && structured !== undefined) {
    const json = JSON.stringify(structured);
    if (json !== undefined && json !== '') {
      for (const s of segments) s.start += json.length;
      segments.unshift({ start: 0, text: json });
      total += json.length;
    }
  }
  return { segments, total };
}

/** What a part costs in a page read by result_read: its size (a string field's length), at most PART_CHARS. */
export function partCost(part: Record<string, unknown>): number {
  let size = 16;
  for (const value of Object.values(part)) {
    if (typeof value === 'string') size += value.length;
    else if (isPlainObject(value)) for (const inner of Object.values(value)) if (typeof inner === 'string') size += inner.length;
    if (size >= PART_CHARS) return PART_CHARS;
  }
  return size;
}

/** What the model reads of the part at `position` in a cut: a line naming it and how to read it. */
export type Refer = (part: Record<string, unknown>, position: number) => string;

/** A page: its parts, the first position after it, and the characters it holds (for the budget). */
export interface Page {
  parts: unknown[];
  end: number;
  chars: number;
}

// The segment holding `position` (binary search: a result of many tiny parts costs log n per page, not n).
function segmentAt(segments: readonly Segment[], position: number): number {
  let low = 0;
  let high = segments.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if ((segments[mid] as Segment).start <= position) low = mid;
    else high = mid - 1;
  }
  return low;
}

// How much of `text` from `from` a page of `room` characters takes: up to a line's end when one is in the latter half, never half a surrogate pair.
function take(text: string, from: number, room: number): number {
  if (text.length - from <= room) return text.length - from;
  let n = room;
  const newline = text.lastIndexOf('\n', from + n - 1);
  if (newline >= from + Math.ceil(n / 2)) n = newline + 1 - from;
  const last = text.charCodeAt(from + n - 1);
  if (last >= 0xd800 && last <= 0xdbff) n = n > 1 ? n - 1 : n + 1; // a pair is never split; a page of one unit takes the pair
  return n;
}

/**
 * The page of `line` from `offset` within `room` characters: `refer` given (the cut), other parts as references,
 * else as themselves. A page holds at least one position, so reading on always ends.
 */
export function pageOf(line: ResultLine, offset: number, room: number, refer?: Refer): Page {
  const parts: unknown[] = [];
  let text = '';
  let chars = 0;
  let position = offset;
  const flush = () => {
    if (text !== '') parts.push({ type: 'text', text });
    text = '';
  };
  for (let i = segmentAt(line.segments, offset); i < line.segments.length && position < line.total; i++) {
    const segment = line.segments[i] as Segment;
    if ('text' in segment) {
      const from = position - segment.start;
      if (from >= segment.text.length) continue;
      const n = take(segment.text, from, Math.max(1, room - chars));
      if (chars > 0 && chars + n > room) break;
      text += segment.text.slice(from, from + n);
      chars += n;
      position += n;
      if (from + n < segment.text.length) break; // cut inside this text: the page is full
      continue;
    }
    if (refer !== undefined) {
      const reference = refer(segment.part, segment.start);
      if (chars > 0 && chars + reference.length > room) break;
      flush();
      parts.push({ type: 'text', text: reference });
      chars += reference.length;
    } else {
      const cost = partCost(segment.part);
      if (chars > 0 && chars + cost > room) break;
      flush();
      parts.push(segment.part);
      chars += cost;
    }
    position += 1;
  }
  flush();
  return { parts, end: position, chars };
}

/** `position`, or the one before when it falls inside a surrogate pair of a text (a page never starts with half a pair). */
export function pairStart(line: ResultLine, position: number): number {
  const segment = line.segments[segmentAt(line.segments, position)];
  if (segment === undefined || !('text' in segment)) return position;
  const at = position - segment.start;
  const low = segment.text.charCodeAt(at);
  const high = segment.text.charCodeAt(at - 1);
  return at > 0 && low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? position - 1 : position;
}

/** The text of the line between two positions (tests and digests: the pages joined are this). */
export function lineText(line: ResultLine): string {
  return line.segments.map((s) => ('text' in s ? s.text : '')).join('');
}
