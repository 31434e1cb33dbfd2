/**
 * fixtureServer(): the config of a real stdio MCP server that ships with the
 * package, for host tests — register it, mount it, probe it, call it:
 *
 *   await service.write({ kind: 'mcp', reference: 'test/fixture', create: true, data: { mcpServers: { fixture: fixtureServer() } } });
 *
 * Tools: echo, add, fail, sleep, env (see fixtureTools). It runs with this
 * process's Node (`process.execPath`) and needs nothing else.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StdioServerConfig } from '../config/mcp-config.js';
import { defined } from '../json.js';

declare const __dirname: string | undefined;

// The folder of this module: dist/ when built (ESM or CJS), src/testing/ in the repository.
function here(): string {
  return typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url));
}

/** The stdio config that starts the fixture server; `cwd` defaults to the temp folder. */
export function fixtureServer(options: { cwd?: string; env?: Record<string, string> } = {}): StdioServerConfig {
  const built = path.join(here(), 'fixture-server.js');
  // From the sources (this repository's tests) it runs through tsx, found from here, not from `cwd`.
  const args = fs.existsSync(built)
    ? [built]
    : ['--import', pathToFileURL(createRequire(path.join(here(), 'x.js')).resolve('tsx')).href, path.join(here(), 'fixture-server.ts')];
  return { command: process.execPath, args, cwd: options.cwd ?? os.tmpdir(), ...defined({ env: options.env }) };
}
