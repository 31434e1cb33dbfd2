/**
 * The tool developer's commands: `agt mcp call`, `read`, `prompt`,
 * `resources`, `prompts`, `ping`. A call goes through the run's own stages
 * (MountSession): its arguments are validated against the tool's inputSchema
 * before anything is sent (B4), its structured result is checked against the
 * outputSchema, secrets are masked as in a run.
 */
import { oneLine, outsideText } from '../../outside-text.js';
import { parseArgs } from 'node:util';
import { AgtError } from '../../errors.js';
import { connectMcp } from '../../mcp/connect.js';
import type { McpConnection, McpInputRequired } from '../../mcp/connection.js';
import { MountSession } from '../../runtime/mount-session.js';
import type { ToolResult } from '../../runtime/types.js';
import type { ArgumentIssue } from '../../schema/issues/issues.js';
import { type CliContext, emit, EXIT } from '../context.js';
import { readConfigFile } from '../files.js';
import { interruptible, SESSION_OPTIONS, sessionTarget } from './mcp-session.js';
import { contentLines, structuredLines, toolArguments } from '../terminal/tool-output.js';
import { CODE_EXIT, sandboxNotes, stderrBlock } from '../terminal/terminal.js';
import { DEFER } from '../../mcp/requests/client-handlers.js';
import { answeredRetry, parseAnswers, terminalElicitation, waitForAnswers } from '../terminal/questions.js';
import { waitingKey, writeWaiting } from '../store-files/waiting-file.js';
import { budgetFlag, cutNotice, cutResult } from '../terminal/result-cut.js';

const CALL_USAGE =
  'agt mcp call <ref> <tool> [--arg key=value]… [--args JSON | --args-file FILE] [--timeout MS] [--input id=VALUE]… [--answer KEY=JSON]… [--decline] [--detach] [--full | --budget TOKENS]';

/** `agt mcp call REF TOOL …`: one call through the run's stages; exit 0 ok, 1 a tool error or invalid result, 2 invalid arguments. */
export async function callCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      ...SESSION_OPTIONS,
      arg: { type: 'string', multiple: true },
      args: { type: 'string' },
      'args-file': { type: 'string' },
      answer: { type: 'string', multiple: true },
      decline: { type: 'boolean' },
      detach: { type: 'boolean' },
      full: { type: 'boolean' },
      budget: { type: 'string' },
    },
  });
  if (positionals.length !== 2) throw new AgtError('invalid_input', `usage: ${CALL_USAGE}`);
  const tokens = budgetFlag(values.budget, values.full); // checked before anything starts; undefined: --full
  const [raw, tool] = positionals as [string, string];
  if (values.args !== undefined && values['args-file'] !== undefined)
    throw new AgtError('invalid_input', 'give the arguments as --args JSON or --args-file FILE, not both');
  const base = values['args-file'] === undefined ? undefined : await readConfigFile(values['args-file']);
  const callArgs = toolArguments(values.args, base, values.arg);
  // On a terminal the server's questions are asked there (either era); else they wait for --answer (2026-07-28).
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true && !ctx.json;
  const questions = interactive ? { elicitation: terminalElicitation(ctx) } : ({ elicitation: DEFER } as const);
  // --detach: a call the server runs as a task is handed back (its id printed) instead of waited for.
  const target = await sessionTarget(ctx, raw, values, CALL_USAGE, { ...questions, ...(values.detach ? { tasks: 'defer' as const } : {}) });
  if (values.detach === true && Object.values(target.document.mcpServers).some((server) => 'command' in server))
    // A stdio server ends with this command, and its tasks with it: a detached task could never be read (E6).
    throw new AgtError(
      'invalid_input',
      oneLine`--detach needs a server that outlives this command: "${target.reference}" runs over stdio, so it ends when agt mcp call ends, and its task with it. Wait for the result (leave out --detach), or serve it over HTTP and register its url (agt mcp add <ref> --url …)`,
      { details: { field: 'detach', reason: 'stdio_server' } },
    );
  const key = waitingKey(target.reference, target.revision, tool, callArgs);
  const retry = answeredRetry(ctx, key, tool, parseAnswers(values.answer), values.decline === true);
  const session = await MountSession.open(target.reference, { service: ctx.service, connect: target.connect });
  const progress = process.stderr.isTTY === true && !ctx.json;
  let outcome;
  let denied = ''; // P5: what the sandbox denied the server during the call (the runtime's note)
  try {
    outcome = await interruptible((signal) =>
      session.call(tool, callArgs, {
        signal,
        ...(retry ? { input: retry.input } : {}),
        ...(progress ? { onProgress: (p) => process.stderr.write(`\r\x1b[K${oneLine`${tool}: ${progressText(p)}`}`) } : {}),
      }),
    );
  } finally {
    if (progress) process.stderr.write('\r\x1b[K');
    denied = sandboxNotes(session.stderrTail());
    await session.close();
  }
  if ('asked' in outcome && outcome.asked.resultType === 'task') {
    // Detached: the server runs the call as a task; `agt mcp task get|result|cancel` reach it by id.
    const task = outcome.asked.task;
    emit(ctx, { reference: target.reference, tool, called: true, task }, () => oneLine`task ${task.id} ${task.status}`);
    return EXIT.ok;
  }
  if ('asked' in outcome)
    return waitForAnswers(ctx, target.reference, tool, key, outcome.asked as McpInputRequired, (retry?.round ?? 0) + 1);
  if (retry) writeWaiting(ctx.storeFile, key, undefined); // answered: nothing waits any more
  const { result: whole, called, route } = outcome;
  // B8: printed cut at the result budget as a run gives it to the model (--full: whole); the notice goes to stderr.
  const result = tokens === undefined ? whole : cutResult(whole, tokens);
  emit(ctx, { reference: target.reference, tool, called, result }, () => resultText(result, route.outputValidator !== undefined));
  const notice = tokens === undefined ? '' : cutNotice(whole, result, tokens);
  if (notice !== '' && !ctx.json) ctx.err(outsideText(notice));
  if (denied !== '' && !ctx.json) ctx.err(stderrBlock(denied));
  return exitOf(result);
}

