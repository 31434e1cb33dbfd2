/**
 * run.readApp (U2): an interface is read from the server of the tool that
 * declares it, its mime type and security metadata checked; a tool without an
 * interface, or a URI no tool of the run declares, is not_found.
 */
import { describe, expect, it } from 'vitest';
import { failure, py, runFixture } from '../../support/index.js';

const fx = runFixture(['apps']);

describe('U2: run.readApp', () => {
  it("U2: by the tool's name or its ui:// URI: the HTML with its checked CSP, permissions and border", async () => {
    const run = await fx.start({ apps: true });
    const app = await run.readApp(py('widget'));
    expect(app).toEqual({
      uri: 'ui://fixture/widget',
      html: expect.stringContaining('<button id=go>'),
      csp: { connectDomains: ['https://api.example.com'] },
      permissions: { clipboardWrite: {} },
      prefersBorder: true,
    });
    expect(await run.readApp('ui://fixture/widget')).toEqual(app);
  });

  it('U2: a tool without an interface, a URI no tool of the run declares, a name of no tool: each not_found', async () => {
    const run = await fx.start({ apps: true }, { mcps: ['tools/py', 'tools/other'] });
    for (const target of [py('tally'), 'ui://other/widget', 'no_such_tool'])
      expect((await failure(run.readApp(target))).code, target).toBe('not_found');
  });

  it('U2: a closed run reads nothing (connection_closed)', async () => {
    const run = await fx.start({ apps: true });
    await run.close();
    expect((await failure(run.readApp(py('widget')))).code).toBe('connection_closed');
  });
});
