/**
 * The macOS platform seam run for real on Linux (POSIX groups and ps, no /proc): a real Python server
 * process and the child it detaches (the rest of the seam, without processes: platform.test.ts).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { toLaunchSpec } from '../../../src/mcp/process/launch.js';
import { DARWIN } from '../../../src/mcp/process/platform/index.js';
import { ProcessGroupStdioTransport } from '../../../src/mcp/process/stdio-transport.js';
import { livingWithMarker, marker, pythonConfig, waitFor } from '../../support/index.js';

describe('the macOS platform, run for real on Linux (POSIX groups and ps, no /proc)', () => {
  // Three full Node 24 runs of CI (of dozens) left the setsid child running here: survivors 0, so no ps table at close
  // named it, though one did just before (cause not proven; hosts on Linux find such a child through /proc and the
  // cgroup, not ps). Two more tries, so that a miss must repeat to fail; the diagnostics below say what was left.
  it(
    'P3: close ends the server, its group and a child that left for its own session, found through ps',
    { timeout: 120_000, retry: 2 },
    async () => {
      const mark = marker();
      const spec = await toLaunchSpec(pythonConfig({ mode: 'detach-child', mark }));
      const transport = new ProcessGroupStdioTransport(spec, { spawnMs: 10_000, closeGraceMs: 1_000, platform: DARWIN });
      await transport.start();
      const pid = transport.pid as number;
      // The detached sleeper (its own session) is among what ps finds for the server: wait until it runs
      // (one ps at a time: a ps started every poll would pile up on a busy machine).
      for (let tries = 0; ; tries++) {
        const strays = await DARWIN.strays(pid, 'unused');
        if (livingWithMarker(mark).some((p) => p !== pid && strays.includes(p))) break;
        if (tries >= 300) throw new Error('the detached child never showed up in ps');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await transport.close();
      // On failure, say what is left: each marked process's state, parent, group and session (/proc/PID/stat), and survivors.
      const left = () =>
        livingWithMarker(mark).map((p) => {
          const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
          return `${p}: ${stat
            .slice(stat.lastIndexOf(')') + 2)
            .split(' ')
            .slice(0, 4)
            .join(' ')}`;
        });
      await waitFor(() => livingWithMarker(mark).length === 0, 60_000).catch((error: Error) => {
        const message = `${error.message}; server ${pid}, survivors ${transport.survivors}, left: ${left().join('; ')}`;
        for (const p of livingWithMarker(mark)) process.kill(p, 'SIGKILL'); // no sleeper outlives a failed try
        throw new Error(message);
      });
      expect(transport.survivors).toBe(0);
    },
  ); // ps under load: a full suite on 2 cores once took over 10 s here (alone: 0.5 s); a slow ps is tried again
});
