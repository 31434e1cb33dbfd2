/**
 * The servers of bench/skills.bench.ts in a process of their own (so their
 * work is not counted as the run's): two kit servers over loopback HTTP with
 * 50 skills each from a SkillFiles adapter that counts its reads, and two
 * without skills. Prints `{ with: [url, url], without: [url, url] }` as one
 * line; answers "reads" on stdin with the number of skill files read.
 */
import { createInterface } from 'node:readline';
import { memorySkillFiles, type SkillFiles } from '@modelcontextprotocol/server/ext/skills';
import { createToolServer, serveHttp } from '../src/authoring/index.js';
import { addTool } from '../test/authoring/fixtures/add-tool.js';

let reads = 0;
function skills(prefix: string, count: number): SkillFiles {
  const record: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-skill-${i}`;
    record[`${name}/SKILL.md`] =
      `---\nname: ${name}\ndescription: Skill ${i} of ${prefix}, which does one thing well in a sentence.\n---\n# ${name}\n\nSteps.\n`;
    record[`${name}/references/GUIDE.md`] = `Guide ${i}.\n`;
  }
  const inner = memorySkillFiles(record);
  return { list: (dir) => inner.list(dir), read: (file) => ((reads += 1), inner.read(file)) };
}

const serve = (name: string, source?: SkillFiles) =>
  serveHttp(() => createToolServer({ name, version: '1.0.0', tools: [addTool], ...(source ? { skills: source } : {}) }));
const services = await Promise.all([
  serve('skills-0', skills('alpha', 50)),
  serve('skills-1', skills('beta', 50)),
  serve('plain-0'),
  serve('plain-1'),
]);
process.stdout.write(`${JSON.stringify({ with: [services[0]!.url, services[1]!.url], without: [services[2]!.url, services[3]!.url] })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line === 'reads') process.stdout.write(`${reads}\n`);
});
lines.on('close', () => void Promise.all(services.map((s) => s.close())).then(() => process.exit(0)));
