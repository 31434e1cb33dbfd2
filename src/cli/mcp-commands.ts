/** `agt mcp …`: create (add), update, import, test, probe, call, read, prompt, resources, prompts, ping, list, show (get), delete (remove). */
import { parseArgs } from 'node:util';
import { AgtError } from '../errors.js';
import { type CliContext, cliDelete, emit, EXIT, inCli, mcpReference, positional, revisionFlag, shown } from './context.js';
import { importCommand } from './mcp-import.js';
import { probeCommand, testCommand } from './mcp-probe.js';
import { addJsonCommand, createCommand, type McpInvocation, updateCommand } from './mcp-write.js';
import { defined } from '../json.js';

/** Runs an `agt mcp` verb (aliases already resolved); returns the exit code. */
export async function mcpCommand(invocation: McpInvocation, ctx: CliContext): Promise<number> {
  const { verb, args } = invocation;
  if (invocation.command !== undefined && verb !== 'create' && verb !== 'update') {
    throw new AgtError('invalid_input', `agt mcp ${verb} takes no -- COMMAND; only create (add) and update do`);
  }
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
    case 'call':
      return (await import('./mcp-call.js')).callCommand(args, ctx);
    case 'read':
      return (await import('./mcp-call.js')).readCommand(args, ctx);
    case 'prompt':
      return (await import('./mcp-call.js')).promptCommand(args, ctx);
    case 'resources':
      return (await import('./mcp-call.js')).resourcesCommand(args, ctx);
    case 'prompts':
      return (await import('./mcp-call.js')).promptsCommand(args, ctx);
    case 'login':
      return (await import('./mcp-login.js')).loginCommand(args, ctx);
    case 'logout':
      return (await import('./mcp-login.js')).logoutCommand(args, ctx);
    case 'check':
      return (await import('./mcp-check.js')).checkCommand(args, ctx);
    case 'ping':
      return (await import('./mcp-call.js')).pingCommand(args, ctx);
    case 'list':
      return (await import('./mcp-list.js')).listCommand(args, ctx);
    case 'show': {
      const reference = mcpReference(positional(args, 'agt mcp show <reference>'));
      const record = shown(ctx, await inCli(ctx.service.read({ kind: 'mcp', reference }), 'mcp', reference));
      const { loginOf, untilText } = await import('./mcp-login.js');
      const login = await loginOf(ctx, reference);
      emit(ctx, { ...record, login }, () => `${JSON.stringify(record, null, 2)}${login.loggedIn ? `\nlogged in${untilText(login)}` : ''}`);
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
      emit(ctx, { deleted: reference }, () => `deleted ${reference}`);
      return EXIT.ok;
    }
    default:
      throw new AgtError('invalid_input', `unknown command "agt mcp ${verb}"; see agt mcp --help`);
  }
}
