/**
 * Skills (issue 53): what a run start pays for 100 skills from two servers.
 * Two kit servers over loopback HTTP (2026-07-28), each serving 50 skills,
 * against two without skills, all in a process of their own
 * (bench/skills-servers.ts); medians of interleaved starts (each closed, not
 * timed). The servers' part is their listing: `skills/list` of each on a bare
 * connection (the mounts load side by side, so the slower one counts).
 * Targets: start with skills ≤ 1.2× start without, plus the listing; no skill
 * file read at start (progressive disclosure).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { connectMcp, MemoryStore, NativeRun, policies, ResourceService } from '../src/index.js';
import { type BenchReport, median } from './harness.js';

const ms = (n: number) => `${n.toFixed(2)} ms`;
const here = path.dirname(fileURLToPath(import.meta.url));

/** `npm run bench -- skills`. */
export async function runSkillsBench(): Promise<BenchReport> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'skills-servers.ts')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => (await lines.next()).value as string;
  const urls = JSON.parse(await next()) as { with: string[]; without: string[] };
  const reads = async () => {
    child.stdin!.write('reads\n');
    return Number(await next());
  };
  const service = new ResourceService({ store: new MemoryStore() });
  const register = async (agent: string, list: string[]) => {
    const refs = list.map((_, i) => `${agent}/m${i}`);
    for (const [i, url] of list.entries())
      await service.write({ kind: 'mcp', reference: refs[i]!, create: true, data: { mcpServers: { s: { url, protocol: '2026-07-28' } } } });
    await service.write({ kind: 'agent', reference: `${agent}/a`, create: true, data: { mcps: refs } });
  };
  await register('with', urls.with);
  await register('without', urls.without);
  const start = (agent: string) => NativeRun.start({ service, agent: `${agent}/a`, policy: policies.autoAllow('*') });
  const direct = await Promise.all(urls.with.map((url) => connectMcp({ url, protocol: '2026-07-28' })));
  try {
    const loadReads = await reads(); // the catalogs read every file once when they load (digests)
    const first = await start('with');
    const skills = first.skills().length;
    await first.close();
    for (let i = 0; i < 10; i++) await Promise.all([(await start('with')).close(), (await start('without')).close()]); // warm-up
    const a: number[] = [];
    const b: number[] = [];
    const listing: number[] = [];
    const cpuA: number[] = [];
    const cpuB: number[] = [];
    const cpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    for (let i = 0; i < 80; i++) {
      let t = performance.now();
      let c = cpu();
      const plain = await start('without');
      a.push(performance.now() - t);
      cpuA.push(cpu() - c);
      await plain.close();
      t = performance.now();
      c = cpu();
      const run = await start('with');
      b.push(performance.now() - t);
      cpuB.push(cpu() - c);
      await run.close();
      const each = await Promise.all(
        direct.map(async (c) => {
          const s = performance.now();
          await c.listSkills();
          return performance.now() - s;
        }),
      );
      listing.push(Math.max(...each));
    }
    const fileReads = (await reads()) - loadReads;
    const [plainMs, skillsMs, listMs] = [median(a), median(b), median(listing)];
    const bound = 1.2 * plainMs + listMs;
    return {
      title: 'Skills (issue 53)',
      markdown: [
        `A run start mounting two kit servers over loopback HTTP (2026-07-28, in a process of their own), median of 80 interleaved starts; ${skills} skills offered with them:`,
        '',
        '| run start | median |',
        '| --- | --- |',
        `| without skills | ${ms(plainMs)} |`,
        `| with 100 skills (listed, no file read) | ${ms(skillsMs)} |`,
        `| the servers' listing (\`skills/list\`, the slower of the two, bare connection) | ${ms(listMs)} |`,
        '',
        `The run's own CPU time per start (this process; the servers run in another): ${ms(median(cpuA))} without skills, ${ms(median(cpuB))} with them.`,
        '',
        `Ratio ${(skillsMs / plainMs).toFixed(2)}×; bound 1.2 × ${ms(plainMs)} + ${ms(listMs)} = ${ms(bound)}. Skill files the servers read during every start: ${fileReads}.`,
      ].join('\n'),
      targets: [
        { name: 'start with 100 skills ≤ 1.2× without + listing', ok: skillsMs <= bound, detail: `${ms(skillsMs)} ≤ ${ms(bound)}` },
        { name: 'no skill file read at start', ok: fileReads === 0 && skills === 100, detail: `${fileReads} reads, ${skills} skills` },
      ],
    };
  } finally {
    await Promise.all(direct.map((c) => c.close()));
    child.stdin!.end();
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
