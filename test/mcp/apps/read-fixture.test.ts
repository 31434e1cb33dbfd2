/**
 * U2 on a real server: readApp through connectMcp against the ext-apps fixture
 * (test/fixtures/apps-server.ts, SDK v2 server, ext-apps' own helpers), over
 * stdio in both eras. The interface comes back with its CSP domains and
 * permissions as declared; a malformed `_meta.ui`, a wrong MIME type, an
 * oversized page and an answer for another URI are each a clear error naming
 * the field.
 */
import { describe, expect, it } from 'vitest';
import { connectMcp } from '../../../src/mcp/connect.js';
import type { McpConnection } from '../../../src/mcp/connection.js';
import { appUriOf, readApp } from '../../../src/mcp/apps/read.js';
import { failure, thrown } from '../../support/index.js';
import { appsServerConfig, CHART_HTML, CHART_URI } from '../../fixtures/apps-server.js';

type Era = 'legacy' | '2026-07-28';

async function connected<T>(era: Era, flags: string[], work: (c: McpConnection) => Promise<T>): Promise<T> {
  const connection = await connectMcp(appsServerConfig(era, ...flags) as never, { apps: true });
  try {
    return await work(connection);
  } finally {
    await connection.close();
  }
}

// The interface URI show_chart declares, as the server listed it.
async function chartUri(c: McpConnection, tool = 'show_chart'): Promise<string> {
  const listed = (await c.listTools()).find((t) => t.name === tool);
  return appUriOf(tool, listed?._meta);
}

describe.each(['legacy', '2026-07-28'] as const)('U2: readApp on the ext-apps fixture (%s)', (era) => {
  it(`U2: ${era}: the tool's interface is read from its own server: the HTML as served, its CSP domains and permissions`, async () => {
    const app = await connected(era, [], async (c) => readApp(c, await chartUri(c)));
    expect(app).toEqual({
      uri: CHART_URI,
      html: CHART_HTML,
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
    });
  });

  it(`U2: ${era}: a malformed _meta.ui (visibility a string) is protocol_error naming the tool and the field`, async () => {
    const error = await connected(era, ['--bad-meta'], async (c) => {
      const listed = (await c.listTools()).find((t) => t.name === 'broken_chart');
      return thrown(() => appUriOf('broken_chart', listed?._meta));
    });
    expect(error).toMatchObject({ code: 'protocol_error', details: { reason: 'app_invalid', field: '_meta.ui.visibility' } });
    expect(error.message).toMatch(/^tool "broken_chart": _meta\.ui\.visibility must be a list/);
  });

  it(`U2: ${era}: a page served as text/html is refused (app_type, field mimeType)`, async () => {
    const error = await connected(era, ['--wrong-mime'], async (c) => failure(readApp(c, await chartUri(c))));
    expect(error).toMatchObject({ code: 'protocol_error', details: { reason: 'app_type', field: 'mimeType' } });
    expect(error.message).toContain('text/html;profile=mcp-app');
  });

  it(`U2: ${era}: a page over 2 MiB is refused (app_too_large), nothing of it returned`, async () => {
    const error = await connected(era, ['--oversized'], async (c) => failure(readApp(c, await chartUri(c))));
    expect(error).toMatchObject({ code: 'protocol_error', details: { reason: 'app_too_large', field: 'text' } });
    expect(error.message).not.toContain('xxxx');
  });

  it(`U2: ${era}: an answer for another URI (ui://other/evil.html) is refused: only the item of the URI asked for is taken`, async () => {
    const error = await connected(era, ['--other-uri'], async (c) => failure(readApp(c, await chartUri(c))));
    expect(error).toMatchObject({ code: 'protocol_error', details: { reason: 'app_invalid', field: 'contents' } });
    expect(error.message).not.toContain('evil');
  });

  it(`U2: ${era}: a tool without an interface is not_found, and nothing is read`, async () => {
    const error = await connected(era, [], async (c) => {
      const echo = (await c.listTools()).find((t) => t.name === 'echo');
      return thrown(() => appUriOf('echo', echo?._meta));
    });
    expect(error).toMatchObject({ code: 'not_found', message: expect.stringContaining('declares no interface') });
  });
});
