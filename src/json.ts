/** Small guards for JSON values, shared by every layer. */

/** True for a non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `fields` without the ones whose value is undefined: optional properties without conditional spreads. */
export function defined<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) if (fields[key] !== undefined) setOwn(out, key, fields[key]);
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** Sets an own enumerable property, also for the key "__proto__" (an assignment would set the prototype instead). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** `value` as JSON carries it (a deep copy, through getters and proxies); undefined when JSON cannot (a cycle, a BigInt). */
export function jsonCopy(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** Why a value is not an acceptable JSON value within limits, or undefined when it is. */
export type JsonProblem = 'too_deep' | 'too_large' | 'cyclic' | 'not_json';

/** The bytes of `text` as a JSON string literal in UTF-8 (quotes and escapes included), as JSON.stringify writes it. */
export function jsonStringBytes(text: string): number {
  let bytes = 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c < 0x80) bytes += c === 0x22 || c === 0x5c ? 2 : 1;
    else if (c < 0x20) bytes += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair: one 4-byte code point
      i += 1;
    } else if (c >= 0xd800 && c <= 0xdfff)
      bytes += 6; // a lone surrogate is written as \uXXXX
    else bytes += 3;
  }
  return bytes;
}

function scalarBytes(v: unknown): number {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v).length : 4; // NaN and Infinity are written as null
  if (typeof v === 'boolean') return v ? 4 : 5;
  return 4; // null, and undefined inside an array
}

/**
 * Checks a (possibly hostile) value without recursion: nesting deeper than
 * `depth`, more than `bytes` bytes as UTF-8 JSON (counted exactly, as
 * JSON.stringify would write it), a cycle, or something JSON cannot hold.
 * Stops at the first problem and counts a container's commas before visiting
 * its members, so a huge value (a sparse `new Array(2e7)`, a 100 MB string)
 * costs little.
 */
export function jsonProblem(value: unknown, limits: { depth: number; bytes: number }): JsonProblem | undefined {
  const measured = measureJson(value, limits);
  return typeof measured === 'number' ? undefined : measured;
}

/** The exact UTF-8 JSON size of `value` in bytes, or the first problem found (see {@link jsonProblem}). */
export function measureJson(value: unknown, limits: { depth: number; bytes: number }): number | JsonProblem {
  let bytes = 0;
  const stack: { value: unknown; depth: number; exit?: object }[] = [{ value, depth: 0 }];
  const open = new Set<object>(); // the objects on the current path: one seen again is a cycle
  while (stack.length > 0) {
    const frame = stack.pop() as { value: unknown; depth: number; exit?: object };
    if (frame.exit !== undefined) {
      open.delete(frame.exit);
      continue;
    }
    const v = frame.value;
    if (typeof v === 'string') {
      if (bytes + v.length + 2 > limits.bytes) return 'too_large'; // every UTF-16 unit is at least one byte
      bytes += jsonStringBytes(v);
    } else if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) bytes += scalarBytes(v);
    else if (typeof v === 'object') {
      if (frame.depth >= limits.depth) return 'too_deep';
      if (open.has(v)) return 'cyclic';
      if (Array.isArray(v)) {
        bytes += 2 + Math.max(0, v.length - 1);
        if (bytes > limits.bytes) return 'too_large';
        open.add(v);
        stack.push({ value: undefined, depth: frame.depth, exit: v });
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: frame.depth + 1 });
      } else {
        const keys = Object.keys(v).filter((key) => (v as Record<string, unknown>)[key] !== undefined); // JSON leaves undefined members out
        bytes += 2 + Math.max(0, keys.length - 1);
        if (bytes > limits.bytes) return 'too_large';
        open.add(v);
        stack.push({ value: undefined, depth: frame.depth, exit: v });
        for (const key of keys) {
          bytes += jsonStringBytes(key) + 1;
          stack.push({ value: (v as Record<string, unknown>)[key], depth: frame.depth + 1 });
        }
      }
    } else return 'not_json'; // a function, a symbol, a BigInt
    if (bytes > limits.bytes) return 'too_large';
  }
  return bytes;
}

/**
 * One serialized JSON-RPC message made safe as a stdio line: U+2028 and U+2029 (legal raw in a JSON string) escaped
 * as `\u2028`/`\u2029` — the same JSON — since line readers that split on them (Node 24's readline does) would cut
 * the message in two.
 */
export function stdioLine(serialized: string): string {
  return serialized.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
}
