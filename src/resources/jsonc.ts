/**
 * JSONC, as VS Code writes mcp.json: JSON with `//` and `/* … *\/` comments and
 * trailing commas. Both are blanked outside strings (same length, newlines
 * kept, so JSON.parse positions still point into the file), then JSON.parse reads it.
 */

const blank = (text: string) => text.replace(/[^\n]/g, ' ');

// The end of the string literal that starts at `i` (the index after its closing quote).
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  return j + 1;
}

function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    let stop = i + 1;
    if (c === '"') stop = stringEnd(text, i);
    else if (c === '/' && text[i + 1] === '/') stop = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
    else if (c === '/' && text[i + 1] === '*') stop = text.indexOf('*/', i + 2) === -1 ? text.length : text.indexOf('*/', i + 2) + 2;
    out += c === '/' && stop > i + 1 ? blank(text.slice(i, stop)) : text.slice(i, stop);
    i = stop;
  }
  return out;
}

function withoutTrailingCommas(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      const stop = stringEnd(text, i);
      out += text.slice(i, stop);
      i = stop;
      continue;
    }
    let next = i + 1;
    if (c === ',') while (next < text.length && /\s/.test(text[next] as string)) next += 1;
    out += c === ',' && (text[next] === '}' || text[next] === ']') ? ' ' : c;
    i += 1;
  }
  return out;
}

/** Parses JSON with comments and trailing commas. */
export function parseJsonc(text: string): unknown {
  return JSON.parse(withoutTrailingCommas(withoutComments(text)));
}
