/**
 * `agt mcp app <ref> <tool> [--out FILE]`: a tool's interface (MCP Apps), read
 * and checked the way a host reads it before rendering (U2): the tool's own
 * `_meta.ui.resourceUri`, then `resources/read` of that URI on the same
 * connection (the extension declared), its type, size, CSP domains and
 * permissions checked. The HTML goes to FILE only once every check passed
 * (written whole, then renamed); it is never printed to the terminal: the
 * command shows what the interface asks for instead.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { AgtError, isAgtError } from '../../errors.js';
import { oneLine } from '../../outside-text.js';
import { connectMcp } from '../../mcp/connect.js';
import type { AppResource } from '../../mcp/apps/app-resource.js';
import { appUriOf, readApp } from '../../mcp/apps/read.js';
import { readToolUi } from '../../mcp/apps/ui-meta.js';
import { type CliContext, emit, EXIT } from '../context.js';
import { interruptible, SESSION_OPTIONS, sessionTarget } from './mcp-session.js';

const USAGE = 'agt mcp app <ref> <tool> [--out FILE] [--timeout MS] [--input id=VALUE]…';

/** What `agt mcp app` reports (`--json`): the interface's URI, size, digest and what its frame may do; never its HTML. */
export interface AppSummary {
  reference: string;
  tool: string;
  uri: string;
  bytes: number;
  sha256: string;
  csp: NonNullable<AppResource['csp']>;
  permissions: NonNullable<AppResource['permissions']>;
  domain?: string;
  prefersBorder?: boolean;
  /** The file the HTML was written to (with --out). */
  out?: string;
}

/** `agt mcp app REF TOOL [--out FILE]`: exit 0 read and checked; 2 the tool has no interface, or it was refused. */
export async function appCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = { ...SESSION_OPTIONS, out: { type: 'string' } } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options });
  if (positionals.length !== 2) throw new AgtError('invalid_input', `usage: ${USAGE}`);
  const [raw, tool] = positionals as [string, string];
  if (values.out === '') throw new AgtError('invalid_input', '--out needs a file name', { details: { field: 'out' } });
  const target = await sessionTarget(ctx, raw, values, USAGE, { apps: true });
  const connection = await connectMcp(target.document, target.connect);
  let app: AppResource;
  try {
    app = await interruptible(async (signal) => {
      const listed = (await connection.listTools()).find((t) => t.name === tool);
      if (listed === undefined)
        throw new AgtError(
          'not_found',
          oneLine`${target.reference} lists no tool "${tool}" (agt mcp probe ${target.reference} lists them)`,
          {
            details: { reference: target.reference, tool },
          },
        );
      const uri = interfaceUri(tool, listed._meta);
      return readApp(connection, uri, { signal }).catch((error: unknown) => {
        throw refusal(tool, uri, error);
      });
    });
  } finally {
    await connection.close();
  }
  const html = Buffer.from(app.html, 'utf8');
  const out = values.out === undefined ? undefined : path.resolve(values.out);
  if (out !== undefined) writeWhole(out, html);
  const summary: AppSummary = {
    reference: target.reference,
    tool,
    uri: app.uri,
    bytes: html.length,
    sha256: createHash('sha256').update(html).digest('hex'),
    csp: app.csp ?? {},
    permissions: app.permissions ?? {},
    ...(app.domain === undefined ? {} : { domain: app.domain }),
    ...(app.prefersBorder === undefined ? {} : { prefersBorder: app.prefersBorder }),
    ...(out === undefined ? {} : { out }),
  };
  emit(ctx, summary, () => summaryText(summary));
  return EXIT.ok;
}

// The interface URI `tool` declares: invalid_input (exit 2) when it declares none or a malformed `_meta.ui`.
function interfaceUri(tool: string, meta: unknown): string {
  const read = readToolUi(meta);
  if (!read.ok)
    throw new AgtError(
      'invalid_input',
      oneLine`tool "${tool}" declares its interface wrongly: ${read.field} ${read.message}; nothing was written`,
      {
        details: { reason: 'app_invalid', tool, field: read.field },
      },
    );
  if (read.ui?.resourceUri === undefined)
    throw new AgtError('invalid_input', oneLine`tool "${tool}" declares no interface (_meta.ui.resourceUri); nothing was written`, {
      details: { reason: 'app_none', tool },
    });
  return appUriOf(tool, meta);
}

// An interface read and refused (a wrong type, too large, an answer for another URI, bad CSP or permissions):
// invalid_input (exit 2) naming the tool and the URI, keeping the reason and field. Any other error as it came.
function refusal(tool: string, uri: string, error: unknown): unknown {
  if (!isAgtError(error)) return error;
  const reason = error.details?.reason;
  if (typeof reason !== 'string' || !reason.startsWith('app_')) return error;
  const field = typeof error.details?.field === 'string' ? error.details.field : undefined;
  return new AgtError(
    'invalid_input',
    oneLine`tool "${tool}" has an interface that is refused (${uri}): ${error.message}; nothing was written`,
    {
      details: { reason, tool, uri, ...(field === undefined ? {} : { field }) },
      cause: error,
    },
  );
}

// The HTML written to a temporary file beside `file`, then renamed over it: never half a file. The temporary file is
// created new ('wx'): a file or symlink planted at its name is never written through.
function writeWhole(file: string, html: Buffer): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(temp, html, { flag: 'wx', mode: 0o644 });
    fs.renameSync(temp, file);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new AgtError('invalid_input', `cannot write ${file} (${code}); nothing was written`, {
      details: { field: 'out', driverCode: code },
    });
  }
}

function summaryText(s: AppSummary): string {
  const csp = Object.entries(s.csp).map(([directive, domains]) => oneLine`  ${directive}: ${(domains as string[]).join(' ')}`);
  const permissions = Object.keys(s.permissions);
  return [
    oneLine`${s.tool}: ${s.uri}, ${s.bytes} bytes (sha256 ${s.sha256.slice(0, 16)}…)`,
    csp.length === 0 ? 'csp: nothing beyond the page itself' : 'csp (domains it may reach):',
    ...csp,
    `permissions: ${permissions.length === 0 ? 'none' : oneLine`${permissions.join(', ')}`}`,
    ...(s.domain === undefined ? [] : [oneLine`domain asked for: ${s.domain}`]),
    ...(s.prefersBorder === undefined ? [] : [`prefers a border: ${s.prefersBorder ? 'yes' : 'no'}`]),
    s.out === undefined ? 'the HTML is not shown here: --out FILE writes it' : oneLine`wrote ${s.out}`,
  ].join('\n');
}
