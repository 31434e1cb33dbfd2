/**
 * Shared test helper: `agt` run as a user would, with its own store and home.
 * By default in this process (the CLI's `main`, its output captured, AGT_HOME,
 * env and cwd set for the call): a CLI start costs ~0.25 s of CPU, and most
 * tests test what a command does, not the process. `spawn: true` — and any
 * call with standard input — runs the built bin as a real process, for what
 * only a process shows (exit, signals, stdin, what is left running).
 * AGT_TEST_CLI=process spawns every call.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export const BIN = path.join(REPO_ROOT, 'dist', 'cli.js');

/** How runAgt runs the CLI: where, with what, and whether as its own process. */
export interface AgtOptions {
  home: string;
  db: string;
  env?: Record<string, string>;
  input?: string | Buffer;
  /** Run the built bin as its own process (implied by `input`). */
  spawn?: boolean;
}

/** What one CLI call did. */
export interface AgtResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `agt ARGS --store DB` in `home` (also AGT_HOME), optionally feeding `input` on standard input. */
export function runAgt(args: string[], options: AgtOptions): Promise<AgtResult> {
  const dash = args.indexOf('--'); // after "--" everything is the server's command line
  const argv = dash === -1 ? [...args, '--store', options.db] : [...args.slice(0, dash), '--store', options.db, ...args.slice(dash)];
  if (options.spawn === true || options.input !== undefined || process.env.AGT_TEST_CLI === 'process') return spawned(argv, options);
  const run = () => inProcess(argv, options);
  const result = queue.then(run, run);
  queue = result.then(
    () => undefined,
    () => undefined,
  );
  return result;
}

function spawned(argv: string[], options: AgtOptions): Promise<AgtResult> {
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

// In-process calls patch process-wide state (output, env, cwd): one at a time per test process.
let queue: Promise<unknown> = Promise.resolve();

async function inProcess(argv: string[], options: AgtOptions): Promise<AgtResult> {
  const { main } = await import('../../src/cli/main.js');
  const stdout: string[] = [];
  const stderr: string[] = [];
  const env = { AGT_HOME: options.home, ...options.env };
  const before = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const cwd = process.cwd();
  const writes = { out: process.stdout.write, err: process.stderr.write };
  const capture = (into: string[]) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  Object.assign(process.env, env);
  process.chdir(options.home);
  process.stdout.write = capture(stdout);
  process.stderr.write = capture(stderr);
  let code: number;
  try {
    code = await main(argv);
  } catch (error) {
    stderr.push(`agt (in process) threw: ${(error as Error)?.stack ?? String(error)}\n`);
    code = 70;
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    process.chdir(cwd);
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  return { code, stdout: stdout.join(''), stderr: stderr.join('') };
}
