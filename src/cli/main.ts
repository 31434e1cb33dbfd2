/**
 * `agt`: the command line over the same services the framework tools use
 * (R2, P2, A3, A6, A7). It parses arguments and prints; nothing else. The
 * command modules (and the SDK, the store) load only when a command runs, so
 * `agt --help` and usage errors answer at once.
 */
import { cliMessage } from './terminal/words.js';
import { isAgtError } from '../errors.js';
import { ALIASES, usage, verbs } from './usage/help.js';
import { CODE_EXIT, EXIT, stderrBlock } from './terminal/terminal.js';
import { outsideJson, outsideText } from '../outside-text.js';
import { defined } from '../json.js';
import type { Told } from './mcp/command-warning.js';

// The flags agt itself reads wherever they stand before `--`; --store also takes a value (`--store PATH`, `--store=PATH`).
const GLOBAL_FLAGS = new Set(['--json', '--debug', '--show-secrets']);
// How much of a command name the user typed a message quotes.
const QUOTED = 64;

// `--arg -y` would read as an option: a dash-led value after --arg is taken as the value.
function dashValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const next = argv[i + 1];
    if (argv[i] === '--arg' && next !== undefined && next.startsWith('-')) {
      out.push(`--arg=${next}`);
      i += 1;
    } else out.push(argv[i] as string);
  }
  return out;
}

/** The parsed command line: global flags, the command, its own arguments, and what follows `--`. */
interface CommandLine {
  group?: string;
  verb?: string;
  args: string[];
  /** Everything after the first `--`: the server's command and arguments (`agt mcp add ref -- npx -y pkg`). */
  command?: string[];
  json: boolean;
  debug: boolean;
  showSecrets: boolean;
  store?: string;
  help: boolean;
  /** A usage error in the global flags (a --store without its path, or given twice). */
  problem?: string;
}

// --store PATH or --store=PATH, once: the path, the arguments without it, and what is wrong with it.
function storeFlag(head: string[]): { store?: string; rest: string[]; problem?: string } {
  const rest: string[] = [];
  const stores: (string | undefined)[] = [];
  for (let i = 0; i < head.length; i++) {
    const a = head[i] as string;
    if (a === '--store') stores.push(head[++i]);
    else if (a.startsWith('--store=')) stores.push(a.slice('--store='.length));
    else rest.push(a);
  }
  const store = stores[0];
  if (stores.length > 1) return { rest, problem: '--store is given more than once; give one store' };
  if (stores.length === 1 && (store === undefined || store === '')) return { rest, problem: '--store needs a path: agt --store PATH …' };
  return { ...defined({ store }), rest };
}

function parseCommandLine(raw: string[]): CommandLine {
  const split = raw.indexOf('--');
  const head = dashValues(split === -1 ? raw : raw.slice(0, split));
  const { store, problem, rest: unstored } = storeFlag(head);
  const rest = unstored.filter((a) => !GLOBAL_FLAGS.has(a));
  const help = rest.some((a) => a === '--help' || a === '-h');
  const [group, verb, ...args] = rest.filter((a) => a !== '--help' && a !== '-h');
  return {
    ...defined({ group }),
    ...defined({ verb }),
    args,
    ...(split === -1 ? {} : { command: raw.slice(split + 1) }),
    json: head.includes('--json'),
    debug: head.includes('--debug'),
    showSecrets: head.includes('--show-secrets'),
    ...defined({ store }),
    help,
    ...defined({ problem }),
  };
}

// The switches agt got before `--` (the same one after it changes nothing for agt; a second --store path might).
function given(line: CommandLine): Set<string> {
  const flags = { '--json': line.json, '--debug': line.debug, '--show-secrets': line.showSecrets };
  return new Set(Object.keys(flags).filter((f) => flags[f as keyof typeof flags]));
}

// `agt --help`, `agt help [group [verb]]`, `agt <group> --help`, `agt <group> <verb> --help`.
function helpFor(line: CommandLine): { text: string; code: number } | undefined {
  if (line.group === undefined) return { text: usage() as string, code: line.help ? EXIT.ok : EXIT.usage };
  if (line.group === 'help') {
    const text = usage(line.verb, line.args[0]);
    return text === undefined
      ? {
          text: `agt: no help for "${outsideText([line.verb, line.args[0]].join(' ').trim(), { max: QUOTED })}"; see agt --help`,
          code: EXIT.usage,
        }
      : { text, code: EXIT.ok };
  }
  if (!line.help) return undefined;
  const text = usage(line.group, line.verb);
  if (text !== undefined) return { text, code: EXIT.ok };
  return {
    text: `agt: unknown command "${outsideText([line.group, line.verb].join(' ').trim(), { max: QUOTED })}"; see agt --help`,
    code: EXIT.usage,
  };
}

