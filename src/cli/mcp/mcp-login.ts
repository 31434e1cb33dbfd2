/**
 * `agt mcp login REF` / `agt mcp logout REF`: an OAuth login to a remote
 * server (loginMcp: the SDK's flow with a loopback redirect), kept in the
 * logins file, never in the config. The URL is printed (and opened in a
 * browser when there is one); Ctrl-C cancels and stores nothing.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { AgtError } from '../../errors.js';
import { loginMcp } from '../../mcp/auth/oauth-login.js';
import { type LoginState, loginState } from '../../mcp/auth/token-store.js';
import { type CliContext, emit, EXIT } from '../context.js';
import { milliseconds } from '../files.js';
import { interruptible, sessionTarget } from './mcp-session.js';
import { outsideText } from '../../outside-text.js';
import { DEFAULT_LOGIN_TIMEOUT_MS } from '../../bounds.js';

const USAGE = 'agt mcp login <ref> [--scope S] [--no-browser] [--timeout MS] [--input id=VALUE]…';

/** Logs in; exit 0 when logged in. */
export async function loginCommand(args: string[], ctx: CliContext): Promise<number> {
  const options = {
    input: { type: 'string', multiple: true },
    timeout: { type: 'string' },
    scope: { type: 'string' },
    'no-browser': { type: 'boolean' },
  } as const;
  const { values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options });
  if (positionals.length !== 1) throw new AgtError('invalid_input', `usage: ${USAGE}`);
  const target = await sessionTarget(ctx, positionals[0], { ...(values.input ? { input: values.input } : {}) }, USAGE);
  const timeoutMs = milliseconds(values.timeout, '--timeout') ?? DEFAULT_LOGIN_TIMEOUT_MS;
  const browser = values['no-browser'] !== true && process.env.AGT_NO_BROWSER === undefined;
  const state = await interruptible((signal) =>
    loginMcp(target.document, {
      server: { kind: 'mcp', reference: target.reference },
      tokens: ctx.tokens,
      ...(values.scope === undefined ? {} : { scope: values.scope }),
      signal,
      timeoutMs,
      connect: { variables: target.connect.settings.variables },
      onAuthorizationUrl: (url) => {
        ctx.err(
          `open this URL to log in to ${target.reference}:\n  ${outsideText(url.href)}\nwaiting for the authorization (Ctrl-C cancels)…`,
        );
        if (browser) openBrowser(url);
      },
    }),
  );
  emit(ctx, { reference: target.reference, ...state }, () => `logged in to ${target.reference}${untilText(state)}`);
  return EXIT.ok;
}

/** `agt mcp logout REF`: forgets the login (tokens and client registration). */
export async function logoutCommand(args: string[], ctx: CliContext): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: {} });
  if (positionals.length !== 1) throw new AgtError('invalid_input', 'usage: agt mcp logout <ref>');
  const target = await sessionTarget(ctx, positionals[0], {}, 'agt mcp logout <ref>');
  const removed = await ctx.tokens.delete({ kind: 'mcp', reference: target.reference });
  emit(ctx, { reference: target.reference, loggedOut: removed }, () =>
    removed ? `logged out of ${target.reference}` : `${target.reference} was not logged in; nothing to forget`,
  );
  return EXIT.ok;
}

/** ` (until …, refreshable)` for a login state; '' when not logged in. */
export function untilText(state: LoginState): string {
  if (!state.loggedIn) return '';
  const parts = [
    ...(state.expiresAt === undefined ? [] : [`${state.expired ? 'expired' : 'until'} ${state.expiresAt}`]),
    ...(state.refreshable ? ['refreshed by itself'] : []),
  ];
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** The login state of a stored server, for list and show. */
export async function loginOf(ctx: CliContext, reference: string): Promise<LoginState> {
  return loginState(await ctx.tokens.get({ kind: 'mcp', reference }));
}

// Opens the URL in the user's browser when there is one; the URL is the server's, so only http(s) and never through a shell.
function openBrowser(url: URL): void {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
  const command =
    process.platform === 'darwin'
      ? ['open', url.href]
      : process.platform === 'win32'
        ? ['rundll32', 'url.dll,FileProtocolHandler', url.href]
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? ['xdg-open', url.href]
          : undefined;
  if (command === undefined) return;
  try {
    const child = spawn(command[0] as string, command.slice(1), { stdio: 'ignore', detached: true });
    child.on('error', () => undefined); // no browser: the printed URL is enough
    child.unref();
  } catch {
    // as above
  }
}
