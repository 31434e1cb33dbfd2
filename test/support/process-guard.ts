/** The unit lane's guard against child processes (installed by test/support/unit-setup.ts). */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const STARTERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/**
 * Makes every child_process function that starts a process throw (after telling `onTry` what was
 * tried), for `import { spawn }` and `childProcess.spawn` callers alike; returns the undo.
 */
export function blockProcesses(onTry: (what: string) => void = () => undefined): () => void {
  const module = childProcess as unknown as Record<string, unknown>;
  const originals = STARTERS.map((name) => [name, module[name]] as const);
  for (const name of STARTERS) {
    module[name] = (command: unknown) => {
      const what = `child_process.${name}(${JSON.stringify(command)})`;
      onTry(what);
      throw new Error(`${what}: the unit lane starts no process (test/support/lanes.ts classes this file)`);
    };
  }
  // Written onto the module object (what require() and cross-spawn read), then into the ESM named exports.
  syncBuiltinESMExports();
  return () => {
    for (const [name, original] of originals) module[name] = original;
    syncBuiltinESMExports();
  };
}
