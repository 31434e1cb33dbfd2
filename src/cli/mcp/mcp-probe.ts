/** `agt mcp test` (static) and `agt mcp probe` (live), with inputs, a timeout and progress. */
import { oneLine, outsideText } from '../../outside-text.js';
import { MAX_SERVER_TEXT } from '../../bounds.js';
import { noteOfReport, writeProbeNote } from '../store-files/probe-notes.js';
import { parseArgs } from 'node:util';
import { AgtError, isAgtError } from '../../errors.js';
import { McpProber, type ProbedApp, type ProbedTool } from '../../mcp/probe/prober.js';
import type { McpDocument } from '../../config/mcp-config.js';
import { type CliContext, emit, EXIT, inCli, mcpReference } from '../context.js';
import { timeoutFlag } from '../files.js';
import { collectInputs } from '../terminal/inputs.js';
import { PhaseProgress } from '../terminal/progress.js';
import { sandboxNotes, stderrBlock } from '../terminal/terminal.js';
import { withSandbox } from './sandbox-flags.js';

const INPUT = { input: { type: 'string', multiple: true } } as const;

async function target(
  ctx: CliContext,
  positionals: string[],
  usage: string,
): Promise<{ reference: string; document: McpDocument; revision: number }> {
  if (!positionals[0] || positionals.length > 1) throw new AgtError('invalid_input', `usage: ${usage}`);
  const reference = mcpReference(positionals[0]);
  const record = await inCli(ctx.service.read({ kind: 'mcp', reference }), 'mcp', reference);
  return { reference, document: record.data as McpDocument, revision: record.revision };
}

/** `agt mcp test <ref> [--input id=VALUE]…`: the static check; starts nothing. */
export async function testCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: INPUT });
  const { reference, document } = await target(ctx, positionals, 'agt mcp test <reference> [--input id=VALUE]…');
  const inputs = await collectInputs(document, values.input);
  const report = await ctx.service.test({ kind: 'mcp', reference, inputs });
  emit(ctx, report, () =>
    [
      ...(report.ok
        ? [`ok: ${reference} (${report.transport})`]
        : [`problems in ${reference}:`, ...report.problems.map((p) => `- ${p.field}: ${p.message}\n  fix: ${p.fix}`)]),
      ...report.warnings.map((w) => oneLine`warning: ${w}`),
    ].join('\n'),
  );
  return report.ok ? EXIT.ok : EXIT.failed;
}

/**
 * `agt mcp probe <ref> [--timeout MS] [--input id=VALUE]… [--sandbox]`: starts the server as a run would, lists, closes.
 * `--sandbox` probes the stored config with `sandbox: true` added for this probe only (P5): nothing is written.
 */