/** Runs `agt` with these arguments; returns the exit code. */
export async function main(rawArgv: string[]): Promise<number> {
  // A7: the old master switch fails loudly wherever it appears.
  if (rawArgv.some((a) => a === '--allow-mcp' || a.startsWith('--allow-mcp='))) {
    process.stderr.write(
      "agt: --allow-mcp was removed: an agent's MCP access is its mounts and the permission policy. Stop passing --allow-mcp.\n",
    );
    return EXIT.usage;
  }
  const line = parseCommandLine(rawArgv);
  if (line.problem !== undefined) {
    process.stderr.write(`agt: ${line.problem}\n`);
    return EXIT.usage;
  }
  const help = helpFor(line);
  if (help !== undefined) {
    (help.code === EXIT.ok || line.group === undefined ? process.stdout : process.stderr).write(`${help.text}\n`);
    return help.code;
  }
  const group = line.group as string;
  if (group === 'completion') return completion(line);
  if (group !== 'mcp' && group !== 'agent' && group !== 'skill') {
    process.stderr.write(`agt: unknown command "${outsideText(group, { max: QUOTED })}"; see agt --help\n`);
    return EXIT.usage;
  }
  const verb = line.verb === undefined ? undefined : (ALIASES[group]?.[line.verb] ?? line.verb);
  if (verb === undefined || !verbs(group).includes(verb)) {
    process.stderr.write(
      `agt: ${verb === undefined ? `agt ${group} needs a command` : `unknown command "agt ${group} ${outsideText(verb, { max: QUOTED })}"`}: ${verbs(group).join(', ')} (agt ${group} --help)\n`,
    );
    return EXIT.usage;
  }
  let close: (() => Promise<void>) | undefined;
  let told: readonly Told[] = []; // what agt says of the command line: with the output, or before the error
  try {
    if (group === 'mcp' && (verb === 'create' || verb === 'update') && line.command !== undefined)
      told = (await import('./mcp/command-warning.js')).serverFlags(
        line.command,
        `agt mcp ${line.verb as string}`,
        verb === 'update',
        given(line),
      );
    const { openContext } = await import('./context.js');
    const ctx = openContext({ ...(line.store ? { store: line.store } : {}), json: line.json, showSecrets: line.showSecrets });
    close = () => ctx.store.close();
    const invocation = { verb, args: line.args, ...(line.command ? { command: line.command } : {}), told };
    if (group === 'agent') return await (await import('./agent-commands.js')).agentCommand(invocation.verb, invocation.args, ctx);
    if (group === 'skill') return await (await import('./skill-commands.js')).skillCommand(invocation.verb, invocation.args, ctx);
    return await (await import('./mcp/mcp-commands.js')).mcpCommand(invocation, ctx);
  } catch (error) {
    if (told.length > 0) process.stderr.write((await import('./mcp/command-warning.js')).toldLines(told).join('\n') + '\n');
    return reportError(error, line);
  } finally {
    await close?.();
  }
}

// `agt completion bash|zsh|fish` prints a script; the hidden `agt completion refs mcp|agent` lists references for it.
async function completion(line: CommandLine): Promise<number> {
  if (line.verb === 'refs') {
    const kind = line.args[0] === 'agent' ? 'agent' : 'mcp';
    try {
      const { openContext } = await import('./context.js');
      const ctx = openContext({ ...(line.store ? { store: line.store } : {}), json: false });
      try {
        const records = await ctx.service.list({ kind });
        process.stdout.write(records.map((r) => `${r.reference}\n`).join(''));
      } finally {
        await ctx.store.close();
      }
      return EXIT.ok;
    } catch {
      return EXIT.store; // completion stays quiet: no store, no references
    }
  }
  const { completionScript } = await import('./usage/completion.js');
  const script = line.verb === undefined ? undefined : completionScript(line.verb);
  if (script === undefined) {
    process.stderr.write('agt: usage: agt completion bash|zsh|fish\n');
    return EXIT.usage;
  }
  process.stdout.write(script);
  return EXIT.ok;
}

function reportError(error: unknown, line: CommandLine): number {
  if (line.debug) process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  if (isAgtError(error)) {
    const message = cliMessage(error);
    if (line.json) process.stdout.write(`${outsideJson({ error: { code: error.code, message, details: error.details } }, 2)}\n`);
    process.stderr.write(`agt: ${error.code}: ${outsideText(message)}\n`);
    // The server's own words are usually the real reason a start failed (--json carries them in details).
    const tail = error.details?.stderrTail;
    if (!line.json && typeof tail === 'string' && tail.trim() !== '') process.stderr.write(`${stderrBlock(tail)}\n`);
    return CODE_EXIT[error.code];
  }
  const code = (error as { code?: string })?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(
      `agt: ${outsideText((error as Error).message)}; see agt ${[line.group, line.verb].filter(Boolean).join(' ')} --help\n`,
    );
    return EXIT.usage;
  }
  process.stderr.write(
    `agt: unexpected error: ${outsideText((error as Error)?.message ?? String(error))}${line.debug ? '' : ' (run with --debug for details)'}\n`,
  );
  return EXIT.failed;
}
