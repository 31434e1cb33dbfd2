/**
 * MCP Apps in a probe (U1), against a real SDK v2 server that declares its
 * interfaces with ext-apps' own registerAppTool/registerAppResource
 * (test/fixtures/apps-server.ts), over stdio, in both eras: the probe declares
 * the extension when told to (as a run with `apps: true` does), lists each
 * interface with who may call its tool, and fails a tool whose `_meta.ui` is
 * malformed, naming the tool and the field.
 */
import { describe, expect, it } from 'vitest';
import { McpProber } from '../../../src/mcp/probe/prober.js';
import { UI_EXTENSION } from '../../../src/mcp/apps/ui-meta.js';
import type { McpDocument } from '../../../src/config/mcp-config.js';
import { appsServerConfig, CHART_URI } from '../../fixtures/apps-server.js';

const doc = (era: 'legacy' | '2026-07-28', ...flags: string[]) =>
  ({ mcpServers: { charts: appsServerConfig(era, ...flags) } }) as unknown as McpDocument;

describe.each([
  ['legacy', '2025-11-25'],
  ['2026-07-28', '2026-07-28'],
] as const)('U1: probing an ext-apps server (%s)', (era, version) => {
  it(`U1: ${era}: the probe declares the extension and lists each interface with its visibility (app-only and model-only tools marked)`, async () => {
    const report = await new McpProber({ apps: true }).probe(doc(era));
    expect(report.protocolVersion).toBe(version);
    expect(report.clientCapabilities).toMatchObject({ extensions: { [UI_EXTENSION]: { mimeTypes: ['text/html;profile=mcp-app'] } } });
    expect(report.ok).toBe(true);
    expect(report.tools.map((t) => t.name).sort()).toEqual(['echo', 'refresh_chart', 'show_chart', 'summarize']);
    expect(report.apps).toEqual([
      { tool: 'show_chart', resourceUri: CHART_URI, visibility: ['model', 'app'] },
      { tool: 'refresh_chart', resourceUri: CHART_URI, visibility: ['app'] },
      { tool: 'summarize', resourceUri: CHART_URI, visibility: ['model'] },
    ]);
    expect(report.resources).toEqual({ count: 1, templates: 0 });
  });

  it(`U1: ${era}: a malformed _meta.ui (visibility a string) fails its tool, naming the field; the other tools and interfaces stand`, async () => {
    const report = await new McpProber({ apps: true }).probe(doc(era, '--bad-meta'));
    expect(report.ok).toBe(false);
    const broken = report.tools.find((t) => t.name === 'broken_chart');
    expect(broken).toMatchObject({
      ok: false,
      error: { code: 'protocol_error', message: expect.stringMatching(/^_meta\.ui\.visibility must be a list/) },
    });
    expect(report.tools.filter((t) => t.name !== 'broken_chart').every((t) => t.ok)).toBe(true);
    // A tool whose declaration cannot be read is listed as no interface: nobody is told whom it is for.
    expect(report.apps?.map((a) => a.tool)).toEqual(['show_chart', 'refresh_chart', 'summarize']);
  });
});

describe('U1: a server that lists its interfaces only to clients that render them (--capable-only)', () => {
  it.each(['legacy', '2026-07-28'] as const)(
    'U1: %s: with apps the probe declares the extension and sees the interfaces; without, it declares none and sees only the plain tool (P2: as a run)',
    async (era) => {
      const declared = await new McpProber({ apps: true }).probe(doc(era, '--capable-only'));
      expect(declared.tools.map((t) => t.name)).toEqual(['show_chart', 'refresh_chart', 'summarize', 'echo']);
      expect(declared.apps?.map((a) => a.tool)).toEqual(['show_chart', 'refresh_chart', 'summarize']);
      const plain = await new McpProber().probe(doc(era, '--capable-only'));
      expect(plain.clientCapabilities).not.toHaveProperty('extensions');
      expect(plain.tools.map((t) => t.name)).toEqual(['echo']);
      expect(plain).not.toHaveProperty('apps');
    },
  );
});