function progressText(p: { progress: number; total?: number; message?: string }): string {
  const of = p.total === undefined ? `${p.progress}` : `${p.progress}/${p.total}`;
  return p.message === undefined ? of : `${of} ${p.message}`;
}

// What the user reads: the text parts, the structured result (and whether it matched its outputSchema), the error.
function resultText(result: ToolResult, checked: boolean): string {
  if (result.status === 'ok') {
    return [
      ...contentLines(result.content),
      ...(result.structuredContent === undefined
        ? []
        : structuredLines(result.structuredContent, checked ? 'matches its outputSchema' : 'no outputSchema declared')),
    ].join('\n');
  }
  if (result.status === 'invalid_arguments') {
    const issues = (result.error.details?.issues ?? []) as ArgumentIssue[];
    return [
      'invalid arguments (nothing was sent to the server):',
      ...issues.map((i) => oneLine`  ${i.instancePath === '' ? '(root)' : i.instancePath}: ${i.message}`),
    ].join('\n');
  }
  const content = result.error.details?.content;
  const lines = Array.isArray(content) ? contentLines(content) : [];
  return [
    oneLine`${result.status === 'tool_error' ? 'tool error' : 'failed'}: ${result.error.code}: ${result.error.message}`,
    ...lines,
  ].join('\n');
}

function exitOf(result: ToolResult): number {
  if (result.status === 'ok') return EXIT.ok;
  if (result.status === 'invalid_arguments') return EXIT.usage;
  if (result.status === 'tool_failed') return CODE_EXIT[result.error.code as keyof typeof CODE_EXIT] ?? EXIT.failed;
  return EXIT.failed;
}

/** Runs `work` on a connection to the stored server; closes it after. */
/** Runs `work` on a connection to the stored server `raw` names (Ctrl-C cancels it), then closes it. */
export async function withConnection<T>(
  ctx: CliContext,
  raw: string | undefined,
  values: { input?: string[]; timeout?: string },
  usage: string,
  work: (connection: McpConnection, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const target = await sessionTarget(ctx, raw, values, usage);
  const connection = await connectMcp(target.document, target.connect);
  try {
    return await interruptible((signal) => work(connection, signal));
  } finally {
    await connection.close();
  }
}

/** `agt mcp read REF URI`: a resource's contents (text printed, binary as its size). */
export async function readCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: SESSION_OPTIONS });
  const usage = 'agt mcp read <ref> <uri> [--timeout MS] [--input id=VALUE]…';
  if (positionals.length !== 2) throw new AgtError('invalid_input', `usage: ${usage}`);
  const uri = positionals[1] as string;
  const read = await withConnection(ctx, positionals[0], values, usage, (c, signal) => c.readResource(uri, { signal }));
  emit(ctx, read, () =>
    read.contents
      .map((c) => ('text' in c ? c.text : `[${c.mimeType ?? 'binary'} ${c.uri}: ${Buffer.byteLength(c.blob, 'base64')} bytes]`))
      .join('\n'),
  );
  return EXIT.ok;
}

