/** `agt mcp …`: create (add), update, import, test, probe, call, task, read, app, prompt, resources, prompts, ping, list, show (get), delete (remove). */
import { oneLine, outsideJson } from '../../outside-text.js';
import { parseArgs } from 'node:util';
import { AgtError } from '../../errors.js';
import { type CliContext, cliDelete, emit, EXIT, inCli, mcpReference, positional, revisionFlag, shown } from '../context.js';
import { importCommand } from './mcp-import.js';
import { probeCommand, testCommand } from './mcp-probe.js';
import { addJsonCommand, createCommand, type McpInvocation, updateCommand } from './mcp-write.js';
import { defined } from '../../json.js';

type Verb = (args: string[], ctx: CliContext) => Promise<number>;

// The developer's verbs, each loaded only when it runs (the SDK and the run's stages stay out of `agt mcp list`).
const LAZY_VERBS: Record<string, () => Promise<Verb>> = {
  call: async () => (await import('./mcp-call.js')).callCommand,
  read: async () => (await import('./mcp-call.js')).readCommand,
  app: async () => (await import('./mcp-app.js')).appCommand,
  prompt: async () => (await import('./mcp-call.js')).promptCommand,
  resources: async () => (await import('./mcp-call.js')).resourcesCommand,
  prompts: async () => (await import('./mcp-call.js')).promptsCommand,
  ping: async () => (await import('./mcp-call.js')).pingCommand,
  task: async () => (await import('./mcp-task.js')).taskCommand,
  login: async () => (await import('./mcp-login.js')).loginCommand,
  logout: async () => (await import('./mcp-login.js')).logoutCommand,
  check: async () => (await import('./mcp-check.js')).checkCommand,
  list: async () => (await import('./mcp-list.js')).listCommand,
};

/** Runs an `agt mcp` verb (aliases already resolved); returns the exit code. */
export async function mcpCommand(invocation: McpInvocation, ctx: CliContext): Promise<number> {
  const { verb, args } = invocation;
  if (invocation.command !== undefined && verb !== 'create' && verb !== 'update') {
    throw new AgtError('invalid_input', `agt mcp ${verb} takes no -- COMMAND; only create (add) and update do`);
  }
  const lazy = LAZY_VERBS[verb];
  if (lazy !== undefined) return (await lazy())(args, ctx);
  switch (verb) {
    case 'create':
      return createCommand(invocation, ctx);
    case 'update':
      return updateCommand(invocation, ctx);
    case 'add-json':
      return addJsonCommand(args, ctx);
    case 'import':
      return importCommand(args, ctx);
    case 'test':
      return testCommand(args, ctx);
    case 'probe':
      return probeCommand(args, ctx);
    case 'show': {
      const reference = mcpReference(positional(args, 'agt mcp show <reference>'));
      const record = shown(ctx, await inCli(ctx.service.read({ kind: 'mcp', reference }), 'mcp', reference));
      const { loginOf, untilText } = await import('./mcp-login.js');
      const login = await loginOf(ctx, reference);
      emit(ctx, { ...record, login }, () => `${outsideJson(record, 2)}${login.loggedIn ? `\nlogged in${untilText(login)}` : ''}`);
      return EXIT.ok;
    }
    case 'delete': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        strict: true,
        options: { 'expected-revision': { type: 'string' } },
      });
      const reference = mcpReference(positionals[0] ?? positional([], 'agt mcp delete <reference> [--expected-revision N]'));
      const expected = revisionFlag(values['expected-revision']);
      await cliDelete(ctx, { kind: 'mcp', reference, ...defined({ expectedRevision: expected }) });
      emit(ctx, { deleted: reference }, () => oneLine`deleted ${reference}`);
      return EXIT.ok;
    }
    default:
      throw new AgtError('invalid_input', `unknown command "agt mcp ${verb}"; see agt mcp --help`);
  }
}
