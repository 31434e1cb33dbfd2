/** Shared test helper: the built `agt` bin run as a user would, with its own store and home. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export const BIN = path.join(REPO_ROOT, 'dist', 'cli.js');

/** Runs `agt ARGS --store DB` in `home` (also AGT_HOME), optionally feeding `input` on standard input. */
export function runAgt(
  args: string[],
  options: { home: string; db: string; env?: Record<string, string>; input?: string | Buffer },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const dash = args.indexOf('--'); // after "--" everything is the server's command line
  const argv = dash === -1 ? [...args, '--store', options.db] : [...args.slice(0, dash), '--store', options.db, ...args.slice(dash)];
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...argv],
      { cwd: options.home, env: { ...process.env, AGT_HOME: options.home, ...options.env }, maxBuffer: 16 * 1024 * 1024 },
      (e, stdout, stderr) => resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.on('error', () => undefined); // the CLI may stop reading early (a limit)
    if (options.input !== undefined) child.stdin?.end(options.input);
    else child.stdin?.end();
  });
}
