/**
 * What the developer's commands (call, read, prompt, ping, check) share: the
 * stored server they name, the options a connection to it gets (inputs,
 * `--timeout`, secrets shown or not, a stored OAuth login), and Ctrl-C that
 * cancels the request in flight instead of leaving it running.
 */
import { AgtError } from '../../errors.js';
import type { ConnectOptions } from '../../mcp/connect.js';
import { resolveConnectSettings, type ResolvedConnectSettings } from '../../mcp/settings/resolved-settings.js';
import type { ConnectSettings } from '../../mcp/settings/settings.js';
import { notesVerdictStore } from '../store-files/probe-notes.js';
import type { McpDocument } from '../../config/mcp-config.js';
import { type CliContext, inCli, mcpReference } from '../context.js';
import { timeoutFlag } from '../files.js';
import { collectInputs } from '../terminal/inputs.js';

/** The options every developer command takes. */
export const SESSION_OPTIONS = {
  input: { type: 'string', multiple: true },
  timeout: { type: 'string' },
} as const;

/** A stored server, ready to connect to. */
export interface SessionTarget {
  reference: string;
  revision: number;
  document: McpDocument;
  /** The options of connectMcp (and of a MountSession's connection). */
  connect: ConnectOptions & { settings: ResolvedConnectSettings };
}

/**
 * Reads the server `raw` names and builds its connect options from `--input` and `--timeout` (handshake, list and
 * call limit); `questions`: how the server's elicitations are answered (`agt mcp call`: on the terminal, or deferred),
 * and whether MCP Apps is declared (`agt mcp app`).
 */
export async function sessionTarget(
  ctx: CliContext,
  raw: string | undefined,
  values: { input?: string[]; timeout?: string },
  usage: string,
  questions: Pick<ConnectSettings, 'elicitation' | 'tasks' | 'apps'> = {},
): Promise<SessionTarget> {
  if (raw === undefined) throw new AgtError('invalid_input', `usage: ${usage}`);
  const reference = mcpReference(raw);
  const record = await inCli(ctx.service.read({ kind: 'mcp', reference }), 'mcp', reference);
  const document = record.data as McpDocument;
  const timeouts = timeoutFlag(values.timeout);
  const inputs = await collectInputs(document, values.input);
  const auth = await ctx.auth?.(reference);
  return {
    reference,
    revision: record.revision,
    document,
    connect: {
      reference,
      revision: record.revision,
      settings: resolveConnectSettings({
        verdicts: notesVerdictStore(ctx.storeFile), // what agt mcp probe learned of the server's era (E2)
        variables: { inputs },
        ...(timeouts === undefined ? {} : { timeouts }),
        ...(auth === undefined ? {} : { auth }),
        ...questions,
      }),
      ...(ctx.showSecrets ? { revealSecrets: true } : {}),
    },
  };
}

/**
 * Runs `work` with a signal that Ctrl-C aborts: the request in flight is
 * cancelled (the server is told) and the command ends as `cancelled`. The
 * SIGINT listener is removed when `work` settles.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onInterrupt = () => controller.abort(new AgtError('cancelled', 'interrupted (Ctrl-C); the server was told to cancel'));
  process.once('SIGINT', onInterrupt);
  try {
    return await work(controller.signal);
  } finally {
    process.off('SIGINT', onInterrupt);
  }
}