/** `agt mcp prompt REF NAME [--arg key=value]…`: the prompt as the server renders it. */
export async function promptCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = { ...SESSION_OPTIONS, arg: { type: 'string', multiple: true } } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options });
  const usage = 'agt mcp prompt <ref> <name> [--arg key=value]… [--timeout MS] [--input id=VALUE]…';
  if (positionals.length !== 2) throw new AgtError('invalid_input', `usage: ${usage}`);
  const name = positionals[1] as string;
  // Prompt arguments are strings (MCP): a value is taken as written.
  const promptArgs: Record<string, string> = {};
  for (const [key, value] of Object.entries(toolArguments(undefined, undefined, values.arg, false))) promptArgs[key] = String(value);
  const prompt = await withConnection(ctx, positionals[0], values, usage, (c, signal) => c.getPrompt(name, promptArgs, { signal }));
  emit(ctx, prompt, () =>
    [
      ...(prompt.description ? [`# ${prompt.description}`] : []),
      ...prompt.messages.flatMap((m) => [`[${m.role}]`, ...contentLines([m.content]).map((l) => `  ${l}`)]),
    ].join('\n'),
  );
  return EXIT.ok;
}

/** `agt mcp resources REF`: the resources and resource templates, every page. */
export async function resourcesCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: SESSION_OPTIONS });
  const usage = 'agt mcp resources <ref> [--timeout MS] [--input id=VALUE]…';
  if (positionals.length !== 1) throw new AgtError('invalid_input', `usage: ${usage}`);
  const listed = await withConnection(ctx, positionals[0], values, usage, async (c) => ({
    resources: await c.listResources(),
    templates: await c.listResourceTemplates(),
  }));
  emit(ctx, listed, () =>
    [
      `${listed.resources.length} resource(s):`,
      ...listed.resources.map((r) => `  ${r.uri}  ${r.name}${r.mimeType ? ` (${r.mimeType})` : ''}`),
      ...(listed.templates.length === 0
        ? []
        : [`${listed.templates.length} template(s):`, ...listed.templates.map((t) => `  ${t.uriTemplate}  ${t.name}`)]),
    ].join('\n'),
  );
  return EXIT.ok;
}

/** `agt mcp prompts REF`: the prompts and their arguments. */
export async function promptsCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: SESSION_OPTIONS });
  const usage = 'agt mcp prompts <ref> [--timeout MS] [--input id=VALUE]…';
  if (positionals.length !== 1) throw new AgtError('invalid_input', `usage: ${usage}`);
  const prompts = await withConnection(ctx, positionals[0], values, usage, (c) => c.listPrompts());
  emit(ctx, prompts, () =>
    [
      `${prompts.length} prompt(s):`,
      ...prompts.map(
        (p) =>
          `  ${p.name}(${(p.arguments ?? []).map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ')})${p.description ? `  ${p.description}` : ''}`,
      ),
    ].join('\n'),
  );
  return EXIT.ok;
}

/** `agt mcp ping REF [--count N]`: the round trip of `ping` (after connecting), N times. */
export async function pingCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = { ...SESSION_OPTIONS, count: { type: 'string' } } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options });
  const usage = 'agt mcp ping <ref> [--count N] [--timeout MS] [--input id=VALUE]…';
  if (positionals.length !== 1) throw new AgtError('invalid_input', `usage: ${usage}`);
  const count = values.count === undefined ? 1 : Number(values.count);
  if (!Number.isInteger(count) || count < 1 || count > 1000)
    throw new AgtError('invalid_input', '--count must be a whole number from 1 to 1000');
  const started = performance.now();
  const measured = await withConnection(ctx, positionals[0], values, usage, async (c, signal) => {
    const connectMs = performance.now() - started;
    const pings: number[] = [];
    for (let i = 0; i < count; i++) pings.push(await c.ping({ signal }));
    return { connectMs, pings, server: c.serverInfo };
  });
  const sorted = [...measured.pings].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] as number;
  emit(
    ctx,
    { ...measured, medianMs: median },
    () =>
      `${measured.server.name} ${measured.server.version}: connected in ${measured.connectMs.toFixed(0)} ms; ping ${count === 1 ? `${median.toFixed(1)} ms` : `median ${median.toFixed(1)} ms of ${count} (min ${(sorted[0] as number).toFixed(1)}, max ${(sorted[sorted.length - 1] as number).toFixed(1)})`}`,
  );
  return EXIT.ok;
}
