/**
 * The tools of the fixture server (`agt-mcp/testing`): small, deterministic,
 * one of each outcome a host test needs — text, structured content, a
 * business error with a code, a call that waits (for timeouts and
 * cancellation), and an environment check that never returns a value.
 */
import * as v from 'valibot';
import { defineTool, type ServableTool, toolError } from '../authoring/define-tool.js';

// None of them changes anything: a readOnly policy lets them through, and `agt mcp check` calls each.
const READ_ONLY = { readOnlyHint: true } as const;

/** The fixture server's tools, defined once with valibot (C2). */
export function fixtureTools(): ServableTool[] {
  return [
    defineTool({
      name: 'echo',
      description: 'Return the message as text.',
      annotations: READ_ONLY,
      input: v.strictObject({ message: v.pipe(v.string(), v.maxLength(10_000)) }),
      handler: ({ message }) => message,
    }),
    defineTool({
      name: 'add',
      description: 'Add two integers; the sum comes back as structured content.',
      annotations: READ_ONLY,
      input: v.strictObject({ a: v.pipe(v.number(), v.integer()), b: v.pipe(v.number(), v.integer()) }),
      handler: ({ a, b }) => ({ sum: a + b }),
    }),
    defineTool({
      name: 'fail',
      description: 'Fail with the given error code (a business error, as a tool error).',
      annotations: READ_ONLY,
      input: v.strictObject({
        code: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_]{0,63}$/)),
        message: v.optional(v.pipe(v.string(), v.maxLength(500))),
      }),
      handler: ({ code, message }) => toolError(code, message ?? `failed with ${code} on request`),
    }),
    defineTool({
      name: 'sleep',
      description: 'Wait ms milliseconds (ends early when the call is cancelled).',
      annotations: READ_ONLY,
      input: v.strictObject({ ms: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(600_000)) }),
      handler: ({ ms }, { signal }) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => resolve({ slept: ms }), ms);
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              reject(toolError('cancelled', 'the call was cancelled'));
            },
            { once: true },
          );
        }),
    }),
    defineTool({
      name: 'env',
      description: 'Whether an environment variable is set, and its length (never its value).',
      annotations: READ_ONLY,
      input: v.strictObject({ name: v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)) }),
      handler: ({ name }) => ({ set: process.env[name] !== undefined, length: process.env[name]?.length ?? 0 }),
    }),
  ];
}
