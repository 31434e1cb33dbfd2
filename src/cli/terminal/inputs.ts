/**
 * Values for a config's `${input:id}` placeholders: `--input id=VALUE`, else
 * asked for on a terminal (without echo for `password` inputs). Values are kept
 * in memory for this command only; they are never stored or printed.
 */
import { AgtError } from '../../errors.js';
import type { McpDocument } from '../../config/mcp-config.js';
import { documentInputs } from '../../config/variables.js';
import { keyValues } from '../files.js';

/** True when the CLI may ask: both stdin and stderr are terminals. */
export function canPrompt(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** The values of `--input id=VALUE` flags plus the answers to prompts for the rest (on a terminal). */
export async function collectInputs(
  document: McpDocument,
  flags: string[] | undefined,
  prompt = canPrompt(),
): Promise<Record<string, string>> {
  const values = keyValues(flags, '=', '--input');
  for (const input of documentInputs(document)) {
    if (Object.hasOwn(values, input.id) || !prompt) continue;
    values[input.id] = await ask(
      `${input.description ?? `value for \${input:${input.id}}`}${input.password ? ' (hidden)' : ''}: `,
      input.password === true,
      input.id,
    );
  }
  return values;
}

// One line from the terminal in raw mode: echoed unless hidden; Ctrl-C or Ctrl-D on an empty line cancels.
function ask(question: string, hidden: boolean, id: string): Promise<string> {
  const stdin = process.stdin;
  // Raw mode before the question: an answer typed at once is never echoed by the terminal.
  stdin.setEncoding('utf8');
  stdin.setRawMode(true);
  process.stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (error?: AgtError) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003' || (ch === '\u0004' && value === ''))
          return finish(new AgtError('cancelled', `cancelled at the prompt for input "${id}"`, { details: { input: id } }));
        if (ch === '\u007f' || ch === '\b') {
          if (value.length > 0 && !hidden) process.stderr.write('\b \b');
          value = value.slice(0, -1);
        } else if (ch >= ' ') {
          value += ch;
          if (!hidden) process.stderr.write(ch);
        }
      }
      return undefined;
    };
    stdin.resume();
    stdin.on('data', onData);
  });
}
