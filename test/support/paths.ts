/** Shared test helpers: the repository's paths, temp folders, error probes, child TypeScript processes. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAgtError } from '../../src/index.js';
import type { McpDocument } from '../../src/index.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');

/** A fresh temporary directory, removed by the returned cleanup. */
export function tempDir(prefix = 'agt-test-'): { dir: string; cleanup: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** A stdio mcp document (the config as given, invalid ones too: the service checks it at run time). */
export function stdioDoc(config: Record<string, unknown>, name = 'server'): McpDocument {
  return { mcpServers: { [name]: config } } as unknown as McpDocument;
}

/** The code and details of the AgtError a promise rejects with. */
export async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; details?: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (isAgtError(error)) return { code: error.code, message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected the promise to reject');
}

/** The code and details of the AgtError `run` throws (the synchronous `failure`). */
export function thrown(run: () => unknown): { code: string; message: string; details?: Record<string, unknown> } {
  try {
    run();
  } catch (error) {
    if (isAgtError(error)) return { code: error.code, message: error.message, details: error.details };
    throw error;
  }
  throw new Error('expected it to throw');
}

/** Runs a TypeScript file of this repo in a child Node process (through tsx). */
export function runTs(file: string, args: string[], nodeArgs: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [...nodeArgs, '--import', 'tsx', path.join(REPO_ROOT, file), ...args],
      { cwd: REPO_ROOT, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${file} failed: ${stderr || error.message}`));
        else resolve(stdout);
      },
    );
  });
}
