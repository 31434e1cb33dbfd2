/**
 * `agt mcp login` / `logout` end to end: the real bin against a real authorization server on
 * loopback (the SDK's auth router); the browser step is driven by HTTP from the URL the CLI prints.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { BIN, runAgt, tempDir } from '../../support/index.js';
import { type OAuthServer, startOAuthServer } from '../../mcp/fixtures/oauth-server.js';

let server: OAuthServer;
beforeAll(async () => {
  server = await startOAuthServer();
});
afterAll(() => server.close());

let tmp: ReturnType<typeof tempDir>;
let db: string;
beforeEach(async () => {
  tmp = tempDir('agt-login-');
  db = path.join(tmp.dir, 'agt.db');
  expect((await agt('mcp', 'add', 'remote', '--url', server.url)).code).toBe(0);
});
afterEach(() => tmp.cleanup());

const agt = (...args: string[]) => runAgt(args, { home: tmp.dir, db });
const tokensFile = () => `${db}.tokens.json`;

/** Starts `agt mcp login remote`; resolves the URL it prints, and its exit. */
function startLogin(): {
  url: Promise<URL>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  interrupt(): void;
} {
  const child = spawn(process.execPath, [BIN, 'mcp', 'login', 'remote', '--store', db], {
    cwd: tmp.dir,
    env: { ...process.env, AGT_HOME: tmp.dir, AGT_NO_BROWSER: '1' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const url = new Promise<URL>((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const found = /^ {2}(http\S+)$/m.exec(stderr)?.[1];
      if (found) resolve(new URL(found));
    });
    child.on('exit', () => reject(new Error(`login ended before printing a URL: ${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { url, exit, interrupt: () => child.kill('SIGINT') };
}

/** The user's browser: consents, and follows the redirect to the CLI's loopback callback (optionally tampered with). */
async function browse(url: URL, tamper?: (callback: URL) => void): Promise<number> {
  const consent = await fetch(url, { redirect: 'manual' });
  const callback = new URL(consent.headers.get('location') ?? '');
  tamper?.(callback);
  return (await fetch(callback)).status;
}

describe('agt mcp login', () => {
  it('R7: login stores tokens in a 0600 file, never in the config; calls use and list/show report them without the token', async () => {
    const login = startLogin();
    expect(await browse(await login.url)).toBe(200);
    const done = await login.exit;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^logged in to default\/remote \(until \d{4}-\d\d-\d\dT[\d:.]+Z, refreshed by itself\)$/m);
    if (process.platform !== 'win32') expect(fs.statSync(tokensFile()).mode & 0o777).toBe(0o600);
    const call = await agt('mcp', 'call', 'remote', 'whoami');
    expect(call).toMatchObject({ code: 0, stdout: 'an authorized user\n' });
    const list = await agt('mcp', 'list');
    expect(list.stdout).toMatch(/^default\/remote {2}streamable-http .* logged in \(until .*, refreshed by itself\)$/m);
    const shown = JSON.parse((await agt('mcp', 'show', 'remote', '--json')).stdout);
    expect(shown.login).toMatchObject({ loggedIn: true, refreshable: true });
    expect(JSON.stringify(shown.data)).not.toMatch(/at-|rt-/); // the config holds no token
    const everything = [done.stdout, done.stderr, call.stdout, call.stderr, list.stdout, JSON.stringify(shown)].join('\n');
    for (const token of server.provider.issued) expect(everything).not.toContain(token);
    // Expired access tokens are refreshed by the next command, and the file keeps the new ones.
    server.provider.expireAccessTokens();
    const refreshes = server.provider.refreshed;
    expect((await agt('mcp', 'call', 'remote', 'whoami')).code).toBe(0);
    expect(server.provider.refreshed).toBe(refreshes + 1);
    expect((await agt('mcp', 'logout', 'remote')).stdout).toBe('logged out of default/remote\n');
    const after = await agt('mcp', 'call', 'remote', 'whoami');
    expect(after.code).toBe(4); // auth_required
  });

  it('R7: a callback with a wrong state is refused; nothing is stored', async () => {
    const login = startLogin();
    expect(await browse(await login.url, (callback) => callback.searchParams.set('state', 'forged'))).toBe(400);
    const done = await login.exit;
    expect(done.code).toBe(4);
    expect(done.stderr).toMatch(
      /agt: auth_required: the authorization callback carried a state this login did not send: refused, nothing was stored/,
    );
    expect(fs.existsSync(tokensFile())).toBe(false);
  });

  it('R7: Ctrl-C during login stores nothing, closes the loopback listener and exits', async () => {
    const login = startLogin();
    const url = await login.url;
    login.interrupt();
    const done = await login.exit;
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(/agt: cancelled: the login was cancelled; nothing was stored/);
    expect(fs.existsSync(tokensFile())).toBe(false);
    const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
    await expect(fetch(redirect)).rejects.toThrow();
  });

  it('R7: a logins file others can read is refused with the fix', async () => {
    const login = startLogin();
    await browse(await login.url);
    expect((await login.exit).code).toBe(0);
    fs.chmodSync(tokensFile(), 0o644);
    const refused = await agt('mcp', 'call', 'remote', 'whoami');
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(`can be read or written by other users (mode 644); run: chmod 600 ${tokensFile()}`);
  });

  it('R7: login of a stdio server says it is for remote servers', async () => {
    await agt('mcp', 'add', 'local', '--cwd', tmp.dir, '--', 'node', 'x.js');
    const out = await agt('mcp', 'login', 'local');
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/login is for remote servers/);
  });
});
