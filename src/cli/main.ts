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

const GLOBAL_FLAGS = new Set(['--json', '--debug', '--show-secrets']);
// Every flag agt itself reads, wherever it stands before `--` (--store takes a value).
const AGT_FLAGS = [...GLOBAL_FLAGS, '--store'];

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
}

function parseCommandLine(raw: string[]): CommandLine {
  const split = raw.indexOf('--');
  const head = dashValues(split === -1 ? raw : raw.slice(0, split));
  const storeAt = head.indexOf('--store');
  const store = storeAt >= 0 ? head[storeAt + 1] : undefined;
  const rest = head.filter((a, i) => !GLOBAL_FLAGS.has(a) && !(storeAt >= 0 && (i === storeAt || i === storeAt + 1)));
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
  };
}

// `agt --help`, `agt help [group [verb]]`, `agt <group> --help`, `agt <group> <verb> --help`.
function helpFor(line: CommandLine): { text: string; code: number } | undefined {
  if (line.group === undefined) return { text: usage() as string, code: line.help ? EXIT.ok : EXIT.usage };
  if (line.group === 'help') {
    const text = usage(line.verb, line.args[0]);
    return text === undefined
      ? { text: `agt: no help for "${[line.verb, line.args[0]].join(' ').trim()}"; see agt --help`, code: EXIT.usage }
      : { text, code: EXIT.ok };
  }
  if (!line.help) return undefined;
  const text = usage(line.group, line.verb);
  if (text !== undefined) return { text, code: EXIT.ok };
  return { text: `agt: unknown command "${[line.group, line.verb].join(' ').trim()}"; see agt --help`, code: EXIT.usage };
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
  const help = helpFor(line);
  if (help !== undefined) {
    (help.code === EXIT.ok || line.group === undefined ? process.stdout : process.stderr).write(`${help.text}\n`);
    return help.code;
  }
  const group = line.group as string;
  if (group === 'completion') return completion(line);
  if (group !== 'mcp' && group !== 'agent' && group !== 'skill') {
    process.stderr.write(`agt: unknown command "${outsideText(group)}"; see agt --help\n`);
    return EXIT.usage;
  }
  const verb = line.verb === undefined ? undefined : (ALIASES[group]?.[line.verb] ?? line.verb);
  if (verb === undefined || !verbs(group).includes(verb)) {
    process.stderr.write(
      `agt: ${verb === undefined ? `agt ${group} needs a command` : `unknown command "agt ${group} ${outsideText(verb)}"`}: ${verbs(group).join(', ')} (agt ${group} --help)\n`,
    );
    return EXIT.usage;
  }
  if (group === 'mcp' && (verb === 'create' || verb === 'update')) warnServerFlags(line, `agt mcp ${line.verb ?? verb}`);
  let close: (() => Promise<void>) | undefined;
  try {
    const { openContext } = await import('./context.js');
    const ctx = openContext({ ...(line.store ? { store: line.store } : {}), json: line.json, showSecrets: line.showSecrets });
    close = () => ctx.store.close();
    const invocation = { verb, args: line.args, ...(line.command ? { command: line.command } : {}) };
    if (group === 'agent') return await (await import('./agent-commands.js')).agentCommand(invocation.verb, invocation.args, ctx);
    if (group === 'skill') return await (await import('./skill-commands.js')).skillCommand(invocation.verb, invocation.args, ctx);
    return await (await import('./mcp/mcp-commands.js')).mcpCommand(invocation, ctx);
  } catch (error) {
    return reportError(error, line);
  } finally {
    await close?.();
  }
}

// Everything after `--` is the server's (documented), so an agt flag there goes to the server and agt runs without it
// (`-- cmd --store x.db` registers in the default store). Said on stderr; the command still runs as typed.
function warnServerFlags(line: CommandLine, typed: string): void {
  const agtFlag = (a: string) => AGT_FLAGS.find((f) => a === f || a.startsWith(`${f}=`));
  const flags = [...new Set((line.command ?? []).map(agtFlag).filter((f): f is string => f !== undefined))];
  if (flags.length === 0) return;
  const shape = flags.map((f) => (f === '--store' ? '--store PATH' : f)).join(' ');
  process.stderr.write(
    `agt: warning: ${flags.join(', ')} after -- went to the server as its argument${flags.length === 1 ? '' : 's'}, not to agt; agt's own flags go before --: ${typed} <category/name> ${shape} -- COMMAND ARGS…\n`,
  );
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
    process.stderr.write(`agt: ${(error as Error).message}; see agt ${[line.group, line.verb].filter(Boolean).join(' ')} --help\n`);
    return EXIT.usage;
  }
  process.stderr.write(
    `agt: unexpected error: ${(error as Error)?.message ?? String(error)}${line.debug ? '' : ' (run with --debug for details)'}\n`,
  );
  return EXIT.failed;
}
