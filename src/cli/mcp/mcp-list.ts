/**
 * `agt mcp list [--category C] [--probe]`: the registered servers, each with
 * the state of its last probe; with --probe every server is probed now (in
 * parallel, bounded), as `claude mcp list` does: ✓ connected with its tool
 * count, ! connected but a listing failed, ✗ failed with its code, ⊘ disabled
 * (a config entry with "disabled": true, as Claude Desktop and Cursor write it).
 */
import { oneLine } from '../../outside-text.js';
import { parseArgs } from 'node:util';
import { AgtError, isAgtError } from '../../errors.js';
import { McpProber } from '../../mcp/probe/prober.js';
import type { McpDocument } from '../../config/mcp-config.js';
import { mapLimit } from '../../runtime/audit/run-audit.js';
import { type CliContext, emit, EXIT, shown } from '../context.js';
import type { LoginState } from '../../mcp/auth/token-store.js';
import { loginOf, untilText } from './mcp-login.js';
import { noteOfReport, noteText, type ProbeNote, readProbeNotes, writeProbeNote } from '../store-files/probe-notes.js';
import { DEFAULT_PROBE_CONCURRENCY } from '../../bounds.js';

type Row = { reference: string; revision: number; data: unknown; problem?: { message: string }; login?: LoginState };

// Each row with its login (agt mcp login), when it has one; a logins file that cannot be read is said once, the list still shown.
async function withLogins(ctx: CliContext, rows: Row[]): Promise<Row[]> {
  try {
    return await Promise.all(
      rows.map(async (r) => {
        const login = await loginOf(ctx, r.reference);
        return login.loggedIn ? { ...r, login } : r;
      }),
    );
  } catch (error) {
    ctx.err(oneLine`agt: warning: logins not shown: ${isAgtError(error) ? error.message : 'the logins file cannot be read'}`);
    return rows;
  }
}

/** Lists the servers; exit 1 when one is unreadable or (with --probe) failed. */
export async function listCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { category: { type: 'string' }, probe: { type: 'boolean' }, concurrency: { type: 'string' } },
  });
  const records = await ctx.service.list({ kind: 'mcp', ...(values.category ? { category: values.category } : {}) });
  const rows = await withLogins(
    ctx,
    records.map((r) => shown(ctx, r)),
  );
  if (values.probe === true) return probeAll(ctx, rows, concurrencyOf(values.concurrency));
  const notes = readProbeNotes(ctx.storeFile);
  emit(ctx, rows, () =>
    rows.length === 0 ? 'no mcp servers registered' : rows.map((r) => listLine(r, noteText(noteOf(notes, r), r.revision))).join('\n'),
  );
  return records.some((r) => r.problem) ? EXIT.failed : EXIT.ok; // the readable rows are listed; an unreadable one is a problem
}

function concurrencyOf(flag: string | undefined): number {
  if (flag === undefined) return DEFAULT_PROBE_CONCURRENCY;
  const n = Number(flag);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new AgtError('invalid_input', '--concurrency must be a whole number from 1 to 64');
  return n;
}

/** The state of one server as --probe found it. */
interface ProbeState {
  reference: string;
  state: 'connected' | 'problems' | 'failed' | 'disabled' | 'unreadable';
  tools?: number;
  code?: string;
  ms?: number;
  /** The MCP protocol version the server was reached on. */
  protocolVersion?: string;
}

const MARK: Record<ProbeState['state'], string> = { connected: '✓', problems: '!', failed: '✗', disabled: '⊘', unreadable: '!' };

async function probeAll(ctx: CliContext, rows: Row[], concurrency: number): Promise<number> {
  // As agt mcp probe: MCP Apps declared (a server may list its interfaces only to clients that render them).
  const prober = new McpProber({ service: ctx.service, revealSecrets: ctx.showSecrets, apps: true });
  const states = await mapLimit(rows, concurrency, (row) => probeOne(ctx, prober, row));
  emit(ctx, states, () =>
    states.length === 0 ? 'no mcp servers registered' : states.map((s, i) => listLine(rows[i] as Row, stateText(s))).join('\n'),
  );
  return states.some((s) => s.state === 'failed' || s.state === 'problems' || s.state === 'unreadable') ? EXIT.failed : EXIT.ok;
}

async function probeOne(ctx: CliContext, prober: McpProber, row: Row): Promise<ProbeState> {
  const { reference, revision } = row;
  if (row.problem) return { reference, state: 'unreadable' };
  if (isDisabled(row.data)) return { reference, state: 'disabled' };
  const started = performance.now();
  const at = new Date().toISOString();
  try {
    const auth = await ctx.auth?.(reference);
    // Inputs are never asked for here: a server that needs one fails with the placeholder named.
    const report = await prober.probe(reference, { ...(auth === undefined ? {} : { auth }) });
    const ms = performance.now() - started;
    writeProbeNote(ctx.storeFile, reference, noteOfReport(report, revision, at));
    return {
      reference,
      state: report.ok ? 'connected' : 'problems',
      tools: report.tools.length,
      ms,
      protocolVersion: report.protocolVersion,
    };
  } catch (error) {
    const code = isAgtError(error) ? error.code : 'failed';
    writeProbeNote(ctx.storeFile, reference, { revision, at, ok: false, code });
    return { reference, state: 'failed', code, ms: performance.now() - started };
  }
}

function stateText(s: ProbeState): string {
  const took = s.ms === undefined ? '' : ` (${(s.ms / 1000).toFixed(1)} s)`;
  switch (s.state) {
    case 'connected':
      return oneLine`${MARK.connected} connected, ${s.tools} tools, MCP ${s.protocolVersion}` + took;
    case 'problems':
      return oneLine`${MARK.problems} connected, ${s.tools} tools, with problems (agt mcp probe ${s.reference} shows them)` + took;
    case 'failed':
      return oneLine`${MARK.failed} failed: ${s.code}` + took;
    case 'disabled':
      return `${MARK.disabled} disabled`;
    default:
      return `${MARK.unreadable} unreadable`;
  }
}

// A config entry that says "disabled": true (kept as written when imported).
function isDisabled(data: unknown): boolean {
  const servers = (data as McpDocument | null)?.mcpServers ?? {};
  const config = Object.values(servers)[0] as { disabled?: unknown } | undefined;
  return config?.disabled === true;
}

function noteOf(notes: Record<string, ProbeNote>, row: Row): ProbeNote | undefined {
  const note: unknown = Object.hasOwn(notes, row.reference) ? notes[row.reference] : undefined;
  return typeof note === 'object' && note !== null && Object.hasOwn(note, 'revision') ? (note as ProbeNote) : undefined;
}

// One server per line: reference, transport, what it runs or where it is (as shown: secrets masked), revision, state.
function listLine(record: Row, state: string): string {
  if (record.problem) return oneLine`${record.reference}  ! ${record.problem.message}`;
  const servers = (record.data as { mcpServers?: Record<string, Record<string, unknown>> } | null)?.mcpServers ?? {};
  const config = Object.values(servers)[0] ?? {};
  const where =
    typeof config.url === 'string'
      ? oneLine`${String(config.transport ?? 'streamable-http')}  ${config.url}`
      : oneLine`stdio  ${[config.command, ...(Array.isArray(config.args) ? config.args : [])].map(String).join(' ')}`;
  const login = record.login === undefined ? '' : `  logged in${untilText(record.login)}`;
  return `${oneLine`${record.reference}`}  ${where}  (revision ${record.revision})  ${state}${login}`;
}
