/** `agt agent …`: create, update, show, mcp-list. */
import { oneLine } from '../outside-text.js';
import { parseArgs } from 'node:util';
import { AgtError } from '../errors.js';
import type { MountStatus } from '../resources/describe.js';
import { type CliContext, cliWrite, emit, EXIT, inCli, mcpReference, positional, revisionFlag, skillReference } from './context.js';
import { defined } from '../json.js';
import { TOOL_SEARCH_DEFAULTS } from '../runtime/assembly/tool-search.js';
import { type ProbeNote, readProbeNotes } from './store-files/probe-notes.js';

function mountLines(mounts: MountStatus[]): string[] {
  if (mounts.length === 0) return ['  (no MCP servers mounted)'];
  return mounts.map(
    (m) =>
      oneLine`  ${m.exists ? (m.problems.length === 0 ? 'ok     ' : 'problem') : 'missing'} ${m.reference}` +
      (m.transport ? oneLine` (${m.transport})` : '') +
      m.problems.map((p) => oneLine`\n          - ${p}`).join(''),
  );
}

/** The agent's tools as the last probes of its mounts counted them, and whether a run's tool search (auto) would be on. */
interface ToolSummary {
  tools: number;
  tokens: number;
  /** Mounts with no probe of their current revision. */
  unknown: string[];
  toolSearch: 'on' | 'off';
}

function toolSummary(mounts: MountStatus[], notes: Record<string, ProbeNote>): ToolSummary | undefined {
  const current = mounts.filter((m) => m.exists && notes[m.reference]?.revision === m.revision && notes[m.reference]?.tools !== undefined);
  if (current.length === 0) return undefined;
  const tools = current.reduce((sum, m) => sum + (notes[m.reference]?.tools ?? 0), 0);
  const tokens = current.reduce((sum, m) => sum + (notes[m.reference]?.toolTokens ?? 0), 0);
  const on = tools > TOOL_SEARCH_DEFAULTS.maxTools || tokens > TOOL_SEARCH_DEFAULTS.maxToolTokens;
  return { tools, tokens, unknown: mounts.filter((m) => !current.includes(m)).map((m) => m.reference), toolSearch: on ? 'on' : 'off' };
}

function toolLines(summary: ToolSummary | undefined, mounted: number): string[] {
  if (summary === undefined) return mounted === 0 ? [] : ['tools: not known (probe the mounts: agt mcp probe REF)'];
  const { maxTools, maxToolTokens } = TOOL_SEARCH_DEFAULTS;
  const unknown = summary.unknown.length ? oneLine`; not known for ${summary.unknown.join(', ')}` : '';
  return [
    `tools: ${summary.tools} (about ${summary.tokens.toLocaleString('en')} tokens of definitions) by the last probes${unknown}`,
    `tool search: ${summary.toolSearch} in a run by default (auto: on beyond ${maxTools} tools or ${maxToolTokens.toLocaleString('en')} tokens)`,
  ];
}

// `add` / `remove` of an update: MCP servers and skills, bare names resolved as everywhere.
function mountChanges(key: 'add' | 'remove', mcps: string[] | undefined, skills: string[] | undefined) {
  if (mcps === undefined && skills === undefined) return {};
  return { [key]: { ...(mcps ? { mcps: mcps.map(mcpReference) } : {}), ...(skills ? { skills: skills.map(skillReference) } : {}) } };
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
          skill: { type: 'string', multiple: true },
          disabled: { type: 'boolean' },
          ...SETTINGS,
        },
      });
      const reference = positionals[0];
      if (!reference)
        throw new AgtError(
          'invalid_input',
          'usage: agt agent create <category/name> [--name N] [--role manager|worker] [--kind native|harness] [--capability C]… [--mcp REF]… [--skill REF]… [--model M] [--provider P] [--base-prompt T] [--disabled]',
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
        ...(values.mcp ? { mcps: values.mcp.map(mcpReference) } : {}), // a bare name is default/NAME, as in every command
        ...(values.skill ? { skills: values.skill.map(skillReference) } : {}), // a bare skill name is skills/NAME
        ...(values.disabled ? { enabled: false } : {}),
        ...(Object.keys(settings).length > 0 ? { settings } : {}),
      };
      const { record, warnings } = await cliWrite(ctx, { kind: 'agent', reference, create: true, data });
      emit(ctx, { record, warnings }, () =>
        [oneLine`created agent ${record.reference} (revision ${record.revision})`, ...warnings.map((w) => oneLine`warning: ${w}`)].join(
          '\n',
        ),
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
          'add-skill': { type: 'string', multiple: true },
          'remove-skill': { type: 'string', multiple: true },
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
          'usage: agt agent update <reference> [--add-mcp X]… [--remove-mcp Y]… [--add-skill S]… [--remove-skill S]… [--expected-revision N] [--name N] [--enable|--disable]',
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
        ...mountChanges('add', values['add-mcp'], values['add-skill']),
        ...mountChanges('remove', values['remove-mcp'], values['remove-skill']),
        ...defined({ expectedRevision: expected }),
      });
      emit(ctx, { record, warnings }, () =>
        [
          oneLine`updated agent ${record.reference} (revision ${record.revision}); mounts: ${(record.data as { mcps: string[] }).mcps.join(', ') || 'none'}`,
          ...warnings.map((w) => oneLine`warning: ${w}`),
        ].join('\n'),
      );
      return EXIT.ok;
    }
    case 'show': {
      const reference = positional(args, 'agt agent show <reference>');
      const d = await inCli(ctx.service.describeAgent(reference), 'agent', reference);
      const summary = toolSummary(d.mcps, readProbeNotes(ctx.storeFile));
      emit(ctx, { ...d, ...(summary ? { tools: summary } : {}) }, () =>
        [
          oneLine`${d.reference}` + (d.name ? oneLine` — ${d.name}` : '') + ` (revision ${d.revision})`,
          // A hand-edited row's kind and role are outside text too (R2): one line, escaped.
          oneLine`  ${d.enabled ? 'enabled' : 'DISABLED'}, ${d.kind}, ${d.role}` +
            `${d.resourceManagement ? ', resource management' : ''}${d.capabilities.length ? oneLine`; capabilities: ${d.capabilities.join(', ')}` : ''}`,
          ...(d.settings.model
            ? [oneLine`  model: ${d.settings.model}` + (d.settings.provider ? oneLine` (${d.settings.provider})` : '')]
            : []),
          'mounts:',
          ...mountLines(d.mcps),
          ...(d.skills.length ? ['skills:', ...d.skills.map((s) => oneLine`  ${s.exists ? 'ok     ' : 'missing'} ${s.reference}`)] : []),
          ...toolLines(summary, d.mcps.length),
          ...d.warnings.map((w) => oneLine`warning: ${w}`),
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
