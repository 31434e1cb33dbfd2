/**
 * P5: never silently unsandboxed. Where the sandbox cannot be given — Node < 22.12 (the runtime's floor),
 * a PATH without bubblewrap — a sandboxed config fails before any process starts, in runs and probes alike (P2).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connectMcp, McpProber } from '../../../../src/index.js';
import { findInPath } from '../../../../src/config/host-paths.js';
import { nodeAtLeast } from '../../../../src/config/sandbox-machine.js';
import { failure, pythonConfig, tempDir } from '../../../support/index.js';
import { blockProcesses } from '../../../support/process-guard.js';

const modern = nodeAtLeast(process.versions.node);
const timeouts = { handshakeMs: 20_000 };

let work: ReturnType<typeof tempDir>;
let tried: string[];
let unblock: () => void;
beforeEach(() => {
  work = tempDir('agt-sbx-refuse-');
  tried = [];
});
afterEach(() => {
  unblock?.();
  work.cleanup();
});

// Any process start from here on is recorded (and refused): "nothing started" is what the list says.
function watchStarts(): void {
  unblock = blockProcesses((what) => tried.push(what));
}

const boxed = (command?: string) => ({
  ...pythonConfig({ cwd: work.dir, extra: ['--feature', 'sandbox-probe'] }),
  ...(command === undefined ? {} : { command }),
  sandbox: true as const,
});

describe.skipIf(modern)(
  `P5 on Node < 22.12: invalid_config, nothing started${modern ? ' (skipped: this is Node >= 22.12; sandbox.test.ts runs instead)' : ''}`,
  () => {
    it('P5: a run of a sandboxed config fails with invalid_config naming Node >= 22.12; nothing started', async () => {
      watchStarts();
      const f = await failure(connectMcp(boxed(), { timeouts }));
      expect(f.code).toBe('invalid_config');
      expect(f.message).toContain('Node >= 22.12');
      expect(f.details).toMatchObject({ field: 'sandbox', reason: 'node_too_old' });
      expect(tried).toEqual([]);
    });

    it('P2 P5: the probe refuses the same way (same code path); nothing started', async () => {
      watchStarts();
      const f = await failure(new McpProber({ timeouts }).probe({ mcpServers: { py: boxed() } }));
      expect(f.code).toBe('invalid_config');
      expect(f.message).toContain('Node >= 22.12');
      expect(tried).toEqual([]);
    });
  },
);

describe.skipIf(!modern)(
  `P5 with a PATH lacking bwrap: sandbox_unavailable, nothing started${modern ? '' : ' (skipped: Node < 22.12 refuses earlier, with invalid_config)'}`,
  () => {
    let savedPath: string | undefined;
    beforeEach(() => {
      savedPath = process.env.PATH;
    });
    afterEach(() => {
      process.env.PATH = savedPath;
    });

    // A PATH with socat and rg but no bwrap (links into a folder of their own).
    function pathWithoutBwrap(): string {
      const bin = path.join(work.dir, 'bin');
      fs.mkdirSync(bin);
      for (const tool of ['socat', 'rg']) {
        const found = findInPath(tool, savedPath);
        if (found !== undefined) fs.symlinkSync(found, path.join(bin, tool));
      }
      return bin;
    }

    it('P5: a run fails with sandbox_unavailable naming bwrap and how to install it; nothing started', async () => {
      const python = findInPath('python3', savedPath) as string;
      process.env.PATH = pathWithoutBwrap();
      watchStarts();
      const f = await failure(connectMcp(boxed(python), { timeouts }));
      expect(f.code).toBe('sandbox_unavailable');
      expect(f.details?.missing).toContain('bwrap');
      expect(f.message).toMatch(/bwrap.*apt-get install bubblewrap/);
      expect(tried).toEqual([]);
    });

    it('P2 P5: the probe refuses the same way; nothing started', async () => {
      const python = findInPath('python3', savedPath) as string;
      process.env.PATH = pathWithoutBwrap();
      watchStarts();
      const f = await failure(new McpProber({ timeouts }).probe({ mcpServers: { py: boxed(python) } }));
      expect(f.code).toBe('sandbox_unavailable');
      expect(f.details?.missing).toContain('bwrap');
      expect(tried).toEqual([]);
    });
  },
);
