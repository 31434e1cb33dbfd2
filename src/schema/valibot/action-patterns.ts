/**
 * Valibot string actions as exact JSON Schema patterns (C2). `v.email()`,
 * `v.uuid()`, `v.isoDate()`, `v.isoDateTime()` … check a regular expression;
 * @valibot/to-json-schema publishes them as a `format`, which JSON Schema only
 * annotates. Where the expression can be written as a flag-free `pattern`
 * that matches exactly the same strings, that pattern is published (so the
 * registry, on the server and in hosts, checks what valibot checks), with
 * the format kept as an annotation where every string valibot accepts is in
 * the format's grammar. The `i` flag is spelt out (`[a-f]` → `[a-fA-F]`, and
 * the two non-ASCII letters that fold to ASCII under Unicode case folding:
 * U+212A KELVIN SIGN to k, U+017F LONG S to s); what cannot be spelt out
 * exactly (`v.url()` runs `new URL`; look-arounds under `i`; `\W` or `\b`
 * under `iu`) is undefined, and the action stays refused.
 */

/** Actions checked by a regular expression that to-json-schema publishes as an annotation, and the format to keep. */
export const REGEX_ANNOTATIONS: Readonly<Record<string, { keepFormat: boolean }>> = {
  email: { keepFormat: true },
  rfc_email: { keepFormat: true },
  uuid: { keepFormat: true },
  ipv4: { keepFormat: true },
  // Valibot's ipv6 accepts a zone index (fe80::1%eth0), which format "ipv6" does not.
  ipv6: { keepFormat: false },
  // Valibot checks the shape only (2024-02-31 passes); format "date" is that shape plus the calendar.
  iso_date: { keepFormat: true },
  // hh:mm, a space allowed for T, offsets without a colon: not RFC 3339's date-time or time.
  iso_date_time: { keepFormat: false },
  iso_timestamp: { keepFormat: false },
  iso_time: { keepFormat: false },
  base64: { keepFormat: true },
};

const KELVIN = '\\u212A';
const LONG_S = '\\u017F';
// Under Unicode case folding these ASCII letters have a third, non-ASCII member.
const EXTRA_FOLDS: Readonly<Record<string, string>> = { k: KELVIN, K: KELVIN, s: LONG_S, S: LONG_S };

/** `regex` as a flag-free pattern that matches exactly the same strings, or undefined when that cannot be guaranteed. */
export function exactPattern(regex: RegExp): string | undefined {
  const flags = new Set(regex.flags);
  for (const f of flags) if (f !== 'i' && f !== 'u') return undefined; // g, y: stateful; m, s, v: other meanings
  try {
    new RegExp(regex.source, 'u'); // a pattern is read in Unicode mode
  } catch {
    return undefined;
  }
  if (!flags.has('u') && !sameWithoutUnicode(regex.source)) return undefined;
  if (!flags.has('i')) return regex.source;
  return caseSpelled(regex.source, flags.has('u'));
}

// A source read the same with and without the u flag: ASCII, and nothing that matches one UTF-16 unit of an astral character.
function sameWithoutUnicode(source: string): boolean {
  if (!/^[\x20-\x7e]*$/.test(source)) return false;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '\\') {
      const next = source[++i] ?? '';
      if ('SWDBbupPxck'.includes(next) || /\d/.test(next)) return false;
    } else if (c === '[') {
      if (inClass || source[i + 1] === '^') return false;
      inClass = true;
    } else if (c === ']') inClass = false;
    else if (c === '.' && !inClass) return false;
  }
  return true;
}

// The `i` source with every letter's case variants written out; undefined where that is not exact. Only
// Unicode case folding (`iu`) adds the non-ASCII variants: without `u`, no non-ASCII letter matches an ASCII one.
function caseSpelled(source: string, unicode: boolean): string | undefined {
  const extras = unicode ? EXTRA_FOLDS : {};
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === '\\') {
      const next = source[++i];
      if (next === undefined) return undefined;
      if (next === 'w' && unicode) out += inClass ? `\\w${KELVIN}${LONG_S}` : `[\\w${KELVIN}${LONG_S}]`;
      else if (next === 'w') out += '\\w';
      else if (/[a-zA-Z0-9]/.test(next) && !'dDsStnrfv'.includes(next))
        return undefined; // \W \b \p \u \x \k \1 …: not spelt out
      else out += `\\${next}`;
      continue;
    }
    if (c === '(' && source[i + 1] === '?' && source[i + 2] !== ':') return undefined; // look-arounds, named groups
    if (c === '[' && !inClass) {
      inClass = true;
      out += c;
      if (source[i + 1] === '^') out += source[++i]; // [^X] under i is the complement of X's case closure
      continue;
    }
    if (c === ']' && inClass) {
      inClass = false;
      out += c;
      continue;
    }
    if (inClass && source[i + 1] === '-' && source[i + 2] !== undefined && source[i + 2] !== ']') {
      const hi = source[i + 2] as string;
      if (hi === '\\') return undefined;
      const range = rangeVariants(c, hi, extras);
      if (range === undefined) return undefined;
      out += range;
      i += 2;
      continue;
    }
    if (c.codePointAt(0)! > 0x7f) return undefined;
    const variants = letterVariants(c, extras);
    out += variants === c ? c : inClass ? variants : `[${variants}]`;
  }
  return out;
}

// A letter and its case variants (the letter alone when it has none).
function letterVariants(c: string, extras: Readonly<Record<string, string>>): string {
  if (!/[a-zA-Z]/.test(c)) return c;
  const other = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
  return `${c}${other}${extras[c] ?? ''}`;
}

// A class range `lo-hi` with its case variants; undefined beyond ASCII.
function rangeVariants(lo: string, hi: string, extras: Readonly<Record<string, string>>): string | undefined {
  const from = lo.charCodeAt(0);
  const to = hi.charCodeAt(0);
  if (from > 0x7f || to > 0x7f || from > to) return undefined;
  let out = `${lo}-${hi}`;
  const extra = new Set<string>();
  for (const [a, b, shift] of [
    [0x61, 0x7a, -32],
    [0x41, 0x5a, 32],
  ] as const) {
    const start = Math.max(from, a);
    const end = Math.min(to, b);
    if (start > end) continue;
    out += `${String.fromCharCode(start + shift)}-${String.fromCharCode(end + shift)}`;
    for (let code = start; code <= end; code++) {
      const fold = extras[String.fromCharCode(code)];
      if (fold !== undefined) extra.add(fold);
    }
  }
  return out + [...extra].join('');
}
