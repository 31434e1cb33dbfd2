/** Shared test helpers: the fixture servers (Python, shell wrapper, reference servers), process counting, waiting. */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { toolAlias } from '../../src/index.js';
import { FIXTURES, REPO_ROOT } from './paths.js';

export const PYTHON_SERVER = path.join(FIXTURES, 'mcp_server.py');
export const WRAPPER = path.join(FIXTURES, 'wrapper.sh');

/** A unique marker to find the processes of one test. */
export function marker(): string {
  return `agt-test-${randomUUID()}`;
}

/** A stdio config running the Python fixture server. */
export function pythonConfig(options: { mode?: string; extra?: string[]; cwd?: string; env?: Record<string, string>; mark?: string } = {}) {
  return {
    command: 'python3',
    args: [
      PYTHON_SERVER,
      '--mode',
      options.mode ?? 'normal',
      ...(options.mark ? ['--marker', options.mark] : []),
      ...(options.extra ?? []),
    ],
    cwd: options.cwd ?? FIXTURES,
    ...(options.env ? { env: options.env } : {}),
  };
}

/** Living (non-zombie) processes whose command line contains `mark`. */
export function livingWithMarker(mark: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (cmdline.includes(mark) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/** The entry file of a reference server package, run with process.execPath (never npx). */
export function referenceServer(name: 'everything' | 'filesystem' | 'memory'): string {
  return path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', `server-${name}`, 'dist', 'index.js');
}

/** The lines of a log file a test server writes, none before it exists. */
export function fileLines(file: string): string[] {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : [];
}

/** The JSON lines of an --events file of the Python server (list requests, cancellations). */
export function readEvents(file: string): { event: string; method?: string; requestId?: unknown; reason?: string }[] {
  return fileLines(file).map((l) => JSON.parse(l));
}

/** Waits until `check()` is true, polling; rejects after `timeoutMs` (a bound that proves "not hung", not a timing). */
export async function waitFor(check: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The alias of a Python-server tool mounted as `tools/py`. */
export const py = (tool: string) => toolAlias('tools/py', tool);
