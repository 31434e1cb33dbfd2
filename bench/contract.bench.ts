/**
 * Contract run speed (issue 7): the tickets example's derived cases (create_ticket
 * and get_ticket, ×10), sent by runContract to the real server over stdio;
 * cases per second excluding server start-up, median of 5 runs.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractCases, runContract } from '../src/authoring/index.js';
import { createTicketTools } from '../examples/tickets-server/tools.js';
import { type BenchReport, median } from './harness.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs the contract benchmark. */
export async function runContractBench(): Promise<BenchReport> {
  const [createTicket, getTicket] = createTicketTools();
  const cases = [
    ...contractCases(createTicket, { valid: [{ title: 'Export is broken', priority: 'normal', assignee: 'carol' }] }),
    ...contractCases(getTicket, { valid: [{ id: 1 }] }),
  ];
  const batch = Array.from({ length: 10 }, () => cases).flat();
  const server = { command: process.execPath, args: ['--import', 'tsx', 'server.ts'], cwd: path.join(root, 'examples/tickets-server') };
  const rates: number[] = [];
  const durations: number[] = [];
  let failed = 0;
  for (let r = 0; r < 5; r++) {
    const report = await runContract(server, batch);
    rates.push(report.casesPerSecond);
    durations.push(report.durationMs);
    failed += report.failed;
  }
  return {
    title: 'Contract runs',
    markdown: [
      '| tickets example over stdio | median of 5 |',
      '| --- | --- |',
      `| cases per run | ${batch.length} (${cases.length} distinct) |`,
      `| run time (excluding server start) | ${median(durations).toFixed(0)} ms |`,
      `| cases per second | ${median(rates).toFixed(0)} |`,
    ].join('\n'),
    targets: [{ name: 'every contract case passes', ok: failed === 0, detail: `${failed} failed` }],
  };
}
