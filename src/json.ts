/** Small guards for JSON values, shared by every layer. */

/** True for a non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Sets an own enumerable property, also for the key "__proto__" (an assignment would set the prototype instead). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Why a value is not an acceptable JSON value within limits, or undefined when it is. */
export type JsonProblem = 'too_deep' | 'too_large' | 'cyclic' | 'not_json';

/**
 * Checks a (possibly hostile) value without recursion: nesting deeper than
 * `depth`, more than about `bytes` as JSON, a cycle, or something JSON cannot
 * hold. Stops at the first problem, so a huge value costs little.
 */
export function jsonProblem(value: unknown, limits: { depth: number; bytes: number }): JsonProblem | undefined {
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
    if (typeof v === 'string') bytes += v.length + 2;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) bytes += 8;
    else if (typeof v === 'object') {
      if (frame.depth >= limits.depth) return 'too_deep';
      if (open.has(v)) return 'cyclic';
      open.add(v);
      stack.push({ value: undefined, depth: frame.depth, exit: v });
      if (Array.isArray(v)) {
        bytes += 2 + v.length;
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth: frame.depth + 1 });
      } else {
        for (const key of Object.keys(v)) {
          bytes += key.length + 4;
          stack.push({ value: (v as Record<string, unknown>)[key], depth: frame.depth + 1 });
        }
      }
    } else return 'not_json'; // a function, a symbol, a BigInt
    if (bytes > limits.bytes) return 'too_large';
  }
  return undefined;
}
