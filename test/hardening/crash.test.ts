/**
 * Crash safety: a process killed with SIGKILL in the middle of a stream of
 * SQLite writes (library and agt CLI) loses no acknowledged write, and the file
 * is intact on reopen (A3, A4).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/storage/sqlite.js';
import { REPO_ROOT, tempDir } from '../support/index.js';
import { pragma, rawSqlite } from '../support/sqlite.js';

const tmp = tempDir('agt-crash-');
afterAll(() => tmp.cleanup());

/** Starts `child`, collects "ack N" lines, and kills it with SIGKILL once `acks` have arrived. */
function killAfter(child: ChildProcess, acks: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const seen: number[] = [];
    let buffer = '';
    let killed = false;
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('ack ')) seen.push(Number(line.slice(4)));
      if (seen.length >= acks && !killed) {
        killed = true; // once: a later chunk must not signal a group that may be gone (ESRCH would throw here)
        process.kill(-(child.pid as number), 'SIGKILL');
      }
    });
    child.once('exit', (_code, signal) =>
      signal === 'SIGKILL' ? resolve(seen) : reject(new Error(`the writer ended by itself (${signal ?? _code}) after ${seen.length} acks`)),
    );
  });
}

function intact(file: string): string {
  const db = rawSqlite(file, { readonly: true });
  try {
    return String(pragma(db, 'integrity_check'));
  } finally {
    db.close();
  }
}

describe('SIGKILL in the middle of writes', () => {
  it('A4: every acknowledged library write is there after a SIGKILL, and the file passes integrity_check', async () => {
    const file = path.join(tmp.dir, 'lib.db');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'test/hardening/fixtures/write-stream.ts'), file], {
      cwd: REPO_ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const acks = await killAfter(child, 150);
    expect(intact(file)).toBe('ok');
    const store = new SqliteStore({ path: file });
    const mcps = new Set((await store.list('mcp')).map((r) => r.reference));
    for (const i of acks) expect(mcps.has(`crash/r${i}`)).toBe(true);
    const counter = await store.get('agent', 'crash/counter');
    expect((counter?.data as { n: number }).n).toBeGreaterThanOrEqual(Math.max(...acks)); // the last acknowledged update, or one after it
    await store.close();
  }, 120_000);

  it('A3: every acknowledged agt write is there after a SIGKILL of the CLI mid-stream, and the file is intact', async () => {
    const file = path.join(tmp.dir, 'cli.db');
    const bin = path.join(REPO_ROOT, 'dist', 'cli.js');
    const script = `node "${bin}" agent create crash/a --store "${file}" >/dev/null || exit 1
      i=1; while :; do node "${bin}" agent update crash/a --add-mcp "crash/m$i" --store "${file}" >/dev/null && echo "ack $i"; i=$((i+1)); done`;
    const child = spawn('sh', ['-c', script], {
      cwd: tmp.dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, AGT_HOME: tmp.dir },
    });
    const acks = await killAfter(child, 12);
    expect(intact(file)).toBe('ok');
    const store = new SqliteStore({ path: file });
    const mcps = new Set(((await store.get('agent', 'crash/a'))?.data as { mcps: string[] }).mcps);
    for (const i of acks) expect(mcps.has(`crash/m${i}`)).toBe(true);
    await store.close();
  }, 180_000);
});
