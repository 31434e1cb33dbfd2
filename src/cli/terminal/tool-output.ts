/**
 * Reading a developer's tool arguments from the command line, and showing what
 * a server answers: text parts as text, other parts by kind and size,
 * structured content as indented JSON.
 */
import { AgtError } from '../../errors.js';
import { isPlainObject, setOwn } from '../../json.js';
import { outsideJson } from '../../outside-text.js';

/** A `--arg` value: JSON when it parses (`n=3` is a number, `s="3"` a string, `o={"a":1}` an object), else the text as written. */
export function argValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The arguments of a call: `--args JSON` (or the `--args-file` contents), then
 * each `--arg key=value` on top. `json`: read `--arg` values as JSON (prompts
 * take strings as written).
 */
export function toolArguments(
  argsJson: string | undefined,
  fileValue: unknown,
  pairs: readonly string[] | undefined,
  json = true,
): Record<string, unknown> {
  let base: unknown = fileValue ?? {};
  if (argsJson !== undefined) {
    try {
      base = JSON.parse(argsJson);
    } catch (error) {
      const at = /position (\d+)/.exec((error as Error).message)?.[1];
      throw new AgtError(
        'invalid_input',
        `--args is not valid JSON${at === undefined ? ' (it ends too early)' : ` (at character ${at})`}; give an object such as '{"path": "/tmp"}'`,
        { details: { flag: '--args', ...(at === undefined ? {} : { position: Number(at) }) } },
      );
    }
  }
  if (!isPlainObject(base)) throw new AgtError('invalid_input', 'the arguments must be a JSON object ({"key": value, …})');
  const out: Record<string, unknown> = { ...base };
  for (const pair of pairs ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new AgtError('invalid_input', '--arg must look like key=value (the value is read as JSON when it parses)');
    const value = pair.slice(at + 1);
    setOwn(out, pair.slice(0, at), json ? argValue(value) : value);
  }
  return out;
}

// One content part as lines: text as is, the rest by kind.
function partLines(part: unknown): string[] {
  if (!isPlainObject(part)) return ['[a part that is not an object]'];
  switch (part.type) {
    case 'text':
      return [String(part.text ?? '')];
    case 'image':
    case 'audio':
      return [
        `[${part.type} ${String(part.mimeType ?? '')}, ${typeof part.data === 'string' ? Buffer.byteLength(part.data, 'base64') : 0} bytes]`,
      ];
    case 'resource_link':
      return [`[resource link ${String(part.uri ?? '')}${part.name === undefined ? '' : ` (${String(part.name)})`}]`];
    case 'resource': {
      const resource = isPlainObject(part.resource) ? part.resource : {};
      if (typeof resource.text === 'string') return [`[resource ${String(resource.uri ?? '')}]`, resource.text];
      return [
        `[resource ${String(resource.uri ?? '')}, ${typeof resource.blob === 'string' ? Buffer.byteLength(resource.blob, 'base64') : 0} bytes]`,
      ];
    }
    default:
      return [`[${String(part.type)} part]`];
  }
}

/** A result's content parts as lines. */
export function contentLines(content: readonly unknown[]): string[] {
  return content.flatMap(partLines);
}

/** Structured content under a heading that says how it was checked. */
export function structuredLines(value: unknown, checked: string): string[] {
  return [
    `structuredContent (${checked}):`,
    ...outsideJson(value, 2)
      .split('\n')
      .map((l) => `  ${l}`),
  ];
}
