/**
 * JSONC, read as VS Code reads mcp.json: Microsoft's `jsonc-parser` (the
 * parser VS Code uses) with comments and trailing commas allowed, a leading
 * BOM skipped. Its tokens are built into values here, with every key an own
 * property ("__proto__" too, as JSON.parse does), and the nesting is checked
 * by a linear scan before the parser's recursion ever sees the text.
 */
import { createScanner, type ParseErrorCode, printParseErrorCode, visit } from 'jsonc-parser';
import { setOwn } from '../json.js';
import { MAX_JSONC_DEPTH } from '../bounds.js';

/** A JSONC text that cannot be read: the first problem, at a character offset of the text (UTF-16, as JSON.parse counts). */
export class JsoncError extends SyntaxError {
  /** The character offset of the problem, counted from the start of the text (a BOM counts). */
  readonly position: number;
  /** What is wrong, as jsonc-parser names it (`CommaExpected`, `CloseBraceExpected`, …), or `TooDeep`. */
  readonly reason: string;

  constructor(reason: string, position: number) {
    super(`JSONC: ${reason} at position ${position}`);
    this.name = 'JsoncError';
    this.position = position;
    this.reason = reason;
  }
}

// jsonc-parser's SyntaxKind values (a const enum, which isolated modules cannot read).
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const EOF = 17;

// The deepest nesting of the text's arrays and objects, stopping at `limit` (one linear pass, no recursion).
function depthExceeds(text: string, limit: number): number | undefined {
  const scanner = createScanner(text, true);
  let depth = 0;
  for (let token: number = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return scanner.getTokenOffset();
    } else if (token === CLOSE_BRACE || token === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return undefined;
}

// Errors jsonc-parser reports at the start of a string token; JSON.parse names the character itself.
const STRING_ERRORS = new Set(['UnexpectedEndOfString', 'InvalidCharacter', 'InvalidEscapeCharacter', 'InvalidUnicode']);
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX = /^[0-9a-fA-F]$/;

// The offset of the first character that breaks the string token at `offset` (its end when it is unterminated).
function stringProblemAt(text: string, offset: number, length: number): number {
  const end = Math.min(text.length, offset + length);
  for (let i = offset + 1; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) return i;
    if (text[i] === '"') return end;
    if (text[i] !== '\\') continue;
    const next = text[i + 1] ?? '';
    if (next === 'u') {
      for (let k = i + 2; k < i + 6; k++) if (!HEX.test(text[k] ?? '')) return k;
      i += 5;
    } else if (!ESCAPES.has(next)) {
      return i + 1;
    } else {
      i += 1;
    }
  }
  return end;
}

/** Parses JSON with comments and trailing commas (and a leading BOM); throws JsoncError naming the first problem's position. */
export function parseJsonc(text: string): unknown {
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const body = bom === 1 ? text.slice(1) : text;
  const deep = depthExceeds(body, MAX_JSONC_DEPTH);
  if (deep !== undefined) throw new JsoncError('TooDeep', deep + bom);
  const root: unknown[] = [];
  const parents: (unknown[] | Record<string, unknown>)[] = [];
  let parent: unknown[] | Record<string, unknown> = root;
  let key: string | undefined;
  let error: { code: ParseErrorCode; offset: number } | undefined;
  const add = (value: unknown) => {
    if (Array.isArray(parent)) parent.push(value);
    else if (key !== undefined) setOwn(parent, key, value);
  };
  const open = (value: unknown[] | Record<string, unknown>) => {
    add(value);
    parents.push(parent);
    parent = value;
    key = undefined;
  };
  const close = () => {
    parent = parents.pop() ?? root;
  };
  visit(
    body,
    {
      onObjectBegin: () => open({}),
      onObjectProperty: (name) => {
        key = name;
      },
      onObjectEnd: close,
      onArrayBegin: () => open([]),
      onArrayEnd: close,
      onLiteralValue: add,
      onError: (code, offset, length) => {
        error ??= { code, offset: STRING_ERRORS.has(printParseErrorCode(code)) ? stringProblemAt(body, offset, length) : offset };
      },
    },
    { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false },
  );
  if (error !== undefined) throw new JsoncError(printParseErrorCode(error.code), error.offset + bom);
  return root[0];
}
