/** `agt mcp check REF [--all] [--dry-run]`: a contract check of a registered server, generated from its own schemas. */
import { oneLine } from '../../outside-text.js';
import { resolvedOptions } from '../../mcp/settings/resolved-settings.js';
import { parseArgs } from 'node:util';
import { eraLabel } from '../../authoring/eras.js';
import { checkServer, type ServerCheckReport, type ToolCheck } from '../../authoring/contract/server-check.js';
import { AgtError } from '../../errors.js';
import { type CliContext, emit, EXIT } from '../context.js';
import { timeoutFlag } from '../files.js';
import { interruptible, SESSION_OPTIONS, sessionTarget } from './mcp-session.js';

const USAGE = 'agt mcp check <ref> [--all] [--dry-run] [--tool NAME]… [--timeout MS] [--input id=VALUE]…';

/** Runs the check; exit 0 when no case failed, 1 otherwise. */
export async function checkCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = {
    ...SESSION_OPTIONS,
    all: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    tool: { type: 'string', multiple: true },
  } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options });
  if (positionals.length !== 1) throw new AgtError('invalid_input', `usage: ${USAGE}`);
  const target = await sessionTarget(ctx, positionals[0], { ...values, timeout: undefined }, USAGE);
  const timeouts = timeoutFlag(values.timeout);
  const only = values.tool === undefined ? undefined : new Set(values.tool);
  const report = await interruptible(() =>
    checkServer(target.document, {
      ...resolvedOptions(target.connect, timeouts === undefined ? undefined : { timeouts }),
      ...(values.all ? { all: true } : {}),
      ...(values['dry-run'] ? { dryRun: true } : {}),
      ...(timeouts === undefined ? {} : { callTimeoutMs: timeouts.callMs }),
      ...(only === undefined ? {} : { tools: (name: string) => only.has(name) }),
    }),
  );
  emit(ctx, report, () => reportText(report, values.all === true));
  // A --tool the server does not list is said, not silently checked as nothing.
  const missing = [...(only ?? [])].filter((name) => !report.tools.some((t) => t.tool === name));
  for (const name of missing) ctx.err(oneLine`agt: ${target.reference} lists no tool "${name}"`);
  return report.ok && missing.length === 0 ? EXIT.ok : EXIT.failed;
}

function reportText(report: ServerCheckReport, all: boolean): string {
  const { tools, dryRun } = report;
  if (dryRun) {
    return [
      `dry run: nothing was called (planned on MCP ${report.eras.map((e) => e.protocolVersion).find(Boolean) ?? '?'})`,
      ...tools.flatMap((t) =>
        t.status === 'skipped'
          ? [oneLine`${t.tool}: skipped (${t.skipReason})`]
          : [
              oneLine`${t.tool}: ${t.cases.length} case(s)`,
              ...t.cases.map((c) => oneLine`  ${c.expect === 'answer' ? 'valid  ' : 'invalid'} ${c.name}  ${JSON.stringify(c.args)}`),
            ],
      ),
    ].join('\n');
  }
  const rows = tools.map((t) => [
    oneLine`${t.tool}`,
    eraLabel(t.era),
    t.status === 'skipped' ? '-' : String(t.cases.length),
    t.status === 'skipped' ? '-' : String(t.passed),
    t.status === 'skipped' ? oneLine`skipped: ${t.skipReason}${appFailure(t, '; ')}` : oneLine`${failures(t)}`,
  ]);
  const table = [['tool', 'era', 'cases', 'passed', 'failed'], ...rows];
  const widths = [0, 1, 2, 3].map((i) => Math.max(...table.map((r) => (r[i] as string).length)));
  const lines = table.map((r) => r.map((cell, i) => (i < 4 ? cell.padEnd(widths[i] as number) : cell)).join('  '));
  const checked = tools.filter((t) => t.status === 'checked');
  const failed = tools.reduce((n, t) => n + t.failed, 0); // a skipped tool's interface is checked all the same
  const spoken = report.eras.filter((e) => e.unavailable === undefined).map((e) => `MCP ${e.protocolVersion}`);
  const eras = [
    `eras checked: ${spoken.join(', ')}`,
    ...report.eras.filter((e) => e.unavailable !== undefined).map((e) => oneLine`${eraLabel(e.era)}: not checked: ${e.unavailable}`),
  ];
  const summary = `${checked.length} tool check(s), ${tools.length - checked.length} skipped; ${failed === 0 ? 'no failures' : `${failed} failure(s)`}`;
  const note = all ? [] : ['(only tools annotated readOnlyHint: true are called; --all calls every tool, and calls can change the world)'];
  return [...lines, '', ...eras, summary, ...note].join('\n');
}

function failures(t: ToolCheck): string {
  // A wait that ran out names the flag that gives it longer.
  const more = (r: { outcome: string }) => (r.outcome === 'timeout' ? ' (--timeout MS waits longer)' : '');
  const failed = t.results.filter((r) => !r.passed).map((r) => `${r.case.name}: ${r.reason ?? r.outcome}${more(r)}`);
  if (t.pingAfter === false) failed.push('no answer to ping after its cases (--timeout MS waits longer)');
  if (t.notRun > 0) failed.push(`${t.notRun} case(s) not run: the server went away`);
  if (t.app?.passed === false) failed.push(appFailure(t, ''));
  const note = t.skipReason === undefined ? '' : ` (${t.skipReason})`;
  return failed.length === 0 ? `0${note}` : `${t.failed}: ${failed.join('; ')}${note}`;
}

// A tool's interface that failed its check (MCP Apps): each field and why.
function appFailure(t: ToolCheck, before: string): string {
  return t.app?.passed === false
    ? `${before}interface ${t.app.uri ?? ''}: ${t.app.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`
    : '';
}