export async function probeCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: { ...INPUT, timeout: { type: 'string' }, sandbox: { type: 'boolean' } },
  });
  const usage = 'agt mcp probe <reference> [--timeout MS] [--input id=VALUE]… [--sandbox]';
  const { reference, document, revision } = await target(ctx, positionals, usage);
  const sandboxed = values.sandbox === true ? withSandbox(document) : undefined; // a stdio server, or invalid_input
  const timeouts = timeoutFlag(values.timeout);
  const inputs = await collectInputs(document, values.input);
  const progress = new PhaseProgress(`probing ${reference}`, { tty: process.stderr.isTTY === true && !ctx.json });
  let report;
  try {
    const auth = await ctx.auth?.(reference); // a stored login (agt mcp login)
    // MCP Apps declared, so a server that lists its interfaces only to clients that render them shows them.
    report = await new McpProber({ service: ctx.service, revealSecrets: ctx.showSecrets, apps: true }).probe(sandboxed ?? reference, {
      variables: { inputs },
      ...(auth === undefined ? {} : { auth }),
      ...(timeouts === undefined ? {} : { timeouts }),
      onPhase: (phase) => progress.phase(phase),
    });
    // A sandboxed probe is of another config than the stored one: it leaves no note.
    if (sandboxed === undefined) writeProbeNote(ctx.storeFile, reference, noteOfReport(report, revision, new Date().toISOString()));
  } catch (error) {
    if (sandboxed === undefined)
      writeProbeNote(ctx.storeFile, reference, {
        revision,
        at: new Date().toISOString(),
        ok: false,
        code: isAgtError(error) ? error.code : 'failed',
      });
    throw error;
  } finally {
    progress.stop();
  }
  const t = report.timings;
  // The handshake by its era's name (timings.initializeMs is either); 2026-07-28 removed ping: its round trip is a server/discover.
  const handshake = report.era === 'modern' ? 'server/discover' : 'initialize';
  const pingName = report.era === 'modern' ? 'ping (a server/discover; 2026-07-28 has no ping)' : 'ping';
  const ping = report.pingMs === undefined ? `${pingName} not answered` : `${pingName} ${report.pingMs.toFixed(0)} ms`;
  emit(ctx, report, () =>
    [
      oneLine`${report.ok ? 'ok' : 'problems'}: ${bounded(report.server.name)} ${bounded(report.server.version)} over ${report.transport}, MCP ${report.protocolVersion} (${handshake})`,
      `timings: spawn ${t.spawnMs.toFixed(0)} ms, ${handshake} ${t.initializeMs.toFixed(0)} ms, tools/list ${t.listMs.toFixed(0)} ms, close ${t.closeMs.toFixed(0)} ms, ${ping}`,
      ...(report.instructions ? [`instructions: ${report.instructions.length} characters (agt mcp probe --json shows them)`] : []),
      ...(report.logMessages > 0 ? [`logs: ${report.logMessages} message(s) while probed`] : []),
      `${report.tools.length} tools (about ${report.toolTokens.toLocaleString('en')} tokens of definitions):`,
      ...report.tools.map(probedToolLine),
      ...(report.resources
        ? [
            `resources: ${report.resources.error ? oneLine`FAIL ${report.resources.error}` : `${report.resources.count} (${report.resources.templates} templates)`}`,
          ]
        : []),
      ...(report.prompts ? [`prompts: ${report.prompts.error ? oneLine`FAIL ${report.prompts.error}` : report.prompts.count}`] : []),
      ...(report.apps ? [`apps: ${report.apps.length}`, ...report.apps.map(probedAppLine)] : []),
      ...(report.skills ? [`skills: ${report.skills.length}`, ...report.skills.map((k) => oneLine`  ${k.name} — ${k.description}`)] : []),
      ...report.warnings.map((w) => oneLine`warning: ${w}`),
    ].join('\n'),
  );
  if (!report.ok && !ctx.json && report.stderrTail.trim() !== '') ctx.err(stderrBlock(report.stderrTail));
  else if (!ctx.json && sandboxNotes(report.stderrTail) !== '') ctx.err(stderrBlock(sandboxNotes(report.stderrTail))); // P5: what it denied
  return report.ok ? EXIT.ok : EXIT.failed;
}

// A server's name, version or tool name on a line of ours: bounded (a million characters are not a line), escaped.
const bounded = (text: string) => outsideText(text, { max: MAX_SERVER_TEXT });

function probedToolLine(tool: ProbedTool): string {
  const output = tool.output?.dialect ? `, output ${tool.output.dialect}` : '';
  if (tool.ok) return oneLine`  ok    ${bounded(tool.name)} (${tool.dialect}` + `${output})`;
  const error = tool.error ?? tool.output?.error;
  return oneLine`  FAIL  ${bounded(tool.name)}: ${error?.code} ${error?.message ?? ''}`;
}

// An interface a tool declares: the tool, its ui:// URI, who may call it (an app-only tool is never given to a model).
function probedAppLine(app: ProbedApp): string {
  const who = app.visibility.length === 2 ? 'model and app' : app.visibility[0] === 'app' ? 'app only' : 'model only';
  return oneLine`  ${bounded(app.tool)}  ${bounded(app.resourceUri)}  (${who})`;
}
