/** P5: the pool key and a run's fingerprint cover a server's sandbox — and only a sandboxed server's keys change. */
import { describe, expect, it } from 'vitest';
import { ToolSchemaRegistry } from '../../../../src/index.js';
import { documentSandboxHash, sandboxHash } from '../../../../src/mcp/process/sandbox/fingerprint.js';
import { keyOf } from '../../../../src/pool/key.js';
import type { LeaseRequest } from '../../../../src/pool/types.js';
import { resolveConnectSettings } from '../../../../src/mcp/settings/resolved-settings.js';
import { assembleSnapshot, type LoadedMount } from '../../../../src/runtime/assembly/snapshot.js';
import { canonicalHash } from '../../../../src/schema/canonical.js';
import { stdioDoc } from '../../../support/index.js';

const plain = { command: '/usr/bin/env', args: ['true'], cwd: '/srv/work' };

function request(server: Record<string, unknown>): LeaseRequest {
  return { reference: 'tools/box', revision: 1, document: stdioDoc(server), scope: 's', owner: 'o', connect: {}, busy: () => false };
}

function snapshot(server: Record<string, unknown>) {
  const mount = { reference: 'tools/box', revision: 1, data: stdioDoc(server), routes: [], tools: [{ name: 't', schema: 'h' }] };
  const loaded = new Map([['tools/box', mount as unknown as LoadedMount]]);
  const input = { settings: {}, access: { role: null, kind: null, capabilities: [] }, skills: [], registrySkills: [], loaded };
  return assembleSnapshot({ ...input, framework: [], delegates: [], registry: new ToolSchemaRegistry(), notices: [] });
}
const fingerprint = (server: Record<string, unknown>) => snapshot(server).fingerprint;

describe('P5: keys and fingerprints of sandboxed servers', () => {
  it('P5: no sandbox (absent or false) has no sandbox hash; `true` and rules resolve to different ones', () => {
    expect(sandboxHash(plain)).toBeUndefined();
    expect(sandboxHash({ ...plain, sandbox: false })).toBeUndefined();
    const defaults = sandboxHash({ ...plain, sandbox: true });
    const wider = sandboxHash({ ...plain, sandbox: { filesystem: { allowWrite: ['/srv/out'] } } });
    expect(defaults).toMatch(/^[0-9a-f]+$/);
    expect(wider).not.toBe(defaults);
    // Resolved, not as written: "." and "${cwd}" are the same folder.
    expect(sandboxHash({ ...plain, sandbox: { filesystem: { allowWrite: ['.'] } } })).toBe(
      sandboxHash({ ...plain, sandbox: { filesystem: { allowWrite: ['${cwd}'] } } }),
    );
    expect(documentSandboxHash(stdioDoc({ ...plain, sandbox: true }))).toBe(defaults);
    // VS Code's sandboxEnabled counts as it does at launch.
    expect(sandboxHash({ ...plain, sandboxEnabled: true })).toBe(defaults);
    expect(sandboxHash({ ...plain, sandboxEnabled: false, sandbox: { filesystem: { allowWrite: ['/srv/out'] } } })).toBeUndefined();
  });

  it('P5: the pool never shares a connection across sandbox rules', () => {
    const settings = resolveConnectSettings({});
    const keys = [plain, { ...plain, sandbox: true }, { ...plain, sandbox: { network: { allowedDomains: ['api.example.com'] } } }].map(
      (s) => keyOf(request(s), settings),
    );
    expect(new Set(keys).size).toBe(3);
  });

  it('P5: the run fingerprint covers the sandbox (a change refreshes at the boundary); an unsandboxed mount keeps its fingerprint', () => {
    const base = fingerprint(plain);
    expect(fingerprint({ ...plain, sandbox: false })).toBe(base); // `false` asks for no sandbox: nothing changes
    const boxed = fingerprint({ ...plain, sandbox: true });
    expect(boxed).not.toBe(base);
    expect(fingerprint({ ...plain, sandbox: { filesystem: { denyRead: ['/srv/secrets'] } } })).not.toBe(boxed);
    // Without a sandbox the mounts hash is what it always was: reference and tools only.
    expect(snapshot(plain).mountsHash).toBe(canonicalHash([{ reference: 'tools/box', tools: [{ name: 't', schema: 'h' }] }]));
  });
});
