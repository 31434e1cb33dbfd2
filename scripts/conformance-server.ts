/**
 * npm run conformance:server — every server scenario of
 * @modelcontextprotocol/conformance (0.1.13, the list read from the package)
 * against the kit's conformance server (examples/conformance-server) over
 * Streamable HTTP, started as a real process. Prints a markdown table; exits 1
 * when a scenario that applies to a tools server fails.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

/** Scenarios about what a tools-only server does not offer, with the reason. */
export const NOT_APPLICABLE: Readonly<Record<string, string>> = {
  'completion-complete': 'completions belong to prompts and resource templates; a kit server serves tools only',
  'resources-list': 'a kit server serves tools only (no resources)',
  'resources-read-text': 'a kit server serves tools only (no resources)',
  'resources-read-binary': 'a kit server serves tools only (no resources)',
  'resources-templates-read': 'a kit server serves tools only (no resources)',
  'resources-subscribe': 'a kit server serves tools only (no resources)',
  'resources-unsubscribe': 'a kit server serves tools only (no resources)',
  'prompts-list': 'a kit server serves tools only (no prompts)',
  'prompts-get-simple': 'a kit server serves tools only (no prompts)',
  'prompts-get-with-args': 'a kit server serves tools only (no prompts)',
  'prompts-get-embedded-resource': 'a kit server serves tools only (no prompts)',
  'prompts-get-with-image': 'a kit server serves tools only (no prompts)',
};

/** The server scenarios the installed package lists. */
export function serverScenarios(): string[] {
  const out = execFileSync(process.execPath, [BIN, 'list', '--server'], { cwd: root, encoding: 'utf8' });
  return [...out.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1] as string);
}

/** Why a scenario warns (its SHOULDs), where we know. */
const WARNINGS: Readonly<Record<string, string>> = {
  'server-sse-polling':
    'the scenario calls with protocol version 2025-03-26, for which the SDK transport sends no priming event and cannot close a stream mid-call (SEP-1699 is 2025-11-25); with a 2025-11-25 client the kit resumes (test/authoring/serve/http.test.ts)',
};

/** Runs one scenario against `url`: passed and total checks, warnings, and the output; ok when no check failed. */
export function runScenario(
  url: string,
  scenario: string,
): Promise<{ passed: number; total: number; warnings: number; ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'server', '--url', url, '--scenario', scenario],
      { cwd: root, timeout: 120_000 },
      (_e, stdout, stderr) => {
        const output = `${stdout}\n${stderr}`;
        const m = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
        const passed = Number(m?.[1] ?? 0);
        const total = Number(m?.[2] ?? 0);
        resolve({ passed, total, warnings: Number(m?.[4] ?? 0), ok: m !== null && m[3] === '0' && passed === total, output });
      },
    );
  });
}

/** The row of one scenario. */
export function rowOf(scenario: string, result: { passed: number; total: number; warnings: number; ok: boolean }): string {
  const warned = result.warnings > 0 ? `, ${result.warnings} warnings${WARNINGS[scenario] ? `: ${WARNINGS[scenario]}` : ''}` : '';
  return `| ${scenario} | ${result.ok ? 'pass' : 'FAIL'} (${result.passed}/${result.total} checks${warned}) |`;
}

/** Starts the conformance server as a process (`modernOnly`: the 2026-07-28 era alone); its URL and a stop function. */
export async function startConformanceServer(options: { modernOnly?: boolean } = {}): Promise<{ url: string; stop(): Promise<void> }> {
  const args = [path.join(root, 'examples/conformance-server/server.ts'), ...(options.modernOnly ? ['--modern-only'] : [])];
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [url] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
  return {
    url,
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const server = await startConformanceServer();
  let failed = 0;
  const rows: string[] = ['| scenario | result |', '| --- | --- |'];
  try {
    for (const scenario of serverScenarios()) {
      const reason = NOT_APPLICABLE[scenario];
      if (reason !== undefined) {
        rows.push(`| ${scenario} | not applicable: ${reason} |`);
        continue;
      }
      const result = await runScenario(server.url, scenario);
      if (!result.ok) failed += 1;
      rows.push(rowOf(scenario, result));
      if (!result.ok) process.stderr.write(`--- ${scenario}\n${result.output}\n`);
    }
  } finally {
    await server.stop();
  }
  console.log(rows.join('\n'));
  process.exitCode = failed > 0 ? 1 : 0;
}
