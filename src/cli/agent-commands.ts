/** `agt agent …`: create, update, show, mcp-list. */
import { parseArgs } from 'node:util';
import { AgtError } from '../errors.js';
import type { MountStatus } from '../resources/describe.js';
import { type CliContext, cliWrite, emit, EXIT, inCli, positional, revisionFlag } from './context.js';
import { defined } from '../json.js';

function mountLines(mounts: MountStatus[]): string[] {
  if (mounts.length === 0) return ['  (no MCP servers mounted)'];
  return mounts.map(
    (m) =>
      `  ${m.exists ? (m.problems.length === 0 ? 'ok     ' : 'problem') : 'missing'} ${m.reference}${m.transport ? ` (${m.transport})` : ''}${m.problems.map((p) => `\n          - ${p}`).join('')}`,
  );
}

const SETTINGS = { model: { type: 'string' }, provider: { type: 'string' }, 'base-prompt': { type: 'string' } } as const;

/** Runs an `agt agent` subcommand; returns the exit code. */
export async function agentCommand(sub: string | undefined, args: string[], ctx: CliContext): Promise<number> {
  switch (sub) {
    case 'create': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        strict: true,
        options: {
          name: { type: 'string' },
          role: { type: 'string' },
          kind: { type: 'string' },
          capability: { type: 'string', multiple: true },
          mcp: { type: 'string', multiple: true },
          disabled: { type: 'boolean' },
          ...SETTINGS,
        },
      });
      const reference = positionals[0];
      if (!reference)
        throw new AgtError(
          'invalid_input',
          'usage: agt agent create <category/name> [--name N] [--role manager|worker] [--kind native|harness] [--capability C]… [--mcp REF]… [--model M] [--provider P] [--base-prompt T] [--disabled]',
        );
      const settings = {
        ...(values.model ? { model: values.model } : {}),
        ...(values.provider ? { provider: values.provider } : {}),
        ...(values['base-prompt'] ? { basePrompt: values['base-prompt'] } : {}),
      };
      const data = {
        ...(values.name ? { name: values.name } : {}),
        ...(values.role ? { role: values.role } : {}),
        ...(values.kind ? { kind: values.kind } : {}),
        ...(values.capability ? { capabilities: values.capability } : {}),
        ...(values.mcp ? { mcps: values.mcp } : {}),
        ...(values.disabled ? { enabled: false } : {}),
        ...(Object.keys(settings).length > 0 ? { settings } : {}),
      };
      const { record, warnings } = await cliWrite(ctx, { kind: 'agent', reference, create: true, data });
      emit(ctx, { record, warnings }, () =>
        [`created agent ${record.reference} (revision ${record.revision})`, ...warnings.map((w) => `warning: ${w}`)].join('\n'),
      );
      return EXIT.ok;
    }
    case 'update': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        strict: true,
        options: {
          'add-mcp': { type: 'string', multiple: true },
          'remove-mcp': { type: 'string', multiple: true },
          'expected-revision': { type: 'string' },
          name: { type: 'string' },
          enable: { type: 'boolean' },
          disable: { type: 'boolean' },
        },
      });
      const reference = positionals[0];
      if (!reference)
        throw new AgtError(
          'invalid_input',
          'usage: agt agent update <reference> [--add-mcp X]… [--remove-mcp Y]… [--expected-revision N] [--name N] [--enable|--disable]',
        );
      const data = {
        ...(values.name ? { name: values.name } : {}),
        ...(values.enable ? { enabled: true } : {}),
        ...(values.disable ? { enabled: false } : {}),
      };
      const expected = revisionFlag(values['expected-revision']);
      const { record, warnings } = await cliWrite(ctx, {
        kind: 'agent',
        reference,
        ...(Object.keys(data).length > 0 ? { data } : {}),
        ...(values['add-mcp'] ? { add: { mcps: values['add-mcp'] } } : {}),
        ...(values['remove-mcp'] ? { remove: { mcps: values['remove-mcp'] } } : {}),
        ...defined({ expectedRevision: expected }),
      });
      emit(ctx, { record, warnings }, () =>
        [
          `updated agent ${record.reference} (revision ${record.revision}); mounts: ${(record.data as { mcps: string[] }).mcps.join(', ') || 'none'}`,
          ...warnings.map((w) => `warning: ${w}`),
        ].join('\n'),
      );
      return EXIT.ok;
    }
    case 'show': {
      const reference = positional(args, 'agt agent show <reference>');
      const d = await inCli(ctx.service.describeAgent(reference), 'agent', reference);
      emit(ctx, d, () =>
        [
          `${d.reference}${d.name ? ` — ${d.name}` : ''} (revision ${d.revision})`,
          `  ${d.enabled ? 'enabled' : 'DISABLED'}, ${d.kind}, ${d.role}${d.resourceManagement ? ', resource management' : ''}${d.capabilities.length ? `; capabilities: ${d.capabilities.join(', ')}` : ''}`,
          ...(d.settings.model ? [`  model: ${d.settings.model}${d.settings.provider ? ` (${d.settings.provider})` : ''}`] : []),
          'mounts:',
          ...mountLines(d.mcps),
        ].join('\n'),
      );
      return EXIT.ok;
    }
    case 'mcp-list': {
      const reference = positional(args, 'agt agent mcp-list <reference>');
      const mounts = await inCli(ctx.service.agentMcpList(reference), 'agent', reference);
      emit(ctx, mounts, () => mountLines(mounts).join('\n'));
      return mounts.every((m) => m.exists && m.problems.length === 0) ? EXIT.ok : EXIT.failed;
    }
    default:
      throw new AgtError('invalid_input', 'usage: agt agent create|update|show|mcp-list …  (agt agent --help)');
  }
}
