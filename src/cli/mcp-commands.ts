/** `agt mcp …`: create, import, test, probe, list, show, delete. */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AgtError } from '../errors.js';
import { setOwn } from '../json.js';
import { McpProber, type ProbedTool } from '../mcp/prober.js';
import { planImport } from '../resources/import.js';
import { type CliContext, emit, EXIT, positional, shown } from './context.js';

function keyValues(list: string[] | undefined, sep: string, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list ?? []) {
    const at = item.indexOf(sep);
    if (at <= 0) throw new AgtError('invalid_input', `${what} must look like KEY${sep}VALUE`);
    setOwn(out, item.slice(0, at).trim(), item.slice(at + 1).trim()); // "__proto__" is a key like any other
  }
  return out;
}

/** The largest config file the CLI reads. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

function readJson(file: string): unknown {
  try {
    const size = fs.statSync(path.resolve(file)).size;
    if (size > MAX_FILE_BYTES) throw new AgtError('invalid_input', `${file} is ${size} bytes; config files over ${MAX_FILE_BYTES} bytes are refused`, { details: { size, limit: MAX_FILE_BYTES } });
    return JSON.parse(fs.readFileSync(path.resolve(file), 'utf8'));
  } catch (error) {
    if (error instanceof AgtError) throw error;
    throw new AgtError('invalid_input', `cannot read ${file} as JSON (${(error as NodeJS.ErrnoException).code ?? 'parse error'})`);
  }
}

/** Runs an `agt mcp` subcommand; returns the exit code. */
export async function mcpCommand(sub: string | undefined, args: string[], ctx: CliContext): Promise<number> {
  switch (sub) {
    case 'create': {
      const { values, positionals } = parseArgs({
        args, allowPositionals: true, strict: true,
        options: { command: { type: 'string' }, arg: { type: 'string', multiple: true }, cwd: { type: 'string' }, env: { type: 'string', multiple: true }, url: { type: 'string' }, header: { type: 'string', multiple: true }, transport: { type: 'string' }, from: { type: 'string' } },
      });
      const reference = positionals[0];
      if (!reference) throw new AgtError('invalid_input', 'usage: agt mcp create <category/name> (--command C [--arg A]… --cwd DIR [--env K=V]… | --url U [--header K:V]… | --from FILE.json)');
      const given = (['command', 'url', 'from'] as const).filter((k) => values[k] !== undefined);
      if (given.length > 1) throw new AgtError('invalid_input', `give one of --command, --url or --from, not ${given.map((k) => `--${k}`).join(' and ')}`);
      let data: unknown;
      if (values.from) data = readJson(values.from);
      else if (values.url) data = { mcpServers: { [reference.split('/')[1] ?? 'server']: { url: values.url, headers: keyValues(values.header, ':', '--header'), ...(values.transport ? { transport: values.transport } : {}) } } };
      else if (values.command) data = { mcpServers: { [reference.split('/')[1] ?? 'server']: { command: values.command, args: values.arg ?? [], ...(values.cwd ? { cwd: path.resolve(values.cwd) } : {}), env: keyValues(values.env, '=', '--env') } } };
      else throw new AgtError('invalid_input', 'give --command (stdio), --url (remote) or --from FILE.json');
      const { record, warnings } = await ctx.service.write({ kind: 'mcp', reference, create: true, data });
      emit(ctx, { record: shown(ctx, record), warnings }, () => [`registered ${record.reference} (revision ${record.revision})`, ...warnings.map((w) => `warning: ${w}`)].join('\n'));
      return EXIT.ok;
    }
    case 'import': {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: { category: { type: 'string' }, cwd: { type: 'string' }, 'dry-run': { type: 'boolean' } } });
      if (!positionals[0]) throw new AgtError('invalid_input', 'usage: agt mcp import FILE [--category C] [--cwd DIR] [--dry-run]');
      const plan = planImport(readJson(positionals[0]), { ...(values.category ? { category: values.category } : {}), ...(values.cwd ? { cwd: path.resolve(values.cwd) } : {}) });
      const outcome: { reference: string; status: string; problems: string[] }[] = [];
      for (const entry of plan.entries) {
        if (entry.document === undefined) outcome.push({ reference: entry.reference, status: 'needs_fixing', problems: entry.problems });
        else if (values['dry-run']) outcome.push({ reference: entry.reference, status: 'would_import', problems: [] });
        else {
          try {
            await ctx.service.write({ kind: 'mcp', reference: entry.reference, create: true, data: entry.document });
            outcome.push({ reference: entry.reference, status: 'imported', problems: [] });
          } catch (error) {
            outcome.push({ reference: entry.reference, status: 'failed', problems: [(error as Error).message] });
          }
        }
      }
      emit(ctx, { format: plan.format, entries: outcome }, () => outcome.map((o) => `${o.status.padEnd(12)} ${o.reference}${o.problems.map((p) => `\n             - ${p}`).join('')}`).join('\n'));
      return outcome.every((o) => o.status === 'imported' || o.status === 'would_import') ? EXIT.ok : EXIT.failed;
    }
    case 'test': {
      const reference = positional(args, 'agt mcp test <reference>');
      const report = await ctx.service.test({ kind: 'mcp', reference });
      emit(ctx, report, () => (report.ok ? `ok: ${reference} (${report.transport})` : [`problems in ${reference}:`, ...report.problems.map((p) => `- ${p.field}: ${p.message}\n  fix: ${p.fix}`)].join('\n')));
      return report.ok ? EXIT.ok : EXIT.failed;
    }
    case 'probe': {
      const reference = positional(args, 'agt mcp probe <reference>');
      const tty = process.stderr.isTTY === true && !ctx.json;
      if (tty) process.stderr.write(`probing ${reference} (this runs the configured command on this host)…`);
      let report;
      try {
        report = await new McpProber({ service: ctx.service }).probe(reference);
      } finally {
        if (tty) process.stderr.write('\r\x1b[K');
      }
      const t = report.timings;
      emit(ctx, report, () => [
        `${report.ok ? 'ok' : 'problems'}: ${report.server.name} ${report.server.version} over ${report.transport}, protocol ${report.protocolVersion}`,
        `timings: spawn ${t.spawnMs.toFixed(0)} ms, initialize ${t.initializeMs.toFixed(0)} ms, tools/list ${t.listMs.toFixed(0)} ms, close ${t.closeMs.toFixed(0)} ms`,
        `${report.tools.length} tools:`,
        ...report.tools.map(probedToolLine),
        ...(report.resources ? [`resources: ${report.resources.error ? `FAIL ${report.resources.error}` : `${report.resources.count} (${report.resources.templates} templates)`}`] : []),
        ...(report.prompts ? [`prompts: ${report.prompts.error ? `FAIL ${report.prompts.error}` : report.prompts.count}`] : []),
        ...report.warnings.map((w) => `warning: ${w}`),
      ].join('\n'));
      return report.ok ? EXIT.ok : EXIT.failed;
    }
    case 'list': {
      const { values } = parseArgs({ args, strict: true, options: { category: { type: 'string' } } });
      const records = await ctx.service.list({ kind: 'mcp', ...(values.category ? { category: values.category } : {}) });
      emit(ctx, records.map((r) => shown(ctx, r)), () => (records.length === 0 ? 'no mcp servers registered' : records.map((r) => `${r.reference}  (revision ${r.revision})`).join('\n')));
      return EXIT.ok;
    }
    case 'show': {
      const record = shown(ctx, await ctx.service.read({ kind: 'mcp', reference: positional(args, 'agt mcp show <reference>') }));
      emit(ctx, record, () => JSON.stringify(record, null, 2));
      return EXIT.ok;
    }
    case 'delete': {
      const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: { 'expected-revision': { type: 'string' } } });
      const reference = positionals[0] ?? positional([], 'agt mcp delete <reference> [--expected-revision N]');
      await ctx.service.delete({ kind: 'mcp', reference, ...(values['expected-revision'] ? { expectedRevision: Number(values['expected-revision']) } : {}) });
      emit(ctx, { deleted: reference }, () => `deleted ${reference}`);
      return EXIT.ok;
    }
    default:
      throw new AgtError('invalid_input', 'usage: agt mcp create|import|test|probe|list|show|delete …  (agt --help)');
  }
}

function probedToolLine(tool: ProbedTool): string {
  const output = tool.output?.dialect ? `, output ${tool.output.dialect}` : '';
  if (tool.ok) return `  ok    ${tool.name} (${tool.dialect}${output})`;
  const error = tool.error ?? tool.output?.error;
  return `  FAIL  ${tool.name}: ${error?.code} ${error?.message ?? ''}`;
}
